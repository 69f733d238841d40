//! The provider as Terraform sees it: [`Framework`] answers every RPC by
//! dispatching to the type registered under its name ([`Builder`](crate::Builder)). Each
//! handler is the same few steps: find the type, read the request's values
//! into its model, call it, check the answer as Terraform will, write it.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use ctywire::schema::Schema;
use ctywire::Value;
use ctywire_tfplugin6 as tf;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, FunctionError};

use crate::builder::{FunctionKind, Kind};
use crate::checks;
use crate::context::Context;
use crate::erased::{AnyAction, AnyDataSource, AnyEphemeral, AnyList, AnyResource};
use crate::list::only_ended;
use crate::plan::{keep_meaning, plan_with};
use crate::plan_hook::PlanChange;
use crate::provider::Provider;
use crate::schema::Block;
use crate::state_store::{AnyStateStore, LockInfo};
use crate::timeouts;
use crate::validate::{presence, validate};
use crate::values::read_config;

/// A provider built on the framework: the raw protocol's
/// [`Provider`](ctywire_tfplugin6::Provider), dispatching each call to the
/// type registered under its name.
pub struct Framework<P: Provider> {
    pub(crate) provider: P,
    pub(crate) config_block: Block,
    pub(crate) config_schema: Schema,
    pub(crate) resources: BTreeMap<String, Kind<dyn AnyResource<P::Data>>>,
    pub(crate) data_sources: BTreeMap<String, Kind<dyn AnyDataSource<P::Data>>>,
    pub(crate) ephemerals: BTreeMap<String, Kind<dyn AnyEphemeral<P::Data>>>,
    pub(crate) lists: BTreeMap<String, Kind<dyn AnyList<P::Data>>>,
    pub(crate) actions: BTreeMap<String, Kind<dyn AnyAction<P::Data>>>,
    pub(crate) state_stores: BTreeMap<String, Kind<dyn AnyStateStore<P::Data>>>,
    pub(crate) functions: BTreeMap<String, FunctionKind>,
    /// Whether Terraform is asked to plan destroys with the provider
    /// ([`Builder::plan_destroy`](crate::Builder::plan_destroy)).
    pub(crate) plan_destroy: bool,
    pub(crate) data: RwLock<Option<Arc<P::Data>>>,
    /// What `ConfigureProvider` said Terraform's version is: a lock's
    /// information names it.
    pub(crate) terraform_version: RwLock<String>,
}

/// Each registered type's protocol schema, by name.
fn schemas_of<T: ?Sized>(map: &BTreeMap<String, Kind<T>>) -> BTreeMap<String, Schema> {
    map.iter()
        .map(|(n, k)| (n.clone(), k.schema.clone()))
        .collect()
}

/// The registered type `name`, or the error Terraform shows when it asks
/// for one the provider does not have.
fn find<'a, T: ?Sized>(
    map: &'a BTreeMap<String, Kind<T>>,
    what: &str,
    name: &str,
) -> Result<&'a Kind<T>, Diagnostics> {
    map.get(name).ok_or_else(|| {
        Diagnostic::error(format!("Unknown {what} type"))
            .with_detail(format!("this provider has no {what} named {name:?}"))
            .into()
    })
}

/// Refuses to plan or read with computed blocks for a Terraform that did
/// not say it handles them: before 1.16 core ignores `Block.computed` and
/// would treat what the provider sets there as configuration gone missing.
fn computed_blocks_allowed(
    what: &str,
    type_name: &str,
    block: &Block,
    caps: tf::ClientCapabilities,
) -> Result<(), Diagnostics> {
    fn computed(block: &Block, prefix: &str, found: &mut Vec<String>) {
        for b in &block.blocks {
            let at = format!("{prefix}.{}", b.name);
            if b.block.computed {
                // Everything inside a computed block is computed too.
                found.push(at);
            } else {
                computed(&b.block, &at, found);
            }
        }
    }
    if caps.computed_blocks_allowed {
        return Ok(());
    }
    let mut found = Vec::new();
    computed(block, "", &mut found);
    if found.is_empty() {
        return Ok(());
    }
    Err(Diagnostic::error("Computed blocks not supported by this Terraform")
        .with_detail(format!(
            "The {what} {type_name} has blocks the provider computes ({}). They need Terraform 1.16 or newer (plugin protocol 6.11), which says so with the computed_blocks_allowed client capability; this Terraform did not. Upgrade Terraform to use {type_name}.",
            found.join(", ")
        ))
        .into())
}

