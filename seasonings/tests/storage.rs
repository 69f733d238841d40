//! Level 2, storage (§8): the Python `files` plugin (examples/seasonings/
//! python/files.py, a real child process) served by the host provider as
//! the state store `files_storage`, driven over a real gRPC connection by
//! the client generated from the same proto as Terraform's pluggable
//! backend (protocol 6.11, which the machine's Terraform 1.11 never
//! calls): configuration, states of several chunks, locks, listing,
//! deletion, and the faults of tests/plugins/faulty_files.py.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctywire::{Type, Value};
use ctywire_provider::tfplugin6::client::{
    diagnostic_from_proto, encode_dynamic_value, schema_from_proto,
};
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::{Diagnostic, Diagnostics, ProviderService};
use ctywire_provider_testing::StateStoreClient;
use ctywire_seasonings::host::{Plugin, PluginOptions};
use ctywire_seasonings::provider::builder;
use pb::provider_client::ProviderClient;
use support::plugins::workspace;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Channel;

// The e2e support carries the one rule for a missing component; the
// plugins' support finds Python with it.
#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;
mod support;

const STORE: &str = "files_storage";
const MIB: usize = 1 << 20;

/// A fresh directory for one test's states.
fn states_dir(test: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ctywire-storage-{}-{}-{test}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The host serving `script` (a real Python process), and a client
/// connected to it over TCP; `None` when Python with msgpack is missing
/// (SKIPPED; a failure under CI).
struct Served {
    client: ProviderClient<Channel>,
    plugin: Arc<Plugin>,
}

async fn serve(script: &str, call_timeout: Duration) -> Option<Served> {
    let python = support::plugins::python()?;
    let script = workspace().join(script);
    let options = PluginOptions {
        call_timeout,
        ..PluginOptions::default()
    };
    let plugin = Plugin::spawn(python, [script.display().to_string()], options)
        .await
        .unwrap();
    let plugin = Arc::new(plugin);
    let framework = builder(plugin.clone()).await.unwrap().build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(ProviderService::new(framework).into_service())
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let client = ProviderClient::new(channel).max_decoding_message_size(256 << 20);
    Some(Served { client, plugin })
}

async fn files() -> Option<Served> {
    serve(
        "examples/seasonings/python/files.py",
        Duration::from_secs(60),
    )
    .await
}

async fn faulty(call_timeout: Duration) -> Option<Served> {
    serve("seasonings/tests/plugins/faulty_files.py", call_timeout).await
}

/// The faulty store, configured with `dir`.
async fn faulty_in(dir: &Path, call_timeout: Duration) -> Option<(Served, Store)> {
    let mut s = faulty(call_timeout).await?;
    let store = configure(&mut s.client, dir, MIB).await.unwrap();
    Some((s, store))
}

/// `errs` names each of `named` (the plugin, the method, the state, the
/// path in the answer: what a Terraform user needs).
fn assert_names(errs: &str, named: &[&str]) {
    for n in named {
        assert!(errs.contains(n), "{n} in {errs}");
    }
}

fn errors(ds: &[pb::Diagnostic]) -> Vec<Diagnostic> {
    ds.iter()
        .map(diagnostic_from_proto)
        .filter(Diagnostic::is_error)
        .collect()
}

/// Every error's summary and detail, for reading what it says.
fn text(errors: &[Diagnostic]) -> String {
    errors
        .iter()
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn store_schema(client: &mut ProviderClient<Channel>) -> ctywire::schema::Schema {
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    schema_from_proto(&schemas.state_store_schemas[STORE]).unwrap()
}

/// The store, through the harness crate's state-store client.
type Store = StateStoreClient<Channel>;

/// The error diagnostics of a failed call.
fn errors_of(ds: Diagnostics) -> Vec<Diagnostic> {
    ds.into_iter().filter(Diagnostic::is_error).collect()
}

/// `ConfigureProvider` (the empty provider block), then
/// `ConfigureStateStore` with `directory`, proposing `chunk_size`, as
/// core's pluggable backend does: the store, or the errors.
async fn configure(
    client: &mut ProviderClient<Channel>,
    directory: &Path,
    chunk_size: usize,
) -> Result<Store, Vec<Diagnostic>> {
    let empty = Value::object([] as [(&str, Value); 0]);
    let provider = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.16.0".into(),
            config: Some(encode_dynamic_value(&empty, empty.ty()).unwrap()),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(errors(&provider.diagnostics).is_empty());
    let config = Value::object([("directory", Value::string(directory.display().to_string()))]);
    StateStoreClient::configure(client.clone(), STORE, &config, chunk_size)
        .await
        .map_err(errors_of)
}

/// `bytes` written as core's `WriteStateBytes` cuts them; `upto` stops
/// the stream after that many chunks (a write that breaks off).
async fn write(store: &mut Store, id: &str, bytes: &[u8], upto: Option<usize>) -> Vec<Diagnostic> {
    let bytes = bytes.to_vec();
    let chunks = store.request_chunks(id, bytes.len(), move |start, n| {
        bytes[start as usize..start as usize + n].to_vec()
    });
    let chunks: Vec<_> = chunks.take(upto.unwrap_or(usize::MAX)).collect();
    let written = store.write_chunks(tokio_stream::iter(chunks)).await;
    written.err().map(errors_of).unwrap_or_default()
}

/// A read: the bytes, the chunks' lengths, and the errors.
struct Read {
    bytes: Vec<u8>,
    /// Each chunk's total length.
    totals: Vec<i64>,
    lengths: Vec<usize>,
    errors: Vec<Diagnostic>,
}

async fn read(store: &mut Store, id: &str) -> Read {
    let mut r = Read {
        bytes: vec![],
        totals: vec![],
        lengths: vec![],
        errors: vec![],
    };
    let answer = store
        .read_chunks(id, |chunk| {
            assert_eq!(chunk.range.unwrap().0, r.bytes.len() as i64);
            r.totals.push(chunk.total_length);
            r.lengths.push(chunk.bytes.len());
            r.bytes.extend_from_slice(&chunk.bytes);
        })
        .await;
    if let Err(e) = answer {
        r.errors = errors_of(e);
    }
    r
}

/// A state document of `n` bytes whose bytes differ from chunk to chunk
/// (`serial` makes another).
fn state(n: usize, serial: u8) -> Vec<u8> {
    let head = format!("{{\"version\":4,\"serial\":{serial},\"pad\":\"");
    let mut out = head.into_bytes();
    let mut i: u32 = u32::from(serial);
    while out.len() < n - 2 {
        i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        out.push(b'a' + (i >> 16) as u8 % 26);
    }
    out.extend_from_slice(b"\"}");
    out
}

#[tokio::test]
async fn the_plugins_store_is_served_as_name_storage_with_the_plugins_schema() {
    let Some(mut s) = files().await else { return };
    let schema = store_schema(&mut s.client).await;
    assert_eq!(
        schema.implied_type().unwrap(),
        Type::object([("directory", Type::String)])
    );
    let directory = (schema.block.attributes.iter())
        .find(|a| a.name == "directory")
        .unwrap();
    assert!(directory.required);
    assert_eq!(directory.description, "Where the state files are kept.");
}

#[tokio::test]
async fn a_config_without_its_required_directory_is_refused_at_its_path() {
    let Some(mut s) = files().await else { return };
    let ty = store_schema(&mut s.client).await.implied_type().unwrap();
    let config = Value::object([("directory", Value::null(Type::String))]);
    let resp = (s.client)
        .validate_state_store_config(pb::validate_state_store::Request {
            type_name: STORE.into(),
            config: Some(encode_dynamic_value(&config, &ty).unwrap()),
        })
        .await
        .unwrap()
        .into_inner();
    let errs = errors(&resp.diagnostics);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].attribute,
        Some(ctywire_provider::Path::root().attr("directory"))
    );
}

