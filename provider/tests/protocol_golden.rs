//! Protocol 6.9–6.10 messages as another implementation writes them:
//! `golden/tfplugin6/*.bin` were encoded by Google's protobuf for Python
//! from upstream's tfplugin6.proto (terraform-plugin-go's copy) with
//! msgpack for Python writing the values; `golden/make_tfplugin6.py` made
//! them and says how to again. Each is decoded with this crate's
//! protobuf types and conversions, checked field by field, and encoded
//! again to the same bytes; values are encoded again by ctywire's msgpack
//! to the same bytes too. A field number or type that differs from
//! upstream's fails here, where `newer_protocol` (both ends built from this
//! repository's .proto) cannot see it.

use ctywire_provider::tfplugin6::client::{
    decode_dynamic_value, diagnostic_from_proto, encode_dynamic_value, identity_from_proto,
    identity_schema_from_proto, identity_to_proto, schema_from_proto,
};
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::{Type, Value};
use prost::Message;

/// The golden bytes of `name`, decoded as `M`; fails unless encoding the
/// message again gives the same bytes.
fn golden<M: Message + Default>(name: &str) -> M {
    let path = format!(
        "{}/tests/golden/tfplugin6/{name}.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let m = M::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        m.encode_to_vec(),
        bytes,
        "{name} encodes again to other bytes"
    );
    m
}

fn identity_type() -> Type {
    Type::object([("key", Type::String), ("region", Type::String)])
}

fn entry_type() -> Type {
    Type::object([
        ("id", Type::String),
        ("key", Type::String),
        ("value", Type::String),
    ])
}

fn entry() -> Value {
    Value::object([
        ("id", Value::string("a")),
        ("key", Value::string("a")),
        ("value", Value::string("one")),
    ])
}

/// An identity as the golden messages carry it, checked both ways: decoded
/// to the value, and the value encoded to the same msgpack.
fn check_identity(d: Option<&pb::ResourceIdentityData>) {
    let ty = identity_type();
    let want = Value::object([("key", Value::string("a")), ("region", Value::string("eu"))]);
    assert_eq!(identity_from_proto(d, &ty).unwrap(), Some(want.clone()));
    assert_eq!(Some(&identity_to_proto(&want, &ty).unwrap()), d);
}

/// A dynamic value holding `want`, checked both ways.
fn check_value(dv: Option<&pb::DynamicValue>, ty: &Type, want: &Value) {
    assert_eq!(&decode_dynamic_value(dv, ty).unwrap(), want);
    assert_eq!(Some(&encode_dynamic_value(want, ty).unwrap()), dv);
}

fn check_warning(ds: &[pb::Diagnostic]) {
    assert_eq!(ds.len(), 1);
    let d = diagnostic_from_proto(&ds[0]);
    assert!(!d.is_error());
    assert_eq!(
        (d.summary.as_str(), d.detail.as_str()),
        ("Old identity", "Upgraded from version 1.")
    );
}

#[test]
fn an_identity_schema_reads_as_upstream_writes_it() {
    let m: pb::get_resource_identity_schemas::Response =
        golden("get_resource_identity_schemas.response");
    let s = identity_schema_from_proto(&m.identity_schemas["kv_entry"]).unwrap();
    assert_eq!(s.version, 2);
    let attrs: Vec<_> = (s.identity_attributes.iter())
        .map(|a| {
            (
                a.name.as_str(),
                a.ty.clone(),
                a.required_for_import,
                a.optional_for_import,
            )
        })
        .collect();
    assert_eq!(
        attrs,
        [
            ("key", Type::String, true, false),
            ("region", Type::String, false, true)
        ]
    );
    assert_eq!(s.identity_attributes[0].description, "The entry's key.");
    assert!(m.diagnostics.is_empty());
}

