//! Each kind's trait with its model erased: what the dispatcher holds per
//! type name. Every method takes and gives `Value`s; the model is read and
//! written here, once, through `values`.

use ctywire::{Type, Value};
use ctywire_tfplugin6::{
    ActionProgress, ApplyResourceChangeRequest, ApplyResourceChangeResponse, CallFunctionRequest,
    CloseEphemeralResourceRequest, Diagnostics, FunctionError, ListResults,
    MoveResourceStateRequest, OpenEphemeralResourceRequest, OpenEphemeralResourceResponse,
    PlanResourceChangeRequest, RawState, ReadResourceRequest, ReadResourceResponse,
    RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
};

use crate::action::{Action, Progress};
use crate::identity::Identity;
use crate::list::{ListResource, Listing};
use crate::schema::Block;

use crate::context::Context;
use crate::data_source::DataSource;
use crate::ephemeral::EphemeralResource;
use crate::function::Function;
use crate::model::AttributeType;
use crate::plan_hook::PlanChange;
use crate::resource::Resource;
use crate::values::{read_model, read_state, write_model};

/// A resource with its model erased.
#[async_trait::async_trait]
pub(crate) trait AnyResource<D>: Send + Sync {
    /// The type's own checks (a runtime-schema type may ask its program).
    async fn validate(&self, config: &Value) -> Diagnostics;
    /// Applies the change: create, update or (a null planned state)
    /// delete. An answer whose diagnostics hold errors keeps the object
    /// its state names (Terraform taints one just created).
    async fn apply(
        &self,
        ctx: &Context<D>,
        req: ApplyResourceChangeRequest,
        ty: &Type,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics>;
    async fn read(
        &self,
        ctx: &Context<D>,
        req: ReadResourceRequest,
        ty: &Type,
    ) -> Result<ReadResourceResponse, Diagnostics>;
    async fn import(
        &self,
        ctx: &Context<D>,
        id: String,
        ty: &Type,
    ) -> Result<Option<Value>, Diagnostics>;
    async fn import_identity(
        &self,
        ctx: &Context<D>,
        identity: Value,
        ty: &Type,
    ) -> Result<Option<Value>, Diagnostics>;
    async fn upgrade_state(
        &self,
        ctx: &Context<D>,
        version: i64,
        state: RawState,
    ) -> Result<Value, Diagnostics>;
    async fn upgrade_identity(
        &self,
        ctx: &Context<D>,
        version: i64,
        identity: RawState,
    ) -> Result<Value, Diagnostics>;
    async fn move_state(
        &self,
        ctx: &Context<D>,
        req: MoveResourceStateRequest,
        ty: &Type,
    ) -> Result<Value, Diagnostics>;
    /// Adjusts the framework's plan; `Some` private data replaces the
    /// prior private data as the planned one. A typed resource reads and
    /// sets private data through the context, which the server fills
    /// with the bytes each call carries.
    async fn modify_plan(
        &self,
        ctx: &Context<D>,
        req: &PlanResourceChangeRequest,
        plan: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics>;
    /// What to say about destroying the object `req` plans away (its
    /// proposed state null): warnings, or errors that stop the plan.
    async fn plan_destroy(&self, ctx: &Context<D>, req: &PlanResourceChangeRequest) -> Diagnostics;
}

/// A model-typed implementation behind an erased trait.
pub(crate) struct Typed<T>(pub T);

#[async_trait::async_trait]
impl<D, R> AnyResource<D> for Typed<R>
where
    D: Send + Sync + 'static,
    R: Resource<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config)
    }

    async fn apply(
        &self,
        ctx: &Context<D>,
        req: ApplyResourceChangeRequest,
        ty: &Type,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        let new_state = if req.planned_state.is_null() {
            let state = read_state::<R::Model>(req.prior_state, "prior")?;
            self.0.delete(ctx, state).await?;
            Value::null(ty.clone())
        } else if req.prior_state.is_null() {
            let plan = read_model::<R::Model>(req.planned_state)?;
            write_model(&self.0.create(ctx, plan).await?, ty)?
        } else {
            let prior = read_state::<R::Model>(req.prior_state, "prior")?;
            let plan = read_model::<R::Model>(req.planned_state)?;
            write_model(&self.0.update(ctx, prior, plan).await?, ty)?
        };
        // What the plan set, or what the author set now.
        Ok(ApplyResourceChangeResponse {
            private: private_kept(ctx, &new_state),
            ..ApplyResourceChangeResponse::new(new_state)
        })
    }

    async fn read(
        &self,
        ctx: &Context<D>,
        req: ReadResourceRequest,
        ty: &Type,
    ) -> Result<ReadResourceResponse, Diagnostics> {
        let state = read_state::<R::Model>(req.current_state, "current")?;
        let new_state = match self.0.read(ctx, state).await? {
            Some(model) => write_model(&model, ty)?,
            None => Value::null(ty.clone()),
        };
        Ok(ReadResourceResponse {
            private: private_kept(ctx, &new_state),
            ..ReadResourceResponse::new(new_state)
        })
    }

    async fn import(
        &self,
        ctx: &Context<D>,
        id: String,
        ty: &Type,
    ) -> Result<Option<Value>, Diagnostics> {
        match self.0.import(ctx, id).await? {
            Some(model) => write_model(&model, ty).map(Some),
            None => Ok(None),
        }
    }

    async fn import_identity(
        &self,
        ctx: &Context<D>,
        identity: Value,
        ty: &Type,
    ) -> Result<Option<Value>, Diagnostics> {
        match self.0.import_identity(ctx, Identity::new(identity)).await? {
            Some(model) => write_model(&model, ty).map(Some),
            None => Ok(None),
        }
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
        version: i64,
        identity: RawState,
    ) -> Result<Value, Diagnostics> {
        self.0.upgrade_identity(ctx, version, identity).await
    }

    async fn move_state(
        &self,
        ctx: &Context<D>,
        req: MoveResourceStateRequest,
        ty: &Type,
    ) -> Result<Value, Diagnostics> {
        write_model(&self.0.move_state(ctx, req).await?, ty)
    }

    async fn modify_plan(
        &self,
        ctx: &Context<D>,
        _req: &PlanResourceChangeRequest,
        plan: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics> {
        self.0.modify_plan(ctx, plan).await?;
        Ok(Some(ctx.private_bytes()))
    }

    async fn plan_destroy(&self, ctx: &Context<D>, req: &PlanResourceChangeRequest) -> Diagnostics {
        match read_state::<R::Model>(req.prior_state.clone(), "prior") {
            Ok(prior) => self.0.plan_destroy(ctx, prior).await,
            Err(d) => d,
        }
    }
}

