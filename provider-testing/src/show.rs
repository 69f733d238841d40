//! Values as `terraform show -json` prints them: `before`/`after` with
//! unknowns left out, `after_unknown`, `before_sensitive`/`after_sensitive`,
//! `replace_paths`, and a state's `values` and `sensitive_values`; and the
//! answers in those shapes ([`Plan`], [`State`], [`Listed`]).
//!
//! Each function mirrors the core function named in its comment
//! (hashicorp/terraform v1.11, `internal/command/jsonplan/plan.go` and
//! `internal/command/jsonstate/state.go`).

use std::collections::{BTreeMap, BTreeSet};

use ctywire::__private::{Peek, Reader};
use ctywire::PathStep;
use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::Diagnostics;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value as Json};

use super::core::{Change, ChangeAction, Object};

/// `ctyjson.Marshal(v, v.Type())` read into a `serde_json::Value`: go-cty's
/// JSON text, so numbers are exact when serde_json keeps them exact
/// (its `arbitrary_precision` feature) and otherwise as serde_json reads
/// them. Unknowns must have been removed (`omit_unknowns`).
pub(crate) fn to_json(v: &Value) -> Json {
    plain(to_tagged(v))
}

/// Why a document is built "tagged": serde_json's `Value` holds a number
/// as an `f64` (without `arbitrary_precision`, which Cargo would turn on
/// for the whole program), so go-cty's exact text would be lost before
/// [`exact_text`] could write it. While a plan or state document is
/// built, a number is a string holding its text behind `TAG`, and a
/// string that itself starts with `TAG` gets one more; [`plain`] and
/// [`exact_text`] undo that.
const TAG: char = '\u{0}';

/// [`to_json`] with numbers tagged (see [`TAG`]).
pub(crate) fn to_tagged(v: &Value) -> Json {
    let Ok(bytes) = ctywire::json::encode(v, v.ty()) else {
        // Only an unknown cannot be written, and the callers remove them.
        return Json::Null;
    };
    // go-cty's own output, nested no deeper than the value.
    read_tagged(&mut Reader::new(&bytes)).unwrap_or(Json::Null)
}

fn read_tagged(r: &mut Reader<'_>) -> ctywire::Result<Json> {
    Ok(match r.peek()? {
        Peek::Null => r.read_null().map(|()| Json::Null)?,
        Peek::Bool => Json::Bool(r.read_bool()?),
        Peek::Number => Json::String(format!("{TAG}{}", r.read_number()?)),
        Peek::String => {
            let s = r.read_string()?;
            Json::String(match s.starts_with(TAG) {
                true => format!("{TAG}{s}"),
                false => s.into_owned(),
            })
        }
        Peek::Array => {
            r.begin_array()?;
            let mut items = Vec::new();
            while r.next_element(items.is_empty())? {
                items.push(read_tagged(r)?);
            }
            Json::Array(items)
        }
        Peek::Object => {
            r.begin_object()?;
            let mut m = Map::new();
            while let Some((_, k)) = r.next_key(m.is_empty())? {
                let v = read_tagged(r)?;
                m.insert(k.into_owned(), v);
            }
            Json::Object(m)
        }
    })
}

/// What a tagged string holds: a number's text, or a string.
fn untag(s: &str) -> Result<&str, &str> {
    match s.strip_prefix(TAG) {
        Some(rest) if !rest.starts_with(TAG) => Ok(rest),
        Some(rest) => Err(rest),
        None => Err(s),
    }
}

/// A tagged document as serde_json holds it: numbers as serde_json reads
/// their text.
pub(crate) fn plain(j: Json) -> Json {
    match j {
        Json::String(s) => match untag(&s) {
            Ok(number) => serde_json::from_str(number).unwrap_or(Json::Null),
            Err(text) if text.len() == s.len() => Json::String(s),
            Err(text) => Json::String(text.to_owned()),
        },
        Json::Array(items) => Json::Array(items.into_iter().map(plain).collect()),
        Json::Object(m) => Json::Object(m.into_iter().map(|(k, v)| (k, plain(v))).collect()),
        other => other,
    }
}

