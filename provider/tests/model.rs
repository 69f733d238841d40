//! `#[derive(Model)]`: the block a model derives, the protocol block it
//! sends, and the object type through which the model's own values go.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use ctywire_provider::ctywire::schema::{self as tf, NestingMode, StringKind};
use ctywire_provider::ctywire::{self, Number, Type, Unknowable, Value};
use ctywire_provider::schema::{Presence, Validator};
use ctywire_provider::{AttributeType, Model};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn key_is_a_file_name(key: &str) -> Result<(), String> {
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
    // A String cannot hold a null: a null tag is refused at validation.
    let [Validator::Each(each)] = &tags.validators[..] else {
        panic!("{:?}", tags.validators)
    };
    let [Validator::NotNull { rust_type }] = &each[..] else {
        panic!("{each:?}")
    };
    assert_eq!(rust_type, "String");

    // One range per port, the declared one with the type's wholeness.
    let ports = b.attribute("ports").unwrap();
    assert_eq!(ports.ty, Type::set(Type::Number));
    assert_eq!(ports.presence, Presence::Optional);
    let [Validator::Each(each)] = &ports.validators[..] else {
        panic!("{:?}", ports.validators)
    };
    assert_eq!(
        each.iter().map(range).collect::<Vec<_>>(),
        [Some((n(1), n(65535), true)), None]
    );
    assert!(matches!(&each[1], Validator::NotNull { rust_type } if rust_type == "u16"));

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

/// serde's names are the schema's names.
#[derive(Model, Serialize, Deserialize, Debug, PartialEq, Default)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
struct Renamed {
    #[serde(rename = "type")]
    kind: String,
    r#match: Option<String>,
    #[serde(rename(serialize = "size_gb", deserialize = "size_gb"))]
    size: Option<u32>,
    #[serde(skip)]
    cache: Vec<u8>,
    #[serde(skip_serializing, skip_deserializing)]
    scratch: Option<String>,
}

#[test]
fn fields_are_named_as_serde_names_them() {
    let b = Renamed::block();
    let names: Vec<&str> = b.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["type", "match", "size_gb"]);
    assert_eq!(
        Renamed::cty_type(),
        Type::object([
            ("type", Type::String),
            ("match", Type::String),
            ("size_gb", Type::Number)
        ])
    );
    let r = Renamed {
        kind: "disk".into(),
        size: Some(20),
        ..Renamed::default()
    };
    let v = ctywire::to_value(&r, &Renamed::cty_type()).unwrap();
    assert_eq!(
        v.to_string(),
        r#"{"match" = null, "size_gb" = 20, "type" = "disk"}"#
    );
    assert_eq!(ctywire::from_value::<Renamed>(&v).unwrap(), r);
    assert_eq!(b.check(), Ok(()));
}

/// A name Terraform refuses is a defect `check` reports.
#[derive(Model, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CamelCase {
    disk_size: u32,
    name: String,
}

#[test]
fn a_name_terraform_refuses_is_reported_by_check() {
    let b = CamelCase::block();
    assert_eq!(b.attributes[0].name, "diskSize");
    assert_eq!(
        b.check(),
        Err(".diskSize: a name may contain only lowercase letters, digits and underscores".into())
    );
}

#[derive(Model, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Item {
    name: String,
    size: Option<u8>,
}

/// Each nesting mode of blocks, from the container.
#[derive(Model, Serialize, Deserialize, Debug, PartialEq)]
struct Blocks {
    #[model(block)]
    single: Option<Item>,
    #[model(block(min_items = 1, max_items = 3))]
    list: Vec<Item>,
    #[model(block)]
    set: BTreeSet<Item>,
    #[model(block(set))]
    vec_set: Vec<Item>,
    #[model(block)]
    hash_set: HashSet<Item>,
    #[model(block)]
    map: BTreeMap<String, Item>,
    #[model(block)]
    hash_map: HashMap<String, Item>,
    /// Always there.
    #[model(block)]
    group: Item,
}

