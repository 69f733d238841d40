//! The plan engine: what `PlanResourceChange` answers when the provider
//! writes no plan code.
//!
//! Terraform's plan semantics as terraform-plugin-framework plans them,
//! with the framework's known pitfalls fixed (each rule below has its
//! test in `plan/tests.rs`):
//!
//! - destroy (a null proposal) plans null;
//! - write-only attributes plan null;
//! - an attribute the configuration sets plans the configured value, or
//!   its prior value when the two mean the same (semantic equality, see
//!   `semantic.rs`): only a known, non-null prior, and the value is
//!   replaced before anything reads it, so `same_as`, the comparison with
//!   the prior state, `requires_replace` and the provider's `modify_plan`
//!   all see the prior value;
//! - an attribute with a default plans it wherever the configuration leaves
//!   it null, inside nested blocks and nested attributes too, the
//!   configuration found through the element correlation below (never by
//!   looking a set element up by its planned value, framework#783);
//! - when the proposal (with defaults) equals the prior state exactly,
//!   the plan *is* the prior state: nothing is marked, the re-plan is empty;
//! - otherwise every computed attribute the configuration leaves null and
//!   without a default plans as its `same_as` sibling's planned value, or
//!   its prior value when it keeps its state and its object has a prior, or
//!   unknown — at every depth. A new element never inherits a null
//!   (pitfall 3);
//! - a computed block the configuration leaves out (Terraform 1.16 sends
//!   it null, `objchange.PrepareComputedBlocks`) is planned as a computed
//!   attribute is: kept in the proposal, unknown in the plan;
//! - `requires_replace` attributes whose planned value differs from the
//!   prior one (an unknown counts as a change) are reported, cut at the
//!   first set on their path (the protocol has no set-element step),
//!   sorted and without duplicates.
//!
//! Element correlation: each configuration element is planned from the
//! prior element it continues. The proposal follows core's `ProposedNew`
//! exactly: lists by index, maps by key, sets by core's rule (for each
//! configuration element the first unused prior element for which
//! `validPriorFromConfig` holds), then, in a set of flat objects with a
//! semantic-equality attribute, each element still unpaired with the first
//! unused prior element it means (`semantic::pair_rest`, by hash). A kept state inside a list element comes
//! from the element at the same index when that element's configured
//! content is the same, else from the first unused prior element that the
//! configuration element continues by the set rule, so removing the head of
//! a list keeps each remaining element's own state (framework#709).
//! `requires_replace` compares list elements by index, as core does.
//!
//! The pairing rules are objchange's (`match_set_elements`,
//! `valid_prior_from_config`), the code core's proposal is built with.
//!
//! The engine walks the prior state and the configuration together with
//! the schema and recomputes the proposal element by element rather than
//! reading the one Terraform sent (which it only reads for being null): a
//! proposed set element says nothing of which configuration element it
//! came from, and that is exactly what defaults and kept state need. Two
//! passes: the first compares the proposal with the prior state without
//! building it, stopping at the first difference; only when something
//! differs does the second build the plan. Set matches are made once per
//! plan, objects of plain attributes are planned as one copy of their
//! configuration, and nothing is quadratic in the number of elements
//! beyond what core's matching rule itself needs.

use std::collections::HashMap;

use ctywire::{Path, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::schema::{Block, Nested};

/// The engine's answer for one resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Planned {
    /// The planned new state.
    pub(crate) planned_state: Value,
    /// Attributes whose change replaces the resource, sorted, each once.
    pub(crate) requires_replace: Vec<Path>,
}

