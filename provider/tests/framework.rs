//! The framework's dispatch as Terraform meets it: each RPC reaches the
//! type registered under its name, with its model; answers are checked as
//! Terraform would check them, and a provider's bug is reported naming the
//! attribute and saying whose bug it is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{
    async_trait, model, Builder, Context, Diagnostic, Diagnostics, Function, FunctionError, Model,
    Path, PlanChange, Provider, Resource, Result, Type, Unknowable, Value,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
struct Config {
    prefix: Option<String>,
}

struct Test;

#[async_trait]
impl Provider for Test {
    type Config = Config;
    type Data = String;
    async fn configure(&self, config: Config) -> Result<String> {
        Ok(config.prefix.unwrap_or_default())
    }
}

#[derive(Serialize, Deserialize, Model, Clone)]
struct Thing {
    #[model(requires_replace)]
    name: String,
    port: Option<u16>,
    #[model(computed, same_as = "name")]
    id: Option<String>,
    #[model(computed)]
    serial: Unknowable<Option<u64>>,
}

/// How a `Thing` misbehaves, to see the framework catch it.
#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// The plan hook changes a configured value.
    PlanChangesConfig,
    /// The plan hook warns (not a bug: a warning to show with the plan).
    PlanWarns,
    /// Create returns another value than the known planned one.
    ApplyChangesPlanned,
    /// Create leaves a value unknown.
    ApplyLeavesUnknown,
}

struct Things {
    bug: Bug,
    stopped: Arc<AtomicBool>,
}

#[async_trait]
impl Resource<String> for Things {
    type Model = Thing;

    async fn create(&self, ctx: &Context<String>, plan: Thing) -> Result<Thing> {
        if plan.name == "wait-for-stop" {
            let signal = ctx.stop_signal().expect("calls run under the stop signal");
            let stopped = self.stopped.clone();
            tokio::spawn(async move {
                signal.stopped().await;
                stopped.store(true, Ordering::SeqCst);
            });
            std::future::pending::<()>().await;
        }
        let mut new = Thing {
            serial: Unknowable::Known(Some(1)),
            ..plan
        };
        match self.bug {
            Bug::ApplyChangesPlanned => new.name = format!("{}{}", ctx.data(), "renamed"),
            Bug::ApplyLeavesUnknown => new.serial = Unknowable::unknown(),
            _ => {}
        }
        Ok(new)
    }

    async fn read(&self, _: &Context<String>, state: Thing) -> Result<Option<Thing>> {
        Ok(Some(state))
    }

    async fn update(&self, ctx: &Context<String>, _: Thing, plan: Thing) -> Result<Thing> {
        self.create(ctx, plan).await
    }

    async fn delete(&self, _: &Context<String>, _: Thing) -> Result<()> {
        Ok(())
    }

    async fn import(&self, _: &Context<String>, id: String) -> Result<Option<Thing>> {
        Ok((id == "known").then(|| Thing {
            name: id.clone(),
            port: None,
            id: Some(id),
            serial: Unknowable::Known(Some(9)),
        }))
    }

    async fn modify_plan(&self, _: &Context<String>, plan: &mut PlanChange) -> Result<()> {
        match self.bug {
            Bug::PlanChangesConfig => plan.planned.set_attr("port", Value::number(1))?,
            Bug::PlanWarns => plan
                .diagnostics
                .push(Diagnostic::warning("Port unset").at(Path::root().attr("port"))),
            _ => {}
        }
        Ok(())
    }

    async fn plan_destroy(&self, _: &Context<String>, prior: Thing) -> Diagnostics {
        match prior.name.as_str() {
            "protected" => Diagnostic::error("protected may not be destroyed")
                .at(Path::root().attr("name"))
                .into(),
            _ => Diagnostics::new(),
        }
    }
}

/// The arguments of `greet`.
#[derive(Serialize, Deserialize, Model)]
struct GreetArgs {
    name: String,
    times: u8,
}

struct Greet;

#[async_trait]
impl Function for Greet {
    type Args = GreetArgs;
    type Output = String;
    async fn call(&self, args: GreetArgs) -> Result<String, FunctionError> {
        Ok(format!("hello {}", args.name).repeat(usize::from(args.times)))
    }
}

fn ty() -> Type {
    model::type_of::<Thing>().unwrap()
}