impl<P: Provider> Framework<P> {
    /// Serves the built provider as Terraform launches it (go-plugin's
    /// handshake on stdout), logging to Terraform's log (`TF_LOG`). For a
    /// program that must clean up after a schema problem:
    /// [`Builder::build`](crate::Builder::build) first, then this.
    pub async fn serve(self) {
        // Logging to Terraform's log is serving's: tfplugin6 sets it up.
        tf::serve(self).await
    }

    /// The context of a call on `type_name`: fails until the provider is
    /// configured (Terraform always configures it first).
    fn context(&self, type_name: &str) -> Result<Context<P::Data>, Diagnostics> {
        let data = self
            .data
            .read()
            .map_err(|_| Diagnostics::error("the provider's data is unavailable"))?
            .clone();
        match data {
            Some(data) => Ok(Context::new(data, type_name)),
            None => Err(Diagnostic::error("Provider not configured")
                .with_detail(format!(
                    "{type_name} was used before the provider was configured"
                ))
                .into()),
        }
    }

    /// The identity of an object of `k` whose state is `state`: `None`
    /// when the type has no identity or there is no object.
    fn identity<T: ?Sized>(k: &Kind<T>, state: &Value) -> Option<Value> {
        (k.identity.is_some() && !state.is_null()).then(|| k.block.identity_of(state))
    }

    /// The validation of the type `name` of `map`: its model's
    /// validators, then its own checks (`own`).
    fn validate_kind<T: ?Sized>(
        map: &BTreeMap<String, Kind<T>>,
        what: &str,
        name: &str,
        config: &Value,
        own: impl Fn(&T, &Value) -> Diagnostics,
    ) -> Diagnostics {
        match find(map, what, name) {
            Ok(k) => Self::validate_with(&k.block, config, own(&k.imp, config)),
            Err(d) => d,
        }
    }

    /// Model validators, then the type's own checks.
    fn validate_with(block: &Block, config: &Value, own: Diagnostics) -> Diagnostics {
        let mut diags = validate(block, config);
        for d in own.into_vec() {
            diags.push(d);
        }
        diags
    }

    /// A destroy's plan (a null proposed state): null, whatever the type
    /// says, with its `plan_destroy` hook's diagnostics when there is an
    /// object to destroy. The prior private data goes on to the apply
    /// that deletes, as terraform-plugin-framework passes it, unless the
    /// hook set other data (plugin-framework's destroy plan may too).
    async fn plan_destroy(
        &self,
        k: &Kind<dyn AnyResource<P::Data>>,
        req: tf::PlanResourceChangeRequest,
    ) -> Result<tf::PlanResourceChangeResponse, Diagnostics> {
        let (diagnostics, planned_private) = if req.prior_state.is_null() {
            (Diagnostics::new(), req.prior_private)
        } else {
            let ctx = (self.context(&req.type_name)?).with_private(req.prior_private.clone());
            let diagnostics = k.imp.plan_destroy(&ctx, &req).await;
            (diagnostics, ctx.private_bytes())
        };
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        Ok(tf::PlanResourceChangeResponse {
            planned_private,
            diagnostics,
            ..tf::PlanResourceChangeResponse::new(req.proposed_new_state)
        })
    }
}

