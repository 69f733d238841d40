//! cty's `Value.Length` and `ValueRange.Includes`: what an unknown (or
//! known) value allows, which core uses to judge counts and planned
//! placeholders against later values.

use std::cmp::Ordering;

use ctywire::{Bound, Number, Refinements, Type, Value};

/// cty's `Value.Length()` of a collection: known for known lists and maps,
/// tuples (from the type), and sets that are wholly known or hold one
/// element; otherwise an unknown number refined to the possible lengths.
pub(crate) fn length_of(v: &Value) -> Value {
    if let Type::Tuple(ts) = v.ty() {
        return Value::number(ts.len());
    }
    if !v.is_known() {
        let r = v.refinements().cloned().unwrap_or_default();
        let upper = r
            .length_max
            .map_or(Number::from(i64::MAX), Number::from_u64);
        return refined_number(Number::from_u64(r.length_min), upper);
    }
    let n = v.len().unwrap_or(0);
    if matches!(v.ty(), Type::Set(_)) && n != 1 && !v.is_wholly_known() {
        // Unknown elements may turn out equal to others and merge.
        return refined_number(Number::from(1), Number::from_u64(n as u64));
    }
    Value::number(n)
}

/// A not-null unknown number within `[lo, hi]` (cty collapses equal bounds
/// to the number itself).
fn refined_number(lo: Number, hi: Number) -> Value {
    let r = Refinements {
        not_null: true,
        lower: Some(Bound {
            value: lo.clone(),
            inclusive: true,
        }),
        upper: Some(Bound {
            value: hi,
            inclusive: true,
        }),
        ..Default::default()
    };
    Value::unknown(Type::Number)
        .refined(r)
        .unwrap_or_else(|_| Value::number(lo))
}

/// The range of values `v` stands for (cty's `Value.Range`).
struct Range {
    ty: Type,
    /// `Some(true)`: only null; `Some(false)`: never null.
    null: Option<bool>,
    prefix: Option<String>,
    lower: Option<Bound>,
    upper: Option<Bound>,
    length: Option<(u64, Option<u64>)>,
}

fn range_of(v: &Value) -> Range {
    let mut r = Range {
        ty: v.ty().clone(),
        null: None,
        prefix: None,
        lower: None,
        upper: None,
        length: None,
    };
    if v.is_null() {
        r.null = Some(true);
        return r;
    }
    if !v.is_known() {
        if let Some(rf) = v.refinements() {
            r.null = rf.not_null.then_some(false);
            r.prefix = rf.string_prefix.clone();
            r.lower = rf.lower.clone();
            r.upper = rf.upper.clone();
            if rf.length_min != 0 || rf.length_max.is_some() {
                r.length = Some((rf.length_min, rf.length_max));
            }
        }
        return r;
    }
    r.null = Some(false);
    if let Some(s) = v.as_str() {
        r.prefix = Some(s.to_string());
    } else if let Some(n) = v.as_number() {
        r.lower = Some(Bound {
            value: n.clone(),
            inclusive: true,
        });
        r.upper = Some(Bound {
            value: n.clone(),
            inclusive: true,
        });
    } else if v.ty().is_collection() {
        let len = length_of(v);
        r.length = Some(match len.as_u64() {
            Some(n) => (n, Some(n)),
            None => (0, None),
        });
    }
    r
}

/// The interval a number value lies in: `(lower, upper)`, each `None`
/// when unbounded.
fn interval(v: &Value) -> (Option<Bound>, Option<Bound>) {
    if let Some(n) = v.as_number() {
        let b = Bound {
            value: n.clone(),
            inclusive: true,
        };
        return (Some(b.clone()), Some(b));
    }
    match v.refinements() {
        Some(r) => (r.lower.clone(), r.upper.clone()),
        None => (None, None),
    }
}

/// Whether the interval `(lo, hi)` lies wholly below `min` (so `>= min`
/// is known false).
fn wholly_below(hi: &Option<Bound>, min: &Bound) -> bool {
    match hi {
        None => false,
        Some(h) => match h.value.numeric_cmp(&min.value) {
            Ordering::Less => true,
            Ordering::Equal => !(h.inclusive && min.inclusive),
            Ordering::Greater => false,
        },
    }
}

