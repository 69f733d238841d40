//! Managed resources: validation, state upgrades, read, plan, apply,
//! import, moves, identity upgrades (protocol 6.9) and generated
//! configuration (protocol 6.10).

use std::collections::BTreeMap;

use ctywire::schema::Schema;
use ctywire::{Error, Path, Type, Value};

use super::{ClientCapabilities, Deferred};
use crate::diagnostics::Diagnostics;

/// `RawState`: a stored state as Terraform has it, before upgrading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawState {
    /// The state as JSON (empty if the state is flatmap).
    pub json: Vec<u8>,
    /// A state from the Terraform 0.11 era, flattened.
    pub flatmap: BTreeMap<String, String>,
}

impl RawState {
    /// The stored state at `ty`: its JSON when there is some (ctywire's
    /// JSON decoding), else its flatmap when there is one, else a null.
    pub fn decode(&self, ty: &Type) -> Result<Value, Error> {
        if !self.json.is_empty() {
            ctywire::json::decode(&self.json, ty)
        } else if !self.flatmap.is_empty() {
            ctywire::schema::flatmap::decode(&self.flatmap, ty)
        } else {
            Ok(Value::null(ty.clone()))
        }
    }
}

/// `ValidateResourceConfig`.
#[derive(Clone, Debug)]
pub struct ValidateResourceConfigRequest {
    /// The resource type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
}

/// `UpgradeResourceState`.
#[derive(Clone, Debug)]
pub struct UpgradeResourceStateRequest {
    /// The resource type.
    pub type_name: String,
    /// The schema version the state was written with.
    pub version: i64,
    /// The stored state.
    pub raw_state: RawState,
    /// The implied type of the current schema: what the answer must be.
    pub current_type: Type,
}

/// The answer to `UpgradeResourceState`.
#[derive(Clone, Debug)]
pub struct UpgradeResourceStateResponse {
    /// The state at the current schema's type.
    pub upgraded_state: Value,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `ReadResource`.
#[derive(Clone, Debug)]
pub struct ReadResourceRequest {
    /// The resource type.
    pub type_name: String,
    /// The state as last stored.
    pub current_state: Value,
    /// The private data stored with it.
    pub private: Vec<u8>,
    /// The module's `provider_meta` block, if the provider has a schema for it.
    pub provider_meta: Option<Value>,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
    /// The identity stored with the state (protocol 6.9), at the identity
    /// schema's type; `None` from older Terraform, or before it had one.
    pub current_identity: Option<Value>,
}

/// The answer to `ReadResource`.
#[derive(Clone, Debug)]
pub struct ReadResourceResponse {
    /// The refreshed state; a null means the object is gone.
    pub new_state: Value,
    /// Private data to store with it.
    pub private: Vec<u8>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the read (only when deferral is allowed).
    pub deferred: Option<Deferred>,
    /// The object's identity (protocol 6.9; only for a type with an
    /// identity schema), wholly known.
    pub new_identity: Option<Value>,
}

impl ReadResourceResponse {
    /// The refreshed state, with no private data.
    pub fn new(new_state: Value) -> Self {
        ReadResourceResponse {
            new_state,
            private: Vec::new(),
            diagnostics: Diagnostics::new(),
            deferred: None,
            new_identity: None,
        }
    }
}

/// `PlanResourceChange`.
#[derive(Clone, Debug)]
pub struct PlanResourceChangeRequest {
    /// The resource type.
    pub type_name: String,
    /// The current state; null when creating.
    pub prior_state: Value,
    /// Terraform's proposal: the configuration merged with the prior
    /// state; null when destroying.
    pub proposed_new_state: Value,
    /// The configuration as written (may hold unknowns).
    pub config: Value,
    /// The private data stored with the prior state.
    pub prior_private: Vec<u8>,
    /// The module's `provider_meta` block, if the provider has a schema for it.
    pub provider_meta: Option<Value>,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
    /// The prior state's identity (protocol 6.9); `None` when creating or
    /// from older Terraform.
    pub prior_identity: Option<Value>,
    /// On the plan Terraform makes just before applying, the private data
    /// the earlier plan answered (protocol 6.11, when
    /// [`ClientCapabilities::store_planned_private`]); empty otherwise.
    pub planned_private: Vec<u8>,
}

/// The answer to `PlanResourceChange`.
#[derive(Clone, Debug)]
pub struct PlanResourceChangeResponse {
    /// The planned state: unknown where the provider will decide at apply.
    pub planned_state: Value,
    /// Changes to these attributes replace the object.
    pub requires_replace: Vec<Path>,
    /// Private data handed to apply.
    pub planned_private: Vec<u8>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the change (only when deferral is allowed).
    pub deferred: Option<Deferred>,
    /// The identity after the change (protocol 6.9): it may hold unknowns
    /// only when the object is created or replaced.
    pub planned_identity: Option<Value>,
}

impl PlanResourceChangeResponse {
    /// The planned state, with nothing else.
    pub fn new(planned_state: Value) -> Self {
        PlanResourceChangeResponse {
            planned_state,
            requires_replace: Vec::new(),
            planned_private: Vec::new(),
            diagnostics: Diagnostics::new(),
            deferred: None,
            planned_identity: None,
        }
    }
}

/// `ApplyResourceChange`.
#[derive(Clone, Debug)]
pub struct ApplyResourceChangeRequest {
    /// The resource type.
    pub type_name: String,
    /// The current state; null when creating.
    pub prior_state: Value,
    /// The planned state; null when destroying.
    pub planned_state: Value,
    /// The configuration, now wholly known.
    pub config: Value,
    /// The private data the plan returned.
    pub planned_private: Vec<u8>,
    /// The module's `provider_meta` block, if the provider has a schema for it.
    pub provider_meta: Option<Value>,
    /// The identity the plan returned (protocol 6.9).
    pub planned_identity: Option<Value>,
}

/// The answer to `ApplyResourceChange`.
#[derive(Clone, Debug)]
pub struct ApplyResourceChangeResponse {
    /// The new state, wholly known; null after a destroy.
    pub new_state: Value,
    /// Private data to store with it.
    pub private: Vec<u8>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// The object's identity (protocol 6.9), wholly known.
    pub new_identity: Option<Value>,
}

impl ApplyResourceChangeResponse {
    /// The new state, with no private data.
    pub fn new(new_state: Value) -> Self {
        ApplyResourceChangeResponse {
            new_state,
            private: Vec::new(),
            diagnostics: Diagnostics::new(),
            new_identity: None,
        }
    }
}

/// `ImportResourceState`.
#[derive(Clone, Debug)]
pub struct ImportResourceStateRequest {
    /// The resource type.
    pub type_name: String,
    /// The id given to `terraform import` or an `import` block (empty
    /// for an import by identity).
    pub id: String,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
    /// An import block's `identity` (protocol 6.9), at the identity
    /// schema's type: attributes not `required_for_import` may be null.
    pub identity: Option<Value>,
}

/// One object an import found.
#[derive(Clone, Debug)]
pub struct ImportedResource {
    /// Its resource type (it need not be the one asked for).
    pub type_name: String,
    /// Its state, at that type's schema.
    pub state: Value,
    /// Private data to store with it.
    pub private: Vec<u8>,
}

/// The answer to `ImportResourceState`.
#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateResponse {
    /// What was found.
    pub imported_resources: Vec<ImportedResource>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// Set to defer the import (only when deferral is allowed).
    pub deferred: Option<Deferred>,
    /// The identity of each of `imported_resources`, by its index there
    /// (protocol 6.9): empty, or as long, `None` where one has none. (A
    /// list beside the objects rather than a field of [`ImportedResource`],
    /// so providers that build those with all their fields keep compiling.)
    pub identities: Vec<Option<Value>>,
}

