//! List resources (protocol 6.10): the objects of a managed resource type
//! a `list` block finds, as a typed stream.

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, ListResourceResult, ListResults};

use crate::context::Context;
use crate::model::Model;
use crate::resource::Resource;
use crate::schema::Block;
use crate::values::write_model;

/// A list resource: finds the objects of the managed resource type it is
/// registered beside (same name, same Rust type), for Terraform's `list`
/// blocks (`terraform query`). Each object found is the resource's own
/// model, pushed to a [`Listing`]; the framework derives its identity
/// (the model's `identity` attributes: the resource must have some) and
/// sends the whole object only when Terraform asks for it
/// (`include_resource`).
///
/// ```no_run
/// # use ctywire_provider::{async_trait, Context, ListResource, Listing, Model, Resource, Result};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, Model)]
/// # struct Thing { #[model(identity)] name: String }
/// # struct Things;
/// # #[async_trait]
/// # impl Resource<()> for Things {
/// #     type Model = Thing;
/// #     async fn create(&self, _: &Context<()>, p: Thing) -> Result<Thing> { Ok(p) }
/// #     async fn read(&self, _: &Context<()>, s: Thing) -> Result<Option<Thing>> { Ok(Some(s)) }
/// #     async fn update(&self, _: &Context<()>, _: Thing, p: Thing) -> Result<Thing> { Ok(p) }
/// #     async fn delete(&self, _: &Context<()>, _: Thing) -> Result<()> { Ok(()) }
/// # }
/// /// Which things to list.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Filter {
///     prefix: Option<String>,
/// }
///
/// #[async_trait]
/// impl ListResource<()> for Things {
///     type Config = Filter;
///
///     async fn list(&self, _: &Context<()>, filter: Filter, out: &Listing<Thing>) -> Result<()> {
///         for name in ["a", "b"] {
///             // `?`: Terraform has all it asked for, or went away.
///             out.push(name, Thing { name: name.into() }).await?;
///         }
///         Ok(())
///     }
/// }
/// ```
#[async_trait::async_trait]
pub trait ListResource<D: Send + Sync + 'static>: Resource<D> {
    /// The list block's `config` block.
    type Config: Model;

    /// Finds the objects `config` selects and pushes each to `out`, in
    /// the order Terraform should show them; returns when done, or when a
    /// push fails (return its error: the framework knows it ends the
    /// stream, not the list).
    async fn list(
        &self,
        ctx: &Context<D>,
        config: Self::Config,
        out: &Listing<Self::Model>,
    ) -> Result<(), Diagnostics>;

    /// Cross-attribute checks of the `config` block beyond its model's
    /// validators. Default: none.
    fn validate_list(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }
}

/// Where a [`ListResource`] pushes what it finds: typed, and bounded (a
/// push waits while Terraform has not read the last results).
pub struct Listing<'a, M> {
    results: &'a ListResults,
    block: &'a Block,
    ty: &'a ctywire::Type,
    _model: std::marker::PhantomData<fn(M)>,
}

/// The summary of the error a push returns once the stream is over.
const ENDED: &str = "The list ended";

impl<'a, M: Model> Listing<'a, M> {
    pub(crate) fn new(results: &'a ListResults, block: &'a Block, ty: &'a ctywire::Type) -> Self {
        Listing {
            results,
            block,
            ty,
            _model: std::marker::PhantomData,
        }
    }

    /// Whether Terraform asked for each object in full; when not, only its
    /// identity and display name are sent (a listing that is costly per
    /// object may fill in only the identity attributes then).
    pub fn include_resource(&self) -> bool {
        self.results.include_resource_object()
    }

    /// Sends one object found, named `display_name` for people. `Err`
    /// when Terraform takes no more (it has as many as it asked for, or
    /// went away): return it, and the framework ends the list quietly.
    pub async fn push(
        &self,
        display_name: impl Into<String>,
        object: M,
    ) -> Result<(), Diagnostics> {
        let state = write_model(&object, self.ty)?;
        let result = ListResourceResult {
            identity: self.block.identity_of(&state),
            display_name: display_name.into(),
            resource_object: self.include_resource().then_some(state),
            diagnostics: Diagnostics::new(),
        };
        self.results
            .send(result)
            .await
            .map_err(|e| Diagnostic::error(ENDED).with_detail(e.to_string()).into())
    }
}

/// Whether `d` is only the error a push returns once the stream is over.
pub(crate) fn only_ended(d: &Diagnostics) -> bool {
    !d.is_empty() && d.iter().all(|d| d.summary == ENDED)
}
