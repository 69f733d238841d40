//! What each side supports beyond the basics (`ServerCapabilities`,
//! `ClientCapabilities`), and deferral (`Deferred`, protocol 6.6).

/// `ServerCapabilities`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerCapabilities {
    /// Terraform should call `PlanResourceChange` for destroys too (with a
    /// null proposed state).
    pub plan_destroy: bool,
    /// Terraform may skip `GetProviderSchema` and use a cached schema.
    pub get_provider_schema_optional: bool,
    /// The provider implements `MoveResourceState`.
    pub move_resource_state: bool,
    /// The provider answers `GenerateResourceConfig` (protocol 6.10);
    /// otherwise Terraform generates configuration for imports itself.
    pub generate_resource_config: bool,
}

/// `ClientCapabilities`: what this Terraform accepts in answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// The provider may answer with [`Deferred`].
    pub deferral_allowed: bool,
    /// Terraform knows about write-only attributes.
    pub write_only_attributes_allowed: bool,
    /// Terraform keeps the private data a plan answered and hands it back
    /// as [`PlanResourceChangeRequest::planned_private`](crate::PlanResourceChangeRequest::planned_private)
    /// on the plan it makes just before applying (protocol 6.11).
    pub store_planned_private: bool,
    /// Terraform handles blocks the provider computes
    /// (`Block::computed`, protocol 6.11); an older one ignores the flag,
    /// so a provider with computed blocks must refuse to work without it.
    pub computed_blocks_allowed: bool,
}

/// Why an operation is deferred to a later plan (`Deferred.Reason`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deferred {
    /// No reason given.
    #[default]
    Unknown,
    /// The resource's configuration has unknown values.
    ResourceConfigUnknown,
    /// The provider's configuration has unknown values.
    ProviderConfigUnknown,
    /// Something the resource needs does not exist yet.
    AbsentPrereq,
}
