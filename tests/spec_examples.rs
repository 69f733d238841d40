//! The byte sequences go-cty was observed to produce (the wire-format
//! spec's verified examples), as behaviour: value in, exact bytes out.

mod support;

use ctywire::{json, msgpack, Bound, Category, Number, Refinements, Type, Value};
use support::{hex, ty, unhex};

fn mp(v: &Value, t: &Type) -> String {
    hex(&msgpack::encode(v, t).unwrap())
}

fn num(s: &str) -> Value {
    Value::number(s.parse::<Number>().unwrap())
}

fn float(f: f64) -> Value {
    Value::number(Number::from_f64(f).unwrap())
}

fn ascii_hex(s: &str) -> String {
    hex(s.as_bytes())
}

#[test]
fn integers_use_the_smallest_form_with_unsigned_family_for_positives() {
    let n = Type::Number;
    for (v, want) in [
        ("128", "cc80"),
        ("256", "cd0100"),
        ("65536", "ce00010000"),
        ("4294967296", "cf0000000100000000"),
        ("-33", "d0df"),
        ("-129", "d1ff7f"),
        ("-32769", "d2ffff7fff"),
        ("-2147483649", "d3ffffffff7fffffff"),
        ("9223372036854775807", "cf7fffffffffffffff"),
        ("-0", "00"),
        ("100.000", "64"),
        ("1p3", "08"),
    ] {
        assert_eq!(mp(&num(v), &n), want, "{v}");
    }
    assert_eq!(mp(&float(-0.0), &n), "00");
}

#[test]
fn numbers_outside_int64_and_inexact_decimals_are_written_as_text() {
    let n = Type::Number;
    assert_eq!(
        mp(&num("9223372036854775808"), &n),
        format!("b3{}", ascii_hex("9223372036854775808"))
    );
    assert_eq!(
        mp(&num("-9223372036854775809"), &n),
        format!("b4{}", ascii_hex("-9223372036854775809"))
    );
    assert_eq!(
        mp(&num("18446744073709551616"), &n),
        format!("b4{}", ascii_hex("18446744073709551616"))
    );
    assert_eq!(mp(&num("0.1"), &n), "a3302e31");
    assert_eq!(
        mp(&num("1e20"), &n),
        format!("b5{}", ascii_hex("100000000000000000000"))
    );
    assert_eq!(
        mp(&float(1e20), &n),
        format!("b5{}", ascii_hex("100000000000000000000"))
    );
    assert_eq!(
        mp(&num("1e-400"), &n),
        format!("da0192{}", ascii_hex(&format!("0.{}1", "0".repeat(399))))
    );
}

#[test]
fn binary_fractions_are_written_as_float64_whatever_their_provenance() {
    let n = Type::Number;
    assert_eq!(mp(&float(0.1), &n), "cb3fb999999999999a");
    assert_eq!(mp(&num("0.5"), &n), "cb3fe0000000000000");
    assert_eq!(
        mp(&Value::number(Number::infinity(false)), &n),
        "cb7ff0000000000000"
    );
    assert_eq!(
        mp(&Value::number(Number::infinity(true)), &n),
        "cbfff0000000000000"
    );
}

#[test]
fn strings_are_nfc_with_the_smallest_str_header() {
    let s = Type::String;
    assert_eq!(mp(&Value::string("e\u{301}"), &s), "a2c3a9");
    assert!(mp(&Value::string("x".repeat(32)), &s).starts_with("d920"));
    assert!(mp(&Value::string("x".repeat(256)), &s).starts_with("da0100"));
    assert_eq!(
        mp(&Value::number(5), &s),
        "a135",
        "cty converts a number to a string"
    );
}