/// `MoveResourceState`.
#[derive(Clone, Debug)]
pub struct MoveResourceStateRequest {
    /// The provider the state comes from.
    pub source_provider_address: String,
    /// The resource type it comes from.
    pub source_type_name: String,
    /// That type's schema version.
    pub source_schema_version: i64,
    /// The state as stored.
    pub source_state: RawState,
    /// The resource type to move it to (one of this provider's).
    pub target_type_name: String,
    /// The private data stored with it.
    pub source_private: Vec<u8>,
    /// The identity stored with it (protocol 6.9), as JSON at the source
    /// type's identity schema; `None` when there is none.
    pub source_identity: Option<RawState>,
    /// The version of the identity schema it was stored with.
    pub source_identity_schema_version: i64,
}

/// The answer to `MoveResourceState`.
#[derive(Clone, Debug)]
pub struct MoveResourceStateResponse {
    /// The state at the target type's schema.
    pub target_state: Value,
    /// Private data to store with it.
    pub target_private: Vec<u8>,
    /// Warnings.
    pub diagnostics: Diagnostics,
    /// The identity at the target type's identity schema (protocol 6.9).
    pub target_identity: Option<Value>,
}

impl MoveResourceStateResponse {
    /// The moved state, with nothing else.
    pub fn new(target_state: Value) -> Self {
        MoveResourceStateResponse {
            target_state,
            target_private: Vec::new(),
            diagnostics: Diagnostics::new(),
            target_identity: None,
        }
    }
}

/// `UpgradeResourceIdentity` (protocol 6.9).
#[derive(Clone, Debug)]
pub struct UpgradeResourceIdentityRequest {
    /// The resource type.
    pub type_name: String,
    /// The identity schema version the identity was stored with.
    pub version: i64,
    /// The stored identity (JSON).
    pub raw_identity: RawState,
    /// The implied type of the current identity schema: what the answer
    /// must be.
    pub current_type: Type,
}

/// The answer to `UpgradeResourceIdentity`.
#[derive(Clone, Debug)]
pub struct UpgradeResourceIdentityResponse {
    /// The identity at the current identity schema's type.
    pub upgraded_identity: Value,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `GenerateResourceConfig` (protocol 6.10): configuration for an object
/// Terraform imported, from its state.
#[derive(Clone, Debug)]
pub struct GenerateResourceConfigRequest {
    /// The resource type.
    pub type_name: String,
    /// The imported state.
    pub state: Value,
    /// The resource type's schema (what the default reads).
    pub schema: Schema,
}

/// The answer to `GenerateResourceConfig`.
#[derive(Clone, Debug)]
pub struct GenerateResourceConfigResponse {
    /// The configuration, at the resource schema's type.
    pub config: Value,
    /// Warnings.
    pub diagnostics: Diagnostics,
}
