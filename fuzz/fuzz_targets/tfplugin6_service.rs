//! Arbitrary bytes as each request of the provider protocol, against a
//! provider built on the framework (a resource with an identity, a data
//! source, an ephemeral resource, a function, a list resource, an action
//! and a state store), called in process as Terraform's calls arrive: the
//! first byte picks the RPC, the rest is decoded by prost as its request
//! (for `WriteStateBytes`, the client stream, the rest is the stream's
//! gRPC body: length-prefixed messages).
//!
//! Never a panic (the service turns one in provider code into a "The
//! provider panicked" diagnostic, so an answer carrying one fails here
//! too), and every stream ends.
#![no_main]

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_provider::tfplugin6::ProviderService;
use ctywire_provider::{
    async_trait, Action, Builder, Context, DataSource, EphemeralResource, Framework, FunctionError,
    ListResource, Listing, LockError, LockInfo, Model, Opened, Progress, Provider, Resource,
    Result, StateStore, StateWriter, StoredState,
};
use libfuzzer_sys::fuzz_target;
use prost::Message;
use serde::{Deserialize, Serialize};
use tonic::Request;

#[derive(Serialize, Deserialize, Model)]
struct Config {
    /// A prefix for ids.
    prefix: Option<String>,
}

#[derive(Clone, Serialize, Deserialize, Model)]
struct Item {
    #[model(identity, requires_replace)]
    name: String,
    value: Option<String>,
    tags: Option<Vec<String>>,
    #[model(computed, keep_state)]
    id: Option<String>,
}

/// What the data source and the ephemeral resource read (identity
/// attributes are for managed resources only).
#[derive(Serialize, Deserialize, Model)]
struct Lookup {
    name: String,
    tags: Option<Vec<String>>,
    #[model(computed)]
    id: Option<String>,
}

#[derive(Serialize, Deserialize, Model)]
struct Query {
    prefix: Option<String>,
}

#[derive(Serialize, Deserialize, Model)]
struct Count {
    #[model(range(1, 20))]
    to: u32,
}

#[derive(Serialize, Deserialize, Model)]
struct Args {
    input: String,
}

struct Demo;

type Ctx = Context<String>;

#[async_trait]
impl Provider for Demo {
    type Config = Config;
    type Data = String;

    async fn configure(&self, config: Config) -> Result<String> {
        Ok(config.prefix.unwrap_or_default())
    }
}

struct Items;

#[async_trait]
impl Resource<String> for Items {
    type Model = Item;

    async fn create(&self, ctx: &Ctx, mut plan: Item) -> Result<Item> {
        plan.id = Some(format!("{}{}", ctx.data(), plan.name));
        Ok(plan)
    }
    async fn read(&self, _: &Ctx, state: Item) -> Result<Option<Item>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Ctx, _prior: Item, plan: Item) -> Result<Item> {
        Ok(plan)
    }
    async fn delete(&self, _: &Ctx, _state: Item) -> Result<()> {
        Ok(())
    }
    async fn import(&self, _: &Ctx, id: String) -> Result<Option<Item>> {
        Ok(Some(Item {
            name: id.clone(),
            value: None,
            tags: None,
            id: Some(id),
        }))
    }
}

#[async_trait]
impl DataSource<String> for Items {
    type Model = Lookup;

    async fn read(&self, _: &Ctx, mut config: Lookup) -> Result<Lookup> {
        config.id = Some(config.name.clone());
        Ok(config)
    }
}

#[async_trait]
impl EphemeralResource<String> for Items {
    type Model = Lookup;

    async fn open(&self, _: &Ctx, mut config: Lookup) -> Result<Opened<Lookup>> {
        config.id = Some("secret".into());
        Ok(Opened::new(config))
    }
}

#[async_trait]
impl ListResource<String> for Items {
    type Config = Query;

    async fn list(&self, _: &Ctx, query: Query, out: &Listing<Item>) -> Result<()> {
        for i in 0..3 {
            let name = format!("{}{i}", query.prefix.as_deref().unwrap_or("item-"));
            let item = Item {
                id: Some(name.clone()),
                value: None,
                tags: None,
                name,
            };
            out.push(format!("item {i}"), item).await?;
        }
        Ok(())
    }
}

