//! How go-cty orders and de-duplicates set elements. Both the msgpack and
//! JSON encodings write set elements in this order, so it is part of the
//! wire format.
//!
//! go-cty inserts elements into CRC-32 hash buckets, drops an element that
//! equals one already in its bucket, concatenates the buckets in bucket
//! order and then stable-sorts by this comparator:
//!
//! 1. known, non-null elements first, then unknowns, then null;
//! 2. strings bytewise, numbers numerically, `false` before `true`;
//! 3. any other element type by its *hash string* (below), bytewise.
//!
//! Ties keep their pre-sort order. The only tie that spans two buckets is
//! `-0` against `0` (hash strings `-0` and `0`), which the bucket order
//! settles as `-0` first; every other tie shares a bucket, where insertion
//! order (wire order, when decoding) rules.
//!
//! Everything here is O(n log n) in the number of elements, plus one pass
//! over each element to build its hash string.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::gostr;
use crate::types::Type;
use crate::value::{Repr, Value};

/// De-duplicates (first occurrence wins) and sorts set elements of type `ety`.
pub(crate) fn canonicalize(ety: &Type, elements: Vec<Value>) -> Vec<Value> {
    if elements.len() < 2 {
        return elements;
    }
    let mut elements = dedup(elements);
    match ety {
        Type::String | Type::Number | Type::Bool => {
            elements.sort_by(compare_primitive);
        }
        _ => {
            let mut keyed: Vec<(u8, String, Value)> = elements
                .into_iter()
                .map(|v| {
                    let rank = rank(&v);
                    let mut h = String::new();
                    if rank == 0 {
                        write_hash(&mut h, &v);
                    }
                    (rank, h, v)
                })
                .collect();
            keyed.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
            });
            elements = keyed.into_iter().map(|(_, _, v)| v).collect();
        }
    }
    elements
}

/// Known non-null 0, unknown 1, null 2.
fn rank(v: &Value) -> u8 {
    match v.repr() {
        Repr::Unknown(_) => 1,
        Repr::Null => 2,
        _ => 0,
    }
}

fn compare_primitive(a: &Value, b: &Value) -> Ordering {
    let (ra, rb) = (rank(a), rank(b));
    if ra != 0 || rb != 0 {
        return ra.cmp(&rb);
    }
    match (a.repr(), b.repr()) {
        (Repr::String(x), Repr::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Repr::Bool(x), Repr::Bool(y)) => x.cmp(y),
        (Repr::Number(x), Repr::Number(y)) => x.numeric_cmp(y).then_with(|| {
            // Equal numbers in different buckets: only -0 and 0. Bucket
            // order is CRC-32 order, and crc32("-0") < crc32("0").
            y.is_negative().cmp(&x.is_negative())
        }),
        _ => Ordering::Equal,
    }
}

/// Drops every element equivalent to an earlier one, in one hashing pass.
fn dedup(elements: Vec<Value>) -> Vec<Value> {
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(elements.len());
    let mut keep = vec![true; elements.len()];
    let mut any_dropped = false;
    for (i, v) in elements.iter().enumerate() {
        if !v.is_wholly_known() {
            continue; // unknowns never equal anything
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        hash_value(v, &mut h);
        let bucket = buckets.entry(h.finish()).or_default();
        if bucket.iter().any(|&j| equivalent(&elements[j], v)) {
            keep[i] = false;
            any_dropped = true;
        } else {
            bucket.push(i);
        }
    }
    if !any_dropped {
        return elements;
    }
    elements
        .into_iter()
        .zip(keep)
        .filter_map(|(v, k)| k.then_some(v))
        .collect()
}

/// go-cty's set membership test for wholly known values: cty equality
/// (nulls equal each other) with equal hash strings (so `-0` ≠ `0`).
pub(crate) fn equivalent(a: &Value, b: &Value) -> bool {
    match (a.repr(), b.repr()) {
        (Repr::Null, Repr::Null) => true,
        (Repr::Unknown(_), _) | (_, Repr::Unknown(_)) => false,
        (Repr::String(x), Repr::String(y)) => x == y,
        (Repr::Bool(x), Repr::Bool(y)) => x == y,
        (Repr::Number(x), Repr::Number(y)) => x.set_equivalent(y),
        (Repr::Seq(x), Repr::Seq(y)) => {
            a.ty() == b.ty() && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equivalent(p, q))
        }
        (Repr::Map(x), Repr::Map(y)) => {
            a.ty() == b.ty()
                && x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kp, p), (kq, q))| kp == kq && equivalent(p, q))
        }
        _ => false,
    }
}

/// A hash consistent with [`equivalent`].
fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    match v.repr() {
        Repr::Null => 0u8.hash(h),
        Repr::Unknown(_) => 1u8.hash(h),
        Repr::String(s) => s.hash(h),
        Repr::Bool(b) => b.hash(h),
        Repr::Number(n) => n.hash_key(h),
        Repr::Seq(items) => {
            items.len().hash(h);
            for i in items {
                hash_value(i, h);
            }
        }
        Repr::Map(m) => {
            m.len().hash(h);
            for (k, i) in m {
                k.hash(h);
                hash_value(i, h);
            }
        }
    }
}

