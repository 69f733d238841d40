//! `Value::convert` and the encoders that convert first, pinned to what
//! go-cty 1.12.1 answers for the same inputs (its `convert.Convert` and
//! `msgpack.Marshal`, asked through a small Go program over the same
//! lines; the answers are copied here). Inputs are built by decoding the
//! value JSON at its type; results are compared as go-cty prints them:
//! the JSON of the converted value at `dynamic`, and the msgpack bytes of
//! the unconverted value marshalled at the wanted type.

use ctywire::{json, msgpack, Type, Value};

type Case = (
    &'static str,
    &'static str,
    &'static str,
    Option<GoCtyAnswer>,
);
type GoCtyAnswer = (&'static str, &'static str);

/// (value type, value JSON, wanted type, go-cty's answer: the converted
/// value as dynamic JSON and the msgpack of the original at the wanted
/// type, or `None` where go-cty refuses).
#[rustfmt::skip]
const GO_CTY: &[Case] = &[
    (r#""string""#, r#""1""#, r#""bool""#, Some((r#"{"value":true,"type":"bool"}"#, "c3"))),
    (r#""string""#, r#""0""#, r#""bool""#, Some((r#"{"value":false,"type":"bool"}"#, "c2"))),
    (r#""string""#, r#""True""#, r#""bool""#, None), // go-cty: a bool is required; to convert from string, use lowercase "true"
    (r#""string""#, r#""yes""#, r#""bool""#, None), // go-cty: a bool is required
    (r#""string""#, r#""1e3""#, r#""number""#, Some((r#"{"value":1000,"type":"number"}"#, "cd03e8"))),
    (r#""string""#, r#"" 12""#, r#""number""#, None), // go-cty: a number is required
    (r#""string""#, r#""0x10""#, r#""number""#, None), // go-cty: a number is required
    (r#""number""#, r#"1.5"#, r#""string""#, Some((r#"{"value":"1.5","type":"string"}"#, "a3312e35"))),
    (r#""number""#, r#"100000000000000000000"#, r#""string""#, Some((r#"{"value":"100000000000000000000","type":"string"}"#, "b5313030303030303030303030303030303030303030"))),
    (r#""bool""#, r#"true"#, r#""string""#, Some((r#"{"value":"true","type":"string"}"#, "a474727565"))),
    (r#""bool""#, r#"true"#, r#""number""#, None), // go-cty: number required
    (r#""number""#, r#"1"#, r#""bool""#, None), // go-cty: bool required
    (r#"["tuple",["string","number"]]"#, r#"["1",2]"#, r#"["list","number"]"#, Some((r#"{"value":[1,2],"type":["list","number"]}"#, "920102"))),
    (r#"["tuple",["string","number"]]"#, r#"["a",2]"#, r#"["list","string"]"#, Some((r#"{"value":["a","2"],"type":["list","string"]}"#, "92a161a132"))),
    (r#"["tuple",["string","number"]]"#, r#"["a",2]"#, r#"["list","dynamic"]"#, Some((r#"{"value":["a","2"],"type":["list","string"]}"#, "9292c40822737472696e6722a16192c40822737472696e6722a132"))),
    (r#"["tuple",["string","bool"]]"#, r#"["a",true]"#, r#"["set","dynamic"]"#, Some((r#"{"value":["a","true"],"type":["set","string"]}"#, "9292c40822737472696e6722a16192c40822737472696e6722a474727565"))),
    (r#"["tuple",["number","bool"]]"#, r#"[1,true]"#, r#"["list","dynamic"]"#, None), // go-cty: all list elements must have the same type
    (r#"["tuple",["string","string"]]"#, r#"["b","a"]"#, r#"["set","string"]"#, Some((r#"{"value":["a","b"],"type":["set","string"]}"#, "92a161a162"))),
    (r#"["list","string"]"#, r#"["b","a","b"]"#, r#"["set","string"]"#, Some((r#"{"value":["a","b"],"type":["set","string"]}"#, "92a161a162"))),
    (r#"["set","string"]"#, r#"["b","a"]"#, r#"["list","string"]"#, Some((r#"{"value":["a","b"],"type":["list","string"]}"#, "92a161a162"))),
    (r#"["list","string"]"#, r#"["1"]"#, r#"["tuple",["number"]]"#, None), // go-cty: tuple required
    (r#"["object",{"a":"number","b":"string"}]"#, r#"{"a":1,"b":"x"}"#, r#"["map","string"]"#, Some((r#"{"value":{"a":"1","b":"x"},"type":["map","string"]}"#, "82a161a131a162a178"))),
    (r#"["object",{"a":"number","b":"bool"}]"#, r#"{"a":1,"b":true}"#, r#"["map","dynamic"]"#, None), // go-cty: all map elements must have the same type
    (r#"["map","string"]"#, r#"{"a":"1"}"#, r#"["object",{"a":"number"}]"#, Some((r#"{"value":{"a":1},"type":["object",{"a":"number"}]}"#, "81a16101"))),
    (r#"["map","string"]"#, r#"{"a":"1","z":"2"}"#, r#"["object",{"a":"number"}]"#, Some((r#"{"value":{"a":1},"type":["object",{"a":"number"}]}"#, "81a16101"))),
    (r#"["map","string"]"#, r#"{}"#, r#"["object",{"a":"number"}]"#, None), // go-cty: map has no element for required attribute "a"
    (r#"["map","string"]"#, r#"{}"#, r#"["object",{"a":"number"},["a"]]"#, Some((r#"{"value":{"a":null},"type":["object",{"a":"number"}]}"#, "81a161c0"))),
    (r#"["object",{"a":"string"}]"#, r#"{"a":"x"}"#, r#"["object",{"a":"string","note":"string"}]"#, None), // go-cty: attribute "note" is required
    (r#"["object",{"a":"string"}]"#, r#"{"a":"x"}"#, r#"["object",{"a":"string","note":"string"},["note"]]"#, Some((r#"{"value":{"a":"x","note":null},"type":["object",{"a":"string","note":"string"}]}"#, "82a161a178a46e6f7465c0"))),
    (r#"["object",{"a":"string","z":"bool"}]"#, r#"{"a":"x","z":true}"#, r#"["object",{"a":"string"}]"#, Some((r#"{"value":{"a":"x"},"type":["object",{"a":"string"}]}"#, "81a161a178"))),
    (r#"["list",["object",{"a":"string"}]]"#, r#"[]"#, r#"["list",["object",{"a":"string","note":"string"}]]"#, None), // go-cty: incorrect list element type: attribute "note" is required
    (r#"["list","string"]"#, r#"null"#, r#"["list","number"]"#, Some((r#"{"value":null,"type":["list","number"]}"#, "c0"))),
    (r#""string""#, r#"null"#, r#""bool""#, Some((r#"{"value":null,"type":"bool"}"#, "c0"))),
    (r#""number""#, r#"null"#, r#""bool""#, None), // go-cty: bool required
    (r#"["list","string"]"#, r#"["1",null]"#, r#"["list","number"]"#, Some((r#"{"value":[1,null],"type":["list","number"]}"#, "9201c0"))),
    (r#""string""#, r#""x""#, r#""dynamic""#, Some((r#"{"value":"x","type":"string"}"#, "92c40822737472696e6722a178"))),
    (r#"["list","string"]"#, r#"["x"]"#, r#"["list","dynamic"]"#, Some((r#"{"value":["x"],"type":["list","string"]}"#, "9192c40822737472696e6722a178"))),
    (r#""dynamic""#, r#"{"value":"5","type":"string"}"#, r#""number""#, Some((r#"{"value":5,"type":"number"}"#, "05"))),
    (r#"["list","number"]"#, r#"[1]"#, r#""string""#, None), // go-cty: string required
    (r#"["tuple",[]]"#, r#"[]"#, r#"["list","string"]"#, Some((r#"{"value":[],"type":["list","string"]}"#, "90"))),
    (r#"["tuple",[]]"#, r#"[]"#, r#"["list","dynamic"]"#, Some((r#"{"value":[],"type":["list","dynamic"]}"#, "90"))),
    (r#"["object",{}]"#, r#"{}"#, r#"["map","dynamic"]"#, Some((r#"{"value":{},"type":["map","dynamic"]}"#, "80"))),
];

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn conversions_agree_with_go_cty() {
    for &(ty, value, want, expect) in GO_CTY {
        let ty = Type::parse(ty).unwrap();
        let want = Type::parse(want).unwrap();
        let v = json::decode(value.as_bytes(), &ty).unwrap();
        let case = format!("{value} as {want:?}");
        match expect {
            Some((converted, bytes)) => {
                let c = v.convert(&want).unwrap_or_else(|e| panic!("{case}: {e}"));
                let shown = json::encode(&c, &Type::Dynamic).unwrap();
                assert_eq!(String::from_utf8(shown).unwrap(), converted, "{case}");
                let written = msgpack::encode(&v, &want).unwrap();
                assert_eq!(hex(&written), bytes, "{case}");
            }
            None => {
                let err = v.convert(&want).expect_err(&case);
                // Both encoders refuse with the conversion's own error.
                assert_eq!(msgpack::encode(&v, &want).unwrap_err(), err, "{case}");
                assert_eq!(json::encode(&v, &want).unwrap_err(), err, "{case}");
            }
        }
    }
}

#[test]
fn the_string_one_is_true_everywhere_a_bool_is_read_or_written() {
    let one = Value::string("1");
    assert_eq!(one.convert(&Type::Bool).unwrap(), Value::bool(true));
    assert_eq!(msgpack::encode(&one, &Type::Bool).unwrap(), [0xc3]);
    assert_eq!(json::encode(&one, &Type::Bool).unwrap(), b"true");
    assert_eq!(
        json::decode(br#""1""#, &Type::Bool).unwrap(),
        Value::bool(true)
    );
    let msg = Value::string("True").convert(&Type::Bool).unwrap_err();
    assert_eq!(
        msg.message(),
        r#"a bool is required; to convert from string, use lowercase "true""#
    );
    assert_eq!(
        json::decode(br#""True""#, &Type::Bool)
            .unwrap_err()
            .message(),
        msg.message()
    );
}

#[test]
fn a_missing_attribute_is_named_at_its_path() {
    let rule = Value::object([("port", Value::number(80))]);
    let config = Value::object([(
        "rule",
        Value::list(rule.ty().clone(), vec![rule.clone(), rule]).unwrap(),
    )]);
    let want =
        Type::parse(r#"["object",{"rule":["list",["object",{"port":"number","note":"string"}]]}]"#)
            .unwrap();
    for err in [
        config.convert(&want).unwrap_err(),
        msgpack::encode(&config, &want).unwrap_err(),
        json::encode(&config, &want).unwrap_err(),
    ] {
        assert_eq!(err.to_string(), r#".rule[0]: attribute "note" is missing"#);
    }
}

#[test]
fn nulls_and_unknowns_keep_their_place_at_the_new_type() {
    let v = Value::tuple(vec![
        Value::string("1"),
        Value::null(Type::String),
        Value::unknown(Type::String),
    ]);
    let c = v.convert(&Type::list(Type::Number)).unwrap();
    let elems = c.elements().unwrap();
    assert_eq!(elems[0], Value::number(1));
    assert_eq!(elems[1], Value::null(Type::Number));
    assert_eq!(elems[2], Value::unknown(Type::Number));
}

#[test]
fn an_unknown_keeps_the_refinements_that_still_hold() {
    let r = ctywire::Refinements {
        not_null: true,
        length_min: 2,
        length_max: Some(5),
        ..Default::default()
    };
    let v = Value::unknown(Type::list(Type::String)).refined(r).unwrap();
    let as_list = v.convert(&Type::list(Type::Number)).unwrap();
    let kept = as_list.refinements().unwrap();
    assert!(kept.not_null);
    assert_eq!((kept.length_min, kept.length_max), (2, Some(5)));
    // Elements may merge in a set: only "at least one" still holds.
    let as_set = v.convert(&Type::set(Type::String)).unwrap();
    let kept = as_set.refinements().unwrap();
    assert_eq!((kept.length_min, kept.length_max), (1, Some(5)));
}

#[test]
fn a_value_that_conforms_is_returned_as_it_is() {
    let v = Value::list(Type::String, vec![Value::string("a")]).unwrap();
    assert_eq!(v.convert(&Type::list(Type::String)).unwrap(), v);
    assert_eq!(v.convert(&Type::Dynamic).unwrap(), v);
    assert_eq!(v.convert(&Type::list(Type::Dynamic)).unwrap(), v);
}
