//! Computed blocks (protocol 6.11) on the framework, over the real gRPC
//! connection: declared with `#[model(block, computed)]`, sent as
//! `Block.computed`, planned unknown while the provider has yet to set
//! them, applied, kept when nothing changes, and refused for a Terraform
//! that does not send `computed_blocks_allowed`.

use ctywire_provider::tfplugin6::client::decode_dynamic_value;
use ctywire_provider::{async_trait, Builder, Context, Model, Resource, Result};
use serde::{Deserialize, Serialize};

use crate::jobs::{Jobs, Step};

use super::{
    assert_no_errors, dv, errors, pb, serve_configured, Channel, ProviderClient, Type, Value,
};

fn step_list() -> Type {
    Type::list(Type::object([("phase", Type::String)]))
}

fn job_type() -> Type {
    Type::object([("name", Type::String), ("step", step_list())])
}

fn job(name: &str, step: Value) -> Value {
    Value::object([("name", Value::string(name)), ("step", step)])
}

fn steps(phases: &[&str]) -> Value {
    Value::list(
        Type::object([("phase", Type::String)]),
        phases
            .iter()
            .map(|p| Value::object([("phase", Value::string(*p))]))
            .collect(),
    )
    .unwrap()
}

/// What Terraform 1.16 sends: `computed_blocks_allowed` with the rest.
fn terraform_116() -> Option<pb::ClientCapabilities> {
    Some(pb::ClientCapabilities {
        deferral_allowed: true,
        write_only_attributes_allowed: true,
        store_planned_private: true,
        computed_blocks_allowed: true,
    })
}

async fn served() -> ProviderClient<Channel> {
    let framework = Builder::new(Jobs)
        .resource("jobs_job", Jobs)
        .build()
        .unwrap();
    serve_configured(framework).await
}

/// Plans `config` from `prior`, as core proposes (the prior's computed
/// block kept where the configuration leaves it out).
async fn plan(
    client: &mut ProviderClient<Channel>,
    prior: &Value,
    config: &Value,
    caps: Option<pb::ClientCapabilities>,
) -> pb::plan_resource_change::Response {
    let ty = job_type();
    let proposed = match prior.attr("step") {
        Some(s) if !prior.is_null() => {
            job(config.attr("name").unwrap().as_str().unwrap(), s.clone())
        }
        _ => config.clone(),
    };
    client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "jobs_job".into(),
            prior_state: dv(prior, &ty),
            proposed_new_state: dv(&proposed, &ty),
            config: dv(config, &ty),
            client_capabilities: caps,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn a_computed_block_from_the_model_reaches_the_schema() {
    let mut client = served().await;
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let block = schemas.resource_schemas["jobs_job"].block.clone().unwrap();
    assert!(!block.computed);
    let step = &block.block_types[0];
    assert_eq!(step.type_name, "step");
    assert!(step.block.as_ref().unwrap().computed, "Block.computed = 8");
}

#[tokio::test]
async fn a_computed_block_plans_unknown_then_applies_what_the_provider_sets() {
    let mut client = served().await;
    let ty = job_type();
    let null = Value::null(ty.clone());
    // Core 1.16 sends an unwritten computed block as null
    // (PrepareComputedBlocks).
    let config = job("a", Value::null(step_list()));
    let planned = plan(&mut client, &null, &config, terraform_116()).await;
    assert_no_errors(&planned.diagnostics);
    let planned_state = decode_dynamic_value(planned.planned_state.as_ref(), &ty).unwrap();
    assert_eq!(planned_state, job("a", Value::unknown(step_list())));

    let applied = client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "jobs_job".into(),
            prior_state: dv(&null, &ty),
            planned_state: planned.planned_state,
            config: dv(&config, &ty),
            planned_private: planned.planned_private,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_no_errors(&applied.diagnostics);
    let state = decode_dynamic_value(applied.new_state.as_ref(), &ty).unwrap();
    assert_eq!(state, job("a", steps(&["queued a", "ran a"])));

    // Nothing changed: the plan is the state, the steps kept.
    let unwritten = Value::null(step_list());
    let again = plan(
        &mut client,
        &state,
        &job("a", unwritten.clone()),
        terraform_116(),
    )
    .await;
    assert_no_errors(&again.diagnostics);
    let replanned = decode_dynamic_value(again.planned_state.as_ref(), &ty).unwrap();
    assert_eq!(replanned, state);

    // A change elsewhere: the provider will set the steps anew.
    let renamed = plan(&mut client, &state, &job("b", unwritten), terraform_116()).await;
    assert_no_errors(&renamed.diagnostics);
    let replanned = decode_dynamic_value(renamed.planned_state.as_ref(), &ty).unwrap();
    assert_eq!(replanned, job("b", Value::unknown(step_list())));
}

#[tokio::test]
async fn a_terraform_without_computed_blocks_allowed_gets_an_error_naming_the_block() {
    let mut client = served().await;
    let null = Value::null(job_type());
    let config = job("a", steps(&[]));
    let older = pb::ClientCapabilities {
        computed_blocks_allowed: false,
        ..terraform_116().unwrap()
    };
    for caps in [None, Some(older)] {
        let planned = plan(&mut client, &null, &config, caps).await;
        let errs = errors(&planned.diagnostics);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(
            errs[0].summary,
            "Computed blocks not supported by this Terraform"
        );
        assert!(
            errs[0]
                .detail
                .contains("jobs_job has blocks the provider computes (.step)")
                && errs[0].detail.contains("Terraform 1.16 or newer"),
            "{}",
            errs[0].detail
        );
    }
}

/// A job whose computed blocks break each of core's rules.
#[derive(Serialize, Deserialize, Model)]
struct BadJob {
    name: String,
    #[model(block, computed)]
    status: Option<Status>,
    #[model(block(min_items = 1), computed)]
    runs: Option<Vec<Step>>,
}

/// Filled in by the provider, yet with parts the configuration sets.
#[derive(Serialize, Deserialize, Model)]
struct Status {
    #[model(optional)]
    note: Option<String>,
    #[model(optional, computed)]
    phase: Option<String>,
    #[model(block)]
    detail: Option<Step>,
}

struct BadJobs;

#[async_trait]
impl Resource<()> for BadJobs {
    type Model = BadJob;

    async fn create(&self, _: &Context<()>, plan: BadJob) -> Result<BadJob> {
        Ok(plan)
    }

    async fn read(&self, _: &Context<()>, state: BadJob) -> Result<Option<BadJob>> {
        Ok(Some(state))
    }

    async fn update(&self, _: &Context<()>, _: BadJob, plan: BadJob) -> Result<BadJob> {
        Ok(plan)
    }

    async fn delete(&self, _: &Context<()>, _: BadJob) -> Result<()> {
        Ok(())
    }
}

#[test]
fn build_refuses_computed_blocks_where_terraform_does() {
    let err = Builder::new(Jobs)
        .resource("jobs_bad", BadJobs)
        .build()
        .err()
        .expect("refused");
    let text = err.to_string();
    for problem in [
        "jobs_bad: .status.note: all attributes within computed blocks must also be computed",
        ".status.detail: all nested blocks within computed blocks must also be computed",
        ".runs: Computed cannot be used when MinItems > 0",
    ] {
        assert!(text.contains(problem), "{problem:?} not in {text}");
    }
    // An optional and computed attribute is computed: not refused.
    assert!(!text.contains(".status.phase"), "{text}");
}