#[test]
fn dynamic_values_carry_their_type_in_band_unless_it_is_unknown() {
    let d = Type::Dynamic;
    assert_eq!(mp(&Value::string("hi"), &d), "92c40822737472696e6722a26869");
    assert_eq!(
        mp(&Value::null(Type::String), &d),
        "92c40822737472696e6722c0"
    );
    assert_eq!(
        mp(&Value::unknown(Type::String), &d),
        "92c40822737472696e6722d40000"
    );
    assert_eq!(
        mp(&Value::unknown(Type::list(Type::String)), &d),
        "92c4115b226c697374222c22737472696e67225dd40000"
    );
    assert_eq!(mp(&Value::number(300), &d), "92c408226e756d62657222cd012c");
    let obj = Value::object([("b", Value::bool(true)), ("a", Value::number(1))]);
    assert_eq!(
        mp(&obj, &d),
        format!(
            "92c424{}82a16101a162c3",
            ascii_hex(r#"["object",{"a":"number","b":"bool"}]"#)
        )
    );
    assert_eq!(mp(&Value::unknown(Type::Dynamic), &d), "d40000");
    assert_eq!(mp(&Value::null(Type::Dynamic), &d), "c0");
    let l = Value::list(Type::Dynamic, vec![Value::unknown(Type::Dynamic)]).unwrap();
    assert_eq!(mp(&l, &ty(r#"["list","dynamic"]"#)), "91d40000");
    let l = Value::list(Type::Dynamic, vec![Value::string("x")]).unwrap();
    assert_eq!(
        mp(&l, &ty(r#"["list","dynamic"]"#)),
        "9192c40822737472696e6722a178"
    );
    let o = Value::object([(
        "a",
        Value::list(Type::Number, vec![Value::number(1)]).unwrap(),
    )]);
    assert_eq!(
        mp(&o, &ty(r#"["object",{"a":"dynamic"}]"#)),
        "81a16192c4115b226c697374222c226e756d626572225d9101"
    );
}

/// A msgpack str: fixstr up to 31 bytes, str8 beyond.
fn mp_str(out: &mut Vec<u8>, s: &str) {
    if s.len() <= 31 {
        out.push(0xa0 | s.len() as u8);
    } else {
        out.extend([0xd9, s.len() as u8]);
    }
    out.extend_from_slice(s.as_bytes());
}

#[test]
fn maps_of_strings_read_alike_whatever_form_each_entry_takes() {
    // Short ASCII entries are read together; every other form (a long or
    // non-ASCII key or value, a null, an unknown) and the order, repeats
    // and normalization of keys are the general path's. Entries mixed.
    let (short, long) = ("s".repeat(31), "l".repeat(32));
    let mut b = vec![0x89];
    for (k, v) in [("b", "x"), ("a", short.as_str()), ("c", long.as_str())] {
        mp_str(&mut b, k);
        mp_str(&mut b, v);
    }
    mp_str(&mut b, "e\u{301}"); // NFD: becomes "é"
    mp_str(&mut b, "v");
    mp_str(&mut b, "d");
    mp_str(&mut b, "ü");
    mp_str(&mut b, "n");
    b.push(0xc0);
    mp_str(&mut b, "u");
    b.extend([0xd4, 0x00, 0x00]);
    mp_str(&mut b, "a"); // repeated: the last wins
    mp_str(&mut b, "last");
    mp_str(&mut b, &long);
    mp_str(&mut b, "k");
    let got = msgpack::decode(&b, &Type::map(Type::String)).unwrap();
    let want = Value::map(
        Type::String,
        [
            ("a", Value::string("last")),
            ("b", Value::string("x")),
            ("c", Value::string(long.as_str())),
            ("d", Value::string("ü")),
            ("n", Value::null(Type::String)),
            ("u", Value::unknown(Type::String)),
            ("é", Value::string("v")),
            (long.as_str(), Value::string("k")),
        ],
    )
    .unwrap();
    assert_eq!(got, want);
    assert_eq!(got.entries().unwrap().count(), 8);
    // The same entries in order, as go-cty writes them, read the same.
    let again = msgpack::decode(&msgpack::encode(&want, want.ty()).unwrap(), want.ty()).unwrap();
    assert_eq!(again, want);
}

#[test]
fn maps_and_objects_are_written_with_sorted_keys() {
    let m = Value::map(
        Type::Number,
        [
            ("b", Value::number(2)),
            ("a", Value::number(1)),
            ("B", Value::number(3)),
        ],
    )
    .unwrap();
    assert_eq!(mp(&m, &ty(r#"["map","number"]"#)), "83a14203a16101a16202");
    let o = Value::object([("b", Value::number(2)), ("a", Value::number(1))]);
    assert_eq!(mp(&o, o.ty()), "82a16101a16202");
    let list16 = Value::list(Type::Number, (0..16).map(Value::number).collect()).unwrap();
    assert!(mp(&list16, list16.ty()).starts_with("dc0010"));
    let map17 = Value::map(
        Type::Number,
        (0..17).map(|i| (format!("k{i:02}"), Value::number(i))),
    )
    .unwrap();
    assert!(mp(&map17, map17.ty()).starts_with("de0011"));
}

fn refined(t: Type, r: Refinements) -> Value {
    Value::unknown(t).refined(r).unwrap()
}

fn bound(v: &str, inclusive: bool) -> Option<Bound> {
    Some(Bound {
        value: v.parse().unwrap(),
        inclusive,
    })
}

#[test]
fn refinements_are_written_as_ext_12_in_key_order() {
    let not_null = Refinements {
        not_null: true,
        ..Default::default()
    };
    assert_eq!(
        mp(&refined(Type::String, not_null.clone()), &Type::String),
        "c7030c8101c2"
    );
    assert_eq!(
        mp(&refined(Type::Bool, not_null.clone()), &Type::Bool),
        "c7030c8101c2"
    );
    let prefix = |p: &str, not_null| Refinements {
        not_null,
        string_prefix: Some(p.into()),
        ..Default::default()
    };
    assert_eq!(
        mp(&refined(Type::String, prefix("a", false)), &Type::String),
        "d60c8102a161"
    );
    assert_eq!(
        mp(&refined(Type::String, prefix("ab:", true)), &Type::String),
        "d70c8201c202a361623a"
    );

    let n = Type::Number;
    let r = Refinements {
        lower: bound("0", true),
        ..Default::default()
    };
    assert_eq!(mp(&refined(n.clone(), r), &n), "c7050c81039200c3");
    let r = Refinements {
        not_null: true,
        lower: bound("0", false),
        upper: bound("10", true),
        ..Default::default()
    };
    assert_eq!(
        mp(&refined(n.clone(), r), &n),
        "c70b0c8301c2039200c204920ac3"
    );
    let r = Refinements {
        not_null: true,
        lower: bound("0.5", true),
        upper: bound("1e30", false),
        ..Default::default()
    };
    assert_eq!(
        mp(&refined(n.clone(), r), &n),
        format!(
            "c7320c8301c20392cb3fe0000000000000c30492bf31{}c2",
            "30".repeat(30)
        )
    );
    let r = Refinements {
        lower: bound("1", false),
        ..Default::default()
    };
    assert_eq!(mp(&refined(n.clone(), r), &n), "c7050c81039201c2");
    assert_eq!(mp(&Value::unknown(n.clone()), &n), "d40000");

    let len = |min, max| Refinements {
        not_null: true,
        length_min: min,
        length_max: max,
        ..Default::default()
    };
    let l = ty(r#"["list","string"]"#);
    assert_eq!(
        mp(&refined(l.clone(), len(1, Some(5))), &l),
        "c7070c8301c205010605"
    );
    assert_eq!(
        mp(&refined(l.clone(), len(2, Some(2))), &l),
        "92d40000d40000"
    );
    assert_eq!(mp(&refined(l.clone(), len(0, Some(0))), &l), "90");
    let s = ty(r#"["set","string"]"#);
    let r = Refinements {
        length_min: 2,
        ..Default::default()
    };
    assert_eq!(mp(&refined(s.clone(), r), &s), "c7030c810502");
    let m = ty(r#"["map","string"]"#);
    let r = Refinements {
        length_max: Some(3),
        ..Default::default()
    };
    assert_eq!(mp(&refined(m.clone(), r), &m), "c7030c810603");

    assert_eq!(
        mp(&refined(Type::String, not_null), &Type::Dynamic),
        "92c40822737472696e6722c7030c8101c2"
    );
}

#[test]
fn long_prefixes_are_shortened_to_a_safe_prefix_under_256_bytes() {
    let p = format!("{}:", "x".repeat(300));
    let v = refined(
        Type::String,
        Refinements {
            string_prefix: Some(p),
            ..Default::default()
        },
    );
    assert_eq!(
        mp(&v, &Type::String),
        format!("c801020c8102d9fe{}", "78".repeat(254))
    );
}

#[test]
fn sets_come_out_in_canonical_order() {
    let set = |t: Type, items: Vec<Value>| Value::set(t, items).unwrap();
    let s = set(
        Type::String,
        vec![Value::string("c"), Value::string("a"), Value::string("B")],
    );
    assert_eq!(mp(&s, s.ty()), "93a142a161a163");
    let s = set(
        Type::Number,
        vec![num("10"), num("9"), num("-1"), num("0.5")],
    );
    assert_eq!(mp(&s, s.ty()), "94ffcb3fe0000000000000090a");
    let prefix = |p: &str| {
        refined(
            Type::String,
            Refinements {
                string_prefix: Some(p.into()),
                ..Default::default()
            },
        )
    };
    let s = set(
        Type::String,
        vec![
            prefix("b"),
            prefix("a"),
            Value::unknown(Type::String),
            Value::string("z"),
        ],
    );
    assert_eq!(mp(&s, s.ty()), "94a17ad60c8102a162d60c8102a161d40000");
    let s = set(
        Type::String,
        vec![
            Value::null(Type::String),
            Value::unknown(Type::String),
            Value::string("z"),
            Value::string("a"),
        ],
    );
    assert_eq!(mp(&s, s.ty()), "94a161a17ad40000c0");
    let s = set(Type::Number, vec![num("0"), num("-0")]);
    assert_eq!(mp(&s, s.ty()), "920000");
    assert_eq!(json::encode(&s, s.ty()).unwrap(), b"[-0,0]");

    let lt = ty(r#"["list","number"]"#);
    let list = |items: &[i64]| {
        Value::list(
            Type::Number,
            items.iter().map(|&i| Value::number(i)).collect(),
        )
        .unwrap()
    };
    let s = set(lt, vec![list(&[10]), list(&[9]), list(&[1, 2])]);
    assert_eq!(mp(&s, s.ty()), "93910a9201029109");
    let obj = |a: Value, b: i64| Value::object([("a", a), ("b", Value::number(b))]);
    let ot = ty(r#"["object",{"a":"string","b":"number"}]"#);
    let s = set(
        ot,
        vec![
            obj(Value::string("z"), 1),
            obj(Value::string("y"), 2),
            obj(Value::null(Type::String), 2),
        ],
    );
    let order: Vec<String> = s
        .elements()
        .unwrap()
        .iter()
        .map(|e| e.attr("a").unwrap().to_string())
        .collect();
    assert_eq!(order, ["\"y\"", "\"z\"", "null"]);
}

#[test]
fn json_output_is_compact_sorted_and_escaped_like_go() {
    let o = Value::object([
        ("b", Value::bool(true)),
        ("a", Value::number(1)),
        ("<", Value::string("x")),
    ]);
    assert_eq!(
        json::encode(&o, o.ty()).unwrap(),
        br#"{"\u003c":"x","a":1,"b":true}"#
    );
    assert_eq!(
        json::encode(&Value::string("\u{8}\u{c}\u{1}<"), &Type::String).unwrap(),
        br#""\b\f\u0001\u003c""#
    );
    assert_eq!(
        json::encode(&Value::null(Type::String), &Type::Dynamic).unwrap(),
        br#"{"value":null,"type":"string"}"#
    );
    assert_eq!(json::encode(&num("-0"), &Type::Number).unwrap(), b"-0");
    assert_eq!(
        json::encode(&float(2f64.powi(70)), &Type::Number).unwrap(),
        b"1180591620717411303424"
    );
    let err = json::encode(&Value::number(Number::infinity(false)), &Type::Number).unwrap_err();
    assert_eq!(err.message(), "cannot serialize infinity as JSON");
    let err = json::encode(&Value::unknown(Type::String), &Type::String).unwrap_err();
    assert_eq!(
        (err.category(), err.message()),
        (Category::Unrepresentable, "value is not known")
    );
}

#[test]
fn json_decoding_is_as_lenient_as_go_cty() {
    let d = |text: &str, t: &str| json::decode(text.as_bytes(), &ty(t));
    assert_eq!(
        d(r#"{"value":1,"type":"string"}"#, r#""dynamic""#).unwrap(),
        Value::string("1")
    );
    assert_eq!(
        d(
            r#"{"type":["list","number"],"value":[1,2]}"#,
            r#""dynamic""#
        )
        .unwrap(),
        Value::list(Type::Number, vec![Value::number(1), Value::number(2)]).unwrap()
    );
    assert_eq!(d(r#""12""#, r#""number""#).unwrap(), Value::number(12));
    assert_eq!(
        d("true", r#""number""#).unwrap_err().message(),
        "a number is required"
    );
    assert_eq!(d(r#""1""#, r#""bool""#).unwrap(), Value::bool(true));
    assert!(d(r#""TRUE""#, r#""bool""#)
        .unwrap_err()
        .message()
        .contains(r#"use lowercase "true""#));
    assert_eq!(d("1.50", r#""string""#).unwrap(), Value::string("1.50"));
    assert_eq!(d("1E+3", r#""string""#).unwrap(), Value::string("1E+3"));
    let ab = r#"["object",{"a":"string","b":"number"}]"#;
    assert_eq!(
        d(r#"{"a":"x","c":1}"#, ab).unwrap_err().to_string(),
        r#"unsupported attribute "c""#
    );
    assert!(d("{}", ab)
        .unwrap()
        .attributes()
        .unwrap()
        .all(|(_, v)| v.is_null()));
    let t = r#"["tuple",["string","number"]]"#;
    assert_eq!(
        d(r#"["a"]"#, t).unwrap_err().message(),
        "a tuple of 2 elements is required (1 given)"
    );
    assert_eq!(
        d(r#"["a",1,2]"#, t).unwrap_err().message(),
        "a tuple of 2 elements is required (more given)"
    );
    let err = d(r#"["a",[]]"#, r#"["set","string"]"#).unwrap_err();
    assert_eq!(err.to_string(), "[1]: a string is required");
    assert!(
        d("{\"e\\u0301\":\"x\"}", r#"["object",{"é":"string"}]"#).is_err(),
        "lookups are not normalized"
    );
    assert_eq!(
        d(r#"{"value":null,"type":"string"}"#, r#""dynamic""#).unwrap(),
        Value::null(Type::String)
    );
    assert_eq!(
        d("null", r#""dynamic""#).unwrap(),
        Value::null(Type::Dynamic)
    );
}

#[test]
fn msgpack_decoding_accepts_what_go_cty_accepts() {
    let d = |h: &str, t: &str| msgpack::decode(&unhex(h), &ty(t));
    let big = d("cfffffffffffffffff", r#""number""#).unwrap();
    assert_eq!(big.to_string(), "18446744073709551615");
    assert_eq!(
        mp(&big, &Type::Number),
        format!("b4{}", ascii_hex("18446744073709551615"))
    );
    let f32 = d("ca3dcccccd", r#""number""#).unwrap();
    assert_eq!(f32.to_string(), "0.10000000149011612");
    assert_eq!(mp(&f32, &Type::Number), "cb3fb99999a0000000");
    assert_eq!(d("c4023132", r#""number""#).unwrap(), Value::number(12));
    assert!(d("a3496e66", r#""number""#)
        .unwrap()
        .as_number()
        .unwrap()
        .is_infinite());
    assert_eq!(d("c4026869", r#""string""#).unwrap(), Value::string("hi"));
    for unknown in ["d40500", "d40c00", "c70000"] {
        assert!(!d(unknown, r#""string""#).unwrap().is_known(), "{unknown}");
    }
    assert_eq!(
        d("c7030c8101c3", r#""string""#).unwrap(),
        Value::null(Type::String)
    );
    let three = d("c7070c8301c205030603", r#"["list","string"]"#).unwrap();
    assert_eq!(three.elements().unwrap().len(), 3);
    assert_eq!(
        d("c7030c8101c2", r#""dynamic""#).unwrap(),
        Value::unknown(Type::Dynamic)
    );
    assert_eq!(
        d("92a822737472696e6722a26869", r#""dynamic""#).unwrap(),
        Value::string("hi"),
        "type JSON as str"
    );
    assert_eq!(
        d("93a162a161a162", r#"["set","string"]"#).unwrap().len(),
        Some(2)
    );
    assert_eq!(d("92c0c0", r#"["set","string"]"#).unwrap().len(), Some(1));
    assert_eq!(
        d("dc0001a161", r#"["list","string"]"#).unwrap().len(),
        Some(1)
    );
}

#[test]
fn where_go_cty_crashes_or_builds_the_wrong_type_ctywire_returns_an_error() {
    let d = |h: &str, t: &str| msgpack::decode(&unhex(h), &ty(t)).unwrap_err();
    assert!(d("cb7ff8000000000001", r#""number""#)
        .message()
        .contains("NaN"));
    assert!(d("c7090c82039205c3049201c3", r#""number""#)
        .message()
        .contains("greater than"));
    let mixed = d(
        "9292c40822737472696e6722a16192c408226e756d6265722201",
        r#"["list","dynamic"]"#,
    );
    assert!(
        mixed.message().contains("inconsistent list element types"),
        "{mixed}"
    );
    assert_eq!(
        d("80", r#"["object",{"a":"string","b":"number"}]"#).message(),
        r#"an object with 2 attributes is required (0 given): missing attributes "a", "b""#
    );
    assert_eq!(
        d("90", r#"["tuple",["string","number"]]"#).message(),
        "a tuple of 2 elements is required (0 given)"
    );
    assert_eq!(
        d(
            "82a161a178a161a179",
            r#"["object",{"a":"string","b":"number"}]"#
        )
        .message(),
        r#"duplicate attribute "a""#
    );
    assert_eq!(
        d("810501", r#"["map","number"]"#).message(),
        "a key must be a string"
    );
    assert_eq!(
        d("a16101020304", r#""string""#).category(),
        Category::Syntax
    );
    assert_eq!(d("", r#""string""#).category(), Category::Eof);
    let oversize = format!("c804010c{}", "00".repeat(1025));
    assert_eq!(
        d(&oversize, r#""string""#).message(),
        "oversize unknown value refinement"
    );
    assert!(d("c7030c810502", r#""string""#)
        .message()
        .contains("length bound refinement for non-collection type"));
    assert!(d("c7050c82070101c2", r#""string""#)
        .message()
        .contains("null refinement is not boolean"));
    assert!(d("d5000000", r#""string""#)
        .message()
        .contains("unsupported extension type 0x00 with len 2"));
}

#[test]
fn one_bad_element_is_reported_at_its_path_in_both_formats() {
    let t = ty(r#"["object",{"a":["list",["object",{"m":["map","number"]}]]}]"#);
    let from_json = json::decode(br#"{"a":[{"m":{"k":"x"}}]}"#, &t).unwrap_err();
    assert_eq!(
        from_json.to_string(),
        r#".a[0].m["k"]: a number is required"#
    );
    let bytes = unhex("81a1619181a16d81a16ba178");
    let from_msgpack = msgpack::decode(&bytes, &t).unwrap_err();
    assert_eq!(
        from_msgpack.to_string(),
        r#".a[0].m["k"]: a number is required"#
    );
    assert_eq!(from_msgpack.offset(), Some(bytes.len() - 2));
}

#[test]
fn an_object_is_written_as_another_object_type_by_go_cty_conversion() {
    let v = Value::object([("a", Value::string("x"))]);
    // A type built on its own, not the value's: equal names suffice.
    let same = ty(r#"["object",{"a":"string"}]"#);
    assert_eq!(mp(&v, &same), "81a161a178");
    assert_eq!(json::encode(&v, &same).unwrap(), br#"{"a":"x"}"#);
    // An attribute the type has and the value lacks is named, at its path.
    for (other, missing) in [
        (
            r#"["object",{"b":"string"}]"#,
            r#"attribute "b" is missing"#,
        ),
        (
            r#"["object",{"a":"string","b":"string","c":"number"}]"#,
            r#"attributes "b" and "c" are missing"#,
        ),
    ] {
        let other = ty(other);
        let err = msgpack::encode(&v, &other).unwrap_err();
        assert_eq!(err.message(), missing);
        assert_eq!(json::encode(&v, &other).unwrap_err().message(), missing);
    }
    let nested = Value::object([(
        "rule",
        Value::list(v.ty().clone(), vec![v.clone()]).unwrap(),
    )]);
    let err = msgpack::encode(
        &nested,
        &ty(r#"["object",{"rule":["list",["object",{"a":"string","note":"string"}]]}]"#),
    )
    .unwrap_err();
    assert_eq!(err.to_string(), r#".rule[0]: attribute "note" is missing"#);
    // An optional attribute may be absent: it is written as null.
    let optional = ty(r#"["object",{"a":"string","b":"string"},["b"]]"#);
    assert_eq!(mp(&v, &optional), "82a161a178a162c0");
    // An attribute the type lacks is dropped, as go-cty's Marshal drops it.
    let wide = Value::object([("a", Value::string("x")), ("z", Value::bool(true))]);
    assert_eq!(mp(&wide, &same), "81a161a178");
    assert_eq!(json::encode(&wide, &same).unwrap(), br#"{"a":"x"}"#);
}
