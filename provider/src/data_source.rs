//! Data sources.

use ctywire::Value;
use ctywire_tfplugin6::Diagnostics;

use crate::context::Context;
use crate::model::Model;

/// A data source type: its model (configured and computed attributes
/// alike) and how to read it.
#[async_trait::async_trait]
pub trait DataSource<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// The data source's attributes and blocks.
    type Model: Model;

    /// Reads the data: `config` holds what the configuration set (computed
    /// attributes null); the answer fills in the rest.
    async fn read(&self, ctx: &Context<D>, config: Self::Model)
        -> Result<Self::Model, Diagnostics>;

    /// Cross-attribute checks beyond the model's validators. Default: none.
    fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }
}
