//! Typed values: serde types in and out of cty, one test per rule of the
//! typed layer and per refusal, each asserting the path it reports.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ctywire::{
    from_value, json, msgpack, to_value, Bound, Category, DecodeOptions, IgnoredAttributes, Number,
    Path, PathStep, Refinements, Type, Unknowable, Value,
};
use serde::{Deserialize, Serialize};

mod support;
use support::ty;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Rule {
    port: u16,
    note: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Thing {
    name: String,
    size: Option<i64>,
    tags: BTreeMap<String, String>,
    ports: BTreeSet<u16>,
    id: Unknowable<String>,
    rule: Vec<Rule>,
    extra: Value,
}

fn thing_type() -> Type {
    ty(
        r#"["object",{"name":"string","size":"number","tags":["map","string"],
        "ports":["set","number"],"id":"string",
        "rule":["list",["object",{"port":"number","note":"string"}]],"extra":"dynamic"}]"#,
    )
}

fn thing() -> Thing {
    Thing {
        name: "web".into(),
        size: None,
        tags: [("env".to_string(), "prod".to_string())].into(),
        ports: [443, 80].into(),
        id: Unknowable::Unknown(Refinements {
            not_null: true,
            string_prefix: Some("i-".into()),
            ..Default::default()
        }),
        rule: vec![
            Rule {
                port: 22,
                note: Some("ssh".into()),
            },
            Rule {
                port: 80,
                note: None,
            },
        ],
        extra: Value::tuple(vec![Value::string("x"), Value::number(1)]),
    }
}

fn thing_value() -> Value {
    let rule_ty = ty(r#"["object",{"port":"number","note":"string"}]"#);
    Value::object([
        ("name", Value::string("web")),
        ("size", Value::null(Type::Number)),
        (
            "tags",
            Value::map(Type::String, [("env", Value::string("prod"))]).unwrap(),
        ),
        (
            "ports",
            Value::set(Type::Number, vec![Value::number(80), Value::number(443)]).unwrap(),
        ),
        (
            "id",
            Value::unknown(Type::String)
                .refined(Refinements {
                    not_null: true,
                    string_prefix: Some("i-".into()),
                    ..Default::default()
                })
                .unwrap(),
        ),
        (
            "rule",
            Value::list(
                rule_ty,
                vec![
                    Value::object([("port", Value::number(22)), ("note", Value::string("ssh"))]),
                    Value::object([
                        ("port", Value::number(80)),
                        ("note", Value::null(Type::String)),
                    ]),
                ],
            )
            .unwrap(),
        ),
        (
            "extra",
            Value::tuple(vec![Value::string("x"), Value::number(1)]),
        ),
    ])
}

#[test]
fn the_issue_workflow_goes_through_all_six_entry_points() {
    let ty = thing_type();
    let value = to_value(&thing(), &ty).unwrap();
    assert_eq!(value, thing_value());
    assert_eq!(from_value::<Thing>(&value).unwrap(), thing());

    let bytes = msgpack::to_vec(&thing(), &ty).unwrap();
    assert_eq!(bytes, msgpack::encode(&value, &ty).unwrap());
    assert_eq!(msgpack::from_slice::<Thing>(&bytes, &ty).unwrap(), thing());

    // JSON has no unknowns: a known id.
    let mut known = thing();
    known.id = Unknowable::Known("i-1".into());
    let text = json::to_vec(&known, &ty).unwrap();
    assert_eq!(
        text,
        json::encode(&to_value(&known, &ty).unwrap(), &ty).unwrap()
    );
    assert_eq!(json::from_slice::<Thing>(&text, &ty).unwrap(), known);
}

#[test]
fn a_plain_field_that_receives_an_unknown_names_the_wrapper() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Plain {
        id: String,
    }
    let v = Value::object([("id", Value::unknown(Type::String))]);
    let err = from_value::<Plain>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), ".id");
    assert!(err.message().contains("Unknowable"), "{err}");
}

#[test]
fn an_option_field_that_receives_an_unknown_names_unknowable_of_option() {
    let v = Value::object([("note", Value::unknown(Type::String))]);
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Noted {
        note: Option<String>,
    }
    let err = from_value::<Noted>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), ".note");
    assert!(err.message().contains("Unknowable<Option<T>>"), "{err}");
}

#[test]
fn a_plain_field_that_receives_a_null_names_option() {
    let mut v = thing_value();
    v = v.with_attr("name", Value::null(Type::String)).unwrap();
    let err = from_value::<Thing>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), ".name");
    assert!(err.message().contains("Option<T>"), "{err}");
}

#[test]
fn option_takes_null_in_both_directions() {
    let ty = ty(r#"["object",{"size":"number"}]"#);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Sized {
        size: Option<i64>,
    }
    let v = to_value(&Sized { size: None }, &ty).unwrap();
    assert_eq!(v, Value::object([("size", Value::null(Type::Number))]));
    assert_eq!(from_value::<Sized>(&v).unwrap(), Sized { size: None });
}

#[test]
fn unknowable_of_option_takes_all_three_states() {
    let ty = Type::list(Type::String);
    let v = Value::list(
        Type::String,
        vec![
            Value::string("a"),
            Value::null(Type::String),
            Value::unknown(Type::String),
        ],
    )
    .unwrap();
    let got: Vec<Unknowable<Option<String>>> = from_value(&v).unwrap();
    assert_eq!(
        got,
        [
            Unknowable::Known(Some("a".into())),
            Unknowable::Known(None),
            Unknowable::unknown()
        ]
    );
    assert_eq!(to_value(&got, &ty).unwrap(), v);
}

#[test]
fn an_unknown_keeps_its_refinements_both_ways() {
    let bound = |n: i64| {
        Some(Bound {
            value: n.into(),
            inclusive: true,
        })
    };
    let r = Refinements {
        not_null: true,
        lower: bound(1),
        upper: bound(10),
        ..Default::default()
    };
    let v = Value::unknown(Type::Number).refined(r.clone()).unwrap();
    let got: Unknowable<u8> = from_value(&v).unwrap();
    assert_eq!(got, Unknowable::Unknown(r));
    let bytes = msgpack::to_vec(&got, &Type::Number).unwrap();
    assert_eq!(bytes, msgpack::encode(&v, &Type::Number).unwrap());
    assert_eq!(msgpack::decode(&bytes, &Type::Number).unwrap(), v);
}

#[test]
fn an_unknown_has_no_json_form_and_says_where() {
    let mut t = thing();
    t.rule.clear();
    let err = json::to_vec(&t, &thing_type()).unwrap_err();
    assert_eq!(err.category(), Category::Unrepresentable);
    assert_eq!(err.path().to_string(), ".id");
}

#[test]
fn integers_are_taken_only_when_exact() {
    let two_64: Number = "18446744073709551616".parse().unwrap();
    let err = from_value::<u64>(&Value::number(two_64.clone())).unwrap_err();
    assert!(err.message().contains("range of u64"), "{err}");
    assert_eq!(
        from_value::<u128>(&Value::number(two_64)).unwrap(),
        1u128 << 64
    );
    let half: Number = "1.5".parse().unwrap();
    let err = from_value::<Vec<i64>>(&Value::tuple(vec![Value::number(1), Value::number(half)]))
        .unwrap_err();
    assert_eq!(err.to_string(), "[1]: an integer is required (got 1.5)");
    let err = from_value::<u8>(&Value::number(-1)).unwrap_err();
    assert!(err.message().contains("range of u8"), "{err}");
    assert_eq!(
        from_value::<i128>(&Value::number(i64::MIN)).unwrap(),
        i128::from(i64::MIN)
    );
}