#[test]
fn each_container_gives_its_block_nesting() {
    let b = Blocks::block();
    let modes: Vec<(&str, NestingMode, u64, u64)> = b
        .blocks
        .iter()
        .map(|nb| (nb.name.as_str(), nb.nesting, nb.min_items, nb.max_items))
        .collect();
    assert_eq!(
        modes,
        [
            ("single", NestingMode::Single, 0, 0),
            ("list", NestingMode::List, 1, 3),
            ("set", NestingMode::Set, 0, 0),
            ("vec_set", NestingMode::Set, 0, 0),
            ("hash_set", NestingMode::Set, 0, 0),
            ("map", NestingMode::Map, 0, 0),
            ("hash_map", NestingMode::Map, 0, 0),
            ("group", NestingMode::Group, 0, 0),
        ]
    );
    assert!(b.attributes.is_empty());
    // The field's doc comment describes the block where it is used.
    assert_eq!(b.block("group").unwrap().block.description, "Always there.");
    assert_eq!(b.block("single").unwrap().block.description, "");
    assert_eq!(b.check(), Ok(()));

    let item = Item::cty_type();
    assert_eq!(
        item,
        Type::object([("name", Type::String), ("size", Type::Number)])
    );
    let proto = b.to_schema_block();
    assert_eq!(proto.block_types[1].min_items, 1);
    assert_eq!(proto.block_types[1].max_items, 3);
    assert_eq!(
        Blocks::cty_type(),
        Type::object([
            ("single", item.clone()),
            ("list", Type::list(item.clone())),
            ("set", Type::set(item.clone())),
            ("vec_set", Type::set(item.clone())),
            ("hash_set", Type::set(item.clone())),
            ("map", Type::map(item.clone())),
            ("hash_map", Type::map(item.clone())),
            ("group", item.clone()),
        ])
    );

    let one = Item {
        name: "a".into(),
        size: Some(1),
    };
    let two = Item {
        name: "b".into(),
        size: None,
    };
    let blocks = Blocks {
        single: None,
        list: vec![two.clone(), one.clone()],
        set: BTreeSet::from([one.clone(), two.clone()]),
        vec_set: vec![two.clone(), one.clone()],
        hash_set: HashSet::from([one.clone()]),
        map: BTreeMap::from([("x".into(), one.clone())]),
        hash_map: HashMap::from([("y".into(), two.clone())]),
        group: one.clone(),
    };
    let v = ctywire::to_value(&blocks, &Blocks::cty_type()).unwrap();
    let back: Blocks = ctywire::from_value(&v).unwrap();
    // A Vec written as a set comes back in the set's order.
    assert_eq!(back.vec_set, vec![one.clone(), two.clone()]);
    assert_eq!(
        Blocks {
            vec_set: vec![one, two],
            ..back
        },
        Blocks {
            vec_set: blocks.vec_set.iter().rev().cloned().collect(),
            ..blocks
        }
    );
}

/// Each nesting mode of nested attributes.
#[derive(Model, Serialize, Deserialize, Debug, PartialEq)]
struct NestedAttributes {
    #[model(nested)]
    single: Option<Item>,
    #[model(nested)]
    required_single: Item,
    #[model(nested)]
    list: Option<Vec<Item>>,
    #[model(nested(set))]
    vec_set: Option<Vec<Item>>,
    #[model(nested, optional, computed, keep_state)]
    set: Option<BTreeSet<Item>>,
    #[model(nested, sensitive)]
    map: Option<BTreeMap<String, Item>>,
}

#[test]
fn each_container_gives_its_attribute_nesting() {
    let b = NestedAttributes::block();
    let item = Item::cty_type();
    let modes: Vec<(&str, NestingMode, Presence, Type)> = b
        .attributes
        .iter()
        .map(|a| {
            let n = a.nested.as_ref().unwrap();
            assert_eq!(n.block.attributes.len(), 2);
            (a.name.as_str(), n.nesting, a.presence, a.ty.clone())
        })
        .collect();
    assert_eq!(
        modes,
        [
            (
                "single",
                NestingMode::Single,
                Presence::Optional,
                item.clone()
            ),
            (
                "required_single",
                NestingMode::Single,
                Presence::Required,
                item.clone()
            ),
            (
                "list",
                NestingMode::List,
                Presence::Optional,
                Type::list(item.clone())
            ),
            (
                "vec_set",
                NestingMode::Set,
                Presence::Optional,
                Type::set(item.clone())
            ),
            (
                "set",
                NestingMode::Set,
                Presence::OptionalComputed,
                Type::set(item.clone())
            ),
            (
                "map",
                NestingMode::Map,
                Presence::Optional,
                Type::map(item.clone())
            ),
        ]
    );
    assert!(b.attribute("set").unwrap().plan.keep_state);
    assert!(b.attribute("map").unwrap().sensitive);
    assert_eq!(b.check(), Ok(()));

    let proto = b.to_schema_block();
    let list = &proto.attributes[2];
    assert_eq!(list.ty, None);
    let object = list.nested_type.as_ref().unwrap();
    assert_eq!(object.nesting, NestingMode::List);
    assert_eq!(
        object.attributes,
        [
            tf::Attribute::new("name", Type::String).required(),
            tf::Attribute::new("size", Type::Number).optional()
        ]
    );
    assert_eq!(proto.implied_type().unwrap(), NestedAttributes::cty_type());

    let model = NestedAttributes {
        single: None,
        required_single: Item {
            name: "r".into(),
            size: None,
        },
        list: Some(vec![]),
        vec_set: None,
        set: Some(BTreeSet::from([Item {
            name: "s".into(),
            size: Some(255),
        }])),
        map: None,
    };
    let v = ctywire::to_value(&model, &NestedAttributes::cty_type()).unwrap();
    assert_eq!(ctywire::from_value::<NestedAttributes>(&v).unwrap(), model);
}