/// A tagged document as compact JSON text, numbers in go-cty's exact text.
pub(crate) fn exact_text(j: &Json) -> String {
    let mut out = String::new();
    write_exact(j, &mut out);
    out
}

fn write_exact(j: &Json, out: &mut String) {
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match j {
        Json::String(s) => match untag(s) {
            Ok(number) => out.push_str(number),
            Err(text) => out.push_str(&quoted(text)),
        },
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_exact(item, out);
            }
            out.push(']');
        }
        Json::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&quoted(k));
                out.push(':');
                write_exact(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// jsonplan's `omitUnknowns`: unknown parts of objects and maps are left
/// out, unknown elements of sequences become null (element positions are
/// how `after_unknown` correlates), sequences become tuples and mappings
/// objects. `None` is core's `cty.NilVal`: the whole value is unknown.
pub(crate) fn omit_unknowns(v: &Value) -> Option<Value> {
    if v.is_null() {
        return Some(v.clone());
    }
    if !v.is_known() {
        return None;
    }
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            let elems = v.elements().unwrap_or(&[]);
            Some(Value::tuple(
                elems
                    .iter()
                    .map(|e| omit_unknowns(e).unwrap_or_else(|| Value::null(e.ty().clone())))
                    .collect(),
            ))
        }
        Type::Map(_) => Some(Value::object(
            v.entries()
                .into_iter()
                .flatten()
                .filter_map(|(k, e)| Some((k.to_owned(), omit_unknowns(e)?)))
                .collect::<Vec<_>>(),
        )),
        Type::Object(_) => Some(Value::object(
            v.attributes()
                .into_iter()
                .flatten()
                .filter_map(|(k, e)| Some((k.to_owned(), omit_unknowns(e)?)))
                .collect::<Vec<_>>(),
        )),
        _ => Some(v.clone()),
    }
}

/// jsonplan's `unknownAsBool`: `true` where the value is unknown, known
/// leaves left out of objects (as `false` in sequences), empty
/// collections as `[]`/`{}`.
pub(crate) fn unknown_as_bool(v: &Value) -> Json {
    if v.is_null() {
        return Json::Bool(false);
    }
    if !v.is_known() {
        return Json::Bool(true);
    }
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => Json::Array(
            v.elements()
                .unwrap_or(&[])
                .iter()
                .map(unknown_as_bool)
                .collect(),
        ),
        Type::Map(_) | Type::Object(_) => {
            let parts: Vec<(&str, &Value)> = if matches!(v.ty(), Type::Map(_)) {
                v.entries().into_iter().flatten().collect()
            } else {
                v.attributes().into_iter().flatten().collect()
            };
            let mut out = Map::new();
            for (k, e) in parts {
                let b = unknown_as_bool(e);
                if b != Json::Bool(false) {
                    out.insert(k.to_owned(), b);
                }
            }
            Json::Object(out)
        }
        _ => Json::Bool(false),
    }
}

/// The `after_unknown` of a change (`marshalResourceChange`): `{}` for a
/// wholly known value, else [`unknown_as_bool`].
pub(crate) fn after_unknown(after: &Value) -> Json {
    if after.is_wholly_known() {
        Json::Object(Map::new())
    } else {
        unknown_as_bool(after)
    }
}

/// The `after` of a change: the value with unknowns left out, or absent
/// (`None`) when nothing of it is known; tagged (see [`TAG`]).
pub(crate) fn after(after: &Value) -> Option<Json> {
    omit_unknowns(after).map(|v| to_tagged(&v))
}

