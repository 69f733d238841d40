//! Config validators declared on models (`exactly_one_of`,
//! `at_least_one_of`, `conflicts_with`, `also_requires`) and deprecation
//! warnings, through `ValidateDataResourceConfig`: each diagnostic in
//! plugin-framework's summary, at the attribute's path; an unknown defers
//! what it could change.

use std::marker::PhantomData;

use ctywire_provider::schema::{Block, Combination};
use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{
    async_trait, AttributeType, Builder, Context, DataSource, Model, Result, Type, Value,
};
use serde::{Deserialize, Serialize};

/// A file's content comes from exactly one place.
#[derive(Serialize, Deserialize, Model)]
#[model(exactly_one_of(content, content_base64, source))]
struct LocalFile {
    content: Option<String>,
    content_base64: Option<String>,
    source: Option<String>,
    #[model(block)]
    rule: Vec<Rule>,
}

/// A rule matches a port or a range, not both; a range has both ends.
#[derive(Serialize, Deserialize, Model)]
#[model(at_least_one_of(port, range_start))]
struct Rule {
    #[model(conflicts_with(range_start, range_end))]
    port: Option<u16>,
    #[model(also_requires(range_end))]
    range_start: Option<u16>,
    range_end: Option<u16>,
}

#[derive(Serialize, Deserialize, Model)]
struct Old {
    #[model(deprecated = "Use `name` instead.")]
    label: Option<String>,
    name: Option<String>,
    #[model(block, deprecated = "Rules move to the rule resource.")]
    rule: Vec<Rule>,
}

struct Echo<M>(PhantomData<M>);

#[async_trait]
impl<M: Model> DataSource<()> for Echo<M> {
    type Model = M;
    async fn read(&self, _: &Context<()>, config: M) -> Result<M> {
        Ok(config)
    }
}

mod support;
use support::{configure, described};

/// Validates `config` as the data source of model `M`: each diagnostic as
/// (summary, path, detail).
async fn validated<M: Model>(config: Value) -> Vec<(String, String, String)> {
    let provider = Builder::from_fn(configure)
        .data_source("test_it", Echo::<M>(PhantomData))
        .build()
        .expect("a valid schema");
    let diags = provider
        .validate_data_resource_config(tf::ValidateDataResourceConfigRequest {
            type_name: "test_it".into(),
            config,
        })
        .await;
    described(&diags)
}

/// An object of type `ty` with `set` given and every other attribute
/// null, or an empty collection for a block.
fn object(ty: &Type, set: Vec<(&str, Value)>) -> Value {
    let Type::Object(o) = ty else {
        panic!("{ty} is no object type")
    };
    let attrs: Vec<(String, Value)> = o
        .attributes()
        .map(|(name, t)| {
            let given = set.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
            let absent = match t {
                Type::List(e) => Value::list((**e).clone(), vec![]).expect("an empty list"),
                _ => Value::null(t.clone()),
            };
            (name.to_string(), given.unwrap_or(absent))
        })
        .collect();
    Value::object(attrs)
}

fn file(set: Vec<(&str, Value)>) -> Value {
    object(&LocalFile::cty_type(), set)
}

fn rule(set: Vec<(&str, Value)>) -> Value {
    object(&Rule::cty_type(), set)
}

fn rules(rs: Vec<Value>) -> Value {
    Value::list(Rule::cty_type(), rs).expect("a list of rules")
}

fn s(v: &str) -> Value {
    Value::string(v)
}

fn n(v: i64) -> Value {
    Value::number(v)
}

fn unknown_string() -> Value {
    Value::unknown(Type::String)
}

#[tokio::test]
async fn exactly_one_of_refuses_two_at_the_first_and_names_both() {
    let d = validated::<LocalFile>(file(vec![("content", s("a")), ("source", s("b"))])).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Invalid Attribute Combination");
    assert_eq!(d[0].1, ".content");
    assert_eq!(
        d[0].2,
        "Exactly one of these attributes must be configured: [content,content_base64,source]. The configuration sets \"content\" and \"source\"."
    );
}

#[tokio::test]
async fn exactly_one_of_refuses_none_for_the_object() {
    let d = validated::<LocalFile>(file(vec![])).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Missing Attribute Configuration");
    assert_eq!(d[0].1, "", "the rule is the whole object's");
    assert!(
        d[0].2.ends_with("The configuration sets none of them."),
        "{d:?}"
    );
    assert!(validated::<LocalFile>(file(vec![("source", s("b"))]))
        .await
        .is_empty());
}

#[tokio::test]
async fn an_unknown_defers_exactly_one_of_unless_two_are_already_set() {
    let one_unknown = file(vec![("content", unknown_string())]);
    assert!(validated::<LocalFile>(one_unknown).await.is_empty());
    let two_and_unknown = file(vec![
        ("content", s("a")),
        ("source", s("b")),
        ("content_base64", unknown_string()),
    ]);
    let d = validated::<LocalFile>(two_and_unknown).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].0.as_str(), d[0].1.as_str()),
        ("Invalid Attribute Combination", ".content")
    );
}

