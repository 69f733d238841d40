//! Property tests over arbitrary types and values that conform to them.

use ctywire::{json, msgpack, Bound, Number, Refinements, Type, Value};
use proptest::prelude::*;
use proptest::sample::select;

const CASES: u32 = 1024;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        ..ProptestConfig::default()
    }
}

/// Attribute names and strings: ASCII, escapes, NFD (normalized on the
/// way in), non-Latin scripts, emoji, the empty string.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec![
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
        "[a-z0-9_-]{0,12}",
        "\\PC{0,8}",
    ]
}

fn leaf_type() -> impl Strategy<Value = Type> {
    prop_oneof![3 => Just(Type::String), 3 => Just(Type::Number), 2 => Just(Type::Bool), 1 => Just(Type::Dynamic)]
}

fn arb_type() -> impl Strategy<Value = Type> {
    leaf_type().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Type::tuple),
            (prop::collection::vec((text(), inner), 0..4), any::<u8>()).prop_map(
                |(attrs, opt_mask)| {
                    let names: Vec<String> = attrs.iter().map(|(n, _)| n.clone()).collect();
                    let optional: Vec<&String> = names
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| opt_mask & (1 << i) != 0)
                        .map(|(_, n)| n)
                        .collect();
                    Type::object_with_optional(attrs, optional)
                        .expect("optional names are attributes")
                }
            ),
        ]
    })
}

/// A concrete type to stand in for `dynamic`.
fn concrete_type() -> impl Strategy<Value = Type> {
    arb_type().prop_map(|t| concretize_with(&t, &Type::String))
}

/// `t` with every `dynamic` replaced by `with`.
fn concretize_with(t: &Type, with: &Type) -> Type {
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

fn number() -> impl Strategy<Value = Number> {
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
            "1e400",
            "1e-400",
            "123456789012345678901234567890.123456789"
        ])
        .prop_map(|s| s.parse().unwrap()),
    ]
}

