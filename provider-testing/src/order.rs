//! Dependency order: which configured resources a resource depends on
//! (its references and `depends_on`), the order core walks them in, and
//! the order deletes go in.

use std::collections::{BTreeMap, BTreeSet};

use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::Value as Json;

use crate::config::references;
use crate::core::Stored;
use crate::{Body, Harness};

impl Harness {
    /// The configured resources this one refers to or names in
    /// `depends_on`, and theirs, sorted (what core records in state).
    pub(crate) fn dependencies(&self, address: &str) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![address.to_owned()];
        while let Some(a) = todo.pop() {
            for d in self.direct_dependencies(&a) {
                if seen.insert(d.clone()) {
                    todo.push(d);
                }
            }
        }
        seen.remove(address);
        seen.into_iter().collect()
    }

    /// The resources a body's expressions refer to, with those its
    /// `replace_triggered_by` names (`lifecycle` holds attribute paths,
    /// not references, otherwise).
    fn body_references(&self, address: &str, body: &Json) -> Result<BTreeSet<String>, String> {
        let mut out = BTreeSet::new();
        if let Json::Object(o) = body {
            for (_, v) in o.iter().filter(|(k, _)| *k != "lifecycle") {
                out.extend(references(v, &self.locals)?);
            }
        }
        out.extend(self.trigger_resources(address));
        out.extend(self.action_trigger_references(address));
        Ok(out)
    }

    fn direct_dependencies(&self, address: &str) -> BTreeSet<String> {
        let Some(body) = self.resources.get(address).and_then(Body::json) else {
            return BTreeSet::new();
        };
        let mut deps = self.body_references(address, body).unwrap_or_default();
        if let Some(Json::Array(a)) = body.get("depends_on") {
            deps.extend(a.iter().filter_map(Json::as_str).map(str::to_owned));
        }
        deps.retain(|d| self.resources.contains_key(d));
        deps
    }

    /// The configured resources, each after those it depends on.
    pub(crate) fn order(&self) -> Result<Vec<String>, Diagnostics> {
        let mut done: Vec<String> = Vec::new();
        let mut visiting = BTreeSet::new();
        for a in self.resources.keys() {
            self.visit(a, &mut done, &mut visiting)?;
        }
        Ok(done)
    }

    fn visit(
        &self,
        a: &str,
        done: &mut Vec<String>,
        visiting: &mut BTreeSet<String>,
    ) -> Result<(), Diagnostics> {
        if done.iter().any(|d| d == a) {
            return Ok(());
        }
        if !visiting.insert(a.to_owned()) {
            return Err(Diagnostic::error("Cycle")
                .with_detail(format!("{a} depends on itself through its references"))
                .into());
        }
        if let Some(body) = self.resources.get(a).and_then(Body::json) {
            for r in (self.body_references(a, body)).map_err(Diagnostics::error)? {
                if !self.resources.contains_key(&r) {
                    return Err(Diagnostic::error("Reference to undeclared resource")
                        .with_detail(format!(
                            "{a} refers to {r}, which is not declared in the configuration."
                        ))
                        .into());
                }
            }
        }
        for d in self.direct_dependencies(a) {
            self.visit(&d, done, visiting)?;
        }
        visiting.remove(a);
        done.push(a.to_owned());
        Ok(())
    }
}

/// How many objects an object depends on (a delete order).
pub(crate) fn depth_in(address: &str, working: &BTreeMap<String, Stored>) -> usize {
    working.get(address).map_or(0, |s| s.dependencies.len())
}