fn thing(name: &str, port: Option<u16>, id: Value, serial: Value) -> Value {
    Value::object([
        ("name", Value::string(name)),
        (
            "port",
            Value::from_option(port.map(u64::from), Type::Number),
        ),
        ("id", id),
        ("serial", serial),
    ])
}

fn config(name: &str, port: Option<u16>) -> Value {
    thing(
        name,
        port,
        Value::null(Type::String),
        Value::null(Type::Number),
    )
}

async fn configured(bug: Bug) -> ctywire_provider::Framework<Test> {
    let framework = Builder::new(Test)
        .resource(
            "test_thing",
            Things {
                bug,
                stopped: Arc::new(AtomicBool::new(false)),
            },
        )
        .function("greet", Greet)
        .build()
        .expect("a valid schema");
    let diags = framework
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: Value::object([("prefix", Value::null(Type::String))]),
            client_capabilities: Default::default(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    framework
}

fn plan_request(prior: Value, config: Value, proposed: Value) -> tf::PlanResourceChangeRequest {
    tf::PlanResourceChangeRequest {
        type_name: "test_thing".into(),
        prior_state: prior,
        proposed_new_state: proposed,
        config,
        prior_private: Vec::new(),
        provider_meta: None,
        client_capabilities: Default::default(),
        prior_identity: None,
        planned_private: Vec::new(),
    }
}

fn apply_request(prior: Value, planned: Value, config: Value) -> tf::ApplyResourceChangeRequest {
    tf::ApplyResourceChangeRequest {
        type_name: "test_thing".into(),
        prior_state: prior,
        planned_state: planned,
        config,
        planned_private: Vec::new(),
        provider_meta: None,
        planned_identity: None,
    }
}

/// Each diagnostic as (summary, path, detail).
fn described(diags: &Diagnostics) -> Vec<(String, String, String)> {
    diags
        .iter()
        .map(|d| {
            let path = d
                .attribute
                .as_ref()
                .map(|p| p.to_string())
                .unwrap_or_default();
            (d.summary.clone(), path, d.detail.clone())
        })
        .collect()
}

#[tokio::test]
async fn a_create_is_planned_by_the_models_declarations_and_applied_through_it() {
    let p = configured(Bug::None).await;
    let null = Value::null(ty());
    let planned = p
        .plan_resource_change(plan_request(
            null.clone(),
            config("a", Some(80)),
            config("a", Some(80)),
        ))
        .await
        .unwrap();
    let unknown = Value::unknown(Type::Number);
    assert_eq!(
        planned.planned_state,
        thing("a", Some(80), Value::string("a"), unknown),
        "id is the name (same_as), serial is left for apply"
    );
    let applied = p
        .apply_resource_change(apply_request(
            null,
            planned.planned_state,
            config("a", Some(80)),
        ))
        .await
        .unwrap();
    assert_eq!(
        applied.new_state,
        thing("a", Some(80), Value::string("a"), Value::number(1))
    );
}

#[tokio::test]
async fn warnings_from_the_plan_hook_come_with_the_plan() {
    let p = configured(Bug::PlanWarns).await;
    let resp = p
        .plan_resource_change(plan_request(
            Value::null(ty()),
            config("a", None),
            config("a", None),
        ))
        .await
        .unwrap();
    let d = described(&resp.diagnostics);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("Port unset", ".port"));
    assert!(!resp.diagnostics.has_errors());
}

#[tokio::test]
async fn a_plan_that_contradicts_the_configuration_is_a_provider_bug_at_its_attribute() {
    let p = configured(Bug::PlanChangesConfig).await;
    let err = p
        .plan_resource_change(plan_request(
            Value::null(ty()),
            config("a", Some(80)),
            config("a", Some(80)),
        ))
        .await
        .unwrap_err();
    let d = described(&err);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Provider produced an invalid plan");
    assert_eq!(d[0].1, ".port");
    assert!(
        d[0].2.starts_with("The provider planned an invalid value for test_thing.port: planned value cty.NumberIntVal(1) does not match config value cty.NumberIntVal(80)"),
        "{}",
        d[0].2
    );
    assert!(
        d[0].2.contains("This is a bug in the provider"),
        "{}",
        d[0].2
    );
}

#[tokio::test]
async fn an_apply_that_contradicts_a_known_planned_value_is_a_provider_bug_at_its_attribute() {
    let p = configured(Bug::ApplyChangesPlanned).await;
    let planned = thing("a", None, Value::string("a"), Value::unknown(Type::Number));
    let err = p
        .apply_resource_change(apply_request(Value::null(ty()), planned, config("a", None)))
        .await
        .unwrap_err();
    renamed_at_apply(&err, "create");
}