fn wholly_above(lo: &Option<Bound>, max: &Bound) -> bool {
    match lo {
        None => false,
        Some(l) => match l.value.numeric_cmp(&max.value) {
            Ordering::Greater => true,
            Ordering::Equal => !(l.inclusive && max.inclusive),
            Ordering::Less => false,
        },
    }
}

/// cty's `planned.Range().Includes(actual)`: `Some(false)` when `actual`
/// certainly lies outside what `planned` allows (`None`: cannot tell, or
/// `Some(true)`: certainly inside; callers act on `Some(false)` only, as
/// core does).
pub(crate) fn range_includes(planned: &Value, actual: &Value) -> Option<bool> {
    let r = range_of(planned);
    match r.null {
        Some(true) => return Some(actual.is_null()),
        Some(false) if actual.is_null() => return Some(false),
        _ => {}
    }
    if actual.is_null() {
        return Some(true);
    }
    if !actual.ty().conforms_to(&r.ty) {
        return Some(false);
    }
    if *actual.ty() == Type::Dynamic {
        return None;
    }
    if let (Some(prefix), Some(s)) = (&r.prefix, actual.as_str()) {
        if !s.starts_with(prefix.as_str()) {
            return Some(false);
        }
    }
    if r.ty == Type::Number {
        let (lo, hi) = interval(actual);
        if let Some(min) = &r.lower {
            if wholly_below(&hi, min) {
                return Some(false);
            }
        }
        if let Some(max) = &r.upper {
            if wholly_above(&lo, max) {
                return Some(false);
            }
        }
    }
    if let Some((min, max)) = r.length {
        let (lo, hi) = interval(&length_of(actual));
        let min = Bound {
            value: Number::from_u64(min),
            inclusive: true,
        };
        if wholly_below(&hi, &min) {
            return Some(false);
        }
        if let Some(max) = max {
            let max = Bound {
                value: Number::from_u64(max),
                inclusive: true,
            };
            if wholly_above(&lo, &max) {
                return Some(false);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refined(ty: Type, r: Refinements) -> Value {
        Value::unknown(ty).refined(r).unwrap()
    }

    #[test]
    fn a_not_null_placeholder_excludes_null() {
        let p = refined(
            Type::String,
            Refinements {
                not_null: true,
                ..Default::default()
            },
        );
        assert_eq!(range_includes(&p, &Value::null(Type::String)), Some(false));
        assert_eq!(range_includes(&p, &Value::string("x")), None);
    }

    #[test]
    fn string_prefixes_and_number_bounds_are_enforced() {
        let p = refined(
            Type::String,
            Refinements {
                string_prefix: Some("ab".into()),
                ..Default::default()
            },
        );
        assert_eq!(range_includes(&p, &Value::string("xy")), Some(false));
        assert_eq!(range_includes(&p, &Value::string("abc")), None);
        let bound = |n: i64, inclusive| {
            Some(Bound {
                value: n.into(),
                inclusive,
            })
        };
        let p = refined(
            Type::Number,
            Refinements {
                lower: bound(1, true),
                upper: bound(5, false),
                ..Default::default()
            },
        );
        assert_eq!(range_includes(&p, &Value::number(5)), Some(false));
        assert_eq!(range_includes(&p, &Value::number(0)), Some(false));
        assert_eq!(range_includes(&p, &Value::number(1)), None);
    }

    #[test]
    fn collection_length_bounds_are_enforced() {
        let p = refined(
            Type::list(Type::String),
            Refinements {
                length_min: 1,
                length_max: Some(2),
                ..Default::default()
            },
        );
        let three = Value::list(Type::String, vec!["a".into(), "b".into(), "c".into()]).unwrap();
        assert_eq!(range_includes(&p, &three), Some(false));
        let empty = Value::list(Type::String, vec![]).unwrap();
        assert_eq!(range_includes(&p, &empty), Some(false));
    }

    #[test]
    fn a_set_with_unknowns_has_a_length_range() {
        let s = Value::set(
            Type::String,
            vec![Value::unknown(Type::String), Value::string("a")],
        )
        .unwrap();
        let len = length_of(&s);
        assert!(!len.is_known());
        assert_eq!(range_includes(&len, &Value::number(3)), Some(false));
        assert_eq!(range_includes(&len, &Value::number(2)), None);
    }
}
