//! Runtime-schema kinds over the real gRPC connection: a destroy planned
//! with the provider (`Builder::plan_destroy`, its `plan_destroy` server
//! capability) asks `DynResource::plan_destroy` with the null proposal
//! and answers as the hook says; an ephemeral resource registered with
//! `ephemeral_resource_with_schema` opens, renews and closes; a data source
//! registered with `data_source_with_schema` answers its warnings with its
//! value.

use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use ctywire_provider::dynamic::{DynDataSource, DynEphemeral, DynResource};
use ctywire_provider::schema::{Attribute, Block, Presence};
use ctywire_provider::tfplugin6::{self as tf, ProviderService};
use ctywire_provider::{async_trait, Builder, Context, Diagnostic, Diagnostics, FnProvider, Path};

use super::{
    assert_no_errors, configure_with, decode_dynamic_value, diagnostic_from_proto, dv, errors, pb,
    schema_from_proto, serve_service, Model, ProviderClient, Type, Value,
};
use serde::{Deserialize, Serialize};
use tonic::transport::Channel;

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

/// What the hooks were asked, in order.
type Log = Arc<Mutex<Vec<String>>>;

fn note(log: &Log, line: String) {
    log.lock().unwrap().push(line);
}

fn attribute(name: &str, presence: Presence) -> Attribute {
    let mut a = Attribute::new(name, Type::String);
    a.presence = presence;
    a
}

/// `name` (required) and a computed `out`: the thing's id, the token's
/// value.
fn block() -> Block {
    Block {
        attributes: vec![
            attribute("name", Presence::Required),
            attribute("out", Presence::Computed),
        ],
        ..Block::default()
    }
}