#[tokio::test]
async fn a_plugin_without_storage_serves_no_state_store() {
    let Some(mut s) = serve(
        "examples/seasonings/python/things.py",
        Duration::from_secs(60),
    )
    .await
    else {
        return;
    };
    let schemas = (s.client)
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(schemas.state_store_schemas.is_empty());
    assert!(schemas.resource_schemas.contains_key("things_thing"));
}

#[tokio::test]
async fn a_state_of_several_chunks_is_written_and_read_back_equal() {
    let Some(mut s) = files().await else { return };
    let dir = states_dir("chunks");
    let mut st = configure(&mut s.client, &dir, MIB).await.unwrap();
    assert_eq!(st.chunk_size(), MIB);
    // 3.5 MiB: four chunks of the agreed MiB, the last a half.
    let doc = state(7 * MIB / 2, 1);
    let started = Instant::now();
    assert!(text(&write(&mut st, "default", &doc, None).await).is_empty());
    let wrote = started.elapsed();
    assert_eq!(std::fs::read(dir.join("default.tfstate")).unwrap(), doc);
    let started = Instant::now();
    let r = read(&mut st, "default").await;
    eprintln!(
        "3.5 MiB through the Python plugin: write {wrote:?}, read {:?}",
        started.elapsed()
    );
    assert!(r.errors.is_empty(), "{}", text(&r.errors));
    assert_eq!(r.lengths, [MIB, MIB, MIB, MIB / 2]);
    assert_eq!(r.totals, [doc.len() as i64; 4]);
    assert!(r.bytes == doc, "the state read back differs");
    // A state that is not there yet reads as none: no chunks.
    let none = read(&mut st, "staging").await;
    assert!(none.bytes.is_empty() && none.errors.is_empty());
}