#[tokio::test]
async fn at_least_one_of_in_a_nested_block_is_checked_in_each_element_at_its_path() {
    let config = file(vec![
        ("source", s("b")),
        (
            "rule",
            rules(vec![rule(vec![("port", n(80))]), rule(vec![])]),
        ),
    ]);
    let d = validated::<LocalFile>(config).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Missing Attribute Configuration");
    assert_eq!(d[0].1, ".rule[1]");
    assert_eq!(
        d[0].2,
        "At least one of these attributes must be configured: [rule[1].port,rule[1].range_start]. The configuration sets none of them."
    );
}

#[tokio::test]
async fn conflicts_with_refuses_each_other_set_at_the_declaring_attribute() {
    let config = file(vec![
        ("source", s("b")),
        (
            "rule",
            rules(vec![rule(vec![
                ("port", n(80)),
                ("range_start", n(1)),
                ("range_end", n(2)),
            ])]),
        ),
    ]);
    let d = validated::<LocalFile>(config).await;
    assert_eq!(d.len(), 2, "{d:?}");
    for (found, other) in d.iter().zip(["range_start", "range_end"]) {
        assert_eq!(found.0, "Invalid Attribute Combination");
        assert_eq!(found.1, ".rule[0].port");
        assert_eq!(
            found.2,
            format!("Attribute \"rule[0].{other}\" cannot be specified when \"rule[0].port\" is specified.")
        );
    }
    // An unknown other may yet be null: nothing to say yet.
    let unknown = rule(vec![
        ("port", n(80)),
        ("range_start", Value::unknown(Type::Number)),
    ]);
    let config = file(vec![("source", s("b")), ("rule", rules(vec![unknown]))]);
    assert!(validated::<LocalFile>(config).await.is_empty());
}

#[tokio::test]
async fn also_requires_refuses_a_missing_partner_at_the_declaring_attribute() {
    let config = file(vec![
        ("source", s("b")),
        ("rule", rules(vec![rule(vec![("range_start", n(1))])])),
    ]);
    let d = validated::<LocalFile>(config).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Invalid Attribute Combination");
    assert_eq!(d[0].1, ".rule[0].range_start");
    assert_eq!(
        d[0].2,
        "Attribute \"rule[0].range_end\" must be specified when \"rule[0].range_start\" is specified."
    );
    let unknown_end = rule(vec![
        ("range_start", n(1)),
        ("range_end", Value::unknown(Type::Number)),
    ]);
    let config = file(vec![("source", s("b")), ("rule", rules(vec![unknown_end]))]);
    assert!(validated::<LocalFile>(config).await.is_empty());
}

#[tokio::test]
async fn a_deprecated_attribute_or_block_that_is_set_warns_at_its_path() {
    let ty = Old::cty_type();
    let config = object(
        &ty,
        vec![
            ("label", s("x")),
            ("rule", rules(vec![rule(vec![("port", n(80))])])),
        ],
    );
    let d = validated::<Old>(config).await;
    assert_eq!(
        d,
        vec![
            (
                "Attribute Deprecated".to_string(),
                ".label".to_string(),
                "Use `name` instead.".to_string()
            ),
            (
                "Block Deprecated".to_string(),
                ".rule".to_string(),
                "Rules move to the rule resource.".to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn a_deprecated_attribute_left_null_unknown_or_a_block_left_out_says_nothing() {
    let ty = Old::cty_type();
    assert!(validated::<Old>(object(&ty, vec![("name", s("x"))]))
        .await
        .is_empty());
    let unknown = object(&ty, vec![("label", unknown_string())]);
    assert!(validated::<Old>(unknown).await.is_empty());
}

/// A model written by hand whose rule names no attribute of it.
#[derive(Serialize, Deserialize)]
struct Misdeclared {
    a: Option<String>,
}

impl Model for Misdeclared {
    fn block() -> Block {
        let mut block = Block::default();
        let mut a = ctywire_provider::schema::Attribute::new("a", Type::String);
        a.presence = ctywire_provider::schema::Presence::Optional;
        block.attributes.push(a);
        block
            .combinations
            .push(Combination::ExactlyOneOf(vec!["a".into(), "b".into()]));
        block
    }
}

#[test]
fn build_refuses_a_rule_naming_no_attribute() {
    let built = Builder::from_fn(configure)
        .data_source("test_it", Echo::<Misdeclared>(PhantomData))
        .build();
    let Err(e) = built else {
        panic!("a rule naming no attribute was accepted")
    };
    assert!(
        e.to_string().contains(
            ".b: `exactly_one_of` names it, but there is no attribute or block \"b\" beside it"
        ),
        "{e}"
    );
}