/// `err` is the one diagnostic of an apply (`what`: create, update) that
/// renamed the thing from "a" though "a" was planned.
fn renamed_at_apply(err: &Diagnostics, what: &str) {
    let d = described(err);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Provider produced inconsistent result after apply");
    assert_eq!(d[0].1, ".name");
    let want = format!("The provider's {what} produced an invalid new value for test_thing.name: was cty.StringVal(\"a\"), but now cty.StringVal(\"renamed\")");
    assert!(d[0].2.starts_with(&want), "{}", d[0].2);
}

/// A plan with nothing left unknown is checked value by value too: an
/// update the provider changes at apply is refused though its plan was
/// wholly known (no shortcut takes a known plan for the result).
#[tokio::test]
async fn an_update_that_contradicts_a_wholly_known_plan_is_a_provider_bug() {
    let p = configured(Bug::ApplyChangesPlanned).await;
    let prior = thing("a", None, Value::string("a"), Value::number(1));
    let planned = thing("a", Some(80), Value::string("a"), Value::number(1));
    assert!(planned.is_wholly_known());
    let err = p
        .apply_resource_change(apply_request(prior, planned, config("a", Some(80))))
        .await
        .unwrap_err();
    renamed_at_apply(&err, "update");
}

#[tokio::test]
async fn an_apply_that_leaves_a_value_unknown_names_it() {
    let p = configured(Bug::ApplyLeavesUnknown).await;
    let planned = thing("a", None, Value::string("a"), Value::unknown(Type::Number));
    let err = p
        .apply_resource_change(apply_request(Value::null(ty()), planned, config("a", None)))
        .await
        .unwrap_err();
    let d = described(&err);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "Provider returned an unknown value");
    assert_eq!(d[0].1, ".serial");
    assert!(
        d[0].2.starts_with("create left test_thing.serial unknown"),
        "{}",
        d[0].2
    );
}

#[tokio::test]
async fn an_update_is_planned_with_requires_replace_at_the_changed_attribute() {
    let p = configured(Bug::None).await;
    let prior = thing("a", None, Value::string("a"), Value::number(1));
    let proposed = thing("b", None, Value::string("a"), Value::number(1));
    let planned = p
        .plan_resource_change(plan_request(prior, config("b", None), proposed))
        .await
        .unwrap();
    let paths: Vec<String> = planned
        .requires_replace
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(paths, [".name"]);
    assert_eq!(
        planned.planned_state,
        thing("b", None, Value::string("b"), Value::unknown(Type::Number))
    );
}

#[tokio::test]
async fn nothing_changed_plans_the_prior_state() {
    let p = configured(Bug::None).await;
    let prior = thing("a", Some(80), Value::string("a"), Value::number(7));
    let planned = p
        .plan_resource_change(plan_request(
            prior.clone(),
            config("a", Some(80)),
            prior.clone(),
        ))
        .await
        .unwrap();
    assert_eq!(planned.planned_state, prior);
    assert!(planned.requires_replace.is_empty());
}

#[tokio::test]
async fn an_integer_out_of_its_fields_range_is_refused_at_validation_in_terraforms_terms() {
    let p = configured(Bug::None).await;
    let mut cfg = config("a", None);
    cfg.set_attr("port", Value::number(70000)).unwrap();
    let diags = p
        .validate_resource_config(tf::ValidateResourceConfigRequest {
            type_name: "test_thing".into(),
            config: cfg,
            client_capabilities: Default::default(),
        })
        .await;
    let d = described(&diags);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].1, ".port");
    assert!(
        d[0].2
            .contains("value must be between 0 and 65535, got: 70000"),
        "{}",
        d[0].2
    );
    assert!(!d[0].2.contains("u16"), "no Rust type names: {}", d[0].2);
}

