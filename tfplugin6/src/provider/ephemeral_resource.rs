//! Ephemeral resources (protocol 6.7).

use std::time::SystemTime;

use ctywire::Value;

use super::{ClientCapabilities, Deferred};
use crate::diagnostics::Diagnostics;

/// `ValidateEphemeralResourceConfig`.
#[derive(Clone, Debug)]
pub struct ValidateEphemeralResourceConfigRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
}

/// `OpenEphemeralResource`.
#[derive(Clone, Debug)]
pub struct OpenEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The configuration.
    pub config: Value,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
}

/// The answer to `OpenEphemeralResource`.
#[derive(Clone, Debug)]
pub struct OpenEphemeralResourceResponse {
    /// The ephemeral value.
    pub result: Value,
    /// Private data for renew and close.
    pub private: Option<Vec<u8>>,
    /// When Terraform should call renew.
    pub renew_at: Option<SystemTime>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the open (only when deferral is allowed).
    pub deferred: Option<Deferred>,
}

/// `RenewEphemeralResource`.
#[derive(Clone, Debug)]
pub struct RenewEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The private data from open or the last renew.
    pub private: Option<Vec<u8>>,
}

/// The answer to `RenewEphemeralResource`.
#[derive(Clone, Debug, Default)]
pub struct RenewEphemeralResourceResponse {
    /// When Terraform should call renew again.
    pub renew_at: Option<SystemTime>,
    /// New private data.
    pub private: Option<Vec<u8>>,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `CloseEphemeralResource`.
#[derive(Clone, Debug)]
pub struct CloseEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The private data from open or the last renew.
    pub private: Option<Vec<u8>>,
}
