//! The plan-scaling scenario, shared by `examples/plan_scaling.rs` and
//! `benches/plan_scaling.rs`: a resource with `name` and a set block
//! `item` of N elements, each with a configured `key` and a computed `id`
//! declared `keep_state`, driven through the framework's whole path (the
//! gRPC service in-process: protobuf messages, msgpack encoding and
//! decoding of every value). The state holds all N with their ids; the
//! configuration changes `name` and adds one element, so the resource
//! changes, every `id` must be kept from its own prior element (matched by
//! value, as Terraform matches set elements), and the new element's is
//! unknown until apply (so the apply's consistency check runs rule by rule,
//! not through its exact-result shortcut).

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
/// What an element's id is in a value of `many`.
#[derive(Clone, Copy)]
enum Id {
    /// `id-KEY`.
    Known,
    /// Null, as configured.
    Null,
    /// Unknown, as planned for a new element.
    Unknown,
}

/// `name` and the items `k0`..`k{n-1}` with their ids `old`, and the item
/// `new` with its id `new`, if any.
fn many(name: &str, n: usize, old: Id, new: Option<Id>) -> Value {
    let item = |key: String, id: Id| {
        let id = match id {
            Id::Known => Value::string(format!("id-{key}")),
            Id::Null => Value::null(Type::String),
            Id::Unknown => Value::unknown(Type::String),
        };
        Value::object([("key", Value::string(key)), ("id", id)])
    };
    let items = (0..n)
        .map(|i| item(format!("k{i}"), old))
        .chain(new.map(|id| item("new".into(), id)));
    let item_ty = Type::object([("key", Type::String), ("id", Type::String)]);
    let set = Value::set(item_ty, items.collect()).expect("a set of items");
    Value::object([("name", Value::string(name)), ("item", set)])
}

pub struct Scenario {
    service: ProviderService<Framework<Scaling>>,
    ty: Type,
}

/// One size's requests: what Terraform sends to plan and to apply.
pub struct Case {
    prior: Value,
    config: Value,
    proposed: Value,
    /// The plan expected: every prior id kept, the new element's unknown.
    planned: Value,
    /// The state expected after apply.
    applied: Value,
}

impl Case {
    /// `n` elements in state, and one more configured: its id is unknown
    /// in the plan, so the apply's check of the result cannot take the
    /// exact-result shortcut and compares element by element.
    pub fn new(n: usize) -> Case {
        Case {
            prior: many("before", n, Id::Known, None),
            config: many("after", n, Id::Null, Some(Id::Null)),
            proposed: many("after", n, Id::Known, Some(Id::Null)),
            planned: many("after", n, Id::Known, Some(Id::Unknown)),
            applied: many("after", n, Id::Known, Some(Id::Known)),
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

    /// Whether `planned` is what the case should plan: every id kept
    /// from its own element, the new element's unknown.
    pub fn is_planned(case: &Case, planned: &Value) -> bool {
        planned == &case.planned
    }

    /// Whether `state` is what the case should apply to.
    pub fn is_applied(case: &Case, state: &Value) -> bool {
        state == &case.applied
    }
}
