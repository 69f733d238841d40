//! Values the model's Rust types must hold, from both ends: a stored state
//! of an older schema version, read as that version's model and upgraded
//! to the current one, and a configuration's null where the model has no
//! room for one, refused before apply, naming the element and the fix.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ctywire_provider::tfplugin6::{self as tf, Provider as _, RawState};
use ctywire_provider::{
    async_trait, AttributeType, Builder, Context, Diagnostics, Framework, Model, Provider,
    Resource, Result, StateUpgraders, Type, Unknowable, Value,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

struct Test;

#[async_trait]
impl Provider for Test {
    type Config = NoConfig;
    type Data = ();
    async fn configure(&self, _: NoConfig) -> Result<()> {
        Ok(())
    }
}

/// A kv entry as schema version 2 has it.
#[derive(Serialize, Deserialize, Model, Debug, PartialEq)]
struct Entry {
    key: String,
    tags: Option<BTreeMap<String, String>>,
    /// Its elements may be null: the Rust type says so.
    notes: Option<BTreeMap<String, Option<String>>>,
    ports: Option<BTreeSet<u32>>,
    labels: Option<Vec<String>>,
    #[model(computed)]
    revision: Unknowable<Option<u64>>,
}

/// Version 0: one tag, no labels.
#[derive(Serialize, Deserialize, Model)]
struct EntryV0 {
    key: String,
    tag: Option<String>,
}

/// Version 1: the tags a map, the revision a string.
#[derive(Serialize, Deserialize, Model)]
struct EntryV1 {
    key: String,
    tags: Option<BTreeMap<String, String>>,
    revision: Option<String>,
}

/// 0 to 1: the one tag becomes the tag `main`.
fn v0_to_v1(old: EntryV0) -> EntryV1 {
    EntryV1 {
        key: old.key,
        tags: old.tag.map(|t| BTreeMap::from([("main".to_owned(), t)])),
        revision: None,
    }
}

/// 1 to 2: the revision a number. One that is no number is lost, which
/// a state cannot be: left unknown, the framework must refuse it.
fn v1_to_v2(old: EntryV1) -> Result<Entry> {
    let revision = match old.revision {
        None => Unknowable::Known(None),
        Some(r) => r
            .parse()
            .map_or(Unknowable::unknown(), |r| Unknowable::Known(Some(r))),
    };
    Ok(Entry {
        key: old.key,
        tags: old.tags,
        notes: None,
        ports: None,
        labels: None,
        revision,
    })
}

/// The resource at version 2; `ODD` gives it upgraders `build()` refuses.
struct Entries<const ODD: bool>;

#[async_trait]
impl<const ODD: bool> Resource<()> for Entries<ODD> {
    type Model = Entry;
    const VERSION: i64 = if ODD { 1 } else { 2 };

    fn state_upgraders(&self) -> StateUpgraders<Entry> {
        let upgraders = StateUpgraders::new()
            .prior(0, |v0| v1_to_v2(v0_to_v1(v0)))
            .prior(1, v1_to_v2);
        if ODD {
            // Version 0 twice, and 1, which is the current version.
            return upgraders.prior(0, |v0| v1_to_v2(v0_to_v1(v0)));
        }
        upgraders
    }

    async fn create(&self, _: &Context<()>, mut plan: Entry) -> Result<Entry> {
        plan.revision = Unknowable::Known(Some(1));
        Ok(plan)
    }
    async fn read(&self, _: &Context<()>, state: Entry) -> Result<Option<Entry>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<()>, _: Entry, plan: Entry) -> Result<Entry> {
        Ok(plan)
    }
    async fn delete(&self, _: &Context<()>, _: Entry) -> Result<()> {
        Ok(())
    }
}

async fn configured() -> Framework<Test> {
    configured_with(Entries::<false>).await
}

