//! The legacy "flatmap" state form (`RawState.flatmap`, states written
//! before Terraform 0.12): every primitive at a dotted path, with `#` and
//! `%` count keys for lists, sets and maps.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::types::Type;
use crate::value::Value;

/// The value that stood for "unknown" in flatmap states.
pub const UNKNOWN_SENTINEL: &str = "74D93920-ED26-11E3-AC10-0800200C9A66";

/// Reads a flatmap state as a value of `ty` (an object type, usually the
/// implied type of the *old* schema). A missing primitive is null; a
/// missing count key makes its list, set or map null, while a count of 0
/// makes it empty.
///
/// ```
/// use std::collections::BTreeMap;
/// use ctywire::schema::flatmap;
/// use ctywire::Type;
/// let ty = Type::parse(r#"["object",{"tags":["map","string"],"l":["list","string"],"s":"string"}]"#)?;
/// let state: BTreeMap<String, String> =
///     [("tags.%", "1"), ("tags.k", "v"), ("l.#", "0")].into_iter().map(|(k, v)| (k.into(), v.into())).collect();
/// let v = flatmap::decode(&state, &ty)?;
/// assert_eq!(v.to_string(), r#"{"l" = [], "s" = null, "tags" = {"k" = "v"}}"#);
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn decode(state: &BTreeMap<String, String>, ty: &Type) -> Result<Value> {
    match ty {
        Type::Object(o) => {
            let mut attrs = Vec::with_capacity(o.len());
            for (name, aty) in o.attributes() {
                let v =
                    at(state, name, aty).map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
                attrs.push((name, v));
            }
            Ok(Value::object(attrs))
        }
        other => Err(Error::type_error(format!(
            "a flatmap state is an object, not a {other}"
        ))),
    }
}

fn at(state: &BTreeMap<String, String>, prefix: &str, ty: &Type) -> Result<Value> {
    match ty {
        Type::String | Type::Number | Type::Bool => match state.get(prefix) {
            None => Ok(Value::null(ty.clone())),
            Some(s) => primitive(s, ty),
        },
        Type::Object(o) => {
            // An object attribute has no count key: it is null when none of
            // its attributes is present.
            let dotted = format!("{prefix}.");
            if !state
                .range(dotted.clone()..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(&dotted))
            {
                return Ok(Value::null(ty.clone()));
            }
            let mut attrs = Vec::with_capacity(o.len());
            for (name, aty) in o.attributes() {
                let v = at(state, &format!("{prefix}.{name}"), aty)
                    .map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
                attrs.push((name, v));
            }
            Ok(Value::object(attrs))
        }
        Type::List(e) | Type::Set(e) => {
            let Some(count) = state.get(&format!("{prefix}.#")) else {
                return Ok(Value::null(ty.clone()));
            };
            if count == UNKNOWN_SENTINEL {
                return Ok(Value::unknown(ty.clone()));
            }
            let n: usize = count
                .parse()
                .map_err(|_| Error::data(format!("count {count:?} is not a number")))?;
            let keys: Vec<String> = if matches!(ty, Type::List(_)) {
                (0..n).map(|i| i.to_string()).collect()
            } else {
                set_keys(state, prefix)
            };
            let mut items = Vec::with_capacity(keys.len());
            for (i, k) in keys.iter().enumerate() {
                items.push(
                    at(state, &format!("{prefix}.{k}"), e)
                        .map_err(|err| err.under(PathStep::Index(i as u64)))?,
                );
            }
            if matches!(ty, Type::Set(_)) && items.is_empty() && n == 1 {
                // One set element whose attributes were all empty or null
                // left no keys behind.
                items.push(empty_like(e));
            }
            if matches!(ty, Type::List(_)) {
                Value::list((**e).clone(), items)
            } else {
                Value::set((**e).clone(), items)
            }
        }
        Type::Map(e) => {
            let Some(count) = state.get(&format!("{prefix}.%")) else {
                return Ok(Value::null(ty.clone()));
            };
            if count == UNKNOWN_SENTINEL {
                return Ok(Value::unknown(ty.clone()));
            }
            if !e.is_primitive() {
                return Err(Error::type_error(
                    "flatmap maps hold only strings, numbers and bools",
                ));
            }
            let dotted = format!("{prefix}.");
            let mut entries = Vec::new();
            for (k, v) in state
                .range(dotted.clone()..)
                .take_while(|(k, _)| k.starts_with(&dotted))
            {
                let key = &k[dotted.len()..];
                if key == "%" {
                    continue;
                }
                entries.push((
                    key.to_string(),
                    primitive(v, e).map_err(|err| err.under(PathStep::Key(key.to_string())))?,
                ));
            }
            Value::map((**e).clone(), entries)
        }
        other => Err(Error::type_error(format!(
            "a {other} cannot be read from a flatmap state"
        ))),
    }
}

/// The distinct element keys under a set's prefix (set keys are arbitrary).
fn set_keys(state: &BTreeMap<String, String>, prefix: &str) -> Vec<String> {
    let dotted = format!("{prefix}.");
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in state
        .range(dotted.clone()..)
        .take_while(|(k, _)| k.starts_with(&dotted))
    {
        let rest = &k[dotted.len()..];
        let first = rest.split('.').next().unwrap_or(rest);
        if first != "#" && keys.last().map(String::as_str) != Some(first) {
            keys.push(first.to_string());
        }
    }
    keys.dedup();
    keys
}

fn empty_like(ty: &Type) -> Value {
    match ty {
        Type::Object(o) => Value::object(o.attributes().map(|(n, t)| (n, Value::null(t.clone())))),
        other => Value::null(other.clone()),
    }
}

fn primitive(s: &str, ty: &Type) -> Result<Value> {
    if s == UNKNOWN_SENTINEL {
        return Ok(Value::unknown(ty.clone()));
    }
    match ty {
        Type::String => Ok(Value::string(s)),
        Type::Number => Ok(Value::number(Number::parse(s)?)),
        Type::Bool => match s {
            "true" | "1" => Ok(Value::bool(true)),
            "false" | "0" => Ok(Value::bool(false)),
            _ => Err(Error::data(format!("{s:?} is not a bool"))),
        },
        other => Err(Error::type_error(format!("a {other} is not a primitive"))),
    }
}
