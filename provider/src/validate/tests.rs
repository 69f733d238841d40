//! One test per validator and per place a value can be nested, each
//! asserting the path and the message.

use std::sync::Arc;

use ctywire::Path;

use super::*;
use crate::schema::{Attribute, Nested, NestedBlock, Presence};

fn attr(name: &str, ty: Type, validators: Vec<Validator>) -> Attribute {
    let mut a = Attribute::new(name, ty);
    a.presence = Presence::Optional;
    a.validators = validators;
    a
}

fn block(attributes: Vec<Attribute>, blocks: Vec<NestedBlock>) -> Block {
    Block {
        attributes,
        blocks,
        ..Block::default()
    }
}

fn nested_block(name: &str, nesting: NestingMode, body: Block) -> NestedBlock {
    NestedBlock {
        name: name.into(),
        nesting,
        block: body,
        min_items: 0,
        max_items: 0,
        validators: Vec::new(),
    }
}

fn port_range() -> Validator {
    Validator::Range {
        min: Some(Number::from_i64(1)),
        max: Some(Number::from_i64(65535)),
        whole: true,
    }
}

fn n(x: i64) -> Value {
    Value::number(x)
}

fn s(x: &str) -> Value {
    Value::string(x)
}

fn obj(attrs: Vec<(&str, Value)>) -> Value {
    Value::object(attrs)
}

/// The one diagnostic `validate` gives: its path and detail.
fn only_error(b: &Block, config: &Value) -> (Option<Path>, String) {
    let diags = validate(b, config).into_vec();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert!(d.is_error());
    (d.attribute.clone(), d.detail.clone())
}

fn at(steps: &[&str]) -> Option<Path> {
    Some(steps.iter().fold(Path::root(), |p, s| p.attr(*s)))
}

fn port_block() -> Block {
    block(vec![attr("port", Type::Number, vec![port_range()])], vec![])
}

// ---- the validators ---------------------------------------------------

#[test]
fn a_whole_number_range_speaks_plugin_frameworks_words() {
    let b = port_block();
    let diags = validate(&b, &obj(vec![("port", n(70000))])).into_vec();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Invalid Attribute Value");
    assert_eq!(diags[0].attribute, at(&["port"]));
    assert_eq!(
        diags[0].detail,
        "Attribute port value must be between 1 and 65535, got: 70000"
    );
    assert!(validate(&b, &obj(vec![("port", n(443))])).is_empty());
    assert!(validate(&b, &obj(vec![("port", n(65535))])).is_empty());
    let (_, detail) = only_error(&b, &obj(vec![("port", Value::from_f64(80.5).unwrap())]));
    assert_eq!(
        detail,
        "Attribute port value must be a whole number between 1 and 65535, got: 80.5"
    );
}

#[test]
fn a_range_with_one_bound_says_at_least_or_at_most() {
    let one_sided = |min: Option<i64>, max: Option<i64>, whole: bool| {
        block(
            vec![attr(
                "x",
                Type::Number,
                vec![Validator::Range {
                    min: min.map(Number::from_i64),
                    max: max.map(Number::from_i64),
                    whole,
                }],
            )],
            vec![],
        )
    };
    let (_, d) = only_error(&one_sided(Some(1), None, true), &obj(vec![("x", n(0))]));
    assert_eq!(d, "Attribute x value must be at least 1, got: 0");
    let (_, d) = only_error(&one_sided(None, Some(10), false), &obj(vec![("x", n(11))]));
    assert_eq!(d, "Attribute x value must be at most 10, got: 11");
    let (_, d) = only_error(&one_sided(Some(0), Some(1), false), &obj(vec![("x", n(2))]));
    assert_eq!(d, "Attribute x value must be between 0 and 1, got: 2");
    // A fraction within bounds is fine when whole numbers are not required.
    let half = obj(vec![("x", Value::from_f64(0.5).unwrap())]);
    assert!(validate(&one_sided(Some(0), Some(1), false), &half).is_empty());
}

