//! Property tests for typed values: for generated types and values, bytes
//! read into a Rust shape and written back are the same bytes, and the
//! typed entry points agree with the `Value` ones.

use std::collections::BTreeMap;

use ctywire::{from_value, json, msgpack, to_value, Number, Type, Unknowable, Value};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

mod support;
use support::{concrete_type, text, typed_value, value};

#[path = "support/negative_zero.rs"]
mod negative_zero;
use negative_zero::without_negative_zero;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        ..ProptestConfig::default()
    }
}

/// Any of the three states.
type Any<T> = Unknowable<Option<T>>;

#[derive(Serialize, Deserialize, Debug)]
struct LooseRule {
    port: Any<Number>,
    note: Any<String>,
}

/// A struct with a field for every kind of type, each taking all three
/// states, so that every generated value of [`loose_type`] fits it.
#[derive(Serialize, Deserialize, Debug)]
struct Loose {
    name: Any<String>,
    size: Any<Number>,
    flag: Any<bool>,
    tags: Any<BTreeMap<String, Any<String>>>,
    ports: Any<Vec<Any<Number>>>,
    rule: Any<Vec<Any<LooseRule>>>,
    pair: Any<(Any<String>, Any<Number>)>,
    extra: Value,
}

fn loose_type() -> Type {
    Type::parse(
        r#"["object",{"name":"string","size":"number","flag":"bool","tags":["map","string"],
        "ports":["set","number"],"rule":["list",["object",{"port":"number","note":"string"}]],
        "pair":["tuple",["string","number"]],"extra":"dynamic"}]"#,
    )
    .unwrap()
}

/// `v` with every unknown made a null: JSON has no unknowns.
fn without_unknowns(v: &Value) -> Value {
    if !v.is_known() {
        return Value::null(v.ty().clone());
    }
    if let Some(attrs) = v.attributes() {
        return Value::object(attrs.map(|(n, a)| (n, without_unknowns(a))));
    }
    if let Some(entries) = v.entries() {
        let Type::Map(e) = v.ty() else {
            unreachable!("only maps have entries")
        };
        return Value::map(
            (**e).clone(),
            entries.map(|(k, a)| (k, without_unknowns(a))),
        )
        .unwrap();
    }
    let Some(elems) = v.elements() else {
        return v.clone();
    };
    let elems: Vec<Value> = elems.iter().map(without_unknowns).collect();
    match v.ty() {
        Type::List(e) => Value::list((**e).clone(), elems).unwrap(),
        Type::Set(e) => Value::set((**e).clone(), elems).unwrap(),
        _ => Value::tuple(elems),
    }
}

/// Values to write as a set of `ety`: in any order, some of them twice.
fn elements_in_any_order(ety: Type) -> impl Strategy<Value = Vec<Value>> {
    (
        prop::collection::vec(value(ety), 0..6),
        prop::collection::vec(any::<prop::sample::Index>(), 0..3),
    )
        .prop_map(|(mut elems, again)| {
            if !elems.is_empty() {
                for i in again {
                    elems.push(elems[i.index(elems.len())].clone());
                }
            }
            elems
        })
        .prop_shuffle()
}

/// A map written entry by entry in the given order, repeats included, as a
/// `HashMap` or a hand-written `Serialize` may.
struct Entries<V>(Vec<(String, V)>);

impl<V: Serialize> Serialize for Entries<V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize, Debug, Clone)]
struct Member {
    a: Option<String>,
    n: Option<f64>,
    t: Option<BTreeMap<String, String>>,
}

fn member() -> impl Strategy<Value = Option<Member>> {
    prop::option::weighted(
        0.9,
        (
            prop::option::of(prop_oneof![Just("x".to_string()), text()]),
            prop::option::of(prop_oneof![Just(0.5), Just(-0.0), Just(0.0), any::<f64>()]),
            prop::option::of(prop::collection::btree_map("[ab]", "[ab]{0,1}", 0..3)),
        )
            .prop_map(|(a, n, t)| Member { a, n, t }),
    )
}

/// `to_vec` and `to_value` + `encode` on the same input, in msgpack and in
/// JSON: the same bytes, or the same error.
fn agree<T: Serialize + ?Sized>(t: &T, ty: &Type) -> Result<(), TestCaseError> {
    match (msgpack::to_vec(t, ty), to_value(t, ty)) {
        (Ok(direct), Ok(v)) => prop_assert_eq!(direct, msgpack::encode(&v, ty).unwrap()),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
        (a, b) => prop_assert!(false, "to_vec {:?}, to_value {:?}", a, b),
    }
    json_agrees(t, ty)
}