#[tokio::test]
async fn an_unknown_value_is_left_for_later_by_validation() {
    let p = configured(Bug::None).await;
    let mut cfg = config("a", None);
    cfg.set_attr("port", Value::unknown(Type::Number)).unwrap();
    let diags = p
        .validate_resource_config(tf::ValidateResourceConfigRequest {
            type_name: "test_thing".into(),
            config: cfg,
            client_capabilities: Default::default(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
}

#[tokio::test]
async fn import_gives_the_whole_object_or_says_there_is_none() {
    let p = configured(Bug::None).await;
    let import = |id: &str| tf::ImportResourceStateRequest {
        type_name: "test_thing".into(),
        id: id.into(),
        client_capabilities: Default::default(),
        identity: None,
    };
    let found = p.import_resource_state(import("known")).await.unwrap();
    assert_eq!(
        found.imported_resources[0].state,
        thing("known", None, Value::string("known"), Value::number(9))
    );
    let err = p
        .import_resource_state(import("missing"))
        .await
        .unwrap_err();
    let d = described(&err);
    assert_eq!(d[0].0, "Cannot import non-existent remote object");
    assert!(d[0].2.contains("\"missing\""), "{}", d[0].2);
}

#[tokio::test]
async fn a_type_the_provider_does_not_have_is_named() {
    let p = configured(Bug::None).await;
    let mut req = plan_request(Value::null(ty()), config("a", None), config("a", None));
    req.type_name = "test_other".into();
    let err = p.plan_resource_change(req).await.unwrap_err();
    let d = described(&err);
    assert_eq!(d[0].0, "Unknown resource type");
    assert!(d[0].2.contains("\"test_other\""), "{}", d[0].2);
}

#[tokio::test]
async fn a_call_before_configure_says_the_provider_is_not_configured() {
    let p = Builder::new(Test)
        .resource(
            "test_thing",
            Things {
                bug: Bug::None,
                stopped: Arc::new(AtomicBool::new(false)),
            },
        )
        .build()
        .unwrap();
    let err = p
        .read_resource(tf::ReadResourceRequest {
            type_name: "test_thing".into(),
            current_state: thing("a", None, Value::string("a"), Value::number(1)),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: Default::default(),
            current_identity: None,
        })
        .await
        .unwrap_err();
    assert_eq!(described(&err)[0].0, "Provider not configured");
}

#[tokio::test]
async fn a_function_takes_its_parameters_from_its_arguments_model() {
    let p = configured(Bug::None).await;
    let f = &p.schemas().functions["greet"];
    let params: Vec<(&str, Type)> = f
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.ty.clone()))
        .collect();
    assert_eq!(params, [("name", Type::String), ("times", Type::Number)]);
    assert_eq!(f.summary, "The arguments of `greet`.");
    let call = |args: Vec<Value>| tf::CallFunctionRequest {
        name: "greet".into(),
        arguments: args,
    };
    let out = p
        .call_function(call(vec![Value::string("x"), Value::number(2)]))
        .await
        .unwrap();
    assert_eq!(out, Value::string("hello xhello x"));
    let err = p
        .call_function(call(vec![Value::string("x"), Value::number(300)]))
        .await
        .unwrap_err();
    assert_eq!(err.function_argument, Some(1), "{err:?}");
}

#[test]
fn a_type_registered_twice_is_a_schema_error() {
    let things = || Things {
        bug: Bug::None,
        stopped: Arc::new(AtomicBool::new(false)),
    };
    let err = Builder::new(Test)
        .resource("test_thing", things())
        .resource("test_thing", things())
        .build()
        .err()
        .expect("refused");
    assert!(
        err.to_string().contains("test_thing is registered twice"),
        "{err}"
    );
}

#[tokio::test]
async fn stop_provider_reaches_work_a_call_handed_off() {
    use tf::pb::tfplugin6 as pb;
    use tf::pb::tfplugin6::provider_server::Provider as _;
    let stopped = Arc::new(AtomicBool::new(false));
    let framework = Builder::new(Test)
        .resource(
            "test_thing",
            Things {
                bug: Bug::None,
                stopped: stopped.clone(),
            },
        )
        .build()
        .unwrap();
    let service = Arc::new(tf::ProviderService::new(framework));
    let configure = pb::configure_provider::Request {
        config: Some(pb::DynamicValue {
            msgpack: ctywire_provider::ctywire::msgpack::encode(
                &Value::object([("prefix", Value::null(Type::String))]),
                &model::type_of::<Config>().unwrap(),
            )
            .unwrap(),
            json: Vec::new(),
        }),
        ..Default::default()
    };
    service
        .configure_provider(tonic::Request::new(configure))
        .await
        .unwrap();
    let t = ty();
    let encoded = |v: &Value| {
        Some(pb::DynamicValue {
            msgpack: ctywire_provider::ctywire::msgpack::encode(v, &t).unwrap(),
            json: Vec::new(),
        })
    };
    let planned = thing(
        "wait-for-stop",
        None,
        Value::string("wait-for-stop"),
        Value::unknown(Type::Number),
    );
    let apply = pb::apply_resource_change::Request {
        type_name: "test_thing".into(),
        prior_state: encoded(&Value::null(t.clone())),
        planned_state: encoded(&planned),
        config: encoded(&config("wait-for-stop", None)),
        ..Default::default()
    };
    let s = service.clone();
    let call =
        tokio::spawn(async move { s.apply_resource_change(tonic::Request::new(apply)).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!stopped.load(Ordering::SeqCst));
    service
        .stop_provider(tonic::Request::new(pb::stop_provider::Request {}))
        .await
        .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("the call ends when stopped")
        .unwrap()
        .unwrap()
        .into_inner();
    assert!(
        answer
            .diagnostics
            .iter()
            .any(|d| d.summary.contains("stopped")),
        "{:?}",
        answer.diagnostics
    );
    tokio::time::timeout(Duration::from_secs(5), async {
        while !stopped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the handed-off work saw the stop");
}

/// A model whose identity cannot work: nested, sensitive, of a map type.
#[derive(Serialize, Deserialize, Model)]
struct BadIdentity {
    #[model(identity, sensitive)]
    secret: String,
    #[model(identity)]
    labels: std::collections::BTreeMap<String, String>,
    #[model(block)]
    part: Vec<IdentifiedPart>,
}

#[derive(Serialize, Deserialize, Model)]
struct IdentifiedPart {
    #[model(identity)]
    name: String,
}

struct Bad;

#[async_trait]
impl Resource<String> for Bad {
    type Model = BadIdentity;
    async fn create(&self, _: &Context<String>, plan: BadIdentity) -> Result<BadIdentity> {
        Ok(plan)
    }
    async fn read(&self, _: &Context<String>, s: BadIdentity) -> Result<Option<BadIdentity>> {
        Ok(Some(s))
    }
    async fn update(
        &self,
        _: &Context<String>,
        _: BadIdentity,
        p: BadIdentity,
    ) -> Result<BadIdentity> {
        Ok(p)
    }
    async fn delete(&self, _: &Context<String>, _: BadIdentity) -> Result<()> {
        Ok(())
    }
}

#[test]
fn identity_attributes_that_cannot_identify_are_schema_errors_at_the_attribute() {
    let err = Builder::new(Test)
        .resource("test_bad", Bad)
        .build()
        .err()
        .expect("refused");
    let text = err.to_string();
    for expected in [
        ".secret: an identity attribute is stored and shown as it is: it cannot be sensitive or write-only",
        ".labels: an identity attribute is a string, number or bool, or a list of them, not a map of string",
        ".part.name: an identity attribute belongs to the resource itself, not to a nested block or object",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
}

/// `Things` listed: its model has no identity, so it cannot be.
#[async_trait]
impl ctywire_provider::ListResource<String> for Things {
    type Config = Config;
    async fn list(
        &self,
        _: &Context<String>,
        _: Config,
        _: &ctywire_provider::Listing<Thing>,
    ) -> Result<()> {
        Ok(())
    }
}

#[test]
fn a_list_resource_needs_its_resource_with_an_identity() {
    let things = || Things {
        bug: Bug::None,
        stopped: Arc::new(AtomicBool::new(false)),
    };
    let err = Builder::new(Test)
        .resource("test_thing", things())
        .list_resource("test_thing", things())
        .list_resource("test_other", things())
        .build()
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("list resource test_thing: the resource test_thing has no identity"),
        "{text}"
    );
    assert!(
        text.contains("list resource test_other: there is no resource test_other for it to list"),
        "{text}"
    );
}

/// denobridge's shape: props of any type, passed through as raw values.
#[derive(Serialize, Deserialize, Model)]
struct Bridged {
    path: String,
    props: Value,
    #[model(computed)]
    state: Option<Value>,
}

struct Bridge;

#[async_trait]
impl Resource<String> for Bridge {
    type Model = Bridged;

    async fn create(&self, _: &Context<String>, plan: Bridged) -> Result<Bridged> {
        // The state echoes the props, whatever their type.
        let state = Some(Value::object([("echo", plan.props.clone())]));
        Ok(Bridged { state, ..plan })
    }
    async fn read(&self, _: &Context<String>, state: Bridged) -> Result<Option<Bridged>> {
        Ok(Some(state))
    }
    async fn update(&self, ctx: &Context<String>, _: Bridged, plan: Bridged) -> Result<Bridged> {
        self.create(ctx, plan).await
    }
    async fn delete(&self, _: &Context<String>, _: Bridged) -> Result<()> {
        Ok(())
    }
}

#[test]
fn a_model_holding_raw_values_plans_and_applies_dynamic_props() {
    use ctywire_provider_testing::Harness;
    use serde_json::json;
    let provider = Builder::new(Test)
        .resource("test_bridge", Bridge)
        .build()
        .unwrap();
    let mut tf = Harness::new(provider).unwrap();
    let props = json!({ "list": [1, "two", true], "nested": { "deep": [null] } });
    tf.resource("test_bridge.a", json!({ "path": "x.ts", "props": props }))
        .unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.change("test_bridge.a")["after"]["props"], props);
    assert_eq!(plan.change("test_bridge.a")["after_unknown"]["state"], true);
    tf.apply().unwrap();
    assert_eq!(
        tf.state().unwrap().values("test_bridge.a")["state"]["echo"],
        props
    );
    assert!(tf.plan().unwrap().is_empty(), "dynamic props re-plan empty");
    // Another type for the same attribute: an update, planned and applied.
    tf.resource(
        "test_bridge.a",
        json!({ "path": "x.ts", "props": "now a string" }),
    )
    .unwrap();
    assert_eq!(tf.plan().unwrap().actions("test_bridge.a"), ["update"]);
    tf.apply().unwrap();
    assert_eq!(
        tf.state().unwrap().values("test_bridge.a")["state"]["echo"],
        "now a string"
    );
}

fn validate_request(config: Value) -> tf::ValidateResourceConfigRequest {
    tf::ValidateResourceConfigRequest {
        type_name: "test_thing".into(),
        config,
        client_capabilities: Default::default(),
    }
}

/// `cfg` is refused with `summary` at `at` by validation, and again by a
/// plan a client asks for without validating first (instead of a plan
/// that fails at apply as a provider bug), and by an apply without a plan.
async fn refused_at_validation_plan_and_apply(cfg: Value, summary: &str, at: &str) {
    let p = configured(Bug::None).await;
    let validated = p
        .validate_resource_config(validate_request(cfg.clone()))
        .await;
    let d = described(&validated);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), (summary, at));
    let planned = p
        .plan_resource_change(plan_request(Value::null(ty()), cfg.clone(), cfg.clone()))
        .await;
    let d = described(&planned.unwrap_err());
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), (summary, at));
    let applied = p
        .apply_resource_change(apply_request(Value::null(ty()), cfg.clone(), cfg))
        .await;
    let d = described(&applied.unwrap_err());
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), (summary, at));
}

