//! The `timeouts` block: declared on a model with its operations and
//! defaults, read by the framework, an operation that outlives its timeout
//! cancelled with an error naming the operation and the duration at
//! `timeouts.<operation>`, and a duration that does not parse refused at
//! validation at its attribute.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::timeouts::Timeouts;
use ctywire_provider::{
    async_trait, AttributeType, Builder, Context, Model, Resource, Result, Type, Value,
};
use serde::{Deserialize, Serialize};

/// A server whose create and update take `sleep_ms`.
#[derive(Serialize, Deserialize, Model)]
struct Server {
    name: String,
    sleep_ms: u64,
    /// create: 200ms unless configured; update: none unless configured.
    #[model(timeouts(create = "200ms", update))]
    timeouts: Option<Timeouts>,
}

/// Set when an operation's future is dropped before it finished: the
/// framework cancelled it.
struct Slow {
    cancelled: Arc<AtomicBool>,
    /// What each create saw of its deadline: the time left at its start.
    time_left: Arc<Mutex<Vec<Option<Duration>>>>,
}

/// Records a drop that comes before `finish`.
struct Watch(Arc<AtomicBool>, bool);

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

impl Slow {
    async fn take_time(&self, plan: Server) -> Result<Server> {
        let mut watch = Watch(Arc::clone(&self.cancelled), false);
        tokio::time::sleep(Duration::from_millis(plan.sleep_ms)).await;
        watch.1 = true;
        Ok(plan)
    }
}

#[async_trait]
impl Resource<()> for Slow {
    type Model = Server;
    async fn create(&self, ctx: &Context<()>, plan: Server) -> Result<Server> {
        let left = ctx.deadline().map(|d| d - tokio::time::Instant::now());
        self.time_left.lock().unwrap().push(left);
        self.take_time(plan).await
    }
    async fn read(&self, _: &Context<()>, state: Server) -> Result<Option<Server>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<()>, _: Server, plan: Server) -> Result<Server> {
        self.take_time(plan).await
    }
    async fn delete(&self, _: &Context<()>, _: Server) -> Result<()> {
        Ok(())
    }
}

mod support;
use support::{configure, configured, described};

async fn provider(cancelled: &Arc<AtomicBool>) -> impl tf::Provider {
    provider_noting(cancelled, &Arc::default()).await
}

/// The provider, each create noting its time left in `time_left`.
async fn provider_noting(
    cancelled: &Arc<AtomicBool>,
    time_left: &Arc<Mutex<Vec<Option<Duration>>>>,
) -> impl tf::Provider {
    let provider = Builder::from_fn(configure)
        .resource(
            "test_server",
            Slow {
                cancelled: Arc::clone(cancelled),
                time_left: Arc::clone(time_left),
            },
        )
        .build()
        .expect("a valid schema");
    configured(provider).await
}

/// A server's value; `timeouts` the configured durations (`None`: no
/// block).
fn server(name: &str, sleep_ms: u64, timeouts: Option<Vec<(&str, &str)>>) -> Value {
    let Type::Object(o) = Server::cty_type() else {
        panic!("a model's type is an object")
    };
    let block_ty = o
        .attributes()
        .find(|(n, _)| *n == "timeouts")
        .map(|(_, t)| t.clone())
        .expect("a timeouts block");
    let block = match timeouts {
        None => Value::null(block_ty),
        Some(set) => Value::object([("create", "create"), ("update", "update")].map(|(k, _)| {
            let v = set
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, d)| Value::string(*d));
            (k, v.unwrap_or_else(|| Value::null(Type::String)))
        })),
    };
    Value::object([
        ("name", Value::string(name)),
        ("sleep_ms", Value::number(sleep_ms)),
        ("timeouts", block),
    ])
}

/// Applies `planned` over `prior` (null: create): the errors as
/// (summary, path, detail).
async fn apply(
    provider: &impl tf::Provider,
    prior: Value,
    planned: Value,
) -> std::result::Result<Value, Vec<(String, String, String)>> {
    let answer = provider
        .apply_resource_change(tf::ApplyResourceChangeRequest {
            type_name: "test_server".into(),
            prior_state: prior,
            config: planned.clone(),
            planned_state: planned,
            planned_private: Vec::new(),
            provider_meta: None,
            planned_identity: None,
        })
        .await;
    match answer {
        Ok(a) if !a.diagnostics.has_errors() => Ok(a.new_state),
        Ok(a) => Err(described(&a.diagnostics)),
        Err(d) => Err(described(&d)),
    }
}

