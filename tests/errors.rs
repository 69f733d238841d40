//! Errors say what is wrong, where: one convention for both formats.
//! An error's offset is where the offending element starts (the first
//! byte of a value, or of a key for key errors), except for malformed text
//! inside a string, which is reported at the offending byte.

use ctywire::{json, msgpack, Type, Value};

fn ty(json: &str) -> Type {
    Type::parse(json).unwrap()
}

#[test]
fn broken_utf8_is_reported_at_the_offending_byte_in_both_formats() {
    let m = msgpack::decode(&[0xa3, b'a', 0xff, b'b'], &Type::String).unwrap_err();
    let j = json::decode(b"\"a\xffb\"", &Type::String).unwrap_err();
    for err in [&m, &j] {
        assert_eq!(err.message(), "string is not valid UTF-8");
        assert_eq!(err.offset(), Some(2));
    }
}

#[test]
fn an_unsupported_attribute_is_reported_at_its_key_in_both_formats() {
    let t = ty(r#"["object",{"a":"number"}]"#);
    let m = msgpack::decode(&[0x81, 0xa1, b'z', 0x01], &t).unwrap_err();
    let j = json::decode(br#"{"z":1}"#, &t).unwrap_err();
    for err in [&m, &j] {
        assert_eq!(err.message(), r#"unsupported attribute "z""#);
        assert_eq!(err.offset(), Some(1));
    }
}

#[test]
fn bytes_after_the_value_are_counted_in_english() {
    let one = msgpack::decode(&[0x01, 0x02], &Type::Number).unwrap_err();
    assert_eq!(one.message(), "1 byte after the msgpack value");
    assert_eq!(one.offset(), Some(1));
    let three = msgpack::decode(&[0x01, 0x02, 0x03, 0x04], &Type::Number).unwrap_err();
    assert_eq!(three.message(), "3 bytes after the msgpack value");
    let j = json::decode(b"1 2", &Type::Number).unwrap_err();
    assert_eq!(j.message(), "1 byte after the JSON value");
    assert_eq!(j.offset(), Some(2));
}

#[test]
fn json_syntax_errors_name_the_character() {
    let err = json::decode(b"nulL", &Type::String).unwrap_err();
    assert_eq!(
        err.message(),
        "invalid character 'L' in literal null (expecting 'l')"
    );
    assert_eq!(err.offset(), Some(3));
    let err = json::decode(b"[-x]", &ty(r#"["list","number"]"#)).unwrap_err();
    assert_eq!(err.message(), "invalid character 'x' in numeric literal");
    assert_eq!(err.offset(), Some(2));
    let err = json::decode(b"1.e5", &Type::Number).unwrap_err();
    assert_eq!(
        err.message(),
        "invalid character 'e' after decimal point in numeric literal"
    );
}

#[test]
fn a_bad_json_map_key_says_it_is_a_key_at_the_maps_path() {
    let t = ty(r#"["object",{"tags":["map","string"]}]"#);
    let err = json::decode(br#"{"tags":{"ok":"1","b\u12x":"2"}}"#, &t).unwrap_err();
    assert!(err.message().starts_with("invalid object key: "), "{err}");
    assert_eq!(err.path().to_string(), ".tags");
}

#[test]
fn a_list_of_objects_names_the_missing_attribute_at_its_index() {
    let rule_type = ty(r#"["object",{"port":"number","note":"string"}]"#);
    let short = Value::object([("port", Value::number(80))]);
    let err = Value::list(rule_type, vec![short.clone()]).unwrap_err();
    assert_eq!(err.to_string(), r#"[0]: attribute "note" is missing"#);
    // Elements that disagree with each other: the second names what differs.
    let long = Value::object([("port", Value::number(80)), ("x", Value::bool(true))]);
    let err = Value::list(Type::Dynamic, vec![long, short]).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"[1]: inconsistent list element types (compared with the first element): attribute "x" is missing"#
    );
}

#[test]
fn a_type_with_a_misspelt_kind_names_it_and_the_valid_ones() {
    let err = Type::parse(r#"["lst","string"]"#).unwrap_err();
    assert_eq!(
        err.message(),
        r#"invalid complex type kind name "lst"; the kinds are "list", "set", "map", "object" and "tuple""#
    );
}

#[test]
fn a_negative_length_lower_bound_says_nothing_as_in_go_cty() {
    // ext 0x0c, payload {5: -3}: go-cty keeps the tighter bound, 0.
    let bytes = [0xc7, 0x03, 0x0c, 0x81, 0x05, 0xfd];
    let t = ty(r#"["list","string"]"#);
    let v = msgpack::decode(&bytes, &t).unwrap();
    assert!(!v.is_known());
    assert_eq!(v.refinements(), None);
    assert_eq!(msgpack::encode(&v, &t).unwrap(), [0xd4, 0x00, 0x00]);
    // A negative upper bound contradicts every length: refused.
    let upper = [0xc7, 0x03, 0x0c, 0x81, 0x06, 0xfd];
    assert!(msgpack::decode(&upper, &t).is_err());
}

#[test]
fn a_dynamic_wrapper_with_an_invalid_type_before_a_valid_one_is_refused_as_go_cty_does() {
    // go-cty parses each "type" member as it meets it; the last one would
    // count, but an invalid one before it is already an error.
    let text = r#"[{"value":5,"type":"nope","type":"number"}]"#;
    let err = json::decode(text.as_bytes(), &ty(r#"["list","dynamic"]"#)).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"[0]: invalid type in dynamic value: invalid primitive type name "nope"; the primitive types are "string", "number", "bool" and "dynamic""#
    );
    assert_eq!(err.offset(), Some(19));
    // The other way round, and two valid ones, as before: the last counts.
    let text = r#"{"value":5,"type":"number","type":"nope"}"#;
    assert!(json::decode(text.as_bytes(), &Type::Dynamic).is_err());
    let text = r#"{"value":5,"type":"string","type":"number"}"#;
    let v = json::decode(text.as_bytes(), &Type::Dynamic).unwrap();
    assert_eq!(v.ty(), &Type::Number);
}

#[test]
fn an_invalid_dynamic_type_is_reported_where_the_type_starts_in_both_formats() {
    let j = json::decode(br#"{"value":5,"type":"nope"}"#, &Type::Dynamic).unwrap_err();
    assert_eq!(j.offset(), Some(18));
    // [bin "nope", 5]: the type's bin header at 1.
    let m = msgpack::decode(
        &[0x92, 0xc4, 0x06, b'"', b'n', b'o', b'p', b'e', b'"', 0x05],
        &Type::Dynamic,
    )
    .unwrap_err();
    assert_eq!(m.offset(), Some(1));
    for err in [&j, &m] {
        assert!(
            err.message().starts_with("invalid type in dynamic value: "),
            "{err}"
        );
    }
}
