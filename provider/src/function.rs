//! Provider functions.

use ctywire_tfplugin6::FunctionError;
use serde::Serialize;

use crate::model::{AttributeType, Model};

/// A provider function, `provider::<name>::<function>(...)` in
/// configuration. Its parameters are the fields of [`Args`](Self::Args), in
/// order (an `Option` field accepts null); its result's type is
/// [`Output`](Self::Output)'s.
#[async_trait::async_trait]
pub trait Function: Send + Sync + 'static {
    /// The arguments, one field per parameter, in order; the model's doc
    /// comments document the parameters.
    type Args: Model;
    /// The result.
    type Output: Serialize + AttributeType + Send;

    /// A one-line summary, for documentation. Default: the first line
    /// of the doc comment on [`Args`](Self::Args).
    fn summary(&self) -> Option<&str> {
        None
    }

    /// Calls it. An error names the argument at fault with
    /// [`FunctionError::function_argument`].
    async fn call(&self, args: Self::Args) -> Result<Self::Output, FunctionError>;
}
