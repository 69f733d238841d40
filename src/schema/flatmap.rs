//! The legacy "flatmap" state form (`RawState.flatmap`, states written
//! before Terraform 0.12): every primitive at a dotted path, with `#` and
//! `%` count keys for lists, sets and maps.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::types::Type;
use crate::value::Value;
use crate::DecodeOptions;

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
///
/// Counts are held to the default [`DecodeOptions`]; see [`decode_with`].
pub fn decode(state: &BTreeMap<String, String>, ty: &Type) -> Result<Value> {
    decode_with(state, ty, &DecodeOptions::default())
}

/// [`decode`] with the limits of `opts`: a `#` or `%` count above
/// `max_collection_len` is refused before anything is built, and what is
/// built is sized by the keys the state holds, never by a count: the
/// list elements a count claims without keys (each a null) may number at
/// most the state's keys.
pub fn decode_with(
    state: &BTreeMap<String, String>,
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<Value> {
    let mut cx = Cx {
        opts,
        keyless: state.len(),
    };
    match ty {
        Type::Object(o) => {
            let mut attrs = Vec::with_capacity(o.len());
            for (name, aty) in o.attributes() {
                let v = at(state, name, aty, &mut cx)
                    .map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
                attrs.push((name, v));
            }
            Ok(Value::object(attrs))
        }
        other => Err(Error::type_error(format!(
            "a flatmap state is an object, not a {other}"
        ))),
    }
}

/// What a decode carries down: its limits, and how many more list
/// elements without keys it may make.
struct Cx<'o> {
    opts: &'o DecodeOptions,
    keyless: usize,
}

impl Cx<'_> {
    /// `n` more elements without keys, within what is left.
    fn keyless(&mut self, n: u64) -> Result<()> {
        match usize::try_from(n)
            .ok()
            .and_then(|n| self.keyless.checked_sub(n))
        {
            Some(left) => {
                self.keyless = left;
                Ok(())
            }
            None => Err(Error::limit(
                "the list counts claim more elements without keys than the state has keys",
            )),
        }
    }
}

