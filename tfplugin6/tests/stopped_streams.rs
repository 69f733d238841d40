//! `StopProvider` ends the two server streams at once, even while the
//! provider code behind them still blocks its thread: the stream's end
//! (what Terraform's receive loop waits for) must not wait for that code
//! to return.

use std::time::Duration;

use ctywire::schema::{Block, Schema};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_tfplugin6::*;
use tokio::sync::mpsc::Receiver;
use tonic::{Request, Status};

mod support;
use support::{named, named_value, string_id};

/// How long the provider code blocks its thread: far longer than the
/// streams may take to end once stopped.
const BLOCK: Duration = Duration::from_secs(5);

/// A provider whose list and action block their thread, as careless
/// synchronous code would.
struct Blocking;

#[async_trait]
impl Provider for Blocking {
    fn schemas(&self) -> Schemas {
        Schemas::new(Schema::new(Block::new()))
            .resource("test_thing", named())
            .identity("test_thing", string_id())
            .list_resource("test_thing", named())
            .action("test_thing", named())
    }

    async fn list_resource(&self, _: ListResourceRequest, _: &ListResults) -> Diagnostics {
        std::thread::sleep(BLOCK);
        Diagnostics::new()
    }

    async fn invoke_action(&self, _: InvokeActionRequest, _: &ActionProgress) -> Diagnostics {
        std::thread::sleep(BLOCK);
        Diagnostics::new()
    }
}

/// Every event until the stream ends, which must come within a second.
async fn drain<T>(mut events: Receiver<Result<T, Status>>) -> Vec<T> {
    tokio::time::timeout(Duration::from_secs(1), async {
        let mut all = Vec::new();
        while let Some(e) = events.recv().await {
            all.push(e.expect("an event, not a status"));
        }
        all
    })
    .await
    .expect("the stream ends once the provider is stopped, though its code still blocks")
}

async fn stop(s: &ProviderService<Blocking>) {
    tokio::time::sleep(Duration::from_millis(200)).await;
    s.stop_provider(Request::new(pb::stop_provider::Request {}))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_list_ends_its_stream_while_its_code_still_blocks() {
    let s = ProviderService::new(Blocking);
    let events = s
        .list_resource(Request::new(pb::list_resource::Request {
            type_name: "test_thing".into(),
            config: named_value(),
            include_resource_object: false,
            limit: 0,
        }))
        .await
        .unwrap()
        .into_inner()
        .into_inner();
    stop(&s).await;
    let events = drain(events).await;
    let last = events.last().expect("the stopped diagnostic");
    assert!(
        last.diagnostic
            .iter()
            .any(|d| d.summary.contains("stopped")),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_action_ends_its_stream_while_its_code_still_blocks() {
    use pb::invoke_action::event::Type as Ev;
    let s = ProviderService::new(Blocking);
    let events = s
        .invoke_action(Request::new(pb::invoke_action::Request {
            action_type: "test_thing".into(),
            config: named_value(),
            client_capabilities: None,
        }))
        .await
        .unwrap()
        .into_inner()
        .into_inner();
    stop(&s).await;
    let events = drain(events).await;
    match events.last().and_then(|e| e.r#type.as_ref()) {
        Some(Ev::Completed(c)) => assert!(
            c.diagnostics.iter().any(|d| d.summary.contains("stopped")),
            "{c:?}"
        ),
        other => panic!("{other:?}"),
    }
}