#[test]
fn a_string_length_counts_characters_not_bytes() {
    let b = block(
        vec![attr(
            "name",
            Type::String,
            vec![Validator::Length {
                min: Some(1),
                max: Some(5),
            }],
        )],
        vec![],
    );
    // Five characters, six bytes.
    assert!(validate(&b, &obj(vec![("name", s("héllo"))])).is_empty());
    let (path, detail) = only_error(&b, &obj(vec![("name", s("日本語です!"))]));
    assert_eq!(path, at(&["name"]));
    assert_eq!(
        detail,
        "Attribute name string length must be between 1 and 5, got: 6"
    );
    let (_, detail) = only_error(&b, &obj(vec![("name", s(""))]));
    assert_eq!(
        detail,
        "Attribute name string length must be between 1 and 5, got: 0"
    );
}

#[test]
fn a_collection_length_counts_elements() {
    let b = block(
        vec![attr(
            "names",
            Type::list(Type::String),
            vec![Validator::Length {
                min: Some(1),
                max: Some(3),
            }],
        )],
        vec![],
    );
    let four = Value::list(Type::String, vec![s("a"), s("b"), s("c"), s("d")]).unwrap();
    let (path, detail) = only_error(&b, &obj(vec![("names", four)]));
    assert_eq!(path, at(&["names"]));
    assert_eq!(
        detail,
        "Attribute names list must contain at least 1 elements and at most 3 elements, got: 4"
    );
}

#[test]
fn a_pattern_names_its_rule_in_words() {
    let b = block(
        vec![attr(
            "key",
            Type::String,
            vec![Validator::Pattern {
                regex: Arc::new(regex_lite::Regex::new(r"^[^/.][^/]*$").unwrap()),
                description: "a name without \"/\" that does not start with \".\"".into(),
            }],
        )],
        vec![],
    );
    assert!(validate(&b, &obj(vec![("key", s("notes"))])).is_empty());
    let (path, detail) = only_error(&b, &obj(vec![("key", s("a/b"))]));
    assert_eq!(path, at(&["key"]));
    assert_eq!(
        detail,
        "Attribute key value must be a name without \"/\" that does not start with \".\", got: a/b"
    );
}

#[test]
fn one_of_lists_the_allowed_values() {
    let b = block(
        vec![attr(
            "mode",
            Type::String,
            vec![Validator::OneOf(vec![s("a"), s("b")])],
        )],
        vec![],
    );
    assert!(validate(&b, &obj(vec![("mode", s("b"))])).is_empty());
    let (path, detail) = only_error(&b, &obj(vec![("mode", s("c"))]));
    assert_eq!(path, at(&["mode"]));
    assert_eq!(
        detail,
        "Attribute mode value must be one of: [\"a\" \"b\"], got: \"c\""
    );
}

#[test]
fn a_custom_rule_reports_its_own_message() {
    let b = block(
        vec![attr(
            "even",
            Type::Number,
            vec![Validator::Custom(Arc::new(|v: &Value| match v.as_i64() {
                Some(i) if i % 2 == 0 => Ok(()),
                _ => Err(format!("{v} is not even").into()),
            }))],
        )],
        vec![],
    );
    assert!(validate(&b, &obj(vec![("even", n(4))])).is_empty());
    let (path, detail) = only_error(&b, &obj(vec![("even", n(3))]));
    assert_eq!(path, at(&["even"]));
    assert_eq!(detail, "3 is not even");
}

#[test]
fn a_custom_rule_sets_its_own_summary_and_detail() {
    let b = block(
        vec![attr(
            "mode",
            Type::String,
            vec![Validator::Custom(Arc::new(|v: &Value| {
                Err(crate::schema::Invalid::new(
                    "Invalid File Permission String Value",
                    format!("{v} is not a file mode."),
                ))
            }))],
        )],
        vec![],
    );
    let diags = validate(&b, &obj(vec![("mode", s("rw"))]));
    let [d] = &diags.iter().collect::<Vec<_>>()[..] else {
        panic!("{diags:?}")
    };
    assert_eq!(d.summary, "Invalid File Permission String Value");
    assert_eq!(d.detail, "\"rw\" is not a file mode.");
    assert_eq!(d.attribute, at(&["mode"]));
}

