//! The four fields protocol 6.11 adds, through the layer over the real
//! gRPC connection, on a provider written on the raw protocol trait (the
//! framework does not hand the capabilities or `planned_private` to
//! authors; its computed blocks are in `computed_blocks.rs`):
//! `Block.computed` reaches the schema, and the two client capabilities
//! and `planned_private` reach the plan.

use ctywire_provider::ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Schema};
use ctywire_provider::tfplugin6::{
    self as tf, PlanResourceChangeRequest, PlanResourceChangeResponse, ProviderService, Schemas,
};
use ctywire_provider::{async_trait, Diagnostics};

use super::{dv, errors, pb, schema_from_proto, serve_service, Type, Value};

/// `echo_thing`: a resource with a computed block, whose plan answers,
/// as its private data, what the request said of the 6.11 fields.
struct Echo;

fn thing() -> Schema {
    let status = Block {
        computed: true,
        ..Block::new().attribute(Attribute::new("phase", Type::String).computed())
    };
    Schema::new(
        Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .block(NestedBlock::new("status", NestingMode::List, status)),
    )
}

#[async_trait]
impl tf::Provider for Echo {
    fn schemas(&self) -> Schemas {
        Schemas::new(Schema::default()).resource("echo_thing", thing())
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        let c = req.client_capabilities;
        let echoed = format!(
            "store_planned_private={} computed_blocks_allowed={} planned_private={}",
            c.store_planned_private,
            c.computed_blocks_allowed,
            String::from_utf8_lossy(&req.planned_private)
        );
        Ok(PlanResourceChangeResponse {
            planned_private: echoed.into_bytes(),
            ..PlanResourceChangeResponse::new(req.proposed_new_state)
        })
    }
}

/// What the plan of `caps` and `planned_private` echoes.
async fn echo(caps: Option<pb::ClientCapabilities>, planned_private: &[u8]) -> String {
    let mut client = serve_service(ProviderService::new(Echo).into_service()).await;
    let ty = thing().implied_type().unwrap();
    let config = Value::object([
        ("name", Value::string("a")),
        (
            "status",
            Value::null(Type::list(Type::object([("phase", Type::String)]))),
        ),
    ]);
    let plan = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "echo_thing".into(),
            prior_state: dv(&Value::null(ty.clone()), &ty),
            proposed_new_state: dv(&config, &ty),
            config: dv(&config, &ty),
            client_capabilities: caps,
            planned_private: planned_private.to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&plan.diagnostics).is_empty(),
        "{:?}",
        plan.diagnostics
    );
    String::from_utf8(plan.planned_private).unwrap()
}

#[tokio::test]
async fn a_computed_block_reaches_the_schema_terraform_reads() {
    let mut client = serve_service(ProviderService::new(Echo).into_service()).await;
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let raw = &schemas.resource_schemas["echo_thing"];
    let status = &raw.block.as_ref().unwrap().block_types[0];
    assert!(
        status.block.as_ref().unwrap().computed,
        "Block.computed = 8 on the wire"
    );
    assert!(!raw.block.as_ref().unwrap().computed);
    let read_back = schema_from_proto(raw).unwrap();
    assert!(
        read_back
            .block
            .find_block_type("status")
            .unwrap()
            .block
            .computed
    );
}

#[tokio::test]
async fn the_611_capabilities_and_planned_private_reach_the_plan() {
    let caps = pb::ClientCapabilities {
        deferral_allowed: false,
        write_only_attributes_allowed: true,
        store_planned_private: true,
        computed_blocks_allowed: true,
    };
    assert_eq!(
        echo(Some(caps), b"id-42").await,
        "store_planned_private=true computed_blocks_allowed=true planned_private=id-42"
    );
    // Each capability on its own.
    let only = |store, computed| pb::ClientCapabilities {
        store_planned_private: store,
        computed_blocks_allowed: computed,
        ..Default::default()
    };
    assert_eq!(
        echo(Some(only(false, true)), b"").await,
        "store_planned_private=false computed_blocks_allowed=true planned_private="
    );
    assert_eq!(
        echo(Some(only(true, false)), b"").await,
        "store_planned_private=true computed_blocks_allowed=false planned_private="
    );
}

#[tokio::test]
async fn a_client_before_611_sends_none_of_the_four_fields() {
    assert_eq!(
        echo(None, b"").await,
        "store_planned_private=false computed_blocks_allowed=false planned_private="
    );
}