fn refinements(ty: Type) -> BoxedStrategy<Refinements> {
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
fn value(ty: Type) -> BoxedStrategy<Value> {
    value_at(ty, None, false)
}

fn known(ty: Type) -> BoxedStrategy<Value> {
    known_at(ty, None, false)
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
/// ones, which no decoder can reconcile (go-cty panics).
fn value_at(declared: Type, concrete: Option<Type>, strict: bool) -> BoxedStrategy<Value> {
    if declared == Type::Dynamic {
        // A dynamic position holds a value of some concrete type, which
        // carries its type on the wire; among siblings, the shared one.
        return match concrete {
            Some(c) => value(c),
            None => concrete_type().prop_flat_map(value).boxed(),
        };
    }
    if strict && varies(&declared) {
        return known_at(declared, concrete, true);
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
    prop_oneof![1 => null, 1 => unknown, 6 => known_at(declared, concrete, strict)].boxed()
}

fn known_at(declared: Type, concrete: Option<Type>, strict: bool) -> BoxedStrategy<Value> {
    match &declared {
        Type::String => text().prop_map(Value::string).boxed(),
        Type::Number => number().prop_map(Value::number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::bool).boxed(),
        Type::Dynamic => value_at(declared, concrete, strict),
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
            element_type
                .prop_flat_map(move |c| {
                    let items =
                        prop::collection::vec(value_at(e.clone(), Some(c), elem_strict), min..4);
                    // Distinct keys, so that a map has as many entries as items.
                    let keys = prop::collection::btree_set(text(), 4)
                        .prop_map(|k| k.into_iter().collect::<Vec<_>>());
                    (items, keys)
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
                .map(|(t, c)| value_at(t.clone(), c, strict))
                .collect::<Vec<_>>()
                .prop_map(Value::tuple)
                .boxed()
        }
        Type::Object(o) => {
            let attrs: Vec<BoxedStrategy<Value>> = o
                .attributes()
                .map(|(n, t)| {
                    let c = concrete.as_ref().and_then(|c| c.attribute_type(n)).cloned();
                    value_at(t.clone(), c, strict)
                })
                .collect();
            let names: Vec<String> = o.attributes().map(|(n, _)| n.to_string()).collect();
            attrs
                .prop_map(move |vals| Value::object(names.iter().cloned().zip(vals)))
                .boxed()
        }
    }
}

fn typed_value() -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(|t| (Just(t.clone()), value(t)))
}

fn holds_negative_zero(v: &Value) -> bool {
    v.as_number()
        .is_some_and(|n| n.is_negative() && n.to_i64() == Some(0))
        || v.elements()
            .is_some_and(|e| e.iter().any(holds_negative_zero))
        || v.entries()
            .is_some_and(|mut e| e.any(|(_, x)| holds_negative_zero(x)))
        || v.attributes()
            .is_some_and(|mut a| a.any(|(_, x)| holds_negative_zero(x)))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn msgpack_round_trip_is_the_identity((ty, v) in typed_value()) {
        let bytes = msgpack::encode(&v, &ty).unwrap();
        let back = msgpack::decode(&bytes, &ty).unwrap();
        prop_assert_eq!(&back, &v, "bytes {:02x?}", bytes);
    }

    #[test]
    fn json_round_trip_is_the_identity_for_wholly_known_values((ty, v) in typed_value()) {
        prop_assume!(v.is_wholly_known());
        let text = match json::encode(&v, &ty) {
            Ok(t) => t,
            // Infinity has no JSON form; that is the only refusal expected.
            Err(e) => { prop_assert_eq!(e.message(), "cannot serialize infinity as JSON"); return Ok(()); }
        };
        let back = json::decode(&text, &ty).unwrap();
        prop_assert_eq!(&back, &v, "json {}", String::from_utf8_lossy(&text));
        prop_assert_eq!(json::encode(&back, &ty).unwrap(), text);
    }

    #[test]
    fn encoding_is_deterministic((ty, v) in typed_value()) {
        prop_assert_eq!(msgpack::encode(&v, &ty).unwrap(), msgpack::encode(&v.clone(), &ty).unwrap());
        if v.is_wholly_known() {
            prop_assert_eq!(json::encode(&v, &ty).ok(), json::encode(&v.clone(), &ty).ok());
        }
    }

    #[test]
    fn canonical_bytes_re_encode_to_themselves((ty, v) in typed_value()) {
        let bytes = msgpack::encode(&v, &ty).unwrap();
        let again = msgpack::encode(&msgpack::decode(&bytes, &ty).unwrap(), &ty).unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn set_order_does_not_depend_on_insertion_order(
        (ety, items) in concrete_type().prop_flat_map(|t| (Just(t.clone()), prop::collection::vec(known(t), 0..8))),
        seed in any::<u64>(),
    ) {
        prop_assume!(items.iter().all(Value::is_wholly_known));
        prop_assume!(!items.iter().any(holds_negative_zero));
        let mut shuffled = items.clone();
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let a = Value::set(ety.clone(), items).unwrap();
        let b = Value::set(ety.clone(), shuffled).unwrap();
        prop_assert_eq!(msgpack::encode(&a, a.ty()).unwrap(), msgpack::encode(&b, b.ty()).unwrap());
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_errors_carry_a_message(ty in arb_type(), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Err(e) = msgpack::decode(&bytes, &ty) {
            prop_assert!(!e.message().is_empty());
        }
        if let Err(e) = json::decode(&bytes, &ty) {
            prop_assert!(!e.message().is_empty());
        }
    }

    #[test]
    fn type_json_round_trips(ty in arb_type()) {
        prop_assert_eq!(Type::parse(&ty.to_json()).unwrap(), ty);
    }
}

#[test]
fn negative_zero_loses_its_sign_in_msgpack_as_in_go_cty() {
    // The one known way msgpack is not the identity: -0 is written as the
    // integer 0, so a set holding both becomes a set holding one.
    let s = Value::set(
        Type::Number,
        vec![
            Value::number("-0".parse::<Number>().unwrap()),
            Value::number(0),
        ],
    )
    .unwrap();
    let bytes = msgpack::encode(&s, s.ty()).unwrap();
    assert_eq!(bytes, [0x92, 0x00, 0x00]);
    assert_eq!(msgpack::decode(&bytes, s.ty()).unwrap().len(), Some(1));
    assert!(holds_negative_zero(&s));
}
