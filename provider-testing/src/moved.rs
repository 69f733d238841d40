//! `moved` and `import` blocks, as Terraform 1.11 runs them: moves are
//! applied to the state before planning (`refactoring.ApplyMoves`, each
//! moved object planned at its new address and shown with its
//! `previous_address`); an import target not yet in state is imported
//! during plan (`NodePlannableResourceInstance.importState`:
//! `ImportResourceState`, then a read), planned against the imported
//! object and shown `importing`; the apply saves it.

use std::collections::{BTreeMap, BTreeSet};

use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::Value as Json;

use crate::config::{evaluate_json, VariablesScope};
use crate::core::Stored;
use crate::instances::{instance_address, key_of, resource_of, InstanceKey};
use crate::Harness;

/// The configuration's `moved` and `import` blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Statements {
    /// `moved { from, to }`, in order.
    pub moved: Vec<(String, String)>,
    /// `import { to, id }`: the target and its id expression (JSON
    /// syntax).
    pub imports: Vec<(String, Json)>,
}

/// What a plan says besides its changes: each moved instance's previous
/// address, each imported one's id.
#[derive(Clone, Debug, Default)]
pub(crate) struct Notes {
    pub previous: BTreeMap<String, String>,
    pub importing: BTreeMap<String, String>,
}

/// Where a `moved` block moves `address`, if it does: a whole resource's
/// move takes each of its instances to the same key.
fn moved_to(from: &str, to: &str, address: &str) -> Option<String> {
    if address == from {
        return Some(to.to_owned());
    }
    let whole = key_of(from).ok()?.is_none() && key_of(to).ok()?.is_none();
    (whole && resource_of(address) == from).then(|| format!("{to}{}", &address[from.len()..]))
}

impl Harness {
    /// The `moved` blocks applied to `state` (`ApplyMoves`): an object
    /// moves when nothing is at its new address yet.
    pub(crate) fn apply_moves(
        &self,
        state: &BTreeMap<String, Stored>,
        notes: &mut Notes,
    ) -> BTreeMap<String, Stored> {
        let mut out = state.clone();
        let statements = self.implied_moves(state);
        for (from, to) in self.statements.moved.iter().chain(&statements) {
            let moving: Vec<String> = out
                .keys()
                .filter(|a| moved_to(from, to, a).is_some())
                .cloned()
                .collect();
            for address in moving {
                let Some(target) = moved_to(from, to, &address) else {
                    continue;
                };
                if out.contains_key(&target) {
                    continue;
                }
                if let Some(stored) = out.remove(&address) {
                    out.insert(target.clone(), stored);
                    let original = notes.previous.remove(&address).unwrap_or(address);
                    notes.previous.insert(target, original);
                }
            }
        }
        notes.previous.retain(|to, from| to != from);
        out
    }

    /// `ImpliedMoveStatements`: an object without a key whose resource now
    /// has `count` moves to `[0]`, and `[0]` back to no key when neither
    /// `count` nor `for_each` is set, unless a `moved` block names the
    /// resource.
    fn implied_moves(&self, state: &BTreeMap<String, Stored>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let resources: BTreeSet<&str> = state.keys().map(|a| resource_of(a)).collect();
        for resource in resources {
            if !self.resources.contains_key(resource) {
                continue;
            }
            let zero = instance_address(resource, Some(&InstanceKey::Int(0)));
            let implied = match self.repetition_of(resource) {
                Some(("count", _)) if state.contains_key(resource) => (resource.to_owned(), zero),
                None if state.contains_key(&zero) => (zero, resource.to_owned()),
                _ => continue,
            };
            let named = (self.statements.moved.iter())
                .any(|(f, t)| resource_of(f) == resource || resource_of(t) == resource);
            if !named {
                out.push(implied);
            }
        }
        out
    }