/// Dynamic attributes: whatever the configuration holds.
#[derive(Model, Serialize, Deserialize, Debug, PartialEq)]
struct Dynamic {
    props: Value,
    #[model(optional)]
    extra: Value,
    maybe: Option<Value>,
    planned: Unknowable<Option<String>>,
}

#[test]
fn a_value_field_is_dynamic() {
    let b = Dynamic::block();
    let shape: Vec<(&str, Type, Presence)> = b
        .attributes
        .iter()
        .map(|a| (a.name.as_str(), a.ty.clone(), a.presence))
        .collect();
    assert_eq!(
        shape,
        [
            ("props", Type::Dynamic, Presence::Required),
            ("extra", Type::Dynamic, Presence::Optional),
            ("maybe", Type::Dynamic, Presence::Optional),
            ("planned", Type::String, Presence::Optional),
        ]
    );
    let model = Dynamic {
        props: Value::object([("a", Value::number(1)), ("b", Value::string("x"))]),
        extra: Value::null(Type::Dynamic),
        maybe: Some(Value::list(Type::Bool, vec![Value::bool(true)]).unwrap()),
        planned: Unknowable::unknown(),
    };
    let v = ctywire::to_value(&model, &Dynamic::cty_type()).unwrap();
    assert!(!v.attr("planned").unwrap().is_known());
    let back: Dynamic = ctywire::from_value(&v).unwrap();
    assert_eq!(back.props, model.props);
    assert_eq!(back.maybe, model.maybe);
    assert_eq!(back.planned, Unknowable::unknown());
    assert!(back.extra.is_null());
}

fn not_reserved(name: &str) -> Result<(), String> {
    if name == "root" {
        Err("\"root\" is reserved".into())
    } else {
        Ok(())
    }
}

fn short(name: &str) -> Result<(), String> {
    if name.len() > 3 {
        Err("too long".into())
    } else {
        Ok(())
    }
}

/// Declared rules.
#[derive(Model, Serialize, Deserialize)]
#[model(deprecated = "use rules_v2")]
struct Rules {
    #[model(range(min = 0.5))]
    ratio: f64,
    #[model(range(max = 10))]
    small: u8,
    #[model(range(-1, 70000))]
    wide: u16,
    #[model(range(min = 1e3, max = 0x7fff))]
    spelled: Number,
    #[model(length(min = 1, max = 64), pattern(r"^[a-z]+$", "lowercase letters"))]
    name: String,
    #[model(one_of("a", "b"))]
    letter: Option<String>,
    #[model(one_of(1, -2.5, 3))]
    step: Option<Number>,
    #[model(one_of(true))]
    yes: Option<bool>,
    #[model(validate = not_reserved)]
    user: Option<String>,
    #[model(length(max = 3), each(length(min = 1), validate = short))]
    names: Option<Vec<String>>,
    #[model(each(each(range(max = 9))))]
    grid: Vec<Vec<u8>>,
    /// Old.
    #[model(deprecated = "use ratio", description = "The old ratio.")]
    old: Option<f32>,
}

fn ranges(vs: &[Validator]) -> Vec<(Option<String>, Option<String>, bool)> {
    vs.iter()
        .filter_map(range)
        .map(|(lo, hi, whole)| (lo.map(|n| n.to_string()), hi.map(|n| n.to_string()), whole))
        .collect()
}

fn s(x: &str) -> Option<String> {
    Some(x.to_string())
}

