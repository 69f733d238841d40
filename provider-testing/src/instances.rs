//! Resource instances: `count` and `for_each` expanded as core expands
//! them (`evaluateCountExpression` in `internal/terraform/eval_count.go`,
//! `forEachEvaluator.ResourceValue` in `eval_for_each.go`), instance
//! addresses as `addrs.ResourceInstance.String()` writes them
//! (`kv_entry.a[0]`, `kv_entry.a["k"]`), `count.index` / `each.key` /
//! `each.value` (`instances.RepetitionData`), and a whole resource's value
//! as core's evaluator gives it to references (`evaluator.GetResource`: a
//! tuple of the instances for `count`, an object for `for_each`).

use std::collections::BTreeMap;

use ctywire::{Number, Path, PathStep, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::Value as Json;

use crate::config::{evaluate_json, Reference, Scope};
use crate::{Body, Harness};

/// An instance's key (`addrs.InstanceKey`): none, `[0]` or `["k"]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum InstanceKey {
    Int(u64),
    Str(String),
}

impl std::fmt::Display for InstanceKey {
    /// `addrs.IntKey.String` / `addrs.StringKey.String` (HCL's quoting).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Str(s) => {
                let mut q = String::with_capacity(s.len() + 2);
                for c in s.chars() {
                    match c {
                        '"' => q.push_str("\\\""),
                        '\\' => q.push_str("\\\\"),
                        '\n' => q.push_str("\\n"),
                        '\r' => q.push_str("\\r"),
                        '\t' => q.push_str("\\t"),
                        c if c.is_control() => q.push_str(&format!("\\u{:04x}", c as u32)),
                        c => q.push(c),
                    }
                }
                let q = q.replace("${", "$${").replace("%{", "%%{");
                write!(f, "[\"{q}\"]")
            }
        }
    }
}

impl InstanceKey {
    /// The key as `show -json` prints it in `index`.
    pub(crate) fn json(&self) -> Json {
        match self {
            InstanceKey::Int(i) => Json::from(*i),
            InstanceKey::Str(s) => Json::String(s.clone()),
        }
    }

    /// The path step that picks this instance out of its resource's value.
    pub(crate) fn step(&self) -> PathStep {
        match self {
            InstanceKey::Int(i) => PathStep::Index(*i),
            InstanceKey::Str(s) => PathStep::Attr(s.clone()),
        }
    }

    /// A key from a value: a whole number (`count`) or a string.
    pub(crate) fn from_value(v: &Value) -> Option<InstanceKey> {
        if let Some(s) = v.as_str() {
            return Some(InstanceKey::Str(s.to_owned()));
        }
        v.as_u64().map(InstanceKey::Int)
    }
}

/// The resource part of an instance address (`kv_entry.a[0]` →
/// `kv_entry.a`); a resource's own address is its own.
pub(crate) fn resource_of(address: &str) -> &str {
    address.split_once('[').map_or(address, |(r, _)| r)
}

/// The instance key of an address, if it has one; `Err` when what follows
/// the resource is not a key.
pub(crate) fn key_of(address: &str) -> Result<Option<InstanceKey>, String> {
    let Some((_, rest)) = address.split_once('[') else {
        return Ok(None);
    };
    let bad = || format!("{address:?}: an instance key is [NUMBER] or [\"STRING\"]");
    let inner = rest.strip_suffix(']').ok_or_else(bad)?;
    if inner.starts_with('"') {
        let unescaped = inner.replace("$${", "${").replace("%%{", "%{");
        let s: String = serde_json::from_str(&unescaped).map_err(|_| bad())?;
        return Ok(Some(InstanceKey::Str(s)));
    }
    inner
        .parse::<u64>()
        .map(|i| Some(InstanceKey::Int(i)))
        .map_err(|_| bad())
}

/// The entries of `map` (by instance address) that are instances of the
/// repeated `resource`: their addresses sort together, right after
/// `resource[`.
pub(crate) fn instances_in<'m, V>(
    map: &'m BTreeMap<String, V>,
    resource: &'m str,
) -> impl Iterator<Item = (&'m String, &'m V)> + 'm {
    (map.range(format!("{resource}[")..)).take_while(move |(a, _)| resource_of(a) == resource)
}

