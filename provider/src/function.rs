//! Provider functions.

use ctywire_tfplugin6::FunctionError;
use serde::Serialize;

use crate::model::{AttributeType, Model};

/// A provider function, `provider::<name>::<function>(...)` in
/// configuration. Its parameters are the fields of [`Args`](Self::Args), in
/// order (an `Option` field accepts null); its result's type is
/// [`Output`](Self::Output)'s. The last field may be `#[model(variadic)]`,
/// a `Vec<T>`: it takes every argument after the others, each a `T`
/// (Terraform's variadic parameter).
///
/// ```
/// use ctywire_provider::{FunctionError, Model};
/// use serde::{Deserialize, Serialize};
///
/// /// Joins strings with a separator.
/// #[derive(Serialize, Deserialize, Model)]
/// struct JoinArgs {
///     separator: String,
///     #[model(variadic)]
///     parts: Vec<String>,
/// }
///
/// fn join(args: JoinArgs) -> Result<String, FunctionError> {
///     Ok(args.parts.join(&args.separator))
/// }
/// ```
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

    /// Calls it. An error names the argument at fault in its
    /// `function_argument` field (counting from 0), or none when made with
    /// [`FunctionError::new`].
    async fn call(&self, args: Self::Args) -> Result<Self::Output, FunctionError>;
}

/// A function written as a plain `fn` (see
/// [`Builder::pure_function`](crate::Builder::pure_function)).
pub(crate) struct PureFn<A, O>(pub fn(A) -> Result<O, FunctionError>);

#[async_trait::async_trait]
impl<A, O> Function for PureFn<A, O>
where
    A: Model,
    O: Serialize + AttributeType + Send + 'static,
{
    type Args = A;
    type Output = O;

    async fn call(&self, args: A) -> Result<O, FunctionError> {
        (self.0)(args)
    }
}
