//! Semantic equality declared on a model, through `PlanResourceChange`: a
//! type's rule (a newtype's `AttributeType::semantic_equality`, on each
//! element of a set of it) and a field's (`#[model(semantic_equality =
//! f)]`) keep the prior value where the configuration means it.

use std::collections::BTreeSet;

use ctywire_provider::schema::SemanticEquality;
use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{
    async_trait, AttributeType, Builder, Context, Model, Resource, Result, Type, Value,
};
use serde::{Deserialize, Serialize};

/// A host name: DNS compares names without regard to case.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
struct HostName(String);

impl AttributeType for HostName {
    fn cty_type() -> Type {
        Type::String
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        Some(SemanticEquality::of::<HostName, HostName, _>(|h| {
            HostName(h.0.to_lowercase())
        }))
    }
}

/// A JSON document, whatever its spacing and key order.
fn canonical_json(doc: &str) -> String {
    serde_json::from_str::<serde_json::Value>(doc)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| doc.to_string())
}

#[derive(Serialize, Deserialize, Model)]
struct Record {
    #[model(requires_replace)]
    host: HostName,
    aliases: Option<BTreeSet<HostName>>,
    #[model(semantic_equality = canonical_json)]
    policy: Option<String>,
    #[model(computed)]
    id: Option<String>,
}

struct Records;

#[async_trait]
impl Resource<()> for Records {
    type Model = Record;
    async fn create(&self, _: &Context<()>, plan: Record) -> Result<Record> {
        Ok(plan)
    }
    async fn read(&self, _: &Context<()>, state: Record) -> Result<Option<Record>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<()>, _: Record, plan: Record) -> Result<Record> {
        Ok(plan)
    }
    async fn delete(&self, _: &Context<()>, _: Record) -> Result<()> {
        Ok(())
    }
}

mod support;
use support::{configure, configured};

fn record(host: &str, aliases: &[&str], policy: &str, id: Option<&str>) -> Value {
    let aliases = aliases.iter().map(|a| Value::string(*a)).collect();
    Value::object([
        ("host", Value::string(host)),
        ("aliases", Value::set(Type::String, aliases).expect("a set")),
        ("policy", Value::string(policy)),
        ("id", id.map_or(Value::null(Type::String), Value::string)),
    ])
}

/// Plans `config` over `prior`: the planned state and the paths that
/// require replacement.
async fn plan(prior: Value, config: Value) -> (Value, Vec<String>) {
    let provider = Builder::from_fn(configure)
        .resource("test_record", Records)
        .build()
        .expect("a valid schema");
    let answer = configured(provider)
        .await
        .plan_resource_change(tf::PlanResourceChangeRequest {
            type_name: "test_record".into(),
            prior_state: prior,
            proposed_new_state: config.clone(),
            config,
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: Default::default(),
            prior_identity: None,
            planned_private: Vec::new(),
        })
        .await
        .expect("a plan");
    assert!(!answer.diagnostics.has_errors(), "{:?}", answer.diagnostics);
    let replace = answer
        .requires_replace
        .iter()
        .map(|p| p.to_string())
        .collect();
    (answer.planned_state, replace)
}

#[tokio::test]
async fn values_meaning_the_prior_state_plan_the_prior_state() {
    let prior = record(
        "Web.Example",
        &["a.example", "b.example"],
        r#"{"a": 1, "b": [2]}"#,
        Some("r1"),
    );
    let config = record(
        "web.EXAMPLE",
        &["B.EXAMPLE", "a.example"],
        r#"{"b":[2],"a":1}"#,
        None,
    );
    let (planned, replace) = plan(prior.clone(), config).await;
    assert_eq!(planned.attr("host"), prior.attr("host"));
    assert_eq!(planned.attr("aliases"), prior.attr("aliases"));
    assert_eq!(planned.attr("policy"), prior.attr("policy"));
    assert_eq!(planned, prior);
    assert!(replace.is_empty(), "{replace:?}");
}

#[tokio::test]
async fn a_value_with_another_meaning_is_a_change_at_its_attribute() {
    let prior = record("web.example", &["a.example"], r#"{"a": 1}"#, Some("r1"));
    let config = record("db.example", &["A.example"], r#"{"a": 2}"#, None);
    let (planned, replace) = plan(prior.clone(), config).await;
    assert_eq!(planned.attr("host"), Some(&Value::string("db.example")));
    assert_eq!(planned.attr("policy"), Some(&Value::string(r#"{"a": 2}"#)));
    // The one that means the same keeps its prior.
    assert_eq!(planned.attr("aliases"), prior.attr("aliases"));
    assert_eq!(replace, [".host"]);
}

/// An API that answers in its own spelling: host names in capitals,
/// policies re-spaced.
struct Shouting;

impl Shouting {
    fn answer(mut r: Record) -> Record {
        r.host = HostName(r.host.0.to_uppercase());
        r.policy = r.policy.map(|p| p.replace(':', ": "));
        r.id.get_or_insert_with(|| "r1".into());
        r
    }
}

#[async_trait]
impl Resource<()> for Shouting {
    type Model = Record;
    async fn create(&self, _: &Context<()>, plan: Record) -> Result<Record> {
        Ok(Self::answer(plan))
    }
    async fn read(&self, _: &Context<()>, state: Record) -> Result<Option<Record>> {
        Ok(Some(Self::answer(state)))
    }
    async fn update(&self, _: &Context<()>, _: Record, plan: Record) -> Result<Record> {
        Ok(Self::answer(plan))
    }
    async fn delete(&self, _: &Context<()>, _: Record) -> Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn an_answer_meaning_the_planned_or_stored_value_keeps_its_spelling() {
    let provider = Builder::from_fn(configure)
        .resource("test_record", Shouting)
        .build()
        .expect("a valid schema");
    let p = configured(provider).await;
    let config = record("web.example", &[], r#"{"a":1}"#, None);
    let planned = config
        .with_attr("id", Value::unknown(Type::String))
        .unwrap();
    let applied = p
        .apply_resource_change(tf::ApplyResourceChangeRequest {
            type_name: "test_record".into(),
            prior_state: Value::null(Record::cty_type()),
            config,
            planned_state: planned,
            planned_private: Vec::new(),
            provider_meta: None,
            planned_identity: None,
        })
        .await
        .expect("the create is no inconsistent result");
    assert!(
        !applied.diagnostics.has_errors(),
        "{:?}",
        applied.diagnostics
    );
    let stored = record("web.example", &[], r#"{"a":1}"#, Some("r1"));
    assert_eq!(applied.new_state, stored);
    let read = p
        .read_resource(tf::ReadResourceRequest {
            type_name: "test_record".into(),
            current_state: stored.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: Default::default(),
            current_identity: None,
        })
        .await
        .expect("a read");
    assert_eq!(read.new_state, stored);
}