/// The provider serving `resource` as `test_entry`, configured.
async fn configured_with(resource: impl Resource<(), Model = Entry>) -> Framework<Test> {
    let framework = Builder::new(Test)
        .resource("test_entry", resource)
        .build()
        .expect("a valid schema");
    let diags = framework
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: Value::object(Vec::<(&str, Value)>::new()),
            client_capabilities: Default::default(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    framework
}

/// Each diagnostic as (summary, path, detail).
fn described(diags: &Diagnostics) -> Vec<(String, String, String)> {
    (diags.iter())
        .map(|d| {
            let path = d.attribute.as_ref().map(|p| p.to_string());
            (
                d.summary.clone(),
                path.unwrap_or_default(),
                d.detail.clone(),
            )
        })
        .collect()
}

async fn upgrade(version: i64, json: &str) -> Result<Value, Diagnostics> {
    let p = configured().await;
    let req = tf::UpgradeResourceStateRequest {
        type_name: "test_entry".into(),
        version,
        raw_state: RawState {
            json: json.as_bytes().to_vec(),
            ..Default::default()
        },
        current_type: Entry::cty_type(),
    };
    Ok(p.upgrade_resource_state(req).await?.upgraded_state)
}

/// Entries that count how often their upgraders are built.
struct Counted(Arc<AtomicUsize>);

#[async_trait]
impl Resource<()> for Counted {
    type Model = Entry;
    const VERSION: i64 = 2;

    fn state_upgraders(&self) -> StateUpgraders<Entry> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Entries::<false>.state_upgraders()
    }

    async fn create(&self, ctx: &Context<()>, plan: Entry) -> Result<Entry> {
        Entries::<false>.create(ctx, plan).await
    }
    async fn read(&self, _: &Context<()>, state: Entry) -> Result<Option<Entry>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<()>, _: Entry, plan: Entry) -> Result<Entry> {
        Ok(plan)
    }
    async fn delete(&self, _: &Context<()>, _: Entry) -> Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn state_upgraders_are_built_once_with_the_provider_not_per_upgrade() {
    let built = Arc::new(AtomicUsize::new(0));
    let framework = configured_with(Counted(Arc::clone(&built))).await;
    for _ in 0..3 {
        let req = tf::UpgradeResourceStateRequest {
            type_name: "test_entry".into(),
            version: 0,
            raw_state: RawState {
                json: br#"{"key":"a","tag":"blue"}"#.to_vec(),
                ..Default::default()
            },
            current_type: Entry::cty_type(),
        };
        let upgraded = framework.upgrade_resource_state(req).await.unwrap();
        let expected = entry(&[("main", "blue")], None).to_value().unwrap();
        assert_eq!(upgraded.upgraded_state, expected);
    }
    assert_eq!(built.load(Ordering::SeqCst), 1);
}

/// Why the state stored at `version` as `json` is refused: each
/// diagnostic as (summary, path, detail).
async fn refused(version: i64, json: &str) -> Vec<(String, String, String)> {
    described(&upgrade(version, json).await.unwrap_err())
}