#[test]
fn a_number_that_does_not_fit_names_its_nested_path() {
    let mut v = thing_value();
    let rules = v.attr("rule").unwrap().elements().unwrap().to_vec();
    let bad = rules[1].with_attr("port", Value::number(70000)).unwrap();
    let rule_ty = rules[0].ty().clone();
    v = v
        .with_attr(
            "rule",
            Value::list(rule_ty, vec![rules[0].clone(), bad]).unwrap(),
        )
        .unwrap();
    let err = from_value::<Thing>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), ".rule[1].port");
}

#[test]
fn a_string_where_a_number_belongs_is_an_error_at_its_path_from_bytes() {
    let ty = thing_type();
    let mut t = thing();
    t.rule[1].note = Some("x".into());
    let mut v = to_value(&t, &ty).unwrap();
    // Make rule[1].port a string by writing it under a type that says so.
    let loose = ty
        .to_json()
        .replace(r#""port":"number""#, r#""port":"string""#);
    let loose = Type::parse(&loose).unwrap();
    v = v.convert(&loose).unwrap();
    let rules = v.attr("rule").unwrap().elements().unwrap().to_vec();
    let bad = rules[1].with_attr("port", Value::string("eighty")).unwrap();
    v = v
        .with_attr(
            "rule",
            Value::list(rules[0].ty().clone(), vec![rules[0].clone(), bad]).unwrap(),
        )
        .unwrap();
    let bytes = msgpack::encode(&v, &loose).unwrap();
    let err = msgpack::from_slice::<Thing>(&bytes, &ty).unwrap_err();
    assert_eq!(err.to_string(), ".rule[1].port: a number is required");
}

#[test]
fn floats_take_the_nearest_value_and_are_written_as_go_cty_writes_a_float64() {
    let tenth: Number = "0.1".parse().unwrap();
    assert_eq!(from_value::<f64>(&Value::number(tenth)).unwrap(), 0.1);
    let bytes = msgpack::to_vec(&0.1f64, &Type::Number).unwrap();
    // go-cty writes a float64-sourced 0.1 as a msgpack float64.
    assert_eq!(bytes[0], 0xcb);
    assert_eq!(f64::from_be_bytes(bytes[1..].try_into().unwrap()), 0.1);
    assert_eq!(msgpack::to_vec(&2.0f64, &Type::Number).unwrap(), [0x02]);
    let err = to_value(&[f64::NAN], &Type::list(Type::Number)).unwrap_err();
    assert_eq!(err.path().to_string(), "[0]");
}

#[test]
fn number_and_string_fields_carry_any_number_exactly() {
    let text = "123456789012345678901234567890.000000000000000000001";
    let n: Number = text.parse().unwrap();
    let v = Value::object([("a", Value::number(n.clone())), ("b", Value::number(n))]);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Exact {
        a: Number,
        b: String,
    }
    let e: Exact = from_value(&v).unwrap();
    assert_eq!(e.a.to_string(), text);
    assert_eq!(e.b, text);
    let ty = ty(r#"["object",{"a":"number","b":"number"}]"#);
    assert_eq!(to_value(&e, &ty).unwrap(), v);
}

#[test]
fn a_number_of_every_form_passes_through_every_path_as_it_is_held() {
    // Each form writes differently (int, float64, text, -0's sign kept in
    // JSON and in sets), so each must arrive as it was: held as i64 or
    // float64, or handed over in band as an exact u64, f64 or text.
    let forms: Vec<Number> = vec![
        Number::from_i64(-7),
        Number::from_f64(0.1).unwrap(),
        Number::from_f64(-0.0).unwrap(),
        Number::infinity(false),
        Number::infinity(true),
        "0.5".parse().unwrap(),
        "0.1".parse().unwrap(),
        "-2.25".parse().unwrap(),
        "18446744073709551615".parse().unwrap(),
        "18446744073709551616".parse().unwrap(),
        "-9223372036854775809".parse().unwrap(),
        "1e300".parse().unwrap(),
        "1e400".parse().unwrap(),
    ];
    for n in forms {
        let v = Value::number(n.clone());
        let bytes = msgpack::encode(&v, &Type::Number).unwrap();
        assert_eq!(msgpack::to_vec(&n, &Type::Number).unwrap(), bytes, "{n}");
        assert_eq!(to_value(&n, &Type::Number).unwrap(), v, "{n}");
        assert_eq!(
            to_value(&n, &Type::String).unwrap(),
            Value::string(n.to_string()),
            "{n}"
        );
        let back: Number = from_value(&v).unwrap();
        assert_eq!(
            msgpack::encode(&Value::number(back), &Type::Number).unwrap(),
            bytes,
            "{n}"
        );
        let back: Number = msgpack::from_slice(&bytes, &Type::Number).unwrap();
        assert_eq!(
            msgpack::encode(&Value::number(back), &Type::Number).unwrap(),
            bytes,
            "{n}"
        );
        if !n.is_infinite() {
            let text = json::encode(&v, &Type::Number).unwrap();
            assert_eq!(json::to_vec(&n, &Type::Number).unwrap(), text, "{n}");
            let back: Number = json::from_slice(&text, &Type::Number).unwrap();
            assert_eq!(back.to_string(), n.to_string());
        }
        // Sets keep -0 and 0 apart by their text.
        let set = Type::set(Type::Number);
        let both = vec![n.clone(), Number::from_i64(0)];
        assert_eq!(
            to_value(&both, &set).unwrap(),
            Value::set(Type::Number, vec![v.clone(), Value::number(0)]).unwrap(),
            "{n}"
        );
    }
}

#[test]
fn an_unknown_is_refused_by_other_serializers_before_its_refinements_are_written() {
    let u: Unknowable<String> = Unknowable::Unknown(Refinements {
        not_null: true,
        string_prefix: Some("secret-".into()),
        ..Default::default()
    });
    let mut out = Vec::new();
    let err = serde_json::to_writer(&mut out, &vec![u.clone()]).unwrap_err();
    assert!(err.to_string().contains("a form only in cty"), "{err}");
    assert!(!String::from_utf8_lossy(&out).contains("secret-"));
    // ctywire's serializers read the refinements back.
    let v = to_value(&u, &Type::String).unwrap();
    assert_eq!(
        v.refinements().unwrap().string_prefix.as_deref(),
        Some("secret-")
    );
}

#[test]
fn an_attribute_the_struct_lacks_names_it_and_the_fields() {
    let v = thing_value()
        .with_attr("name", Value::string("web"))
        .unwrap();
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Fewer {
        name: String,
        size: Option<i64>,
    }
    let err = from_value::<Fewer>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), ".extra");
    assert!(err.message().contains("its fields: name, size"), "{err}");
}