#[async_trait::async_trait]
impl<P: Provider> tf::Provider for Framework<P> {
    fn schemas(&self) -> tf::Schemas {
        tf::Schemas {
            identities: (self.resources.iter())
                .filter_map(|(n, k)| Some((n.clone(), k.identity.as_ref()?.0.clone())))
                .collect(),
            list_resources: schemas_of(&self.lists),
            actions: schemas_of(&self.actions),
            state_stores: schemas_of(&self.state_stores),
            provider: self.config_schema.clone(),
            provider_meta: None,
            resources: schemas_of(&self.resources),
            data_sources: schemas_of(&self.data_sources),
            ephemeral_resources: schemas_of(&self.ephemerals),
            functions: self
                .functions
                .iter()
                .map(|(n, f)| (n.clone(), f.signature.clone()))
                .collect(),
            server_capabilities: tf::ServerCapabilities {
                plan_destroy: self.plan_destroy,
                get_provider_schema_optional: true,
                move_resource_state: true,
                generate_resource_config: true,
            },
        }
    }

    async fn validate_provider_config(
        &self,
        req: tf::ValidateProviderConfigRequest,
    ) -> Diagnostics {
        let own = self.provider.validate(&req.config);
        Self::validate_with(&self.config_block, &req.config, own)
    }

    async fn validate_resource_config(
        &self,
        req: tf::ValidateResourceConfigRequest,
    ) -> Diagnostics {
        match find(&self.resources, "resource", &req.type_name) {
            Ok(k) => {
                let own = k.imp.validate(&req.config).await;
                Self::validate_with(&k.block, &req.config, own)
            }
            Err(d) => d,
        }
    }

    async fn validate_data_resource_config(
        &self,
        req: tf::ValidateDataResourceConfigRequest,
    ) -> Diagnostics {
        match find(&self.data_sources, "data source", &req.type_name) {
            Ok(k) => {
                let own = k.imp.validate(&req.config).await;
                Self::validate_with(&k.block, &req.config, own)
            }
            Err(d) => d,
        }
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: tf::ValidateEphemeralResourceConfigRequest,
    ) -> Diagnostics {
        match find(&self.ephemerals, "ephemeral resource", &req.type_name) {
            Ok(k) => {
                let own = k.imp.validate(&req.config).await;
                Self::validate_with(&k.block, &req.config, own)
            }
            Err(d) => d,
        }
    }

    async fn configure_provider(&self, req: tf::ConfigureProviderRequest) -> Diagnostics {
        if let Err(d) = presence(&self.config_block, &req.config) {
            return d;
        }
        let config = match read_config::<P::Config>(req.config) {
            Ok(c) => c,
            Err(d) => return d,
        };
        if let Ok(mut version) = self.terraform_version.write() {
            *version = req.terraform_version;
        }
        match self.provider.configure(config).await {
            Ok(data) => match self.data.write() {
                Ok(mut slot) => {
                    *slot = Some(Arc::new(data));
                    Diagnostics::new()
                }
                Err(_) => Diagnostics::error("the provider's data is unavailable"),
            },
            Err(d) => d,
        }
    }

