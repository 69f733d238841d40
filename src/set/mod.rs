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
//! 3. any other element type by its *hash string* (see `hash`), bytewise.
//!
//! Ties keep their pre-sort order. The only tie that spans two buckets is
//! `-0` against `0` (hash strings `-0` and `0`), which the bucket order
//! settles as `-0` first; every other tie shares a bucket, where insertion
//! order (wire order, when decoding) rules.
//!
//! Everything here is O(n log n) in the number of elements, plus one pass
//! over each element to build its hash string.

pub(crate) mod hash;

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::error::Result;
use crate::types::Type;
use crate::value::{self, Repr, Value};
use hash::{compare_hash_strings, write_hash};

impl Value {
    /// A set: elements de-duplicated by cty equality and put in go-cty's
    /// canonical order. Unknown elements never merge.
    pub fn set(elem: Type, mut elements: Vec<Value>) -> Result<Value> {
        let ety = value::unify(&elem, &elements, "set")?;
        value::retype(&ety, &mut elements);
        let elements = canonicalize(&ety, elements);
        Ok(Value::from_repr(Repr::Seq(Type::set(ety), elements.into())))
    }
}

/// A set decoded at `ty`, whose element type is `ety`: in canonical order
/// once the element type is settled.
pub(crate) fn decoded_set(ty: &Type, ety: &Type, elems: Vec<Value>) -> Result<Value> {
    value::decoded_seq(ty, ety, elems, "set", canonicalize, Type::set)
}

#[cfg(test)]
thread_local! {
    /// Counts comparisons and equivalence tests of elements for the
    /// tests, which bound them
    /// (`a_large_set_canonicalizes_in_n_log_n_comparisons`); outside tests
    /// [`count_comparison`] is nothing.
    static COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline(always)]
fn count_comparison() {
    #[cfg(test)]
    COMPARISONS.with(|c| c.set(c.get() + 1));
}

/// De-duplicates (first occurrence wins) and sorts set elements of type `ety`.
pub(crate) fn canonicalize(ety: &Type, elements: Vec<Value>) -> Vec<Value> {
    match canonical_order(ety, &elements) {
        None => elements,
        Some(order) => {
            let mut slots: Vec<Option<Value>> = elements.into_iter().map(Some).collect();
            order.into_iter().filter_map(|i| slots[i].take()).collect()
        }
    }
}

/// The set of type `ety` that `elements` make, as positions into
/// `elements`: the ones it keeps, in its order. `None` when that is all of
/// them as they are, as it is for everything go-cty wrote.
///
/// Positions rather than values so that a writer holding the elements in
/// another form (the typed serializer, with their bytes) follows this one
/// rule too.
pub(crate) fn canonical_order(ety: &Type, elements: &[Value]) -> Option<Vec<usize>> {
    if elements.len() < 2 {
        return None;
    }
    match ety {
        Type::String | Type::Bool | Type::Number => {
            let cmp = |a: &usize, b: &usize| compare_primitive(&elements[*a], &elements[*b]);
            // Equivalent strings, bools and integers compare equal, so after a
            // stable sort they sit next to each other, first occurrence first.
            // Non-integral numbers can be equivalent without being equal
            // (float64 0.1 and the decimal 0.1), so they are de-duplicated
            // by their text beforehand.
            if elements.iter().any(has_inexact_number) {
                let mut keep = vec![true; elements.len()];
                mark_equivalents_hashed(elements, 0..elements.len(), &mut keep);
                let mut order: Vec<usize> = (0..elements.len()).filter(|&i| keep[i]).collect();
                order.sort_by(cmp);
                return Some(order);
            }
            if already_canonical(elements, compare_primitive) {
                return None;
            }
            let mut order: Vec<usize> = (0..elements.len()).collect();
            order.sort_by(cmp);
            order.dedup_by(|later, earlier| equivalent(&elements[*earlier], &elements[*later]));
            Some(order)
        }
        _ => {
            let (mut sa, mut sb) = (String::new(), String::new());
            let in_order =
                already_canonical(elements, |a, b| compare_structured(a, b, &mut sa, &mut sb));
            if in_order {
                None
            } else if elements.len() <= LAZY_HASH_MAX {
                Some(order_small(elements))
            } else {
                Some(order_structured(elements))
            }
        }
    }
}

