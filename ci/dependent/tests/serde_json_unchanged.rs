//! serde_json behaves in a program depending on ctywire exactly as it does
//! without it. Each of these broke when ctywire turned on serde_json's
//! `arbitrary_precision` (numbers inside buffered enums) or
//! `preserve_order` (object member order).

use serde::Deserialize;
use serde_json::json;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "kind")]
enum Shape {
    Circle { r: f64 },
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum Either {
    Num(f64),
    Text(String),
}

#[test]
fn an_internally_tagged_enum_reads_a_float() {
    let s: Shape = serde_json::from_str(r#"{"kind":"Circle","r":2.5}"#).unwrap();
    assert_eq!(s, Shape::Circle { r: 2.5 });
}

#[test]
fn an_untagged_enum_reads_a_float() {
    let e: Either = serde_json::from_str("2.5").unwrap();
    assert_eq!(e, Either::Num(2.5));
    let e: Either = serde_json::from_value(json!("x")).unwrap();
    assert_eq!(e, Either::Text("x".into()));
}

#[test]
fn json_objects_print_with_sorted_keys() {
    assert_eq!(json!({"b": 1, "a": 2}).to_string(), r#"{"a":2,"b":1}"#);
}

#[test]
fn from_value_errors_read_as_before() {
    let err = serde_json::from_value::<u8>(json!(2.5)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: floating point `2.5`, expected u8"
    );
}

#[test]
fn numbers_are_plain_f64_and_integers() {
    let v: serde_json::Value = serde_json::from_str("[1.50, 12345678901234567890123]").unwrap();
    assert_eq!(v.to_string(), "[1.5,1.2345678901234568e+22]");
}

#[test]
fn ctywire_itself_still_works() {
    let ty = ctywire::Type::parse(r#"["list","number"]"#).unwrap();
    let v = ctywire::json::decode(b"[1.50]", &ty).unwrap();
    assert_eq!(ctywire::json::encode(&v, &ty).unwrap(), b"[1.5]");
}