/// `marks.MarkPaths` then jsonstate's `SensitiveAsBool`: `true` where a
/// sensitive path is (even a null one), `[]`/`{}` for unknown or empty
/// collections, other leaves left out of objects. cty cannot mark a set's
/// element, so a mark inside a set marks the whole set
/// ([`hoist_set_marks`]).
pub(crate) fn sensitive_as_bool(v: &Value, marks: &[Path]) -> Json {
    let marks = hoist_set_marks(v, marks);
    sensitive_at(v, &mut Path::root(), &marks)
}

fn sensitive_at(v: &Value, at: &mut Path, marks: &[Path]) -> Json {
    if marks.iter().any(|m| same_path(m, at)) {
        return Json::Bool(true);
    }
    if v.is_null() {
        return Json::Bool(false);
    }
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            let elems = if v.is_known() {
                v.elements().unwrap_or(&[])
            } else {
                &[]
            };
            Json::Array(
                elems
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let mut p = at.clone().index(i as u64);
                        sensitive_at(e, &mut p, marks)
                    })
                    .collect(),
            )
        }
        Type::Map(_) | Type::Object(_) => {
            let mut out = Map::new();
            if v.is_known() {
                let parts: Vec<(&str, &Value)> = if matches!(v.ty(), Type::Map(_)) {
                    v.entries().into_iter().flatten().collect()
                } else {
                    v.attributes().into_iter().flatten().collect()
                };
                for (k, e) in parts {
                    let mut p = at.clone().attr(k);
                    let b = sensitive_at(e, &mut p, marks);
                    if b != Json::Bool(false) {
                        out.insert(k.to_owned(), b);
                    }
                }
            }
            Json::Object(out)
        }
        _ => Json::Bool(false),
    }
}

/// Whether two paths name the same place. An object attribute and a map
/// key are the same step here: a value decoded from configuration as an
/// object may be converted to a map, and the path stays the same place.
pub(crate) fn same_path(a: &Path, b: &Path) -> bool {
    a.steps().len() == b.steps().len()
        && a.steps().iter().zip(b.steps()).all(|(x, y)| match (x, y) {
            (PathStep::Index(i), PathStep::Index(j)) => i == j,
            (PathStep::Attr(n) | PathStep::Key(n), PathStep::Attr(m) | PathStep::Key(m)) => n == m,
            _ => false,
        })
}

/// Each mark cut at the first set it passes through: cty moves a mark on
/// a set element to the set (`cty.SetVal` of marked elements), which is
/// how core stores and prints it.
pub(crate) fn hoist_set_marks(v: &Value, marks: &[Path]) -> Vec<Path> {
    let mut out: Vec<Path> = Vec::new();
    for m in marks {
        let mut cur = Some(v);
        let mut kept = Path::root();
        for step in m.steps() {
            let Some(here) = cur else {
                kept = with_step(kept, step);
                continue;
            };
            if matches!(here.ty(), Type::Set(_)) {
                break;
            }
            cur = child(here, step);
            kept = with_step(kept, step);
        }
        if !out.iter().any(|o| same_path(o, &kept)) {
            out.push(kept);
        }
    }
    out
}

fn with_step(p: Path, step: &PathStep) -> Path {
    match step {
        PathStep::Attr(n) => p.attr(n.clone()),
        PathStep::Key(k) => p.key(k.clone()),
        PathStep::Index(i) => p.index(*i),
    }
}

/// The part of `v` a step names, if there is one (attributes and keys
/// alike).
pub(crate) fn child<'v>(v: &'v Value, step: &PathStep) -> Option<&'v Value> {
    if v.is_null() || !v.is_known() {
        return None;
    }
    match step {
        PathStep::Attr(n) | PathStep::Key(n) => v.attr(n).or_else(|| v.entry(n)),
        PathStep::Index(i) => v.elements()?.get(usize::try_from(*i).ok()?),
    }
}

/// jsonplan's `encodePath`: each step a string (attribute name, map key)
/// or a number (index).
pub(crate) fn path_json(p: &Path) -> Json {
    Json::Array(
        p.steps()
            .iter()
            .map(|s| match s {
                PathStep::Attr(n) | PathStep::Key(n) => Json::String(n.clone()),
                PathStep::Index(i) => Json::from(*i),
            })
            .collect(),
    )
}

