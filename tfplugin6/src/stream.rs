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

use ctywire::Value;
use tokio::sync::mpsc;
use tonic::Status;

use crate::diagnostics::Diagnostics;
use crate::pb::tfplugin6 as pb;

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
/// What the provider's side holds: the service keeps the one strong
/// sender, so the stream ends when the service is done with the call —
/// even while a stopped call's provider task is still blocked in its
/// thread, holding this.
type WeakSender<T> = mpsc::WeakSender<Result<T, Status>>;

/// One object a list found.
#[derive(Clone, Debug)]
pub struct ListResourceResult {
    /// Its identity, at the resource type's identity schema, wholly known.
    pub identity: Value,
    /// A name for people.
    pub display_name: String,
    /// Its state, at the resource type's schema; sent only when the
    /// request asked for it.
    pub resource_object: Option<Value>,
    /// Warnings about it.
    pub diagnostics: Diagnostics,
}

/// How the service writes a result as an event (the conversions live in
/// `toproto`, above this module).
pub(crate) type EncodeResult =
    Box<dyn Fn(ListResourceResult) -> Result<pb::list_resource::Event, Diagnostics> + Send + Sync>;

/// Where a [`Provider::list_resource`](crate::Provider::list_resource)
/// sends what it finds.
pub struct ListResults {
    tx: WeakSender<pb::list_resource::Event>,
    encode: EncodeResult,
    /// What a failure to encode is sent as.
    failed: fn(Diagnostics) -> pb::list_resource::Event,
    include_resource_object: bool,
    /// Results Terraform still reads (`None`: no limit).
    remaining: Option<AtomicI64>,
}

impl fmt::Debug for ListResults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListResults")
            .field("include_resource_object", &self.include_resource_object)
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl ListResults {
    pub(crate) fn new(
        tx: Sender<pb::list_resource::Event>,
        encode: EncodeResult,
        failed: fn(Diagnostics) -> pb::list_resource::Event,
        include_resource_object: bool,
        limit: i64,
    ) -> Self {
        ListResults {
            tx: tx.downgrade(),
            encode,
            failed,
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
        let tx = self.tx.upgrade().ok_or(StreamClosed)?;
        match (self.encode)(result) {
            Ok(event) => tx.send(Ok(event)).await.map_err(|_| StreamClosed),
            Err(d) => {
                let _ = tx.send(Ok((self.failed)(d))).await;
                Err(StreamClosed)
            }
        }
    }
}

/// Where a [`Provider::invoke_action`](crate::Provider::invoke_action)
/// reports progress.
#[derive(Debug)]
pub struct ActionProgress {
    tx: WeakSender<pb::invoke_action::Event>,
}

impl ActionProgress {
    pub(crate) fn new(tx: Sender<pb::invoke_action::Event>) -> Self {
        ActionProgress { tx: tx.downgrade() }
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
        let tx = self.tx.upgrade().ok_or(StreamClosed)?;
        tx.send(Ok(event)).await.map_err(|_| StreamClosed)
    }
}