#[tokio::test]
async fn a_required_attribute_set_to_null_is_refused_at_validation_plan_and_apply() {
    let mut cfg = config("a", None);
    cfg.set_attr("name", Value::null(Type::String)).unwrap();
    let summary = "Missing Configuration for Required Attribute";
    refused_at_validation_plan_and_apply(cfg, summary, ".name").await;
    // Unknown at validation: it may yet be set.
    let mut later = config("a", None);
    later
        .set_attr("name", Value::unknown(Type::String))
        .unwrap();
    let p = configured(Bug::None).await;
    let validated = p.validate_resource_config(validate_request(later)).await;
    assert!(validated.is_empty(), "{validated:?}");
}

#[tokio::test]
async fn a_computed_only_attribute_set_in_configuration_is_refused_at_validation_plan_and_apply() {
    let summary = "Invalid Configuration for Read-Only Attribute";
    let mut cfg = config("a", None);
    cfg.set_attr("serial", Value::number(7)).unwrap();
    refused_at_validation_plan_and_apply(cfg, summary, ".serial").await;
    // Unknown is set too: only the provider may set it.
    let mut cfg = config("a", None);
    cfg.set_attr("serial", Value::unknown(Type::Number))
        .unwrap();
    refused_at_validation_plan_and_apply(cfg, summary, ".serial").await;
}