#[test]
fn a_struct_may_opt_in_to_ignoring_attributes() {
    #[derive(Deserialize, Debug)]
    struct Fewer {
        name: String,
        #[serde(flatten)]
        _rest: IgnoredAttributes,
    }
    let mut v = thing_value();
    v = v.with_attr("id", Value::string("i-1")).unwrap();
    assert_eq!(from_value::<Fewer>(&v).unwrap().name, "web");
    let ty = thing_type();
    let bytes = msgpack::encode(&v, &ty).unwrap();
    assert_eq!(
        msgpack::from_slice::<Fewer>(&bytes, &ty).unwrap().name,
        "web"
    );
    let text = json::encode(&v, &ty).unwrap();
    assert_eq!(json::from_slice::<Fewer>(&text, &ty).unwrap().name, "web");
    // Without the opt-in, straight from the bytes too: the attribute is named.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Strict {
        name: String,
    }
    let err = msgpack::from_slice::<Strict>(&bytes, &ty).unwrap_err();
    assert_eq!(err.path().to_string(), ".extra");
    assert!(err.message().contains("its fields: name"), "{err}");
}

#[test]
fn a_struct_field_the_type_lacks_is_an_error_naming_both() {
    #[derive(Serialize)]
    struct Extra {
        name: String,
        colour: String,
    }
    let ty = ty(r#"["list",["object",{"name":"string"}]]"#);
    let err = to_value(
        &vec![Extra {
            name: "a".into(),
            colour: "red".into(),
        }],
        &ty,
    )
    .unwrap_err();
    assert_eq!(err.path().to_string(), "[0]");
    assert!(err.message().contains("`colour` of Extra"), "{err}");
    assert!(err.message().contains("its attributes: name"), "{err}");

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Wants {
        name: String,
        colour: String,
    }
    let v = Value::list(
        Type::Dynamic,
        vec![Value::object([("name", Value::string("a"))])],
    )
    .unwrap();
    let err = from_value::<Vec<Wants>>(&v).unwrap_err();
    assert_eq!(err.path().to_string(), "[0]");
    assert!(err.message().contains("`colour`"), "{err}");
    assert!(err.message().contains("its attributes: name"), "{err}");
}

#[test]
fn rename_default_flatten_and_skip_serializing_if_behave_as_in_serde() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner {
        zone: String,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        count: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(flatten)]
        inner: Inner,
    }
    let ty = ty(r#"["object",{"type":"string","note":"string","zone":"string"}]"#);
    let o = Outer {
        kind: "vm".into(),
        count: 0,
        note: None,
        inner: Inner { zone: "a".into() },
    };
    // `count` is not in the type: skipped on the way out would be needed,
    // so it is an error naming both.
    assert!(to_value(&o, &ty).is_err());
    let v = Value::object([
        ("type", Value::string("vm")),
        ("note", Value::null(Type::String)),
        ("zone", Value::string("a")),
    ]);
    // `count` defaults; `note` null; `zone` reaches the flattened struct.
    assert_eq!(from_value::<Outer>(&v).unwrap(), o);

    #[derive(Serialize, Debug, PartialEq)]
    struct Out {
        #[serde(rename = "type")]
        kind: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(flatten)]
        inner: Inner,
    }
    let out = Out {
        kind: "vm".into(),
        note: None,
        inner: Inner { zone: "a".into() },
    };
    // The skipped field is written as null.
    assert_eq!(to_value(&out, &ty).unwrap(), v);
    assert_eq!(
        msgpack::to_vec(&out, &ty).unwrap(),
        msgpack::encode(&v, &ty).unwrap()
    );
    assert!(msgpack::to_vec(&o, &ty).is_err());
}

#[test]
fn a_rust_map_is_a_map_or_an_object_per_the_type() {
    let m: BTreeMap<String, String> = [("a".to_string(), "1".to_string())].into();
    let as_map = to_value(&m, &Type::map(Type::String)).unwrap();
    assert_eq!(*as_map.ty(), Type::map(Type::String));
    let oty = ty(r#"["object",{"a":"number","b":"string"}]"#);
    let as_object = to_value(&m, &oty).unwrap();
    // "1" converts to the number the attribute needs; "b" is missing: null.
    assert_eq!(
        as_object,
        Value::object([("a", Value::number(1)), ("b", Value::null(Type::String))])
    );
    let h: HashMap<String, String> = from_value(&as_map).unwrap();
    assert_eq!(h["a"], "1");
    let back: BTreeMap<String, Option<String>> = from_value(&as_object).unwrap();
    assert_eq!(back["a"].as_deref(), Some("1"));

    let extra: BTreeMap<String, String> = [("z".to_string(), "1".to_string())].into();
    let err = to_value(&extra, &oty).unwrap_err();
    assert!(err.message().contains(r#"the map key "z""#), "{err}");
}

#[test]
fn a_vec_is_a_list_a_set_or_a_tuple_per_the_type() {
    let v = vec![3u8, 1, 3];
    let list = to_value(&v, &Type::list(Type::Number)).unwrap();
    assert_eq!(list.len(), Some(3));
    let set = to_value(&v, &Type::set(Type::Number)).unwrap();
    assert_eq!(set.to_string(), "[1, 3]");
    assert_eq!(
        msgpack::to_vec(&v, &Type::set(Type::Number)).unwrap(),
        msgpack::encode(&set, &Type::set(Type::Number)).unwrap()
    );
    let tty = Type::tuple([Type::Number, Type::String, Type::Number]);
    let tuple = to_value(&v, &tty).unwrap();
    assert_eq!(tuple.to_string(), r#"[3, "1", 3]"#);
    let err = to_value(&v, &Type::tuple([Type::Number])).unwrap_err();
    assert_eq!(err.path().to_string(), "[1]");
    assert!(err.message().contains("a tuple of 1 elements"), "{err}");
    let back: (u8, String, u8) = from_value(&tuple).unwrap();
    assert_eq!(back, (3, "1".into(), 3));
}

#[test]
fn a_value_field_takes_whatever_is_at_its_position() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Holder {
        extra: Vec<Value>,
    }
    let ty = ty(r#"["object",{"extra":["list","dynamic"]}]"#);
    let v = Value::object([(
        "extra",
        Value::list(
            Type::Dynamic,
            vec![Value::unknown(Type::Dynamic), Value::string("s")],
        )
        .unwrap(),
    )]);
    let bytes = msgpack::encode(&v, &ty).unwrap();
    let h: Holder = msgpack::from_slice(&bytes, &ty).unwrap();
    assert!(!h.extra[0].is_known());
    assert_eq!(h.extra[1], Value::string("s"));
    assert_eq!(msgpack::to_vec(&h, &ty).unwrap(), bytes);
}

#[test]
fn nested_blocks_of_every_nesting_mode_map_naturally() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, PartialOrd, Ord, Eq, Clone)]
    struct B {
        n: i64,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Blocks {
        single: Option<B>,
        group: B,
        list: Vec<B>,
        set: BTreeSet<B>,
        map: BTreeMap<String, B>,
    }
    let b = r#"["object",{"n":"number"}]"#;
    let ty = ty(&format!(
        r#"["object",{{"single":{b},"group":{b},"list":["list",{b}],"set":["set",{b}],"map":["map",{b}]}}]"#
    ));
    let blocks = Blocks {
        single: None,
        group: B { n: 1 },
        list: vec![B { n: 2 }, B { n: 2 }],
        set: [B { n: 3 }, B { n: 4 }].into(),
        map: [("k".to_string(), B { n: 5 })].into(),
    };
    let bytes = msgpack::to_vec(&blocks, &ty).unwrap();
    assert_eq!(
        bytes,
        msgpack::encode(&to_value(&blocks, &ty).unwrap(), &ty).unwrap()
    );
    assert_eq!(msgpack::from_slice::<Blocks>(&bytes, &ty).unwrap(), blocks);
    let v = msgpack::decode(&bytes, &ty).unwrap();
    assert!(v.attr("single").unwrap().is_null());
    assert_eq!(v.attr("list").unwrap().len(), Some(2));
}

#[test]
fn from_slice_has_the_limits_and_refusals_of_decode() {
    let ty = Type::list(Type::Number);
    let opts = DecodeOptions::new().max_collection_len(2);
    let err = msgpack::from_slice_with::<Vec<u8>>(&[0x93, 1, 2, 3], &ty, &opts).unwrap_err();
    assert_eq!(err.category(), Category::Limit);
    let err = msgpack::from_slice::<Vec<u8>>(&[0x91, 1, 0xc0], &ty).unwrap_err();
    assert_eq!(err.category(), Category::Syntax);
    let err = json::from_slice::<Vec<u8>>(b"[1] x", &ty).unwrap_err();
    assert_eq!(err.category(), Category::Syntax);
    let err = json::from_slice_with::<Vec<u8>>(b"[1,2,3]", &ty, &opts).unwrap_err();
    assert_eq!(err.category(), Category::Limit);
}

#[test]
fn a_unit_enum_is_its_variant_name() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Fast,
        Safe,
    }
    let v = to_value(&Mode::Safe, &Type::String).unwrap();
    assert_eq!(v, Value::string("safe"));
    assert_eq!(from_value::<Mode>(&v).unwrap(), Mode::Safe);
    let err = from_value::<Vec<Mode>>(&Value::tuple(vec![Value::string("slow")])).unwrap_err();
    assert_eq!(err.path().to_string(), "[0]");
    let _ = Mode::Fast;
}

