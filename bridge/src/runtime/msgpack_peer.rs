//! A msgpack-rpc peer: `[0, id, method, params]`, `[1, id, error, result]`
//! and `[2, method, params]` back to back on a byte stream, no framing.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use super::handlers::MsgpackHandlers;
use super::json_peer::CloseReason;
use super::link::{write_queued, Handle, Link};
use super::{CallError, PeerOptions};
use crate::msgpack_rpc::{Message, Raw, StreamDecoder};
use ctywire::Type;
use ctywire::Value;

/// A msgpack-rpc peer (Neovim's API, OpenTofu's "Seasonings" plugins):
/// calls and serves over one reader and one writer, as [`JsonRpcPeer`]
/// does. Parameters and results are [`Raw`] msgpack values, so cty values
/// in them keep their unknowns and refinements;
/// [`call_values`](Self::call_values) writes and reads them by type.
///
/// msgpack-rpc has no framing, so bytes that are not a message leave no
/// way to find the next one: the peer reports them and closes, failing
/// the calls in flight with what was wrong.
///
/// [`JsonRpcPeer`]: super::JsonRpcPeer
#[derive(Clone)]
pub struct MsgpackRpcPeer {
    handle: Arc<Handle<Raw>>,
}

type Shared = Link<Raw>;

impl MsgpackRpcPeer {
    /// Starts a peer on `reader` and `writer`, serving `handlers`. Must be
    /// called within a tokio runtime.
    pub fn new<R, W>(reader: R, writer: W, handlers: MsgpackHandlers, opts: PeerOptions) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Self::start(reader, writer, handlers, opts, None)
    }

    pub(super) fn start<R, W>(
        reader: R,
        writer: W,
        handlers: MsgpackHandlers,
        opts: PeerOptions,
        close_reason: Option<CloseReason>,
    ) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (link, rx) = Link::new(opts, u64::from(u32::MAX), "msgpack-rpc");
        let writing = tokio::spawn(write_queued(writer, rx, link.clone()));
        let reading = tokio::spawn(read_messages(
            reader,
            Arc::new(handlers),
            link.clone(),
            close_reason,
        ));
        MsgpackRpcPeer {
            handle: Handle::new(link, vec![writing.abort_handle(), reading.abort_handle()]),
        }
    }

    fn link(&self) -> &Shared {
        &self.handle.link
    }

    /// Calls `method` and waits for its result, within the call timeout.
    /// An error answer is [`CallError::RemoteValue`].
    pub async fn call(&self, method: &str, params: Vec<Raw>) -> Result<Raw, CallError> {
        self.call_with_timeout(method, params, self.link().opts.call_timeout)
            .await
    }

    /// [`call`](Self::call) with a timeout of its own.
    pub async fn call_with_timeout(
        &self,
        method: &str,
        params: Vec<Raw>,
        timeout: Duration,
    ) -> Result<Raw, CallError> {
        self.link()
            .call(method, timeout, |id| {
                Message::Request {
                    // The link keeps ids within 32 bits.
                    id: u32::try_from(id).unwrap_or(u32::MAX),
                    method: method.to_string(),
                    params,
                }
                .encode()
            })
            .await
    }

    /// Calls `method` with cty values written at their types, and reads
    /// the result as `result_type`: unknowns and refinements survive both
    /// ways.
    pub async fn call_values(
        &self,
        method: &str,
        params: &[(&Value, &Type)],
        result_type: &Type,
    ) -> Result<Value, CallError> {
        let params = params
            .iter()
            .map(|(v, t)| Raw::encode(v, t))
            .collect::<ctywire::Result<Vec<_>>>()?;
        let result = self.call(method, params).await?;
        Ok(result.decode(result_type)?)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Vec<Raw>) -> Result<(), CallError> {
        let m = Message::Notification {
            method: method.to_string(),
            params,
        };
        self.link().notify(m.encode()).await
    }

    /// How many messages from the other side did not fit the protocol.
    pub fn faults(&self) -> u64 {
        self.link().faults()
    }

    /// How many calls are waiting for their answers.
    pub fn in_flight(&self) -> usize {
        self.link().calls.in_flight()
    }

    /// Why the connection closed, once it has.
    pub fn closed(&self) -> Option<String> {
        self.link().calls.closed()
    }
}

async fn read_messages<R: AsyncRead + Unpin>(
    mut reader: R,
    handlers: Arc<MsgpackHandlers>,
    shared: Arc<Shared>,
    close_reason: Option<CloseReason>,
) {
    let mut decoder = StreamDecoder::new(shared.opts.max_message);
    let mut chunk = vec![0u8; 64 << 10];
    // Bytes read so far, to say where in the stream garbage began.
    let mut fed: u64 = 0;
    let (why, garbage) = 'read: loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) => break ("the other side closed its output".to_string(), false),
            Ok(n) => n,
            Err(e) => break (format!("reading from the other side failed: {e}"), false),
        };
        fed += n as u64;
        if let Err(e) = decoder.feed(&chunk[..n]) {
            shared.fault(e.to_string());
            break (format!("the stream is not msgpack-rpc: {e}"), true);
        }
        loop {
            match decoder.next() {
                Ok(Some(m)) => handle(m, &handlers, &shared).await,
                Ok(None) => break,
                Err(e) => {
                    shared.fault(e.to_string());
                    let at = fed - decoder.pending() as u64;
                    break 'read (
                        format!("the stream is not msgpack-rpc (at byte {at} of the stream): {e}"),
                        true,
                    );
                }
            }
        }
    };
    // A child says how it ended; after garbage, what was wrong stays
    // first, since the child may well still be running.
    let why = match (close_reason, garbage) {
        (Some(reason), true) => format!("{why}; {}", reason().await),
        (Some(reason), false) => reason().await,
        (None, _) => why,
    };
    shared.calls.close(why);
}

async fn handle(m: Message, handlers: &Arc<MsgpackHandlers>, shared: &Arc<Shared>) {
    match m {
        Message::Response { id, error, result } => {
            let outcome = if error.is_nil() {
                Ok(result)
            } else {
                Err(CallError::RemoteValue(error))
            };
            if !shared.calls.answer(u64::from(id), outcome) {
                shared.fault(format!("an answer to no call in flight (id {id})"));
            }
        }
        Message::Notification { method, params } => {
            if !handlers.notify(&method, params) {
                log::debug!(target: "ctywire_bridge::runtime", "msgpack-rpc: notification {method:?} has no handler");
            }
        }
        Message::Request { id, method, params } => {
            let reply = move |outcome: Result<Raw, Raw>| match outcome {
                Ok(result) => Message::Response {
                    id,
                    error: Raw::nil(),
                    result,
                },
                Err(error) => Message::Response {
                    id,
                    error,
                    result: Raw::nil(),
                },
            };
            match handlers.request_fn(&method) {
                Some(f) => {
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let outcome = f(params).await;
                        shared.send(reply(outcome).encode()).await;
                    });
                }
                None => {
                    let mut error = Vec::new();
                    // Writing to a Vec cannot fail.
                    let _ =
                        rmp::encode::write_str(&mut error, &format!("method not found: {method}"));
                    let error = Raw(error);
                    shared.send(reply(Err(error)).encode()).await;
                }
            }
        }
    }
}