#[test]
fn each_checks_list_elements_at_their_index() {
    let b = block(
        vec![attr(
            "ports",
            Type::list(Type::Number),
            vec![Validator::Each(vec![port_range()])],
        )],
        vec![],
    );
    let ports = Value::list(Type::Number, vec![n(80), n(0), n(443)]).unwrap();
    let (path, detail) = only_error(&b, &obj(vec![("ports", ports)]));
    assert_eq!(path, Some(Path::root().attr("ports").index(1)));
    assert_eq!(
        detail,
        "Attribute ports[1] value must be between 1 and 65535, got: 0"
    );
}

#[test]
fn each_checks_map_elements_at_their_key() {
    let b = block(
        vec![attr(
            "limits",
            Type::map(Type::Number),
            vec![Validator::Each(vec![port_range()])],
        )],
        vec![],
    );
    let limits = Value::map(Type::Number, [("web", n(80)), ("bad", n(-1))]).unwrap();
    let (path, detail) = only_error(&b, &obj(vec![("limits", limits)]));
    assert_eq!(path, Some(Path::root().attr("limits").key("bad")));
    assert_eq!(
        detail,
        "Attribute limits[\"bad\"] value must be between 1 and 65535, got: -1"
    );
}

#[test]
fn each_checks_set_elements_at_the_set_naming_the_element() {
    let b = block(
        vec![attr(
            "ports",
            Type::set(Type::Number),
            vec![Validator::Each(vec![port_range()])],
        )],
        vec![],
    );
    let ports = Value::set(Type::Number, vec![n(443), n(70000), n(80)]).unwrap();
    let diags = validate(&b, &obj(vec![("ports", ports)])).into_vec();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Invalid Attribute Value");
    assert_eq!(diags[0].attribute, at(&["ports"]));
    assert_eq!(
        diags[0].detail,
        "Attribute ports[Value(70000)] value must be between 1 and 65535, got: 70000"
    );
}

#[test]
fn each_checks_object_attributes_at_their_name() {
    let b = block(
        vec![attr(
            "pair",
            Type::object([("a", Type::Number), ("b", Type::Number)]),
            vec![Validator::Each(vec![port_range()])],
        )],
        vec![],
    );
    let (path, _) = only_error(
        &b,
        &obj(vec![("pair", obj(vec![("a", n(1)), ("b", n(0))]))]),
    );
    assert_eq!(path, at(&["pair", "b"]));
}

#[test]
fn a_null_passes_every_rule() {
    let b = block(
        vec![
            attr("port", Type::Number, vec![port_range()]),
            attr(
                "names",
                Type::list(Type::String),
                vec![
                    Validator::Length {
                        min: Some(1),
                        max: None,
                    },
                    Validator::Each(vec![Validator::OneOf(vec![s("a")])]),
                ],
            ),
        ],
        vec![],
    );
    let c = obj(vec![
        ("port", Value::null(Type::Number)),
        ("names", Value::null(Type::list(Type::String))),
    ]);
    assert!(validate(&b, &c).is_empty());
    // A null element too.
    let c = obj(vec![
        ("port", Value::null(Type::Number)),
        (
            "names",
            Value::list(Type::String, vec![Value::null(Type::String)]).unwrap(),
        ),
    ]);
    assert!(validate(&b, &c).is_empty());
}