    async fn upgrade_resource_state(
        &self,
        req: tf::UpgradeResourceStateRequest,
    ) -> Result<tf::UpgradeResourceStateResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        let upgraded_state = if req.version == k.schema.version {
            // The state is current: read as stored (what the default does
            // for every version), without needing the provider's data.
            req.raw_state.decode(&k.ty)?
        } else {
            let ctx = (self.context(&req.type_name)?).with_upgraders(k.upgraders.clone());
            let state = k
                .imp
                .upgrade_state(&ctx, req.version, req.raw_state)
                .await?;
            // Core refuses an upgraded state with unknowns ("Invalid
            // resource state upgrade"); said here naming the attribute.
            checks::wholly_known(&req.type_name, "state upgrade", &state)?;
            state
        };
        Ok(tf::UpgradeResourceStateResponse {
            upgraded_state,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn read_resource(
        &self,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        let limit = timeouts::limit(&k.block, "read", &req.current_state)?;
        let ctx = (self.context(&req.type_name)?)
            .with_private(req.private.clone())
            .with_deadline(limit.as_ref().and_then(timeouts::Limit::deadline));
        let (type_name, current) = (req.type_name.clone(), req.current_state.clone());
        let read = k.imp.read(&ctx, req, &k.ty);
        let mut answer = timeouts::within(limit, &type_name, "read", read).await?;
        answer.new_state = keep_meaning(&k.block, &current, answer.new_state);
        checks::wholly_known(&type_name, "read", &answer.new_state)?;
        answer.new_identity = Self::identity(k, &answer.new_state);
        Ok(answer)
    }

    async fn plan_resource_change(
        &self,
        req: tf::PlanResourceChangeRequest,
    ) -> Result<tf::PlanResourceChangeResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        if req.proposed_new_state.is_null() {
            return self.plan_destroy(k, req).await;
        }
        computed_blocks_allowed(
            "resource",
            &req.type_name,
            &k.block,
            req.client_capabilities,
        )?;
        // Validation refuses these; a client may plan without validating.
        presence(&k.block, &req.config)?;
        let planned = plan_with(
            &k.block,
            &k.forms,
            &req.prior_state,
            &req.config,
            &req.proposed_new_state,
        )?;
        let mut change = PlanChange {
            prior: req.prior_state.clone(),
            config: req.config.clone(),
            planned: planned.planned_state,
            requires_replace: planned.requires_replace,
            diagnostics: Diagnostics::new(),
        };
        // On the plan just before apply, Terraform 1.16 (6.11,
        // store_planned_private) sends what the first plan answered: what
        // the author planned then, not the prior data, is this plan's.
        let private = if req.planned_private.is_empty() {
            req.prior_private.clone()
        } else {
            req.planned_private.clone()
        };
        let ctx = (self.context(&req.type_name)?).with_private(private.clone());
        let planned_private = k.imp.modify_plan(&ctx, &req, &mut change).await?;
        if change.diagnostics.has_errors() {
            return Err(change.diagnostics);
        }
        checks::plan(
            &req.type_name,
            &k.schema.block,
            &change.prior,
            &change.config,
            &change.planned,
        )?;
        // The identity as planned; where the plan leaves part of it
        // unknown, an object that stays keeps the identity it has (only
        // one created or replaced may have one not yet known).
        let planned_identity = match Self::identity(k, &change.planned) {
            Some(id) if !id.is_wholly_known() && change.requires_replace.is_empty() => {
                req.prior_identity.or(Some(id))
            }
            id => id,
        };
        Ok(tf::PlanResourceChangeResponse {
            requires_replace: change.requires_replace,
            // Nothing planned: the private data this plan was given.
            planned_private: planned_private.unwrap_or(private),
            planned_identity,
            diagnostics: change.diagnostics,
            ..tf::PlanResourceChangeResponse::new(change.planned)
        })
    }

    async fn apply_resource_change(
        &self,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        let ctx = (self.context(&req.type_name)?).with_private(req.planned_private.clone());
        let (type_name, planned) = (req.type_name.clone(), req.planned_state.clone());
        let what = match (req.prior_state.is_null(), planned.is_null()) {
            (_, true) => "delete",
            (true, false) => "create",
            (false, false) => "update",
        };
        if !planned.is_null() {
            // A client may apply without planning: the same rule as at plan.
            presence(&k.block, &req.config)?;
        }
        let object = if planned.is_null() {
            &req.prior_state
        } else {
            &planned
        };
        let limit = timeouts::limit(&k.block, what, object)?;
        let ctx = ctx.with_deadline(limit.as_ref().and_then(timeouts::Limit::deadline));
        let applied = k.imp.apply(&ctx, req, &k.ty);
        let mut answer = timeouts::within(limit, &type_name, what, applied).await?;
        answer.new_state = k.schema.block.null_write_only(answer.new_state)?;
        answer.new_state = keep_meaning(&k.block, &planned, answer.new_state);
        // An apply that failed part-way answers the object as it is with
        // its errors, and Terraform keeps it (tainted when just created):
        // holding it to the plan would lose it.
        if !planned.is_null() && !answer.diagnostics.has_errors() {
            checks::wholly_known(&type_name, what, &answer.new_state)?;
            checks::applied(
                &type_name,
                what,
                &k.schema.block,
                &planned,
                &answer.new_state,
            )?;
        }
        answer.new_identity = Self::identity(k, &answer.new_state);
        Ok(answer)
    }

    async fn import_resource_state(
        &self,
        req: tf::ImportResourceStateRequest,
    ) -> Result<tf::ImportResourceStateResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        let ctx = self.context(&req.type_name)?;
        // An import block names the object by id or (protocol 6.9) by
        // identity; Terraform sends the id empty then.
        let (imported, named) = match req.identity {
            Some(identity) if req.id.is_empty() => {
                let named = format!("the identity {identity}");
                (k.imp.import_identity(&ctx, identity, &k.ty).await?, named)
            }
            _ => {
                let named = format!("the id {:?}", req.id);
                (k.imp.import(&ctx, req.id, &k.ty).await?, named)
            }
        };
        let Some(state) = imported else {
            return Err(
                Diagnostic::error("Cannot import non-existent remote object")
                    .with_detail(format!("there is no {} with {named}", req.type_name))
                    .into(),
            );
        };
        checks::wholly_known(&req.type_name, "import", &state)?;
        Ok(tf::ImportResourceStateResponse {
            identities: vec![Self::identity(k, &state)],
            imported_resources: vec![tf::ImportedResource {
                type_name: req.type_name,
                state,
                // What import set (nothing else is there to keep).
                private: ctx.private_bytes(),
            }],
            diagnostics: Diagnostics::new(),
            deferred: None,
        })
    }

