//! kv's state store through the protocol service, as Terraform's pluggable
//! backend calls it (Terraform 1.11 has no state stores): states as files
//! under the store's root, a lock file holding core's lock information,
//! and a write that breaks off leaving the stored state and no partial
//! file.

use std::path::{Path, PathBuf};

use ctywire_provider::tfplugin6::client::encode_dynamic_value;
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_provider::tfplugin6::{self as tf, ProviderService};
use ctywire_provider::{Type, Value};
use prost::Message;
use tonic::Request;

#[path = "../src/main.rs"]
#[allow(dead_code)]
mod kv;

fn root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kv-state-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn root_config(root: &Path) -> Option<pb::DynamicValue> {
    let ty = Type::object([("root", Type::String)]);
    let v = Value::object([("root", Value::string(root.display().to_string()))]);
    Some(encode_dynamic_value(&v, &ty).unwrap())
}

fn errors(ds: &[pb::Diagnostic]) -> Vec<String> {
    ds.iter()
        .filter(|d| d.severity == pb::diagnostic::Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

/// The kv provider configured at `root`, its store `kv_fs` there with
/// chunks of 8 bytes.
async fn configured(root: &Path) -> ProviderService<impl tf::Provider> {
    let s = ProviderService::new(kv::provider().build().unwrap());
    let configure = pb::configure_provider::Request {
        terraform_version: "1.16.0".into(),
        config: root_config(&root.join("entries")),
        client_capabilities: None,
    };
    let resp = s.configure_provider(Request::new(configure)).await.unwrap();
    assert!(errors(&resp.get_ref().diagnostics).is_empty());
    let store = pb::configure_state_store::Request {
        type_name: "kv_fs".into(),
        config: root_config(root),
        capabilities: Some(pb::StateStoreClientCapabilities { chunk_size: 8 }),
    };
    let resp = s.configure_state_store(Request::new(store)).await.unwrap();
    let resp = resp.into_inner();
    assert!(
        errors(&resp.diagnostics).is_empty(),
        "{:?}",
        resp.diagnostics
    );
    assert_eq!(resp.capabilities.unwrap().chunk_size, 8);
    s
}

/// `WriteStateBytes` of `state` in 8-byte chunks, the first `sent` of them
/// sent (all when `None`): the errors.
async fn write(
    s: &ProviderService<impl tf::Provider>,
    id: &str,
    state: &[u8],
    sent: Option<usize>,
) -> Vec<String> {
    let mut body = Vec::new();
    for (i, chunk) in state.chunks(8).enumerate().take(sent.unwrap_or(usize::MAX)) {
        let start = i * 8;
        let message = pb::write_state_bytes::RequestChunk {
            meta: (i == 0).then(|| pb::RequestChunkMeta {
                type_name: "kv_fs".into(),
                state_id: id.into(),
            }),
            bytes: chunk.to_vec(),
            total_length: state.len() as i64,
            range: Some(pb::StateRange {
                start: start as i64,
                end: (start + chunk.len() - 1) as i64,
            }),
        }
        .encode_to_vec();
        // A gRPC body frames each message: uncompressed, length first.
        body.push(0);
        body.extend_from_slice(&(message.len() as u32).to_be_bytes());
        body.extend_from_slice(&message);
    }
    let body = http_body_util::Full::new(bytes::Bytes::from(body));
    let decoder = tonic_prost::ProstDecoder::<pb::write_state_bytes::RequestChunk>::default();
    let stream = tonic::Streaming::new_request(decoder, body, None, None);
    let resp = s.write_state_bytes(Request::new(stream)).await.unwrap();
    errors(&resp.get_ref().diagnostics)
}

async fn read(s: &ProviderService<impl tf::Provider>, id: &str) -> Vec<u8> {
    let req = pb::read_state_bytes::Request {
        type_name: "kv_fs".into(),
        state_id: id.into(),
    };
    let mut chunks = s
        .read_state_bytes(Request::new(req))
        .await
        .unwrap()
        .into_inner()
        .into_inner();
    let mut state = Vec::new();
    while let Some(chunk) = chunks.recv().await {
        let chunk = chunk.unwrap();
        assert!(
            errors(&chunk.diagnostics).is_empty(),
            "{:?}",
            chunk.diagnostics
        );
        assert!(chunk.bytes.len() <= 8);
        state.extend_from_slice(&chunk.bytes);
    }
    state
}

const STATE: &[u8] = br#"{"version":4,"serial":1,"lineage":"x"}"#;

#[tokio::test]
async fn states_are_files_under_the_root_listed_and_deleted() {
    let root = root("files");
    let s = configured(&root).await;
    assert!(read(&s, "default").await.is_empty(), "no state yet");
    assert!(write(&s, "default", STATE, None).await.is_empty());
    assert!(write(&s, "staging", b"{}", None).await.is_empty());
    assert_eq!(std::fs::read(root.join("default.tfstate")).unwrap(), STATE);
    assert_eq!(read(&s, "default").await, STATE);

    let states = s
        .get_states(Request::new(pb::get_states::Request {
            type_name: "kv_fs".into(),
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(states.state_id, ["default", "staging"]);
    let deleted = s
        .delete_state(Request::new(pb::delete_state::Request {
            type_name: "kv_fs".into(),
            state_id: "staging".into(),
        }))
        .await
        .unwrap();
    assert!(errors(&deleted.get_ref().diagnostics).is_empty());
    assert!(!root.join("staging.tfstate").exists());
    // A state id that is no plain file name is refused.
    let bad = write(&s, "../escape", STATE, None).await;
    assert!(bad[0].contains("invalid state id"), "{bad:?}");
}

#[tokio::test]
async fn a_lock_file_holds_cores_lock_info_and_refuses_a_second_holder() {
    let root = root("lock");
    let s = configured(&root).await;
    let lock = |operation: &str| pb::lock_state::Request {
        type_name: "kv_fs".into(),
        state_id: "default".into(),
        operation: operation.into(),
    };
    let first = s
        .lock_state(Request::new(lock("OperationTypeApply")))
        .await
        .unwrap()
        .into_inner();
    assert!(errors(&first.diagnostics).is_empty());
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("default.tflock")).unwrap()).unwrap();
    assert_eq!(file["ID"], first.lock_id.as_str());
    assert_eq!(file["Operation"], "OperationTypeApply");
    assert_eq!(file["Version"], "1.16.0");
    for key in ["Info", "Who", "Created", "Path"] {
        assert!(file.get(key).is_some(), "{key} in {file}");
    }

    let second = s
        .lock_state(Request::new(lock("OperationTypePlan")))
        .await
        .unwrap()
        .into_inner();
    let errs = errors(&second.diagnostics);
    assert!(errs[0].starts_with("The state is locked"), "{errs:?}");
    assert!(errs[0].contains(&first.lock_id), "{errs:?}");

    let unlock = |lock_id: &str| pb::unlock_state::Request {
        type_name: "kv_fs".into(),
        state_id: "default".into(),
        lock_id: lock_id.into(),
    };
    let wrong = s
        .unlock_state(Request::new(unlock("another")))
        .await
        .unwrap();
    assert!(!errors(&wrong.get_ref().diagnostics).is_empty());
    assert!(root.join("default.tflock").exists());
    let right = s
        .unlock_state(Request::new(unlock(&first.lock_id)))
        .await
        .unwrap();
    assert!(errors(&right.get_ref().diagnostics).is_empty());
    assert!(!root.join("default.tflock").exists());
}

#[tokio::test]
async fn a_write_that_breaks_off_leaves_the_stored_state_and_no_partial_file() {
    let root = root("broken");
    let s = configured(&root).await;
    assert!(write(&s, "default", STATE, None).await.is_empty());
    let later = br#"{"version":4,"serial":2,"lineage":"x"}"#;
    let errs = write(&s, "default", later, Some(2)).await;
    assert!(
        errs[0].starts_with("The state write was interrupted"),
        "{errs:?}"
    );
    assert_eq!(std::fs::read(root.join("default.tfstate")).unwrap(), STATE);
    assert!(!root.join("default.tfstate.partial").exists());
    assert!(write(&s, "default", later, None).await.is_empty());
    assert_eq!(read(&s, "default").await, later);
}