#[tokio::test]
async fn the_provider_block_is_held_to_the_same_presence_rule() {
    #[derive(Serialize, Deserialize, Model)]
    struct Strict {
        endpoint: String,
    }
    fn configure(_: Strict) -> Result<()> {
        Ok(())
    }
    let p = Builder::from_fn(configure).build().unwrap();
    let config = Value::object([("endpoint", Value::null(Type::String))]);
    let validated = p
        .validate_provider_config(tf::ValidateProviderConfigRequest {
            config: config.clone(),
        })
        .await;
    let d = described(&validated);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].0.as_str(), d[0].1.as_str()),
        ("Missing Configuration for Required Attribute", ".endpoint")
    );
    let configured = p
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config,
            client_capabilities: Default::default(),
        })
        .await;
    assert_eq!(
        described(&configured)[0].0,
        "Missing Configuration for Required Attribute"
    );
}

#[tokio::test]
async fn an_unknown_in_a_current_or_prior_state_is_an_error_at_its_path_not_a_null() {
    let p = configured(Bug::None).await;
    let state = thing("a", None, Value::string("a"), Value::unknown(Type::Number));
    let err = p
        .read_resource(tf::ReadResourceRequest {
            type_name: "test_thing".into(),
            current_state: state.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: Default::default(),
            current_identity: None,
        })
        .await
        .unwrap_err();
    let d = described(&err);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].0.as_str(), d[0].1.as_str()),
        ("Unknown value in state", ".serial")
    );
    assert!(d[0].2.contains("current state"), "{}", d[0].2);
    // The prior state of an update, and of a delete.
    let planned = thing(
        "a",
        Some(80),
        Value::string("a"),
        Value::unknown(Type::Number),
    );
    for planned in [planned, Value::null(ty())] {
        let err = p
            .apply_resource_change(apply_request(state.clone(), planned, config("a", Some(80))))
            .await
            .unwrap_err();
        let d = described(&err);
        assert_eq!(
            (d[0].0.as_str(), d[0].1.as_str()),
            ("Unknown value in state", ".serial")
        );
        assert!(d[0].2.contains("prior state"), "{}", d[0].2);
    }
}

