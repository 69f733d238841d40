//! A resource's private state carried by the harness's core as Terraform
//! 1.11 carries it: what apply sets is stored beside the state, handed to
//! the next read, and what each read sets to the read after. (Each RPC's
//! rules, and Terraform 1.16's planned_private, are driven over gRPC in
//! `newer_protocol/private_state.rs`.)

use ctywire_provider::{async_trait, Builder, Context, Model, Provider, Resource, Result};
use ctywire_provider_testing::Harness;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

struct Counting;

#[async_trait]
impl Provider for Counting {
    type Config = NoConfig;
    type Data = ();
    async fn configure(&self, _: NoConfig) -> Result<()> {
        Ok(())
    }
}

#[derive(Serialize, Deserialize, Model)]
struct Counter {
    name: String,
    /// How many reads the private state has counted.
    #[model(computed)]
    reads: Option<u64>,
}

/// Counted in private state, shown in `reads`.
#[derive(Serialize, Deserialize)]
struct Seen {
    reads: u64,
}

struct Counters;

#[async_trait]
impl Resource<()> for Counters {
    type Model = Counter;

    async fn create(&self, ctx: &Context<()>, plan: Counter) -> Result<Counter> {
        ctx.set_private(&Seen { reads: 0 })?;
        Ok(Counter {
            reads: Some(0),
            ..plan
        })
    }

    async fn read(&self, ctx: &Context<()>, state: Counter) -> Result<Option<Counter>> {
        let seen = ctx.private::<Seen>()?.map_or(0, |s| s.reads) + 1;
        ctx.set_private(&Seen { reads: seen })?;
        Ok(Some(Counter {
            reads: Some(seen),
            ..state
        }))
    }

    async fn update(&self, _: &Context<()>, _: Counter, plan: Counter) -> Result<Counter> {
        Ok(plan)
    }

    async fn delete(&self, _: &Context<()>, _: Counter) -> Result<()> {
        Ok(())
    }
}

#[test]
fn core_carries_private_state_from_apply_through_each_read() {
    let provider = Builder::new(Counting)
        .resource("counting_counter", Counters)
        .build()
        .unwrap();
    let mut tf = Harness::new(provider).unwrap();
    tf.resource("counting_counter.a", json!({ "name": "a" }))
        .unwrap();
    tf.apply().unwrap();
    let reads = |tf: &Harness| tf.state().unwrap().values("counting_counter.a")["reads"].clone();
    assert_eq!(reads(&tf), 0);
    for n in 1..=3 {
        tf.refresh().unwrap();
        assert_eq!(reads(&tf), n, "read {n} got what read {} stored", n - 1);
    }
}
