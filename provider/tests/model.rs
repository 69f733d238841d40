//! `#[derive(Model)]`: the block a model derives, the protocol block it
//! sends, and the object type through which the model's own values go.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ctywire_provider::ctywire::schema::{self as tf, NestingMode, StringKind};
use ctywire_provider::ctywire::{self, Number, Type, Unknowable, Value};
use ctywire_provider::schema::{Block, Presence, Validator};
use ctywire_provider::{AttributeType, Model};
use serde::{Deserialize, Serialize};

fn key_is_a_file_name(key: &String) -> Result<(), String> {
    if key.is_empty() {
        Err("must not be empty".into())
    } else if key.contains('/') {
        Err("must not contain \"/\"".into())
    } else if key.starts_with('.') {
        Err("must not start with \".\"".into())
    } else {
        Ok(())
    }
}

/// An entry of the store: one file.
#[derive(Model, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct KvEntry {
    /// The entry's key:
    /// its file name.
    #[model(requires_replace, validate = key_is_a_file_name)]
    key: String,
    /// What the file holds.
    #[model(sensitive)]
    value: String,
    tags: Option<BTreeMap<String, String>>,
    #[model(each(range(1, 65535)))]
    ports: Option<BTreeSet<u16>>,
    #[model(block)]
    rule: Vec<Rule>,
    /// The key, known at plan.
    #[model(computed, same_as = "key")]
    id: Option<String>,
    #[model(computed)]
    revision: Option<i64>,
}

/// A rule on a port.
#[derive(Model, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Rule {
    #[model(range(1, 65535))]
    port: u16,
    note: Option<String>,
}

fn n(i: i64) -> Option<Number> {
    Some(Number::from(i))
}

/// A range validator as (min, max, whole), to compare.
fn range(v: &Validator) -> Option<(Option<Number>, Option<Number>, bool)> {
    match v {
        Validator::Range { min, max, whole } => Some((min.clone(), max.clone(), *whole)),
        _ => None,
    }
}

#[test]
fn kv_entry_derives_its_block() {
    let b = KvEntry::block();
    assert_eq!(b.description, "An entry of the store: one file.");
    assert!(b.defects.is_empty());
    let names: Vec<&str> = b.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["key", "value", "tags", "ports", "id", "revision"]);

    let key = b.attribute("key").unwrap();
    assert_eq!(key.ty, Type::String);
    assert_eq!(key.presence, Presence::Required);
    assert_eq!(key.description, "The entry's key: its file name.");
    assert!(key.plan.requires_replace && !key.plan.keep_state && !key.sensitive);
    let [Validator::Custom(check)] = &key.validators[..] else {
        panic!("{:?}", key.validators)
    };
    assert_eq!(
        check(&Value::string("a/b")),
        Err("must not contain \"/\"".into())
    );
    assert_eq!(
        check(&Value::string(".hidden")),
        Err("must not start with \".\"".into())
    );
    assert_eq!(check(&Value::string("ok")), Ok(()));

    let value = b.attribute("value").unwrap();
    assert!(value.sensitive);
    assert_eq!(value.presence, Presence::Required);

    let tags = b.attribute("tags").unwrap();
    assert_eq!(tags.ty, Type::map(Type::String));
    assert_eq!(tags.presence, Presence::Optional);
    assert!(tags.validators.is_empty());

    // One range per port, the declared one with the type's wholeness.
    let ports = b.attribute("ports").unwrap();
    assert_eq!(ports.ty, Type::set(Type::Number));
    assert_eq!(ports.presence, Presence::Optional);
    let [Validator::Each(each)] = &ports.validators[..] else {
        panic!("{:?}", ports.validators)
    };
    assert_eq!(
        each.iter().map(range).collect::<Vec<_>>(),
        [Some((n(1), n(65535), true))]
    );

    let id = b.attribute("id").unwrap();
    assert_eq!(id.presence, Presence::Computed);
    assert_eq!(id.plan.same_as.as_deref(), Some("key"));
    assert_eq!(id.description, "The key, known at plan.");
    let revision = b.attribute("revision").unwrap();
    assert_eq!(
        (revision.presence, revision.ty.clone()),
        (Presence::Computed, Type::Number)
    );
    assert_eq!(
        revision.validators.iter().map(range).collect::<Vec<_>>(),
        [Some((
            Some(Number::from(i64::MIN)),
            Some(Number::from(i64::MAX)),
            true
        ))]
    );

    let [rule] = &b.blocks[..] else {
        panic!("{:?}", b.blocks)
    };
    assert_eq!(
        (rule.name.as_str(), rule.nesting),
        ("rule", NestingMode::List)
    );
    assert_eq!((rule.min_items, rule.max_items), (0, 0));
    assert_eq!(rule.block.description, "A rule on a port.");
    let port = rule.block.attribute("port").unwrap();
    assert_eq!(port.presence, Presence::Required);
    assert_eq!(
        port.validators.iter().map(range).collect::<Vec<_>>(),
        [Some((n(1), n(65535), true))]
    );
    assert_eq!(
        rule.block.attribute("note").unwrap().presence,
        Presence::Optional
    );
    assert_eq!(b.check(), Ok(()));
}

