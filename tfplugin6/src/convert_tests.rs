//! Conversions between protobuf and ctywire: round trips, each step kind,
//! and inputs ctywire cannot hold (errors, never panics).

use std::collections::BTreeMap;

use crate::convert::*;
use crate::pb::tfplugin6 as pb;
use crate::{Diagnostic, Function, Parameter, RawState, Severity};
use ctywire::schema::{
    Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, NestingMode, Object, Schema,
    StringKind,
};
use ctywire::{Path, PathStep, Type, Value};

fn every_kind_of_schema() -> Schema {
    let mut described = Attribute::new("name", Type::String).required();
    described.description = "the **name**".into();
    described.description_kind = StringKind::Markdown;
    described.deprecated = true;
    described.deprecation_message = "use `title`".into();
    let mut block = Block::new()
        .attribute(described)
        .attribute(Attribute::new("id", Type::String).computed())
        .attribute(Attribute::new("token", Type::String).optional().sensitive())
        .attribute(
            Attribute::new("password", Type::String)
                .optional()
                .write_only(),
        )
        .attribute(
            Attribute::new(
                "opts",
                Type::parse(r#"["object",{"a":"string","b":"number"},["b"]]"#).unwrap(),
            )
            .optional(),
        )
        .attribute(
            Attribute::nested(
                "endpoints",
                Object::new(
                    NestingMode::Set,
                    vec![
                        Attribute::new("url", Type::String).required(),
                        Attribute::new("key", Type::String).optional().write_only(),
                    ],
                ),
            )
            .optional(),
        );
    for (name, mode) in [
        ("single", NestingMode::Single),
        ("list", NestingMode::List),
        ("set", NestingMode::Set),
        ("map", NestingMode::Map),
        ("group", NestingMode::Group),
    ] {
        let mut nb = NestedBlock::new(
            name,
            mode,
            Block::new().attribute(Attribute::new("x", Type::Number).optional()),
        );
        if mode == NestingMode::List {
            nb = nb.items(1, 3);
        }
        block = block.block(nb);
    }
    block.description = "a block".into();
    block.deprecated = true;
    block.deprecation_message = "the whole type goes in 2.0".into();
    Schema { version: 3, block }
}

#[test]
fn a_schema_survives_the_round_trip_through_protobuf() {
    let schema = every_kind_of_schema();
    let proto = schema_to_proto(&schema);
    assert_eq!(schema_from_proto(&proto).unwrap(), schema);
    // And through the wire bytes.
    let bytes = prost::Message::encode_to_vec(&proto);
    let back: pb::Schema = prost::Message::decode(bytes.as_slice()).unwrap();
    assert_eq!(schema_from_proto(&back).unwrap(), schema);
}

#[test]
fn schema_flags_land_in_their_protobuf_fields() {
    let proto = schema_to_proto(&every_kind_of_schema());
    let block = proto.block.unwrap();
    let by_name = |n: &str| block.attributes.iter().find(|a| a.name == n).unwrap();
    assert!(by_name("password").write_only);
    assert!(by_name("token").sensitive);
    assert!(by_name("name").deprecated && by_name("name").required);
    assert_eq!(
        by_name("name").description_kind,
        pb::StringKind::Markdown as i32
    );
    assert_eq!(
        by_name("opts").r#type,
        br#"["object",{"a":"string","b":"number"},["b"]]"#
    );
    let endpoints = by_name("endpoints").nested_type.as_ref().unwrap();
    assert_eq!(
        endpoints.nesting,
        pb::schema::object::NestingMode::Set as i32
    );
    assert!(endpoints.attributes[1].write_only);
    let list = block
        .block_types
        .iter()
        .find(|b| b.type_name == "list")
        .unwrap();
    assert_eq!((list.nesting, list.min_items, list.max_items), (2, 1, 3));
    let group = block
        .block_types
        .iter()
        .find(|b| b.type_name == "group")
        .unwrap();
    assert_eq!(group.nesting, 5);
}

#[test]
fn a_malformed_attribute_type_is_an_error_at_the_attribute() {
    let proto = pb::Schema {
        version: 0,
        block: Some(pb::schema::Block {
            block_types: vec![pb::schema::NestedBlock {
                type_name: "rule".into(),
                nesting: 2,
                block: Some(pb::schema::Block {
                    attributes: vec![pb::schema::Attribute {
                        name: "port".into(),
                        r#type: b"[\"nope\"".to_vec(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
    };
    let e = schema_from_proto(&proto).unwrap_err();
    assert_eq!(e.path(), &Path::root().attr("rule").attr("port"));
}

#[test]
fn each_path_step_kind_keeps_its_kind_through_protobuf() {
    use pb::attribute_path::step::Selector;
    let path = Path::root().attr("rule").index(2).attr("tags").key("Name");
    let proto = path_to_proto(&path);
    assert_eq!(
        proto
            .steps
            .iter()
            .map(|s| s.selector.clone().unwrap())
            .collect::<Vec<_>>(),
        vec![
            Selector::AttributeName("rule".into()),
            Selector::ElementKeyInt(2),
            Selector::AttributeName("tags".into()),
            Selector::ElementKeyString("Name".into()),
        ]
    );
    assert_eq!(path_from_proto(&proto).unwrap(), path);
    assert_eq!(
        path_from_proto(&pb::AttributePath::default()).unwrap(),
        Path::root()
    );
}

#[test]
fn paths_ctywire_cannot_hold_are_errors_naming_the_step() {
    use pb::attribute_path::{step::Selector, Step};
    let negative = pb::AttributePath {
        steps: vec![
            Step {
                selector: Some(Selector::AttributeName("a".into())),
            },
            Step {
                selector: Some(Selector::ElementKeyInt(-1)),
            },
        ],
    };
    assert!(path_from_proto(&negative)
        .unwrap_err()
        .to_string()
        .contains("step 1"));
    let empty = pb::AttributePath {
        steps: vec![Step { selector: None }],
    };
    assert!(path_from_proto(&empty)
        .unwrap_err()
        .to_string()
        .contains("step 0"));
}

#[test]
fn a_ctywire_error_becomes_an_error_diagnostic_at_its_path() {
    let e = ctywire::Error::custom("must be even").within(&Path::root().attr("size"));
    let d = Diagnostic::from(e);
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.summary, "must be even");
    assert_eq!(d.attribute, Some(Path::root().attr("size")));
    let proto = diagnostic_to_proto(&d);
    assert_eq!(proto.severity, pb::diagnostic::Severity::Error as i32);
    assert_eq!(diagnostic_from_proto(&proto), d);
    // At the root there is no attribute.
    let d = Diagnostic::from(ctywire::Error::custom("bad"));
    assert_eq!(diagnostic_to_proto(&d).attribute, None);
}

#[test]
fn warnings_and_their_paths_survive_the_round_trip() {
    let d = Diagnostic::warning("deprecated")
        .with_detail("use y")
        .at(Path::root().attr("x").key("k"));
    assert_eq!(diagnostic_from_proto(&diagnostic_to_proto(&d)), d);
    // A path ctywire cannot hold is dropped, and said so.
    let mut proto = diagnostic_to_proto(&d);
    proto.attribute.as_mut().unwrap().steps[0].selector =
        Some(pb::attribute_path::step::Selector::ElementKeyInt(-5));
    let back = diagnostic_from_proto(&proto);
    assert_eq!(back.attribute, None);
    assert!(back.detail.contains("dropped"), "{}", back.detail);
}

#[test]
fn dynamic_values_decode_from_msgpack_else_json_else_null() {
    let ty = Type::object([("id", Type::String)]);
    let v = Value::object([("id", Value::string("x"))]);
    let dv = encode_dynamic_value(&v, &ty).unwrap();
    assert_eq!(dv.msgpack, b"\x81\xa2id\xa1x");
    assert!(dv.json.is_empty());
    assert_eq!(decode_dynamic_value(Some(&dv), &ty).unwrap(), v);
    let json = pb::DynamicValue {
        msgpack: vec![],
        json: br#"{"id":"x"}"#.to_vec(),
    };
    assert_eq!(decode_dynamic_value(Some(&json), &ty).unwrap(), v);
    assert!(
        decode_dynamic_value(Some(&pb::DynamicValue::default()), &ty)
            .unwrap()
            .is_null()
    );
    assert!(decode_dynamic_value(None, &ty).unwrap().is_null());
}

#[test]
fn a_malformed_dynamic_value_is_an_error_at_its_path() {
    let ty = Type::object([("tags", Type::map(Type::Number))]);
    // {"tags": {"k": "x"}}
    let dv = pb::DynamicValue {
        msgpack: b"\x81\xa4tags\x81\xa1k\xa1x".to_vec(),
        json: vec![],
    };
    let e = decode_dynamic_value(Some(&dv), &ty).unwrap_err();
    assert_eq!(e.path(), &Path::root().attr("tags").key("k"));
    // Truncated and garbage input: errors, not panics.
    for bytes in [
        &b"\x81\xa4ta"[..],
        &[0xc1],
        &[0xff; 16],
        &[0xdf, 0xff, 0xff, 0xff, 0xff],
    ] {
        let dv = pb::DynamicValue {
            msgpack: bytes.to_vec(),
            json: vec![],
        };
        assert!(decode_dynamic_value(Some(&dv), &ty).is_err());
    }
    // A value of another type cannot be encoded at this one.
    let e = encode_dynamic_value(&Value::object([("tags", Value::bool(true))]), &ty).unwrap_err();
    assert_eq!(e.path().steps()[0], PathStep::Attr("tags".into()));
}

#[test]
fn raw_state_is_read_from_json_else_flatmap() {
    let ty = Type::object([("id", Type::String), ("n", Type::Number)]);
    let json = RawState {
        json: br#"{"id":"a","n":1}"#.to_vec(),
        flatmap: BTreeMap::new(),
    };
    let v = json.decode(&ty).unwrap();
    assert_eq!(v.attr("id").unwrap().as_str(), Some("a"));
    let flat = RawState {
        json: vec![],
        flatmap: [
            ("id".to_string(), "b".to_string()),
            ("n".into(), "2".into()),
        ]
        .into(),
    };
    assert_eq!(
        flat.decode(&ty).unwrap().attr("id").unwrap().as_str(),
        Some("b")
    );
    assert!(RawState::default().decode(&ty).unwrap().is_null());
    let proto = pb::RawState {
        json: vec![],
        flatmap: [("id".to_string(), "c".to_string())].into(),
    };
    assert_eq!(raw_state_from_proto(Some(proto)).flatmap["id"], "c");
}

#[test]
fn write_only_attributes_are_nulled_wherever_they_are_nested() {
    let schema = every_kind_of_schema();
    let ty = schema.implied_type().unwrap();
    let mut v = schema.block.empty_value().unwrap();
    v = v.with_attr("password", Value::string("pw")).unwrap();
    v = v.with_attr("name", Value::string("n")).unwrap();
    let endpoints = Value::set(
        ty.attribute_type("endpoints")
            .unwrap()
            .element_type()
            .unwrap()
            .clone(),
        vec![Value::object([
            ("url", Value::string("u")),
            ("key", Value::string("k")),
        ])],
    )
    .unwrap();
    v = v.with_attr("endpoints", endpoints).unwrap();
    let out = schema.block.null_write_only(v).unwrap();
    assert!(out.attr("password").unwrap().is_null());
    assert_eq!(out.attr("name").unwrap().as_str(), Some("n"));
    let e = &out.attr("endpoints").unwrap().elements().unwrap()[0];
    assert!(e.attr("key").unwrap().is_null());
    assert_eq!(e.attr("url").unwrap().as_str(), Some("u"));
}

#[test]
fn a_function_signature_survives_the_round_trip() {
    let f = Function {
        parameters: vec![Parameter {
            allow_null_value: true,
            ..Parameter::new("s", Type::String)
        }],
        variadic_parameter: Some(Parameter::new("rest", Type::list(Type::Number))),
        return_type: Type::Bool,
        summary: "checks".into(),
        description: "checks things".into(),
        description_kind: StringKind::Markdown,
        deprecation_message: String::new(),
    };
    assert_eq!(function_from_proto(&function_to_proto(&f)).unwrap(), f);
}

#[test]
fn deprecation_messages_land_in_their_6_10_fields() {
    let proto = schema_to_proto(&every_kind_of_schema());
    let block = proto.block.unwrap();
    assert_eq!(block.deprecation_message, "the whole type goes in 2.0");
    let name = block.attributes.iter().find(|a| a.name == "name").unwrap();
    assert_eq!(
        (name.deprecated, name.deprecation_message.as_str()),
        (true, "use `title`")
    );
}

#[test]
fn an_identity_schema_and_identity_survive_the_round_trip() {
    let schema = IdentitySchema {
        version: 2,
        identity_attributes: vec![
            IdentityAttribute {
                name: "name".into(),
                ty: Type::String,
                required_for_import: true,
                optional_for_import: false,
                description: "the name".into(),
            },
            IdentityAttribute {
                name: "zones".into(),
                ty: Type::list(Type::String),
                required_for_import: false,
                optional_for_import: true,
                description: String::new(),
            },
        ],
    };
    let proto = identity_schema_to_proto(&schema);
    let bytes = prost::Message::encode_to_vec(&proto);
    let back: pb::ResourceIdentitySchema = prost::Message::decode(bytes.as_slice()).unwrap();
    assert_eq!(identity_schema_from_proto(&back).unwrap(), schema);

    let ty = schema.implied_type().unwrap();
    let id = Value::object([
        ("name", Value::string("a")),
        ("zones", Value::null(Type::list(Type::String))),
    ]);
    let data = identity_to_proto(&id, &ty).unwrap();
    assert_eq!(identity_from_proto(Some(&data), &ty).unwrap(), Some(id));
    assert_eq!(identity_from_proto(None, &ty).unwrap(), None);
}

#[test]
fn a_malformed_identity_attribute_type_is_an_error_at_the_attribute() {
    let proto = pb::ResourceIdentitySchema {
        version: 0,
        identity_attributes: vec![pb::resource_identity_schema::IdentityAttribute {
            name: "name".into(),
            r#type: b"\"strin\"".to_vec(),
            ..Default::default()
        }],
    };
    let err = identity_schema_from_proto(&proto).unwrap_err();
    assert_eq!(err.path().to_string(), ".name");
}
