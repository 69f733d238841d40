//! The tfplugin6 side: the [`Provider`] trait of `ctywire-tfplugin6` on
//! top of the operations, which already speak ctywire values. This file
//! only moves requests into them and answers out of them.

use std::sync::RwLock;

use ctywire::Value;
use ctywire_tfplugin6::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, CloseEphemeralResourceRequest,
    ConfigureProviderRequest, ImportResourceStateRequest, ImportResourceStateResponse,
    ImportedResource, OpenEphemeralResourceRequest, OpenEphemeralResourceResponse,
    PlanResourceChangeRequest, PlanResourceChangeResponse, Provider, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse,
    RenewEphemeralResourceRequest, RenewEphemeralResourceResponse, Schemas, ServerCapabilities,
};

use crate::resource::{import_resource, ApplyRequest, PlanRequest};
use crate::{schema, Runner};

/// terraform-provider-denobridge.
#[derive(Default)]
pub struct DenoBridge {
    // Set by ConfigureProvider, read by every operation (each clones it, so
    // no lock is held across a script run).
    runner: RwLock<Runner>,
}

impl DenoBridge {
    /// A provider not configured yet (Deno from `$DENO_BINARY` or `PATH`).
    pub fn new() -> Self {
        DenoBridge::default()
    }

    fn runner(&self) -> Runner {
        self.runner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

fn private_or_none(p: Vec<u8>) -> Option<Vec<u8>> {
    (!p.is_empty()).then_some(p)
}

#[async_trait::async_trait]
impl Provider for DenoBridge {
    fn schemas(&self) -> Schemas {
        let mut s = Schemas::new(schema::provider())
            .resource(schema::RESOURCE, schema::resource())
            .data_source(schema::DATA_SOURCE, schema::data_source())
            .ephemeral_resource(schema::EPHEMERAL, schema::ephemeral());
        // Destroys are planned too, so the script's modifyPlan sees them
        // (planType "delete"), as under terraform-plugin-framework.
        s.server_capabilities = ServerCapabilities {
            plan_destroy: true,
            ..ServerCapabilities::default()
        };
        s
    }

    async fn configure_provider(
        &self,
        req: ConfigureProviderRequest,
    ) -> ctywire_tfplugin6::Diagnostics {
        let (runner, diags) = crate::configure(&req.config);
        if !diags.has_errors() {
            *self.runner.write().unwrap_or_else(|e| e.into_inner()) = runner;
        }
        diags
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, ctywire_tfplugin6::Diagnostics> {
        let plan = self
            .runner()
            .plan_resource(PlanRequest {
                prior: &req.prior_state,
                proposed: &req.proposed_new_state,
                config: &req.config,
                prior_private: &req.prior_private,
            })
            .await;
        Ok(PlanResourceChangeResponse {
            requires_replace: plan.requires_replace,
            planned_private: plan.private,
            diagnostics: plan.diags,
            ..PlanResourceChangeResponse::new(plan.planned)
        })
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, ctywire_tfplugin6::Diagnostics> {
        let applied = self
            .runner()
            .apply_resource(ApplyRequest {
                prior: &req.prior_state,
                planned: &req.planned_state,
                config: &req.config,
                planned_private: &req.planned_private,
            })
            .await;
        Ok(ApplyResourceChangeResponse {
            private: applied.private,
            diagnostics: applied.diags,
            ..ApplyResourceChangeResponse::new(applied.new_state)
        })
    }

    async fn read_resource(
        &self,
        req: ReadResourceRequest,
    ) -> Result<ReadResourceResponse, ctywire_tfplugin6::Diagnostics> {
        let read = self
            .runner()
            .read_resource(&req.current_state, &req.private)
            .await;
        Ok(ReadResourceResponse {
            private: read.private,
            diagnostics: read.diags,
            ..ReadResourceResponse::new(read.new_state)
        })
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> Result<ImportResourceStateResponse, ctywire_tfplugin6::Diagnostics> {
        let ty = schema::resource()
            .implied_type()
            .map_err(|e| ctywire_tfplugin6::Diagnostics::error(e.to_string()))?;
        let state: Value = import_resource(&req.id, &ty)?;
        Ok(ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: req.type_name,
                state,
                private: Vec::new(),
            }],
            ..ImportResourceStateResponse::default()
        })
    }

    async fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, ctywire_tfplugin6::Diagnostics> {
        let read = self.runner().read_data_source(&req.config).await;
        Ok(ReadDataSourceResponse {
            diagnostics: read.diags,
            ..ReadDataSourceResponse::new(read.state)
        })
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> Result<OpenEphemeralResourceResponse, ctywire_tfplugin6::Diagnostics> {
        let opened = self.runner().open_ephemeral(&req.config).await;
        Ok(OpenEphemeralResourceResponse {
            result: opened.result,
            private: private_or_none(opened.private),
            renew_at: opened.renew_at,
            diagnostics: opened.diags,
            deferred: None,
        })
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, ctywire_tfplugin6::Diagnostics> {
        let renewed = self
            .runner()
            .renew_ephemeral(req.private.as_deref().unwrap_or_default())
            .await;
        Ok(RenewEphemeralResourceResponse {
            renew_at: renewed.renew_at,
            private: private_or_none(renewed.private),
            diagnostics: renewed.diags,
        })
    }

    async fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> ctywire_tfplugin6::Diagnostics {
        let diags = self
            .runner()
            .close_ephemeral(req.private.as_deref().unwrap_or_default())
            .await;
        diags
    }
}