/// The address of `resource`'s instance `key`.
pub(crate) fn instance_address(resource: &str, key: Option<&InstanceKey>) -> String {
    match key {
        Some(k) => format!("{resource}{k}"),
        None => resource.to_owned(),
    }
}

/// What `count.index`, `each.key` and `each.value` are while evaluating one
/// instance's configuration (`instances.RepetitionData`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Repetition {
    pub count_index: Option<Value>,
    pub each_key: Option<Value>,
    pub each_value: Option<Value>,
    /// The sensitive paths inside `each.value` (a map's sensitive values
    /// stay sensitive in it; a sensitive map is refused).
    pub each_value_marks: Vec<Path>,
}

impl Repetition {
    /// While validating: whichever is used is unknown (core's validate walk
    /// evaluates a resource once, with unknown repetition data).
    pub(crate) fn unknown() -> Repetition {
        Repetition {
            count_index: Some(Value::unknown(Type::Number)),
            each_key: Some(Value::unknown(Type::String)),
            each_value: Some(Value::unknown(Type::Dynamic)),
            each_value_marks: Vec::new(),
        }
    }
}

/// How a resource is repeated (`count`, `for_each`, or neither).
pub(crate) enum Expansion {
    Single,
    Count(u64),
    /// The keys in order, each with its `each.value` and its marks.
    ForEach(Vec<(String, Value, Vec<Path>)>),
}

impl Expansion {
    /// The instances: their keys and repetition data.
    pub(crate) fn instances(&self) -> Vec<(Option<InstanceKey>, Repetition)> {
        match self {
            Expansion::Single => vec![(None, Repetition::default())],
            Expansion::Count(n) => (0..*n)
                .map(|i| {
                    let rep = Repetition {
                        count_index: Some(Value::number(Number::from_u64(i))),
                        ..Repetition::default()
                    };
                    (Some(InstanceKey::Int(i)), rep)
                })
                .collect(),
            Expansion::ForEach(entries) => entries
                .iter()
                .map(|(k, v, marks)| {
                    let rep = Repetition {
                        each_key: Some(Value::string(k.clone())),
                        each_value: Some(v.clone()),
                        each_value_marks: marks.clone(),
                        ..Repetition::default()
                    };
                    (Some(InstanceKey::Str(k.clone())), rep)
                })
                .collect(),
        }
    }
}

/// A scope for one instance: `inner`'s references, with its repetition
/// data.
pub(crate) struct Repeated<'a> {
    pub inner: &'a dyn Scope,
    pub rep: &'a Repetition,
}

impl Scope for Repeated<'_> {
    fn resolve(&self, reference: &Reference) -> Result<(Value, Vec<Path>), String> {
        self.inner.resolve(reference)
    }

    fn harness(&self) -> Option<&Harness> {
        self.inner.harness()
    }

    fn repetition(&self) -> Option<&Repetition> {
        Some(self.rep)
    }
}

fn invalid(summary: &str, detail: impl Into<String>) -> Diagnostics {
    Diagnostic::error(summary).with_detail(detail).into()
}

const UNKNOWN_COUNT: &str = "The \"count\" value depends on resource attributes that cannot be determined until apply, so Terraform cannot predict how many instances will be created. To work around this, use the -target argument to first apply only the resources that the count depends on.";
const UNKNOWN_MAP: &str = "The \"for_each\" map includes keys derived from resource attributes that cannot be determined until apply, and so Terraform cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\nAlternatively, you could use the -target planning option to first apply only the resources that the for_each value depends on, and then apply a second time to fully converge.";
const UNKNOWN_SET: &str = "The \"for_each\" set includes values derived from resource attributes that cannot be determined until apply, and so Terraform cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to use a map value where the keys are defined statically in your configuration and where only the values contain apply-time results.\n\nAlternatively, you could use the -target planning option to first apply only the resources that the for_each value depends on, and then apply a second time to fully converge.";

impl Harness {
    /// The repetition argument a resource's body sets: `count`,
    /// `for_each`, or none.
    pub(crate) fn repetition_of(&self, resource: &str) -> Option<(&'static str, &Json)> {
        let body = self.resources.get(resource).and_then(Body::json)?;
        ["count", "for_each"]
            .into_iter()
            .find_map(|k| body.get(k).map(|v| (k, v)))
    }