#[test]
fn unknowns_are_left_for_later() {
    let rejects_all = Validator::Custom(Arc::new(|_: &Value| Err("never".into())));
    let b = block(
        vec![
            attr("port", Type::Number, vec![port_range()]),
            attr(
                "ports",
                Type::set(Type::Number),
                vec![
                    Validator::Length {
                        min: None,
                        max: Some(1),
                    },
                    Validator::Each(vec![port_range()]),
                ],
            ),
            attr(
                "pair",
                Type::object([("a", Type::String)]),
                vec![Validator::OneOf(vec![]), rejects_all],
            ),
        ],
        vec![],
    );
    let c = obj(vec![
        ("port", Value::unknown(Type::Number)),
        // Two elements, but the unknown one may turn out to be 80.
        (
            "ports",
            Value::set(Type::Number, vec![n(80), Value::unknown(Type::Number)]).unwrap(),
        ),
        ("pair", obj(vec![("a", Value::unknown(Type::String))])),
    ]);
    assert!(validate(&b, &c).is_empty(), "{}", validate(&b, &c));
    // Known, they are checked.
    let c = obj(vec![
        ("port", n(0)),
        (
            "ports",
            Value::set(Type::Number, vec![n(80), n(81)]).unwrap(),
        ),
        ("pair", obj(vec![("a", s("x"))])),
    ]);
    let paths: Vec<Option<Path>> = validate(&b, &c).into_iter().map(|d| d.attribute).collect();
    assert_eq!(
        paths,
        vec![at(&["port"]), at(&["ports"]), at(&["pair"]), at(&["pair"])]
    );
}

#[test]
fn a_rule_on_a_value_it_cannot_check_is_a_schema_error() {
    let b = block(vec![attr("name", Type::String, vec![port_range()])], vec![]);
    let diags = validate(&b, &obj(vec![("name", s("x"))])).into_vec();
    assert_eq!(diags.len(), 1);
    assert_eq!(
        diags[0].summary,
        "Invalid validator in the provider's schema"
    );
    assert_eq!(diags[0].attribute, at(&["name"]));
    assert!(diags[0].detail.contains("string"), "{}", diags[0].detail);
}

// ---- the places a value can be nested ---------------------------------

fn one_port(port: i64) -> Value {
    obj(vec![("port", n(port))])
}

fn port_ty() -> Type {
    one_port(1).ty().clone()
}

#[test]
fn inside_a_single_block_the_path_names_the_block() {
    let b = block(
        vec![],
        vec![nested_block("cfg", NestingMode::Single, port_block())],
    );
    let (path, detail) = only_error(&b, &obj(vec![("cfg", one_port(0))]));
    assert_eq!(path, at(&["cfg", "port"]));
    assert_eq!(
        detail,
        "Attribute cfg.port value must be between 1 and 65535, got: 0"
    );
    // An absent single block is null: nothing to check.
    assert!(validate(&b, &obj(vec![("cfg", Value::null(port_ty()))])).is_empty());
}

#[test]
fn inside_a_list_block_the_path_has_the_index() {
    let b = block(
        vec![],
        vec![nested_block("rule", NestingMode::List, port_block())],
    );
    let rules = Value::list(port_ty(), vec![one_port(80), one_port(70000)]).unwrap();
    let (path, detail) = only_error(&b, &obj(vec![("rule", rules)]));
    assert_eq!(path, Some(Path::root().attr("rule").index(1).attr("port")));
    assert_eq!(
        detail,
        "Attribute rule[1].port value must be between 1 and 65535, got: 70000"
    );
}

#[test]
fn inside_a_map_block_the_path_has_the_key() {
    let b = block(
        vec![],
        vec![nested_block("site", NestingMode::Map, port_block())],
    );
    let sites = Value::map(port_ty(), [("a", one_port(70000))]).unwrap();
    let (path, _) = only_error(&b, &obj(vec![("site", sites)]));
    assert_eq!(path, Some(Path::root().attr("site").key("a").attr("port")));
}

#[test]
fn inside_a_set_block_the_path_stops_at_the_set_and_the_message_names_the_element() {
    let b = block(
        vec![],
        vec![nested_block("tag", NestingMode::Set, port_block())],
    );
    let tags = Value::set(port_ty(), vec![one_port(80), one_port(70000)]).unwrap();
    let (path, detail) = only_error(&b, &obj(vec![("tag", tags)]));
    assert_eq!(path, at(&["tag"]));
    assert_eq!(
        detail,
        "Attribute tag[Value({\"port\" = 70000})].port value must be between 1 and 65535, got: 70000"
    );
}

