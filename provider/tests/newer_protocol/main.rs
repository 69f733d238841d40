//! Protocol 6.9–6.11 (Terraform 1.12–1.16), which the machines' Terraform
//! 1.11 never calls: every new RPC driven over a real gRPC connection (a
//! tonic server on a local TCP port, and the client tonic generated from
//! the same proto, as a newer Terraform connects), against a provider
//! built on the framework: identity schemas and upgrades, identity
//! through plan, apply, read and import, a list of 10,000 objects with and
//! without them, an action's progress, generated configuration,
//! deprecation messages, and a client that never sends any of it.

mod action_plan;
mod computed_blocks;
mod fields_611;
#[path = "../support/jobs.rs"]
mod jobs;
mod private_state;
mod runtime_kinds;
mod state_store;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ctywire_provider::ctywire::schema::Schema;
use ctywire_provider::tfplugin6::client::{
    decode_dynamic_value, diagnostic_from_proto, encode_dynamic_value, identity_schema_from_proto,
    schema_from_proto,
};
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::{Diagnostic, ProviderService, RawState, STREAM_BUFFER};
use ctywire_provider::{
    async_trait, Action, Builder, Context, Diagnostics, ListResource, Listing, Model, Progress,
    Provider, Resource, Result, Type, Value,
};
use pb::provider_client::ProviderClient;
use serde::{Deserialize, Serialize};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Channel;

// ---- the provider --------------------------------------------------------

/// An in-memory store of items.
#[derive(Serialize, Deserialize, Model)]
struct Config {
    /// Items to start with: `item-00000`, `item-00001`, ...
    seed: Option<u32>,
}

/// An item of the store.
#[derive(Clone, Serialize, Deserialize, Model)]
struct Item {
    /// Its name: what identifies it.
    #[model(identity, requires_replace)]
    name: String,
    /// What it holds.
    value: String,
    /// What it held before `value` existed.
    #[model(deprecated = "use value instead")]
    old_value: Option<String>,
    /// How it is kept.
    #[model(block, deprecated = "settings are ignored since 2.0")]
    settings: Option<Settings>,
    /// The store's id for it.
    #[model(computed, keep_state)]
    id: Option<String>,
}

#[derive(Clone, Serialize, Deserialize, Model)]
struct Settings {
    mode: Option<String>,
}

struct Store {
    items: Mutex<BTreeMap<String, Item>>,
}

impl Store {
    fn get(&self, name: &str) -> Option<Item> {
        self.items.lock().ok()?.get(name).cloned()
    }
    fn put(&self, item: &Item) {
        if let Ok(mut items) = self.items.lock() {
            items.insert(item.name.clone(), item.clone());
        }
    }
}

/// The provider.
struct Demo;

type Data = Arc<Store>;
type Ctx = Context<Data>;

#[async_trait]
impl Provider for Demo {
    type Config = Config;
    type Data = Arc<Store>;

    async fn configure(&self, config: Config) -> Result<Arc<Store>> {
        let items = (0..config.seed.unwrap_or(0))
            .map(|i| {
                let name = format!("item-{i:05}");
                let item = Item {
                    value: format!("value {i}"),
                    old_value: None,
                    settings: None,
                    id: Some(format!("id-{name}")),
                    name: name.clone(),
                };
                (name, item)
            })
            .collect();
        Ok(Arc::new(Store {
            items: Mutex::new(items),
        }))
    }
}

struct Items {
    pushed: Arc<AtomicUsize>,
}

/// The identity of version 0, before `item` was renamed `name`.
#[derive(Deserialize)]
struct IdentityV0 {
    item: String,
}

#[async_trait]
impl Resource<Arc<Store>> for Items {
    type Model = Item;
    const IDENTITY_VERSION: i64 = 1;

    async fn create(&self, ctx: &Ctx, mut plan: Item) -> Result<Item> {
        plan.id = Some(format!("id-{}", plan.name));
        ctx.data().put(&plan);
        Ok(plan)
    }

    async fn read(&self, ctx: &Ctx, state: Item) -> Result<Option<Item>> {
        Ok(ctx.data().get(&state.name))
    }

    async fn update(&self, ctx: &Ctx, _prior: Item, plan: Item) -> Result<Item> {
        ctx.data().put(&plan);
        Ok(plan)
    }