fn at(state: &BTreeMap<String, String>, prefix: &str, ty: &Type, cx: &mut Cx<'_>) -> Result<Value> {
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
                let v = at(state, &format!("{prefix}.{name}"), aty, cx)
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
            let n = count_of(count, cx.opts)?;
            let mut items = Vec::new();
            if matches!(ty, Type::List(_)) {
                // Elements are read at the indices the state has keys for;
                // an index it skips (an element that was null) is null,
                // within the budget of keyless elements: a count costs
                // no more than the keys that are there.
                let mut next = 0;
                for (i, k) in list_indices(state, prefix)? {
                    if i >= n {
                        return Err(Error::data(format!(
                            "element key {k:?} is beyond the count {n}"
                        ))
                        .under(PathStep::Index(i)));
                    }
                    cx.keyless(i - next)?;
                    for _ in next..i {
                        items.push(Value::null((**e).clone()));
                    }
                    items.push(
                        at(state, &format!("{prefix}.{k}"), e, cx)
                            .map_err(|err| err.under(PathStep::Index(i)))?,
                    );
                    next = i + 1;
                }
                cx.keyless(n - next)?;
                for _ in next..n {
                    items.push(Value::null((**e).clone()));
                }
                return Value::list((**e).clone(), items);
            }
            for (i, k) in set_keys(state, prefix).iter().enumerate() {
                items.push(
                    at(state, &format!("{prefix}.{k}"), e, cx)
                        .map_err(|err| err.under(PathStep::Index(i as u64)))?,
                );
            }
            if items.is_empty() && n == 1 {
                // One set element whose attributes were all empty or null
                // left no keys behind.
                items.push(empty_like(e));
            }
            Value::set((**e).clone(), items)
        }
        Type::Map(e) => {
            let Some(count) = state.get(&format!("{prefix}.%")) else {
                return Ok(Value::null(ty.clone()));
            };
            if count == UNKNOWN_SENTINEL {
                return Ok(Value::unknown(ty.clone()));
            }
            count_of(count, cx.opts)?;
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
                cx.opts.check_collection_len(entries.len() as u64 + 1)?;
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

/// A `#` or `%` count, held to the collection limit.
fn count_of(count: &str, opts: &DecodeOptions) -> Result<u64> {
    let n: u64 = count
        .parse()
        .map_err(|_| Error::data(format!("count {count:?} is not a number")))?;
    opts.check_collection_len(n)?;
    Ok(n)
}

/// The distinct element indices under a list's prefix, in order, each
/// with its key as written.
fn list_indices<'s>(
    state: &'s BTreeMap<String, String>,
    prefix: &str,
) -> Result<Vec<(u64, &'s str)>> {
    let dotted = format!("{prefix}.");
    let mut out: Vec<(u64, &str)> = Vec::new();
    for (k, _) in state
        .range(dotted.clone()..)
        .take_while(|(k, _)| k.starts_with(&dotted))
    {
        let rest = &k[dotted.len()..];
        let first = rest.split('.').next().unwrap_or(rest);
        if first == "#" {
            continue;
        }
        // Only the canonical spelling counts: "01" would name element 1
        // a second time.
        let i: u64 = first
            .parse()
            .ok()
            .filter(|i: &u64| i.to_string() == first)
            .ok_or_else(|| Error::data(format!("{first:?} is not a list index")))?;
        // An element's keys sort together ("l.5", "l.5.x", then "l.50").
        if out.last().map(|&(j, _)| j) != Some(i) {
            out.push((i, first));
        }
    }
    // Keys sort as text ("10" before "2").
    out.sort_unstable_by_key(|&(i, _)| i);
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn state(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn ty(json: &str) -> Type {
        Type::parse(json).unwrap()
    }

    #[test]
    fn a_count_above_the_collection_limit_is_refused_before_anything_is_sized() {
        let t = ty(
            r#"["object",{"items":["list","string"],"s":["set","string"],"m":["map","string"]}]"#,
        );
        for key in ["items.#", "s.#", "m.%"] {
            for count in ["10000000", "18446744073709551615", "10000000000000"] {
                let err = decode(&state(&[(key, count)]), &t).unwrap_err();
                assert!(
                    err.to_string().contains("max_collection_len"),
                    "{key}={count}: {err}"
                );
                assert_eq!(
                    err.path().to_string(),
                    format!(".{}", &key[..key.len() - 2])
                );
            }
        }
        let err = decode(&state(&[("items.#", "99999999999999999999999")]), &t).unwrap_err();
        assert!(err.to_string().contains("is not a number"), "{err}");
    }

    #[test]
    fn counts_are_held_to_the_given_options() {
        let t = ty(r#"["object",{"l":["list","string"],"m":["map","string"]}]"#);
        let opts = DecodeOptions::new().max_collection_len(2);
        let list = state(&[("l.#", "3"), ("l.0", "a"), ("l.1", "b"), ("l.2", "c")]);
        assert!(decode_with(&list, &t, &opts).is_err());
        assert!(decode(&list, &t).is_ok());
        // A map whose `%` understates its entries is held to the limit by
        // the entries it has.
        let map = state(&[("m.%", "1"), ("m.a", "1"), ("m.b", "2"), ("m.c", "3")]);
        assert!(decode_with(&map, &t, &opts).is_err());
    }

    #[test]
    fn list_elements_are_read_at_their_indices_and_missing_ones_are_null() {
        let t = ty(r#"["object",{"l":["list","string"]}]"#);
        let v = decode(
            &state(&[("l.#", "12"), ("l.0", "a"), ("l.2", "c"), ("l.10", "k")]),
            &t,
        )
        .unwrap_err();
        assert!(v.to_string().contains("without keys"), "{v}");
        let v = decode(
            &state(&[("l.#", "5"), ("l.0", "a"), ("l.3", "d"), ("l.2", "c")]),
            &t,
        )
        .unwrap();
        assert_eq!(
            v.attr("l").unwrap().to_string(),
            r#"["a", null, "c", "d", null]"#
        );
    }

    #[test]
    fn a_count_within_the_limit_costs_no_more_than_the_keys_there_are() {
        let t = ty(r#"["object",{"l":["list",["list","string"]]}]"#);
        // 1,000,000 is within the default limit, but 13 bytes of state
        // cannot stand for a million elements.
        let err = decode(&state(&[("l.#", "1000000")]), &t).unwrap_err();
        assert!(err.to_string().contains("without keys"), "{err}");
        // Nor can each of many short keys.
        let many: Vec<(String, String)> = (0..100)
            .map(|i| (format!("l.{i}.#"), "100000".to_string()))
            .chain([("l.#".to_string(), "100".to_string())])
            .collect();
        let many: BTreeMap<String, String> = many.into_iter().collect();
        assert!(decode(&many, &t).is_err());
        // One element that left no keys (all its parts null) is read.
        let one = decode(&state(&[("l.#", "1")]), &t).unwrap();
        assert_eq!(one.attr("l").unwrap().len(), Some(1));
    }

    #[test]
    fn a_list_key_beyond_its_count_or_not_an_index_is_an_error_at_its_path() {
        let t = ty(r#"["object",{"l":["list","string"]}]"#);
        let err = decode(&state(&[("l.#", "1"), ("l.0", "a"), ("l.5", "f")]), &t).unwrap_err();
        assert_eq!(err.path().to_string(), ".l[5]");
        assert!(err.to_string().contains("beyond the count 1"), "{err}");
        for bad in ["l.x", "l.01", "l.-1"] {
            let err = decode(&state(&[("l.#", "2"), (bad, "a")]), &t).unwrap_err();
            assert!(
                err.to_string().contains("is not a list index"),
                "{bad}: {err}"
            );
        }
    }
}