/// Whether the elements are already in canonical order with no duplicates,
/// as they are when they come from go-cty's (or ctywire's) encoder: every
/// element strictly after the one before, except unknowns, which tie. One
/// pass over neighbours, so decoding a canonical set costs no sort.
fn already_canonical(elements: &[Value], mut cmp: impl FnMut(&Value, &Value) -> Ordering) -> bool {
    elements.windows(2).all(|w| match cmp(&w[0], &w[1]) {
        Ordering::Less => true,
        Ordering::Equal => rank(&w[0]) == 1,
        Ordering::Greater => false,
    })
}

/// The canonical order of structured elements: rank, then hash strings.
fn compare_structured(a: &Value, b: &Value, sa: &mut String, sb: &mut String) -> Ordering {
    count_comparison();
    rank(a).cmp(&rank(b)).then_with(|| {
        if rank(a) == 0 {
            compare_hash_strings(a, b, sa, sb)
        } else {
            Ordering::Equal
        }
    })
}

fn has_inexact_number(v: &Value) -> bool {
    matches!(v.repr(), Repr::Number(n) if !n.is_integer() && !n.is_infinite())
}

/// Sets up to this size compare hash strings lazily, attribute by
/// attribute; larger ones build every hash string once.
const LAZY_HASH_MAX: usize = 16;

/// Elements of any other type sort by their hash strings. Equivalent
/// elements have equal hash strings, so duplicates are found within runs of
/// equal hash strings.
fn order_structured(elements: &[Value]) -> Vec<usize> {
    let mut buf = String::new();
    let mut keys: Vec<(u8, usize, usize)> = Vec::with_capacity(elements.len());
    for v in elements {
        let start = buf.len();
        let rank = rank(v);
        if rank == 0 {
            write_hash(&mut buf, v);
        }
        keys.push((rank, start, buf.len()));
    }
    let hash = |k: &(u8, usize, usize)| &buf.as_bytes()[k.1..k.2];
    let mut order: Vec<usize> = (0..elements.len()).collect();
    order.sort_by(|&a, &b| {
        count_comparison();
        let (ka, kb) = (&keys[a], &keys[b]);
        ka.0.cmp(&kb.0).then_with(|| hash(ka).cmp(hash(kb)))
    });
    let same = |a: usize, b: usize| {
        count_comparison();
        let (ka, kb) = (&keys[a], &keys[b]);
        ka.0 == kb.0 && ka.0 != 1 && hash(ka) == hash(kb)
    };
    drop_duplicates_in_runs(elements, order, same)
}

/// A small set: sort with a comparator that builds the hash strings of two
/// elements one component (attribute, element, entry) at a time and stops
/// at the first that differs, which is usually the first or second.
fn order_small(elements: &[Value]) -> Vec<usize> {
    let (mut sa, mut sb) = (String::new(), String::new());
    let mut cmp = |a: &Value, b: &Value| compare_structured(a, b, &mut sa, &mut sb);
    let mut order: Vec<usize> = (0..elements.len()).collect();
    order.sort_by(|&a, &b| cmp(&elements[a], &elements[b]));
    let same = |a: usize, b: usize| {
        rank(&elements[a]) != 1 && cmp(&elements[a], &elements[b]) == Ordering::Equal
    };
    drop_duplicates_in_runs(elements, order, same)
}

/// `order` (stably sorted, so each run of ties is in insertion order)
/// without the elements equivalent to an earlier one of their run; `same`
/// says whether two elements tie.
fn drop_duplicates_in_runs(
    elements: &[Value],
    order: Vec<usize>,
    mut same: impl FnMut(usize, usize) -> bool,
) -> Vec<usize> {
    let mut keep = vec![true; elements.len()];
    let mut run_start = 0;
    for end in 1..=order.len() {
        if end < order.len() && same(order[run_start], order[end]) {
            continue;
        }
        if end - run_start > 1 {
            mark_duplicates(elements, &order[run_start..end], &mut keep);
        }
        run_start = end;
    }
    order.into_iter().filter(|&i| keep[i]).collect()
}