    async fn delete(&self, ctx: &Ctx, state: Item) -> Result<()> {
        if let Ok(mut items) = ctx.data().items.lock() {
            items.remove(&state.name);
        }
        Ok(())
    }

    async fn import(&self, ctx: &Ctx, id: String) -> Result<Option<Item>> {
        Ok(ctx.data().get(&id))
    }

    async fn upgrade_identity(&self, _: &Ctx, version: i64, raw: RawState) -> Result<Value> {
        if version != 0 {
            return Err(Diagnostics::error(format!("no identity version {version}")));
        }
        let old: IdentityV0 = serde_json::from_slice(&raw.json)
            .map_err(|e| Diagnostics::error(format!("the stored identity is damaged: {e}")))?;
        Ok(Value::object([("name", Value::string(old.item))]))
    }
}

/// Which items to list.
#[derive(Serialize, Deserialize, Model)]
struct Query {
    /// Only names starting with this.
    prefix: Option<String>,
}

#[async_trait]
impl ListResource<Arc<Store>> for Items {
    type Config = Query;

    async fn list(&self, ctx: &Ctx, query: Query, out: &Listing<Item>) -> Result<()> {
        let items: Vec<Item> = match ctx.data().items.lock() {
            Ok(items) => items.values().cloned().collect(),
            Err(_) => return Err(Diagnostics::error("the store is unavailable")),
        };
        let prefix = query.prefix.unwrap_or_default();
        for item in items.into_iter().filter(|i| i.name.starts_with(&prefix)) {
            self.pushed.fetch_add(1, Ordering::SeqCst);
            out.push(format!("the item {}", item.name), item).await?;
        }
        Ok(())
    }
}

/// Counts, reporting each step.
#[derive(Serialize, Deserialize, Model)]
struct Count {
    /// How far.
    #[model(range(1, 100000))]
    to: u32,
    /// Fail at this step.
    fail_at: Option<u32>,
    /// Milliseconds to wait at each step.
    delay_ms: Option<u64>,
}

struct Counter;

#[async_trait]
impl Action<Arc<Store>> for Counter {
    type Config = Count;

    async fn invoke(&self, _: &Ctx, count: Count, progress: &Progress) -> Result<()> {
        for i in 1..=count.to {
            if let Some(ms) = count.delay_ms {
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            progress.send(format!("step {i} of {}", count.to)).await?;
            if count.fail_at == Some(i) {
                return Err(Diagnostics::error(format!("failed at step {i}")));
            }
        }
        Ok(())
    }
}

fn demo(pushed: &Arc<AtomicUsize>) -> Builder<Demo> {
    Builder::new(Demo)
        .resource(
            "demo_item",
            Items {
                pushed: pushed.clone(),
            },
        )
        .list_resource(
            "demo_item",
            Items {
                pushed: pushed.clone(),
            },
        )
        .action("demo_count", Counter)
}

// ---- the connection --------------------------------------------------------

/// A provider served by tonic on a local TCP port, and a client
/// connected to it.
struct Served {
    client: ProviderClient<Channel>,
    pushed: Arc<AtomicUsize>,
}

/// HTTP/2's flow control windows at their protocol default (64 KiB), as
/// go-grpc's client starts: what the transport may hold in flight is then
/// small next to a 10,000-object list.
async fn serve_service(
    service: pb::provider_server::ProviderServer<impl pb::provider_server::Provider>,
) -> ProviderClient<Channel> {
    connect(service, 65_535).await
}

/// [`serve_service`] with flow control windows of `window` bytes each way.
async fn connect(
    service: pb::provider_server::ProviderServer<impl pb::provider_server::Provider>,
    window: u32,
) -> ProviderClient<Channel> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .initial_stream_window_size(window)
            .initial_connection_window_size(window)
            .add_service(service)
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .initial_stream_window_size(window)
        .initial_connection_window_size(window)
        .connect()
        .await
        .unwrap();
    ProviderClient::new(channel).max_decoding_message_size(256 << 20)
}