/// `json::to_vec`, which streams, and the plain path it stands for,
/// `json::encode(&to_value(..)?, ..)`: the same text, or the same error.
/// (Sets come out in cty's order and unknowns are refused on both.)
fn json_agrees<T: Serialize + ?Sized>(t: &T, ty: &Type) -> Result<(), TestCaseError> {
    let plain = to_value(t, ty).and_then(|v| json::encode(&v, ty));
    match (json::to_vec(t, ty), plain) {
        (Ok(direct), Ok(plain)) => prop_assert_eq!(
            String::from_utf8_lossy(&direct),
            String::from_utf8_lossy(&plain)
        ),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
        (a, b) => prop_assert!(false, "json::to_vec {:?}, encode(to_value) {:?}", a, b),
    }
    // Appended, with the buffer as it was on an error.
    let mut out = b"[".to_vec();
    match json::to_vec_into(&mut out, t, ty) {
        Ok(()) => prop_assert_eq!(&out[1..], &json::to_vec(t, ty).unwrap()[..]),
        Err(_) => prop_assert_eq!(&out[..], b"["),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sets_written_in_any_order_come_out_as_encode_writes_them(
        (ety, elems) in concrete_type().prop_flat_map(|t| (Just(t.clone()), elements_in_any_order(t)))
    ) {
        agree(&elems, &Type::set(ety))?;
    }

    #[test]
    fn sets_written_in_their_order_or_one_swap_from_it_come_out_as_encode_writes_them(
        (ety, elems, swap) in concrete_type().prop_flat_map(|t| (
            Just(t.clone()),
            prop::collection::vec(value(t), 0..8),
            any::<prop::sample::Index>(),
        ))
    ) {
        let ty = Type::set(ety.clone());
        let set = Value::set(ety, elems).unwrap();
        let mut elems = set.elements().unwrap().to_vec();
        agree(&elems, &ty)?;
        if elems.len() >= 2 {
            let i = swap.index(elems.len() - 1);
            elems.swap(i, i + 1);
            agree(&elems, &ty)?;
        }
    }

    #[test]
    fn sets_of_rust_values_in_any_order_come_out_as_encode_writes_them(
        strings in prop::collection::vec(prop::option::of(text()), 0..8),
        floats in prop::collection::vec(prop::option::of(prop_oneof![Just(0.1), Just(-0.0), any::<f64>()]), 0..8),
        members in prop::collection::vec(member(), 0..8),
    ) {
        agree(&strings, &Type::set(Type::String))?;
        agree(&floats, &Type::set(Type::Number))?;
        let ty = Type::parse(r#"["set",["object",{"a":"string","n":"number","t":["map","string"]}]]"#).unwrap();
        let twice: Vec<Option<Member>> = members.iter().chain(&members).cloned().collect();
        agree(&members, &ty)?;
        agree(&twice, &ty)?;
    }

    #[test]
    fn sets_read_in_any_order_come_out_as_decode_reads_them(
        (ety, elems) in concrete_type().prop_flat_map(|t| (Just(t.clone()), elements_in_any_order(t)))
    ) {
        // A list's bytes are a set's, in the list's order.
        let bytes = msgpack::encode(&Value::list(ety.clone(), elems).unwrap(), &Type::list(ety.clone())).unwrap();
        let ty = Type::set(ety);
        let direct = msgpack::from_slice::<Vec<Value>>(&bytes, &ty);
        let plain = msgpack::decode(&bytes, &ty).and_then(|v| from_value::<Vec<Value>>(&v));
        match (direct, plain) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "from_slice {:?}, decode {:?}", a, b),
        }
    }

    #[test]
    fn sets_in_set_elements_read_in_any_order_come_out_as_decode_reads_them(
        inner in prop::collection::vec(prop::collection::vec("[ab]", 0..3), 0..4),
    ) {
        // Lists' bytes are sets' too: the inner sets come in any order.
        let as_list = Type::list(Type::object([("s", Type::list(Type::String))]));
        let elems = inner.iter().map(|s| {
            Value::object([("s", Value::list(Type::String, s.iter().map(|x| Value::string(x.as_str())).collect()).unwrap())])
        });
        let bytes = msgpack::encode(&Value::list(Type::object([("s", Type::list(Type::String))]), elems.collect()).unwrap(), &as_list).unwrap();
        let ty = Type::set(Type::object([("s", Type::set(Type::String))]));
        let direct = msgpack::from_slice::<Vec<Value>>(&bytes, &ty).unwrap();
        let plain = from_value::<Vec<Value>>(&msgpack::decode(&bytes, &ty).unwrap()).unwrap();
        prop_assert_eq!(direct, plain);
        // And sets of sets.
        let lists = inner.iter().map(|s| {
            Value::list(Type::String, s.iter().map(|x| Value::string(x.as_str())).collect()).unwrap()
        });
        let bytes = msgpack::encode(&Value::list(Type::list(Type::String), lists.collect()).unwrap(), &Type::list(Type::list(Type::String))).unwrap();
        let ty = Type::set(Type::set(Type::String));
        let direct = msgpack::from_slice::<Vec<Value>>(&bytes, &ty).unwrap();
        let plain = from_value::<Vec<Value>>(&msgpack::decode(&bytes, &ty).unwrap()).unwrap();
        prop_assert_eq!(direct, plain);
    }

    #[test]
    fn maps_written_in_any_order_come_out_as_encode_writes_them(
        (ety, entries) in concrete_type().prop_flat_map(|t| (
            Just(t.clone()),
            prop::collection::vec((prop_oneof![Just("k".to_string()), text()], value(t)), 0..6),
        ))
    ) {
        agree(&Entries(entries), &Type::map(ety))?;
    }

    #[test]
    fn bytes_into_a_struct_and_back_are_the_same_bytes(v in value(loose_type())) {
        let ty = loose_type();
        // As msgpack carries it: a set holding -0 and 0 is written (by
        // go-cty too) with 0 twice, bytes no set is written as.
        let v = without_negative_zero(&v);
        let bytes = msgpack::encode(&v, &ty).unwrap();
        let t: Any<Loose> = msgpack::from_slice(&bytes, &ty).unwrap();
        let again = msgpack::to_vec(&t, &ty).unwrap();
        prop_assert_eq!(&again, &bytes);
        prop_assert_eq!(&again, &msgpack::encode(&to_value(&t, &ty).unwrap(), &ty).unwrap());
        let via_value: Any<Loose> = from_value(&msgpack::decode(&bytes, &ty).unwrap()).unwrap();
        prop_assert_eq!(msgpack::to_vec(&via_value, &ty).unwrap(), bytes);
    }

    #[test]
    fn json_to_vec_streams_what_encode_writes_for_to_value(v in value(loose_type())) {
        // Structs (fields in their own order, not the type's), maps, lists,
        // sets, tuples, the three states and a dynamic `Value`, unknowns
        // included (refused on both paths).
        let ty = loose_type();
        let bytes = msgpack::encode(&without_negative_zero(&v), &ty).unwrap();
        let t: Any<Loose> = msgpack::from_slice(&bytes, &ty).unwrap();
        for at in [ty.clone(), Type::Dynamic, Type::map(Type::String), Type::list(ty.clone())] {
            // At other types: converted, or refused, alike.
            json_agrees(&t, &at)?;
        }
        // And a `Value` handed over whole.
        json_agrees(&without_unknowns(&msgpack::decode(&bytes, &ty).unwrap()), &ty)?;
    }

    #[test]
    fn json_into_a_struct_and_back_is_the_same_text(v in value(loose_type())) {
        let ty = loose_type();
        let v = without_unknowns(&v);
        let Ok(text) = json::encode(&v, &ty) else { return Ok(()); };
        let t: Any<Loose> = json::from_slice(&text, &ty).unwrap();
        prop_assert_eq!(json::to_vec(&t, &ty).unwrap(), text);
    }

    #[test]
    fn from_slice_agrees_with_decode_and_to_vec_with_encode((ty, v) in typed_value()) {
        // As msgpack carries it: a set holding -0 and 0 is written (by
        // go-cty too) with 0 twice, bytes no set is written as.
        let v = without_negative_zero(&v);
        let bytes = msgpack::encode(&v, &ty).unwrap();
        let direct: Value = msgpack::from_slice(&bytes, &ty).unwrap();
        let decoded = msgpack::decode(&bytes, &ty).unwrap();
        prop_assert_eq!(&direct, &from_value::<Value>(&decoded).unwrap());
        prop_assert_eq!(&direct, &decoded);
        prop_assert_eq!(msgpack::to_vec(&direct, &ty).unwrap(), bytes);
        prop_assert_eq!(to_value(&direct, &ty).unwrap(), v);
    }

    #[test]
    fn from_slice_accepts_and_refuses_what_decode_and_from_value_do(
        v in value(loose_type()),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        as_json in any::<bool>(),
    ) {
        let ty = loose_type();
        let mut bytes = if as_json {
            match json::encode(&without_unknowns(&v), &ty) { Ok(t) => t, Err(_) => return Ok(()) }
        } else {
            msgpack::encode(&v, &ty).unwrap()
        };
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let (direct, plain) = if as_json {
            (
                json::from_slice::<Any<Loose>>(&bytes, &ty).map(|t| json::to_vec(&t, &ty)),
                json::decode(&bytes, &ty).and_then(|v| from_value::<Any<Loose>>(&v)).map(|t| json::to_vec(&t, &ty)),
            )
        } else {
            (
                msgpack::from_slice::<Any<Loose>>(&bytes, &ty).map(|t| msgpack::to_vec(&t, &ty)),
                msgpack::decode(&bytes, &ty).and_then(|v| from_value::<Any<Loose>>(&v)).map(|t| msgpack::to_vec(&t, &ty)),
            )
        };
        match (direct, plain) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.category(), b.category(), "{} vs {}", a, b),
            // The one deliberate difference: JSON may repeat an attribute
            // (decode lets the last win); straight into a struct it is refused.
            (Err(a), Ok(_)) if as_json && a.message().starts_with("duplicate attribute") => {}
            (a, b) => prop_assert!(false, "direct {:?}, via decode {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
}
