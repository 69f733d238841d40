//! A panic in provider code, in every RPC that calls it: the call is
//! answered with an error diagnostic saying so (a `FunctionError` for
//! `CallFunction`, an error event ending the stream for `ListResource`
//! and `InvokeAction`), and the service goes on answering other calls.

use ctywire::schema::{Block, Schema};
use ctywire::{Type, Value};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_tfplugin6::*;
use tonic::Request;

mod support;
use support::{named, named_value, string_id};

/// A provider whose every call panics, naming the call; the two streams
/// panic after sending one event.
struct Panicky;

#[async_trait]
impl Provider for Panicky {
    fn schemas(&self) -> Schemas {
        Schemas::new(Schema::new(Block::new()))
            .resource("test_thing", named())
            .identity("test_thing", string_id())
            .list_resource("test_thing", named())
            .data_source("test_thing", named())
            .ephemeral_resource("test_thing", named())
            .action("test_thing", named())
            .function(
                "boom",
                Function {
                    return_type: Type::String,
                    ..Default::default()
                },
            )
    }

    async fn validate_provider_config(&self, _: ValidateProviderConfigRequest) -> Diagnostics {
        panic!("validate_provider_config panicked on purpose")
    }
    async fn validate_resource_config(&self, _: ValidateResourceConfigRequest) -> Diagnostics {
        panic!("validate_resource_config panicked on purpose")
    }
    async fn validate_data_resource_config(
        &self,
        _: ValidateDataResourceConfigRequest,
    ) -> Diagnostics {
        panic!("validate_data_resource_config panicked on purpose")
    }
    async fn validate_ephemeral_resource_config(
        &self,
        _: ValidateEphemeralResourceConfigRequest,
    ) -> Diagnostics {
        panic!("validate_ephemeral_resource_config panicked on purpose")
    }
    async fn upgrade_resource_state(
        &self,
        _: UpgradeResourceStateRequest,
    ) -> Result<UpgradeResourceStateResponse, Diagnostics> {
        panic!("upgrade_resource_state panicked on purpose")
    }
    async fn configure_provider(&self, _: ConfigureProviderRequest) -> Diagnostics {
        panic!("configure_provider panicked on purpose")
    }
    async fn read_resource(
        &self,
        _: ReadResourceRequest,
    ) -> Result<ReadResourceResponse, Diagnostics> {
        panic!("read_resource panicked on purpose")
    }
    async fn plan_resource_change(
        &self,
        _: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        panic!("plan_resource_change panicked on purpose")
    }
    async fn apply_resource_change(
        &self,
        _: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        panic!("apply_resource_change panicked on purpose")
    }
    async fn import_resource_state(
        &self,
        _: ImportResourceStateRequest,
    ) -> Result<ImportResourceStateResponse, Diagnostics> {
        panic!("import_resource_state panicked on purpose")
    }
    async fn move_resource_state(
        &self,
        _: MoveResourceStateRequest,
    ) -> Result<MoveResourceStateResponse, Diagnostics> {
        panic!("move_resource_state panicked on purpose")
    }
    async fn read_data_source(
        &self,
        _: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, Diagnostics> {
        panic!("read_data_source panicked on purpose")
    }
    async fn open_ephemeral_resource(
        &self,
        _: OpenEphemeralResourceRequest,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics> {
        panic!("open_ephemeral_resource panicked on purpose")
    }
    async fn renew_ephemeral_resource(
        &self,
        _: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics> {
        panic!("renew_ephemeral_resource panicked on purpose")
    }
    async fn close_ephemeral_resource(&self, _: CloseEphemeralResourceRequest) -> Diagnostics {
        panic!("close_ephemeral_resource panicked on purpose")
    }
    async fn call_function(&self, _: CallFunctionRequest) -> Result<Value, FunctionError> {
        panic!("call_function panicked on purpose")
    }
    async fn upgrade_resource_identity(
        &self,
        _: UpgradeResourceIdentityRequest,
    ) -> Result<UpgradeResourceIdentityResponse, Diagnostics> {
        panic!("upgrade_resource_identity panicked on purpose")
    }
    async fn generate_resource_config(
        &self,
        _: GenerateResourceConfigRequest,
    ) -> Result<GenerateResourceConfigResponse, Diagnostics> {
        panic!("generate_resource_config panicked on purpose")
    }
    async fn validate_list_resource_config(
        &self,
        _: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        panic!("validate_list_resource_config panicked on purpose")
    }
    async fn list_resource(&self, _: ListResourceRequest, results: &ListResults) -> Diagnostics {
        let found = ListResourceResult {
            identity: Value::object([("id", Value::string("a"))]),
            display_name: "a".into(),
            resource_object: None,
            diagnostics: Diagnostics::new(),
        };
        results.send(found).await.unwrap();
        panic!("list_resource panicked on purpose")
    }
    async fn validate_action_config(&self, _: ValidateActionConfigRequest) -> Diagnostics {
        panic!("validate_action_config panicked on purpose")
    }
    async fn plan_action(&self, _: PlanActionRequest) -> Result<PlanActionResponse, Diagnostics> {
        panic!("plan_action panicked on purpose")
    }
    async fn invoke_action(
        &self,
        _: InvokeActionRequest,
        progress: &ActionProgress,
    ) -> Diagnostics {
        progress.send("half way").await.unwrap();
        panic!("invoke_action panicked on purpose")
    }
    async fn stop_provider(&self) -> Result<(), String> {
        panic!("stop_provider panicked on purpose")
    }
}

/// `{}` in msgpack.
fn empty() -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: b"\x80".to_vec(),
        json: vec![],
    })
}