/// The demo provider with two state stores: `demo_store`, which takes
/// the chunk size Terraform proposes, and `demo_greedy`, which wants
/// more than Terraform accepts.
async fn serve_with_store() -> (ProviderClient<Channel>, Arc<state_store::Shelf>) {
    let shelf = Arc::new(state_store::Shelf::default());
    let store = |choose| state_store::Memory {
        shelf: shelf.clone(),
        choose,
    };
    let framework = demo(&Arc::default())
        .state_store("demo_store", store(|proposed| proposed))
        .state_store("demo_greedy", store(|_| 256 << 20))
        .build()
        .unwrap();
    // Windows of 4 MiB, as grpc-go's estimate of the link's bandwidth
    // grows them on a fast local connection: 64 KiB windows would take
    // minutes over 300 MiB states.
    let client = connect(ProviderService::new(framework).into_service(), 4 << 20).await;
    (client, shelf)
}

async fn serve() -> Served {
    let pushed = Arc::new(AtomicUsize::new(0));
    let framework = demo(&pushed).build().unwrap();
    let client = serve_service(ProviderService::new(framework).into_service()).await;
    Served { client, pushed }
}

/// The types of the provider's schemas, as a client reads them.
struct Types {
    provider: Type,
    item: Type,
    identity: Type,
    query: Type,
    count: Type,
}

async fn types(client: &mut ProviderClient<Channel>) -> Types {
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let ty = |s: Option<&pb::Schema>| {
        schema_from_proto(s.unwrap())
            .unwrap()
            .implied_type()
            .unwrap()
    };
    let ids = client
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    let action = schemas.action_schemas.get("demo_count").unwrap();
    Types {
        provider: ty(schemas.provider.as_ref()),
        item: ty(schemas.resource_schemas.get("demo_item")),
        identity: identity_schema_from_proto(ids.identity_schemas.get("demo_item").unwrap())
            .unwrap()
            .implied_type()
            .unwrap(),
        query: ty(schemas.list_resource_schemas.get("demo_item")),
        count: ty(action.schema.as_ref()),
    }
}

fn dv(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(encode_dynamic_value(v, ty).unwrap())
}

fn id_data(v: &Value, ty: &Type) -> Option<pb::ResourceIdentityData> {
    Some(pb::ResourceIdentityData {
        identity_data: dv(v, ty),
    })
}

fn decode_id(d: Option<&pb::ResourceIdentityData>, ty: &Type) -> Value {
    decode_dynamic_value(d.and_then(|d| d.identity_data.as_ref()), ty).unwrap()
}

fn errors(ds: &[pb::Diagnostic]) -> Vec<Diagnostic> {
    ds.iter()
        .map(diagnostic_from_proto)
        .filter(Diagnostic::is_error)
        .collect()
}

/// Fails the test on any error among `ds`.
fn assert_no_errors(ds: &[pb::Diagnostic]) {
    assert!(errors(ds).is_empty(), "{ds:?}");
}

async fn configure(client: &mut ProviderClient<Channel>, t: &Types, seed: u32) {
    let config = Value::object([("seed", Value::number(seed))]);
    configure_with(client, &config, &t.provider).await;
}

/// Serves `framework`, a provider with nothing to configure, configured.
async fn serve_configured<P: Provider>(
    framework: ctywire_provider::Framework<P>,
) -> ProviderClient<Channel> {
    let mut client = serve_service(ProviderService::new(framework).into_service()).await;
    let empty = Value::object(Vec::<(&str, Value)>::new());
    configure_with(&mut client, &empty, empty.ty()).await;
    client
}

/// Configures the provider with `config`, of the provider schema's `ty`.
async fn configure_with(client: &mut ProviderClient<Channel>, config: &Value, ty: &Type) {
    let resp = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.15.0".into(),
            config: dv(config, ty),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&resp.diagnostics);
}

fn item(name: &str, value: &str, id: Value) -> Value {
    Value::object([
        ("name", Value::string(name)),
        ("value", Value::string(value)),
        ("old_value", Value::null(Type::String)),
        (
            "settings",
            Value::null(Type::object([("mode", Type::String)])),
        ),
        ("id", id),
    ])
}

fn name_identity(name: &str) -> Value {
    Value::object([("name", Value::string(name))])
}

// ---- the tests -------------------------------------------------------------

