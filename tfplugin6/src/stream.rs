//! The streams of the protocol: the sending ends of the three server
//! streams, [`ListResults`] (`ListResource`), [`ActionProgress`]
//! (`InvokeAction`) and [`StateChunks`] (`ReadStateBytes`), and the
//! receiving end of the one client stream, [`StateChunkStream`]
//! (`WriteStateBytes`).
//!
//! Each sending end is a bounded channel to the gRPC response: `send`
//! waits while [`STREAM_BUFFER`] events (one state chunk) are still
//! unread, so a provider producing faster than Terraform reads is slowed
//! down instead of buffering without bound, and `send` fails once the
//! stream is over (Terraform has what it asked for, went away, or
//! `StopProvider` came), so the provider stops. The receiving end reads
//! one message at a time, as the provider asks for it.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use ctywire::Value;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::{Status, Streaming};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::pb::tfplugin6 as pb;
use crate::provider::{StateChunk, WriteStateBytesRequest};

/// How many events may wait unread in a stream before `send` waits.
pub const STREAM_BUFFER: usize = 64;

/// How many state chunks may wait unread: one, since a chunk may be
/// 128 MiB (memory stays a few chunks, however large the state).
pub(crate) const STATE_CHUNK_BUFFER: usize = 1;

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

/// Where a [`Provider::read_state_bytes`](crate::Provider::read_state_bytes)
/// sends the state's chunks, in order.
#[derive(Debug)]
pub struct StateChunks {
    tx: WeakSender<pb::read_state_bytes::Response>,
    encode: fn(StateChunk) -> pb::read_state_bytes::Response,
}

impl StateChunks {
    pub(crate) fn new(
        tx: Sender<pb::read_state_bytes::Response>,
        encode: fn(StateChunk) -> pb::read_state_bytes::Response,
    ) -> Self {
        StateChunks {
            tx: tx.downgrade(),
            encode,
        }
    }

    /// Sends one chunk, waiting while Terraform has not read the last
    /// one. `Err` once Terraform went away or the provider was stopped.
    pub async fn send(&self, chunk: StateChunk) -> Result<(), StreamClosed> {
        let tx = self.tx.upgrade().ok_or(StreamClosed)?;
        tx.send(Ok((self.encode)(chunk)))
            .await
            .map_err(|_| StreamClosed)
    }
}

/// How the service reads a request chunk: the state it names (the first
/// chunk's `meta`), and the chunk.
pub(crate) type DecodeChunk =
    fn(pb::write_state_bytes::RequestChunk) -> (Option<WriteStateBytesRequest>, StateChunk);

/// The chunks of a `WriteStateBytes`, as Terraform sends them: a
/// [`Provider::write_state_bytes`](crate::Provider::write_state_bytes)
/// reads them one at a time (nothing is read ahead).
pub struct StateChunkStream {
    /// The first chunk, read by the service to learn which state it is.
    first: Option<StateChunk>,
    rest: Streaming<pb::write_state_bytes::RequestChunk>,
    decode: DecodeChunk,
    /// The state the first chunk named.
    named: (String, String),
}

impl fmt::Debug for StateChunkStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateChunkStream")
            .field("named", &self.named)
            .finish_non_exhaustive()
    }
}

impl StateChunkStream {
    /// Reads the first chunk: the state it names, and the stream from it.
    pub(crate) async fn start(
        mut rest: Streaming<pb::write_state_bytes::RequestChunk>,
        decode: DecodeChunk,
    ) -> Result<(WriteStateBytesRequest, Self), Diagnostic> {
        let first = rest.message().await.map_err(interrupted)?.ok_or_else(|| {
            Diagnostic::error("No state to write")
                .with_detail("Terraform's WriteStateBytes stream ended before its first chunk")
        })?;
        let (meta, first) = decode(first);
        let req = meta.ok_or_else(|| {
            Diagnostic::error("Invalid state chunk").with_detail(
                "the first chunk of WriteStateBytes has no meta naming the state store type and the state",
            )
        })?;
        let stream = StateChunkStream {
            first: Some(first),
            rest,
            decode,
            named: (req.type_name.clone(), req.state_id.clone()),
        };
        Ok((req, stream))
    }

    /// The next chunk; `Ok(None)` once Terraform closed the stream. An
    /// error when the stream broke (Terraform went away or was stopped
    /// mid-write) or a later chunk names another state: the write is
    /// incomplete and must not replace the stored state.
    pub async fn next(&mut self) -> Result<Option<StateChunk>, Diagnostic> {
        if let Some(first) = self.first.take() {
            return Ok(Some(first));
        }
        let Some(message) = self.rest.next().await else {
            return Ok(None);
        };
        let message = message.map_err(interrupted)?;
        match (self.decode)(message) {
            (Some(meta), _)
                if (meta.type_name.as_str(), meta.state_id.as_str())
                    != (self.named.0.as_str(), self.named.1.as_str()) =>
            {
                Err(
                    Diagnostic::error("Invalid state chunk").with_detail(format!(
                    "a later chunk of the write of {:?} ({:?}) names another state, {:?} ({:?})",
                    self.named.1, self.named.0, meta.state_id, meta.type_name
                )),
                )
            }
            (_, chunk) => Ok(Some(chunk)),
        }
    }
}

/// A write whose stream broke off.
fn interrupted(s: Status) -> Diagnostic {
    Diagnostic::error("The state write was interrupted").with_detail(format!(
        "Terraform's stream of state chunks broke off: {}",
        s.message()
    ))
}