fn name_of(v: &Value) -> String {
    v.attr("name")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

fn object(name: &str, out: &str) -> Value {
    Value::object([("name", Value::string(name)), ("out", Value::string(out))])
}

/// A resource whose destroys its hook guards: `guarded` may not go.
struct Thing(Log);

#[async_trait]
impl DynResource<()> for Thing {
    async fn apply(
        &self,
        _ctx: &Context<()>,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        Ok(tf::ApplyResourceChangeResponse::new(req.planned_state))
    }

    async fn read(
        &self,
        _ctx: &Context<()>,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        Ok(tf::ReadResourceResponse::new(req.current_state))
    }

    async fn plan_destroy(
        &self,
        _ctx: &Context<()>,
        req: &tf::PlanResourceChangeRequest,
    ) -> Diagnostics {
        let name = name_of(&req.prior_state);
        note(
            &self.0,
            format!(
                "plan_destroy {name} proposed_null={} config_null={}",
                req.proposed_new_state.is_null(),
                req.config.is_null()
            ),
        );
        if name == "guarded" {
            return Diagnostic::error(format!("{name} may not be destroyed")).into();
        }
        Diagnostic::warning(format!("destroying {name}")).into()
    }
}

/// A token whose private data counts its renewals: `n:<name>:<count>`.
struct Token(Log);

fn token_private(name: &str, count: u32) -> Vec<u8> {
    format!("n:{name}:{count}").into_bytes()
}

#[async_trait]
impl DynEphemeral<()> for Token {
    async fn validate(&self, config: &Value) -> Diagnostics {
        match config.attr("name").and_then(Value::as_str) {
            Some("bad") => Diagnostic::error("a bad name")
                .at(Path::root().attr("name"))
                .into(),
            _ => Diagnostics::new(),
        }
    }

    async fn open(
        &self,
        _ctx: &Context<()>,
        req: tf::OpenEphemeralResourceRequest,
    ) -> Result<tf::OpenEphemeralResourceResponse, Diagnostics> {
        let name = name_of(&req.config);
        note(&self.0, format!("open {name}"));
        Ok(tf::OpenEphemeralResourceResponse {
            result: object(&name, &format!("tok-{name}-0")),
            private: Some(token_private(&name, 0)),
            renew_at: Some(UNIX_EPOCH + Duration::from_secs(1_900_000_000)),
            diagnostics: Diagnostic::warning("opened for a while").into(),
            deferred: None,
        })
    }

    async fn renew(
        &self,
        _ctx: &Context<()>,
        req: tf::RenewEphemeralResourceRequest,
    ) -> Result<tf::RenewEphemeralResourceResponse, Diagnostics> {
        let private = String::from_utf8(req.private.unwrap_or_default()).unwrap_or_default();
        note(&self.0, format!("renew {private}"));
        let (name, count) = private
            .strip_prefix("n:")
            .and_then(|p| p.rsplit_once(':'))
            .and_then(|(n, c)| Some((n.to_owned(), c.parse::<u32>().ok()?)))
            .ok_or_else(|| Diagnostics::error(format!("unreadable private data {private:?}")))?;
        Ok(tf::RenewEphemeralResourceResponse {
            renew_at: Some(UNIX_EPOCH + Duration::from_secs(1_900_000_060)),
            private: Some(token_private(&name, count + 1)),
            diagnostics: Diagnostic::warning("renewed").into(),
        })
    }

    async fn close(
        &self,
        _ctx: &Context<()>,
        req: tf::CloseEphemeralResourceRequest,
    ) -> Diagnostics {
        let private = String::from_utf8(req.private.unwrap_or_default()).unwrap_or_default();
        note(&self.0, format!("close {private}"));
        Diagnostics::new()
    }
}

/// A data source that warns about `old` names and fails to find `gone`.
struct Lookup;

#[async_trait]
impl DynDataSource<()> for Lookup {
    async fn read(
        &self,
        _ctx: &Context<()>,
        config: Value,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let name = name_of(&config);
        let found = object(&name, &format!("found-{name}"));
        let diagnostics = match name.as_str() {
            "old" => Diagnostic::warning("old is deprecated").into(),
            "gone" => Diagnostic::error("gone is not there").into(),
            _ => Diagnostics::new(),
        };
        Ok((found, diagnostics))
    }
}

fn builder(log: &Log) -> Builder<FnProvider<NoConfig, ()>> {
    Builder::from_fn(|_: NoConfig| Ok(()))
        .resource_with_schema("rt_thing", 0, block(), Thing(log.clone()))
        .ephemeral_resource_with_schema("rt_token", block(), Token(log.clone()))
        .data_source_with_schema("rt_lookup", block(), Lookup)
}

async fn schemas(client: &mut ProviderClient<Channel>) -> pb::get_provider_schema::Response {
    client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner()
}

/// The client, configured, and the type of `block()` as it reads it.
async fn served(b: Builder<FnProvider<NoConfig, ()>>) -> (ProviderClient<Channel>, Type) {
    let mut client = serve_service(ProviderService::new(b.build().unwrap()).into_service()).await;
    let s = schemas(&mut client).await;
    let provider = schema_from_proto(s.provider.as_ref().unwrap()).unwrap();
    let config = Value::object(std::iter::empty::<(&str, Value)>());
    configure_with(&mut client, &config, &provider.implied_type().unwrap()).await;
    let ty = schema_from_proto(s.resource_schemas.get("rt_thing").unwrap())
        .unwrap()
        .implied_type()
        .unwrap();
    (client, ty)
}

fn summaries(ds: &[pb::Diagnostic]) -> Vec<String> {
    ds.iter()
        .map(|d| diagnostic_from_proto(d).summary)
        .collect()
}

async fn plan_destroy_of(
    client: &mut ProviderClient<Channel>,
    ty: &Type,
    name: &str,
) -> pb::plan_resource_change::Response {
    let null = Value::null(ty.clone());
    client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "rt_thing".into(),
            prior_state: dv(&object(name, &format!("id-{name}")), ty),
            proposed_new_state: dv(&null, ty),
            config: dv(&null, ty),
            prior_private: b"kept private".to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn a_destroy_plan_asks_the_hook_with_a_null_proposal_and_honours_its_answer() {
    let log = Log::default();
    let (mut client, ty) = served(builder(&log).plan_destroy()).await;
    let caps = schemas(&mut client).await.server_capabilities.unwrap();
    assert!(caps.plan_destroy, "the builder's option is announced");

    let plan = plan_destroy_of(&mut client, &ty, "spare").await;
    assert_no_errors(&plan.diagnostics);
    assert_eq!(summaries(&plan.diagnostics), ["destroying spare"]);
    let planned = decode_dynamic_value(plan.planned_state.as_ref(), &ty).unwrap();
    assert!(planned.is_null(), "a destroy stays a destroy: {planned:?}");
    assert_eq!(plan.planned_private, b"kept private", "on to the apply");

    let refused = plan_destroy_of(&mut client, &ty, "guarded").await;
    let errs = errors(&refused.diagnostics);
    assert_eq!(errs.len(), 1, "{:?}", refused.diagnostics);
    assert_eq!(errs[0].summary, "guarded may not be destroyed");

    // A create is planned by the framework's rules, without the hook.
    let config = Value::object([
        ("name", Value::string("new")),
        ("out", Value::null(Type::String)),
    ]);
    let created = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "rt_thing".into(),
            prior_state: dv(&Value::null(ty.clone()), &ty),
            proposed_new_state: dv(&config, &ty),
            config: dv(&config, &ty),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&created.diagnostics);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "plan_destroy spare proposed_null=true config_null=true",
            "plan_destroy guarded proposed_null=true config_null=true",
        ]
    );
}

