//! Types whose schema is known only at runtime: a [`Block`](crate::schema::Block)
//! (or a function signature) built from data rather than derived from a
//! Rust type, and values handled as [`Value`]s of the type it implies. A
//! host serving another program's resources (a Seasonings plugin, say)
//! registers them with [`Builder::resource_with_schema`],
//! [`Builder::data_source_with_schema`],
//! [`Builder::ephemeral_resource_with_schema`] and
//! [`Builder::function_with_signature`], and gets the framework's plan
//! semantics, validation and consistency checks as a derived model does.
//!
//! [`Builder::resource_with_schema`]: crate::Builder::resource_with_schema
//! [`Builder::data_source_with_schema`]: crate::Builder::data_source_with_schema
//! [`Builder::ephemeral_resource_with_schema`]: crate::Builder::ephemeral_resource_with_schema
//! [`Builder::function_with_signature`]: crate::Builder::function_with_signature

use ctywire::{Type, Value};
use ctywire_tfplugin6::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, CallFunctionRequest,
    CloseEphemeralResourceRequest, Diagnostics, FunctionError, MoveResourceStateRequest,
    OpenEphemeralResourceRequest, OpenEphemeralResourceResponse, PlanResourceChangeRequest,
    RawState, ReadResourceRequest, ReadResourceResponse, RenewEphemeralResourceRequest,
    RenewEphemeralResourceResponse,
};

use crate::context::Context;
use crate::erased::{AnyDataSource, AnyEphemeral, AnyFunction, AnyResource};
use crate::plan_hook::PlanChange;

/// A managed resource type whose schema is a runtime value: the protocol's
/// requests with values at the type its block implies. The framework plans
/// (unknown computed attributes on create and change, the prior state kept
/// when nothing changed, requires-replace from the block) and checks
/// configuration, plans and applied states as Terraform will.
#[async_trait::async_trait]
pub trait DynResource<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// Checks beyond the block's own rules, on configuration that may
    /// hold unknowns (asynchronous: a host may ask its program). Default:
    /// none.
    async fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Adjusts (or replaces) the framework's `plan` of `req`, before the
    /// consistency checks; `Some` private data is planned instead of the
    /// private data `ctx` was given (the prior's; on Terraform 1.16's plan
    /// before apply, the first plan's). Default: the framework's plan as
    /// it is.
    async fn modify_plan(
        &self,
        ctx: &Context<D>,
        req: &PlanResourceChangeRequest,
        plan: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics> {
        let _ = (ctx, req, plan);
        Ok(None)
    }

    /// What to say about destroying the object `req` plans away (its
    /// proposed state null), for a provider that plans destroys
    /// ([`Builder::plan_destroy`](crate::Builder::plan_destroy)): warnings
    /// shown with the plan, or errors that stop it. The plan itself stays
    /// a destroy (Terraform accepts nothing else). Default: nothing to say.
    async fn plan_destroy(&self, ctx: &Context<D>, req: &PlanResourceChangeRequest) -> Diagnostics {
        let _ = (ctx, req);
        Diagnostics::new()
    }

    /// Creates, updates or (the planned state null) deletes the object. The
    /// planned state's unknowns arrive as unknowns. An answer with error
    /// diagnostics and a state keeps that object: Terraform stores it
    /// (tainted when it was being created), so nothing made is lost.
    async fn apply(
        &self,
        ctx: &Context<D>,
        req: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics>;

    /// Reads the object as it is now; a null state when it is gone.
    async fn read(
        &self,
        ctx: &Context<D>,
        req: ReadResourceRequest,
    ) -> Result<ReadResourceResponse, Diagnostics>;

    /// A state stored at an older schema `version` (the JSON or flatmap
    /// Terraform kept), at the current type. Default: not supported (an
    /// error naming the version). The framework reads a state at the
    /// current version itself.
    async fn upgrade_state(
        &self,
        ctx: &Context<D>,
        version: i64,
        state: RawState,
    ) -> Result<Value, Diagnostics> {
        let _ = state;
        Err(Diagnostics::error(format!(
            "{} cannot upgrade a state stored at schema version {version}",
            ctx.type_name()
        )))
    }

    /// The object `id` names, or `None`. Default: import is not supported.
    async fn import(&self, ctx: &Context<D>, id: String) -> Result<Option<Value>, Diagnostics> {
        let _ = id;
        Err(Diagnostics::error(format!(
            "{} cannot be imported",
            ctx.type_name()
        )))
    }
}

/// A data source type whose schema is a runtime value.
#[async_trait::async_trait]
pub trait DynDataSource<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// Checks beyond the block's own rules (asynchronous, as a
    /// resource's). Default: none.
    async fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Reads the data: `config` as Terraform sends it, computed attributes
    /// null; the answer, at the block's type, fills them in. The
    /// diagnostics beside it (warnings) reach Terraform with the value; an
    /// error among them fails the read as an `Err` does.
    async fn read(
        &self,
        ctx: &Context<D>,
        config: Value,
    ) -> Result<(Value, Diagnostics), Diagnostics>;
}

