//! The sending ends of the two server streams of protocol 6.10:
//! [`ListResults`] (`ListResource`) and [`ActionProgress`]
//! (`InvokeAction`).
//!
//! Each is a bounded channel to the gRPC response: `send` waits while
//! [`STREAM_BUFFER`] events are still unread, so a provider producing
//! faster than Terraform reads is slowed down instead of buffering without
//! bound, and `send` fails once the stream is over (Terraform has what it
//! asked for, went away, or `StopProvider` came), so the provider stops.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use ctywire::schema::Block;
use ctywire::Type;
use tokio::sync::mpsc;
use tonic::Status;

use crate::convert::{diagnostics_to_proto, encode_dynamic_value, identity_to_proto};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::pb::tfplugin6 as pb;
use crate::provider::ListResourceResult;

/// How many events may wait unread in a stream before `send` waits.
pub const STREAM_BUFFER: usize = 64;

/// A stream is over: Terraform takes no more events (it has as many as it
/// asked for, it went away, the provider was stopped, or an event could
/// not be encoded, which was reported to Terraform as an error). Stop
/// producing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamClosed;

impl fmt::Display for StreamClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Terraform takes no more events on this stream")
    }
}

impl std::error::Error for StreamClosed {}

pub(crate) type Sender<T> = mpsc::Sender<Result<T, Status>>;

/// Where a [`Provider::list_resource`](crate::Provider::list_resource)
/// sends what it finds.
#[derive(Debug)]
pub struct ListResults {
    tx: Sender<pb::list_resource::Event>,
    identity_ty: Type,
    resource: Block,
    resource_ty: Type,
    include_resource_object: bool,
    /// Results Terraform still reads (`None`: no limit).
    remaining: Option<AtomicI64>,
}

impl ListResults {
    pub(crate) fn new(
        tx: Sender<pb::list_resource::Event>,
        identity_ty: Type,
        resource: Block,
        resource_ty: Type,
        include_resource_object: bool,
        limit: i64,
    ) -> Self {
        ListResults {
            tx,
            identity_ty,
            resource,
            resource_ty,
            include_resource_object,
            remaining: (limit > 0).then(|| AtomicI64::new(limit)),
        }
    }

    /// Whether the request asked for each object's state.
    pub fn include_resource_object(&self) -> bool {
        self.include_resource_object
    }

    /// Sends one result, waiting while Terraform has not read enough of
    /// the last ones. The identity is encoded at the identity schema's
    /// type and the object (only when the request asked for it) at the
    /// resource schema's, with its write-only attributes nulled; one that
    /// does not fit is sent as an error diagnostic instead, naming the
    /// attribute, and ends the stream. `Err` once the stream is over:
    /// stop listing.
    pub async fn send(&self, result: ListResourceResult) -> Result<(), StreamClosed> {
        if let Some(remaining) = &self.remaining {
            if remaining.fetch_sub(1, Ordering::Relaxed) <= 0 {
                return Err(StreamClosed);
            }
        }
        match self.encode(result) {
            Ok(event) => self.tx.send(Ok(event)).await.map_err(|_| StreamClosed),
            Err(d) => {
                let _ = self.tx.send(Ok(list_diagnostics(d))).await;
                Err(StreamClosed)
            }
        }
    }

    fn encode(&self, r: ListResourceResult) -> Result<pb::list_resource::Event, Diagnostics> {
        let bad = |field: &str, e: ctywire::Error| -> Diagnostics {
            let mut d = r.diagnostics.clone();
            d.push(
                Diagnostic::error(format!(
                    "The provider's {field} in ListResource does not fit its schema"
                ))
                .with_detail(format!("for the result {:?}: {e}", r.display_name))
                .at(e.path().clone()),
            );
            d
        };
        if !r.identity.is_wholly_known() || r.identity.is_null() {
            return Err(bad(
                "identity",
                ctywire::Error::custom(
                    "a listed object's identity must be wholly known and not null",
                ),
            ));
        }
        let identity =
            identity_to_proto(&r.identity, &self.identity_ty).map_err(|e| bad("identity", e))?;
        let resource_object = match r.resource_object {
            Some(v) if self.include_resource_object => {
                let v = self
                    .resource
                    .null_write_only(v)
                    .map_err(|e| bad("resource_object", e))?;
                Some(
                    encode_dynamic_value(&v, &self.resource_ty)
                        .map_err(|e| bad("resource_object", e))?,
                )
            }
            _ => None,
        };
        Ok(pb::list_resource::Event {
            identity: Some(identity),
            display_name: r.display_name,
            resource_object,
            diagnostic: diagnostics_to_proto(&r.diagnostics),
        })
    }
}

/// An event with diagnostics only: how a list reports its failure (or its
/// warnings) outside any result.
pub(crate) fn list_diagnostics(d: Diagnostics) -> pb::list_resource::Event {
    pb::list_resource::Event {
        diagnostic: diagnostics_to_proto(&d),
        ..Default::default()
    }
}

/// Where a [`Provider::invoke_action`](crate::Provider::invoke_action)
/// reports progress.
#[derive(Debug)]
pub struct ActionProgress {
    tx: Sender<pb::invoke_action::Event>,
}

impl ActionProgress {
    pub(crate) fn new(tx: Sender<pb::invoke_action::Event>) -> Self {
        ActionProgress { tx }
    }

    /// Sends a progress message (Terraform shows it as it comes), waiting
    /// while Terraform has not read enough of the last ones. `Err` once
    /// Terraform went away or the provider was stopped.
    pub async fn send(&self, message: impl Into<String>) -> Result<(), StreamClosed> {
        use pb::invoke_action::event::{Progress, Type as Ev};
        let event = pb::invoke_action::Event {
            r#type: Some(Ev::Progress(Progress {
                message: message.into(),
            })),
        };
        self.tx.send(Ok(event)).await.map_err(|_| StreamClosed)
    }
}

/// The final event of an invocation.
pub(crate) fn completed(d: &Diagnostics) -> pb::invoke_action::Event {
    use pb::invoke_action::event::{Completed, Type as Ev};
    pb::invoke_action::Event {
        r#type: Some(Ev::Completed(Completed {
            diagnostics: diagnostics_to_proto(d),
        })),
    }
}
