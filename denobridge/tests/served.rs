//! The provider as Terraform sees it (`ProviderService` through the
//! generated tonic trait), on ctywire's framework: destroys are planned
//! with the provider (`plan_destroy`), and the script's `modifyPlan` is
//! asked about each (`planType "delete"`), as under
//! terraform-plugin-framework; a data source's warnings reach Terraform
//! with its value.
//!
//! Deno comes from `scripts/test-peers.sh` (target/peers), `$DENO_BINARY`
//! or `PATH`; without it the test says `SKIPPED: deno is missing: <why>`
//! and passes, except under `CI=true`, where it fails.

use ctywire::{Type, Value};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_tfplugin6::ProviderService;
use denobridge::provider::DenoBridge;
use denobridge::schema;
use tonic::Request;

mod support;
use support::{deno, ScriptDir};

const SCRIPTS: [(&str, &str); 3] = [
    ("rpc.ts", include_str!("scripts/rpc.ts")),
    ("resource.ts", include_str!("scripts/resource.ts")),
    ("datasource.ts", include_str!("scripts/datasource.ts")),
];

fn dv(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: ctywire::msgpack::encode(v, ty).expect("the value fits the schema"),
        json: vec![],
    })
}

/// The provider served and configured to run scripts with `deno`.
async fn configured(deno: &std::path::Path) -> impl pb::provider_server::Provider {
    let service = ProviderService::new(DenoBridge::new());
    let config = Value::object([
        (
            "deno_binary_path",
            Value::string(deno.display().to_string()),
        ),
        ("deno_version", Value::null(Type::String)),
        ("command", Value::null(Type::list(Type::String))),
        ("timeout", Value::null(Type::Number)),
    ]);
    let provider_ty = schema::provider().implied_type().unwrap();
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
    service
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destroy_is_planned_with_the_scripts_modify_plan_asked_about_the_delete() {
    let Some(deno) = deno() else { return };
    let dir = ScriptDir::new("denobridge-served", "destroy", &SCRIPTS);
    let service = configured(&deno).await;

    let schemas = service
        .get_provider_schema(Request::new(pb::get_provider_schema::Request {}))
        .await
        .unwrap()
        .into_inner();
    assert!(schemas.server_capabilities.unwrap().plan_destroy);

    let ty = schema::resource().implied_type().unwrap();
    let prior = Value::object([
        ("config_file", Value::null(Type::String)),
        ("id", Value::string("gone-1")),
        ("path", Value::string(dir.script("resource.ts"))),
        (
            "permissions",
            Value::object([
                ("all", Value::null(Type::Bool)),
                (
                    "allow",
                    Value::list(Type::String, vec!["read".into(), "write".into()]).unwrap(),
                ),
                ("deny", Value::null(Type::list(Type::String))),
            ]),
        ),
        ("props", Value::object([("name", Value::string("gone"))])),
        ("sensitive_state", Value::null(Type::Dynamic)),
        ("state", Value::null(Type::Dynamic)),
        ("write_only_props", Value::null(Type::Dynamic)),
        ("write_only_props_version", Value::number(1)),
    ]);
    let null = Value::null(ty.clone());
    let private = br#"{"write_only_props_hash":"eyJoYXNoIjoiYWJjIn0="}"#.to_vec();
    let plan = service
        .plan_resource_change(Request::new(pb::plan_resource_change::Request {
            type_name: schema::RESOURCE.into(),
            prior_state: dv(&prior, &ty),
            proposed_new_state: dv(&null, &ty),
            config: dv(&null, &ty),
            prior_private: private.clone(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    let planned =
        ctywire_tfplugin6::client::decode_dynamic_value(plan.planned_state.as_ref(), &ty).unwrap();
    assert!(planned.is_null(), "a destroy: {planned:?}");
    assert_eq!(plan.planned_private, private, "kept for the apply");
    let calls = std::fs::read_to_string(dir.0.join("store/calls.log")).unwrap_or_default();
    assert_eq!(calls, "modifyPlan delete null\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_source_s_warning_reaches_terraform_with_its_value() {
    let Some(deno) = deno() else { return };
    let dir = ScriptDir::new("denobridge-served", "data-warning", &SCRIPTS);
    let service = configured(&deno).await;

    let ty = schema::data_source().implied_type().unwrap();
    let config = Value::object([
        ("config_file", Value::null(Type::String)),
        ("path", Value::string(dir.script("datasource.ts"))),
        (
            "permissions",
            Value::null(ty.attribute_type("permissions").unwrap().clone()),
        ),
        (
            "props",
            Value::object([
                ("name", Value::string("d")),
                ("warn", Value::string("read with care")),
            ]),
        ),
        ("result", Value::null(Type::Dynamic)),
        ("sensitive_result", Value::null(Type::Dynamic)),
    ]);
    let read = service
        .read_data_source(Request::new(pb::read_data_source::Request {
            type_name: schema::DATA_SOURCE.into(),
            config: dv(&config, &ty),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let warnings: Vec<_> = read
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.summary.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [(pb::diagnostic::Severity::Warning as i32, "read with care")]
    );
    let state = ctywire_tfplugin6::client::decode_dynamic_value(read.state.as_ref(), &ty).unwrap();
    let name = state
        .attr("result")
        .unwrap()
        .attr("echo")
        .unwrap()
        .attr("name");
    assert_eq!(name, Some(&Value::string("d")));
}
