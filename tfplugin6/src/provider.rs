//! The [`Provider`] trait and the requests and answers of each RPC, in
//! ctywire's terms: values already decoded at the schema's implied type,
//! paths as [`Path`], errors as [`Diagnostics`].

use std::collections::BTreeMap;
use std::time::SystemTime;

use ctywire::schema::{IdentitySchema, Schema, StringKind};
use ctywire::{Error, Path, Type, Value};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::stream::{ActionProgress, ListResults};

/// Everything a provider serves, by name: what `GetProviderSchema` and
/// `GetMetadata` answer, and the types the server decodes each request
/// with. [`Provider::schemas`] is called once, when serving starts.
#[derive(Clone, Debug, Default)]
pub struct Schemas {
    /// The provider block's schema.
    pub provider: Schema,
    /// The `provider_meta` block's schema, if the provider has one.
    pub provider_meta: Option<Schema>,
    /// Managed resource types.
    pub resources: BTreeMap<String, Schema>,
    /// Data source types.
    pub data_sources: BTreeMap<String, Schema>,
    /// Ephemeral resource types.
    pub ephemeral_resources: BTreeMap<String, Schema>,
    /// Provider functions.
    pub functions: BTreeMap<String, Function>,
    /// Identity schemas of managed resource types (protocol 6.9), by the
    /// resource type's name; a type without one has no identity.
    pub identities: BTreeMap<String, IdentitySchema>,
    /// List resource types (protocol 6.10): the schema of each list
    /// block's `config` block, by the name of the managed resource type
    /// it lists (which must have an identity schema).
    pub list_resources: BTreeMap<String, Schema>,
    /// Action types (protocol 6.10): each action's configuration schema.
    pub actions: BTreeMap<String, Schema>,
    /// What the provider supports beyond the basics.
    pub server_capabilities: ServerCapabilities,
}

impl Schemas {
    /// A provider with this configuration schema and nothing else yet.
    pub fn new(provider: Schema) -> Self {
        Schemas {
            provider,
            ..Default::default()
        }
    }

    /// Adds a managed resource type.
    pub fn resource(mut self, name: impl Into<String>, schema: Schema) -> Self {
        self.resources.insert(name.into(), schema);
        self
    }

    /// Adds a data source type.
    pub fn data_source(mut self, name: impl Into<String>, schema: Schema) -> Self {
        self.data_sources.insert(name.into(), schema);
        self
    }

    /// Adds an ephemeral resource type.
    pub fn ephemeral_resource(mut self, name: impl Into<String>, schema: Schema) -> Self {
        self.ephemeral_resources.insert(name.into(), schema);
        self
    }

    /// Adds a function.
    pub fn function(mut self, name: impl Into<String>, function: Function) -> Self {
        self.functions.insert(name.into(), function);
        self
    }

    /// Gives the managed resource type `name` an identity schema.
    pub fn identity(mut self, name: impl Into<String>, schema: IdentitySchema) -> Self {
        self.identities.insert(name.into(), schema);
        self
    }

    /// Adds a list resource type: `name` is the managed resource type it
    /// lists, `config` the schema of a list block's `config` block.
    pub fn list_resource(mut self, name: impl Into<String>, config: Schema) -> Self {
        self.list_resources.insert(name.into(), config);
        self
    }

    /// Adds an action type with this configuration schema.
    pub fn action(mut self, name: impl Into<String>, schema: Schema) -> Self {
        self.actions.insert(name.into(), schema);
        self
    }
}

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

/// A provider function's signature (`Function`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    /// The positional parameters.
    pub parameters: Vec<Parameter>,
    /// The parameter any further arguments are of.
    pub variadic_parameter: Option<Parameter>,
    /// The result's type.
    pub return_type: Type,
    /// A one-line summary.
    pub summary: String,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
    /// Non-empty when deprecated: why.
    pub deprecation_message: String,
}

/// A function parameter (`Function.Parameter`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameter {
    /// Its name, for documentation and errors.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether a null may be passed.
    pub allow_null_value: bool,
    /// Whether an unknown may be passed (otherwise Terraform does not call
    /// the function and the result is unknown).
    pub allow_unknown_values: bool,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
}

impl Parameter {
    /// A parameter of type `ty`.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Parameter {
            name: name.into(),
            ty,
            ..Default::default()
        }
    }
}

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