fn null_server() -> Value {
    Value::null(Server::cty_type())
}

#[tokio::test]
async fn a_create_that_outlives_its_configured_timeout_is_cancelled_naming_operation_and_duration()
{
    let cancelled = Arc::new(AtomicBool::new(false));
    let p = provider(&cancelled).await;
    let planned = server("a", 600_000, Some(vec![("create", "300ms")]));
    let errors = apply(&p, null_server(), planned).await.unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (summary, path, detail) = &errors[0];
    assert_eq!(summary, "test_server create timed out");
    assert_eq!(path, ".timeouts.create");
    assert!(
        detail.contains("timeout of 300ms (as configured)"),
        "{detail}"
    );
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the create's future was not dropped"
    );
}

#[tokio::test]
async fn the_declared_default_applies_when_the_configuration_leaves_it_unset() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let p = provider(&cancelled).await;
    // No block at all, and a block that leaves `create` null.
    for block in [None, Some(vec![("update", "1h")])] {
        let planned = server("a", 600_000, block);
        let errors = apply(&p, null_server(), planned).await.unwrap_err();
        let (summary, path, detail) = &errors[0];
        assert_eq!(summary, "test_server create timed out");
        assert_eq!(path, ".timeouts.create");
        assert!(
            detail.contains("timeout of 200ms (the resource's default)"),
            "{detail}"
        );
    }
}

#[tokio::test]
async fn an_operation_without_a_default_or_a_configured_timeout_runs_to_the_end() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let p = provider(&cancelled).await;
    let created = apply(&p, null_server(), server("a", 0, None))
        .await
        .unwrap();
    // `update` is declared without a default: 300ms is past nothing.
    let updated = apply(&p, created, server("b", 300, None)).await.unwrap();
    assert_eq!(updated.attr("name"), Some(&Value::string("b")));
    assert!(!cancelled.load(Ordering::SeqCst));
    // Configured, it applies.
    let created = apply(&p, null_server(), server("a", 0, None))
        .await
        .unwrap();
    let errors = apply(
        &p,
        created,
        server("b", 600_000, Some(vec![("update", "250ms")])),
    )
    .await
    .unwrap_err();
    assert_eq!(errors[0].0, "test_server update timed out");
    assert_eq!(errors[0].1, ".timeouts.update");
}

#[tokio::test]
async fn a_duration_that_does_not_parse_is_refused_at_validation_at_its_path() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let p = provider(&cancelled).await;
    let validate = |config: Value| {
        let p = &p;
        async move {
            described(
                &p.validate_resource_config(tf::ValidateResourceConfigRequest {
                    type_name: "test_server".into(),
                    config,
                    client_capabilities: Default::default(),
                })
                .await,
            )
        }
    };
    let errors = validate(server("a", 0, Some(vec![("create", "5 minutes")]))).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "Invalid Attribute Value Time Duration");
    assert_eq!(errors[0].1, ".timeouts.create");
    assert!(
        errors[0].2.contains("\"5 minutes\" is not a duration"),
        "{}",
        errors[0].2
    );
    for good in ["30s", "5m", "1h30m", "1.5h", "300ms"] {
        let errors = validate(server("a", 0, Some(vec![("update", good)]))).await;
        assert!(errors.is_empty(), "{good}: {errors:?}");
    }
}

#[test]
fn the_block_has_the_declared_operations_and_a_bad_default_is_a_schema_defect() {
    let block = Server::block();
    let timeouts = &block.block("timeouts").expect("the block").block;
    let ops: Vec<(&str, Option<Duration>)> = timeouts
        .attributes
        .iter()
        .map(|a| (a.name.as_str(), a.timeout_default))
        .collect();
    assert_eq!(
        ops,
        [
            ("create", Some(Duration::from_millis(200))),
            ("update", None)
        ]
    );

    #[derive(Serialize, Deserialize, Model)]
    struct Bad {
        #[model(timeouts(delete = "ten minutes"))]
        timeouts: Option<Timeouts>,
    }
    let defect = Bad::block().check().unwrap_err();
    assert!(
        defect.contains(".timeouts.delete: the default timeout \"ten minutes\" is not a duration"),
        "{defect}"
    );
}

