//! Schemas: the 27 edge cases of the schema spec (§5), each with its exact
//! implied type and wire bytes; schemas read from `providers schema -json`;
//! values checked and round-tripped by schema.

mod support;

use std::collections::BTreeMap;
use support::{hex, ty, unhex};

use ctywire::protocol::DynamicValue;
use ctywire::schema::{
    flatmap, Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, NestingMode, Object,
    Purpose,
};
use ctywire::{json, msgpack, Category, Number, Refinements, Type, Value};

fn ascii(s: &str) -> String {
    hex(s.as_bytes())
}

fn attr(name: &str, t: &str) -> Attribute {
    Attribute::new(name, ty(t)).optional()
}

fn block_of(attrs: Vec<Attribute>) -> Block {
    attrs.into_iter().fold(Block::new(), Block::attribute)
}

fn mp(v: &Value, t: &Type) -> String {
    hex(&msgpack::encode(v, t).unwrap())
}

#[test]
fn case_01_an_empty_block_is_an_empty_object() {
    assert_eq!(Block::new().implied_type().unwrap(), Type::empty_object());
    assert_eq!(
        Block::default().implied_type().unwrap().to_json(),
        r#"["object",{}]"#
    );
    assert_eq!(
        mp(&Block::new().empty_value().unwrap(), &Type::empty_object()),
        "80"
    );
}

fn single_block_schema(nesting: NestingMode) -> Block {
    Block::new()
        .attribute(attr("x", "\"string\""))
        .block(NestedBlock::new(
            "s",
            nesting,
            block_of(vec![attr("y", "\"number\"")]),
        ))
}

#[test]
fn case_02_an_absent_single_block_is_null() {
    let b = single_block_schema(NestingMode::Single);
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"s":["object",{"y":"number"}],"x":"string"}]"#
    );
    assert_eq!(mp(&b.empty_value().unwrap(), &t), "82a173c0a178c0");
}

#[test]
fn case_03_an_absent_group_block_is_an_object_of_empty_values_never_null() {
    let inner = block_of(vec![attr("y", "\"number\"")]).block(NestedBlock::new(
        "l",
        NestingMode::List,
        block_of(vec![attr("z", "\"bool\"")]),
    ));
    let b = Block::new()
        .attribute(attr("x", "\"string\""))
        .block(NestedBlock::new("s", NestingMode::Group, inner));
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"s":["object",{"l":["list",["object",{"z":"bool"}]],"y":"number"}],"x":"string"}]"#
    );
    let empty = b.empty_value().unwrap();
    assert!(!empty.attr("s").unwrap().is_null());
    assert_eq!(mp(&empty, &t), "82a17382a16c90a179c0a178c0");
}

#[test]
fn case_04_a_list_block_with_no_blocks_is_an_empty_list() {
    let b = Block::new().block(NestedBlock::new(
        "b",
        NestingMode::List,
        block_of(vec![attr("v", "\"string\"")]),
    ));
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"b":["list",["object",{"v":"string"}]]}]"#
    );
    assert_eq!(mp(&b.empty_value().unwrap(), &t), "81a16290");
}

fn dynamic_list_block() -> Block {
    Block::new().block(NestedBlock::new(
        "b",
        NestingMode::List,
        block_of(vec![attr("v", "\"dynamic\"")]),
    ))
}