/// `ValidateProviderConfig`.
#[derive(Clone, Debug)]
pub struct ValidateProviderConfigRequest {
    /// The provider block, at the provider schema's type (may hold unknowns).
    pub config: Value,
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

/// `ValidateDataResourceConfig`.
#[derive(Clone, Debug)]
pub struct ValidateDataResourceConfigRequest {
    /// The data source type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
}

/// `ValidateEphemeralResourceConfig`.
#[derive(Clone, Debug)]
pub struct ValidateEphemeralResourceConfigRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The configuration (may hold unknowns).
    pub config: Value,
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

/// `ConfigureProvider`.
#[derive(Clone, Debug)]
pub struct ConfigureProviderRequest {
    /// Terraform's version.
    pub terraform_version: String,
    /// The provider block (may hold unknowns, when deferral is allowed).
    pub config: Value,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
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

/// `CallFunction`.
#[derive(Clone, Debug)]
pub struct CallFunctionRequest {
    /// The function's name.
    pub name: String,
    /// The arguments, each at its parameter's type (variadic ones at the
    /// variadic parameter's).
    pub arguments: Vec<Value>,
}

/// A function's failure (`FunctionError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    /// What went wrong.
    pub text: String,
    /// The argument at fault, counting from 0.
    pub function_argument: Option<i64>,
}

impl FunctionError {
    /// A failure not tied to one argument.
    pub fn new(text: impl Into<String>) -> Self {
        FunctionError {
            text: text.into(),
            function_argument: None,
        }
    }
}

fn not_supported(what: &str, type_name: &str) -> Diagnostics {
    Diagnostic::error(format!("{what} is not supported"))
        .with_detail(format!(
            "this provider does not implement {what} (for {type_name:?})"
        ))
        .into()
}

/// A Terraform provider, in ctywire's terms. Only [`schemas`](Self::schemas)
/// is required; every other method has a default (below) that either
/// accepts (validation) or answers "not supported".
///
/// The server ([`serve`](crate::serve), or [`ProviderService`](crate::ProviderService))
/// decodes every request's values at the implied type of the schema the
/// request's type name selects, so a method never sees a value of another
/// type; a value that cannot be decoded never reaches the provider (it
/// becomes an error diagnostic at its path). Answers are encoded the same
/// way; a value that does not conform is an error diagnostic at its path.
///
/// Write-only attributes: the server nulls them in every state it sends
/// back (plan, apply, read, import, upgrade, move), as Terraform requires,
/// so a provider may return the configuration's values as they are.
///
/// Each method that answers with data returns `Err(diagnostics)` to fail;
/// the diagnostics in an `Ok` answer are sent along (warnings). The ones
/// that answer with diagnostics only (validation, `ConfigureProvider`,
/// `CloseEphemeralResource`) return [`Diagnostics`]: an error-severity
/// diagnostic among them is the failure.
///
/// A [`Deferred`] answer is only for a request whose
/// [`ClientCapabilities::deferral_allowed`] is set; otherwise the server
/// turns it into an error diagnostic, as terraform-plugin-go's servers do.
///
/// Stopping: when Terraform calls `StopProvider` (the user pressed
/// Ctrl-C), the server drops every call in flight, which cancels it at its
/// current `.await` (dropping a `tokio::process::Child` spawned with
/// `kill_on_drop`, say, kills it), answers each with an error diagnostic
/// saying the provider was stopped, and then calls
/// [`stop_provider`](Self::stop_provider). Calls made after that run
/// normally. Work that outlives a call (a spawned task) can await the
/// call's [`StopSignal`](crate::StopSignal), from
/// [`StopSignal::current`](crate::StopSignal::current) inside the call.
#[async_trait::async_trait]
pub trait Provider: Send + Sync + 'static {
    /// The schemas of the provider, its resources, data sources,
    /// ephemeral resources and functions. Called once, when serving starts.
    fn schemas(&self) -> Schemas;

    /// `ValidateProviderConfig`. Default: valid.
    async fn validate_provider_config(&self, req: ValidateProviderConfigRequest) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ValidateResourceConfig`. Default: valid.
    async fn validate_resource_config(&self, req: ValidateResourceConfigRequest) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ValidateDataResourceConfig`. Default: valid.
    async fn validate_data_resource_config(
        &self,
        req: ValidateDataResourceConfigRequest,
    ) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ValidateEphemeralResourceConfig`. Default: valid.
    async fn validate_ephemeral_resource_config(
        &self,
        req: ValidateEphemeralResourceConfigRequest,
    ) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `UpgradeResourceState`. Default: the stored JSON (or flatmap)
    /// decoded at the current schema's type, as it is; a state that does
    /// not fit (an attribute since removed, say) is an error at its path.
    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> Result<UpgradeResourceStateResponse, Diagnostics> {
        let upgraded_state = req.raw_state.decode(&req.current_type)?;
        Ok(UpgradeResourceStateResponse {
            upgraded_state,
            diagnostics: Diagnostics::new(),
        })
    }

    /// `ConfigureProvider`. Default: nothing to configure.
    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ReadResource`. Default: the state is as stored.
    async fn read_resource(
        &self,
        req: ReadResourceRequest,
    ) -> Result<ReadResourceResponse, Diagnostics> {
        Ok(ReadResourceResponse {
            private: req.private,
            new_identity: req.current_identity,
            ..ReadResourceResponse::new(req.current_state)
        })
    }