#[tokio::test]
async fn identity_schemas_come_from_the_models_identity_attributes() {
    let mut s = serve().await;
    let ids = s
        .client
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(ids.diagnostics.is_empty());
    let schema = identity_schema_from_proto(&ids.identity_schemas["demo_item"]).unwrap();
    assert_eq!(schema.version, 1);
    assert_eq!(schema.identity_attributes.len(), 1);
    let name = &schema.identity_attributes[0];
    assert_eq!(
        (name.name.as_str(), &name.ty, name.required_for_import),
        ("name", &Type::String, true)
    );
    assert_eq!(name.description, "Its name: what identifies it.");

    let meta = s
        .client
        .get_metadata(pb::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(meta.list_resources[0].type_name, "demo_item");
    assert_eq!(meta.actions[0].type_name, "demo_count");
    assert!(meta.server_capabilities.unwrap().generate_resource_config);
}

#[tokio::test]
async fn an_identity_stored_at_an_older_version_is_upgraded() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 0).await;
    let upgrade = |version: i64, json: &str| pb::upgrade_resource_identity::Request {
        type_name: "demo_item".into(),
        version,
        raw_identity: Some(pb::RawState {
            json: json.as_bytes().to_vec(),
            flatmap: Default::default(),
        }),
    };

    let old = s
        .client
        .upgrade_resource_identity(upgrade(0, r#"{"item":"a"}"#))
        .await
        .unwrap()
        .into_inner();
    assert!(old.diagnostics.is_empty(), "{:?}", old.diagnostics);
    assert_eq!(
        decode_id(old.upgraded_identity.as_ref(), &t.identity),
        name_identity("a")
    );

    let current = s
        .client
        .upgrade_resource_identity(upgrade(1, r#"{"name":"b"}"#))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        decode_id(current.upgraded_identity.as_ref(), &t.identity),
        name_identity("b")
    );

    let damaged = s
        .client
        .upgrade_resource_identity(upgrade(0, r#"{"name":"c"}"#))
        .await
        .unwrap()
        .into_inner();
    let errs = errors(&damaged.diagnostics);
    assert!(errs[0]
        .summary
        .starts_with("the stored identity is damaged"));
    assert!(damaged.upgraded_identity.is_none());
}

#[tokio::test]
async fn identity_goes_through_plan_apply_read_and_import() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 0).await;
    let null = Value::null(t.item.clone());
    let config = item("a", "one", Value::null(Type::String));

    // Create: the planned identity is known (the name is).
    let plan = s
        .client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "demo_item".into(),
            prior_state: dv(&null, &t.item),
            proposed_new_state: dv(&config, &t.item),
            config: dv(&config, &t.item),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&plan.diagnostics).is_empty(),
        "{:?}",
        plan.diagnostics
    );
    let planned_identity = decode_id(plan.planned_identity.as_ref(), &t.identity);
    assert_eq!(planned_identity, name_identity("a"));

    let applied = s
        .client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "demo_item".into(),
            prior_state: dv(&null, &t.item),
            planned_state: plan.planned_state.clone(),
            config: dv(&config, &t.item),
            planned_private: plan.planned_private,
            planned_identity: id_data(&planned_identity, &t.identity),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&applied.diagnostics).is_empty(),
        "{:?}",
        applied.diagnostics
    );
    assert_eq!(
        decode_id(applied.new_identity.as_ref(), &t.identity),
        name_identity("a")
    );
    let state = decode_dynamic_value(applied.new_state.as_ref(), &t.item).unwrap();

    // Read and update keep it.
    let read = s
        .client
        .read_resource(pb::read_resource::Request {
            type_name: "demo_item".into(),
            current_state: dv(&state, &t.item),
            current_identity: id_data(&name_identity("a"), &t.identity),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        decode_id(read.new_identity.as_ref(), &t.identity),
        name_identity("a")
    );
    let changed = item("a", "two", Value::null(Type::String));
    let update = s
        .client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "demo_item".into(),
            prior_state: dv(&state, &t.item),
            proposed_new_state: dv(&item("a", "two", Value::string("id-a")), &t.item),
            config: dv(&changed, &t.item),
            prior_identity: id_data(&name_identity("a"), &t.identity),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        decode_id(update.planned_identity.as_ref(), &t.identity),
        name_identity("a")
    );

    // Import by identity (no id) and by id both give the identity back.
    for (id, identity) in [("", id_data(&name_identity("a"), &t.identity)), ("a", None)] {
        let imported = s
            .client
            .import_resource_state(pb::import_resource_state::Request {
                type_name: "demo_item".into(),
                id: id.into(),
                identity,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(
            errors(&imported.diagnostics).is_empty(),
            "{:?}",
            imported.diagnostics
        );
        let object = &imported.imported_resources[0];
        assert_eq!(
            decode_id(object.identity.as_ref(), &t.identity),
            name_identity("a")
        );
        let state = decode_dynamic_value(object.state.as_ref(), &t.item).unwrap();
        assert_eq!(state.attr("id"), Some(&Value::string("id-a")));
    }

    // An identity naming nothing is Terraform's "non-existent" error.
    let missing = s
        .client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "demo_item".into(),
            identity: id_data(&name_identity("zzz"), &t.identity),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        errors(&missing.diagnostics)[0].summary,
        "Cannot import non-existent remote object"
    );
}