/// Plans a resource: `prior` is its state (null on create), `config` its
/// configuration and `proposed` core's proposal (null on destroy); `forms`
/// are the protocol forms the builder made of `block`. An error
/// is a fault in the provider's schema (a `same_as` naming no attribute, a
/// default on an attribute that is not computed) or input that does not
/// have the schema's shape, each at its path.
pub(crate) fn plan_with(
    block: &Block,
    forms: &Forms,
    prior: &Value,
    config: &Value,
    proposed: &Value,
) -> Result<Planned, Diagnostics> {
    if proposed.is_null() {
        return Ok(Planned {
            planned_state: proposed.clone(),
            requires_replace: Vec::new(),
        });
    }
    if config.attributes().is_none() {
        return Err(Diagnostic::error("Invalid configuration to plan")
            .with_detail(format!(
                "The configuration of a resource to create or update must be a known object, not {config}."
            ))
            .into());
    }
    let prior = if prior.is_null() {
        None
    } else if prior.attributes().is_some() {
        Some(prior)
    } else {
        return Err(Diagnostic::error("Invalid prior state")
            .with_detail(format!(
                "A resource's prior state must be null or a known object, not {prior}."
            ))
            .into());
    };
    let mut matched = HashMap::new();
    if let Some(prior) = prior {
        let mut walk = Walk::new(Mode::Propose, forms);
        if walk.same_object(block, Some(prior), config, 0)? {
            return Ok(Planned {
                planned_state: prior.clone(),
                requires_replace: Vec::new(),
            });
        }
        matched = walk.matched;
    }
    let mut walk = Walk::new(Mode::Mark, forms);
    walk.matched = matched;
    let planned_state = walk.object(block, Prior::both(prior), config, 0)?;
    let mut requires_replace = walk.replace;
    requires_replace.sort_by_cached_key(|p| p.to_string());
    requires_replace.dedup();
    Ok(Planned {
        planned_state,
        requires_replace,
    })
}

/// [`plan_with`] for a block the builder did not see (tests, fuzzing):
/// its forms made for this one plan.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn plan(
    block: &Block,
    prior: &Value,
    config: &Value,
    proposed: &Value,
) -> Result<Planned, Diagnostics> {
    plan_with(block, &Forms::of(block), prior, config, proposed)
}

/// How an attribute is planned, before the passes differ.
enum Rule<'a> {
    /// Write-only: null.
    WriteOnly,
    /// The configuration's value (null for an unset attribute the provider
    /// does not compute).
    Config,
    /// Configured nested attributes: element by element.
    Nested(&'a Nested),
    /// Unset, with a default.
    Default(&'a Value),
    /// Unset and computed: the prior value in the proposal; in the plan,
    /// `same_as`, kept state or unknown.
    Computed,
}

/// Which pass the walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Core's proposal with defaults and write-only nulls: compared with
    /// the prior state to decide whether anything changes.
    Propose,
    /// The plan: computed attributes left to the provider are marked.
    Mark,
}

/// The prior values an object (or attribute) is planned from.
#[derive(Clone, Copy, Default)]
struct Prior<'a> {
    /// Paired as core pairs: the proposal and `requires_replace` use it.
    pair: Option<&'a Value>,
    /// The value this one continues: kept state comes from it. The same as
    /// `pair` except under a list element whose content moved.
    keep: Option<&'a Value>,
}

impl<'a> Prior<'a> {
    fn pair(v: Option<&'a Value>) -> Self {
        Prior {
            pair: v,
            keep: None,
        }
    }

    fn both(v: Option<&'a Value>) -> Self {
        Prior { pair: v, keep: v }
    }

    /// Only known, non-null values are priors to pair with.
    fn known(self) -> Self {
        let k = |v: Option<&'a Value>| v.filter(|v| v.is_known() && !v.is_null());
        Prior {
            pair: k(self.pair),
            keep: k(self.keep),
        }
    }

    fn attr(self, name: &str) -> Self {
        Prior {
            pair: self.pair.and_then(|p| p.attr(name)),
            keep: self.keep.and_then(|p| p.attr(name)),
        }
    }
}

mod elements;
mod forms;
mod semantic;
mod walk;

pub(crate) use forms::Forms;
pub(crate) use semantic::keep_meaning;

use walk::Walk;

#[cfg(test)]
mod tests;
