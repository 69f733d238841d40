//! A resource's typed private state over the real gRPC connection: set
//! at plan, handed to apply, read and updated by read, set by import and
//! move, carried past a state upgrade; Terraform 1.16's `planned_private`
//! (6.11) keeps a value chosen at plan the same on the plan before apply;
//! bytes that do not read are an error, and a client that sends none of
//! the new fields gets the private data of its one plan.

use std::sync::atomic::{AtomicU64, Ordering};

use ctywire_provider::tfplugin6::ProviderService;
use ctywire_provider::{
    async_trait, Builder, Context, Diagnostics, Model, PlanChange, Provider, RawState, Resource,
    Result, Value,
};
use serde::{Deserialize, Serialize};

use super::{
    assert_no_errors, decode_dynamic_value, dv, errors, pb, schema_from_proto, serve,
    serve_service, ProviderClient, Type,
};
use tonic::transport::Channel;

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

struct Office;

#[async_trait]
impl Provider for Office {
    type Config = NoConfig;
    type Data = ();
    async fn configure(&self, _: NoConfig) -> Result<()> {
        Ok(())
    }
}

#[derive(Clone, Serialize, Deserialize, Model)]
struct Ticket {
    #[model(requires_replace)]
    name: String,
    /// Chosen at plan, as a random id would be.
    #[model(computed, keep_state)]
    serial: Option<String>,
}

/// What the ticket office keeps in private state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Notes {
    serial: Option<String>,
    origin: Option<String>,
    reads: Option<u32>,
}

/// Serials drawn from a counter: a random id's stand-in, different on
/// every plan unless the plan keeps one.
struct Tickets {
    next: AtomicU64,
}

#[async_trait]
impl Resource<()> for Tickets {
    type Model = Ticket;
    const VERSION: i64 = 1;

    async fn modify_plan(&self, ctx: &Context<()>, plan: &mut PlanChange) -> Result<()> {
        if !plan.is_create() {
            return Ok(());
        }
        let mut notes = ctx.private::<Notes>()?.unwrap_or_default();
        let serial = notes
            .serial
            .clone()
            .unwrap_or_else(|| format!("serial-{}", self.next.fetch_add(1, Ordering::Relaxed)));
        plan.planned.set_attr("serial", Value::string(&serial))?;
        notes.serial = Some(serial);
        ctx.set_private(&notes)
    }

    async fn create(&self, ctx: &Context<()>, plan: Ticket) -> Result<Ticket> {
        let notes = ctx.private::<Notes>()?.unwrap_or_default();
        ctx.set_private(&Notes {
            origin: Some("created".into()),
            ..notes
        })?;
        Ok(plan)
    }

    async fn read(&self, ctx: &Context<()>, state: Ticket) -> Result<Option<Ticket>> {
        let mut notes = ctx.private::<Notes>()?.unwrap_or_default();
        notes.reads = Some(notes.reads.unwrap_or(0) + 1);
        ctx.set_private(&notes)?;
        Ok(Some(state))
    }

    async fn update(&self, _: &Context<()>, _: Ticket, plan: Ticket) -> Result<Ticket> {
        Ok(plan)
    }

    async fn delete(&self, _: &Context<()>, _: Ticket) -> Result<()> {
        Ok(())
    }

    async fn import(&self, ctx: &Context<()>, id: String) -> Result<Option<Ticket>> {
        ctx.set_private(&Notes {
            origin: Some("imported".into()),
            ..Notes::default()
        })?;
        Ok(Some(Ticket {
            serial: Some(format!("serial-of-{id}")),
            name: id,
        }))
    }

    async fn upgrade_state(&self, ctx: &Context<()>, _: i64, state: RawState) -> Result<Value> {
        // The protocol carries no private data here.
        if ctx.private::<Notes>()?.is_some() {
            return Err(Diagnostics::error("private data in an upgrade"));
        }
        let ty = ctywire_provider::model::type_of::<Ticket>()?;
        Ok(state.decode(&ty)?)
    }