// The harness's answers, in the shapes `terraform show -json` prints.

/// A plan, as `terraform plan -out` saves it: apply it with
/// [`Harness::apply_plan`](crate::Harness::apply_plan), read it with [`to_json`](Plan::to_json) and the
/// accessors.
#[derive(Clone, Debug)]
pub struct Plan {
    pub(crate) changes: Vec<Change>,
    /// The addresses the configuration has (none for a destroy or
    /// refresh-only plan).
    pub(crate) configured: BTreeSet<String>,
    pub(crate) prior: BTreeMap<String, Object>,
    /// The data resources read during plan.
    pub(crate) data: BTreeMap<String, (Value, Vec<Path>)>,
    pub(crate) serial: u64,
    pub(crate) json: Json,
    pub(crate) text: String,
    /// A `plan -destroy`: its apply removes the outputs.
    pub(crate) destroy: bool,
    /// The actions the planned changes trigger.
    pub(crate) invocations: Vec<crate::triggers::Invocation>,
}

/// The state after a command, in the shape `terraform show -json` prints
/// it.
#[derive(Clone, Debug)]
pub struct State {
    pub(crate) json: Json,
    pub(crate) text: String,
}

impl Plan {
    /// The plan as `terraform show -json PLANFILE` prints it (its
    /// `resource_changes`).
    pub fn to_json(&self) -> &Json {
        &self.json
    }

    /// [`to_json`](Self::to_json) as JSON text with every number exactly
    /// as go-cty writes it (a `serde_json::Value` without serde_json's
    /// `arbitrary_precision` holds numbers as `f64`).
    pub fn to_json_text(&self) -> &str {
        &self.text
    }

    /// The `resource_changes` entry for `address` (`Json::Null` if none).
    pub fn resource_change(&self, address: &str) -> &Json {
        self.json["resource_changes"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["address"] == address))
            .unwrap_or(&Json::Null)
    }

    /// The `change` object of `address`'s resource change.
    pub fn change(&self, address: &str) -> &Json {
        &self.resource_change(address)["change"]
    }

    /// `change.actions` of `address` (empty if it has no change).
    pub fn actions(&self, address: &str) -> Vec<&str> {
        self.change(address)["actions"]
            .as_array()
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default()
    }

    /// The action planned for `address`, if any.
    pub fn action(&self, address: &str) -> Option<ChangeAction> {
        self.changes
            .iter()
            .find(|c| c.address == address)
            .map(|c| c.action)
    }

    /// Whether nothing changes: every change is a no-op, and every
    /// configured resource has one (a resource the plan leaves out is not
    /// "unchanged").
    pub fn is_empty(&self) -> bool {
        self.changes.iter().all(|c| c.action == ChangeAction::NoOp)
            && (self.configured.iter()).all(|a| self.action(a) == Some(ChangeAction::NoOp))
    }
}

/// One object a [`Harness::list`](crate::Harness::list) found.
#[derive(Clone, Debug)]
pub struct Listed {
    /// Its display name.
    pub display_name: String,
    /// Its identity, as JSON.
    pub identity_json: Json,
    /// Its state as JSON, when the list was asked to include it.
    pub object_json: Option<Json>,
    pub(crate) identity: Value,
    pub(crate) object: Option<Value>,
}

impl Listed {
    /// Its identity read into `T` (a typed identity model).
    pub fn identity<T: DeserializeOwned>(&self) -> Result<T, Diagnostics> {
        ctywire::from_value(&self.identity).map_err(|e| Diagnostics::error(e.to_string()))
    }

    /// Its state read into `M` (the resource's model); `None` when the
    /// list did not include it.
    pub fn object<M: DeserializeOwned>(&self) -> Result<Option<M>, Diagnostics> {
        match &self.object {
            Some(v) => ctywire::from_value(v)
                .map(Some)
                .map_err(|e| Diagnostics::error(e.to_string())),
            None => Ok(None),
        }
    }
}