    /// The id the `import` block for `address` gives, if there is one
    /// (evaluated with the variables and locals).
    pub(crate) fn import_id(&self, address: &str) -> Result<Option<String>, Diagnostics> {
        let Some((_, id)) = self.statements.imports.iter().find(|(to, _)| to == address) else {
            return Ok(None);
        };
        let v = evaluate_json(id, &VariablesScope { harness: self })?.value;
        match v.convert(&ctywire::Type::String) {
            Ok(s) if s.is_known() && !s.is_null() => Ok(s.as_str().map(str::to_owned)),
            _ => Err(Diagnostic::error("Invalid import id argument")
                .with_detail("The import ID cannot be null, and must be a known string.")
                .into()),
        }
    }

    /// `ValidateMoves`, after the plan walk as core runs it: no move to
    /// its own address, none from what is still declared, one
    /// destination per source and one source per destination. Core points
    /// at the statements' source ranges; the harness names them.
    pub(crate) fn validate_moves(&self, configured: &BTreeSet<String>) -> Result<(), Diagnostics> {
        let mut diags = Diagnostics::new();
        let mut from_seen: BTreeMap<&str, &str> = BTreeMap::new();
        let mut to_seen: BTreeMap<&str, &str> = BTreeMap::new();
        for (from, to) in &self.statements.moved {
            let (noun, short) = match key_of(from) {
                Ok(Some(_)) => ("resource instance", "instance"),
                _ => ("resource", "resource"),
            };
            let statement = format!("The statement moving {from} to {to}");
            if from == to {
                diags.push(Diagnostic::error("Redundant move statement").with_detail(format!("This statement declares a move from {from} to the same address, which is the same as not declaring this move at all.")));
                continue;
            }
            let exists = match key_of(from) {
                Ok(Some(_)) => configured.contains(from),
                _ => self.resources.contains_key(from),
            };
            if exists {
                diags.push(Diagnostic::error("Moved object still exists").with_detail(format!("This statement declares a move from {from}, but that {noun} is still declared.\n\nChange your configuration so that this {short} will be declared as {to} instead.")));
            }
            match from_seen.get(from.as_str()) {
                Some(other) if other != to => diags.push(Diagnostic::error("Ambiguous move statements").with_detail(format!("{statement}: another statement declared that {from} moved to {other}, but this statement instead declares that it moved to {to}.\n\nEach {noun} can move to only one destination {short}."))),
                Some(_) => {}
                None => {
                    from_seen.insert(from, to);
                }
            }
            match to_seen.get(to.as_str()) {
                Some(other) if other != from => diags.push(Diagnostic::error("Ambiguous move statements").with_detail(format!("{statement}: another statement declared that {other} moved to {to}, but this statement instead declares that {from} moved there.\n\nEach {noun} can have moved from only one source {short}."))),
                Some(_) => {}
                None => {
                    to_seen.insert(to, from);
                }
            }
        }
        match diags.has_errors() {
            true => Err(diags),
            false => Ok(()),
        }
    }

    /// Every `import` target is a configured instance, as core's
    /// `validateExpandedImportTargets` requires.
    pub(crate) fn check_imports(&self, configured: &BTreeSet<String>) -> Result<(), Diagnostics> {
        for (to, _) in &self.statements.imports {
            if !configured.contains(to) {
                return Err(Diagnostic::error("Configuration for import target does not exist")
                    .with_detail(format!("The configuration for the given import {to} does not exist. All target instances must have an associated configuration to be imported."))
                    .into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resources_move_takes_its_instances_to_the_same_keys() {
        assert_eq!(moved_to("a.x", "a.y", "a.x").as_deref(), Some("a.y"));
        assert_eq!(moved_to("a.x", "a.y", "a.x[0]").as_deref(), Some("a.y[0]"));
        assert_eq!(moved_to("a.x[0]", "a.y", "a.x[0]").as_deref(), Some("a.y"));
        assert_eq!(moved_to("a.x[0]", "a.y", "a.x[1]"), None);
        assert_eq!(moved_to("a.x", "a.y", "a.xy"), None);
    }
}
