//! Data sources.

use ctywire::Value;

use super::{ClientCapabilities, Deferred};
use crate::diagnostics::Diagnostics;

/// `ValidateDataResourceConfig`.
#[derive(Clone, Debug)]
pub struct ValidateDataResourceConfigRequest {
    /// The data source type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
}

/// `ReadDataSource`.
#[derive(Clone, Debug)]
pub struct ReadDataSourceRequest {
    /// The data source type.
    pub type_name: String,
    /// The configuration.
    pub config: Value,
    /// The module's `provider_meta` block, if the provider has a schema for it.
    pub provider_meta: Option<Value>,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
}

/// The answer to `ReadDataSource`.
#[derive(Clone, Debug)]
pub struct ReadDataSourceResponse {
    /// The data source's state.
    pub state: Value,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the read (only when deferral is allowed).
    pub deferred: Option<Deferred>,
}

impl ReadDataSourceResponse {
    /// The state, with nothing else.
    pub fn new(state: Value) -> Self {
        ReadDataSourceResponse {
            state,
            diagnostics: Diagnostics::new(),
            deferred: None,
        }
    }
}