#[test]
fn inside_nested_attributes_paths_follow_their_nesting() {
    let nested = |name: &str, nesting: NestingMode| {
        let mut a = Attribute::new(name, Type::Dynamic);
        a.presence = Presence::Optional;
        a.nested = Some(Nested {
            nesting,
            block: port_block(),
        });
        a
    };
    let b = block(
        vec![
            nested("one", NestingMode::Single),
            nested("list", NestingMode::List),
            nested("set", NestingMode::Set),
            nested("map", NestingMode::Map),
        ],
        vec![],
    );
    let c = obj(vec![
        ("one", one_port(0)),
        (
            "list",
            Value::list(port_ty(), vec![one_port(1), one_port(0)]).unwrap(),
        ),
        ("set", Value::set(port_ty(), vec![one_port(0)]).unwrap()),
        ("map", Value::map(port_ty(), [("k", one_port(0))]).unwrap()),
    ]);
    let paths: Vec<Option<Path>> = validate(&b, &c).into_iter().map(|d| d.attribute).collect();
    assert_eq!(
        paths,
        vec![
            at(&["one", "port"]),
            Some(Path::root().attr("list").index(1).attr("port")),
            at(&["set"]),
            Some(Path::root().attr("map").key("k").attr("port")),
        ]
    );
}

#[test]
fn a_block_types_own_rules_check_the_collection() {
    let mut rule = nested_block("rule", NestingMode::List, port_block());
    rule.validators = vec![Validator::Length {
        min: None,
        max: Some(2),
    }];
    let b = block(vec![], vec![rule]);
    let rules = Value::list(port_ty(), vec![one_port(1), one_port(2), one_port(3)]).unwrap();
    let diags = validate(&b, &obj(vec![("rule", rules)])).into_vec();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Invalid Attribute Value");
    assert_eq!(diags[0].attribute, at(&["rule"]));
    assert_eq!(
        diags[0].detail,
        "Attribute rule list must contain at most 2 elements, got: 3"
    );
}

#[test]
fn every_failure_is_reported() {
    let b = block(
        vec![
            attr("a", Type::Number, vec![port_range()]),
            attr("b", Type::Number, vec![port_range()]),
        ],
        vec![nested_block("rule", NestingMode::List, port_block())],
    );
    let c = obj(vec![
        ("a", n(0)),
        ("b", n(0)),
        (
            "rule",
            Value::list(port_ty(), vec![one_port(0), one_port(0)]).unwrap(),
        ),
    ]);
    assert_eq!(validate(&b, &c).len(), 4);
}

// ---- presence: what a configuration may set ---------------------------

fn with_presence(name: &str, ty: Type, presence: Presence) -> Attribute {
    let mut a = Attribute::new(name, ty);
    a.presence = presence;
    a
}

/// A body with a required `name` and a computed-only `id`.
fn presence_body() -> Block {
    block(
        vec![
            with_presence("name", Type::String, Presence::Required),
            with_presence("id", Type::String, Presence::Computed),
            with_presence("note", Type::String, Presence::OptionalComputed),
        ],
        vec![],
    )
}

fn presence_value(name: Value, id: Value) -> Value {
    obj(vec![
        ("name", name),
        ("id", id),
        ("note", Value::null(Type::String)),
    ])
}

#[test]
fn a_required_attribute_set_to_null_is_missing_configuration_at_its_path() {
    let b = presence_body();
    let null = Value::null(Type::String);
    let diags = validate(&b, &presence_value(null.clone(), null.clone())).into_vec();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].summary,
        "Missing Configuration for Required Attribute"
    );
    assert_eq!(diags[0].attribute, at(&["name"]));
    assert!(
        diags[0].detail.contains("The attribute name must be set"),
        "{}",
        diags[0].detail
    );
    // An unknown may yet be set: it passes.
    let unknown = Value::unknown(Type::String);
    assert!(validate(&b, &presence_value(unknown, null.clone())).is_empty());
    assert!(presence(&b, &presence_value(s("x"), null)).is_ok());
}

