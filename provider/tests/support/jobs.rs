//! A provider with a computed block (protocol 6.11), shared by the tests
//! that drive it over gRPC (`newer_protocol/computed_blocks.rs`) and
//! through the harness (`terraform_1_16.rs`): a job whose steps only the
//! provider knows, set on each create and update.

// Each test crate uses what it needs of this.
#![allow(dead_code)]

use ctywire_provider::{async_trait, Context, Model, Provider, Resource, Result};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
pub struct NoConfig {}

/// A job: the provider runs it and reports its steps.
#[derive(Serialize, Deserialize, Model)]
pub struct Job {
    pub name: String,
    /// The steps the run took, which only the provider knows.
    #[model(block, computed)]
    pub step: Option<Vec<Step>>,
}

#[derive(Serialize, Deserialize, Model)]
pub struct Step {
    #[model(computed)]
    pub phase: Option<String>,
}

pub struct Jobs;

/// The job, run: its steps set.
pub fn run(mut job: Job) -> Job {
    job.step = Some(
        ["queued", "ran"]
            .map(|p| Step {
                phase: Some(format!("{p} {}", job.name)),
            })
            .into(),
    );
    job
}

#[async_trait]
impl Provider for Jobs {
    type Config = NoConfig;
    type Data = ();

    async fn configure(&self, _: NoConfig) -> Result<()> {
        Ok(())
    }
}

#[async_trait]
impl Resource<()> for Jobs {
    type Model = Job;

    async fn create(&self, _: &Context<()>, plan: Job) -> Result<Job> {
        Ok(run(plan))
    }

    async fn read(&self, _: &Context<()>, state: Job) -> Result<Option<Job>> {
        Ok(Some(state))
    }

    async fn update(&self, _: &Context<()>, _: Job, plan: Job) -> Result<Job> {
        Ok(run(plan))
    }

    async fn delete(&self, _: &Context<()>, _: Job) -> Result<()> {
        Ok(())
    }
}