#[test]
fn declared_rules_become_validators() {
    let b = Rules::block();
    assert_eq!(b.deprecation_message.as_deref(), Some("use rules_v2"));
    let v = |name: &str| b.attribute(name).unwrap().validators.clone();
    assert_eq!(ranges(&v("ratio")), [(s("0.5"), None, false)]);
    assert_eq!(ranges(&v("small")), [(s("0"), s("10"), true)]);
    // Narrowed to what a u16 holds, so no value it cannot take passes.
    assert_eq!(ranges(&v("wide")), [(s("0"), s("65535"), true)]);
    assert_eq!(ranges(&v("spelled")), [(s("1000"), s("32767"), false)]);

    let name = v("name");
    assert!(
        matches!(
            &name[0],
            Validator::Length {
                min: Some(1),
                max: Some(64)
            }
        ),
        "{name:?}"
    );
    let Validator::Pattern { regex, description } = &name[1] else {
        panic!("{name:?}")
    };
    assert_eq!(
        (regex.as_str(), description.as_str()),
        ("^[a-z]+$", "lowercase letters")
    );

    let one_of = |name: &str| match &v(name)[..] {
        [Validator::OneOf(values)] => values.iter().map(Value::to_string).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(one_of("letter"), [r#""a""#, r#""b""#]);
    assert_eq!(one_of("step"), ["1", "-2.5", "3"]);
    assert_eq!(one_of("yes"), ["true"]);

    let [Validator::Custom(user)] = &v("user")[..] else {
        panic!()
    };
    assert_eq!(
        user(&Value::string("root")),
        Err("\"root\" is reserved".into())
    );
    assert_eq!(user(&Value::null(Type::String)), Ok(()));
    // What the typed layer cannot read is its error to report, not ours.
    assert_eq!(user(&Value::number(1)), Ok(()));

    let names = v("names");
    let [Validator::Length {
        min: None,
        max: Some(3),
    }, Validator::Each(each)] = &names[..]
    else {
        panic!("{names:?}")
    };
    let [Validator::NotNull { .. }, Validator::Length {
        min: Some(1),
        max: None,
    }, Validator::Custom(short)] = &each[..]
    else {
        panic!("{each:?}")
    };
    assert_eq!(short(&Value::string("abcd")), Err("too long".into()));

    let grid = v("grid");
    let [Validator::Each(rows)] = &grid[..] else {
        panic!("{grid:?}")
    };
    let [Validator::NotNull { rust_type }, Validator::Each(cells)] = &rows[..] else {
        panic!("{rows:?}")
    };
    assert_eq!(rust_type, "Vec<u8>");
    assert_eq!(ranges(cells), [(s("0"), s("9"), true)]);

    let old = b.attribute("old").unwrap();
    assert_eq!(old.description, "The old ratio.");
    assert_eq!(old.deprecation_message.as_deref(), Some("use ratio"));
    assert!(old.validators.is_empty());
    let proto = old.to_schema();
    assert!(proto.deprecated);
    assert_eq!(proto.deprecation_message, "use ratio");
    assert_eq!(b.check(), Ok(()));
}

/// Plan behaviour.
#[derive(Model, Serialize, Deserialize)]
struct Planned {
    #[model(optional, computed, default = 8080)]
    port: Option<u16>,
    #[model(optional, computed, default = "eu-west-1")]
    region: Option<String>,
    #[model(optional, computed, default = vec!["a".into(), "b".into()])]
    zones: Option<Vec<String>>,
    #[model(computed, keep_state)]
    created: Option<String>,
    #[model(write_only, sensitive)]
    password: Option<String>,
    #[model(required)]
    must: Option<String>,
}

#[test]
fn plan_behaviour_is_declared() {
    let b = Planned::block();
    let a = |name: &str| b.attribute(name).unwrap();
    assert_eq!(a("port").plan.default, Some(Value::number(8080)));
    assert_eq!(a("port").presence, Presence::OptionalComputed);
    assert_eq!(a("region").plan.default, Some(Value::string("eu-west-1")));
    assert_eq!(
        a("zones").plan.default,
        Some(Value::list(Type::String, vec![Value::string("a"), Value::string("b")]).unwrap())
    );
    assert!(a("created").plan.keep_state);
    assert_eq!(a("created").presence, Presence::Computed);
    assert!(a("password").write_only && a("password").sensitive);
    assert_eq!(a("must").presence, Presence::Required);
    let proto = b.to_schema_block();
    assert!(proto.attributes[4].write_only);
    assert!(proto.attributes[0].optional && proto.attributes[0].computed);
    assert_eq!(b.check(), Ok(()));
}

/// A schema cannot be recursive: reported, never a stack overflow.
#[derive(Model, Serialize, Deserialize)]
struct Tree {
    name: String,
    #[model(block)]
    children: Vec<Tree>,
}

#[test]
fn a_model_that_contains_itself_is_a_defect() {
    let b = Tree::block();
    let err = b.check().unwrap_err();
    assert_eq!(
        err,
        "model::Tree contains itself (model::Tree > model::Tree): a schema cannot be recursive"
    );
    // And again, from the cache: the same answer.
    assert_eq!(Tree::block().check().unwrap_err(), err);
}

/// What only shows when the schema is built.
#[derive(Model, Serialize, Deserialize)]
struct Defective {
    #[model(range(70000, 80000))]
    port: u16,
    #[model(pattern("^a", "starting with a"))]
    count: u16,
    #[model(block(min_items = 2, max_items = 1))]
    items: Vec<Item>,
    #[model(block(min_items = 1))]
    one: Option<Item>,
    #[model(write_only, optional, computed)]
    secret: Option<String>,
    #[model(optional, computed, default = f64::NAN)]
    ratio: Option<f64>,
}

#[test]
fn check_reports_every_defect_with_its_path() {
    assert_eq!(
        Defective::block().check().unwrap_err(),
        [
            // Recorded while the block was built, then found by the walk.
            ".ratio: the default cannot be a number: NaN is not a number cty can hold",
            ".port: the range 70000 to 65535 admits no number",
            ".count: a pattern applies to strings, not to a number",
            ".secret: a write-only attribute cannot be computed: the provider never sets it",
            ".items: min_items is greater than max_items",
            ".one: a single block's min_items and max_items are equal, 0 (optional) or 1 (required)",
        ]
        .join("\n")
    );
}

#[derive(Model, Serialize, Deserialize)]
struct Deep {
    #[model(block)]
    set: BTreeSet<Holder>,
}

#[derive(Model, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct Holder {
    #[model(nested)]
    inner: Option<Inner>,
}

#[derive(Model, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct Inner {
    /// Exact decimal text, a number in Terraform.
    #[model(as = Number)]
    n: String,
}

#[test]
fn a_defect_deep_inside_has_its_whole_path() {
    let mut b = Deep::block();
    b.blocks[0].block.attributes[0]
        .nested
        .as_mut()
        .unwrap()
        .block
        .attributes[0]
        .plan
        .keep_state = true;
    assert_eq!(
        b.check().unwrap_err(),
        ".set.inner.n: state is only kept for a computed attribute: mark it computed"
    );
}

#[derive(Model, Serialize, Deserialize)]
struct DynamicInASet {
    #[model(block(set))]
    set: Vec<WithValue>,
}

#[derive(Model, Serialize, Deserialize)]
struct WithValue {
    any: Value,
}

#[test]
fn a_set_of_dynamic_blocks_is_refused_as_terraform_refuses_it() {
    assert_eq!(
        DynamicInASet::block().check().unwrap_err(),
        ".set: a SET block cannot contain dynamic types"
    );
}

fn entry() -> impl Strategy<Value = KvEntry> {
    let text = "[a-z0-9 ._-]{0,12}";
    let rule =
        (any::<u16>(), proptest::option::of(text)).prop_map(|(port, note)| Rule { port, note });
    (
        text,
        text,
        proptest::option::of(proptest::collection::btree_map(text, text, 0..4)),
        proptest::option::of(proptest::collection::btree_set(any::<u16>(), 0..6)),
        proptest::collection::vec(rule, 0..4),
        proptest::option::of(text),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(|(key, value, tags, ports, rule, id, revision)| KvEntry {
            key,
            value,
            tags,
            ports,
            rule,
            id,
            revision,
        })
}

proptest! {
    #[test]
    fn every_model_value_goes_through_its_derived_type(e in entry()) {
        let ty = KvEntry::cty_type();
        let v = ctywire::to_value(&e, &ty).unwrap();
        prop_assert_eq!(v.ty(), &ty);
        // The bytes Terraform would send decode to the same value.
        let bytes = ctywire::msgpack::encode(&v, &ty).unwrap();
        prop_assert_eq!(&ctywire::msgpack::decode(&bytes, &ty).unwrap(), &v);
        prop_assert_eq!(ctywire::from_value::<KvEntry>(&v).unwrap(), e);
    }
}

#[test]
fn a_group_of_blocks_cannot_be_computed() {
    use ctywire_provider::schema::{Block, NestedBlock};
    let inner = Block {
        computed: true,
        ..Block::default()
    };
    let outer = Block {
        blocks: vec![NestedBlock {
            name: "status".into(),
            nesting: NestingMode::Group,
            block: inner,
            min_items: 0,
            max_items: 0,
            validators: Vec::new(),
        }],
        ..Block::default()
    };
    assert_eq!(
        outer.check().unwrap_err(),
        ".status: NestingGroup blocks cannot be computed"
    );
}
