//! StopProvider against a real script: the provider served as Terraform
//! sees it (`ProviderService` through the generated tonic trait), a create
//! whose Deno script sleeps forever, and Ctrl-C's `StopProvider`.
//!
//! Deno comes from `scripts/test-peers.sh` (target/peers), `$DENO_BINARY`
//! or `PATH`; without it the test says `SKIPPED: deno is missing: <why>`
//! and passes, except under `CI=true`, where it fails.

use std::time::{Duration, Instant};

use ctywire::{Type, Value};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_tfplugin6::ProviderService;
use denobridge::provider::DenoBridge;
use denobridge::schema;
use tonic::Request;

mod support;
use support::{deno, ScriptDir};

const SCRIPTS: [(&str, &str); 2] = [
    ("rpc.ts", include_str!("scripts/rpc.ts")),
    ("hang.ts", include_str!("scripts/hang.ts")),
];

fn dv(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: ctywire::msgpack::encode(v, ty).expect("the value fits the schema"),
        json: vec![],
    })
}

fn errors(ds: &[pb::Diagnostic]) -> Vec<&pb::Diagnostic> {
    ds.iter()
        .filter(|d| d.severity != pb::diagnostic::Severity::Warning as i32)
        .collect()
}

/// Whether the process is still running: its /proc entry exists and it is
/// not a zombie (killed, waiting to be reaped).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_provider_ends_a_denobridge_script_mid_call_within_a_second() {
    let Some(deno) = deno() else { return };
    let dir = ScriptDir::new("denobridge-stop", "hang", &SCRIPTS);
    let service = ProviderService::new(DenoBridge::new());

    let provider_ty = schema::provider().implied_type().unwrap();
    let config = Value::object([
        (
            "deno_binary_path",
            Value::string(deno.display().to_string()),
        ),
        ("deno_version", Value::null(Type::String)),
        ("command", Value::null(Type::list(Type::String))),
        ("timeout", Value::null(Type::Number)),
    ]);
    let configured = service
        .configure_provider(Request::new(pb::configure_provider::Request {
            terraform_version: "1.11.0".into(),
            config: dv(&config, &provider_ty),
            client_capabilities: None,
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(configured.diagnostics.is_empty(), "{configured:?}");

    let ty = schema::resource().implied_type().unwrap();
    let planned = Value::object([
        ("config_file", Value::null(Type::String)),
        ("id", Value::unknown(Type::String)),
        (
            "path",
            Value::string(dir.0.join("hang.ts").display().to_string()),
        ),
        (
            "permissions",
            Value::object([
                ("all", Value::null(Type::Bool)),
                (
                    "allow",
                    Value::list(
                        Type::String,
                        vec![Value::string("read"), Value::string("write")],
                    )
                    .unwrap(),
                ),
                ("deny", Value::null(Type::list(Type::String))),
            ]),
        ),
        ("props", Value::object([("name", Value::string("forever"))])),
        ("sensitive_state", Value::unknown(Type::Dynamic)),
        ("state", Value::unknown(Type::Dynamic)),
        ("write_only_props", Value::null(Type::Dynamic)),
        ("write_only_props_version", Value::unknown(Type::Number)),
    ]);
    let config = planned
        .with_attr("id", Value::null(Type::String))
        .and_then(|c| c.with_attr("sensitive_state", Value::null(Type::Dynamic)))
        .and_then(|c| c.with_attr("state", Value::null(Type::Dynamic)))
        .and_then(|c| c.with_attr("write_only_props_version", Value::null(Type::Number)))
        .unwrap();
    let apply = pb::apply_resource_change::Request {
        type_name: schema::RESOURCE.into(),
        prior_state: None,
        planned_state: dv(&planned, &ty),
        config: dv(&config, &ty),
        planned_private: vec![],
        provider_meta: None,
        planned_identity: None,
    };
    let applying = {
        let service = service.clone();
        tokio::spawn(async move { service.apply_resource_change(Request::new(apply)).await })
    };

    // The script is in its create once it has written its pid.
    let pid_file = dir.0.join("store/pid");
    let started = Instant::now();
    let pid: u32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            !applying.is_finished(),
            "the create ended before the script wrote its pid: {:?}",
            applying.await
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the script never started its create"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(running(pid), "the script {pid} runs");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!applying.is_finished(), "the create is in flight");

    let stop_at = Instant::now();
    let stop = service
        .stop_provider(Request::new(pb::stop_provider::Request {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stop.error, "");
    let answer = tokio::time::timeout(Duration::from_secs(1), applying)
        .await
        .expect("the create ends within a second of StopProvider")
        .unwrap()
        .unwrap()
        .into_inner();
    let errs = errors(&answer.diagnostics);
    assert_eq!(errs.len(), 1, "{:?}", answer.diagnostics);
    assert_eq!(errs[0].summary, "The provider was stopped");
    assert!(answer.new_state.is_none());

    // Dropping the call dropped the script's child process, which kills it.
    while running(pid) {
        assert!(
            stop_at.elapsed() < Duration::from_secs(1),
            "the script {pid} still runs a second after StopProvider"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
