//! What every call receives besides its model: the provider's data, the
//! stop signal, which type it is for, and a resource's private state.

use std::any::Any;
use std::sync::{Arc, Mutex};

use ctywire_tfplugin6::{Diagnostics, StopSignal};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::time::Instant;

use crate::model::Model;
use crate::private::Private;
use crate::upgrade::StateUpgraders;

/// The context of one call: the data [`Provider::configure`] returned,
/// typed, and a way to notice Terraform's `StopProvider`.
///
/// [`Provider::configure`]: crate::Provider::configure
pub struct Context<D> {
    data: Arc<D>,
    stop: Option<StopSignal>,
    type_name: String,
    /// A resource call's private state (see [`private`](Self::private));
    /// never locked across an `.await`.
    private: Mutex<Private>,
    /// When the running operation times out (see [`deadline`](Self::deadline)).
    deadline: Option<Instant>,
    /// A typed resource's state upgraders as built with the provider
    /// (a `StateUpgraders<M>` of its model).
    upgraders: Option<Arc<dyn Any + Send + Sync>>,
}

impl<D> Context<D> {
    pub(crate) fn new(data: Arc<D>, type_name: &str) -> Self {
        Context {
            data,
            // Every call the server makes runs under a stop signal; a
            // context made elsewhere (a unit test) simply never stops.
            stop: StopSignal::current(),
            type_name: type_name.to_owned(),
            private: Mutex::default(),
            deadline: None,
            upgraders: None,
        }
    }

    /// The context of a state upgrade of a resource whose upgraders were
    /// built with the provider.
    pub(crate) fn with_upgraders(self, upgraders: Option<Arc<dyn Any + Send + Sync>>) -> Self {
        Context { upgraders, ..self }
    }

    /// The upgraders built with the provider, when they are of model `M`.
    pub(crate) fn upgraders<M: Model>(&self) -> Option<&StateUpgraders<M>> {
        self.upgraders.as_deref()?.downcast_ref()
    }

    /// The context of an operation that times out at `deadline`.
    pub(crate) fn with_deadline(self, deadline: Option<Instant>) -> Self {
        Context { deadline, ..self }
    }

    /// The context of a resource call carrying Terraform's private `bytes`.
    pub(crate) fn with_private(self, bytes: Vec<u8>) -> Self {
        Context {
            private: Mutex::new(Private::Received(bytes)),
            ..self
        }
    }

    /// The private bytes to answer Terraform with: what it sent, unless
    /// the call set them.
    pub(crate) fn private_bytes(&self) -> Vec<u8> {
        match self.private.lock() {
            Ok(mut p) => std::mem::take(&mut *p).into_bytes(),
            // Poisoned only by a panic in serde code; nothing to answer.
            Err(_) => Vec::new(),
        }
    }

    /// The private bytes the call set; none when it set nothing.
    pub(crate) fn set_private_bytes(&self) -> Vec<u8> {
        match self.private.lock() {
            Ok(mut p) if p.is_set() => std::mem::take(&mut *p).into_bytes(),
            _ => Vec::new(),
        }
    }

    fn private_slot(&self) -> Result<std::sync::MutexGuard<'_, Private>, Diagnostics> {
        self.private
            .lock()
            .map_err(|_| Diagnostics::error("the private state is unavailable"))
    }

    /// A resource's private state: data Terraform keeps with the object
    /// beside its state, never shows, and hands back on every later call
    /// — for what the provider must remember but the schema should not
    /// hold (a server-side etag, a generated id before it is applied).
    /// `None` when there is none.
    ///
    /// What it holds in each call of a [`Resource`](crate::Resource):
    /// - `read`: the private data stored with the state;
    /// - `modify_plan`: the private data stored with the prior state; on
    ///   the plan Terraform 1.16 (protocol 6.11) makes again just before
    ///   applying, the private data the first plan set instead, so a
    ///   value chosen at plan (a random id) can be planned the same twice;
    /// - `plan_destroy`: the private data stored with the prior state;
    ///   what it sets goes to the `delete`;
    /// - `create`, `update`, `delete`: the private data the plan set;
    /// - `import`: none;
    /// - `move_state`: the source object's, when a type of this
    ///   framework wrote it (another provider's reads as an error);
    /// - `upgrade_state`: none — the protocol carries no private data
    ///   there: Terraform keeps it with the state and hands it to the
    ///   `read` that follows the upgrade.
    ///
    /// What a call [sets](Self::set_private) is what Terraform stores
    /// (plan: for apply; apply, read, import, move: with the new state);
    /// a call that sets nothing keeps what it was given. `T` is the same
    /// serde type every call of the resource uses, a struct (or map)
    /// whose fields become the keys of terraform-plugin-framework's
    /// layout. Bytes that do not read are an error diagnostic.
    pub fn private<T: DeserializeOwned>(&self) -> Result<Option<T>, Diagnostics> {
        self.private_slot()?.get(&self.type_name)
    }

    /// Sets the resource's private state (see [`private`](Self::private)).
    /// An error when `value` is not a struct or map, or has a field
    /// beginning with `.` (the framework's own keys).
    pub fn set_private<T: Serialize>(&self, value: &T) -> Result<(), Diagnostics> {
        self.private_slot()?.set(Some(value))
    }

    /// Removes the resource's private state.
    pub fn clear_private(&self) -> Result<(), Diagnostics> {
        self.private_slot()?.set(None::<&()>)
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

    /// When the running operation times out: `Some` while a resource's
    /// `create`, `read`, `update` or `delete` runs under a timeout of its
    /// `timeouts` block (see [`timeouts`](crate::timeouts)), `None`
    /// otherwise. At the deadline the operation is cancelled at its next
    /// `.await`; a create that may outlive it should stop a little before
    /// and return the object as it stands, with an error, so that
    /// Terraform keeps it (tainted) instead of losing track of an object
    /// that already exists remotely.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The stop signal itself, to hand to spawned work (`None` outside
    /// a call the server made).
    pub fn stop_signal(&self) -> Option<StopSignal> {
        self.stop.clone()
    }
}
