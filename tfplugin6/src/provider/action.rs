//! Actions (protocol 6.10).

use ctywire::Value;

use super::{ClientCapabilities, Deferred};
use crate::diagnostics::Diagnostics;

/// `ValidateActionConfig` (protocol 6.10).
#[derive(Clone, Debug)]
pub struct ValidateActionConfigRequest {
    /// The action type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
}

/// `PlanAction` (protocol 6.10).
#[derive(Clone, Debug)]
pub struct PlanActionRequest {
    /// The action type.
    pub action_type: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
}

/// The answer to `PlanAction`.
#[derive(Clone, Debug, Default)]
pub struct PlanActionResponse {
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the action (only when deferral is allowed).
    pub deferred: Option<Deferred>,
}

/// `InvokeAction` (protocol 6.10).
#[derive(Clone, Debug)]
pub struct InvokeActionRequest {
    /// The action type.
    pub action_type: String,
    /// The configuration, wholly known.
    pub config: Value,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
}
