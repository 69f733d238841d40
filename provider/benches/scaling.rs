//! The plan-scaling scenario, shared by `examples/plan_scaling.rs` and
//! `benches/plan_scaling.rs`: a resource with `name` and a set block
//! `item` of N elements, each with a configured `key` and a computed `id`
//! declared `keep_state`, driven through the framework's whole path (the
//! gRPC service in-process: protobuf messages, msgpack encoding and
//! decoding of every value). The state holds all N with their ids; the
//! configuration changes `name`, so the resource changes and every `id`
//! must be kept from its own prior element (matched by value, as Terraform
//! matches set elements).

use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::pb::tfplugin6::provider_server::Provider as _;
use ctywire_provider::tfplugin6::ProviderService;
use ctywire_provider::{
    async_trait, model, Builder, Context, Diagnostics, Framework, Model, Provider, Resource, Type,
    Value,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
pub struct NoConfig {}

pub struct Scaling;

#[async_trait]
impl Provider for Scaling {
    type Config = NoConfig;
    type Data = ();
    async fn configure(&self, _: NoConfig) -> Result<(), Diagnostics> {
        Ok(())
    }
}

#[derive(Serialize, Deserialize, Model)]
pub struct Many {
    name: String,
    #[model(block(set))]
    item: Vec<Item>,
}

#[derive(Serialize, Deserialize, Model)]
pub struct Item {
    key: String,
    #[model(computed, keep_state)]
    id: Option<String>,
}

pub struct Things;

#[async_trait]
impl Resource<()> for Things {
    type Model = Many;

    async fn create(&self, _: &Context<()>, mut plan: Many) -> Result<Many, Diagnostics> {
        for item in &mut plan.item {
            item.id = Some(format!("id-{}", item.key));
        }
        Ok(plan)
    }

    async fn read(&self, _: &Context<()>, state: Many) -> Result<Option<Many>, Diagnostics> {
        Ok(Some(state))
    }

    async fn update(&self, ctx: &Context<()>, _: Many, plan: Many) -> Result<Many, Diagnostics> {
        // Kept ids stay; an element the plan left unknown gets one.
        self.create(ctx, plan).await
    }

    async fn delete(&self, _: &Context<()>, _: Many) -> Result<(), Diagnostics> {
        Ok(())
    }
}

fn dynamic(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: ctywire_provider::ctywire::msgpack::encode(v, ty).expect("a value of its type"),
        json: Vec::new(),
    })
}

fn decoded(v: Option<pb::DynamicValue>, ty: &Type) -> Value {
    let bytes = v.map(|v| v.msgpack).unwrap_or_default();
    ctywire_provider::ctywire::msgpack::decode(&bytes, ty).expect("the provider's answer decodes")
}

/// The resource as a value: `name` and `n` items, with ids or without.
fn many(name: &str, n: usize, ids: bool) -> Value {
    let items = (0..n).map(|i| {
        let id = match ids {
            true => Value::string(format!("id-k{i}")),
            false => Value::null(Type::String),
        };
        Value::object([("key", Value::string(format!("k{i}"))), ("id", id)])
    });
    let item_ty = Type::object([("key", Type::String), ("id", Type::String)]);
    let set = Value::set(item_ty, items.collect()).expect("a set of items");
    Value::object([("name", Value::string(name)), ("item", set)])
}

/// The provider, configured, behind its gRPC service.
pub struct Scenario {
    service: ProviderService<Framework<Scaling>>,
    ty: Type,
}

/// One size's requests: what Terraform sends to plan and to apply.
pub struct Case {
    prior: Value,
    config: Value,
    /// Terraform's proposal: the new name, each element matched to its
    /// prior element by key, so each keeps its prior id.
    proposed: Value,
}

impl Case {
    /// `n` elements.
    pub fn new(n: usize) -> Case {
        Case {
            prior: many("before", n, true),
            config: many("after", n, false),
            proposed: many("after", n, true),
        }
    }
}

impl Scenario {
    /// The provider, configured.
    pub async fn new() -> Scenario {
        let framework = Builder::new(Scaling)
            .resource("scaling_many", Things)
            .build()
            .expect("the schema is valid");
        let service = ProviderService::new(framework);
        let ty = model::type_of::<Many>().expect("the model implies a type");
        let configure = pb::configure_provider::Request {
            config: dynamic(&Value::object::<&str>([]), &Type::object::<&str>([])),
            ..Default::default()
        };
        let configured = service
            .configure_provider(tonic::Request::new(configure))
            .await;
        assert!(configured
            .expect("configured")
            .into_inner()
            .diagnostics
            .is_empty());
        Scenario { service, ty }
    }

    /// `PlanResourceChange` for the case: the planned state, checked.
    pub async fn plan(&self, case: &Case) -> Value {
        let ty = &self.ty;
        let plan = pb::plan_resource_change::Request {
            type_name: "scaling_many".into(),
            prior_state: dynamic(&case.prior, ty),
            proposed_new_state: dynamic(&case.proposed, ty),
            config: dynamic(&case.config, ty),
            ..Default::default()
        };
        let planned = self
            .service
            .plan_resource_change(tonic::Request::new(plan))
            .await
            .expect("the call succeeds")
            .into_inner();
        assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
        decoded(planned.planned_state, ty)
    }

    /// `ApplyResourceChange` of `planned`: the new state, checked.
    pub async fn apply(&self, case: &Case, planned: &Value) -> Value {
        let ty = &self.ty;
        let apply = pb::apply_resource_change::Request {
            type_name: "scaling_many".into(),
            prior_state: dynamic(&case.prior, ty),
            planned_state: dynamic(planned, ty),
            config: dynamic(&case.config, ty),
            ..Default::default()
        };
        let applied = self
            .service
            .apply_resource_change(tonic::Request::new(apply))
            .await
            .expect("the call succeeds")
            .into_inner();
        assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
        decoded(applied.new_state, ty)
    }

    /// Whether `state` is what the case should plan and apply to: every
    /// id kept from its own element.
    pub fn is_expected(case: &Case, state: &Value) -> bool {
        state == &case.proposed
    }
}