impl State {
    /// The identity of `address`'s object (protocol 6.9), as Terraform
    /// 1.12's `terraform show -json` prints it (`Json::Null` if none).
    pub fn identity(&self, address: &str) -> &Json {
        &self.resource(address)["identity"]
    }

    /// The state as `terraform show -json` prints it (its `values`).
    pub fn to_json(&self) -> &Json {
        &self.json
    }

    /// [`to_json`](Self::to_json) as JSON text with every number exactly
    /// as go-cty writes it (a `serde_json::Value` without serde_json's
    /// `arbitrary_precision` holds numbers as `f64`).
    pub fn to_json_text(&self) -> &str {
        &self.text
    }

    /// The `values.root_module.resources[]` entry for `address`
    /// (`Json::Null` if none).
    pub fn resource(&self, address: &str) -> &Json {
        self.json["values"]["root_module"]["resources"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["address"] == address))
            .unwrap_or(&Json::Null)
    }

    /// The `values` of `address`'s object.
    pub fn values(&self, address: &str) -> &Json {
        &self.resource(address)["values"]
    }

    /// The addresses in state, sorted.
    pub fn addresses(&self) -> Vec<&str> {
        self.json["values"]["root_module"]["resources"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| r["address"].as_str()).collect())
            .unwrap_or_default()
    }
}

/// A state resource's `values` (jsonstate's `marshalAttributeValues`:
/// attribute by attribute) and `sensitive_values`; `marks` include the
/// schema's sensitive attributes.
pub(crate) fn insert_values(r: &mut Map<String, Json>, value: &Value, marks: &[Path]) {
    let values: Map<String, Json> = value
        .attributes()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.to_owned(), to_tagged(v)))
        .collect();
    r.insert("values".into(), Json::Object(values));
    r.insert("sensitive_values".into(), sensitive_as_bool(value, marks));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj() -> Value {
        Value::object([
            ("id", Value::unknown(Type::String)),
            ("name", Value::string("a")),
            (
                "ports",
                Value::list(
                    Type::Number,
                    vec![Value::unknown(Type::Number), Value::number(2)],
                )
                .unwrap(),
            ),
            ("secret", Value::null(Type::String)),
        ])
    }

    #[test]
    fn unknown_attributes_are_left_out_and_unknown_elements_become_null() {
        let after = omit_unknowns(&obj()).map(|v| to_json(&v));
        assert_eq!(
            after,
            Some(serde_json::json!({"name": "a", "ports": [null, 2], "secret": null}))
        );
    }

    #[test]
    fn after_unknown_marks_unknown_leaves_and_keeps_sequence_positions() {
        assert_eq!(
            after_unknown(&obj()),
            serde_json::json!({"id": true, "ports": [true, false]})
        );
        assert_eq!(after_unknown(&Value::string("x")), serde_json::json!({}));
    }

    #[test]
    fn a_null_sensitive_attribute_is_still_shown_sensitive() {
        let marks = [Path::root().attr("secret")];
        assert_eq!(
            sensitive_as_bool(&obj(), &marks),
            serde_json::json!({"ports": [false, false], "secret": true})
        );
    }

    #[test]
    fn a_mark_inside_a_set_marks_the_whole_set() {
        let set = Value::set(
            Type::object([("k", Type::String)]),
            vec![Value::object([("k", Value::string("x"))])],
        )
        .unwrap();
        let v = Value::object([("s", set)]);
        let marks = [Path::root().attr("s").index(0).attr("k")];
        assert_eq!(
            sensitive_as_bool(&v, &marks),
            serde_json::json!({"s": true})
        );
    }

    #[test]
    fn paths_are_strings_and_numbers() {
        let p = Path::root().attr("rule").index(1).attr("port");
        assert_eq!(path_json(&p), serde_json::json!(["rule", 1, "port"]));
    }
}