#[tokio::test]
async fn states_are_listed_and_deleted() {
    let Some(mut s) = files().await else { return };
    let dir = states_dir("list");
    let mut st = configure(&mut s.client, &dir, MIB).await.unwrap();
    assert_eq!(st.states().await.unwrap(), Vec::<String>::new());
    for id in ["default", "staging"] {
        assert!(write(&mut st, id, &state(100, 1), None).await.is_empty());
    }
    assert_eq!(st.states().await.unwrap(), ["default", "staging"]);
    st.delete("staging").await.unwrap();
    assert_eq!(st.states().await.unwrap(), ["default"]);
    assert!(!dir.join("staging.tfstate").exists());
}

#[tokio::test]
async fn a_second_lock_is_refused_with_the_holders_info() {
    let Some(mut s) = files().await else { return };
    let dir = states_dir("lock");
    let mut st = configure(&mut s.client, &dir, MIB).await.unwrap();
    let apply = "OperationTypeApply";
    let first = st.lock("default", apply).await.unwrap();
    // The plugin keeps core's lock info, id and all.
    let kept: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("default.tflock")).unwrap()).unwrap();
    assert_eq!(kept["ID"], first.as_str());
    assert_eq!(kept["Operation"], "OperationTypeApply");
    assert_eq!(kept["Path"], "default");

    let refused = text(&errors_of(st.lock("default", apply).await.unwrap_err()));
    assert!(refused.contains("The state is locked"), "{refused}");
    assert!(refused.contains(&first), "{refused}");
    assert!(refused.contains(kept["Who"].as_str().unwrap()), "{refused}");
    // Deleting a locked state is refused by the plugin, in its words.
    let locked = text(&errors_of(st.delete("default").await.unwrap_err()));
    assert!(
        locked.contains("State locked") && locked.contains("storage.delete"),
        "{locked}"
    );

    // Unlocking with another id names the holder; with its own, unlocks.
    let wrong = text(&errors_of(
        st.unlock("default", "not-the-id").await.unwrap_err(),
    ));
    assert!(wrong.contains(&first), "{wrong}");
    st.unlock("default", &first).await.unwrap();
    let again = st.lock("default", apply).await.unwrap();
    assert_ne!(again, first);
}

#[tokio::test]
async fn a_write_that_breaks_off_never_reaches_the_plugin() {
    let Some(mut s) = files().await else { return };
    let dir = states_dir("broken-off");
    let mut st = configure(&mut s.client, &dir, MIB).await.unwrap();
    let before = state(MIB + 10, 1);
    assert!(write(&mut st, "default", &before, None).await.is_empty());
    let errs = text(&write(&mut st, "default", &state(3 * MIB, 2), Some(2)).await);
    assert!(errs.contains("interrupted"), "{errs}");
    assert!(read(&mut st, "default").await.bytes == before);
}