#[tokio::test]
async fn destroys_are_not_planned_with_the_provider_unless_the_builder_asks() {
    let (mut client, _) = served(builder(&Log::default())).await;
    let caps = schemas(&mut client).await.server_capabilities.unwrap();
    assert!(!caps.plan_destroy);
}

#[tokio::test]
async fn a_runtime_schema_ephemeral_resource_opens_renews_and_closes() {
    let log = Log::default();
    let (mut client, _) = served(builder(&log)).await;
    let s = schemas(&mut client).await;
    let ty = schema_from_proto(s.ephemeral_resource_schemas.get("rt_token").unwrap())
        .unwrap()
        .implied_type()
        .unwrap();
    let config = |name: &str| {
        Value::object([
            ("name", Value::string(name)),
            ("out", Value::null(Type::String)),
        ])
    };

    let refused = client
        .validate_ephemeral_resource_config(pb::validate_ephemeral_resource_config::Request {
            type_name: "rt_token".into(),
            config: dv(&config("bad"), &ty),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        summaries(&refused.diagnostics),
        ["a bad name"],
        "its own validation runs"
    );

    let opened = client
        .open_ephemeral_resource(pb::open_ephemeral_resource::Request {
            type_name: "rt_token".into(),
            config: dv(&config("db"), &ty),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(summaries(&opened.diagnostics), ["opened for a while"]);
    let result = decode_dynamic_value(opened.result.as_ref(), &ty).unwrap();
    assert_eq!(result, object("db", "tok-db-0"));
    assert_eq!(opened.renew_at.unwrap().seconds, 1_900_000_000);

    let renewed = client
        .renew_ephemeral_resource(pb::renew_ephemeral_resource::Request {
            type_name: "rt_token".into(),
            private: opened.private,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(summaries(&renewed.diagnostics), ["renewed"]);
    assert_eq!(renewed.renew_at.unwrap().seconds, 1_900_000_060);

    let closed = client
        .close_ephemeral_resource(pb::close_ephemeral_resource::Request {
            type_name: "rt_token".into(),
            private: renewed.private,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(closed.diagnostics.is_empty(), "{:?}", closed.diagnostics);
    assert_eq!(
        *log.lock().unwrap(),
        ["open db", "renew n:db:0", "close n:db:1"]
    );
}

#[tokio::test]
async fn a_runtime_schema_data_source_answers_its_warnings_with_its_value() {
    let (client, ty) = served(builder(&Log::default())).await;
    let read = |name: &str| {
        let config = Value::object([
            ("name", Value::string(name)),
            ("out", Value::null(Type::String)),
        ]);
        let req = pb::read_data_source::Request {
            type_name: "rt_lookup".into(),
            config: dv(&config, &ty),
            ..Default::default()
        };
        let mut client = client.clone();
        async move { client.read_data_source(req).await.unwrap().into_inner() }
    };

    let warned = read("old").await;
    assert_eq!(summaries(&warned.diagnostics), ["old is deprecated"]);
    assert_no_errors(&warned.diagnostics);
    let state = decode_dynamic_value(warned.state.as_ref(), &ty).unwrap();
    assert_eq!(state, object("old", "found-old"));

    let failed = read("gone").await;
    let errs = errors(&failed.diagnostics);
    assert_eq!(errs.len(), 1, "{:?}", failed.diagnostics);
    assert_eq!(errs[0].summary, "gone is not there");
    assert!(failed.state.is_none(), "no state from a failed read");
}
