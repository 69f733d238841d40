//! Shared by the tests: proptest strategies for arbitrary types and values
//! that conform to them and survive the wire, the fixture runner, and the
//! rule for a test whose real component is missing (`skip`).

#![allow(dead_code)]

pub mod fixtures;
pub mod skip;

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex (whitespace ignored).
pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A type from its JSON form.
pub fn ty(s: &str) -> Type {
    Type::parse(s).unwrap()
}

use ctywire::{Bound, Number, Refinements, Type, Value};
use proptest::prelude::*;
use proptest::sample::select;

/// Attribute names and strings: ASCII, escapes, NFD (normalized on the
/// way in), non-Latin scripts, emoji, the empty string; now and then a long
/// one, past fixstr's 31 bytes and str 8's 255 (msgpack's wider str
/// headers, and bin 16 for the JSON of a type named with them). Short ones
/// first, which is where shrinking goes.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(vec![
            "",
            "a",
            "b",
            "id",
            "Zeta",
            "a-b",
            "e\u{301}",
            "é",
            "ünï",
            "日本語",
            "🦀 crab",
            "tab\t\"q\"\\",
            "<&>",
            "\u{0}nul"
        ])
        .prop_map(String::from),
        6 => "[a-z0-9_-]{0,12}",
        6 => "\\PC{0,8}",
        1 => prop_oneof!["[ -~]{32,80}", "[ -~]{250,300}", "\\PC{16,100}"],
    ]
}

fn primitive_type() -> impl Strategy<Value = Type> {
    prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)]
}

fn leaf_type() -> impl Strategy<Value = Type> {
    prop_oneof![3 => Just(Type::String), 3 => Just(Type::Number), 2 => Just(Type::Bool), 1 => Just(Type::Dynamic)]
}

/// Now and then a tuple or object wide enough for a 16-bit msgpack array
/// or map header (more than 15), its members primitive, to keep values small.
pub fn arb_type() -> impl Strategy<Value = Type> {
    leaf_type().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            8 => inner.clone().prop_map(Type::list),
            8 => inner.clone().prop_map(Type::set),
            8 => inner.clone().prop_map(Type::map),
            8 => prop::collection::vec(inner.clone(), 0..3).prop_map(Type::tuple),
            8 => object_type(prop::collection::vec((text(), inner), 0..4)),
            1 => prop::collection::vec(primitive_type(), 16..=20).prop_map(Type::tuple),
            1 => object_type(prop::collection::vec((text(), primitive_type()), 16..=20)),
        ]
    })
}

/// An object type of the attributes, some of them optional.
fn object_type(attrs: impl Strategy<Value = Vec<(String, Type)>>) -> impl Strategy<Value = Type> {
    (attrs, any::<u32>()).prop_map(|(attrs, opt_mask)| {
        let names: Vec<String> = attrs.iter().map(|(n, _)| n.clone()).collect();
        let optional: Vec<&String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| opt_mask & (1 << i) != 0)
            .map(|(_, n)| n)
            .collect();
        Type::object_with_optional(attrs, optional).expect("optional names are attributes")
    })
}

/// A concrete type to stand in for `dynamic`.
pub fn concrete_type() -> impl Strategy<Value = Type> {
    arb_type().prop_map(|t| concretize_with(&t, &Type::String))
}

/// `t` with every `dynamic` replaced by `with`.
pub fn concretize_with(t: &Type, with: &Type) -> Type {
    match t {
        Type::Dynamic => with.clone(),
        Type::List(e) => Type::list(concretize_with(e, with)),
        Type::Set(e) => Type::set(concretize_with(e, with)),
        Type::Map(e) => Type::map(concretize_with(e, with)),
        Type::Tuple(es) => Type::tuple(es.iter().map(|e| concretize_with(e, with))),
        Type::Object(o) => Type::object(o.attributes().map(|(n, a)| (n, concretize_with(a, with)))),
        other => other.clone(),
    }
}

