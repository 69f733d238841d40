//! Shared by the property tests and the fuzz targets (included by path).

use ctywire::{Type, Value};

/// Whether a negative zero appears anywhere: msgpack writes it as 0 (as
/// go-cty does), so a set holding -0 and 0 has one element fewer after a
/// round trip. The only value that msgpack does not carry exactly.
pub fn holds_negative_zero(v: &Value) -> bool {
    v.as_number()
        .is_some_and(|n| n.is_negative() && n.to_i64() == Some(0))
        || v.elements()
            .is_some_and(|e| e.iter().any(holds_negative_zero))
        || v.entries()
            .is_some_and(|mut e| e.any(|(_, x)| holds_negative_zero(x)))
        || v.attributes()
            .is_some_and(|mut a| a.any(|(_, x)| holds_negative_zero(x)))
}

/// `v` as msgpack carries it: every negative zero made 0, and sets built
/// again, so that those it made equal merge.
pub fn without_negative_zero(v: &Value) -> Value {
    if !holds_negative_zero(v) {
        return v.clone();
    }
    if v.as_number().is_some() {
        return Value::number(0);
    }
    if let Some(attrs) = v.attributes() {
        return Value::object(attrs.map(|(n, a)| (n, without_negative_zero(a))));
    }
    if let Some(entries) = v.entries() {
        let Type::Map(e) = v.ty() else {
            unreachable!("only maps have entries")
        };
        return Value::map(
            (**e).clone(),
            entries.map(|(k, a)| (k, without_negative_zero(a))),
        )
        .unwrap();
    }
    let elems: Vec<Value> = v
        .elements()
        .expect("a negative zero inside")
        .iter()
        .map(without_negative_zero)
        .collect();
    match v.ty() {
        Type::List(e) => Value::list((**e).clone(), elems).unwrap(),
        Type::Set(e) => Value::set((**e).clone(), elems).unwrap(),
        _ => Value::tuple(elems),
    }
}
