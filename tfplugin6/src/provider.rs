//! The [`Provider`] trait and the requests and answers of each RPC, in
//! ctywire's terms: values already decoded at the schema's implied type,
//! paths as [`Path`], errors as [`Diagnostics`].

use std::collections::BTreeMap;
use std::time::SystemTime;

use ctywire::schema::{Schema, StringKind};
use ctywire::{Error, Path, Type, Value};

use crate::diagnostics::{Diagnostic, Diagnostics};

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
}

impl ReadResourceResponse {
    /// The refreshed state, with no private data.
    pub fn new(new_state: Value) -> Self {
        ReadResourceResponse {
            new_state,
            private: Vec::new(),
            diagnostics: Diagnostics::new(),
            deferred: None,
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
}

impl ApplyResourceChangeResponse {
    /// The new state, with no private data.
    pub fn new(new_state: Value) -> Self {
        ApplyResourceChangeResponse {
            new_state,
            private: Vec::new(),
            diagnostics: Diagnostics::new(),
        }
    }
}

/// `ImportResourceState`.
#[derive(Clone, Debug)]
pub struct ImportResourceStateRequest {
    /// The resource type.
    pub type_name: String,
    /// The id given to `terraform import` or an `import` block.
    pub id: String,
    /// What Terraform accepts.
    pub client_capabilities: ClientCapabilities,
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