/// Reads a whole list stream.
async fn list_all(
    client: &mut ProviderClient<Channel>,
    t: &Types,
    include: bool,
    limit: i64,
) -> Vec<pb::list_resource::Event> {
    let mut stream = client
        .list_resource(pb::list_resource::Request {
            type_name: "demo_item".into(),
            config: dv(
                &Value::object([("prefix", Value::null(Type::String))]),
                &t.query,
            ),
            include_resource_object: include,
            limit,
        })
        .await
        .unwrap()
        .into_inner();
    let mut events = Vec::new();
    while let Some(e) = stream.message().await.unwrap() {
        events.push(e);
    }
    events
}

#[tokio::test]
async fn a_list_of_ten_thousand_streams_in_order_with_and_without_objects() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 10_000).await;

    let with = list_all(&mut s.client, &t, true, 100_000).await;
    assert_eq!(with.len(), 10_000);
    for (i, e) in with.iter().enumerate() {
        let name = format!("item-{i:05}");
        assert!(e.diagnostic.is_empty());
        assert_eq!(e.display_name, format!("the item {name}"));
        assert_eq!(
            decode_id(e.identity.as_ref(), &t.identity),
            name_identity(&name)
        );
        let object = decode_dynamic_value(e.resource_object.as_ref(), &t.item).unwrap();
        assert_eq!(
            object.attr("value"),
            Some(&Value::string(format!("value {i}")))
        );
    }

    let without = list_all(&mut s.client, &t, false, 100_000).await;
    assert_eq!(without.len(), 10_000);
    assert!(without.iter().all(|e| e.resource_object.is_none()));
    assert_eq!(
        decode_id(without[9_999].identity.as_ref(), &t.identity),
        name_identity("item-09999")
    );

    // A limit ends the stream there.
    let limited = list_all(&mut s.client, &t, false, 7).await;
    assert_eq!(limited.len(), 7);
}

#[tokio::test]
async fn a_list_its_reader_abandons_stops_within_the_buffer() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 10_000).await;
    let mut stream = s
        .client
        .list_resource(pb::list_resource::Request {
            type_name: "demo_item".into(),
            config: dv(
                &Value::object([("prefix", Value::null(Type::String))]),
                &t.query,
            ),
            include_resource_object: true,
            limit: 100_000,
        })
        .await
        .unwrap()
        .into_inner();
    for _ in 0..5 {
        assert!(stream.message().await.unwrap().is_some());
    }
    drop(stream);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pushed = s.pushed.load(Ordering::SeqCst);
    // What was read, what the channel holds (STREAM_BUFFER) and what
    // HTTP/2's windows hold in flight (64 KiB of ~100-byte events): far
    // from the 10,000 a list without bounds would have made.
    let bound = 5 + STREAM_BUFFER + 2 * 65_535 / 100;
    assert!(pushed < bound, "the provider pushed {pushed} of 10,000");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(s.pushed.load(Ordering::SeqCst), pushed, "it stopped");
}