#[test]
fn a_rust_shape_that_does_not_fit_the_type_is_an_error_at_its_path() {
    let err = to_value(&vec![vec![1u8]], &Type::list(Type::String)).unwrap_err();
    assert_eq!(err.to_string(), "[0]: a string is required, not a sequence");
    let err = from_value::<BTreeMap<String, u8>>(&Value::string("x")).unwrap_err();
    assert!(
        err.message().contains("a map or object is required"),
        "{err}"
    );
}

#[test]
fn types_serialize_as_their_json_form() {
    let t = ty(r#"["object",{"a":["list","string"],"b":["tuple",["bool"]]},["b"]]"#);
    let text = serde_json::to_string(&t).unwrap();
    assert_eq!(text, t.to_json());
    assert_eq!(serde_json::from_str::<Type>(&text).unwrap(), t);
    // Inside cty a type is the text of its JSON form, in a string.
    let v = to_value(&t, &Type::String).unwrap();
    assert_eq!(v.as_str(), Some(t.to_json().as_str()));
    assert_eq!(from_value::<Type>(&v).unwrap(), t);
    // Nesting is bounded, whatever the input's own limits.
    let mut deep = Value::string("string");
    for _ in 0..300 {
        deep = Value::tuple(vec![Value::string("list"), deep]);
    }
    let err = from_value::<Type>(&deep).unwrap_err();
    assert!(err.message().contains("type nests deeper"), "{err}");
}

#[test]
fn numbers_and_paths_serialize_meaningfully_elsewhere() {
    let n: Number = "0.5".parse().unwrap();
    assert_eq!(serde_json::to_string(&n).unwrap(), "0.5");
    let big: Number = "123456789012345678901234567890".parse().unwrap();
    assert_eq!(
        serde_json::to_string(&big).unwrap(),
        r#""123456789012345678901234567890""#
    );
    assert_eq!(
        serde_json::from_str::<Number>(r#""1e3""#).unwrap().to_i64(),
        Some(1000)
    );
    let p = Path::root().attr("rule").index(1).key("k");
    let text = serde_json::to_string(&p).unwrap();
    assert_eq!(text, r#"[{"attr":"rule"},{"index":1},{"key":"k"}]"#);
    assert_eq!(serde_json::from_str::<Path>(&text).unwrap(), p);
    assert_eq!(p.steps()[0], PathStep::Attr("rule".into()));
}

#[test]
fn a_value_serializes_elsewhere_as_its_type_and_plain_data_and_refuses_unknowns() {
    let v = thing_value().with_attr("id", Value::string("i")).unwrap();
    let text = serde_json::to_string(&v).unwrap();
    let type_json = v.ty().to_json();
    assert!(
        text.starts_with(&format!(
            r#"{{"type":{type_json},"value":{{"extra":["x",1],"id":"i","name":"web""#
        )),
        "{text}"
    );
    // Its two parts are all cty's JSON decoder needs to make it again.
    let parts: serde_json::Value = serde_json::from_str(&text).unwrap();
    let again = json::decode(parts["value"].to_string().as_bytes(), v.ty()).unwrap();
    assert_eq!(again, v);
    let back: Value = serde_json::from_str(r#"{"a":[1,"x"],"b":null}"#).unwrap();
    assert_eq!(
        back,
        Value::object([
            (
                "a",
                Value::tuple(vec![Value::number(1), Value::string("x")])
            ),
            ("b", Value::null(Type::Dynamic)),
        ])
    );
    assert!(serde_json::to_string(&thing_value()).is_err());
}

#[cfg(feature = "indexmap")]
#[test]
fn an_indexmap_is_a_map_or_an_object_per_the_type() {
    use indexmap::IndexMap;
    let m: IndexMap<String, u8> = [("b".to_string(), 2), ("a".to_string(), 1)]
        .into_iter()
        .collect();
    let v = to_value(&m, &Type::map(Type::Number)).unwrap();
    assert_eq!(v.to_string(), r#"{"a" = 1, "b" = 2}"#);
    let oty = ty(r#"["object",{"a":"number","b":"number"}]"#);
    assert_eq!(
        msgpack::to_vec(&m, &oty).unwrap(),
        msgpack::encode(&v.convert(&oty).unwrap(), &oty).unwrap()
    );
    let back: IndexMap<String, u8> = from_value(&v).unwrap();
    assert_eq!(back.get_index(0), Some((&"a".to_string(), &1)));
    let err = from_value::<IndexMap<String, u8>>(
        &Value::map(Type::Number, [("k", Value::number(300))]).unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.path().to_string(), r#"["k"]"#);
}

#[test]
fn a_repeated_json_attribute_is_refused_straight_into_a_struct() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Named {
        name: String,
    }
    let ty = ty(r#"["object",{"name":"string"}]"#);
    let text = br#"{"name":"a","name":"b"}"#;
    // decode lets the last win, as go-cty does ...
    assert_eq!(
        json::decode(text, &ty).unwrap().attr("name"),
        Some(&Value::string("b"))
    );
    // ... but a struct field cannot take a second value.
    let err = json::from_slice::<Named>(text, &ty).unwrap_err();
    assert_eq!(err.message(), r#"duplicate attribute "name""#);
    assert_eq!(err.offset(), Some(12));
}

#[test]
fn to_vec_writes_what_encode_writes_for_to_value_whatever_the_field_order() {
    // Fields out of the type's order, a map out of key order, a skipped
    // field, a number where a string belongs, NFD text.
    #[derive(Serialize)]
    struct Shuffled {
        zeta: HashMap<String, u8>,
        alpha: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        mid: Option<String>,
        text: &'static str,
    }
    let ty = ty(
        r#"["object",{"alpha":"string","mid":"string","text":"string","zeta":["map","number"]}]"#,
    );
    let s = Shuffled {
        zeta: [
            ("b".to_string(), 2),
            ("a".to_string(), 1),
            ("e\u{301}".to_string(), 3),
        ]
        .into(),
        alpha: u64::MAX,
        mid: None,
        text: "e\u{301}",
    };
    let v = to_value(&s, &ty).unwrap();
    assert_eq!(
        v.attr("alpha").unwrap().as_str(),
        Some("18446744073709551615")
    );
    assert_eq!(
        msgpack::to_vec(&s, &ty).unwrap(),
        msgpack::encode(&v, &ty).unwrap()
    );
    let err = msgpack::to_vec(
        &vec![Rule {
            port: 1,
            note: None,
        }],
        &Type::list(Type::String),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "[0]: a string is required, not the struct Rule"
    );
}

/// Two structs of one name (each in its own module) with their fields in
/// different orders, one of them skipping fields now and then.
mod first {
    #[derive(serde::Serialize)]
    pub struct Shape {
        pub zeta: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub beta: Option<i64>,
        pub alpha: String,
    }
}
mod second {
    #[derive(serde::Serialize)]
    pub struct Shape {
        pub alpha: String,
        pub beta: Option<i64>,
        pub zeta: Option<String>,
    }
}

#[test]
fn fields_are_placed_right_however_structs_and_types_alternate() {
    // The encoder learns where a struct's fields go in a type and then
    // follows that; every write is checked against `to_value` + `encode`,
    // which looks each field up by name. Types are made afresh each round
    // (so an address may be reused), with the attributes at other places.
    let check = |v: &dyn erased::Shape, ty: &Type| {
        let bytes = v.to_vec(ty).unwrap();
        assert_eq!(
            bytes,
            msgpack::encode(&v.to_value(ty).unwrap(), ty).unwrap()
        );
    };
    for round in 0..40i64 {
        let extra = ["", r#","aaa":"bool""#, r#","bb":"number","yy":"string""#][round as usize % 3];
        let ty = ty(&format!(
            r#"["object",{{"alpha":"string","beta":"number","zeta":"string"{extra}}}]"#
        ));
        let a = first::Shape {
            zeta: Some(format!("z{round}")),
            beta: (round % 2 == 0).then_some(round),
            alpha: "a".repeat(round as usize),
        };
        let b = second::Shape {
            alpha: format!("a{round}"),
            beta: None,
            zeta: (round % 3 == 0).then(|| "z".to_string()),
        };
        check(&a, &ty);
        check(&b, &ty);
        check(&a, &ty);
        // In a list, the struct follows its plan element after element.
        let list = Type::list(ty.clone());
        let many = vec![
            second::Shape {
                alpha: "x".into(),
                beta: Some(round),
                zeta: None
            };
            3
        ];
        assert_eq!(
            msgpack::to_vec(&many, &list).unwrap(),
            msgpack::encode(&to_value(&many, &list).unwrap(), &list).unwrap()
        );
    }
}

impl Clone for second::Shape {
    fn clone(&self) -> Self {
        second::Shape {
            alpha: self.alpha.clone(),
            beta: self.beta,
            zeta: self.zeta.clone(),
        }
    }
}

/// Both structs behind one trait, for the test above.
mod erased {
    use ctywire::{msgpack, to_value, Result, Type, Value};
    pub trait Shape {
        fn to_vec(&self, ty: &Type) -> Result<Vec<u8>>;
        fn to_value(&self, ty: &Type) -> Result<Value>;
    }
    impl<T: serde::Serialize> Shape for T {
        fn to_vec(&self, ty: &Type) -> Result<Vec<u8>> {
            msgpack::to_vec(self, ty)
        }
        fn to_value(&self, ty: &Type) -> Result<Value> {
            to_value(self, ty)
        }
    }
}

/// An unknown whose refinements pin it down (a list of exactly two) is a
/// known value to every reader: read straight from the bytes it comes out
/// as `decode` + `from_value` make it, and is refused alike where it does
/// not fit.
#[test]
fn an_unknown_that_its_refinements_make_known_reads_as_decode_reads_it() {
    // ext 12: {1: false (not null), 5: 2 (length min), 6: 2 (length max)}.
    let bytes = [0xc7, 0x07, 0x0c, 0x83, 0x01, 0xc2, 0x05, 0x02, 0x06, 0x02];
    let ty = Type::list(Type::String);
    fn both<T: serde::de::DeserializeOwned + std::fmt::Debug + PartialEq>(
        bytes: &[u8],
        ty: &Type,
    ) -> Result<T, String> {
        let direct = msgpack::from_slice::<T>(bytes, ty).map_err(|e| e.to_string());
        let plain = msgpack::decode(bytes, ty)
            .and_then(|v| from_value::<T>(&v))
            .map_err(|e| e.to_string());
        assert_eq!(direct, plain);
        direct
    }
    let got = both::<Unknowable<Option<Vec<Unknowable<Option<String>>>>>>(&bytes, &ty).unwrap();
    assert!(
        matches!(got, Unknowable::Known(Some(ref v)) if v.len() == 2),
        "{got:?}"
    );
    both::<Unknowable<Vec<Unknowable<String>>>>(&bytes, &ty).unwrap();
    both::<Option<Vec<Unknowable<String>>>>(&bytes, &ty).unwrap();
    both::<Value>(&bytes, &ty).unwrap();
    // Its elements are still unknown: a plain `String` refuses them.
    both::<Unknowable<Vec<String>>>(&bytes, &ty).unwrap_err();
}

#[test]
fn a_set_or_map_shorter_than_serde_announced_gets_its_own_header() {
    // The header is first written for the length serde announces and
    // settled at the end: repeats make the set or map shorter, here across
    // the line between a one-byte header (up to 15) and a three-byte one.
    let words: Vec<String> = (0..20).map(|i| format!("w{:02}", i % 15)).collect();
    for ty in [Type::set(Type::String), Type::list(Type::String)] {
        for shuffled in [false, true] {
            let mut w = words.clone();
            if shuffled {
                w.reverse();
            }
            assert_eq!(
                msgpack::to_vec(&w, &ty).unwrap(),
                msgpack::encode(&to_value(&w, &ty).unwrap(), &ty).unwrap(),
                "{ty:?} {shuffled}"
            );
        }
    }
    let entries: Vec<(String, u8)> = (0..20).map(|i| (format!("k{:02}", i % 15), i)).collect();
    let ty = Type::map(Type::Number);
    for shuffled in [false, true] {
        let mut e = entries.clone();
        if shuffled {
            e.reverse();
        }
        // A map serialized entry by entry, repeats included.
        struct Entries<'e>(&'e [(String, u8)]);
        impl serde::Serialize for Entries<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
            }
        }
        let bytes = msgpack::to_vec(&Entries(&e), &ty).unwrap();
        assert_eq!(
            bytes,
            msgpack::encode(&to_value(&Entries(&e), &ty).unwrap(), &ty).unwrap()
        );
        assert_eq!(msgpack::decode(&bytes, &ty).unwrap().len(), Some(15));
    }
}

#[test]
fn a_set_or_map_of_unannounced_length_gets_its_own_header() {
    // An iterator that cannot tell its length announces none: the header
    // written for none is one byte, the set's or map's own three.
    struct Unannounced(usize);
    impl serde::Serialize for Unannounced {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq((0..self.0).map(|i| format!("w{i:02}")).filter(|_| true))
        }
    }
    struct UnannouncedMap(usize);
    impl serde::Serialize for UnannouncedMap {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(
                (0..self.0)
                    .map(|i| (format!("k{i:02}"), i))
                    .filter(|_| true),
            )
        }
    }
    for n in [0, 1, 15, 16, 20] {
        for ty in [Type::set(Type::String), Type::list(Type::String)] {
            let bytes = msgpack::to_vec(&Unannounced(n), &ty).unwrap();
            assert_eq!(
                bytes,
                msgpack::encode(&to_value(&Unannounced(n), &ty).unwrap(), &ty).unwrap()
            );
            assert_eq!(msgpack::decode(&bytes, &ty).unwrap().len(), Some(n));
        }
        let ty = Type::map(Type::Number);
        let bytes = msgpack::to_vec(&UnannouncedMap(n), &ty).unwrap();
        assert_eq!(
            bytes,
            msgpack::encode(&to_value(&UnannouncedMap(n), &ty).unwrap(), &ty).unwrap()
        );
        assert_eq!(msgpack::decode(&bytes, &ty).unwrap().len(), Some(n));
    }
}

/// A struct that takes all of its text from the input, as serde_json's
/// borrowing structs do.
#[derive(Deserialize, Debug)]
struct Lent<'a> {
    name: &'a str,
    #[serde(borrow)]
    note: std::borrow::Cow<'a, str>,
    tags: BTreeMap<&'a str, &'a str>,
    zones: Vec<&'a str>,
}

fn lent_type() -> Type {
    ty(
        r#"["object",{"name":"string","note":"string","tags":["map","string"],"zones":["list","string"]}]"#,
    )
}

fn lies_within(s: &str, input: &[u8]) -> bool {
    input.as_ptr_range().contains(&s.as_ptr())
}

#[test]
fn strings_are_lent_out_of_the_input_where_it_holds_them_as_they_are() {
    let ty = lent_type();
    let value = Value::object([
        ("name", Value::string("web")),
        ("note", Value::string("café, composed")),
        (
            "tags",
            Value::map(Type::String, [("tier", Value::string("front"))]).unwrap(),
        ),
        (
            "zones",
            Value::list(Type::String, vec![Value::string("a"), Value::string("b")]).unwrap(),
        ),
    ]);
    let bytes = msgpack::encode(&value, &ty).unwrap();
    let text = json::encode(&value, &ty).unwrap();
    for (input, lent) in [
        (&bytes, msgpack::from_slice::<Lent>(&bytes, &ty).unwrap()),
        (&text, json::from_slice::<Lent>(&text, &ty).unwrap()),
    ] {
        assert_eq!(lent.name, "web");
        assert!(matches!(
            lent.note,
            std::borrow::Cow::Borrowed("café, composed")
        ));
        assert_eq!(lent.tags, BTreeMap::from([("tier", "front")]));
        assert_eq!(lent.zones, ["a", "b"]);
        let every = [lent.name, &lent.note, "", lent.zones[0], lent.zones[1]];
        let (k, v) = lent.tags.iter().next().unwrap();
        for s in every.into_iter().filter(|s| !s.is_empty()).chain([*k, *v]) {
            assert!(lies_within(s, input), "{s:?} was copied");
        }
    }
}

#[test]
fn text_that_needs_normalizing_is_copied_and_refused_by_a_borrowed_str_at_its_path() {
    // msgpack written by something other than go-cty may carry NFD text:
    // cty holds it composed, so it cannot be lent as it is.
    let ty = ty(r#"["object",{"name":"string"}]"#);
    let nfd = b"\x81\xa4name\xa3e\xcc\x81";
    #[derive(Deserialize)]
    struct Owned<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
    }
    let read: Owned = msgpack::from_slice(nfd, &ty).unwrap();
    assert!(matches!(read.name, std::borrow::Cow::Owned(ref s) if s == "\u{e9}"));
    #[derive(Deserialize, Debug)]
    struct Borrowed<'a> {
        #[allow(dead_code)]
        name: &'a str,
    }
    let err = msgpack::from_slice::<Borrowed>(nfd, &ty).unwrap_err();
    assert_eq!(err.path().to_string(), ".name");
    assert!(err.message().contains("borrowed string"), "{err}");

    // A map whose keys are not plain ASCII is read as a value first (cty
    // normalizes, orders and de-duplicates its keys), so none of its text
    // is lent.
    let map = Type::map(Type::String);
    let nfd_key = b"\x81\xa3e\xcc\x81\xa1x";
    let read: BTreeMap<String, String> = msgpack::from_slice(nfd_key, &map).unwrap();
    assert_eq!(read, BTreeMap::from([("\u{e9}".into(), "x".into())]));
    let err = msgpack::from_slice::<BTreeMap<String, &str>>(nfd_key, &map).unwrap_err();
    assert!(err.message().contains("borrowed string"), "{err}");

    // JSON text written with escapes is not the text itself either.
    let escaped = br#"{"name":"say \"hi\""}"#;
    let read: Owned = json::from_slice(escaped, &ty).unwrap();
    assert_eq!(read.name, r#"say "hi""#);
    let err = json::from_slice::<Borrowed>(escaped, &ty).unwrap_err();
    assert_eq!(err.path().to_string(), ".name");
}

/// msgpack for a map of short strings, entries as given (go-cty would
/// never write a key twice or out of order; other writers may).
fn fixmap(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut b = vec![0x80 | entries.len() as u8];
    for (k, v) in entries {
        for s in [k, v] {
            b.push(0xa0 | s.len() as u8);
            b.extend_from_slice(s.as_bytes());
        }
    }
    b
}

/// A map visitor that keeps entries in the order they are handed over, as
/// an `IndexMap` would.
#[derive(Debug, PartialEq)]
struct InOrder(Vec<(String, String)>);

impl<'de> Deserialize<'de> for InOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = InOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<InOrder, M::Error> {
                let mut v = Vec::new();
                while let Some(e) = m.next_entry()? {
                    v.push(e);
                }
                Ok(InOrder(v))
            }
        }
        d.deserialize_map(Entries)
    }
}

