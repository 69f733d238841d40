//! Root module outputs, as core plans (`NodeApplyableOutput`), saves
//! and shows them (`jsonplan.marshalOutputChanges`,
//! `jsonstate.marshalOutputs`).

use std::collections::BTreeMap;

use ctywire::{Path, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::{json, Map, Value as Json};

use crate::config::Scope;
use crate::core::ChangeAction;
use crate::eval::evaluate;
use crate::{show, Harness};

/// An output's planned change.
#[derive(Clone, Debug)]
pub(crate) struct OutputChange {
    pub action: ChangeAction,
    pub before: Value,
    pub after: Value,
    pub sensitive: bool,
}

impl Harness {
    /// Every output evaluated in `scope` (null ones too: they are
    /// planned, not kept in state), with core's check that a
    /// sensitive value is only exported by an output marked sensitive.
    pub(crate) fn evaluate_outputs(
        &self,
        scope: &dyn Scope,
    ) -> Result<BTreeMap<String, (Value, bool)>, Diagnostics> {
        let mut out = BTreeMap::new();
        for (name, o) in &self.outputs {
            let m = evaluate(&o.value, scope).map_err(|e| {
                Diagnostics::from(Diagnostic::error(e.summary).with_detail(e.detail))
            })?;
            if !m.marks.is_empty() && !o.sensitive {
                return Err(Diagnostic::error("Output refers to sensitive values")
                    .with_detail("To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, Terraform requires that any root module output containing sensitive data be explicitly marked as sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value as sensitive by adding the following argument:\n    sensitive = true")
                    .into());
            }
            out.insert(name.clone(), (m.value, o.sensitive));
        }
        Ok(out)
    }

    /// The outputs' changes against the state's (`planOutput`'s
    /// action rules); `None` new values (a destroy) delete them all.
    pub(crate) fn output_changes(
        &self,
        new: Option<&BTreeMap<String, (Value, bool)>>,
    ) -> BTreeMap<String, OutputChange> {
        let null = || Value::null(ctywire::Type::Dynamic);
        let mut out = BTreeMap::new();
        let empty = BTreeMap::new();
        let new_values = new.unwrap_or(&empty);
        for (name, (after, sensitive)) in new_values {
            let before = self
                .output_values
                .get(name)
                .map(|(v, _)| v.clone())
                .unwrap_or_else(null);
            let action = if after.is_null() && before.is_null() {
                ChangeAction::NoOp
            } else if before.is_null() {
                ChangeAction::Create
            } else if !after.is_wholly_known() {
                ChangeAction::Update
            } else if after.is_null() {
                ChangeAction::Delete
            } else if &before == after {
                ChangeAction::NoOp
            } else {
                ChangeAction::Update
            };
            out.insert(
                name.clone(),
                OutputChange {
                    action,
                    before,
                    after: after.clone(),
                    sensitive: *sensitive,
                },
            );
        }
        for (name, (before, sensitive)) in &self.output_values {
            if !new_values.contains_key(name) {
                out.insert(
                    name.clone(),
                    OutputChange {
                        action: ChangeAction::Delete,
                        before: before.clone(),
                        after: null(),
                        sensitive: *sensitive,
                    },
                );
            }
        }
        out
    }
}

/// `terraform show -json PLANFILE`'s `output_changes`.
pub(crate) fn output_changes_json(changes: &BTreeMap<String, OutputChange>) -> Json {
    let mut out = Map::new();
    for (name, c) in changes {
        let mut j = Map::new();
        j.insert("actions".into(), json!(c.action.actions()));
        j.insert("before".into(), show::to_tagged(&c.before));
        let after_unknown = if c.after.is_wholly_known() {
            j.insert("after".into(), show::to_tagged(&c.after));
            json!(false)
        } else {
            if let Some(a) = show::after(&c.after) {
                j.insert("after".into(), a);
            }
            show::after_unknown(&c.after)
        };
        j.insert("after_unknown".into(), after_unknown);
        // The plan keeps one flag per output: before and after alike.
        j.insert("before_sensitive".into(), json!(c.sensitive));
        j.insert("after_sensitive".into(), json!(c.sensitive));
        out.insert(name.clone(), Json::Object(j));
    }
    Json::Object(out)
}

/// `terraform show -json`'s `values.outputs`.
pub(crate) fn outputs_json(values: &BTreeMap<String, (Value, bool)>) -> Option<Json> {
    let mut out = Map::new();
    for (name, (v, sensitive)) in values {
        let ty: Json = serde_json::from_str(&v.ty().to_json()).unwrap_or(Json::Null);
        out.insert(
            name.clone(),
            json!({ "sensitive": sensitive, "value": show::to_tagged(v), "type": ty }),
        );
    }
    (!out.is_empty()).then_some(Json::Object(out))
}

/// Marks as a planned map's scope wants them.
pub(crate) type Planned = BTreeMap<String, (Value, Vec<Path>)>;
