//! Types whose schema is a runtime value (`Builder::resource_with_schema`,
//! `data_source_with_schema`, `function_with_signature`): the framework's
//! plan semantics, validation and checks, as for a derived model, run by
//! the in-process Terraform core.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ctywire_provider::dynamic::{DynDataSource, DynFunction, DynResource};
use ctywire_provider::schema::{Attribute, Block, Presence};
use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{
    async_trait, Builder, Context, Diagnostic, Diagnostics, FnProvider, FunctionError, Model, Type,
    Value,
};
use ctywire_provider_testing::Harness;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

fn attribute(name: &str, presence: Presence, requires_replace: bool) -> Attribute {
    let mut a = Attribute::new(name, Type::String);
    a.presence = presence;
    a.plan.requires_replace = requires_replace;
    a
}

/// `name` (required, replaces), `size` (optional), `id` (computed), and
/// `fail` (optional: the create answers its object with an error).
fn block() -> Block {
    Block {
        attributes: vec![
            attribute("name", Presence::Required, true),
            attribute("size", Presence::Optional, false),
            attribute("id", Presence::Computed, false),
            attribute("fail", Presence::Optional, false),
        ],
        ..Block::default()
    }
}

/// Objects by id; each apply counts.
#[derive(Default)]
struct Store(Mutex<BTreeMap<String, Value>>);

fn attr(v: &Value, name: &str) -> Value {
    v.attr(name)
        .cloned()
        .unwrap_or_else(|| Value::null(Type::String))
}

#[async_trait]
impl DynResource<()> for Store {
    async fn validate(&self, config: &Value) -> Diagnostics {
        match attr(config, "name").as_str() {
            Some("bad") => Diagnostic::error("a bad name")
                .at(ctywire_provider::Path::root().attr("name"))
                .into(),
            _ => Diagnostics::new(),
        }
    }

    async fn apply(
        &self,
        _ctx: &Context<()>,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let mut objects = self.0.lock().unwrap();
        if req.planned_state.is_null() {
            if let Some(id) = attr(&req.prior_state, "id").as_str() {
                objects.remove(id);
            }
            return Ok(tf::ApplyResourceChangeResponse::new(req.planned_state));
        }
        let name = attr(&req.planned_state, "name");
        let id = format!("id-{}", name.as_str().unwrap_or("?"));
        let state = Value::object([
            ("name", name),
            ("size", attr(&req.planned_state, "size")),
            ("id", Value::string(&id)),
            ("fail", attr(&req.planned_state, "fail")),
        ]);
        objects.insert(id, state.clone());
        if attr(&req.planned_state, "fail").is_null() {
            return Ok(tf::ApplyResourceChangeResponse::new(state));
        }
        // Half done: the object exists, but not as planned.
        let half = state.with_attr("size", Value::string("half"))?;
        let mut answer = tf::ApplyResourceChangeResponse::new(half);
        answer
            .diagnostics
            .push(Diagnostic::error("created, then failed"));
        Ok(answer)
    }

    async fn read(
        &self,
        _ctx: &Context<()>,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        let id = attr(&req.current_state, "id");
        let objects = self.0.lock().unwrap();
        let found = id.as_str().and_then(|id| objects.get(id)).cloned();
        Ok(tf::ReadResourceResponse::new(found.unwrap_or_else(|| {
            Value::null(req.current_state.ty().clone())
        })))
    }
}

struct Echo;

#[async_trait]
impl DynDataSource<()> for Echo {
    async fn read(
        &self,
        _ctx: &Context<()>,
        config: Value,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let name = attr(&config, "name");
        let echoed = Value::object([
            ("name", name.clone()),
            ("size", attr(&config, "size")),
            ("id", name),
            ("fail", attr(&config, "fail")),
        ]);
        Ok((echoed, Diagnostics::new()))
    }
}

struct Upper;

#[async_trait]
impl DynFunction for Upper {
    async fn call(&self, arguments: Vec<Value>) -> Result<Value, FunctionError> {
        match arguments.first().and_then(Value::as_str) {
            Some(s) => Ok(Value::string(s.to_uppercase())),
            None => Err(FunctionError::new("a string, please")),
        }
    }
}

