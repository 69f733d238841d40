//! The provider itself: its configuration and the data every resource,
//! data source and ephemeral resource receives.

use ctywire_tfplugin6::Diagnostics;

use crate::model::Model;

/// The provider: its name, its configuration block's model, and what
/// configuring it gives every other call ([`Context::data`], typed — no
/// casts).
///
/// [`Context::data`]: crate::Context::data
#[async_trait::async_trait]
pub trait Provider: Send + Sync + 'static {
    /// The `provider "name" { ... }` block.
    type Config: Model;
    /// What [`configure`](Self::configure) makes of it: a client, a
    /// directory, credentials.
    type Data: Send + Sync + 'static;

    /// Cross-attribute checks of the provider block, beyond the
    /// validators declared on its model. Runs on configuration that may
    /// hold unknowns, before `configure`. Default: none.
    fn validate(&self, config: &ctywire::Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// `ConfigureProvider`: the provider block, read into its model,
    /// made into the provider's data. Values not known yet (Terraform
    /// configures a provider during plan with what it has) arrive as
    /// nulls, unless every one of them falls in a
    /// [`Unknowable`](ctywire::Unknowable) field: then they arrive
    /// unknown there, so a provider can refuse an unknown it cannot
    /// default.
    async fn configure(&self, config: Self::Config) -> Result<Self::Data, Diagnostics>;
}

/// A provider whose whole configuring is a plain `fn` (see
/// [`Builder::from_fn`](crate::Builder::from_fn)).
pub struct FnProvider<C, D>(pub fn(C) -> Result<D, Diagnostics>);

#[async_trait::async_trait]
impl<C: Model, D: Send + Sync + 'static> Provider for FnProvider<C, D> {
    type Config = C;
    type Data = D;

    async fn configure(&self, config: C) -> Result<D, Diagnostics> {
        (self.0)(config)
    }
}