fn entry(tags: &[(&str, &str)], revision: Option<u64>) -> Entry {
    let tags: BTreeMap<String, String> = (tags.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Entry {
        key: "a".into(),
        tags: (!tags.is_empty()).then_some(tags),
        notes: None,
        ports: None,
        labels: None,
        revision: Unknowable::Known(revision),
    }
}

#[tokio::test]
async fn a_state_of_each_prior_version_is_read_as_its_model_and_upgraded_to_the_current_one() {
    let from_v0 = upgrade(0, r#"{"key":"a","tag":"blue"}"#).await.unwrap();
    assert_eq!(
        from_v0,
        entry(&[("main", "blue")], None).to_value().unwrap()
    );
    let from_v1 = upgrade(1, r#"{"key":"a","tags":{"x":"y"},"revision":"7"}"#).await;
    assert_eq!(
        from_v1.unwrap(),
        entry(&[("x", "y")], Some(7)).to_value().unwrap()
    );
    // The current version is read as stored, no upgrader involved.
    let stored = entry(&[("x", "y")], Some(3)).to_value().unwrap();
    let json = ctywire_provider::ctywire::json::encode_string(&stored, &Entry::cty_type());
    assert_eq!(upgrade(2, &json.unwrap()).await.unwrap(), stored);
}

#[tokio::test]
async fn an_attribute_the_prior_schema_lacks_is_refused_as_go_cty_refuses_it() {
    let d = refused(0, r#"{"key":"a","tag":"blue","colour":"red"}"#).await;
    assert_eq!(d.len(), 1, "{d:?}");
    let (summary, _, detail) = &d[0];
    assert_eq!(
        summary,
        "Unable to Read Previously Saved State for UpgradeResourceState"
    );
    assert!(
        detail.contains(r#"unsupported attribute "colour""#),
        "{detail}"
    );
    assert!(detail.contains("schema version 0"), "{detail}");
}

#[tokio::test]
async fn a_prior_attribute_of_the_wrong_type_is_refused_at_its_path() {
    let d = refused(1, r#"{"key":"a","tags":{"x":["y"]},"revision":null}"#).await;
    assert_eq!(d[0].1, r#".tags["x"]"#, "{d:?}");
}

#[tokio::test]
async fn an_upgrade_that_leaves_a_value_unknown_is_a_provider_bug_at_its_attribute() {
    let d = refused(1, r#"{"key":"a","tags":null,"revision":"seven"}"#).await;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].0.as_str(), d[0].1.as_str()),
        ("Provider returned an unknown value", ".revision")
    );
}

#[test]
fn a_version_with_no_upgrader_is_refused_naming_it() {
    let upgraders = StateUpgraders::<Entry>::new().prior(1, v1_to_v2);
    let stored = RawState {
        json: br#"{"key":"a","tag":null}"#.to_vec(),
        ..Default::default()
    };
    let d = described(&upgraders.upgrade(0, &stored).unwrap_err());
    assert_eq!(d[0].0, "Unable to Upgrade Resource State");
    assert!(d[0].2.contains("schema version 0"), "{d:?}");
    assert!(d[0].2.contains("only from version 1"), "{d:?}");
}

#[test]
fn upgraders_that_cannot_be_used_are_schema_errors_when_the_provider_is_built() {
    let err = Builder::new(Test)
        .resource("test_odd", Entries::<true>)
        .build()
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("test_odd: two state upgraders from schema version 0"),
        "{err}"
    );
    assert!(
        err.contains("test_odd: a state upgrader from schema version 1, which is not a version before the current one (1)"),
        "{err}"
    );
}

fn config(set: &str, value: Value) -> Value {
    let mut cfg = Entry {
        revision: Unknowable::Known(None),
        ..entry(&[], None)
    }
    .to_value()
    .unwrap();
    cfg.set_attr(set, value).unwrap();
    cfg
}

async fn validate(p: &Framework<Test>, config: &Value) -> Diagnostics {
    let req = tf::ValidateResourceConfigRequest {
        type_name: "test_entry".into(),
        config: config.clone(),
        client_capabilities: Default::default(),
    };
    p.validate_resource_config(req).await
}

/// The plan of a create configured as `config`.
async fn plan(p: &Framework<Test>, config: &Value) -> Result<Value, Diagnostics> {
    let req = tf::PlanResourceChangeRequest {
        type_name: "test_entry".into(),
        prior_state: Value::null(Entry::cty_type()),
        proposed_new_state: config.clone(),
        config: config.clone(),
        prior_private: Vec::new(),
        provider_meta: None,
        client_capabilities: Default::default(),
        prior_identity: None,
        planned_private: Vec::new(),
    };
    Ok(p.plan_resource_change(req).await?.planned_state)
}

/// `cfg` is refused at validation and again at plan (a client may plan
/// without validating), at `at`; the detail says how to fix it (`fix`).
async fn refused_before_apply(cfg: Value, at: &str, fix: &str) {
    let p = configured().await;
    let validated = validate(&p, &cfg).await;
    let planned = plan(&p, &cfg).await.expect_err("the plan is refused");
    for diags in [validated, planned] {
        let d = described(&diags);
        assert_eq!(d.len(), 1, "{d:?}");
        let (summary, path, detail) = &d[0];
        assert_eq!(
            (summary.as_str(), path.as_str()),
            ("Null Element Not Allowed", at)
        );
        assert!(detail.contains(fix), "{detail}");
    }
}

#[tokio::test]
async fn a_null_map_element_the_model_cannot_hold_is_refused_at_validation_and_plan() {
    let tags = Value::map(Type::String, [("key", Value::null(Type::String))]).unwrap();
    let fix = "declare the element type Option<String>";
    refused_before_apply(config("tags", tags), r#".tags["key"]"#, fix).await;
}

#[tokio::test]
async fn a_null_list_or_set_element_is_refused_at_its_place() {
    let labels = Value::list(
        Type::String,
        vec![Value::string("x"), Value::null(Type::String)],
    );
    let fix = "Option<String>";
    refused_before_apply(config("labels", labels.unwrap()), ".labels[1]", fix).await;
    let ports = Value::set(
        Type::Number,
        vec![Value::number(80), Value::null(Type::Number)],
    );
    refused_before_apply(config("ports", ports.unwrap()), ".ports", "Option<u32>").await;
}

#[tokio::test]
async fn a_null_element_the_model_can_hold_is_planned_and_applied() {
    let notes = Value::map(Type::String, [("key", Value::null(Type::String))]).unwrap();
    let cfg = config("notes", notes.clone());
    let p = configured().await;
    let validated = validate(&p, &cfg).await;
    assert!(validated.is_empty(), "{validated:?}");
    let planned = plan(&p, &cfg).await.unwrap();
    let applied = p
        .apply_resource_change(tf::ApplyResourceChangeRequest {
            type_name: "test_entry".into(),
            prior_state: Value::null(Entry::cty_type()),
            planned_state: planned,
            config: cfg,
            planned_private: Vec::new(),
            provider_meta: None,
            planned_identity: None,
        })
        .await
        .unwrap();
    assert_eq!(applied.new_state.attr("notes"), Some(&notes));
}