#[test]
fn with_nested_the_timeouts_are_a_single_nested_attribute() {
    #[derive(Serialize, Deserialize, Model)]
    struct Job {
        #[model(nested, timeouts(read = "1m"))]
        timeouts: Option<Timeouts>,
    }
    let block = Job::block();
    let attr = block.attribute("timeouts").expect("an attribute");
    let nested = attr.nested.as_ref().expect("nested attributes");
    assert_eq!(
        nested.nesting,
        ctywire_provider::ctywire::schema::NestingMode::Single
    );
    let names: Vec<&str> = nested
        .block
        .attributes
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["read"]);
    assert_eq!(
        attr.ty.to_string(),
        Type::object([("read", Type::String)]).to_string()
    );
    assert_eq!(block.check(), Ok(()));
}

#[tokio::test]
async fn an_operation_sees_its_deadline_to_stop_before_it() {
    let time_left = Arc::default();
    let p = provider_noting(&Arc::default(), &time_left).await;
    let configured = server("a", 0, Some(vec![("create", "1h")]));
    apply(&p, null_server(), configured).await.unwrap();
    apply(&p, null_server(), server("a", 0, None))
        .await
        .unwrap();
    let seen = time_left.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    // The configured hour, counted from the operation's start (what the
    // test took before the create read it is well under a minute).
    let left = seen[0].expect("a deadline while the create runs");
    assert!(
        left <= Duration::from_secs(3600) && left > Duration::from_secs(3540),
        "{left:?}"
    );
    // The declared default, 200ms.
    let left = seen[1].expect("a deadline from the declared default");
    assert!(left <= Duration::from_millis(200), "{left:?}");
}

#[tokio::test]
async fn a_configured_block_declaring_some_operations_comes_back_in_the_state() {
    let p = provider(&Arc::default()).await;
    let planned = server("a", 0, Some(vec![("create", "1h")]));
    let created = apply(&p, null_server(), planned.clone()).await.unwrap();
    assert_eq!(created, planned);
}

/// A runtime-schema resource with a `timeouts` block of its own: its
/// durations are in no grammar the framework knows.
struct OwnTimeouts;

#[async_trait]
impl ctywire_provider::dynamic::DynResource<()> for OwnTimeouts {
    async fn apply(
        &self,
        _: &Context<()>,
        req: tf::ApplyResourceChangeRequest,
    ) -> std::result::Result<tf::ApplyResourceChangeResponse, ctywire_provider::Diagnostics> {
        Ok(tf::ApplyResourceChangeResponse::new(req.planned_state))
    }
    async fn read(
        &self,
        _: &Context<()>,
        req: tf::ReadResourceRequest,
    ) -> std::result::Result<tf::ReadResourceResponse, ctywire_provider::Diagnostics> {
        Ok(tf::ReadResourceResponse::new(req.current_state))
    }
}

#[tokio::test]
async fn a_runtime_schemas_own_timeouts_block_is_not_the_frameworks() {
    use ctywire_provider::ctywire::schema::NestingMode;
    use ctywire_provider::schema::{Attribute, Block, NestedBlock, Presence};
    let optional = |name: &str| {
        let mut a = Attribute::new(name, Type::String);
        a.presence = Presence::Optional;
        a
    };
    let block = Block {
        attributes: vec![optional("name")],
        blocks: vec![NestedBlock {
            name: "timeouts".into(),
            nesting: NestingMode::Group,
            block: Block {
                attributes: vec![optional("read"), optional("delete")],
                ..Block::default()
            },
            min_items: 0,
            max_items: 0,
            validators: Vec::new(),
        }],
        ..Block::default()
    };
    let provider = Builder::from_fn(configure)
        .resource_with_schema("test_own", 0, block, OwnTimeouts)
        .build()
        .expect("a valid schema");
    let p = configured(provider).await;
    let state = Value::object([
        ("name", Value::string("a")),
        (
            "timeouts",
            Value::object([
                ("read", Value::string("not a duration")),
                ("delete", Value::string("not a duration")),
            ]),
        ),
    ]);
    let read = p
        .read_resource(tf::ReadResourceRequest {
            type_name: "test_own".into(),
            current_state: state.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: Default::default(),
            current_identity: None,
        })
        .await
        .map_err(|d| described(&d))
        .unwrap();
    assert!(!read.diagnostics.has_errors(), "{:?}", read.diagnostics);
    assert_eq!(read.new_state, state);
    let deleted = p
        .apply_resource_change(tf::ApplyResourceChangeRequest {
            type_name: "test_own".into(),
            prior_state: state.clone(),
            config: Value::null(state.ty().clone()),
            planned_state: Value::null(state.ty().clone()),
            planned_private: Vec::new(),
            provider_meta: None,
            planned_identity: None,
        })
        .await
        .map_err(|d| described(&d))
        .unwrap();
    assert!(deleted.new_state.is_null());
}