fn json_state(json: &str) -> Option<pb::RawState> {
    Some(pb::RawState {
        json: json.as_bytes().to_vec(),
        flatmap: Default::default(),
    })
}

/// The one diagnostic of a call whose provider code panicked: it says so,
/// with the panic's message and where it happened.
#[track_caller]
fn assert_panicked(text: &str, method: &str) {
    assert!(text.contains("panicked"), "{text}");
    assert!(
        text.contains(&format!("{method} panicked on purpose")),
        "{text}"
    );
    assert!(text.contains("tests/panics.rs:"), "no location: {text}");
}

#[track_caller]
fn assert_panicked_diagnostic(ds: &[pb::Diagnostic], method: &str) {
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].severity, pb::diagnostic::Severity::Error as i32);
    assert_eq!(ds[0].summary, "The provider panicked");
    assert_panicked(&ds[0].detail, method);
}

/// Calls `$rpc` with `$req` and returns the answer's diagnostics.
macro_rules! diagnostics_of {
    ($s:expr, $rpc:ident, $req:expr) => {
        $s.$rpc(Request::new($req))
            .await
            .expect("answered, not a gRPC error")
            .into_inner()
            .diagnostics
    };
}

#[tokio::test]
async fn a_panic_in_any_provider_call_is_an_error_diagnostic_on_that_call() {
    let s = ProviderService::new(Panicky);
    let thing = || "test_thing".to_string();
    let d = diagnostics_of!(
        s,
        validate_provider_config,
        pb::validate_provider_config::Request { config: empty() }
    );
    assert_panicked_diagnostic(&d, "validate_provider_config");
    let d = diagnostics_of!(
        s,
        validate_resource_config,
        pb::validate_resource_config::Request {
            type_name: thing(),
            config: named_value(),
            client_capabilities: None,
        }
    );
    assert_panicked_diagnostic(&d, "validate_resource_config");
    let d = diagnostics_of!(
        s,
        validate_data_resource_config,
        pb::validate_data_resource_config::Request {
            type_name: thing(),
            config: named_value(),
        }
    );
    assert_panicked_diagnostic(&d, "validate_data_resource_config");
    let d = diagnostics_of!(
        s,
        validate_ephemeral_resource_config,
        pb::validate_ephemeral_resource_config::Request {
            type_name: thing(),
            config: named_value(),
        }
    );
    assert_panicked_diagnostic(&d, "validate_ephemeral_resource_config");
    let d = diagnostics_of!(
        s,
        upgrade_resource_state,
        pb::upgrade_resource_state::Request {
            type_name: thing(),
            version: 0,
            raw_state: json_state(r#"{"name":"x"}"#),
        }
    );
    assert_panicked_diagnostic(&d, "upgrade_resource_state");
    let d = diagnostics_of!(
        s,
        configure_provider,
        pb::configure_provider::Request {
            config: empty(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "configure_provider");
    let d = diagnostics_of!(
        s,
        read_resource,
        pb::read_resource::Request {
            type_name: thing(),
            current_state: named_value(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "read_resource");
    let d = diagnostics_of!(
        s,
        plan_resource_change,
        pb::plan_resource_change::Request {
            type_name: thing(),
            prior_state: named_value(),
            proposed_new_state: named_value(),
            config: named_value(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "plan_resource_change");
    let d = diagnostics_of!(
        s,
        apply_resource_change,
        pb::apply_resource_change::Request {
            type_name: thing(),
            prior_state: named_value(),
            planned_state: named_value(),
            config: named_value(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "apply_resource_change");
    let d = diagnostics_of!(
        s,
        import_resource_state,
        pb::import_resource_state::Request {
            type_name: thing(),
            id: "a".into(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "import_resource_state");
    let d = diagnostics_of!(
        s,
        move_resource_state,
        pb::move_resource_state::Request {
            source_type_name: "old_thing".into(),
            source_state: json_state(r#"{"name":"x"}"#),
            target_type_name: thing(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "move_resource_state");
    let d = diagnostics_of!(
        s,
        read_data_source,
        pb::read_data_source::Request {
            type_name: thing(),
            config: named_value(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "read_data_source");
    let d = diagnostics_of!(
        s,
        open_ephemeral_resource,
        pb::open_ephemeral_resource::Request {
            type_name: thing(),
            config: named_value(),
            client_capabilities: None,
        }
    );
    assert_panicked_diagnostic(&d, "open_ephemeral_resource");
    let d = diagnostics_of!(
        s,
        renew_ephemeral_resource,
        pb::renew_ephemeral_resource::Request {
            type_name: thing(),
            private: None,
        }
    );
    assert_panicked_diagnostic(&d, "renew_ephemeral_resource");
    let d = diagnostics_of!(
        s,
        close_ephemeral_resource,
        pb::close_ephemeral_resource::Request {
            type_name: thing(),
            private: None,
        }
    );
    assert_panicked_diagnostic(&d, "close_ephemeral_resource");
    let d = diagnostics_of!(
        s,
        upgrade_resource_identity,
        pb::upgrade_resource_identity::Request {
            type_name: thing(),
            version: 0,
            raw_identity: json_state(r#"{"id":"a"}"#),
        }
    );
    assert_panicked_diagnostic(&d, "upgrade_resource_identity");
    let d = diagnostics_of!(
        s,
        generate_resource_config,
        pb::generate_resource_config::Request {
            type_name: thing(),
            state: named_value(),
        }
    );
    assert_panicked_diagnostic(&d, "generate_resource_config");
    let d = diagnostics_of!(
        s,
        validate_list_resource_config,
        pb::validate_list_resource_config::Request {
            type_name: thing(),
            config: named_value(),
            ..Default::default()
        }
    );
    assert_panicked_diagnostic(&d, "validate_list_resource_config");
    let d = diagnostics_of!(
        s,
        validate_action_config,
        pb::validate_action_config::Request {
            type_name: thing(),
            config: named_value(),
        }
    );
    assert_panicked_diagnostic(&d, "validate_action_config");
    let d = diagnostics_of!(
        s,
        plan_action,
        pb::plan_action::Request {
            action_type: thing(),
            config: named_value(),
            client_capabilities: None,
        }
    );
    assert_panicked_diagnostic(&d, "plan_action");

    // The service is still there: a call that needs no provider code.
    let schema = s
        .get_provider_schema(Request::new(pb::get_provider_schema::Request {}))
        .await
        .unwrap()
        .into_inner();
    assert!(schema.diagnostics.is_empty(), "{:?}", schema.diagnostics);
}

#[tokio::test]
async fn a_panicking_function_is_a_function_error() {
    let s = ProviderService::new(Panicky);
    let r = s
        .call_function(Request::new(pb::call_function::Request {
            name: "boom".into(),
            arguments: vec![],
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(r.result.is_none());
    let e = r.error.expect("a function error");
    assert_panicked(&e.text, "call_function");
}

#[tokio::test]
async fn a_panicking_stop_is_the_stop_answers_error() {
    let s = ProviderService::new(Panicky);
    let r = s
        .stop_provider(Request::new(pb::stop_provider::Request {}))
        .await
        .unwrap()
        .into_inner();
    assert_panicked(&r.error, "stop_provider");
}

#[tokio::test]
async fn a_list_that_panics_midway_ends_with_an_error_event() {
    let s = ProviderService::new(Panicky);
    let mut events = s
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
    let found = events.recv().await.unwrap().unwrap();
    assert_eq!(found.display_name, "a");
    assert!(found.diagnostic.is_empty());
    let failed = events.recv().await.unwrap().unwrap();
    assert_panicked_diagnostic(&failed.diagnostic, "list_resource");
    assert!(events.recv().await.is_none(), "the stream ends");
}

#[tokio::test]
async fn an_action_that_panics_midway_completes_with_an_error() {
    use pb::invoke_action::event::Type as Ev;
    let s = ProviderService::new(Panicky);
    let mut events = s
        .invoke_action(Request::new(pb::invoke_action::Request {
            action_type: "test_thing".into(),
            config: named_value(),
            client_capabilities: None,
        }))
        .await
        .unwrap()
        .into_inner()
        .into_inner();
    match events.recv().await.unwrap().unwrap().r#type {
        Some(Ev::Progress(p)) => assert_eq!(p.message, "half way"),
        other => panic!("{other:?}"),
    }
    match events.recv().await.unwrap().unwrap().r#type {
        Some(Ev::Completed(c)) => assert_panicked_diagnostic(&c.diagnostics, "invoke_action"),
        other => panic!("{other:?}"),
    }
    assert!(events.recv().await.is_none(), "the stream ends");
}