/// The private bytes to store with `state`: the call's, unless the
/// object is gone (deleted, or found missing by read), which keeps none.
fn private_kept<D>(ctx: &Context<D>, state: &Value) -> Vec<u8> {
    let private = ctx.private_bytes();
    if state.is_null() {
        Vec::new()
    } else {
        private
    }
}

/// A data source with its model erased.
#[async_trait::async_trait]
pub(crate) trait AnyDataSource<D>: Send + Sync {
    async fn validate(&self, config: &Value) -> Diagnostics;
    /// The value read, with the warnings that go beside it.
    async fn read(
        &self,
        ctx: &Context<D>,
        config: Value,
        ty: &Type,
    ) -> Result<(Value, Diagnostics), Diagnostics>;
}

#[async_trait::async_trait]
impl<D, S> AnyDataSource<D> for Typed<S>
where
    D: Send + Sync + 'static,
    S: DataSource<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config)
    }

    async fn read(
        &self,
        ctx: &Context<D>,
        config: Value,
        ty: &Type,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let config = read_model::<S::Model>(config)?;
        let state = write_model(&self.0.read(ctx, config).await?, ty)?;
        Ok((state, Diagnostics::new()))
    }
}

/// An ephemeral resource with its model erased: the protocol's requests
/// and answers, so a runtime-schema type can answer warnings too.
#[async_trait::async_trait]
pub(crate) trait AnyEphemeral<D>: Send + Sync {
    async fn validate(&self, config: &Value) -> Diagnostics;
    async fn open(
        &self,
        ctx: &Context<D>,
        req: OpenEphemeralResourceRequest,
        ty: &Type,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics>;
    async fn renew(
        &self,
        ctx: &Context<D>,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics>;
    async fn close(&self, ctx: &Context<D>, req: CloseEphemeralResourceRequest) -> Diagnostics;
}

#[async_trait::async_trait]
impl<D, E> AnyEphemeral<D> for Typed<E>
where
    D: Send + Sync + 'static,
    E: EphemeralResource<D>,
{
    async fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config)
    }