fn attr(name: &str, ty: Type) -> tf::Attribute {
    tf::Attribute::new(name, ty)
}

#[test]
fn kv_entry_sends_the_protocol_block() {
    let doc = |mut a: tf::Attribute, d: &str| {
        a.description = d.into();
        a
    };
    let rule = tf::Block {
        description: "A rule on a port.".into(),
        ..tf::Block::new()
            .attribute(attr("port", Type::Number).required())
            .attribute(attr("note", Type::String).optional())
    };
    let expected = tf::Block {
        description: "An entry of the store: one file.".into(),
        description_kind: StringKind::Plain,
        ..tf::Block::new()
            .attribute(doc(
                attr("key", Type::String).required(),
                "The entry's key: its file name.",
            ))
            .attribute(doc(
                attr("value", Type::String).required().sensitive(),
                "What the file holds.",
            ))
            .attribute(attr("tags", Type::map(Type::String)).optional())
            .attribute(attr("ports", Type::set(Type::Number)).optional())
            .attribute(doc(
                attr("id", Type::String).computed(),
                "The key, known at plan.",
            ))
            .attribute(attr("revision", Type::Number).computed())
            .block(tf::NestedBlock::new("rule", NestingMode::List, rule))
    };
    assert_eq!(KvEntry::block().to_schema_block(), expected);
}

#[test]
fn kv_entry_implies_the_object_its_schema_implies() {
    let expected = Type::parse(
        r#"["object",{"key":"string","value":"string","tags":["map","string"],
        "ports":["set","number"],"id":"string","revision":"number",
        "rule":["list",["object",{"port":"number","note":"string"}]]}]"#,
    )
    .unwrap();
    assert_eq!(KvEntry::cty_type(), expected);
    assert_eq!(
        KvEntry::block().to_schema_block().implied_type().unwrap(),
        expected
    );
}

#[test]
fn a_model_goes_through_its_own_type_and_back() {
    let entry = KvEntry {
        key: "a".into(),
        value: "secret".into(),
        tags: Some(BTreeMap::from([("env".into(), "prod".into())])),
        ports: Some(BTreeSet::from([443, 80])),
        rule: vec![Rule {
            port: 22,
            note: None,
        }],
        id: None,
        revision: Some(3),
    };
    let v = ctywire::to_value(&entry, &KvEntry::cty_type()).unwrap();
    assert_eq!(v.ty(), &KvEntry::cty_type());
    assert_eq!(v.attr("id"), Some(&Value::null(Type::String)));
    assert_eq!(ctywire::from_value::<KvEntry>(&v).unwrap(), entry);
}