struct Counter;

#[async_trait]
impl Action<String> for Counter {
    type Config = Count;

    async fn invoke(&self, _: &Ctx, count: Count, progress: &Progress) -> Result<()> {
        for i in 1..=count.to.min(20) {
            progress.send(format!("step {i}")).await?;
        }
        Ok(())
    }
}

/// States kept in memory, and their locks.
#[derive(Default)]
struct Shelf {
    states: Mutex<BTreeMap<String, Vec<u8>>>,
    locks: Mutex<BTreeMap<String, String>>,
}

static SHELF: OnceLock<Shelf> = OnceLock::new();

fn shelf() -> &'static Shelf {
    SHELF.get_or_init(Shelf::default)
}

#[derive(Serialize, Deserialize, Model)]
struct Place {
    name: String,
}

struct Memory;

/// A write: its bytes, stored on commit.
struct Upload(String, Vec<u8>);

#[async_trait]
impl StateWriter for Upload {
    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.1.extend_from_slice(bytes);
        Ok(())
    }
    async fn commit(self) -> Result<()> {
        shelf().states.lock().unwrap().insert(self.0, self.1);
        Ok(())
    }
}

#[async_trait]
impl StateStore<String> for Memory {
    type Config = Place;
    type Writer = Upload;

    async fn read(&self, _: &Ctx, _: &Place, id: &str) -> Result<Option<StoredState>> {
        Ok(shelf()
            .states
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .map(Into::into))
    }
    async fn write(&self, _: &Ctx, _: &Place, id: &str, _: u64) -> Result<Upload> {
        Ok(Upload(id.to_owned(), Vec::new()))
    }
    async fn lock(&self, _: &Ctx, _: &Place, id: &str, info: &LockInfo) -> Result<(), LockError> {
        let mut locks = shelf().locks.lock().unwrap();
        if locks.contains_key(id) {
            return Err(LockError::Held(info.clone()));
        }
        locks.insert(id.to_owned(), info.id.clone());
        Ok(())
    }
    async fn unlock(&self, _: &Ctx, _: &Place, id: &str, lock_id: &str) -> Result<(), LockError> {
        let mut locks = shelf().locks.lock().unwrap();
        if locks.get(id).is_some_and(|held| held == lock_id) {
            locks.remove(id);
        }
        Ok(())
    }
    async fn states(&self, _: &Ctx, _: &Place) -> Result<Vec<String>> {
        Ok(shelf().states.lock().unwrap().keys().cloned().collect())
    }
    async fn delete(&self, _: &Ctx, _: &Place, id: &str) -> Result<()> {
        shelf().states.lock().unwrap().remove(id);
        Ok(())
    }
}

fn upper(args: Args) -> Result<String, FunctionError> {
    Ok(args.input.to_uppercase())
}

struct Served {
    runtime: tokio::runtime::Runtime,
    service: ProviderService<Framework<Demo>>,
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let framework = Builder::new(Demo)
            .resource("demo_item", Items)
            .data_source("demo_item", Items)
            .ephemeral_resource("demo_item", Items)
            .list_resource("demo_item", Items)
            .action("demo_count", Counter)
            .pure_function("upper", upper)
            .state_store("demo_store", Memory)
            .build()
            .expect("the demo provider's schemas are sound");
        Served {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            service: ProviderService::new(framework),
        }
    })
}

/// How a caught panic's diagnostic prints: the whole summary, so that a
/// request echoing the words (in a type name, say) is not one.
const PANICKED: &str = "summary: \"The provider panicked\"";

/// An answer must not report a panic caught in provider code.
fn check<T: std::fmt::Debug>(answer: Result<tonic::Response<T>, tonic::Status>) {
    let answer = answer.expect("every request is answered, not failed at the gRPC level");
    let text = format!("{:?}", answer.get_ref());
    assert!(!text.contains(PANICKED), "{text}");
}