#[test]
fn a_computed_only_attribute_set_in_configuration_is_read_only_at_its_path() {
    let b = presence_body();
    for id in [s("x"), Value::unknown(Type::String)] {
        let diags = validate(&b, &presence_value(s("a"), id)).into_vec();
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(
            diags[0].summary,
            "Invalid Configuration for Read-Only Attribute"
        );
        assert_eq!(diags[0].attribute, at(&["id"]));
        assert!(
            diags[0].detail.contains("The attribute id cannot be set"),
            "{}",
            diags[0].detail
        );
    }
    // Optional and computed: configuration may set it.
    let mut noted = presence_value(s("a"), Value::null(Type::String));
    noted.set_attr("note", s("n")).unwrap();
    assert!(validate(&b, &noted).is_empty());
}

#[test]
fn presence_is_checked_inside_nested_attributes_and_blocks_but_not_absent_ones() {
    let inner = presence_body();
    let inner_ty = inner.implied_type().unwrap();
    let mut nested_attr = Attribute::new("items", Type::list(inner_ty.clone()));
    nested_attr.presence = Presence::Optional;
    nested_attr.nested = Some(Nested {
        nesting: NestingMode::List,
        block: inner.clone(),
    });
    let b = block(
        vec![nested_attr],
        vec![nested_block("rule", NestingMode::Set, inner)],
    );
    let null = Value::null(Type::String);
    let good = presence_value(s("a"), null.clone());
    let bad_name = presence_value(null.clone(), null.clone());
    let bad_id = presence_value(s("b"), s("set"));
    let config = obj(vec![
        (
            "items",
            Value::list(inner_ty.clone(), vec![good.clone(), bad_name]).unwrap(),
        ),
        (
            "rule",
            Value::set(inner_ty.clone(), vec![good, bad_id]).unwrap(),
        ),
    ]);
    let diags = validate(&b, &config).into_vec();
    let got: Vec<(String, Option<Path>)> = diags
        .iter()
        .map(|d| (d.summary.clone(), d.attribute.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "Missing Configuration for Required Attribute".to_string(),
                Some(Path::root().attr("items").index(1).attr("name"))
            ),
            (
                "Invalid Configuration for Read-Only Attribute".to_string(),
                at(&["rule"])
            ),
        ]
    );
    assert!(
        diags[1].detail.contains("the attribute id"),
        "{}",
        diags[1].detail
    );
    // No nested objects at all: nothing in them is missing.
    let none = obj(vec![
        ("items", Value::null(Type::list(inner_ty.clone()))),
        ("rule", Value::set(inner_ty, vec![]).unwrap()),
    ]);
    assert!(validate(&b, &none).is_empty());
    assert!(presence(&b, &config).is_err());
}

#[test]
fn a_group_block_left_out_of_the_configuration_is_not_missing_its_required_attributes() {
    // Terraform sends a group block the configuration leaves out as its
    // empty value (every attribute null), not as null.
    let inner = block(
        vec![
            with_presence("name", Type::String, Presence::Required),
            with_presence("note", Type::String, Presence::Optional),
        ],
        vec![nested_block("rule", NestingMode::List, port_block())],
    );
    let b = block(
        vec![],
        vec![nested_block("settings", NestingMode::Group, inner)],
    );
    let null = Value::null(Type::String);
    let no_rules = Value::list(port_ty(), vec![]).unwrap();
    let group = |name: Value, note: Value| {
        obj(vec![(
            "settings",
            obj(vec![
                ("name", name),
                ("note", note),
                ("rule", no_rules.clone()),
            ]),
        )])
    };
    assert!(validate(&b, &group(null.clone(), null.clone())).is_empty());
    assert!(presence(&b, &group(null.clone(), null.clone())).is_ok());
    // Written with something in it, the group is held to its schema.
    let diags = validate(&b, &group(null, s("x"))).into_vec();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].summary,
        "Missing Configuration for Required Attribute"
    );
    assert_eq!(diags[0].attribute, at(&["settings", "name"]));
}