fn builder() -> Builder<FnProvider<NoConfig, ()>> {
    Builder::from_fn(|_: NoConfig| Ok(()))
        .resource_with_schema("test_thing", 0, block(), Store::default())
        .data_source_with_schema("test_echo", block(), Echo)
        .function_with_signature(
            "upper",
            tf::Function {
                parameters: vec![tf::Parameter::new("s", Type::String)],
                variadic_parameter: None,
                return_type: Type::String,
                summary: String::new(),
                description: String::new(),
                description_kind: Default::default(),
                deprecation_message: String::new(),
            },
            Upper,
        )
}

fn harness() -> Harness {
    Harness::new(builder().build().unwrap()).unwrap()
}

#[test]
fn a_runtime_schema_plans_with_the_frameworks_rules() {
    let mut tf = harness();
    tf.resource("test_thing.a", json!({ "name": "a" })).unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("test_thing.a"), ["create"]);
    assert_eq!(plan.change("test_thing.a")["after_unknown"]["id"], true);
    tf.apply().unwrap();
    assert_eq!(tf.state().unwrap().values("test_thing.a")["id"], "id-a");
    assert!(tf.plan().unwrap().is_empty(), "nothing changed: no change");

    tf.resource("test_thing.a", json!({ "name": "a", "size": "big" }))
        .unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("test_thing.a"), ["update"]);
    assert_eq!(plan.change("test_thing.a")["after_unknown"]["id"], true);
    tf.apply().unwrap();

    tf.resource("test_thing.a", json!({ "name": "b", "size": "big" }))
        .unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("test_thing.a"), ["delete", "create"]);
    tf.apply().unwrap();
    assert_eq!(tf.state().unwrap().values("test_thing.a")["id"], "id-b");
}

#[test]
fn a_runtime_schema_refuses_a_configuration_without_a_required_attribute() {
    let mut tf = harness();
    tf.resource("test_thing.a", json!({ "size": "big" }))
        .unwrap();
    let err = tf.validate().unwrap_err();
    assert!(format!("{err:?}").contains("name"), "{err:?}");
}

#[test]
fn a_runtime_schemas_own_validation_runs_after_its_blocks() {
    let mut tf = harness();
    tf.resource("test_thing.a", json!({ "name": "bad" }))
        .unwrap();
    let err = tf.validate().unwrap_err();
    assert!(format!("{err:?}").contains("a bad name"), "{err:?}");
}

#[test]
fn an_apply_answering_its_object_with_an_error_keeps_it_tainted() {
    let mut tf = harness();
    tf.resource("test_thing.a", json!({ "name": "a", "fail": "yes" }))
        .unwrap();
    let err = tf.apply().unwrap_err();
    assert!(
        format!("{err:?}").contains("created, then failed"),
        "{err:?}"
    );
    let state = tf.state().unwrap();
    assert_eq!(
        state.values("test_thing.a")["id"],
        "id-a",
        "the object is kept"
    );
    assert_eq!(
        state.values("test_thing.a")["size"],
        "half",
        "as it is, not as planned"
    );
    assert_eq!(state.resource("test_thing.a")["tainted"], true);
}

#[tokio::test]
async fn runtime_data_sources_and_functions_answer_at_their_types() {
    let provider = builder().build().unwrap();
    let configured = provider
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: Value::object(std::iter::empty::<(&str, Value)>()),
            client_capabilities: Default::default(),
        })
        .await;
    assert!(configured.is_empty(), "{configured:?}");
    let config = Value::object([
        ("name", Value::string("x")),
        ("size", Value::null(Type::String)),
        ("id", Value::null(Type::String)),
        ("fail", Value::null(Type::String)),
    ]);
    let read = provider
        .read_data_source(tf::ReadDataSourceRequest {
            type_name: "test_echo".into(),
            config,
            provider_meta: None,
            client_capabilities: Default::default(),
        })
        .await
        .unwrap();
    assert_eq!(read.state.attr("id"), Some(&Value::string("x")));
    let called = provider
        .call_function(tf::CallFunctionRequest {
            name: "upper".into(),
            arguments: vec![Value::string("abc")],
        })
        .await
        .unwrap();
    assert_eq!(called, Value::string("ABC"));
}