/// An ephemeral resource type whose schema is a runtime value: the
/// protocol's requests and answers (warnings included), the values at the
/// type its block implies. The framework checks the configuration and
/// that the opened value is wholly known.
#[async_trait::async_trait]
pub trait DynEphemeral<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// Checks beyond the block's own rules (asynchronous, as a
    /// resource's). Default: none.
    async fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Opens it: `req.config` as Terraform sends it, computed attributes
    /// null; the answer's result, at the block's type, fills them in.
    async fn open(
        &self,
        ctx: &Context<D>,
        req: OpenEphemeralResourceRequest,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics>;

    /// Renews it. Default: nothing to renew (the private data kept, no
    /// next renewal).
    async fn renew(
        &self,
        ctx: &Context<D>,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics> {
        let _ = ctx;
        Ok(RenewEphemeralResourceResponse {
            private: req.private,
            ..RenewEphemeralResourceResponse::default()
        })
    }

    /// Closes it. Default: nothing to close.
    async fn close(&self, ctx: &Context<D>, req: CloseEphemeralResourceRequest) -> Diagnostics {
        let _ = (ctx, req);
        Diagnostics::new()
    }
}

/// A provider function whose signature is a runtime value.
#[async_trait::async_trait]
pub trait DynFunction: Send + Sync + 'static {
    /// Calls it with the arguments Terraform sends (at the signature's
    /// parameter types); the result must be of its return type.
    async fn call(&self, arguments: Vec<Value>) -> Result<Value, FunctionError>;
}

/// A runtime-schema implementation behind an erased trait.
pub(crate) struct Dyn<T>(pub T);

#[async_trait::async_trait]
impl<D, R> AnyResource<D> for Dyn<R>
where
    D: Send + Sync + 'static,
    R: DynResource<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config).await
    }

    async fn apply(
        &self,
        ctx: &Context<D>,
        req: ApplyResourceChangeRequest,
        _ty: &Type,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        self.0.apply(ctx, req).await
    }

    async fn read(
        &self,
        ctx: &Context<D>,
        req: ReadResourceRequest,
        _ty: &Type,
    ) -> Result<ReadResourceResponse, Diagnostics> {
        self.0.read(ctx, req).await
    }

    async fn import(
        &self,
        ctx: &Context<D>,
        id: String,
        _ty: &Type,
    ) -> Result<Option<Value>, Diagnostics> {
        self.0.import(ctx, id).await
    }

    async fn import_identity(
        &self,
        ctx: &Context<D>,
        _identity: Value,
        _ty: &Type,
    ) -> Result<Option<Value>, Diagnostics> {
        Err(Diagnostics::error(format!(
            "{} cannot be imported by identity: it has no identity",
            ctx.type_name()
        )))
    }

    async fn upgrade_state(
        &self,
        ctx: &Context<D>,
        version: i64,
        state: RawState,
    ) -> Result<Value, Diagnostics> {
        self.0.upgrade_state(ctx, version, state).await
    }

    async fn upgrade_identity(
        &self,
        ctx: &Context<D>,
        _version: i64,
        _identity: RawState,
    ) -> Result<Value, Diagnostics> {
        Err(Diagnostics::error(format!(
            "{} has no identity to upgrade",
            ctx.type_name()
        )))
    }

    async fn move_state(
        &self,
        _ctx: &Context<D>,
        req: MoveResourceStateRequest,
        _ty: &Type,
    ) -> Result<Value, Diagnostics> {
        Err(Diagnostics::error(format!(
            "moving {} to this resource type is not supported",
            req.source_type_name
        )))
    }

    async fn modify_plan(
        &self,
        ctx: &Context<D>,
        req: &PlanResourceChangeRequest,
        plan: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics> {
        self.0.modify_plan(ctx, req, plan).await
    }

    async fn plan_destroy(&self, ctx: &Context<D>, req: &PlanResourceChangeRequest) -> Diagnostics {
        self.0.plan_destroy(ctx, req).await
    }
}

#[async_trait::async_trait]
impl<D, E> AnyEphemeral<D> for Dyn<E>
where
    D: Send + Sync + 'static,
    E: DynEphemeral<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config).await
    }

    async fn open(
        &self,
        ctx: &Context<D>,
        req: OpenEphemeralResourceRequest,
        _ty: &Type,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics> {
        self.0.open(ctx, req).await
    }

    async fn renew(
        &self,
        ctx: &Context<D>,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics> {
        self.0.renew(ctx, req).await
    }

    async fn close(&self, ctx: &Context<D>, req: CloseEphemeralResourceRequest) -> Diagnostics {
        self.0.close(ctx, req).await
    }
}

#[async_trait::async_trait]
impl<D, S> AnyDataSource<D> for Dyn<S>
where
    D: Send + Sync + 'static,
    S: DynDataSource<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config).await
    }

    async fn read(
        &self,
        ctx: &Context<D>,
        config: Value,
        _ty: &Type,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        self.0.read(ctx, config).await
    }
}

#[async_trait::async_trait]
impl<F: DynFunction> AnyFunction for Dyn<F> {
    async fn call(
        &self,
        req: CallFunctionRequest,
        _names: &[String],
    ) -> Result<Value, FunctionError> {
        self.0.call(req.arguments).await
    }
}