/// Appends go-cty's set hash string of `v`.
pub(crate) fn write_hash(out: &mut String, v: &Value) {
    match v.repr() {
        Repr::Unknown(_) => out.push('?'),
        Repr::Null => out.push('~'),
        Repr::Bool(b) => out.push(if *b { 'T' } else { 'F' }),
        Repr::String(s) => gostr::quote_into(out, s),
        Repr::Number(n) => n.write_hash(out),
        Repr::Seq(items) => {
            let (open, close) = match v.ty() {
                Type::Object(_) | Type::Tuple(_) => ('<', '>'),
                _ => ('[', ']'),
            };
            out.push(open);
            for i in items {
                write_hash(out, i);
                out.push(';');
            }
            out.push(close);
        }
        Repr::Map(m) => {
            out.push('{');
            for (k, i) in m {
                gostr::quote_into(out, k);
                out.push(':');
                write_hash(out, i);
                out.push(';');
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Number;

    fn num(s: &str) -> Value {
        Value::number(s.parse::<Number>().unwrap())
    }

    fn render(v: &[Value]) -> Vec<String> {
        v.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn strings_sort_bytewise_with_unknowns_then_null_last() {
        let s = canonicalize(
            &Type::String,
            vec![
                Value::null(Type::String),
                Value::unknown(Type::String),
                Value::string("z"),
                Value::string("a"),
                Value::string("B"),
            ],
        );
        assert_eq!(
            render(&s),
            ["\"B\"", "\"a\"", "\"z\"", "(known after apply)", "null"]
        );
    }

    #[test]
    fn numbers_sort_numerically_and_negative_zero_stays_apart_first() {
        let s = canonicalize(
            &Type::Number,
            vec![
                num("10"),
                num("9"),
                num("-1"),
                num("0.5"),
                num("0"),
                num("-0"),
            ],
        );
        assert_eq!(render(&s), ["-1", "-0", "0", "0.5", "9", "10"]);
        let s = canonicalize(
            &Type::Number,
            vec![
                num("01"),
                Value::number(Number::from_f64(1.0).unwrap()),
                num("0.1"),
                Value::number(Number::from_f64(0.1).unwrap()),
            ],
        );
        assert_eq!(render(&s), ["0.1", "1"]);
    }

    #[test]
    fn unknowns_never_merge_and_keep_insertion_order() {
        let u = Value::unknown(Type::String);
        let s = canonicalize(
            &Type::String,
            vec![u.clone(), Value::string("x"), u.clone(), Value::string("x")],
        );
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn structured_elements_sort_by_hash_string() {
        let l = |items: &[i64]| {
            Value::list(
                Type::Number,
                items.iter().map(|&i| Value::number(i)).collect(),
            )
            .unwrap()
        };
        let s = canonicalize(
            &Type::list(Type::Number),
            vec![l(&[10]), l(&[9]), l(&[1, 2])],
        );
        assert_eq!(render(&s), ["[10]", "[1, 2]", "[9]"]);
        let b = |items: &[bool]| {
            Value::list(Type::Bool, items.iter().map(|&i| Value::bool(i)).collect()).unwrap()
        };
        let s = canonicalize(
            &Type::list(Type::Bool),
            vec![b(&[true]), b(&[false]), b(&[])],
        );
        assert_eq!(render(&s), ["[false]", "[true]", "[]"]);
        let t = |n: &str| Value::tuple(vec![num(n)]);
        let s = canonicalize(
            &Type::tuple([Type::Number]),
            vec![t("1e10"), t("2"), t("0.00001"), t("-1")],
        );
        assert_eq!(render(&s), ["[-1]", "[10000000000]", "[0.00001]", "[2]"]);
    }

    #[test]
    fn hash_strings_match_go_cty() {
        let v = Value::object([
            ("a", Value::string("x\"y")),
            ("b", Value::null(Type::Number)),
            ("c", Value::unknown(Type::Bool)),
        ]);
        let mut h = String::new();
        write_hash(&mut h, &v);
        assert_eq!(h, r#"<"x\"y";~;?;>"#);
        let m = Value::map(Type::Bool, [("k", Value::bool(true))]).unwrap();
        let mut h = String::new();
        write_hash(&mut h, &m);
        assert_eq!(h, r#"{"k":T;}"#);
    }

    #[test]
    fn a_large_set_canonicalizes_without_quadratic_work() {
        let elems: Vec<Value> = (0..20_000)
            .rev()
            .map(|i| Value::string(format!("s{i:05}")))
            .chain((0..20_000).map(|i| Value::string(format!("s{i:05}"))))
            .collect();
        let s = canonicalize(&Type::String, elems);
        assert_eq!(s.len(), 20_000);
        assert_eq!(s[0].as_str(), Some("s00000"));
    }
}
