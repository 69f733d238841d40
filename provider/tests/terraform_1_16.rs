//! The harness speaking as Terraform 1.16 (`Harness::terraform_1_16`,
//! protocol 6.11) with the framework: a computed block planned unknown
//! and applied, which the harness as 1.11 is refused with the framework's
//! error; and a value chosen at plan and kept in private data, which the
//! plan before apply gets back (`planned_private`), so a saved plan
//! applies as planned where 1.11 plans it anew.

use std::sync::atomic::{AtomicU64, Ordering};

use ctywire_provider::{
    async_trait, Builder, Context, Diagnostics, Model, PlanChange, Resource, Result, Value,
};
use ctywire_provider_testing::Harness;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[path = "support/jobs.rs"]
mod jobs;
use jobs::{Jobs, NoConfig};

fn jobs() -> Harness {
    let framework = Builder::new(Jobs)
        .resource("jobs_job", Jobs)
        .build()
        .unwrap();
    Harness::new(framework).unwrap()
}

#[test]
fn a_computed_block_is_planned_unknown_and_applied_by_terraform_1_16() {
    let mut tf = jobs().terraform_1_16();
    tf.resource("jobs_job.a", json!({ "name": "a" })).unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("jobs_job.a"), ["create"]);
    assert_eq!(plan.change("jobs_job.a")["after_unknown"]["step"], true);

    let state = tf.apply().unwrap();
    assert_eq!(
        state.values("jobs_job.a")["step"],
        json!([{ "phase": "queued a" }, { "phase": "ran a" }])
    );
    assert!(tf.plan().unwrap().is_empty(), "the steps kept");

    tf.resource("jobs_job.a", json!({ "name": "b" })).unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("jobs_job.a"), ["update"]);
    assert_eq!(plan.change("jobs_job.a")["after_unknown"]["step"], true);
    let state = tf.apply().unwrap();
    assert_eq!(
        state.values("jobs_job.a")["step"],
        json!([{ "phase": "queued b" }, { "phase": "ran b" }])
    );
}

#[test]
fn a_computed_block_is_refused_by_terraform_1_11_with_the_frameworks_error() {
    let mut tf = jobs();
    tf.resource("jobs_job.a", json!({ "name": "a" })).unwrap();
    let err = tf.plan().unwrap_err();
    let text = format!("{err:?}");
    assert!(
        text.contains("Computed blocks not supported by this Terraform")
            && text.contains("Terraform 1.16 or newer"),
        "{text}"
    );
}

/// A ticket whose serial is drawn at plan, as a random id would be.
#[derive(Serialize, Deserialize, Model)]
struct Ticket {
    name: String,
    #[model(computed, keep_state)]
    serial: Option<String>,
}

/// What the plan chose, in private data.
#[derive(Default, Serialize, Deserialize)]
struct Drawn {
    serial: Option<String>,
}

/// Serials from a counter: a different one on every plan that does not
/// find one in its private data.
struct Tickets(AtomicU64);

#[async_trait]
impl Resource<()> for Tickets {
    type Model = Ticket;

    async fn modify_plan(&self, ctx: &Context<()>, plan: &mut PlanChange) -> Result<()> {
        if !plan.is_create() {
            return Ok(());
        }
        let drawn = ctx.private::<Drawn>()?.unwrap_or_default();
        let serial = drawn
            .serial
            .unwrap_or_else(|| format!("serial-{}", self.0.fetch_add(1, Ordering::Relaxed)));
        plan.planned.set_attr("serial", Value::string(&serial))?;
        ctx.set_private(&Drawn {
            serial: Some(serial),
        })
    }

    async fn create(&self, _: &Context<()>, plan: Ticket) -> Result<Ticket> {
        Ok(plan)
    }

    async fn read(&self, _: &Context<()>, state: Ticket) -> Result<Option<Ticket>> {
        Ok(Some(state))
    }

    async fn update(&self, _: &Context<()>, _: Ticket, plan: Ticket) -> Result<Ticket> {
        Ok(plan)
    }

    async fn delete(&self, _: &Context<()>, _: Ticket) -> Result<()> {
        Ok(())
    }
}

/// A ticket planned (saved) and then applied.
fn plan_then_apply(tf: &mut Harness) -> (String, std::result::Result<String, Diagnostics>) {
    tf.resource("office_ticket.t", json!({ "name": "t" }))
        .unwrap();
    let plan = tf.plan().unwrap();
    let planned = plan.change("office_ticket.t")["after"]["serial"]
        .as_str()
        .unwrap()
        .to_owned();
    let applied = tf.apply_plan(&plan).map(|state| {
        state.values("office_ticket.t")["serial"]
            .as_str()
            .unwrap()
            .to_owned()
    });
    (planned, applied)
}

fn office() -> Harness {
    let framework = Builder::from_fn(|_: NoConfig| Ok(()))
        .resource("office_ticket", Tickets(AtomicU64::new(1)))
        .build()
        .unwrap();
    Harness::new(framework).unwrap()
}

#[test]
fn a_value_chosen_at_plan_is_applied_as_planned_by_terraform_1_16() {
    let (planned, applied) = plan_then_apply(&mut office().terraform_1_16());
    assert_eq!(planned, "serial-1");
    assert_eq!(applied.unwrap(), "serial-1");
}

/// Terraform 1.11 sends no `planned_private`: the plan before apply draws
/// again, and core refuses the changed value.
#[test]
fn a_value_chosen_at_plan_is_drawn_again_by_terraform_1_11() {
    let (planned, applied) = plan_then_apply(&mut office());
    assert_eq!(planned, "serial-1");
    let err = format!("{:?}", applied.unwrap_err());
    assert!(
        err.contains("Provider produced inconsistent final plan"),
        "{err}"
    );
}