#[tokio::test]
async fn a_plugin_crashing_mid_write_leaves_the_previous_state() {
    let Some(mut s) = faulty(Duration::from_secs(60)).await else {
        return;
    };
    let dir = states_dir("crash");
    let mut st = configure(&mut s.client, &dir, MIB).await.unwrap();
    let before = state(2 * MIB + 1, 1);
    assert!(write(&mut st, "default", &before, None).await.is_empty());
    let mut crash = b"CRASH".to_vec();
    crash.extend(state(2 * MIB, 2));
    let errs = text(&write(&mut st, "default", &crash, None).await);
    let named = [
        "\"files\"",
        "storage.write",
        "state \"default\"",
        "crashing mid-write",
    ];
    assert_names(&errs, &named);
    // It did die mid-write: half of the new state is on disk.
    assert!(dir.join(".default.partial").exists());
    // A new plugin (Terraform starts the provider again) reads the last
    // whole state.
    drop((st, s));
    let mut again = files().await.unwrap();
    let mut st = configure(&mut again.client, &dir, MIB).await.unwrap();
    assert!(read(&mut st, "default").await.bytes == before);
}

#[tokio::test]
async fn a_read_that_never_answers_times_out_naming_the_plugin_method_and_state() {
    let Some((_s, mut st)) = faulty_in(&states_dir("hang"), Duration::from_secs(2)).await else {
        return;
    };
    let started = Instant::now();
    let errs = text(&read(&mut st, "hang").await.errors);
    assert!(started.elapsed() < Duration::from_secs(30));
    let named = [
        "\"files\"",
        "storage.read",
        "no answer within 2s",
        "state \"hang\"",
    ];
    assert_names(&errs, &named);
}

#[tokio::test]
async fn a_state_that_is_not_bin_is_refused_at_its_path() {
    let Some((_s, mut st)) = faulty_in(&states_dir("text"), Duration::from_secs(60)).await else {
        return;
    };
    let errs = text(&read(&mut st, "text").await.errors);
    let named = [
        "\"files\"",
        "storage.read",
        "state \"text\"",
        ".state",
        "bin or nil",
    ];
    assert_names(&errs, &named);
}

#[tokio::test]
async fn a_holder_without_an_id_is_refused_at_its_path() {
    let Some((_s, mut st)) = faulty_in(&states_dir("nameless"), Duration::from_secs(60)).await
    else {
        return;
    };
    let locked = st.lock("nameless", "OperationTypeApply").await;
    let errs = text(&errors_of(locked.unwrap_err()));
    assert_names(
        &errs,
        &["storage.lock", "state \"nameless\"", ".held.ID", "missing"],
    );
}

#[tokio::test]
async fn state_ids_that_are_not_strings_are_refused_at_their_path() {
    let dir = states_dir("list").join("broken-list");
    let Some((_s, mut st)) = faulty_in(&dir, Duration::from_secs(60)).await else {
        return;
    };
    let errs = text(&errors_of(st.states().await.unwrap_err()));
    assert_names(&errs, &["storage.list", ".state_ids[0]", "string"]);
}

#[tokio::test]
async fn a_state_larger_than_a_message_is_refused_before_it_is_gathered() {
    let Some(mut s) = files().await else { return };
    let mut st = configure(&mut s.client, &states_dir("large"), MIB)
        .await
        .unwrap();
    // 65 MiB announced; only the first chunk is sent.
    let first = pb::write_state_bytes::RequestChunk {
        meta: Some(pb::RequestChunkMeta {
            type_name: STORE.into(),
            state_id: "default".into(),
        }),
        bytes: vec![b'x'; MIB],
        total_length: 65 << 20,
        range: Some(pb::StateRange {
            start: 0,
            end: MIB as i64 - 1,
        }),
    };
    let written = st.write_chunks(tokio_stream::iter([first])).await;
    let errs = text(&errors_of(written.unwrap_err()));
    assert!(errs.contains("at most 67043328"), "{errs}");
    assert!(errs.contains("state \"default\""), "{errs}");
    assert_eq!(s.plugin.in_flight(), 0);
}