    /// `PlanResourceChange`. Default: not supported.
    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        Err(not_supported("PlanResourceChange", &req.type_name))
    }

    /// `ApplyResourceChange`. Default: not supported.
    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        Err(not_supported("ApplyResourceChange", &req.type_name))
    }

    /// `ImportResourceState`. Default: "import not supported".
    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> Result<ImportResourceStateResponse, Diagnostics> {
        Err(not_supported("import", &req.type_name))
    }

    /// `MoveResourceState`. Default: not supported.
    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> Result<MoveResourceStateResponse, Diagnostics> {
        Err(not_supported(
            "moving resource state",
            &req.target_type_name,
        ))
    }

    /// `ReadDataSource`. Default: not supported.
    async fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, Diagnostics> {
        Err(not_supported("ReadDataSource", &req.type_name))
    }

    /// `OpenEphemeralResource`. Default: not supported.
    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics> {
        Err(not_supported("ephemeral resources", &req.type_name))
    }

    /// `RenewEphemeralResource`. Default: not supported.
    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics> {
        Err(not_supported("ephemeral resources", &req.type_name))
    }

    /// `CloseEphemeralResource`. Default: not supported.
    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        not_supported("ephemeral resources", &req.type_name)
    }

    /// `CallFunction`. Default: not supported.
    async fn call_function(&self, req: CallFunctionRequest) -> Result<Value, FunctionError> {
        Err(FunctionError::new(format!(
            "this provider does not implement the function {:?}",
            req.name
        )))
    }

    /// `UpgradeResourceIdentity` (protocol 6.9). Default: the stored JSON
    /// decoded at the current identity schema's type, as it is.
    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> Result<UpgradeResourceIdentityResponse, Diagnostics> {
        let upgraded_identity = req.raw_identity.decode(&req.current_type)?;
        Ok(UpgradeResourceIdentityResponse {
            upgraded_identity,
            diagnostics: Diagnostics::new(),
        })
    }

    /// `GenerateResourceConfig` (protocol 6.10). Default:
    /// [`generated_config`](crate::generated_config), the state without
    /// what a configuration cannot set, read from the schema.
    async fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> Result<GenerateResourceConfigResponse, Diagnostics> {
        Ok(GenerateResourceConfigResponse {
            config: crate::generated_config(&req.schema.block, req.state)?,
            diagnostics: Diagnostics::new(),
        })
    }

    /// `ValidateListResourceConfig` (protocol 6.10). Default: valid.
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ListResource` (protocol 6.10): sends each object found through
    /// `results` (which waits while Terraform has not read the last ones,
    /// so nothing piles up) and stops when `send` fails (Terraform has
    /// what it asked for, or went away). The diagnostics returned end the
    /// stream (an error among them fails the list). Default: not supported.
    async fn list_resource(&self, req: ListResourceRequest, results: &ListResults) -> Diagnostics {
        let _ = results;
        not_supported("list resources", &req.type_name)
    }

    /// `ValidateActionConfig` (protocol 6.10). Default: valid.
    async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `PlanAction` (protocol 6.10). Default: nothing to say.
    async fn plan_action(&self, req: PlanActionRequest) -> Result<PlanActionResponse, Diagnostics> {
        let _ = req;
        Ok(PlanActionResponse::default())
    }

    /// `InvokeAction` (protocol 6.10): runs the action, telling Terraform
    /// how it goes through `progress` (in order; `send` waits while
    /// Terraform has not read the last messages). The diagnostics returned
    /// are the stream's final `Completed` event. Default: not supported.
    async fn invoke_action(
        &self,
        req: InvokeActionRequest,
        progress: &ActionProgress,
    ) -> Diagnostics {
        let _ = progress;
        not_supported("actions", &req.action_type)
    }

    /// `StopProvider`: Terraform asks the provider to stop what it is doing
    /// (the user pressed Ctrl-C). The server has already cancelled every
    /// call in flight when it calls this (see the trait's documentation):
    /// this is for cleaning up what those calls left. The process keeps
    /// serving until go-plugin's `Shutdown`. Default: nothing to do. An
    /// `Err` is reported to Terraform as the stop's error.
    async fn stop_provider(&self) -> Result<(), String> {
        Ok(())
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

/// `ValidateListResourceConfig` (protocol 6.10).
#[derive(Clone, Debug)]
pub struct ValidateListResourceConfigRequest {
    /// The list resource type.
    pub type_name: String,
    /// The `config` block (may hold unknowns).
    pub config: Value,
    /// The list block's `include_resource` (a bool, maybe unknown; null
    /// when not sent).
    pub include_resource_object: Value,
    /// The list block's `limit` (a number, maybe unknown; null when not
    /// sent).
    pub limit: Value,
}

/// `ListResource` (protocol 6.10): the objects a `list` block finds.
#[derive(Clone, Debug)]
pub struct ListResourceRequest {
    /// The list resource type: the managed resource type listed.
    pub type_name: String,
    /// The `config` block.
    pub config: Value,
    /// Whether each result should carry the object's state.
    pub include_resource_object: bool,
    /// How many results Terraform reads (0 or less: no limit was sent);
    /// [`ListResults::send`] says when it is reached.
    pub limit: i64,
}

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
