//! The [`Provider`] trait and the requests and answers of each RPC, in
//! ctywire's terms: values already decoded at the schema's implied type,
//! paths as [`Path`](ctywire::Path), errors as [`Diagnostics`]. One module
//! per kind, as terraform-plugin-go's `tfprotov6` splits them; the trait
//! and the schemas of everything served live here.

use std::collections::BTreeMap;

use ctywire::schema::{IdentitySchema, Schema};
use ctywire::Value;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::stream::{ActionProgress, ListResults, StateChunkStream, StateChunks};

mod action;
mod capabilities;
mod data_source;
mod ephemeral_resource;
mod function;
mod list_resource;
mod resource;
mod state_store;

pub use action::*;
pub use capabilities::*;
pub use data_source::*;
pub use ephemeral_resource::*;
pub use function::*;
pub use list_resource::*;
pub use resource::*;
pub use state_store::*;

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
    /// State store types (protocol 6.11): each `state_store` block's
    /// schema.
    pub state_stores: BTreeMap<String, Schema>,
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

    /// Adds a state store type with this `state_store` block schema.
    pub fn state_store(mut self, name: impl Into<String>, schema: Schema) -> Self {
        self.state_stores.insert(name.into(), schema);
        self
    }
}

/// `ValidateProviderConfig`.
#[derive(Clone, Debug)]
pub struct ValidateProviderConfigRequest {
    /// The provider block, at the provider schema's type (may hold unknowns).
    pub config: Value,
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

    /// `ValidateStateStoreConfig` (protocol 6.11). Default: valid.
    async fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        let _ = req;
        Diagnostics::new()
    }

    /// `ConfigureStateStore` (protocol 6.11): Terraform proposes a chunk
    /// size, the answer chooses one. Default: not supported.
    async fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> Result<ConfigureStateStoreResponse, Diagnostics> {
        Err(not_supported("state stores", &req.type_name))
    }

    /// `ReadStateBytes` (protocol 6.11): sends the state's chunks through
    /// `chunks` (each waits while Terraform has not read the last). The
    /// diagnostics returned end the stream. Default: not supported.
    async fn read_state_bytes(
        &self,
        req: ReadStateBytesRequest,
        chunks: &StateChunks,
    ) -> Diagnostics {
        let _ = chunks;
        not_supported("state stores", &req.type_name)
    }

    /// `WriteStateBytes` (protocol 6.11): reads the state's chunks from
    /// `chunks`; the diagnostics returned are the answer. Default: not
    /// supported.
    async fn write_state_bytes(
        &self,
        req: WriteStateBytesRequest,
        chunks: &mut StateChunkStream,
    ) -> Diagnostics {
        let _ = chunks;
        not_supported("state stores", &req.type_name)
    }

    /// `LockState` (protocol 6.11). Default: not supported.
    async fn lock_state(&self, req: LockStateRequest) -> Result<LockStateResponse, Diagnostics> {
        Err(not_supported("state stores", &req.type_name))
    }

    /// `UnlockState` (protocol 6.11). Default: not supported.
    async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
        not_supported("state stores", &req.type_name)
    }

    /// `GetStates` (protocol 6.11). Default: not supported.
    async fn get_states(&self, req: GetStatesRequest) -> Result<GetStatesResponse, Diagnostics> {
        Err(not_supported("state stores", &req.type_name))
    }

    /// `DeleteState` (protocol 6.11). Default: not supported.
    async fn delete_state(&self, req: DeleteStateRequest) -> Diagnostics {
        not_supported("state stores", &req.type_name)
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