    async fn move_state(
        &self,
        ctx: &Context<()>,
        req: ctywire_provider::tfplugin6::MoveResourceStateRequest,
    ) -> Result<Ticket> {
        let notes = ctx.private::<Notes>()?.unwrap_or_default();
        ctx.set_private(&Notes {
            origin: Some(format!("moved from {}", req.source_type_name)),
            ..notes
        })?;
        Ok(Ticket {
            name: "moved".into(),
            serial: Some("serial-moved".into()),
        })
    }
}

struct Office611 {
    client: ProviderClient<Channel>,
    ty: Type,
}

async fn office() -> Office611 {
    let framework = Builder::new(Office)
        .resource(
            "office_ticket",
            Tickets {
                next: AtomicU64::new(1),
            },
        )
        .build()
        .unwrap();
    let mut client = serve_service(ProviderService::new(framework).into_service()).await;
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let ty = schema_from_proto(&schemas.resource_schemas["office_ticket"])
        .unwrap()
        .implied_type()
        .unwrap();
    let provider_ty = Type::object::<&str>([]);
    let resp = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.16.0".into(),
            config: dv(&Value::object::<&str>([]), &provider_ty),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&resp.diagnostics);
    Office611 { client, ty }
}

fn ticket(name: &str, serial: Value) -> Value {
    Value::object([("name", Value::string(name)), ("serial", serial)])
}

fn notes(private: &[u8]) -> Notes {
    notes_in(private).expect("private data")
}

/// The provider's keys of plugin-framework's layout, read back as Notes.
fn notes_in(private: &[u8]) -> Option<Notes> {
    use base64::Engine;
    let outer: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(private).ok()?;
    let fields: serde_json::Map<String, serde_json::Value> = outer
        .into_iter()
        .map(|(k, v)| {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(v.as_str().unwrap())
                .unwrap();
            (k, serde_json::from_slice(&raw).unwrap())
        })
        .collect();
    serde_json::from_value(serde_json::Value::Object(fields)).ok()
}

fn caps_611() -> Option<pb::ClientCapabilities> {
    Some(pb::ClientCapabilities {
        deferral_allowed: false,
        write_only_attributes_allowed: true,
        store_planned_private: true,
        computed_blocks_allowed: true,
    })
}

