//! `ProviderService` driven through the generated tonic trait, as
//! Terraform's calls arrive: deferrals Terraform did not allow, the stop
//! of calls in flight, and the one shape of validation answers.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Type, Value};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_tfplugin6::*;
use tonic::Request;

/// Sets its flag when dropped: tells that a call's future was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[derive(Default)]
struct Test {
    /// Set when a hanging plan's future is dropped.
    dropped: Arc<AtomicBool>,
    stops: AtomicUsize,
}

fn thing() -> Schema {
    Schema::new(
        Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("id", Type::String).computed()),
    )
}

#[async_trait]
impl Provider for Test {
    fn schemas(&self) -> Schemas {
        Schemas::new(Schema::new(Block::new()))
            .resource("test_thing", thing())
            .resource(
                "test_counter",
                Schema::new(
                    Block::new().attribute(Attribute::new("count", Type::Number).optional()),
                ),
            )
            .data_source("test_thing", thing())
    }

    async fn validate_resource_config(&self, req: ValidateResourceConfigRequest) -> Diagnostics {
        let mut d = Diagnostics::warning("a warning");
        match req.config.attr("name").and_then(Value::as_str) {
            Some("bad") => {
                d.push(Diagnostic::error("bad name").at(ctywire::Path::root().attr("name")))
            }
            // One diagnostic per element of a large input: 150 in all,
            // the last an error, or all warnings.
            Some(many @ ("many" | "many warnings")) => {
                d.extend((1..149).map(|i| Diagnostic::warning(format!("warning {i}"))));
                d.push(if many == "many" {
                    Diagnostic::error("the error")
                } else {
                    Diagnostic::warning("the last warning")
                });
            }
            _ => {}
        }
        d
    }

    async fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, Diagnostics> {
        Ok(ReadDataSourceResponse {
            deferred: Some(Deferred::ResourceConfigUnknown),
            diagnostics: Diagnostics::warning("deferring"),
            ..ReadDataSourceResponse::new(req.config)
        })
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        if req.config.attr("name").and_then(Value::as_str) == Some("hang") {
            let _flag = DropFlag(self.dropped.clone());
            assert!(StopSignal::current().is_some_and(|s| !s.is_stopped()));
            std::future::pending::<()>().await;
        }
        Ok(PlanResourceChangeResponse::new(req.proposed_new_state))
    }

    async fn stop_provider(&self) -> Result<(), String> {
        self.stops.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

fn dv(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: ctywire::msgpack::encode(v, ty).unwrap(),
        json: vec![],
    })
}

fn config(name: &str) -> Value {
    Value::object([
        ("name", Value::string(name)),
        ("id", Value::null(Type::String)),
    ])
}

fn ty() -> Type {
    thing().implied_type().unwrap()
}

fn summaries(ds: &[pb::Diagnostic]) -> Vec<(i32, String)> {
    ds.iter().map(|d| (d.severity, d.summary.clone())).collect()
}

const ERROR: i32 = pb::diagnostic::Severity::Error as i32;
const WARNING: i32 = pb::diagnostic::Severity::Warning as i32;

fn read(deferral_allowed: Option<bool>) -> pb::read_data_source::Request {
    pb::read_data_source::Request {
        type_name: "test_thing".into(),
        config: dv(&config("a"), &ty()),
        provider_meta: None,
        client_capabilities: deferral_allowed.map(|deferral_allowed| pb::ClientCapabilities {
            deferral_allowed,
            ..Default::default()
        }),
    }
}

#[tokio::test]
async fn a_deferral_terraform_did_not_allow_is_an_error_diagnostic() {
    let s = ProviderService::new(Test::default());
    for allowed in [None, Some(false)] {
        let r = s
            .read_data_source(Request::new(read(allowed)))
            .await
            .unwrap()
            .into_inner();
        assert!(r.deferred.is_none(), "{r:?}");
        assert!(r.state.is_none());
        assert_eq!(
            summaries(&r.diagnostics),
            [
                (WARNING, "deferring".to_string()),
                (ERROR, "Invalid Deferred Response".to_string())
            ]
        );
        assert!(r.diagnostics[1]
            .detail
            .contains("did not indicate support for deferred actions"));
    }
    // Allowed: the deferral goes through, with the state.
    let r = s
        .read_data_source(Request::new(read(Some(true))))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        r.deferred.map(|d| d.reason),
        Some(pb::deferred::Reason::ResourceConfigUnknown as i32)
    );
    assert!(r.state.is_some());
    assert_eq!(
        summaries(&r.diagnostics),
        [(WARNING, "deferring".to_string())]
    );
}

fn plan(name: &str) -> pb::plan_resource_change::Request {
    let t = ty();
    pb::plan_resource_change::Request {
        type_name: "test_thing".into(),
        prior_state: None,
        proposed_new_state: dv(&config(name), &t),
        config: dv(&config(name), &t),
        prior_private: vec![],
        provider_meta: None,
        client_capabilities: None,
        prior_identity: None,
        planned_private: vec![],
    }
}