pub fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from_i64),
        any::<u64>().prop_map(Number::from_u64),
        // Big integers beyond 64 bits, 40+ digits.
        "[1-9][0-9]{39,60}".prop_map(|s| s.parse().unwrap()),
        // Decimals of at most 15 significant digits, exact or not in binary.
        (-99_999_999i64..99_999_999, 1u32..8).prop_map(|(m, scale)| {
            let s = format!("{}e-{scale}", m);
            s.parse().unwrap()
        }),
        // Any finite non-integral float64.
        any::<f64>().prop_filter_map("finite", |f| (f.is_finite() && f != 0.0)
            .then(|| Number::from_f64(f).unwrap())),
        select(vec![
            "0.1",
            // Negative zero, which msgpack writes as the integer 0, and 0,
            // which a set can then no longer hold beside it.
            "-0",
            "0",
            "1e400",
            "1e-400",
            "123456789012345678901234567890.123456789"
        ])
        .prop_map(|s| s.parse().unwrap()),
    ]
}

pub fn refinements(ty: Type) -> BoxedStrategy<Refinements> {
    let not_null = any::<bool>();
    match ty {
        Type::String => (not_null, prop::option::of("[a-z:/-]{1,20}"))
            .prop_map(|(not_null, p)| Refinements {
                not_null,
                string_prefix: p,
                ..Default::default()
            })
            .boxed(),
        Type::Number => (
            not_null,
            prop::option::of((-1000i64..1000, any::<bool>())),
            prop::option::of((0i64..1000, any::<bool>())),
        )
            .prop_map(|(not_null, lo, span)| {
                let lower = lo.map(|(v, inclusive)| Bound {
                    value: v.into(),
                    inclusive,
                });
                let upper = match (lo, span) {
                    (Some((v, _)), Some((d, inclusive))) => Some(Bound {
                        value: (v + d + 1).into(),
                        inclusive,
                    }),
                    (None, Some((d, inclusive))) => Some(Bound {
                        value: d.into(),
                        inclusive,
                    }),
                    _ => None,
                };
                Refinements {
                    not_null,
                    lower,
                    upper,
                    ..Default::default()
                }
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            (not_null, 0u64..4, prop::option::of(0u64..4))
                .prop_map(|(not_null, min, extra)| Refinements {
                    not_null,
                    length_min: min,
                    length_max: extra.map(|e| min + e),
                    ..Default::default()
                })
                .boxed()
        }
        Type::Dynamic => Just(Refinements::default()).boxed(),
        _ => not_null
            .prop_map(|not_null| Refinements {
                not_null,
                ..Default::default()
            })
            .boxed(),
    }
}

/// A value of type `ty`: sometimes null, sometimes a refined unknown.
pub fn value(ty: Type) -> BoxedStrategy<Value> {
    value_at(ty, None, false, true)
}

pub fn known(ty: Type) -> BoxedStrategy<Value> {
    known_at(ty, None, false, true)
}

/// The keys made distinct (a repeat gets its position appended), so that
/// a map has as many entries as items. (`btree_set` of 40 draws from
/// `text()` takes seconds: it redraws on every repeat.)
fn distinct(keys: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    keys.into_iter()
        .enumerate()
        .map(|(i, k)| {
            let k = if seen.contains(&k) {
                format!("{k}~{i}")
            } else {
                k
            };
            seen.insert(k.clone());
            k
        })
        .collect()
}

/// How many elements a collection gets: mostly 0–3 (`min` up), now and
/// then, where `long` allows, 16–40: past fixarray's and fixmap's 15, for
/// msgpack's 16-bit headers. Short first, which is where shrinking goes.
fn collection_len(min: usize, long: bool) -> BoxedStrategy<usize> {
    if long {
        prop_oneof![30 => min..4usize, 1 => 16..=40usize].boxed()
    } else {
        (min..4usize).boxed()
    }
}

/// Whether values at `ty` can have types other than `ty` (dynamic parts
/// take concrete types; known objects never carry optional markers).
fn varies(ty: &Type) -> bool {
    *ty != Type::Dynamic && (ty.has_dynamic() || ty.has_optional_attributes())
}

/// A value declared as `declared`. `concrete` is the type it must take
/// when it sits among siblings (elements of one collection must all have
/// one type). `strict`: it does sit among siblings, so where its declared
/// type varies it must be known and non-empty: a null, unknown or empty
/// collection keeps the declared type while known siblings get concrete
/// ones, which no decoder can reconcile (go-cty panics). `long`: a long
/// collection may appear here (not inside another, to keep values small).
fn value_at(
    declared: Type,
    concrete: Option<Type>,
    strict: bool,
    long: bool,
) -> BoxedStrategy<Value> {
    if declared == Type::Dynamic {
        // A dynamic position holds a value of some concrete type, which
        // carries its type on the wire; among siblings, the shared one.
        // Alone it may also be a null or unknown of no type at all, which
        // is written bare.
        return match concrete {
            Some(c) => value_at(c, None, false, long),
            None => prop_oneof![
                4 => concrete_type().prop_flat_map(move |c| value_at(c, None, false, long)),
                1 => Just(Value::null(Type::Dynamic)),
                1 => Just(Value::unknown(Type::Dynamic)),
            ]
            .boxed(),
        };
    }
    if strict && varies(&declared) {
        return known_at(declared, concrete, true, long);
    }
    let ty = concrete.clone().unwrap_or_else(|| declared.clone());
    let null = Just(Value::null(ty.clone()));
    let unknown = refinements(ty.clone()).prop_map({
        let ty = ty.clone();
        move |r| {
            Value::unknown(ty.clone())
                .refined(r)
                .expect("valid refinements")
        }
    });
    prop_oneof![1 => null, 1 => unknown, 6 => known_at(declared, concrete, strict, long)].boxed()
}

fn known_at(
    declared: Type,
    concrete: Option<Type>,
    strict: bool,
    long: bool,
) -> BoxedStrategy<Value> {
    match &declared {
        Type::String => text().prop_map(Value::string).boxed(),
        Type::Number => number().prop_map(Value::number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::bool).boxed(),
        Type::Dynamic => value_at(declared, concrete, strict, long),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            let e = (**e).clone();
            let elem_strict = strict || varies(&e);
            let min = usize::from(strict && varies(&declared));
            let declared2 = declared.clone();
            // What `dynamic` means for all the elements: given, or picked once.
            let element_type = match concrete.as_ref().and_then(Type::element_type) {
                Some(c) => Just(c.clone()).boxed(),
                None => concrete_type()
                    .prop_map(move |with| concretize_with(&e, &with))
                    .boxed(),
            };
            let e = declared.element_type().cloned().unwrap_or(Type::Dynamic);
            let is_map = matches!(declared, Type::Map(_));
            element_type
                .prop_flat_map(move |c| {
                    let e = e.clone();
                    collection_len(min, long).prop_flat_map(move |n| {
                        // The elements of a long collection hold no long one.
                        let inner_long = long && n < 16;
                        let items = prop::collection::vec(
                            value_at(e.clone(), Some(c.clone()), elem_strict, inner_long),
                            n,
                        );
                        let keys = prop::collection::vec(text(), if is_map { n } else { 0 })
                            .prop_map(distinct);
                        (items, keys)
                    })
                })
                .prop_map(move |(items, keys)| {
                    let e = declared2.element_type().cloned().unwrap_or(Type::Dynamic);
                    match &declared2 {
                        Type::List(_) => Value::list(e, items).unwrap(),
                        Type::Set(_) => Value::set(e, items).unwrap(),
                        _ => Value::map(e, keys.into_iter().zip(items)).unwrap(),
                    }
                })
                .boxed()
        }
        Type::Tuple(es) => {
            let cs: Vec<Option<Type>> = match concrete.as_ref().and_then(Type::tuple_elements) {
                Some(cs) => cs.iter().cloned().map(Some).collect(),
                None => vec![None; es.len()],
            };
            es.iter()
                .zip(cs)
                .map(|(t, c)| value_at(t.clone(), c, strict, long))
                .collect::<Vec<_>>()
                .prop_map(Value::tuple)
                .boxed()
        }
        Type::Object(o) => {
            let attrs: Vec<BoxedStrategy<Value>> = o
                .attributes()
                .map(|(n, t)| {
                    let c = concrete.as_ref().and_then(|c| c.attribute_type(n)).cloned();
                    value_at(t.clone(), c, strict, long)
                })
                .collect();
            let names: Vec<String> = o.attributes().map(|(n, _)| n.to_string()).collect();
            attrs
                .prop_map(move |vals| Value::object(names.iter().cloned().zip(vals)))
                .boxed()
        }
    }
}

pub fn typed_value() -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(|t| (Just(t.clone()), value(t)))
}