    /// The resource's instances, its `count` or `for_each` evaluated in
    /// `scope` with core's checks and words.
    pub(crate) fn expand(
        &self,
        resource: &str,
        scope: &dyn Scope,
    ) -> Result<Expansion, Diagnostics> {
        match self.repetition_of(resource) {
            None => Ok(Expansion::Single),
            Some(("count", expr)) => {
                let v = evaluate_json(expr, scope)?.value;
                count(&v).map(Expansion::Count)
            }
            Some((_, expr)) => {
                let d = evaluate_json(expr, scope)?;
                for_each(&d.value, &d.marks).map(Expansion::ForEach)
            }
        }
    }
}

/// `evaluateCountExpressionValue` and `evaluateCountExpression` with
/// unknowns refused (as at plan).
fn count(v: &Value) -> Result<u64, Diagnostics> {
    const SUMMARY: &str = "Invalid count argument";
    let n = match v.convert(&Type::Number) {
        Ok(n) => n,
        Err(e) => {
            return Err(invalid(
                "Incorrect value type",
                format!("Invalid expression value: {e}."),
            ))
        }
    };
    if n.is_null() {
        return Err(invalid(
            SUMMARY,
            "The given \"count\" argument value is null. An integer is required.",
        ));
    }
    if !n.is_known() {
        return Err(invalid(SUMMARY, UNKNOWN_COUNT));
    }
    match n.as_i64() {
        Some(i) if i < 0 => Err(invalid(
            SUMMARY,
            "The given \"count\" argument value is unsuitable: must be greater than or equal to zero.",
        )),
        // The harness refuses what no test needs rather than allocate it.
        Some(i) if i > 100_000 => Err(invalid(
            SUMMARY,
            format!("The harness expands at most 100000 instances, not {i}."),
        )),
        Some(i) => Ok(i as u64),
        None => Err(invalid(
            SUMMARY,
            "The given \"count\" argument value is unsuitable: value must be a whole number, between -9223372036854775808 and 9223372036854775807.",
        )),
    }
}

/// `forEachEvaluator.ResourceValue`: a known map, object or set of
/// strings, not itself sensitive (`marks` has no root path), no null
/// element; its entries by key, each with the marks inside it.
fn for_each(v: &Value, marks: &[Path]) -> Result<Vec<(String, Value, Vec<Path>)>, Diagnostics> {
    let sensitive = marks.iter().any(Path::is_root);
    const SUMMARY: &str = "Invalid for_each argument";
    let is_set = matches!(v.ty(), Type::Set(_));
    if !v.is_known() || (is_set && !v.is_wholly_known()) {
        return Err(invalid(
            SUMMARY,
            if is_set { UNKNOWN_SET } else { UNKNOWN_MAP },
        ));
    }
    if sensitive {
        return Err(invalid(SUMMARY, "Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key."));
    }
    if v.is_null() {
        return Err(invalid(SUMMARY, "The given \"for_each\" argument value is unsuitable: the given \"for_each\" argument value is null. A map, or set of strings is allowed."));
    }
    match v.ty() {
        Type::Map(_) | Type::Object(_) => {
            let mut out: Vec<(String, Value)> = match v.attributes() {
                Some(a) => a.map(|(k, v)| (k.to_owned(), v.clone())).collect(),
                None => (v.entries().into_iter().flatten())
                    .map(|(k, v)| (k.to_owned(), v.clone()))
                    .collect(),
            };
            out.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(out
                .into_iter()
                .map(|(k, v)| {
                    let inside = marks_of_entry(marks, &k);
                    (k, v, inside)
                })
                .collect())
        }
        Type::Set(e) if **e == Type::String => {
            let mut out = Vec::new();
            for el in v.elements().unwrap_or_default() {
                match el.as_str() {
                    Some(s) => out.push((s.to_owned(), el.clone(), Vec::new())),
                    None => return Err(invalid("Invalid for_each set argument", "The given \"for_each\" argument value is unsuitable: \"for_each\" sets must not contain null values.")),
                }
            }
            out.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(out)
        }
        Type::Set(e) => Err(invalid("Invalid for_each set argument", format!("The given \"for_each\" argument value is unsuitable: \"for_each\" supports maps and sets of strings, but you have provided a set containing type {}.", e))),
        t => Err(invalid(SUMMARY, format!("The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type {}.", t))),
    }
}