#[tokio::test]
async fn stop_provider_cancels_the_calls_in_flight_and_not_the_later_ones() {
    let s = ProviderService::new(Test::default());
    let before = s.stop_signal();
    let hanging = {
        let s = s.clone();
        tokio::spawn(async move { s.plan_resource_change(Request::new(plan("hang"))).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!hanging.is_finished());
    let stop = s
        .stop_provider(Request::new(pb::stop_provider::Request {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stop.error, "");
    assert_eq!(s.provider().stops.load(Ordering::SeqCst), 1);
    assert!(before.is_stopped());
    let r = tokio::time::timeout(Duration::from_secs(1), hanging)
        .await
        .expect("the call in flight ends at the stop")
        .unwrap()
        .unwrap()
        .into_inner();
    assert!(r.planned_state.is_none());
    assert_eq!(
        summaries(&r.diagnostics),
        [(ERROR, "The provider was stopped".to_string())]
    );
    assert!(r.diagnostics[0].detail.contains("PlanResourceChange"));
    assert!(s.provider().dropped.load(Ordering::SeqCst));
    // A call after the stop runs as usual.
    assert!(!s.stop_signal().is_stopped());
    let r = s
        .plan_resource_change(Request::new(plan("ok")))
        .await
        .unwrap()
        .into_inner();
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.planned_state.is_some());
}

#[tokio::test]
async fn validation_answers_its_diagnostics_errors_and_warnings_alike() {
    let s = ProviderService::new(Test::default());
    let validate = |name: &str| pb::validate_resource_config::Request {
        type_name: "test_thing".into(),
        config: dv(&config(name), &ty()),
        client_capabilities: None,
    };
    let r = s
        .validate_resource_config(Request::new(validate("good")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        summaries(&r.diagnostics),
        [(WARNING, "a warning".to_string())]
    );
    let r = s
        .validate_resource_config(Request::new(validate("bad")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        summaries(&r.diagnostics),
        [
            (WARNING, "a warning".to_string()),
            (ERROR, "bad name".to_string())
        ]
    );
    assert!(r.diagnostics[1].attribute.is_some());
}

#[tokio::test]
async fn an_unknown_type_name_is_an_error_listing_the_known_ones() {
    let s = ProviderService::new(Test::default());
    let mut req = plan("ok");
    req.type_name = "test_nope".into();
    let r = s
        .plan_resource_change(Request::new(req))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.diagnostics.len(), 1);
    assert!(r.diagnostics[0].summary.contains("test_nope"));
    assert!(r.diagnostics[0].detail.contains("\"test_thing\""));
}

#[tokio::test]
async fn an_answer_carries_at_most_100_diagnostics_then_one_counting_the_rest() {
    let s = ProviderService::new(Test::default());
    for (name, severity) in [("many", ERROR), ("many warnings", WARNING)] {
        let r = s
            .validate_resource_config(Request::new(pb::validate_resource_config::Request {
                type_name: "test_thing".into(),
                config: dv(&config(name), &ty()),
                client_capabilities: None,
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.diagnostics.len(), 101, "{name}");
        assert_eq!(r.diagnostics[99].summary, "warning 99");
        let last = &r.diagnostics[100];
        assert_eq!(last.summary, "...and 50 more diagnostics");
        assert_eq!(
            last.severity, severity,
            "{name}: an error among the rest makes it one"
        );
        assert!(last.detail.contains("150"), "{}", last.detail);
    }
}

fn upgrade(type_name: &str, raw_state: pb::RawState) -> pb::upgrade_resource_state::Request {
    pb::upgrade_resource_state::Request {
        type_name: type_name.into(),
        version: 3,
        raw_state: Some(raw_state),
    }
}

#[tokio::test]
async fn a_stored_state_that_does_not_upgrade_says_what_failed_and_where() {
    let s = ProviderService::new(Test::default());
    let json = pb::RawState {
        json: b"[\"not an object\"]".to_vec(),
        flatmap: Default::default(),
    };
    let flatmap = pb::RawState {
        json: vec![],
        flatmap: [("count".to_string(), "many".to_string())].into(),
    };
    // What failed (the upgrade of which stored state) when the error is
    // about the whole state; where, when it is about part of it.
    for (type_name, raw, says) in [
        (
            "test_thing",
            json,
            ["test_thing", "schema version 3", "stored as JSON"],
        ),
        (
            "test_counter",
            flatmap,
            ["test_counter", "a flatmap", ".count"],
        ),
    ] {
        let r = s
            .upgrade_resource_state(Request::new(upgrade(type_name, raw)))
            .await
            .unwrap()
            .into_inner();
        assert!(r.upgraded_state.is_none(), "{type_name}");
        assert!(!r.diagnostics.is_empty(), "{type_name}");
        for d in &r.diagnostics {
            assert_eq!(d.severity, ERROR);
            for word in says {
                assert!(
                    d.detail.contains(word),
                    "{type_name}: {word:?} in {:?}",
                    d.detail
                );
            }
        }
    }
}