#[test]
fn an_identity_upgrade_reads_as_upstream_writes_it() {
    let req: pb::upgrade_resource_identity::Request = golden("upgrade_resource_identity.request");
    assert_eq!((req.type_name.as_str(), req.version), ("kv_entry", 1));
    assert_eq!(
        req.raw_identity.map(|r| r.json),
        Some(br#"{"key":"a"}"#.to_vec())
    );
    let resp: pb::upgrade_resource_identity::Response =
        golden("upgrade_resource_identity.response");
    check_identity(resp.upgraded_identity.as_ref());
    check_warning(&resp.diagnostics);
}

#[test]
fn identities_in_read_plan_and_import_read_as_upstream_writes_them() {
    let read: pb::read_resource::Request = golden("read_resource.request");
    assert_eq!(
        (read.type_name.as_str(), read.private.as_slice()),
        ("kv_entry", &b"p"[..])
    );
    check_value(read.current_state.as_ref(), &entry_type(), &entry());
    check_identity(read.current_identity.as_ref());

    let plan: pb::plan_resource_change::Response = golden("plan_resource_change.response");
    check_value(plan.planned_state.as_ref(), &entry_type(), &entry());
    assert_eq!(plan.planned_private, b"p");
    check_identity(plan.planned_identity.as_ref());

    let import: pb::import_resource_state::Request = golden("import_resource_state.request");
    assert_eq!(
        (import.type_name.as_str(), import.id.as_str()),
        ("kv_entry", "")
    );
    check_identity(import.identity.as_ref());
}

#[test]
fn a_list_request_and_its_events_read_as_upstream_writes_them() {
    let req: pb::list_resource::Request = golden("list_resource.request");
    assert_eq!(req.type_name, "kv_entry");
    let config_ty = Type::object([("prefix", Type::String)]);
    check_value(
        req.config.as_ref(),
        &config_ty,
        &Value::object([("prefix", Value::string("a"))]),
    );
    assert!(req.include_resource_object);
    assert_eq!(req.limit, 100_000);

    let event: pb::list_resource::Event = golden("list_resource.event");
    check_identity(event.identity.as_ref());
    assert_eq!(event.display_name, "a");
    check_value(event.resource_object.as_ref(), &entry_type(), &entry());
    check_warning(&event.diagnostic);

    let v: pb::validate_list_resource_config::Request =
        golden("validate_list_resource_config.request");
    assert_eq!(v.type_name, "kv_entry");
    let no_prefix = Value::object([("prefix", Value::null(Type::String))]);
    check_value(v.config.as_ref(), &config_ty, &no_prefix);
    check_value(
        v.include_resource_object.as_ref(),
        &Type::Bool,
        &Value::bool(true),
    );
    check_value(v.limit.as_ref(), &Type::Number, &Value::number(10));
}

#[test]
fn an_action_and_its_events_read_as_upstream_writes_them() {
    let plan: pb::plan_action::Request = golden("plan_action.request");
    assert_eq!(plan.action_type, "kv_count");
    let config_ty = Type::object([("to", Type::Number)]);
    check_value(
        plan.config.as_ref(),
        &config_ty,
        &Value::object([("to", Value::number(3))]),
    );
    assert!(plan.client_capabilities.is_some_and(|c| c.deferral_allowed));

    use pb::invoke_action::event::Type as Event;
    let progress: pb::invoke_action::Event = golden("invoke_action.event.progress");
    match progress.r#type {
        Some(Event::Progress(p)) => assert_eq!(p.message, "2 of 3"),
        other => panic!("not progress: {other:?}"),
    }
    let completed: pb::invoke_action::Event = golden("invoke_action.event.completed");
    match completed.r#type {
        Some(Event::Completed(c)) => check_warning(&c.diagnostics),
        other => panic!("not completed: {other:?}"),
    }
}

#[test]
fn generated_config_and_deprecation_messages_read_as_upstream_writes_them() {
    let g: pb::generate_resource_config::Response = golden("generate_resource_config.response");
    let config = Value::object([
        ("id", Value::null(Type::String)),
        ("key", Value::string("a")),
        ("value", Value::string("one")),
    ]);
    check_value(g.config.as_ref(), &entry_type(), &config);

    let a: pb::schema::Attribute = golden("schema.attribute.deprecated");
    let schema = pb::Schema {
        version: 0,
        block: Some(pb::schema::Block {
            attributes: vec![a],
            ..Default::default()
        }),
    };
    let s = schema_from_proto(&schema).unwrap();
    let old = &s.block.attributes[0];
    assert_eq!(
        (old.name.as_str(), &old.ty),
        ("old_value", &Some(Type::String))
    );
    assert!(old.optional && old.deprecated && !old.required);
    assert_eq!(old.deprecation_message, "use value instead");
}
