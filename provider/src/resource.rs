//! Managed resources.

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, MoveResourceStateRequest, RawState};

use crate::context::Context;
use crate::hooks::ModelPlan;
use crate::identity::Identity;
use crate::model::Model;
use crate::plan_hook::PlanChange;
use crate::upgrade::StateUpgraders;

/// A managed resource type: its model (which is its schema) and the four
/// operations on it. Planning is the framework's: computed attributes the
/// configuration leaves null become unknown when the object changes,
/// unless declared otherwise on the model (`keep_state`, `same_as`,
/// `default`, `default_from`), and `requires_replace` attributes replace
/// it (on a condition, with `requires_replace(..)`). The hooks,
/// [`validate_model`](Self::validate_model) and
/// [`modify_plan_model`](Self::modify_plan_model), see the model (their
/// raw forms, `validate` and `modify_plan`, the values); see
/// the section "The order of planning" of [`modify_plan`](Self::modify_plan).
///
/// `D` is the provider's [`Data`](crate::Provider::Data).
///
/// # Blocking work
/// These methods run on the tokio runtime's worker threads, which also
/// serve Terraform's other calls (and `StopProvider`). Do not block them:
/// read and write files with `tokio::fs`, talk to services with an async
/// client, and hand anything that must block (a synchronous library, a
/// long computation) to `tokio::task::spawn_blocking` and `.await` it.
/// The kv example's store does all its file I/O through `tokio::fs`.
///
/// # Identity
/// Terraform 1.12 and later (protocol 6.9) store an *identity* with each
/// object: a small flat object that names it for good (for `import`
/// blocks by identity, list results, comparing objects). Here the
/// identity is the model's own attributes marked `#[model(identity)]`:
/// the identity schema is derived from them (their names, types and doc
/// comments), and every identity the framework sends (after read, plan,
/// apply, import and move) is read from the state at those attributes, so
/// the identity cannot disagree with the state. A model with no such
/// attribute has no identity. Bump [`IDENTITY_VERSION`](Self::IDENTITY_VERSION)
/// with [`upgrade_identity`](Self::upgrade_identity) when the identity
/// changes shape; an import by identity comes to
/// [`import_identity`](Self::import_identity).
///
/// ```
/// use ctywire_provider::Model;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Model)]
/// struct Entry {
///     /// The entry's key: it names the entry for good.
///     #[model(identity, requires_replace)]
///     key: String,
///     value: String,
/// }
///
/// let identity = Entry::block().identity_schema(0).unwrap();
/// assert_eq!(identity.identity_attributes[0].name, "key");
/// assert!(identity.identity_attributes[0].required_for_import);
/// ```
///
/// # Private state
/// What the provider must remember about an object but not show (an
/// etag, an id chosen at plan) is its private state: one serde type the
/// resource reads with [`Context::private`] and sets with
/// [`Context::set_private`] in any of these methods; the framework
/// carries it as Terraform does (plan → apply → state → read), and
/// [`Context::private`] says what each method gets.
#[async_trait::async_trait]
pub trait Resource<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// The resource's attributes and blocks.
    type Model: Model;

    /// The schema version; bump it with a [state upgrader](Self::state_upgraders)
    /// from the version before.
    const VERSION: i64 = 0;

    /// The identity schema's version (protocol 6.9; see [Identity](#identity)),
    /// apart from [`VERSION`](Self::VERSION); bump it with
    /// [`upgrade_identity`](Self::upgrade_identity).
    const IDENTITY_VERSION: i64 = 0;

    /// Creates the object the plan describes and returns its state. The
    /// plan's unknown values (what the provider decides) arrive as nulls;
    /// the answer must be wholly known and agree with every known planned
    /// value (the framework checks, and names the attribute if not).
    async fn create(&self, ctx: &Context<D>, plan: Self::Model)
        -> Result<Self::Model, Diagnostics>;

    /// Reads the object as it is now; `None` when it no longer exists
    /// (Terraform then plans to create it again).
    async fn read(
        &self,
        ctx: &Context<D>,
        state: Self::Model,
    ) -> Result<Option<Self::Model>, Diagnostics>;

    /// Changes the object from `prior` to what `plan` describes (unknowns
    /// as nulls) and returns its new state.
    async fn update(
        &self,
        ctx: &Context<D>,
        prior: Self::Model,
        plan: Self::Model,
    ) -> Result<Self::Model, Diagnostics>;

    /// Deletes the object.
    async fn delete(&self, ctx: &Context<D>, state: Self::Model) -> Result<(), Diagnostics>;

    /// `terraform import` / an `import` block: the object `id` names, in
    /// full (Terraform reads it again right after), or `None` when there
    /// is none. Default: import is not supported.
    async fn import(
        &self,
        ctx: &Context<D>,
        id: String,
    ) -> Result<Option<Self::Model>, Diagnostics> {
        let _ = id;
        Err(Diagnostics::error(format!(
            "{} cannot be imported",
            ctx.type_name()
        )))
    }

    /// An `import` block's `identity` (protocol 6.9): the object it names,
    /// in full, or `None` when there is none. Default: when the identity
    /// has one attribute, its value (as text) is the import id, given to
    /// [`import`](Self::import), as terraform-plugin-framework's
    /// `ImportStatePassthroughWithIdentity` does; with more, not supported.
    async fn import_identity(
        &self,
        ctx: &Context<D>,
        identity: Identity,
    ) -> Result<Option<Self::Model>, Diagnostics> {
        let id = identity.single_as_text().map_err(|why| {
            Diagnostics::from(
                Diagnostic::error(format!(
                    "{} cannot be imported by identity",
                    ctx.type_name()
                ))
                .with_detail(format!(
                    "{why}; importing by identity takes an identity of one attribute, set"
                )),
            )
        })?;
        self.import(ctx, id).await
    }

    /// An identity stored at identity schema version `version` (older
    /// than [`IDENTITY_VERSION`](Self::IDENTITY_VERSION)), at the current
    /// identity type. Default: the stored identity read at the current
    /// type as it is.
    async fn upgrade_identity(
        &self,
        ctx: &Context<D>,
        version: i64,
        identity: RawState,
    ) -> Result<Value, Diagnostics> {
        let _ = (ctx, version);
        Ok(identity.decode(&<Self::Model as Model>::block().identity_type())?)
    }

    /// The typed state upgraders: one per prior schema version, from
    /// that version's model to the current one (see [`StateUpgraders`]).
    /// Default: none, so a stored state is read at the current schema as
    /// it is (an attribute since removed is an error at its path). Called
    /// once, when the provider is built; every upgrade uses what it built.
    fn state_upgraders(&self) -> StateUpgraders<Self::Model> {
        StateUpgraders::new()
    }

    /// A state stored at schema version `version` (older than
    /// [`VERSION`](Self::VERSION) when the schema changed), at the current
    /// type: the raw form, for an upgrade [`state_upgraders`](Self::state_upgraders)
    /// cannot express (one that needs the provider's data). Default: the
    /// state upgraders'.
    async fn upgrade_state(
        &self,
        ctx: &Context<D>,
        version: i64,
        state: RawState,
    ) -> Result<Value, Diagnostics> {
        match ctx.upgraders::<Self::Model>() {
            Some(built) => built.upgrade(version, &state),
            // A context the server did not make (a unit test's).
            None => self.state_upgraders().upgrade(version, &state),
        }
    }

    /// `moved` from another resource type: the state at this type.
    /// Default: not supported.
    async fn move_state(
        &self,
        ctx: &Context<D>,
        req: MoveResourceStateRequest,
    ) -> Result<Self::Model, Diagnostics> {
        let _ = ctx;
        Err(Diagnostics::error(format!(
            "moving {} to this resource type is not supported",
            req.source_type_name
        )))
    }

    /// Checks beyond the model's validators, on the raw configuration,
    /// which may hold unknowns: for a model holding `Value`s. Runs after
    /// the model's validators; both run at `terraform validate` and again
    /// at plan, with what is known then. Default:
    /// [`validate_model`](Self::validate_model).
    fn validate(&self, config: &Value) -> Diagnostics {
        crate::hooks::check_model(config, |m| self.validate_model(m))
    }

    /// Checks beyond the model's validators, on the configuration read as
    /// the model. A field that may be unknown is an
    /// [`Unknowable`](ctywire::Unknowable); while the configuration holds
    /// an unknown in a field that is not, the check is deferred (not
    /// called), as an unknown defers the model's validators. Default:
    /// none.
    fn validate_model(&self, config: Self::Model) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Adjusts the framework's plan, on raw values: for a model holding
    /// `Value`s. Default: [`modify_plan_model`](Self::modify_plan_model).
    ///
    /// # The order of planning
    /// For an object created or updated (a destroy is planned null, and
    /// no hook is called):
    /// 1. the framework's rules, in one walk of the schema: write-only
    ///    attributes plan null; an attribute the configuration leaves
    ///    null takes its `default`, or its `default_from` sibling's
    ///    configured value; when that proposal equals the prior state,
    ///    the plan is the prior state; otherwise a computed attribute left
    ///    null is planned by `same_as`, `keep_state` or as unknown; last,
    ///    each `requires_replace` attribute whose planned value differs
    ///    from the prior one is marked, when its `requires_replace(..)`
    ///    condition (if any) says so;
    /// 2. this hook (or [`modify_plan_model`](Self::modify_plan_model)),
    ///    which sees that plan and its replacements and may change both;
    ///    an error in its diagnostics stops the plan;
    /// 3. the framework's checks of the final plan, core's
    ///    `AssertPlanValid`, each failure at its path.
    async fn modify_plan(
        &self,
        ctx: &Context<D>,
        plan: &mut PlanChange,
    ) -> Result<(), Diagnostics> {
        self.modify_plan_model(ctx, &mut ModelPlan::new(plan)).await
    }

    /// Adjusts the framework's plan, through the model: reads the
    /// configuration, prior and planned state as models, may replace the
    /// planned one and mark fields as replacing the object (by the
    /// model's `field_paths()`). Runs where
    /// [`modify_plan`](Self::modify_plan) runs.
    /// Default: the framework's plan as it is.
    ///
    /// ```
    /// use ctywire_provider::{async_trait, Context, Diagnostics, Model, ModelPlan, Resource, Result};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, Model)]
    /// struct Disk {
    ///     size: u64,
    /// }
    ///
    /// struct Disks;
    ///
    /// #[async_trait]
    /// impl Resource<()> for Disks {
    ///     type Model = Disk;
    ///     # async fn create(&self, _: &Context<()>, p: Disk) -> Result<Disk> { Ok(p) }
    ///     # async fn read(&self, _: &Context<()>, s: Disk) -> Result<Option<Disk>> { Ok(Some(s)) }
    ///     # async fn update(&self, _: &Context<()>, _: Disk, p: Disk) -> Result<Disk> { Ok(p) }
    ///     # async fn delete(&self, _: &Context<()>, _: Disk) -> Result<()> { Ok(()) }
    ///     // A disk grows in place; shrinking it makes a new one.
    ///     async fn modify_plan_model(&self, _: &Context<()>, plan: &mut ModelPlan<'_, Disk>) -> Result<()> {
    ///         if let Some(prior) = plan.prior()? {
    ///             if plan.planned()?.size < prior.size {
    ///                 plan.require_replace(Disk::field_paths().size);
    ///             }
    ///         }
    ///         Ok(())
    ///     }
    /// }
    /// ```
    async fn modify_plan_model(
        &self,
        ctx: &Context<D>,
        plan: &mut ModelPlan<'_, Self::Model>,
    ) -> Result<(), Diagnostics> {
        let _ = (ctx, plan);
        Ok(())
    }

    /// What to say about destroying the object `prior`, for a provider
    /// that plans destroys ([`Builder::plan_destroy`](crate::Builder::plan_destroy)):
    /// warnings shown with the plan, or errors that stop it. The plan
    /// itself stays a destroy. Default: nothing to say.
    async fn plan_destroy(&self, ctx: &Context<D>, prior: Self::Model) -> Diagnostics {
        let _ = (ctx, prior);
        Diagnostics::new()
    }
}