/// Calls `$rpc` with `$bytes` decoded as its request, if they decode.
macro_rules! call {
    ($s:expr, $rpc:ident, $module:ident, $bytes:expr) => {
        if let Ok(req) = pb::$module::Request::decode($bytes) {
            check($s.$rpc(Request::new(req)).await);
        }
    };
}

/// [`call!`] for a server stream: reads it to its end, checking each event.
macro_rules! stream {
    ($s:expr, $rpc:ident, $module:ident, $bytes:expr) => {
        if let Ok(req) = pb::$module::Request::decode($bytes) {
            let answer = $s.$rpc(Request::new(req)).await;
            let mut events = answer.expect("answered").into_inner().into_inner();
            while let Some(event) = events.recv().await {
                let text = format!("{event:?}");
                assert!(!text.contains(PANICKED), "{text}");
            }
        }
    };
}

/// `WriteStateBytes` with `body` as its request stream's gRPC body.
async fn write_state(s: &ProviderService<Framework<Demo>>, body: &[u8]) {
    let body = http_body_util::Full::new(bytes::Bytes::copy_from_slice(body));
    let decoder = tonic_prost::ProstDecoder::<pb::write_state_bytes::RequestChunk>::default();
    let stream = tonic::Streaming::new_request(decoder, body, None, Some(1 << 20));
    check(s.write_state_bytes(Request::new(stream)).await);
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let Served {
        runtime,
        service: s,
    } = served();
    runtime.block_on(async {
        match which % 36 {
            0 => call!(s, get_metadata, get_metadata, bytes),
            1 => call!(s, get_provider_schema, get_provider_schema, bytes),
            2 => call!(s, validate_provider_config, validate_provider_config, bytes),
            3 => call!(s, validate_resource_config, validate_resource_config, bytes),
            4 => call!(
                s,
                validate_data_resource_config,
                validate_data_resource_config,
                bytes
            ),
            5 => call!(
                s,
                validate_ephemeral_resource_config,
                validate_ephemeral_resource_config,
                bytes
            ),
            6 => call!(s, upgrade_resource_state, upgrade_resource_state, bytes),
            7 => call!(s, configure_provider, configure_provider, bytes),
            8 => call!(s, read_resource, read_resource, bytes),
            9 => call!(s, plan_resource_change, plan_resource_change, bytes),
            10 => call!(s, apply_resource_change, apply_resource_change, bytes),
            11 => call!(s, import_resource_state, import_resource_state, bytes),
            12 => call!(s, move_resource_state, move_resource_state, bytes),
            13 => call!(s, read_data_source, read_data_source, bytes),
            14 => call!(s, open_ephemeral_resource, open_ephemeral_resource, bytes),
            15 => call!(s, renew_ephemeral_resource, renew_ephemeral_resource, bytes),
            16 => call!(s, close_ephemeral_resource, close_ephemeral_resource, bytes),
            17 => call!(s, get_functions, get_functions, bytes),
            18 => call!(s, call_function, call_function, bytes),
            19 => call!(
                s,
                get_resource_identity_schemas,
                get_resource_identity_schemas,
                bytes
            ),
            20 => call!(
                s,
                upgrade_resource_identity,
                upgrade_resource_identity,
                bytes
            ),
            21 => call!(s, generate_resource_config, generate_resource_config, bytes),
            22 => call!(
                s,
                validate_list_resource_config,
                validate_list_resource_config,
                bytes
            ),
            23 => call!(s, validate_action_config, validate_action_config, bytes),
            24 => stream!(s, list_resource, list_resource, bytes),
            25 => call!(s, plan_action, plan_action, bytes),
            26 => stream!(s, invoke_action, invoke_action, bytes),
            28 => call!(s, validate_state_store_config, validate_state_store, bytes),
            29 => call!(s, configure_state_store, configure_state_store, bytes),
            30 => stream!(s, read_state_bytes, read_state_bytes, bytes),
            31 => write_state(s, bytes).await,
            32 => call!(s, lock_state, lock_state, bytes),
            33 => call!(s, unlock_state, unlock_state, bytes),
            34 => call!(s, get_states, get_states, bytes),
            35 => call!(s, delete_state, delete_state, bytes),
            _ => call!(s, stop_provider, stop_provider, bytes),
        }
    });
});