/// The marks under a map's or object's entry `key`, relative to it.
fn marks_of_entry(marks: &[Path], key: &str) -> Vec<Path> {
    marks
        .iter()
        .filter_map(|m| match m.steps().split_first() {
            Some((PathStep::Attr(k) | PathStep::Key(k), tail)) if k == key => {
                Some(Path::from(tail.to_vec()))
            }
            _ => None,
        })
        .collect()
}

/// Values by instance address, grouped into what a reference to each
/// resource sees (`evaluator.GetResource`): a repeated resource's value is
/// a tuple of its instances (`count`, by index) or an object of them
/// (`for_each`), each instance's marks under its step; a single one's is
/// its own. Every repeated resource configured gets a value, empty when
/// it has no instances.
pub(crate) fn by_resource(
    harness: &Harness,
    instances: &BTreeMap<String, (Value, Vec<Path>)>,
) -> BTreeMap<String, (Value, Vec<Path>)> {
    let mut grouped: BTreeMap<&str, Vec<Keyed>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (address, v) in instances {
        match key_of(address) {
            Ok(Some(k)) => grouped
                .entry(resource_of(address))
                .or_default()
                .push((k, v)),
            _ => {
                out.insert(address.clone(), v.clone());
            }
        }
    }
    for resource in harness.resources.keys() {
        if let Some((kind, _)) = harness.repetition_of(resource) {
            let mut items = grouped.remove(resource.as_str()).unwrap_or_default();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            out.insert(resource.clone(), whole(kind == "count", &items));
        }
    }
    out
}

/// An instance's key, value and marks.
type Keyed<'a> = (InstanceKey, &'a (Value, Vec<Path>));

fn whole(count: bool, items: &[Keyed]) -> (Value, Vec<Path>) {
    let mut marks = Vec::new();
    for (k, (_, m)) in items {
        for p in m {
            let mut steps = vec![k.step()];
            steps.extend(p.steps().iter().cloned());
            marks.push(Path::from(steps));
        }
    }
    let value = if count {
        Value::tuple(items.iter().map(|(_, (v, _))| v.clone()).collect())
    } else {
        Value::object(items.iter().map(|(k, (v, _))| match k {
            InstanceKey::Str(s) => (s.clone(), v.clone()),
            InstanceKey::Int(i) => (i.to_string(), v.clone()),
        }))
    };
    (value, marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_addresses_round_trip_through_their_keys() {
        for key in [
            InstanceKey::Int(3),
            InstanceKey::Str("a \"b\" ${c}\u{1}".into()),
        ] {
            let address = instance_address("kv_entry.a", Some(&key));
            assert_eq!(resource_of(&address), "kv_entry.a");
            assert_eq!(key_of(&address), Ok(Some(key)));
        }
        assert_eq!(
            instance_address("kv_entry.a", Some(&InstanceKey::Str("k".into()))),
            "kv_entry.a[\"k\"]"
        );
        assert!(key_of("kv_entry.a[x]").is_err());
    }

    #[test]
    fn count_refuses_unknown_negative_and_null_in_cores_words() {
        let e = count(&Value::unknown(Type::Number)).unwrap_err();
        assert_eq!(
            e.iter().next().map(|d| d.detail.as_str()),
            Some(UNKNOWN_COUNT)
        );
        assert!(count(&Value::number(Number::from_i64(-1))).is_err());
        assert!(count(&Value::null(Type::Number)).is_err());
        assert_eq!(count(&Value::number(Number::from_u64(2))).ok(), Some(2));
    }

    #[test]
    fn for_each_takes_maps_and_sets_of_strings_in_key_order() {
        let set = Value::set(Type::String, vec![Value::string("b"), Value::string("a")]).unwrap();
        let keys: Vec<String> = for_each(&set, &[])
            .unwrap()
            .into_iter()
            .map(|(k, _, _)| k)
            .collect();
        assert_eq!(keys, ["a", "b"]);
        let list = Value::list(Type::String, vec![Value::string("a")]).unwrap();
        assert!(for_each(&list, &[]).is_err());
        assert!(for_each(&Value::unknown(Type::map(Type::String)), &[]).is_err());
        assert!(for_each(&set, &[Path::root()]).is_err());
    }
}
