//! What every call receives besides its model: the provider's data, the
//! stop signal, and which type it is for.

use std::sync::Arc;

use ctywire_tfplugin6::StopSignal;

/// The context of one call: the data [`Provider::configure`] returned,
/// typed, and a way to notice Terraform's `StopProvider`.
///
/// [`Provider::configure`]: crate::Provider::configure
pub struct Context<D> {
    data: Arc<D>,
    stop: Option<StopSignal>,
    type_name: String,
}

impl<D> Context<D> {
    pub(crate) fn new(data: Arc<D>, type_name: &str) -> Self {
        Context {
            data,
            // Every call the server makes runs under a stop signal; a
            // context made elsewhere (a unit test) simply never stops.
            stop: StopSignal::current(),
            type_name: type_name.to_owned(),
        }
    }

    /// The provider's data, as `configure` returned it.
    pub fn data(&self) -> &D {
        &self.data
    }

    /// The type name this call is for (`kv_entry`): one type can serve
    /// several names.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// Whether Terraform asked the provider to stop (the user pressed
    /// Ctrl-C). The call itself is cancelled at its next `.await` then;
    /// this is for work the call handed elsewhere.
    pub fn is_stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(StopSignal::is_stopped)
    }

    /// Completes when Terraform asks the provider to stop.
    pub async fn stopped(&self) {
        match &self.stop {
            Some(stop) => stop.stopped().await,
            None => std::future::pending().await,
        }
    }

    /// The stop signal itself, to hand to spawned work (`None` outside
    /// a call the server made).
    pub fn stop_signal(&self) -> Option<StopSignal> {
        self.stop.clone()
    }
}