/// Reads an action's whole stream: the progress messages, then the
/// final diagnostics.
/// Starts `demo_count` with `count`: its stream of events.
async fn start(
    client: &mut ProviderClient<Channel>,
    t: &Types,
    count: Value,
) -> tonic::Streaming<pb::invoke_action::Event> {
    client
        .invoke_action(pb::invoke_action::Request {
            action_type: "demo_count".into(),
            config: dv(&count, &t.count),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner()
}

/// Reads an action's events to the end: the progress messages (after
/// those in `progress`), and the diagnostics of the Completed event.
async fn finish(
    mut stream: tonic::Streaming<pb::invoke_action::Event>,
    mut progress: Vec<String>,
) -> (Vec<String>, Vec<Diagnostic>) {
    use pb::invoke_action::event::Type as Ev;
    let mut completed = None;
    while let Some(e) = stream.message().await.unwrap() {
        assert!(completed.is_none(), "nothing comes after Completed");
        match e.r#type {
            Some(Ev::Progress(p)) => progress.push(p.message),
            Some(Ev::Completed(c)) => {
                completed = Some(c.diagnostics.iter().map(diagnostic_from_proto).collect())
            }
            None => panic!("an event of no type"),
        }
    }
    (
        progress,
        completed.expect("a Completed event ends the stream"),
    )
}

async fn invoke(
    client: &mut ProviderClient<Channel>,
    t: &Types,
    count: Value,
) -> (Vec<String>, Vec<Diagnostic>) {
    finish(start(client, t, count).await, Vec::new()).await
}

fn count(to: u32, fail_at: Option<u32>, delay_ms: Option<u64>) -> Value {
    Value::object([
        ("to", Value::number(to)),
        ("fail_at", Value::from_option(fail_at, Type::Number)),
        ("delay_ms", Value::from_option(delay_ms, Type::Number)),
    ])
}

#[tokio::test]
async fn an_action_reports_its_progress_in_order_then_completes() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 0).await;

    let (progress, done) = invoke(&mut s.client, &t, count(300, None, None)).await;
    let expected: Vec<String> = (1..=300).map(|i| format!("step {i} of 300")).collect();
    assert_eq!(progress, expected);
    assert!(done.is_empty());

    let (progress, done) = invoke(&mut s.client, &t, count(10, Some(4), None)).await;
    assert_eq!(progress.len(), 4);
    assert_eq!(done[0].summary, "failed at step 4");

    // Plan and validation check the typed config's rules, at the attribute.
    let plan = s
        .client
        .plan_action(pb::plan_action::Request {
            action_type: "demo_count".into(),
            config: dv(&count(0, None, None), &t.count),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    let errs = errors(&plan.diagnostics);
    assert_eq!(
        errs[0]
            .attribute
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(".to")
    );
    let valid = s
        .client
        .validate_action_config(pb::validate_action_config::Request {
            type_name: "demo_count".into(),
            config: dv(&count(5, None, None), &t.count),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(valid.diagnostics.is_empty());
}

#[tokio::test]
async fn stop_provider_ends_an_action_in_flight() {
    use pb::invoke_action::event::Type as Ev;
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 0).await;
    // 10,000 steps of 10 ms: stopped once its first progress event shows
    // it running (not after a fixed time, which a loaded machine can
    // spend before the action starts), it must end long before its last.
    let mut stream = start(&mut s.client, &t, count(10_000, None, Some(10))).await;
    let first = match stream.message().await.unwrap().and_then(|e| e.r#type) {
        Some(Ev::Progress(p)) => p.message,
        other => panic!("the action's first event is not progress: {other:?}"),
    };
    let stopped = s
        .client
        .stop_provider(pb::stop_provider::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(stopped.error.is_empty());
    let (progress, done) = finish(stream, vec![first]).await;
    assert!(progress.len() < 10_000, "{} steps ran", progress.len());
    assert_eq!(done[0].summary, "The provider was stopped");
}

#[tokio::test]
async fn generated_config_is_the_state_without_computed_or_deprecated_parts() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    let settings = Value::object([("mode", Value::string("fast"))]);
    let state = Value::object([
        ("name", Value::string("a")),
        ("value", Value::string("one")),
        ("old_value", Value::string("zero")),
        ("settings", settings),
        ("id", Value::string("id-a")),
    ]);
    let resp = s
        .client
        .generate_resource_config(pb::generate_resource_config::Request {
            type_name: "demo_item".into(),
            state: dv(&state, &t.item),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty());
    let config = decode_dynamic_value(resp.config.as_ref(), &t.item).unwrap();
    assert_eq!(config, item("a", "one", Value::null(Type::String)));
}

#[tokio::test]
async fn deprecation_messages_from_the_model_reach_the_schema() {
    let mut s = serve().await;
    let schemas = s
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let block = schemas.resource_schemas["demo_item"]
        .block
        .as_ref()
        .unwrap();
    let old = block
        .attributes
        .iter()
        .find(|a| a.name == "old_value")
        .unwrap();
    assert!(old.deprecated);
    assert_eq!(old.deprecation_message, "use value instead");
    let settings = block
        .block_types
        .iter()
        .find(|b| b.type_name == "settings")
        .unwrap();
    let settings = settings.block.as_ref().unwrap();
    assert!(settings.deprecated);
    assert_eq!(
        settings.deprecation_message,
        "settings are ignored since 2.0"
    );
    let value = block.attributes.iter().find(|a| a.name == "value").unwrap();
    assert_eq!(
        (value.deprecated, value.deprecation_message.as_str()),
        (false, "")
    );
    // The same, read back as ctywire's schema.
    let schema: Schema = schema_from_proto(&schemas.resource_schemas["demo_item"]).unwrap();
    let old = schema.block.find_attribute("old_value").unwrap();
    assert_eq!(old.deprecation_message, "use value instead");
}

/// A client of protocol 6.8 (Terraform 1.11) sends none of the new fields
/// (prost leaves an unset field off the wire, so these requests are its
/// bytes) and calls none of the new RPCs: everything works as before.
#[tokio::test]
async fn an_old_client_that_never_sends_the_new_fields_works_as_before() {
    let mut s = serve().await;
    let t = types(&mut s.client).await;
    configure(&mut s.client, &t, 0).await;
    let null = Value::null(t.item.clone());
    let config = item("old", "one", Value::null(Type::String));
    let plan = s
        .client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "demo_item".into(),
            prior_state: dv(&null, &t.item),
            proposed_new_state: dv(&config, &t.item),
            config: dv(&config, &t.item),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: Some(pb::ClientCapabilities {
                deferral_allowed: false,
                write_only_attributes_allowed: true,
                // Zero values are not on the wire: Terraform 1.11's bytes.
                store_planned_private: false,
                computed_blocks_allowed: false,
            }),
            prior_identity: None,
            planned_private: Vec::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&plan.diagnostics).is_empty(),
        "{:?}",
        plan.diagnostics
    );
    let applied = s
        .client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "demo_item".into(),
            prior_state: dv(&null, &t.item),
            planned_state: plan.planned_state,
            config: dv(&config, &t.item),
            planned_private: plan.planned_private,
            provider_meta: None,
            planned_identity: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&applied.diagnostics).is_empty(),
        "{:?}",
        applied.diagnostics
    );
    let state = decode_dynamic_value(applied.new_state.as_ref(), &t.item).unwrap();
    assert_eq!(state, item("old", "one", Value::string("id-old")));

    let read = s
        .client
        .read_resource(pb::read_resource::Request {
            type_name: "demo_item".into(),
            current_state: dv(&state, &t.item),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            current_identity: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(errors(&read.diagnostics).is_empty());
    assert_eq!(
        decode_dynamic_value(read.new_state.as_ref(), &t.item).unwrap(),
        state
    );
    let imported = s
        .client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "demo_item".into(),
            id: "old".into(),
            client_capabilities: None,
            identity: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(errors(&imported.diagnostics).is_empty());
    assert_eq!(imported.imported_resources.len(), 1);

    // A provider written on the protocol layer with none of the new parts
    // answers the new RPCs too: no identities, and "not supported".
    struct Plain;
    #[async_trait]
    impl ctywire_provider::tfplugin6::Provider for Plain {
        fn schemas(&self) -> ctywire_provider::tfplugin6::Schemas {
            ctywire_provider::tfplugin6::Schemas::new(Schema::default())
        }
    }
    let mut plain = serve_service(ProviderService::new(Plain).into_service()).await;
    let ids = plain
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(ids.identity_schemas.is_empty() && ids.diagnostics.is_empty());
    let mut stream = plain
        .invoke_action(pb::invoke_action::Request {
            action_type: "plain_nothing".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let only = stream.message().await.unwrap().unwrap();
    let Some(pb::invoke_action::event::Type::Completed(c)) = only.r#type else {
        panic!("an unknown action completes at once, with an error")
    };
    assert_eq!(
        errors(&c.diagnostics)[0].summary,
        "unknown action type \"plain_nothing\""
    );
    assert!(stream.message().await.unwrap().is_none());
}