#[tokio::test]
async fn a_null_identity_is_named_as_null_not_as_too_many_attributes() {
    let p = configured(Bug::None).await;
    let id_ty = Type::object([("name", Type::String)]);
    let import = |identity: Value| tf::ImportResourceStateRequest {
        type_name: "test_thing".into(),
        id: String::new(),
        client_capabilities: Default::default(),
        identity: Some(identity),
    };
    let err = p
        .import_resource_state(import(Value::null(id_ty.clone())))
        .await
        .unwrap_err();
    let d = described(&err);
    assert!(d[0].2.starts_with("the identity is null"), "{d:?}");
    assert!(!d[0].2.contains("more than one"), "{d:?}");
    let err = p
        .import_resource_state(import(Value::object([("name", Value::null(Type::String))])))
        .await
        .unwrap_err();
    let d = described(&err);
    assert!(
        d[0].2
            .starts_with(r#"the identity's attribute "name" is null"#),
        "{d:?}"
    );
    let two = Value::object([("a", Value::string("x")), ("b", Value::string("y"))]);
    let d = described(&p.import_resource_state(import(two)).await.unwrap_err());
    assert!(
        d[0].2
            .starts_with("the identity has more than one attribute"),
        "{d:?}"
    );
    let found = p
        .import_resource_state(import(Value::object([("name", Value::string("known"))])))
        .await
        .unwrap();
    assert_eq!(found.imported_resources.len(), 1);
}

/// A model whose root uses a name Terraform reserves in resource-like
/// blocks, and one it reserves in the provider block.
#[derive(Serialize, Deserialize, Model, Clone)]
struct Counted {
    count: Option<i64>,
}

#[derive(Serialize, Deserialize, Model, Clone)]
struct Versioned {
    version: Option<String>,
}

/// `count` nested one level down is no meta-argument.
#[derive(Serialize, Deserialize, Model, Clone)]
struct NestedCount {
    #[model(nested)]
    inner: Option<Counted>,
}

struct Any<M>(std::marker::PhantomData<M>);

fn any<M>() -> Any<M> {
    Any(std::marker::PhantomData)
}

#[async_trait]
impl<M: Model + Send + Sync + 'static> ctywire_provider::DataSource<String> for Any<M> {
    type Model = M;
    async fn read(&self, _: &Context<String>, config: M) -> Result<M> {
        Ok(config)
    }
}