    async fn move_resource_state(
        &self,
        req: tf::MoveResourceStateRequest,
    ) -> Result<tf::MoveResourceStateResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.target_type_name)?;
        let ctx = (self.context(&req.target_type_name)?).with_private(req.source_private.clone());
        let target_type_name = req.target_type_name.clone();
        let target_state = k.imp.move_state(&ctx, req, &k.ty).await?;
        checks::wholly_known(&target_type_name, "move", &target_state)?;
        Ok(tf::MoveResourceStateResponse {
            target_identity: Self::identity(k, &target_state),
            // The source's private data belongs to its type (maybe to
            // another provider): the target keeps only what the move set.
            target_private: ctx.set_private_bytes(),
            ..tf::MoveResourceStateResponse::new(target_state)
        })
    }

    async fn read_data_source(
        &self,
        req: tf::ReadDataSourceRequest,
    ) -> Result<tf::ReadDataSourceResponse, Diagnostics> {
        let k = find(&self.data_sources, "data source", &req.type_name)?;
        computed_blocks_allowed(
            "data source",
            &req.type_name,
            &k.block,
            req.client_capabilities,
        )?;
        presence(&k.block, &req.config)?;
        let ctx = self.context(&req.type_name)?;
        let (state, diagnostics) = k.imp.read(&ctx, req.config, &k.ty).await?;
        // Terraform reads no state from a read that failed.
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        checks::wholly_known(&req.type_name, "read", &state)?;
        Ok(tf::ReadDataSourceResponse {
            diagnostics,
            ..tf::ReadDataSourceResponse::new(state)
        })
    }

    async fn open_ephemeral_resource(
        &self,
        req: tf::OpenEphemeralResourceRequest,
    ) -> Result<tf::OpenEphemeralResourceResponse, Diagnostics> {
        let k = find(&self.ephemerals, "ephemeral resource", &req.type_name)?;
        presence(&k.block, &req.config)?;
        let ctx = self.context(&req.type_name)?;
        let type_name = req.type_name.clone();
        let opened = k.imp.open(&ctx, req, &k.ty).await?;
        // Terraform reads no result from an open that failed.
        if !opened.diagnostics.has_errors() {
            checks::wholly_known(&type_name, "open", &opened.result)?;
        }
        Ok(opened)
    }

    async fn renew_ephemeral_resource(
        &self,
        req: tf::RenewEphemeralResourceRequest,
    ) -> Result<tf::RenewEphemeralResourceResponse, Diagnostics> {
        let k = find(&self.ephemerals, "ephemeral resource", &req.type_name)?;
        let ctx = self.context(&req.type_name)?;
        k.imp.renew(&ctx, req).await
    }

    async fn close_ephemeral_resource(
        &self,
        req: tf::CloseEphemeralResourceRequest,
    ) -> Diagnostics {
        let closed = async {
            let k = find(&self.ephemerals, "ephemeral resource", &req.type_name)?;
            let ctx = self.context(&req.type_name)?;
            Ok(k.imp.close(&ctx, req).await)
        };
        closed.await.unwrap_or_else(|d: Diagnostics| d)
    }

    async fn upgrade_resource_identity(
        &self,
        req: tf::UpgradeResourceIdentityRequest,
    ) -> Result<tf::UpgradeResourceIdentityResponse, Diagnostics> {
        let k = find(&self.resources, "resource", &req.type_name)?;
        let version = k.identity.as_ref().map_or(0, |(s, _)| s.version);
        let upgraded_identity = if req.version == version {
            req.raw_identity.decode(&req.current_type)?
        } else {
            let ctx = self.context(&req.type_name)?;
            let id = k
                .imp
                .upgrade_identity(&ctx, req.version, req.raw_identity)
                .await?;
            checks::wholly_known(&req.type_name, "identity upgrade", &id)?;
            id
        };
        Ok(tf::UpgradeResourceIdentityResponse {
            upgraded_identity,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn validate_list_resource_config(
        &self,
        req: tf::ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        let (name, config) = (&req.type_name, &req.config);
        Self::validate_kind(&self.lists, "list resource", name, config, |k, c| {
            k.validate(c)
        })
    }

    async fn list_resource(
        &self,
        req: tf::ListResourceRequest,
        results: &tf::ListResults,
    ) -> Diagnostics {
        let listed = async {
            let k = find(&self.lists, "list resource", &req.type_name)?;
            let r = find(&self.resources, "resource", &req.type_name)?;
            presence(&k.block, &req.config)?;
            let ctx = self.context(&req.type_name)?;
            k.imp.list(&ctx, req.config, results, &r.block, &r.ty).await
        };
        match listed.await {
            // The stream ended early (limit reached, Terraform gone): that
            // is no failure of the list.
            Err(d) if only_ended(&d) => Diagnostics::new(),
            Err(d) => d,
            Ok(()) => Diagnostics::new(),
        }
    }

    async fn validate_action_config(&self, req: tf::ValidateActionConfigRequest) -> Diagnostics {
        let (name, config) = (&req.type_name, &req.config);
        Self::validate_kind(&self.actions, "action", name, config, |k, c| k.validate(c))
    }

    /// Planning an action checks its configuration again (it may hold
    /// values unknown at validation): the model's rules and the action's,
    /// then, when they pass, the action's plan hook.
    async fn plan_action(
        &self,
        req: tf::PlanActionRequest,
    ) -> Result<tf::PlanActionResponse, Diagnostics> {
        let k = find(&self.actions, "action", &req.action_type)?;
        let mut diagnostics =
            Self::validate_with(&k.block, &req.config, k.imp.validate(&req.config));
        if !diagnostics.has_errors() {
            let ctx = self.context(&req.action_type)?;
            for d in k.imp.plan(&ctx, &req.config).await.into_vec() {
                diagnostics.push(d);
            }
        }
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        Ok(tf::PlanActionResponse {
            diagnostics,
            deferred: None,
        })
    }

    async fn invoke_action(
        &self,
        req: tf::InvokeActionRequest,
        progress: &tf::ActionProgress,
    ) -> Diagnostics {
        let invoked = async {
            let k = find(&self.actions, "action", &req.action_type)?;
            presence(&k.block, &req.config)?;
            let ctx = self.context(&req.action_type)?;
            k.imp.invoke(&ctx, req.config, progress).await
        };
        invoked.await.err().unwrap_or_default()
    }

    async fn validate_state_store_config(
        &self,
        req: tf::ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        let (name, config) = (&req.type_name, &req.config);
        Self::validate_kind(&self.state_stores, "state store", name, config, |k, c| {
            k.validate(c)
        })
    }

    async fn configure_state_store(
        &self,
        req: tf::ConfigureStateStoreRequest,
    ) -> Result<tf::ConfigureStateStoreResponse, Diagnostics> {
        let k = find(&self.state_stores, "state store", &req.type_name)?;
        presence(&k.block, &req.config)?;
        let ctx = self.context(&req.type_name)?;
        let proposed = req.capabilities.chunk_size;
        let chunk_size = k.imp.configure(&ctx, req.config, proposed).await?;
        Ok(tf::ConfigureStateStoreResponse {
            capabilities: tf::StateStoreServerCapabilities { chunk_size },
            diagnostics: Diagnostics::new(),
        })
    }

    async fn read_state_bytes(
        &self,
        req: tf::ReadStateBytesRequest,
        chunks: &tf::StateChunks,
    ) -> Diagnostics {
        let read = async {
            let k = find(&self.state_stores, "state store", &req.type_name)?;
            let ctx = self.context(&req.type_name)?;
            k.imp.read(&ctx, &req.state_id, chunks).await
        };
        read.await.err().unwrap_or_default()
    }

    async fn write_state_bytes(
        &self,
        req: tf::WriteStateBytesRequest,
        chunks: &mut tf::StateChunkStream,
    ) -> Diagnostics {
        let written = async {
            let k = find(&self.state_stores, "state store", &req.type_name)?;
            let ctx = self.context(&req.type_name)?;
            k.imp.write(&ctx, &req.state_id, chunks).await
        };
        written.await.err().unwrap_or_default()
    }

    async fn lock_state(
        &self,
        req: tf::LockStateRequest,
    ) -> Result<tf::LockStateResponse, Diagnostics> {
        let k = find(&self.state_stores, "state store", &req.type_name)?;
        let ctx = self.context(&req.type_name)?;
        let version = (self.terraform_version.read()).map_or_else(|_| String::new(), |v| v.clone());
        let info = LockInfo::new(&req.state_id, req.operation, version);
        k.imp.lock(&ctx, &req.state_id, &info).await?;
        Ok(tf::LockStateResponse {
            lock_id: info.id,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn unlock_state(&self, req: tf::UnlockStateRequest) -> Diagnostics {
        let unlocked = async {
            let k = find(&self.state_stores, "state store", &req.type_name)?;
            let ctx = self.context(&req.type_name)?;
            k.imp.unlock(&ctx, &req.state_id, &req.lock_id).await
        };
        unlocked.await.err().unwrap_or_default()
    }

    async fn get_states(
        &self,
        req: tf::GetStatesRequest,
    ) -> Result<tf::GetStatesResponse, Diagnostics> {
        let k = find(&self.state_stores, "state store", &req.type_name)?;
        let ctx = self.context(&req.type_name)?;
        Ok(tf::GetStatesResponse {
            state_ids: k.imp.states(&ctx).await?,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn delete_state(&self, req: tf::DeleteStateRequest) -> Diagnostics {
        let deleted = async {
            let k = find(&self.state_stores, "state store", &req.type_name)?;
            let ctx = self.context(&req.type_name)?;
            k.imp.delete(&ctx, &req.state_id).await
        };
        deleted.await.err().unwrap_or_default()
    }

    async fn call_function(&self, req: tf::CallFunctionRequest) -> Result<Value, FunctionError> {
        let f = self.functions.get(&req.name).ok_or_else(|| {
            FunctionError::new(format!(
                "this provider has no function named {:?}",
                req.name
            ))
        })?;
        let mut req = req;
        if let Some(element) = &f.variadic {
            // The fixed parameters, then one list of the trailing arguments.
            let fixed = f.parameter_names.len().saturating_sub(1);
            let rest = req.arguments.split_off(fixed.min(req.arguments.len()));
            let list = Value::list(element.clone(), rest).map_err(|e| FunctionError {
                text: format!("the variadic arguments do not make one list: {e}"),
                function_argument: i64::try_from(fixed).ok(),
            })?;
            req.arguments.push(list);
        }
        f.imp.call(req, &f.parameter_names).await
    }
}