impl Office611 {
    /// Plans creating ticket `name` with `planned_private` (empty on the
    /// first plan).
    async fn plan_create(
        &mut self,
        name: &str,
        caps: Option<pb::ClientCapabilities>,
        planned_private: Vec<u8>,
    ) -> (Value, Vec<u8>) {
        let config = ticket(name, Value::null(Type::String));
        let proposed = ticket(name, Value::unknown(Type::String));
        let plan = self
            .client
            .plan_resource_change(pb::plan_resource_change::Request {
                type_name: "office_ticket".into(),
                prior_state: dv(&Value::null(self.ty.clone()), &self.ty),
                proposed_new_state: dv(&proposed, &self.ty),
                config: dv(&config, &self.ty),
                client_capabilities: caps,
                planned_private,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_no_errors(&plan.diagnostics);
        let planned = decode_dynamic_value(plan.planned_state.as_ref(), &self.ty).unwrap();
        (planned, plan.planned_private)
    }

    async fn apply_create(
        &mut self,
        name: &str,
        planned: &Value,
        private: Vec<u8>,
    ) -> (Value, Vec<u8>) {
        let config = ticket(name, Value::null(Type::String));
        let applied = self
            .client
            .apply_resource_change(pb::apply_resource_change::Request {
                type_name: "office_ticket".into(),
                prior_state: dv(&Value::null(self.ty.clone()), &self.ty),
                planned_state: dv(planned, &self.ty),
                config: dv(&config, &self.ty),
                planned_private: private,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_no_errors(&applied.diagnostics);
        let state = decode_dynamic_value(applied.new_state.as_ref(), &self.ty).unwrap();
        (state, applied.private)
    }

    /// Ticket `name` planned and created by a Terraform 1.16: the
    /// private data stored with it.
    async fn created(&mut self, name: &str) -> Vec<u8> {
        let (planned, private) = self.plan_create(name, caps_611(), Vec::new()).await;
        self.apply_create(name, &planned, private).await.1
    }

    async fn read(&mut self, state: &Value, private: Vec<u8>) -> pb::read_resource::Response {
        self.client
            .read_resource(pb::read_resource::Request {
                type_name: "office_ticket".into(),
                current_state: dv(state, &self.ty),
                private,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
    }
}

#[tokio::test]
async fn private_state_goes_from_plan_to_apply_to_read() {
    let mut o = office().await;
    let (planned, private) = o.plan_create("a", caps_611(), Vec::new()).await;
    assert_eq!(planned, ticket("a", Value::string("serial-1")));
    assert_eq!(
        notes(&private),
        Notes {
            serial: Some("serial-1".into()),
            ..Notes::default()
        }
    );
    // Apply gets what the plan set, and answers what it set itself.
    let (state, private) = o.apply_create("a", &planned, private).await;
    assert_eq!(state, planned);
    assert_eq!(
        notes(&private),
        Notes {
            serial: Some("serial-1".into()),
            origin: Some("created".into()),
            reads: None,
        }
    );
    // Each read gets what the last answer stored, and may change it.
    let mut private = private;
    for reads in 1..=2 {
        let read = o.read(&state, private).await;
        assert_no_errors(&read.diagnostics);
        private = read.private;
        assert_eq!(notes(&private).reads, Some(reads));
        assert_eq!(notes(&private).origin.as_deref(), Some("created"));
    }
}

#[tokio::test]
async fn the_plan_before_apply_gets_the_planned_private_data_back() {
    let mut o = office().await;
    let (first, private) = o.plan_create("a", caps_611(), Vec::new()).await;
    // Terraform 1.16 plans again just before applying, handing back the
    // first plan's private data: the serial chosen then is planned again.
    let (again, private_again) = o.plan_create("a", caps_611(), private.clone()).await;
    assert_eq!(again, first);
    assert_eq!(private_again, private);
    // Without it the plan chooses afresh, which core would refuse as an
    // inconsistent final plan.
    let (fresh, _) = o.plan_create("a", caps_611(), Vec::new()).await;
    assert_ne!(fresh, first);
}

#[tokio::test]
async fn a_client_before_611_plans_and_applies_with_its_one_plans_private_data() {
    let mut o = office().await;
    let (planned, private) = o.plan_create("old", None, Vec::new()).await;
    let (state, private) = o.apply_create("old", &planned, private).await;
    assert_eq!(state.attr("serial"), planned.attr("serial"));
    assert_eq!(
        notes(&private).serial.as_ref(),
        state
            .attr("serial")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .as_ref()
    );
    assert_eq!(notes(&private).origin.as_deref(), Some("created"));
}

#[tokio::test]
async fn import_sets_private_state_the_next_read_gets() {
    let mut o = office().await;
    let imported = o
        .client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "office_ticket".into(),
            id: "t-7".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&imported.diagnostics);
    let object = &imported.imported_resources[0];
    assert_eq!(notes(&object.private).origin.as_deref(), Some("imported"));
    let state = decode_dynamic_value(object.state.as_ref(), &o.ty).unwrap();
    let read = o.read(&state, object.private.clone()).await;
    assert_no_errors(&read.diagnostics);
    assert_eq!(
        notes(&read.private),
        Notes {
            origin: Some("imported".into()),
            reads: Some(1),
            serial: None,
        }
    );
}

#[tokio::test]
async fn private_state_outlives_a_state_upgrade_to_the_next_read() {
    let mut o = office().await;
    let private = o.created("a").await;
    // A state stored at version 0: upgraded without private data (the
    // protocol has none there), which Terraform keeps and reads with.
    let upgraded = o
        .client
        .upgrade_resource_state(pb::upgrade_resource_state::Request {
            type_name: "office_ticket".into(),
            version: 0,
            raw_state: Some(pb::RawState {
                json: br#"{"name":"a","serial":"serial-1"}"#.to_vec(),
                flatmap: Default::default(),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&upgraded.diagnostics);
    let state = decode_dynamic_value(upgraded.upgraded_state.as_ref(), &o.ty).unwrap();
    let read = o.read(&state, private).await;
    assert_no_errors(&read.diagnostics);
    assert_eq!(
        notes(&read.private),
        Notes {
            serial: Some("serial-1".into()),
            origin: Some("created".into()),
            reads: Some(1),
        }
    );
}

#[tokio::test]
async fn a_move_reads_the_sources_private_state_and_sets_the_targets() {
    let mut o = office().await;
    let private = o.created("a").await;
    let moved = o
        .client
        .move_resource_state(pb::move_resource_state::Request {
            source_provider_address: "registry.terraform.io/x/office".into(),
            source_type_name: "office_old_ticket".into(),
            source_schema_version: 0,
            source_state: Some(pb::RawState {
                json: br#"{"name":"a"}"#.to_vec(),
                flatmap: Default::default(),
            }),
            target_type_name: "office_ticket".into(),
            source_private: private,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&moved.diagnostics);
    assert_eq!(
        notes(&moved.target_private),
        Notes {
            serial: Some("serial-1".into()),
            origin: Some("moved from office_old_ticket".into()),
            reads: None,
        }
    );
}

#[tokio::test]
async fn private_bytes_that_do_not_read_are_an_error_diagnostic() {
    let mut o = office().await;
    let state = ticket("a", Value::string("serial-1"));
    for (bytes, says) in [
        (&b"\xff\x00 not json"[..], "not a JSON object"),
        (br#"["a list"]"#, "not a JSON object"),
        // base64 of `{"unterminated`
        (
            br#"{"serial":"eyJ1bnRlcm1pbmF0ZWQ="}"#,
            "not a JSON document",
        ),
    ] {
        let read = o.read(&state, bytes.to_vec()).await;
        let errs = errors(&read.diagnostics);
        assert_eq!(errs.len(), 1, "{bytes:?}: {:?}", read.diagnostics);
        assert_eq!(errs[0].summary, "Invalid private state");
        assert!(errs[0].detail.contains(says), "{}", errs[0].detail);
    }
    // Strings that are not base64: terraform-plugin-sdk v2's layout,
    // dropped as another SDK's data, not an error.
    let sdk_v2 = br#"{"schema_version":"1"}"#;
    assert_no_errors(&o.read(&state, sdk_v2.to_vec()).await.diagnostics);
    // Valid layout, wrong shape for the type: named as the provider's bug.
    let wrong = br#"{"reads":"InR3byI="}"#; // "two"
    let read = o.read(&state, wrong.to_vec()).await;
    let errs = errors(&read.diagnostics);
    assert_eq!(
        errs[0].summary,
        "Private state does not fit the provider's type"
    );
}

/// A resource that never uses private state passes Terraform's bytes
/// through as they came, readable or not.
#[tokio::test]
async fn private_bytes_a_resource_never_reads_pass_through_unchanged() {
    let mut s = serve().await;
    let t = super::types(&mut s.client).await;
    super::configure(&mut s.client, &t, 1).await;
    let state = super::item("item-00000", "value 0", Value::string("id-item-00000"));
    let read = s
        .client
        .read_resource(pb::read_resource::Request {
            type_name: "demo_item".into(),
            current_state: dv(&state, &t.item),
            private: b"\xff opaque".to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&read.diagnostics);
    assert_eq!(read.private, b"\xff opaque");
    assert_eq!(notes_in(&read.private), None);
}

/// A runtime-schema note that plans nothing of its own private data; its
/// destroy plan notes that it is going.
struct Note;

#[async_trait]
impl ctywire_provider::dynamic::DynResource<()> for Note {
    async fn plan_destroy(
        &self,
        ctx: &Context<()>,
        _: &ctywire_provider::tfplugin6::PlanResourceChangeRequest,
    ) -> Diagnostics {
        let going = Notes {
            origin: Some("going".into()),
            ..Notes::default()
        };
        ctx.set_private(&going).err().unwrap_or_default()
    }

    async fn apply(
        &self,
        _: &Context<()>,
        req: ctywire_provider::tfplugin6::ApplyResourceChangeRequest,
    ) -> std::result::Result<ctywire_provider::tfplugin6::ApplyResourceChangeResponse, Diagnostics>
    {
        Ok(ctywire_provider::tfplugin6::ApplyResourceChangeResponse::new(req.planned_state))
    }

    async fn read(
        &self,
        _: &Context<()>,
        req: ctywire_provider::tfplugin6::ReadResourceRequest,
    ) -> std::result::Result<ctywire_provider::tfplugin6::ReadResourceResponse, Diagnostics> {
        Ok(ctywire_provider::tfplugin6::ReadResourceResponse::new(
            req.current_state,
        ))
    }
}

/// Plans `office_note` from `prior` to `proposed` with the private data
/// given: the planned private data.
async fn plan_note(
    client: &mut ProviderClient<Channel>,
    ty: &Type,
    (prior, proposed): (&Value, &Value),
    prior_private: &[u8],
    planned_private: &[u8],
) -> Vec<u8> {
    let plan = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "office_note".into(),
            prior_state: dv(prior, ty),
            proposed_new_state: dv(proposed, ty),
            config: dv(proposed, ty),
            client_capabilities: caps_611(),
            prior_private: prior_private.to_vec(),
            planned_private: planned_private.to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&plan.diagnostics);
    plan.planned_private
}

#[tokio::test]
async fn a_runtime_schemas_plan_keeps_the_private_data_it_was_given() {
    use ctywire_provider::schema::{Attribute, Block};
    let block = Block {
        attributes: vec![Attribute::new("name", Type::String)],
        ..Block::default()
    };
    let framework = Builder::new(Office)
        .resource_with_schema("office_note", 0, block.clone(), Note)
        .build()
        .unwrap();
    let mut client = serve_service(ProviderService::new(framework).into_service()).await;
    let resp = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.16.0".into(),
            config: dv(&Value::object::<&str>([]), &Type::object::<&str>([])),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&resp.diagnostics);
    let ty = block.implied_type().unwrap();
    let note = Value::object([("name", Value::string("a"))]);
    // plugin-framework's layout: each key's JSON, base64.
    let stored = |origin: &str| {
        use base64::Engine;
        let json = serde_json::to_vec(origin).unwrap();
        let encoded = base64::engine::general_purpose::STANDARD.encode(json);
        serde_json::to_vec(&serde_json::json!({ "origin": encoded })).unwrap()
    };
    // Terraform 1.16's plan before apply hands back the first plan's data:
    // the resource planning none of its own keeps that, not the prior.
    let planned = plan_note(
        &mut client,
        &ty,
        (&note, &note),
        &stored("prior"),
        &stored("first plan"),
    )
    .await;
    assert_eq!(notes(&planned).origin.as_deref(), Some("first plan"));
    // A destroy's plan_destroy sets private data for the delete.
    let planned = plan_note(
        &mut client,
        &ty,
        (&note, &Value::null(ty.clone())),
        &stored("prior"),
        &[],
    )
    .await;
    assert_eq!(notes(&planned).origin.as_deref(), Some("going"));
}
