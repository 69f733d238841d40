//! Actions (protocol 6.10): typed configuration, progress as it goes.

use ctywire::Value;
use ctywire_tfplugin6::{ActionProgress, Diagnostic, Diagnostics};

use crate::context::Context;
use crate::model::Model;

/// An action type: something Terraform invokes (an `action` block,
/// triggered from a resource's lifecycle or `terraform apply -invoke`),
/// with a typed configuration, reporting progress as it runs.
///
/// ```no_run
/// # use ctywire_provider::{async_trait, Action, Context, Model, Progress, Result};
/// # use serde::{Deserialize, Serialize};
/// /// Waits, counting.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Count {
///     #[model(range(1, 100))]
///     to: u32,
/// }
///
/// struct Counter;
///
/// #[async_trait]
/// impl Action<()> for Counter {
///     type Config = Count;
///
///     async fn invoke(&self, _: &Context<()>, count: Count, progress: &Progress) -> Result<()> {
///         for i in 1..=count.to {
///             progress.send(format!("{i} of {}", count.to)).await?;
///         }
///         Ok(())
///     }
/// }
/// ```
#[async_trait::async_trait]
pub trait Action<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// The action's configuration.
    type Config: Model;

    /// Runs the action, reporting progress through `progress` (Terraform
    /// shows each message as it comes, in order). An `Err` fails the
    /// action.
    async fn invoke(
        &self,
        ctx: &Context<D>,
        config: Self::Config,
        progress: &Progress,
    ) -> Result<(), Diagnostics>;

    /// Cross-attribute checks beyond the model's validators, on
    /// configuration that may hold unknowns (at validation and at plan).
    /// Default: none.
    fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Checks at plan (`PlanAction`), after the model's validators and
    /// [`validate`](Self::validate) pass there, with the provider's data:
    /// what only the provider can tell before the action runs (that a
    /// program it will start exists, say). Errors stop the plan; warnings
    /// go with it. A field that may be unknown is an
    /// [`Unknowable`](ctywire::Unknowable); while the configuration holds
    /// an unknown in one that is not, the check is deferred (not called).
    /// Not called at `terraform validate`. Default: none.
    async fn plan(&self, ctx: &Context<D>, config: Self::Config) -> Diagnostics {
        let _ = (ctx, config);
        Diagnostics::new()
    }
}

/// Where an [`Action`] reports how it goes: bounded (a message waits while
/// Terraform has not read the last ones).
pub struct Progress<'a> {
    inner: &'a ActionProgress,
}

impl<'a> Progress<'a> {
    pub(crate) fn new(inner: &'a ActionProgress) -> Self {
        Progress { inner }
    }

    /// Sends a progress message. `Err` when Terraform went away: stop.
    pub async fn send(&self, message: impl Into<String>) -> Result<(), Diagnostics> {
        self.inner.send(message).await.map_err(|e| {
            Diagnostic::error("The action was abandoned")
                .with_detail(e.to_string())
                .into()
        })
    }
}