#[test]
fn case_05_a_list_block_with_dynamic_content_is_a_tuple_in_a_dynamic_wrapper() {
    let t = dynamic_list_block().implied_type().unwrap();
    assert_eq!(t.to_json(), r#"["object",{"b":"dynamic"}]"#);
    let blocks = Value::tuple(vec![
        Value::object([("v", Value::string("s"))]),
        Value::object([("v", Value::null(Type::Dynamic))]),
    ]);
    let tuple_json = r#"["tuple",[["object",{"v":"string"}],["object",{"v":"dynamic"}]]]"#;
    assert_eq!(tuple_json.len(), 0x40);
    assert_eq!(
        mp(&blocks, &Type::Dynamic),
        format!("92c440{}9281a176a17381a176c0", ascii(tuple_json))
    );
    assert_eq!(
        json::encode_string(&blocks, &Type::Dynamic).unwrap(),
        format!(r#"{{"value":[{{"v":"s"}},{{"v":null}}],"type":{tuple_json}}}"#)
    );
    let whole = Value::object([("b", blocks)]);
    assert_eq!(
        msgpack::decode(&msgpack::encode(&whole, &t).unwrap(), &t).unwrap(),
        whole
    );
}

#[test]
fn case_06_zero_dynamic_list_blocks_are_the_empty_tuple() {
    let b = dynamic_list_block();
    let empty = b.empty_value().unwrap();
    assert_eq!(
        mp(empty.attr("b").unwrap(), &Type::Dynamic),
        "92c40c5b227475706c65222c5b5d5d90"
    );
}

#[test]
fn case_07_a_map_block_with_dynamic_content_is_an_object_by_label() {
    let b = Block::new().block(NestedBlock::new(
        "m",
        NestingMode::Map,
        block_of(vec![attr("v", "\"dynamic\"")]),
    ));
    assert_eq!(
        b.implied_type().unwrap().to_json(),
        r#"["object",{"m":"dynamic"}]"#
    );
    let labelled = Value::object([
        ("a", Value::object([("v", Value::number(1))])),
        ("b", Value::object([("v", Value::string("x"))])),
    ]);
    assert_eq!(
        mp(&labelled, &Type::Dynamic),
        format!(
            "92c4{:02x}{}82a16181a17601a16281a176a178",
            r#"["object",{"a":["object",{"v":"number"}],"b":["object",{"v":"string"}]}]"#.len(),
            ascii(r#"["object",{"a":["object",{"v":"number"}],"b":["object",{"v":"string"}]}]"#)
        )
    );
    let empty = b.empty_value().unwrap();
    assert_eq!(
        mp(empty.attr("m").unwrap(), &Type::Dynamic),
        format!("92c40d{}80", ascii(r#"["object",{}]"#))
    );
}

#[test]
fn case_08_a_map_block_without_dynamic_is_a_map() {
    let b = Block::new().block(NestedBlock::new(
        "m",
        NestingMode::Map,
        block_of(vec![attr("v", "\"string\"")]),
    ));
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"m":["map",["object",{"v":"string"}]]}]"#
    );
    assert_eq!(mp(&b.empty_value().unwrap(), &t), "81a16d80");
}

#[test]
fn case_09_the_dynamic_fallback_propagates_up_through_enclosing_list_blocks() {
    let inner = NestedBlock::new(
        "inner",
        NestingMode::List,
        block_of(vec![attr("v", "\"dynamic\"")]),
    );
    let b = Block::new().block(NestedBlock::new(
        "outer",
        NestingMode::List,
        Block::new().block(inner),
    ));
    let t = b.implied_type().unwrap();
    assert_eq!(t.to_json(), r#"["object",{"outer":"dynamic"}]"#);
    // One outer block holding one inner block: tuples at both levels.
    let inner_blocks = Value::tuple(vec![Value::object([("v", Value::bool(true))])]);
    let v = Value::object([(
        "outer",
        Value::tuple(vec![Value::object([("inner", inner_blocks)])]),
    )]);
    let tj = r#"["tuple",[["object",{"inner":["tuple",[["object",{"v":"bool"}]]]}]]]"#;
    assert_eq!(
        mp(&v, &t),
        format!(
            "81a56f7574657292c4{:02x}{}9181a5696e6e65729181a176c3",
            tj.len(),
            ascii(tj)
        )
    );
}

#[test]
fn case_10_dynamic_inside_a_collection_attribute_also_makes_the_block_tuple_backed() {
    let b = Block::new().block(NestedBlock::new(
        "b",
        NestingMode::List,
        block_of(vec![attr("tags", r#"["list","dynamic"]"#)]),
    ));
    let t = b.implied_type().unwrap();
    assert_eq!(t.to_json(), r#"["object",{"b":"dynamic"}]"#);
    assert_eq!(
        mp(&b.empty_value().unwrap(), &t),
        "81a16292c40c5b227475706c65222c5b5d5d90"
    );
}

#[test]
fn case_11_a_set_block_with_dynamic_content_is_an_invalid_schema() {
    let direct = Block::new().block(NestedBlock::new(
        "s",
        NestingMode::Set,
        block_of(vec![attr("v", "\"dynamic\"")]),
    ));
    let err = direct.implied_type().unwrap_err();
    assert_eq!(err.category(), Category::Type);
    assert_eq!(err.path().to_string(), ".s");
    let inner = NestedBlock::new(
        "l",
        NestingMode::List,
        block_of(vec![attr("v", "\"dynamic\"")]),
    );
    let nested = Block::new().block(NestedBlock::new(
        "s",
        NestingMode::Set,
        Block::new().block(inner),
    ));
    assert!(nested.implied_type().is_err());
}

#[test]
fn case_12_nested_attributes_never_fall_back_to_dynamic() {
    let b = Block::new().attribute(
        Attribute::nested(
            "n",
            Object::new(NestingMode::List, vec![attr("x", "\"dynamic\"")]),
        )
        .optional(),
    );
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"n":["list",["object",{"x":"dynamic"}]]}]"#
    );
    let n = Value::list(
        Type::object([("x", Type::Dynamic)]),
        vec![Value::object([("x", Value::string("a"))])],
    )
    .unwrap();
    assert_eq!(
        mp(&n, &ty(r#"["list",["object",{"x":"dynamic"}]]"#)),
        format!("9181a17892c408{}a161", ascii("\"string\""))
    );
    // Two elements whose x have different concrete types: go-cty panics.
    let mixed = vec![
        Value::object([("x", Value::string("a"))]),
        Value::object([("x", Value::number(1))]),
    ];
    assert!(Value::list(Type::object([("x", Type::Dynamic)]), mixed).is_err());
}

#[test]
fn case_13_absent_nested_attributes_are_null_not_empty() {
    let b = Block::new()
        .attribute(
            Attribute::nested(
                "single",
                Object::new(NestingMode::Single, vec![attr("a", "\"string\"")]),
            )
            .optional(),
        )
        .attribute(
            Attribute::nested(
                "map",
                Object::new(NestingMode::Map, vec![attr("a", "\"string\"")]),
            )
            .optional(),
        )
        .attribute(
            Attribute::nested(
                "list",
                Object::new(NestingMode::List, vec![attr("a", "\"string\"")]),
            )
            .optional(),
        );
    let empty = b.empty_value().unwrap();
    for name in ["single", "map", "list"] {
        assert!(empty.attr(name).unwrap().is_null(), "{name}");
    }
    assert_eq!(
        mp(&empty, &b.implied_type().unwrap()),
        format!("83a46c697374c0a36d6170c0a673696e676c65c0")
    );
}

#[test]
fn case_14_optional_object_attributes_decode_as_null_and_leave_no_marker() {
    let b = Block::new().attribute(attr("o", r#"["object",{"x":"number","y":"string"},["y"]]"#));
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"o":["object",{"x":"number","y":"string"}]}]"#
    );
    let v = json::decode(br#"{"o":{"x":1}}"#, &t).unwrap();
    assert_eq!(mp(&v, &t), "81a16f82a17801a179c0");
}

#[test]
fn case_15_an_optional_attribute_is_still_written_when_null() {
    let b = Block::new().attribute(attr("o", r#"["object",{"a":"string"},["a"]]"#));
    let t = b.implied_type().unwrap();
    let o = t.attribute_type("o").unwrap();
    assert_eq!(o.to_json(), r#"["object",{"a":"string"}]"#);
    assert_eq!(
        mp(&Value::object([("a", Value::null(Type::String))]), o),
        "81a161c0"
    );
}

#[test]
fn case_16_a_dynamic_attribute_by_value() {
    let d = Type::Dynamic;
    assert_eq!(mp(&Value::null(Type::Dynamic), &d), "c0");
    assert_eq!(
        mp(&Value::null(Type::String), &d),
        format!("92c408{}c0", ascii("\"string\""))
    );
    assert_eq!(
        mp(&Value::unknown(Type::String), &d),
        format!("92c408{}d40000", ascii("\"string\""))
    );
    assert_eq!(mp(&Value::unknown(Type::Dynamic), &d), "d40000");
    assert_eq!(
        json::encode_string(&Value::null(Type::String), &d).unwrap(),
        r#"{"value":null,"type":"string"}"#
    );
    assert_eq!(
        json::encode_string(&Value::null(Type::Dynamic), &d).unwrap(),
        "null"
    );
}

#[test]
fn case_17_a_refined_unknown_string_has_no_json_form() {
    let v = Value::unknown(Type::String)
        .refined(Refinements {
            not_null: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(mp(&v, &Type::String), "c7030c8101c2");
    assert_eq!(
        json::encode(&v, &Type::String).unwrap_err().category(),
        Category::Unrepresentable
    );
}

#[test]
fn case_18_numbers_by_provenance() {
    let n = Type::Number;
    assert_eq!(mp(&Value::number(42), &n), "2a");
    assert_eq!(
        mp(&Value::number(Number::from_f64(1.5).unwrap()), &n),
        "cb3ff8000000000000"
    );
    assert_eq!(
        mp(&Value::number("0.1".parse::<Number>().unwrap()), &n),
        "a3302e31"
    );
    assert_eq!(
        mp(
            &Value::number("18446744073709551616".parse::<Number>().unwrap()),
            &n
        ),
        format!("b4{}", ascii("18446744073709551616"))
    );
    let big = msgpack::decode(&unhex("cfffffffffffffffff"), &n).unwrap();
    assert_eq!(big.as_number().unwrap().to_u64(), Some(u64::MAX));
    let inf = Value::number(Number::infinity(false));
    assert_eq!(mp(&inf, &n), "cb7ff0000000000000");
    assert!(json::encode(&inf, &n).is_err());
}

#[test]
fn case_19_missing_attributes_fail_in_msgpack_and_are_null_in_json() {
    let t = ty(r#"["object",{"a":"number","b":"string"}]"#);
    assert!(msgpack::decode(&unhex("81a16101"), &t).is_err());
    let v = json::decode(br#"{"a":1}"#, &t).unwrap();
    assert!(v.attr("b").unwrap().is_null());
    assert_eq!(
        json::decode(br#"{"a":1,"c":2}"#, &t).unwrap_err().message(),
        r#"unsupported attribute "c""#
    );
}

#[test]
fn case_20_an_empty_msgpack_map_is_not_an_object_with_attributes() {
    let err = msgpack::decode(
        &unhex("80"),
        &ty(r#"["object",{"a":"number","b":"string"}]"#),
    )
    .unwrap_err();
    assert_eq!(
        err.message(),
        r#"an object with 2 attributes is required (0 given): missing attributes "a", "b""#
    );
}

#[test]
fn case_21_extension_codes() {
    assert!(!msgpack::decode(&unhex("d40500"), &Type::String)
        .unwrap()
        .is_known());
    assert!(msgpack::decode(&unhex("d5050000"), &Type::String).is_err());
    assert!(msgpack::decode(&unhex("c7030c810501"), &Type::String).is_err());
}

#[test]
fn case_22_a_list_of_dynamic_takes_its_elements_type() {
    let t = ty(r#"["list","dynamic"]"#);
    let two = msgpack::decode(
        &unhex(&format!(
            "9292c408{s}a16192c408{s}a162",
            s = ascii("\"string\"")
        )),
        &t,
    )
    .unwrap();
    assert_eq!(*two.ty(), ty(r#"["list","string"]"#));
    let mixed = format!(
        "9292c408{}a16192c408{}01",
        ascii("\"string\""),
        ascii("\"number\"")
    );
    assert!(msgpack::decode(&unhex(&mixed), &t).is_err());
    assert_eq!(
        mp(&two, &t),
        format!("9292c408{s}a16192c408{s}a162", s = ascii("\"string\""))
    );
    let empty = msgpack::decode(&unhex("90"), &t).unwrap();
    assert_eq!((empty.ty(), empty.len()), (&t, Some(0)));
    assert_eq!(mp(&empty, &t), "90");
}

#[test]
fn case_23_unknown_dynamic_blocks() {
    let list_block = Block::new().block(NestedBlock::new(
        "b",
        NestingMode::List,
        block_of(vec![attr("v", "\"string\"")]),
    ));
    let t = list_block.implied_type().unwrap();
    let unknown_blocks =
        Value::object([("b", Value::unknown(t.attribute_type("b").unwrap().clone()))]);
    assert_eq!(mp(&unknown_blocks, &t), "81a162d40000");
    let tuple_backed = dynamic_list_block().implied_type().unwrap();
    let v = Value::object([("b", Value::unknown(Type::Dynamic))]);
    assert_eq!(mp(&v, &tuple_backed), "81a162d40000");
    let single = single_block_schema(NestingMode::Single);
    let st = single.implied_type().unwrap();
    let v = Value::object([
        ("s", Value::object([("y", Value::unknown(Type::Number))])),
        ("x", Value::null(Type::String)),
    ]);
    assert_eq!(mp(&v, &st), "82a17381a179d40000a178c0");
}

#[test]
fn case_24_a_computed_list_block_left_out_arrives_null() {
    let mut nb = NestedBlock::new(
        "b",
        NestingMode::List,
        block_of(vec![attr("v", "\"string\"")]),
    );
    nb.block.computed = true;
    let b = Block::new().block(nb);
    let t = b.implied_type().unwrap();
    let v = msgpack::decode(&unhex("81a162c0"), &t).unwrap();
    assert!(v.attr("b").unwrap().is_null());
    assert!(b.validate_value(&v, Purpose::Config).is_empty());
}

#[test]
fn case_25_flatmap_count_keys_decide_null_or_empty() {
    let t = ty(r#"["object",{"tags":["map","string"],"l":["list","string"],"s":"string"}]"#);
    let state: BTreeMap<String, String> = [("tags.%", "1"), ("tags.k", "v"), ("l.#", "0")]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    let v = flatmap::decode(&state, &t).unwrap();
    assert_eq!(mp(&v, &t), "83a16c90a173c0a47461677381a16ba176");
    let mut without_count = state.clone();
    without_count.remove("l.#");
    assert!(flatmap::decode(&without_count, &t)
        .unwrap()
        .attr("l")
        .unwrap()
        .is_null());
}

#[test]
fn case_26_an_identity_schema_is_a_flat_object() {
    let id = IdentitySchema {
        version: 0,
        identity_attributes: vec![IdentityAttribute {
            name: "id".into(),
            ty: Type::String,
            required_for_import: true,
            ..Default::default()
        }],
    };
    let t = id.implied_type().unwrap();
    assert_eq!(t.to_json(), r#"["object",{"id":"string"}]"#);
    assert_eq!(
        mp(&Value::object([("id", Value::string("i-1"))]), &t),
        "81a26964a3692d31"
    );
    assert!(id.to_block().attributes[0].required);
}

#[test]
fn case_27_invalid_nesting_drops_a_block_and_empties_nested_attributes() {
    let b = Block::new()
        .attribute(attr("a", "\"string\""))
        .block(NestedBlock::new(
            "gone",
            NestingMode::Invalid,
            block_of(vec![attr("v", "\"string\"")]),
        ))
        .attribute(
            Attribute::nested(
                "n",
                Object::new(NestingMode::Invalid, vec![attr("v", "\"string\"")]),
            )
            .optional(),
        );
    let t = b.implied_type().unwrap();
    assert_eq!(
        t.to_json(),
        r#"["object",{"a":"string","n":["object",{}]}]"#
    );
    assert_eq!(mp(&b.empty_value().unwrap(), &t), "82a161c0a16ec0");
}

#[test]
fn schemas_terraform_would_reject_are_errors() {
    let both = Attribute {
        nested_type: Some(Object::new(NestingMode::Single, vec![])),
        ..Attribute::new("a", Type::String)
    };
    assert!(Block::new().attribute(both).implied_type().is_err());
    let neither = Attribute {
        name: "a".into(),
        ..Default::default()
    };
    assert!(Block::new().attribute(neither).implied_type().is_err());
    let clash = Block::new()
        .attribute(attr("x", "\"string\""))
        .block(NestedBlock::new("x", NestingMode::Single, Block::new()));
    assert!(clash
        .implied_type()
        .unwrap_err()
        .message()
        .contains("same name as an attribute"));
    let group =
        Block::new().block(NestedBlock::new("g", NestingMode::Group, Block::new()).items(1, 1));
    assert!(group
        .implied_type()
        .unwrap_err()
        .message()
        .contains("GROUP"));
    let set_nested = Block::new().attribute(Attribute::nested(
        "s",
        Object::new(NestingMode::Set, vec![attr("x", "\"dynamic\"")]),
    ));
    assert!(set_nested.implied_type().is_err());
}

/// A schema with every nesting mode, nested attributes, a tuple-backed
/// LIST block and a GROUP block.
fn everything() -> Block {
    let rule = block_of(vec![
        Attribute::new("port", Type::Number).required(),
        attr("cidr", "\"string\""),
    ]);
    Block::new()
        .attribute(Attribute::new("id", Type::String).computed())
        .attribute(Attribute::new("name", Type::String).required())
        .attribute(attr("tags", r#"["map","string"]"#))
        .attribute(
            Attribute::new("secret", Type::String)
                .optional()
                .write_only(),
        )
        .attribute(
            Attribute::nested(
                "endpoints",
                Object::new(
                    NestingMode::List,
                    vec![attr("url", "\"string\""), attr("weight", "\"number\"")],
                ),
            )
            .optional(),
        )
        .attribute(
            Attribute::nested(
                "owner",
                Object::new(
                    NestingMode::Single,
                    vec![Attribute::new("email", Type::String).required()],
                ),
            )
            .optional(),
        )
        .block(NestedBlock::new(
            "timeouts",
            NestingMode::Single,
            block_of(vec![attr("create", "\"string\"")]),
        ))
        .block(NestedBlock::new("rule", NestingMode::List, rule.clone()).items(1, 3))
        .block(NestedBlock::new("ingress", NestingMode::Set, rule.clone()))
        .block(NestedBlock::new("listener", NestingMode::Map, rule))
        .block(NestedBlock::new(
            "settings",
            NestingMode::Group,
            block_of(vec![attr("level", "\"number\"")]),
        ))
        .block(NestedBlock::new(
            "extra",
            NestingMode::List,
            block_of(vec![attr("value", "\"dynamic\"")]),
        ))
}

fn everything_value() -> Value {
    let rule = |port: i64, cidr: &str| {
        Value::object([("cidr", Value::string(cidr)), ("port", Value::number(port))])
    };
    let rule_ty = rule(0, "").ty().clone();
    Value::object([
        ("id", Value::string("i-1")),
        ("name", Value::string("web")),
        (
            "tags",
            Value::map(Type::String, [("env", Value::string("prod"))]).unwrap(),
        ),
        ("secret", Value::null(Type::String)),
        (
            "endpoints",
            Value::list(
                Type::object([("url", Type::String), ("weight", Type::Number)]),
                vec![Value::object([
                    ("url", Value::string("https://a")),
                    ("weight", Value::number(Number::parse("0.5").unwrap())),
                ])],
            )
            .unwrap(),
        ),
        (
            "owner",
            Value::object([("email", Value::string("ops@example.com"))]),
        ),
        (
            "timeouts",
            Value::null(Type::object([("create", Type::String)])),
        ),
        (
            "rule",
            Value::list(rule_ty.clone(), vec![rule(443, "10.0.0.0/8")]).unwrap(),
        ),
        (
            "ingress",
            Value::set(rule_ty.clone(), vec![rule(80, "b"), rule(22, "a")]).unwrap(),
        ),
        (
            "listener",
            Value::map(rule_ty, [("http", rule(80, "0.0.0.0/0"))]).unwrap(),
        ),
        ("settings", Value::object([("level", Value::number(3))])),
        (
            "extra",
            Value::tuple(vec![
                Value::object([("value", Value::string("s"))]),
                Value::object([(
                    "value",
                    Value::list(Type::Number, vec![Value::number(1)]).unwrap(),
                )]),
            ]),
        ),
    ])
}

#[test]
fn a_value_round_trips_by_a_schema_with_every_nesting_mode() {
    let b = everything();
    let t = b.implied_type().unwrap();
    let v = everything_value();
    assert_eq!(
        v.ty().without_optional_attributes().attribute_type("extra"),
        Some(&ty(
            r#"["tuple",[["object",{"value":"string"}],["object",{"value":["list","number"]}]]]"#
        ))
    );
    let bytes = msgpack::encode(&v, &t).unwrap();
    assert_eq!(msgpack::decode(&bytes, &t).unwrap(), v);
    let text = json::encode(&v, &t).unwrap();
    assert_eq!(json::decode(&text, &t).unwrap(), v);
    assert!(b.validate_value(&v, Purpose::Config).is_empty());
    assert!(b.validate_value(&v, Purpose::State).is_empty());
    let dv = DynamicValue::encode(&v, &t).unwrap();
    assert_eq!(dv.decode(&t).unwrap(), v);
}

#[test]
fn validation_reports_every_problem_at_its_path() {
    let b = everything();
    let v = everything_value()
        .with_attr("name", Value::null(Type::String))
        .unwrap()
        .with_attr("secret", Value::string("hunter2"))
        .unwrap()
        .with_attr(
            "owner",
            Value::object([("email", Value::null(Type::String))]),
        )
        .unwrap();
    let config: Vec<String> = b
        .validate_value(&v, Purpose::Config)
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        config,
        [
            r#".name: the attribute "name" is required"#,
            r#".owner.email: the attribute "email" is required"#
        ]
    );
    let state: Vec<String> = b
        .validate_value(&v, Purpose::State)
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        state,
        [r#".secret: the write-only attribute "secret" must be null outside configuration"#]
    );

    let rule_ty = everything_value().attr("rule").unwrap().elements().unwrap()[0]
        .ty()
        .clone();
    let no_rules = everything_value()
        .with_attr("rule", Value::list(rule_ty.clone(), vec![]).unwrap())
        .unwrap();
    let errs = b.validate_value(&no_rules, Purpose::Config);
    assert_eq!(errs.len(), 1);
    assert_eq!(
        errs[0].to_string(),
        r#".rule: at least 1 "rule" blocks are required, 0 given"#
    );
    // Unknown blocks defer the count check, as Terraform does.
    let unknown_rules = everything_value()
        .with_attr(
            "rule",
            Value::list(rule_ty.clone(), vec![Value::unknown(rule_ty)]).unwrap(),
        )
        .unwrap();
    assert!(b.validate_value(&unknown_rules, Purpose::Config).is_empty());
    let in_state = b.validate_value(&unknown_rules, Purpose::State);
    assert_eq!(in_state[0].path().to_string(), ".rule[0]");
}
