//! The provider on ctywire's framework: the provider block is a derived
//! model ([`Config`]) made into the [`Runner`]; the resource, the data
//! source and the ephemeral resource are registered with their runtime
//! schemas (`schema.rs`) and only move requests into the operations, which
//! already speak ctywire values, and answers out of them. The resource's
//! plan is the script's ([`Runner::plan_resource`]), replacing the
//! framework's; destroys are planned too, so the script's `modifyPlan` sees
//! them (`planType "delete"`), as under terraform-plugin-framework.

use ctywire::{Unknowable, Value};
use ctywire_provider::dynamic::{DynDataSource, DynEphemeral, DynResource};
use ctywire_provider::tfplugin6 as tf;
use ctywire_provider::{async_trait, Builder, Context, Diagnostics, Framework, Model, PlanChange};
use serde::{Deserialize, Serialize};

use crate::resource::{import_resource, ApplyRequest, PlanRequest};
use crate::{schema, Runner};

/// The `provider "denobridge"` block.
#[derive(Clone, Debug, Default, Serialize, Deserialize, Model)]
pub struct Config {
    /// Path to the deno binary. Default: $DENO_BINARY, else `deno` on PATH.
    pub deno_binary_path: Unknowable<Option<String>>,
    /// Accepted for compatibility with denobridge; this provider never downloads Deno (set deno_binary_path or DENO_BINARY instead).
    pub deno_version: Unknowable<Option<String>>,
    /// Runs every script with this command instead of Deno: the program and its leading arguments; the script's path is appended (e.g. ["python3"] or ["node", "--no-warnings"]). `permissions` and `config_file` are Deno's and are not used then.
    pub command: Unknowable<Option<Vec<String>>>,
    /// Seconds each call to a script may take, health check included (default 600).
    pub timeout: Unknowable<Option<f64>>,
}

/// terraform-provider-denobridge: configuring it makes the [`Runner`]
/// every call receives.
pub struct DenoBridge;

impl DenoBridge {
    /// The provider, ready to serve (Deno from `$DENO_BINARY` or `PATH`
    /// until configured otherwise).
    pub fn new() -> Framework<DenoBridge> {
        // The schemas are fixed: a test builds them, so this cannot fail
        // at run time.
        builder()
            .build()
            .expect("denobridge's fixed schemas build (pinned by the_provider_builds)")
    }
}

/// The provider's types, each under its denobridge name.
fn builder() -> Builder<DenoBridge> {
    Builder::new(DenoBridge)
        .resource_with_schema(schema::RESOURCE, 0, schema::resource_block(), Resource)
        .data_source_with_schema(schema::DATA_SOURCE, schema::results_block(), DataSource)
        .ephemeral_resource_with_schema(schema::EPHEMERAL, schema::results_block(), Ephemeral)
        .plan_destroy()
}

#[async_trait]
impl ctywire_provider::Provider for DenoBridge {
    type Config = Config;
    type Data = Runner;

    fn validate(&self, config: &Value) -> Diagnostics {
        crate::validate(config)
    }

    async fn configure(&self, config: Config) -> Result<Runner, Diagnostics> {
        crate::configure(&config)
    }
}

fn private_or_none(p: Vec<u8>) -> Option<Vec<u8>> {
    (!p.is_empty()).then_some(p)
}

/// `denobridge_resource`.
struct Resource;

impl Resource {
    async fn plan(
        ctx: &Context<Runner>,
        req: &tf::PlanResourceChangeRequest,
    ) -> crate::resource::Plan {
        ctx.data()
            .plan_resource(PlanRequest {
                prior: &req.prior_state,
                proposed: &req.proposed_new_state,
                config: &req.config,
                prior_private: &req.prior_private,
            })
            .await
    }
}

#[async_trait]
impl DynResource<Runner> for Resource {
    /// The script's plan replaces the framework's.
    async fn modify_plan(
        &self,
        ctx: &Context<Runner>,
        req: &tf::PlanResourceChangeRequest,
        change: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics> {
        let plan = Self::plan(ctx, req).await;
        change.planned = plan.planned;
        change.requires_replace = plan.requires_replace;
        change.diagnostics.extend(plan.diags);
        Ok(Some(plan.private))
    }

    async fn plan_destroy(
        &self,
        ctx: &Context<Runner>,
        req: &tf::PlanResourceChangeRequest,
    ) -> Diagnostics {
        Self::plan(ctx, req).await.diags
    }

    async fn apply(
        &self,
        ctx: &Context<Runner>,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let applied = ctx
            .data()
            .apply_resource(ApplyRequest {
                prior: &req.prior_state,
                planned: &req.planned_state,
                config: &req.config,
                planned_private: &req.planned_private,
            })
            .await;
        Ok(tf::ApplyResourceChangeResponse {
            private: applied.private,
            diagnostics: applied.diags,
            ..tf::ApplyResourceChangeResponse::new(applied.new_state)
        })
    }

    async fn read(
        &self,
        ctx: &Context<Runner>,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        let read = ctx
            .data()
            .read_resource(&req.current_state, &req.private)
            .await;
        Ok(tf::ReadResourceResponse {
            private: read.private,
            diagnostics: read.diags,
            ..tf::ReadResourceResponse::new(read.new_state)
        })
    }

    async fn import(
        &self,
        _ctx: &Context<Runner>,
        id: String,
    ) -> Result<Option<Value>, Diagnostics> {
        let ty = schema::resource()
            .implied_type()
            .map_err(|e| Diagnostics::error(e.to_string()))?;
        import_resource(&id, &ty).map(Some)
    }
}

/// `denobridge_datasource`.
struct DataSource;

#[async_trait]
impl DynDataSource<Runner> for DataSource {
    async fn read(
        &self,
        ctx: &Context<Runner>,
        config: Value,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let read = ctx.data().read_data_source(&config).await;
        Ok((read.state, read.diags))
    }
}

/// `denobridge_ephemeral_resource`.
struct Ephemeral;

#[async_trait]
impl DynEphemeral<Runner> for Ephemeral {
    async fn open(
        &self,
        ctx: &Context<Runner>,
        req: tf::OpenEphemeralResourceRequest,
    ) -> Result<tf::OpenEphemeralResourceResponse, Diagnostics> {
        let opened = ctx.data().open_ephemeral(&req.config).await;
        Ok(tf::OpenEphemeralResourceResponse {
            result: opened.result,
            private: private_or_none(opened.private),
            renew_at: opened.renew_at,
            diagnostics: opened.diags,
            deferred: None,
        })
    }

    async fn renew(
        &self,
        ctx: &Context<Runner>,
        req: tf::RenewEphemeralResourceRequest,
    ) -> Result<tf::RenewEphemeralResourceResponse, Diagnostics> {
        let renewed = ctx
            .data()
            .renew_ephemeral(req.private.as_deref().unwrap_or_default())
            .await;
        Ok(tf::RenewEphemeralResourceResponse {
            renew_at: renewed.renew_at,
            private: private_or_none(renewed.private),
            diagnostics: renewed.diags,
        })
    }

    async fn close(
        &self,
        ctx: &Context<Runner>,
        req: tf::CloseEphemeralResourceRequest,
    ) -> Diagnostics {
        ctx.data()
            .close_ephemeral(req.private.as_deref().unwrap_or_default())
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_provider_builds() {
        assert!(builder().build().is_ok());
    }
}