/// Within one run of elements with equal hash strings (in insertion order),
/// marks every element equivalent to an earlier one.
fn mark_duplicates(elements: &[Value], run: &[usize], keep: &mut [bool]) {
    if run.len() <= 8 {
        for (n, &i) in run.iter().enumerate() {
            if run[..n]
                .iter()
                .any(|&j| keep[j] && equivalent(&elements[j], &elements[i]))
            {
                keep[i] = false;
            }
        }
        return;
    }
    // A long run (many values whose numbers agree to 10 digits, say): hash
    // instead of comparing every pair.
    mark_equivalents_hashed(elements, run.iter().copied(), keep);
}

/// Marks every element of `indices` (taken in insertion order) that is
/// equivalent to an earlier one, comparing only elements whose hashes
/// agree. Elements with unknowns in them never equal anything.
fn mark_equivalents_hashed(
    elements: &[Value],
    indices: impl ExactSizeIterator<Item = usize>,
    keep: &mut [bool],
) {
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(indices.len());
    for i in indices {
        let v = &elements[i];
        if !v.is_wholly_known() {
            continue;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        hash_value(v, &mut h);
        let bucket = buckets.entry(h.finish()).or_default();
        if bucket.iter().any(|&j| equivalent(&elements[j], v)) {
            keep[i] = false;
        } else {
            bucket.push(i);
        }
    }
}

/// Known non-null 0, unknown 1, null 2.
fn rank(v: &Value) -> u8 {
    match v.repr() {
        Repr::Unknown(..) => 1,
        Repr::Null(_) => 2,
        _ => 0,
    }
}

fn compare_primitive(a: &Value, b: &Value) -> Ordering {
    count_comparison();
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

/// go-cty's set membership test for wholly known values: cty equality
/// (nulls equal each other) with equal hash strings (so `-0` ≠ `0`).
fn equivalent(a: &Value, b: &Value) -> bool {
    count_comparison();
    match (a.repr(), b.repr()) {
        (Repr::Null(_), Repr::Null(_)) => true,
        (Repr::Unknown(..), _) | (_, Repr::Unknown(..)) => false,
        (Repr::String(x), Repr::String(y)) => x == y,
        (Repr::Bool(x), Repr::Bool(y)) => x == y,
        (Repr::Number(x), Repr::Number(y)) => x.set_equivalent(y),
        (Repr::Seq(_, x), Repr::Seq(_, y)) => {
            a.ty() == b.ty() && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equivalent(p, q))
        }
        (Repr::Map(_, x), Repr::Map(_, y)) => {
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
        Repr::Null(_) => 0u8.hash(h),
        Repr::Unknown(..) => 1u8.hash(h),
        Repr::String(s) => s.hash(h),
        Repr::Bool(b) => b.hash(h),
        Repr::Number(n) => n.hash_key(h),
        Repr::Seq(_, items) => {
            items.len().hash(h);
            for i in items {
                hash_value(i, h);
            }
        }
        Repr::Map(_, m) => {
            m.len().hash(h);
            for (k, i) in m {
                k.hash(h);
                hash_value(i, h);
            }
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

    /// What `f` returns, and how many element comparisons it made.
    fn counting_comparisons<T>(f: impl FnOnce() -> T) -> (T, u64) {
        COMPARISONS.with(|c| c.set(0));
        let out = f();
        (out, COMPARISONS.with(|c| c.get()))
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
    fn structured_duplicates_merge_even_in_long_runs_of_equal_hash_strings() {
        // 1.000000000001 .. 1.000000000040 all hash as "1": one long run.
        let o = |i: usize| Value::object([("n", num(&format!("1.0000000000{i:02}")))]);
        let mut elems: Vec<Value> = (1..=40).map(o).collect();
        elems.extend((1..=40).rev().map(o));
        let s = canonicalize(&Type::object([("n", Type::Number)]), elems);
        assert_eq!(s.len(), 40);
        assert_eq!(
            s[0].attr("n").unwrap().to_string(),
            "1.000000000001",
            "insertion order within the run"
        );
        let nulls = vec![
            Value::null(Type::list(Type::Bool)),
            Value::null(Type::list(Type::Bool)),
        ];
        assert_eq!(canonicalize(&Type::list(Type::Bool), nulls).len(), 1);
    }

    #[test]
    fn canonical_input_is_kept_and_anything_else_is_sorted() {
        let strs = |v: &[&str]| v.iter().map(|s| Value::string(*s)).collect::<Vec<_>>();
        assert_eq!(
            render(&canonicalize(&Type::String, strs(&["a", "b", "c"]))),
            ["\"a\"", "\"b\"", "\"c\""]
        );
        assert_eq!(
            render(&canonicalize(&Type::String, strs(&["a", "b", "b"]))),
            ["\"a\"", "\"b\""]
        );
        assert_eq!(
            render(&canonicalize(&Type::String, strs(&["b", "a"]))),
            ["\"a\"", "\"b\""]
        );
        let nulls = vec![
            Value::string("a"),
            Value::null(Type::String),
            Value::null(Type::String),
        ];
        assert_eq!(canonicalize(&Type::String, nulls).len(), 2);
        let u = Value::unknown(Type::String);
        assert_eq!(
            canonicalize(&Type::String, vec![Value::string("a"), u.clone(), u]).len(),
            3
        );
        let inexact = vec![
            num("0.1"),
            num("0.2"),
            Value::number(Number::from_f64(0.1).unwrap()),
        ];
        assert_eq!(
            render(&canonicalize(&Type::Number, inexact)),
            ["0.1", "0.2"]
        );
    }

    /// An element's hash string, built whole and on its own.
    fn hash_string(v: &Value) -> String {
        let mut h = String::new();
        write_hash(&mut h, v);
        h
    }

    #[test]
    fn lazy_and_whole_hash_string_orders_are_the_order_of_the_hash_strings() {
        let num_list =
            |ns: &[&str]| Value::list(Type::Number, ns.iter().map(|n| num(n)).collect()).unwrap();
        let obj = |a: &str, l: &[&str], tags: &[(&str, &str)]| {
            let tags = Value::map(
                Type::String,
                tags.iter().map(|(k, v)| (*k, Value::string(*v))),
            )
            .unwrap();
            Value::object([("a", Value::string(a)), ("l", num_list(l)), ("t", tags)])
        };
        // Ties on the first attribute, strings that differ only where one
        // is escaped or not ASCII, lists of different lengths (the closing
        // bracket against a next element), numbers whose hash strings
        // order otherwise than their values ("10" < "9", "1e+10" form),
        // map keys one a prefix of the other, and a duplicate.
        let elems = vec![
            obj("x", &["0", "1"], &[("k", "v")]),
            obj("x", &["0", "1", "2"], &[("k", "v")]),
            obj("x", &["0", "1"], &[("k", "w")]),
            obj("ab", &[], &[]),
            obj("a", &["9"], &[("k", "v"), ("z", "")]),
            obj("x", &["0", "1"], &[("k", "v")]),
            obj("a", &["9"], &[("k", "v")]),
            obj("a", &["10"], &[("k", "v")]),
            obj("a", &["12345678901"], &[]),
            obj("a", &["-0.5"], &[]),
            obj("a\"b", &[], &[]),
            obj("a\u{7f}", &[], &[]),
            obj("aé", &[], &[]),
            obj("a", &["9"], &[("k", "v"), ("k2", "")]),
            Value::null(obj("", &[], &[]).ty().clone()),
        ];
        assert_orders_are_the_order_of_the_hash_strings(elems);
        // Lists and maps at the top: one element's components run out
        // while the other's go on (a closing bracket against a next one).
        let strs = |items: &[&str]| {
            Value::list(
                Type::String,
                items.iter().map(|i| Value::string(*i)).collect(),
            )
            .unwrap()
        };
        assert_orders_are_the_order_of_the_hash_strings(vec![
            strs(&["a", "b"]),
            strs(&["a"]),
            strs(&[]),
            strs(&["a", "b", "c"]),
            strs(&["b"]),
            strs(&["a", "b"]),
            strs(&["a\"", "b"]),
            strs(&["ab"]),
            Value::null(Type::list(Type::String)),
        ]);
        let nums = |entries: &[(&str, &str)]| {
            Value::map(Type::Number, entries.iter().map(|(k, n)| (*k, num(n)))).unwrap()
        };
        assert_orders_are_the_order_of_the_hash_strings(vec![
            nums(&[("k", "1")]),
            nums(&[("k", "1"), ("l", "2")]),
            nums(&[]),
            nums(&[("k", "10")]),
            nums(&[("k", "1")]),
            nums(&[("kk", "1")]),
            nums(&[("k", "1"), ("l", "2"), ("m", "3")]),
        ]);
    }

    /// Orders `elems` (one duplicate among them) with the lazy comparison
    /// and with whole hash strings, and checks both against the reference.
    fn assert_orders_are_the_order_of_the_hash_strings(elems: Vec<Value>) {
        // The reference: sort the whole hash strings as plain strings,
        // nulls last, and keep the first of equal ones (no two elements
        // here share a hash string without being equal).
        let hashes: Vec<Option<String>> = elems
            .iter()
            .map(|v| (!v.is_null()).then(|| hash_string(v)))
            .collect();
        let mut expected: Vec<usize> = (0..elems.len()).collect();
        expected.sort_by(|&a, &b| match (&hashes[a], &hashes[b]) {
            (Some(x), Some(y)) => x.as_bytes().cmp(y.as_bytes()),
            (x, y) => x.is_none().cmp(&y.is_none()),
        });
        expected.dedup_by(|later, earlier| hashes[*later] == hashes[*earlier]);
        assert_eq!(expected.len(), elems.len() - 1, "one duplicate");

        assert_eq!(order_small(&elems), expected, "lazy comparison");
        let mut padded = elems.clone();
        // Past the lazy limit with copies of the first, which de-duplicate away.
        while padded.len() <= LAZY_HASH_MAX {
            padded.push(elems[0].clone());
        }
        assert_eq!(order_structured(&padded), expected, "whole hash strings");
        // And pair by pair, both ways round.
        let (mut sa, mut sb) = (String::new(), String::new());
        for (a, ha) in elems.iter().zip(&hashes) {
            for (b, hb) in elems.iter().zip(&hashes) {
                if let (Some(ha), Some(hb)) = (ha, hb) {
                    assert_eq!(
                        compare_structured(a, b, &mut sa, &mut sb),
                        ha.as_bytes().cmp(hb.as_bytes()),
                        "{ha} vs {hb}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_large_set_canonicalizes_in_n_log_n_comparisons() {
        // Sorted descending, then each element again in a scrambled order
        // (7919 is prime, so `i * 7919 % n` visits every index once):
        // neither the sort nor the de-duplication may compare every pair.
        let n = 20_000;
        let scrambled = move |i: usize| i * 7919 % n;
        let elems: Vec<Value> = (0..n)
            .rev()
            .chain((0..n).map(scrambled))
            .map(|i| Value::string(format!("s{i:05}")))
            .collect();
        let total = elems.len() as f64;
        let (s, comparisons) = counting_comparisons(|| canonicalize(&Type::String, elems));
        assert_eq!(s.len(), n);
        let want: Vec<String> = (0..n).map(|i| format!("s{i:05}")).collect();
        assert!(s
            .iter()
            .map(|v| v.as_str().unwrap())
            .eq(want.iter().map(String::as_str)));
        // A count, not a time, so it cannot flake: 2·n·log2(n) is about
        // 1.2 million here, where comparing all pairs would be 800 million.
        let bound = 2.0 * total * total.log2();
        assert!(
            (comparisons as f64) <= bound,
            "{comparisons} comparisons for {total} elements, bound {bound}"
        );

        // And structured elements, past the lazy limit, likewise.
        let o = |i: usize| Value::object([("k", Value::string(format!("s{i:05}")))]);
        let elems: Vec<Value> = (0..n).rev().chain((0..n).map(scrambled)).map(o).collect();
        let (s, comparisons) =
            counting_comparisons(|| canonicalize(&Type::object([("k", Type::String)]), elems));
        assert_eq!(s.len(), n);
        assert_eq!(s[0], o(0));
        assert!(
            (comparisons as f64) <= bound,
            "{comparisons} comparisons for {total} structured elements, bound {bound}"
        );
    }
}