#[async_trait]
impl<M: Model + Send + Sync + 'static> ctywire_provider::EphemeralResource<String> for Any<M> {
    type Model = M;
    async fn open(&self, _: &Context<String>, config: M) -> Result<ctywire_provider::Opened<M>> {
        Ok(ctywire_provider::Opened {
            result: config,
            private: None,
            renew_at: None,
        })
    }
}

#[async_trait]
impl<M: Model + Send + Sync + 'static> ctywire_provider::Action<String> for Any<M> {
    type Config = M;
    async fn invoke(
        &self,
        _: &Context<String>,
        _: M,
        _: &ctywire_provider::Progress,
    ) -> Result<()> {
        Ok(())
    }
}

#[async_trait]
impl<M: Model + Send + Sync + 'static> Resource<String> for Any<M> {
    type Model = M;
    async fn create(&self, _: &Context<String>, plan: M) -> Result<M> {
        Ok(plan)
    }
    async fn read(&self, _: &Context<String>, state: M) -> Result<Option<M>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<String>, _: M, plan: M) -> Result<M> {
        Ok(plan)
    }
    async fn delete(&self, _: &Context<String>, _: M) -> Result<()> {
        Ok(())
    }
}

#[async_trait]
impl<M: Model + Send + Sync + 'static> ctywire_provider::ListResource<String> for Any<M> {
    type Config = Counted;
    async fn list(
        &self,
        _: &Context<String>,
        _: Counted,
        _: &ctywire_provider::Listing<M>,
    ) -> Result<()> {
        Ok(())
    }
}

#[test]
fn names_terraform_reserves_are_refused_at_the_root_of_each_kind() {
    let reserved = |err: ctywire_provider::SchemaError, what: &str, name: &str| {
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "{what}: .{name}: Reserved Root Attribute/Block Name: \"{name}\""
            )),
            "{text}"
        );
    };
    let refused = |b: Builder<Test>| b.build().err().expect("refused");
    reserved(
        refused(Builder::new(Test).resource("t_r", any::<Counted>())),
        "t_r",
        "count",
    );
    reserved(
        refused(Builder::new(Test).data_source("t_d", any::<Counted>())),
        "t_d",
        "count",
    );
    reserved(
        refused(Builder::new(Test).ephemeral_resource("t_e", any::<Counted>())),
        "t_e",
        "count",
    );
    reserved(
        refused(Builder::new(Test).action("t_a", any::<Counted>())),
        "t_a",
        "count",
    );
    // A list resource's `config` block, as plugin-framework reserves it.
    reserved(
        refused(Builder::new(Test).list_resource("t_l", any::<Thing>())),
        "t_l",
        "count",
    );
    // The provider block reserves its own names: `version`, not `count`.
    fn configure_versioned(_: Versioned) -> Result<String> {
        Ok(String::new())
    }
    fn configure_counted(_: Counted) -> Result<String> {
        Ok(String::new())
    }
    let err = Builder::from_fn(configure_versioned)
        .build()
        .err()
        .expect("refused");
    reserved(err, "the provider block", "version");
    let err = Builder::from_fn(configure_counted)
        .build()
        .err()
        .expect("refused");
    reserved(err, "the provider block", "count");
    // `version` is an ordinary name in a resource, `count` one level down.
    assert!(Builder::from_fn(configure_counted)
        .resource("t_v", any::<Versioned>())
        .build()
        .is_err());
    assert!(Builder::new(Test)
        .resource("t_v", any::<Versioned>())
        .data_source("t_n", any::<NestedCount>())
        .build()
        .is_ok());
}

#[tokio::test]
async fn a_typed_resource_s_destroy_hook_reads_the_prior_state_and_may_refuse() {
    let framework = configured(Bug::None).await;
    let null = Value::null(ty());
    let destroy = |name: &str| {
        let prior = thing(name, None, Value::string(name), Value::number(1));
        plan_request(prior, null.clone(), null.clone())
    };
    let plan = framework
        .plan_resource_change(destroy("spare"))
        .await
        .unwrap();
    assert!(plan.planned_state.is_null());
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    let refused = framework
        .plan_resource_change(destroy("protected"))
        .await
        .unwrap_err();
    assert_eq!(
        described(&refused),
        [(
            "protected may not be destroyed".to_owned(),
            ".name".to_owned(),
            String::new()
        )]
    );
}