    async fn open(
        &self,
        ctx: &Context<D>,
        req: OpenEphemeralResourceRequest,
        ty: &Type,
    ) -> Result<OpenEphemeralResourceResponse, Diagnostics> {
        let config = read_model::<E::Model>(req.config)?;
        let opened = self.0.open(ctx, config).await?;
        Ok(OpenEphemeralResourceResponse {
            result: write_model(&opened.result, ty)?,
            private: opened.private,
            renew_at: opened.renew_at,
            diagnostics: Diagnostics::new(),
            deferred: None,
        })
    }

    async fn renew(
        &self,
        ctx: &Context<D>,
        req: RenewEphemeralResourceRequest,
    ) -> Result<RenewEphemeralResourceResponse, Diagnostics> {
        let renewed = self.0.renew(ctx, req.private).await?;
        Ok(RenewEphemeralResourceResponse {
            renew_at: renewed.renew_at,
            private: renewed.private,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn close(&self, ctx: &Context<D>, req: CloseEphemeralResourceRequest) -> Diagnostics {
        self.0
            .close(ctx, req.private)
            .await
            .err()
            .unwrap_or_default()
    }
}

/// A function with its argument and result types erased.
#[async_trait::async_trait]
pub(crate) trait AnyFunction: Send + Sync {
    async fn call(
        &self,
        req: CallFunctionRequest,
        names: &[String],
    ) -> Result<Value, FunctionError>;
}

#[async_trait::async_trait]
impl<F: Function> AnyFunction for Typed<F> {
    async fn call(
        &self,
        req: CallFunctionRequest,
        names: &[String],
    ) -> Result<Value, FunctionError> {
        // The arguments, named by their parameters, read as the Args model:
        // one rule for reading values into Rust types, whatever the kind.
        let args = Value::object(names.iter().map(String::as_str).zip(req.arguments));
        let args = ctywire::from_value::<F::Args>(&args).map_err(|e| {
            let argument = match e.path().steps().first() {
                Some(ctywire::PathStep::Attr(name)) => names.iter().position(|n| n == name),
                _ => None,
            };
            FunctionError {
                text: e.to_string(),
                function_argument: argument.and_then(|i| i64::try_from(i).ok()),
            }
        })?;
        let output = self.0.call(args).await?;
        ctywire::to_value(&output, &F::Output::cty_type()).map_err(|e| {
            FunctionError::new(format!("the function's result does not fit its type: {e}"))
        })
    }
}

/// A list resource with its models erased.
#[async_trait::async_trait]
pub(crate) trait AnyList<D>: Send + Sync {
    fn validate(&self, config: &Value) -> Diagnostics;
    /// Lists into `results`; `block` and `ty` are the resource's.
    async fn list(
        &self,
        ctx: &Context<D>,
        config: Value,
        results: &ListResults,
        block: &Block,
        ty: &Type,
    ) -> Result<(), Diagnostics>;
}

#[async_trait::async_trait]
impl<D, L> AnyList<D> for Typed<L>
where
    D: Send + Sync + 'static,
    L: ListResource<D>,
{
    fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate_list(config)
    }

    async fn list(
        &self,
        ctx: &Context<D>,
        config: Value,
        results: &ListResults,
        block: &Block,
        ty: &Type,
    ) -> Result<(), Diagnostics> {
        let config = read_model::<L::Config>(config)?;
        let out = Listing::new(results, block, ty);
        self.0.list(ctx, config, &out).await
    }
}

/// An action with its configuration model erased.
#[async_trait::async_trait]
pub(crate) trait AnyAction<D>: Send + Sync {
    fn validate(&self, config: &Value) -> Diagnostics;
    async fn plan(&self, ctx: &Context<D>, config: &Value) -> Diagnostics;
    async fn invoke(
        &self,
        ctx: &Context<D>,
        config: Value,
        progress: &ActionProgress,
    ) -> Result<(), Diagnostics>;
}

#[async_trait::async_trait]
impl<D, A> AnyAction<D> for Typed<A>
where
    D: Send + Sync + 'static,
    A: Action<D>,
{
    fn validate(&self, config: &Value) -> Diagnostics {
        self.0.validate(config)
    }

    async fn plan(&self, ctx: &Context<D>, config: &Value) -> Diagnostics {
        match crate::hooks::checkable::<A::Config>(config) {
            Some(config) => self.0.plan(ctx, config).await,
            None => Diagnostics::new(),
        }
    }

    async fn invoke(
        &self,
        ctx: &Context<D>,
        config: Value,
        progress: &ActionProgress,
    ) -> Result<(), Diagnostics> {
        let config = read_model::<A::Config>(config)?;
        self.0.invoke(ctx, config, &Progress::new(progress)).await
    }
}