#[test]
fn a_map_with_a_repeated_key_reads_as_decode_reads_it_the_last_value_winning() {
    let ty = Type::map(Type::String);
    #[derive(Deserialize, Debug, PartialEq)]
    struct A {
        a: String,
    }
    let repeated = fixmap(&[("a", "x"), ("a", "y")]);
    let nfc_twins = fixmap(&[("é", "x"), ("e\u{301}", "y")]);
    let last_wins = |k: &str| BTreeMap::from([(k.to_string(), "y".to_string())]);
    assert_eq!(
        msgpack::from_slice::<BTreeMap<String, String>>(&repeated, &ty).unwrap(),
        last_wins("a")
    );
    assert_eq!(
        msgpack::from_slice::<A>(&repeated, &ty).unwrap(),
        A { a: "y".into() }
    );
    assert_eq!(
        msgpack::from_slice::<BTreeMap<String, String>>(&nfc_twins, &ty).unwrap(),
        last_wins("\u{e9}")
    );
    // A first value the Rust type would refuse is replaced before it is read.
    let ints = Type::map(Type::Number);
    let mut big_then_small = vec![0x82, 0xa1, b'a', 0xcd, 0x01, 0x2c, 0xa1, b'a', 0x01];
    assert_eq!(
        msgpack::from_slice::<HashMap<String, u8>>(&big_then_small, &ints).unwrap(),
        HashMap::from([("a".to_string(), 1)])
    );
    big_then_small.truncate(0);
    let text = br#"{"a":300,"a":1}"#;
    assert_eq!(
        json::from_slice::<HashMap<String, u8>>(text, &ints).unwrap(),
        HashMap::from([("a".to_string(), 1)])
    );
    assert_eq!(
        json::from_slice::<A>(br#"{"a":"x","a":"y"}"#, &ty).unwrap(),
        A { a: "y".into() }
    );
}

#[test]
fn map_entries_and_object_attributes_come_in_ctys_order_whatever_the_input_order() {
    let in_order = InOrder(vec![("a".into(), "y".into()), ("b".into(), "x".into())]);
    let map = Type::map(Type::String);
    let object = ty(r#"["object",{"a":"string","b":"string"}]"#);
    let unsorted = fixmap(&[("b", "x"), ("a", "y")]);
    for ty in [&map, &object] {
        assert_eq!(
            msgpack::from_slice::<InOrder>(&unsorted, ty).unwrap(),
            in_order
        );
        assert_eq!(
            json::from_slice::<InOrder>(br#"{"b":"x","a":"y"}"#, ty).unwrap(),
            in_order
        );
    }
}

#[test]
fn a_typed_null_or_unknown_under_a_dynamic_wrapper_reads_as_null_or_unknown() {
    // What go-cty writes for cty.NullVal(cty.String) and an unknown string
    // where the type says dynamic: the type travels with the value.
    let null_string = b"\x92\xc4\x08\"string\"\xc0";
    let unknown_string = b"\x92\xc4\x08\"string\"\xd4\x00\x00";
    assert_eq!(
        msgpack::from_slice::<Option<String>>(null_string, &Type::Dynamic).unwrap(),
        None
    );
    assert_eq!(
        msgpack::from_slice::<Option<Value>>(null_string, &Type::Dynamic).unwrap(),
        None
    );
    assert!(
        !msgpack::from_slice::<Unknowable<String>>(unknown_string, &Type::Dynamic)
            .unwrap()
            .is_known()
    );
    assert_eq!(
        json::from_slice::<Option<String>>(br#"{"value":null,"type":"string"}"#, &Type::Dynamic)
            .unwrap(),
        None
    );
    #[derive(Deserialize, Debug, PartialEq)]
    struct Extra {
        d: Option<String>,
    }
    let mut object = b"\x81\xa1d".to_vec();
    object.extend_from_slice(null_string);
    let ty = ty(r#"["object",{"d":"dynamic"}]"#);
    assert_eq!(
        msgpack::from_slice::<Extra>(&object, &ty).unwrap(),
        Extra { d: None }
    );
}

#[test]
fn a_value_that_converts_to_minus_zero_stays_apart_from_zero_in_a_set() {
    // "-0" at a number type is -0, which the set rules keep apart from 0
    // (and msgpack then writes both as 0).
    let ty = Type::set(Type::Number);
    let both = vec![Value::string("-0"), Value::number(0)];
    let bytes = msgpack::to_vec(&both, &ty).unwrap();
    assert_eq!(bytes, [0x92, 0x00, 0x00]);
    assert_eq!(
        bytes,
        msgpack::encode(&to_value(&both, &ty).unwrap(), &ty).unwrap()
    );
}

#[test]
fn a_field_written_twice_lets_the_last_win_as_to_value_does() {
    #[derive(Serialize)]
    struct Twice {
        #[serde(rename = "a")]
        first: &'static str,
        b: &'static str,
        #[serde(rename = "a")]
        again: &'static str,
    }
    let ty = ty(r#"["object",{"a":"string","b":"string","c":"string"}]"#);
    let t = Twice {
        first: "1",
        b: "2",
        again: "3",
    };
    let bytes = msgpack::to_vec(&t, &ty).unwrap();
    assert_eq!(
        bytes,
        msgpack::encode(&to_value(&t, &ty).unwrap(), &ty).unwrap()
    );
    assert_eq!(
        msgpack::decode(&bytes, &ty).unwrap().attr("a"),
        Some(&Value::string("3"))
    );
}

/// A sequence that announces one length and writes another, as a
/// hand-written `Serialize` may.
struct Announcing(Vec<&'static str>, usize);

impl Serialize for Announcing {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.1))?;
        for e in &self.0 {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

#[test]
fn a_sequence_longer_or_shorter_than_announced_is_written_as_it_came() {
    let list = Type::list(Type::String);
    for (items, announced) in [(vec!["a", "b", "c"], 2), (vec!["a"], 20), (vec![], 1)] {
        let s = Announcing(items.clone(), announced);
        let bytes = msgpack::to_vec(&s, &list).unwrap();
        assert_eq!(
            bytes,
            msgpack::encode(&to_value(&s, &list).unwrap(), &list).unwrap()
        );
        assert_eq!(
            msgpack::from_slice::<Vec<String>>(&bytes, &list).unwrap(),
            items
        );
    }
    let pair = ty(r#"["tuple",["string","string"]]"#);
    let err = msgpack::to_vec(&Announcing(vec!["a"], 2), &pair).unwrap_err();
    assert_eq!(err.message(), "a tuple of 2 elements is required (1 given)");
    assert!(to_value(&Announcing(vec!["a"], 2), &pair).is_err());
}

/// `v` read into `T` by all three readers (from the value, and from its
/// msgpack and JSON bytes), which must agree; their one outcome, an error
/// as its `path: message`.
fn read_thrice<T: serde::de::DeserializeOwned + std::fmt::Debug + PartialEq>(
    v: &Value,
) -> Result<T, String> {
    let ty = v.ty();
    let plain = from_value::<T>(v).map_err(|e| e.to_string());
    let mp = msgpack::from_slice::<T>(&msgpack::encode(v, ty).unwrap(), ty);
    assert_eq!(mp.map_err(|e| e.to_string()), plain, "msgpack");
    if v.is_wholly_known() {
        let js = json::from_slice::<T>(&json::encode(v, ty).unwrap(), ty);
        assert_eq!(js.map_err(|e| e.to_string()), plain, "JSON");
    }
    plain
}

#[derive(Deserialize, Debug, PartialEq)]
struct Sized64 {
    size: f64,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Sized32 {
    size: f32,
}

#[test]
fn a_number_beyond_f64_is_refused_at_its_path() {
    for text in ["1e400", "-1e400"] {
        let n: Number = text.parse().unwrap();
        let v = Value::object([("size", Value::number(n))]);
        assert_eq!(
            read_thrice::<Sized64>(&v).unwrap_err(),
            ".size: a number in the range of f64 is required (got one beyond ±1.7976931348623157e308)"
        );
    }
    // Within half a unit of the largest f64 it is that f64, the nearest.
    let near: Number = "1.7976931348623158e308".parse().unwrap();
    let v = Value::object([("size", Value::number(near))]);
    assert_eq!(read_thrice::<Sized64>(&v).unwrap().size, f64::MAX);
}

#[test]
fn an_infinity_on_the_wire_reads_as_an_infinity() {
    for (n, f) in [(false, f64::INFINITY), (true, f64::NEG_INFINITY)] {
        let v = Value::object([("size", Value::number(Number::infinity(n)))]);
        let ty = v.ty().clone();
        // JSON has no infinity: msgpack and the value.
        let mp = msgpack::from_slice::<Sized64>(&msgpack::encode(&v, &ty).unwrap(), &ty);
        assert_eq!(mp.unwrap().size, f);
        assert_eq!(from_value::<Sized64>(&v).unwrap().size, f);
        assert_eq!(from_value::<Sized32>(&v).unwrap().size, f as f32);
    }
}

#[test]
fn a_number_beyond_f32_is_refused_at_its_path_for_an_f32() {
    let n: Number = "1e39".parse().unwrap();
    let v = Value::object([("size", Value::number(n))]);
    assert_eq!(
        read_thrice::<Sized32>(&v).unwrap_err(),
        ".size: a number in the range of f32 is required (got one beyond ±3.4028235e38)"
    );
    // An f64 takes it.
    assert_eq!(read_thrice::<Sized64>(&v).unwrap().size, 1e39);
    // Beyond f64 too: still the f32's range that it is refused for.
    let beyond: Number = "1e400".parse().unwrap();
    let v = Value::object([("size", Value::number(beyond))]);
    assert_eq!(
        read_thrice::<Sized32>(&v).unwrap_err(),
        ".size: a number in the range of f32 is required (got one beyond ±3.4028235e38)"
    );
}

#[test]
fn an_attribute_a_strict_struct_lacks_is_refused_at_the_attribute() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        port: u16,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[allow(dead_code)]
    struct Rules {
        rules: Vec<Strict>,
    }
    let rule = Value::object([("extra", Value::bool(true)), ("port", Value::number(22))]);
    let v = Value::object([("rules", Value::list(rule.ty().clone(), vec![rule]).unwrap())]);
    assert_eq!(
        read_thrice::<Rules>(&v).unwrap_err(),
        ".rules[0].extra: unknown field `extra`, expected `port`"
    );
}

#[test]
fn map_keys_that_parse_read_into_integer_bool_and_char_keys() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Ports {
        ports: BTreeMap<u32, String>,
    }
    let map = |keys: &[&str]| {
        Value::object([(
            "ports",
            Value::map(
                Type::String,
                keys.iter().map(|k| (*k, Value::string(format!("p{k}")))),
            )
            .unwrap(),
        )])
    };
    let got = read_thrice::<Ports>(&map(&["10", "443", "8080"])).unwrap();
    let want: BTreeMap<u32, String> = [(10, "p10"), (443, "p443"), (8080, "p8080")]
        .into_iter()
        .map(|(k, v)| (k, v.to_string()))
        .collect();
    assert_eq!(got.ports, want);
    // Written back, the keys are their text again.
    let ty = map(&["10"]).ty().clone();
    assert_eq!(to_value(&got, &ty).unwrap(), map(&["10", "443", "8080"]));
    // Keys that are not a u32 are refused, naming the key.
    for (key, message) in [
        ("x", "a map key: a number is required"),
        ("1.5", "a map key: an integer is required (got 1.5)"),
        (
            "-1",
            "a map key: an integer in the range of u32 is required (got -1)",
        ),
        (
            "4294967296",
            "a map key: an integer in the range of u32 is required (got 4294967296)",
        ),
    ] {
        assert_eq!(
            read_thrice::<Ports>(&map(&["10", key])).unwrap_err(),
            format!(".ports[{key:?}]: {message}")
        );
    }
    let flags = Value::map(
        Type::Bool,
        [("false", Value::bool(false)), ("true", Value::bool(true))],
    )
    .unwrap();
    let got = read_thrice::<BTreeMap<bool, bool>>(&flags).unwrap();
    assert_eq!(got, [(false, false), (true, true)].into());
    let letters = Value::map(Type::Number, [("a", Value::number(1))]).unwrap();
    assert_eq!(
        read_thrice::<BTreeMap<char, u8>>(&letters).unwrap(),
        [('a', 1)].into()
    );
    let words = Value::map(Type::Number, [("ab", Value::number(1))]).unwrap();
    assert_eq!(
        read_thrice::<BTreeMap<char, u8>>(&words).unwrap_err(),
        r#"["ab"]: a map key: a string of one character is required (got "ab")"#
    );
    // An object's attributes alike.
    let obj = Value::object([("7", Value::bool(true))]);
    assert_eq!(
        read_thrice::<BTreeMap<i64, bool>>(&obj).unwrap(),
        [(7, true)].into()
    );
}

#[test]
fn a_rust_tuple_or_array_shorter_than_the_value_is_refused_with_both_lengths() {
    let tuple = Value::tuple(vec![
        Value::string("a"),
        Value::number(1),
        Value::bool(true),
    ]);
    assert_eq!(
        read_thrice::<(String, u32)>(&tuple).unwrap_err(),
        "trailing elements: 3 given, the Rust type takes 2"
    );
    let list = Value::list(Type::Number, (1..=3).map(Value::number).collect()).unwrap();
    assert_eq!(
        read_thrice::<[u8; 2]>(&list).unwrap_err(),
        "trailing elements: 3 given, the Rust type takes 2"
    );
    let nested = Value::object([("pair", list.clone())]);
    #[derive(Deserialize, Debug, PartialEq)]
    #[allow(dead_code)]
    struct Pair {
        pair: [u8; 2],
    }
    assert_eq!(
        read_thrice::<Pair>(&nested).unwrap_err(),
        ".pair: trailing elements: 3 given, the Rust type takes 2"
    );
    // Exactly as many is fine, and a Vec takes any number.
    assert_eq!(read_thrice::<[u8; 3]>(&list).unwrap(), [1, 2, 3]);
    assert_eq!(read_thrice::<Vec<u8>>(&list).unwrap(), [1, 2, 3]);
}
