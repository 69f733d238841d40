//! A JSON-RPC 2.0 peer over newline-delimited JSON.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

use super::handlers::{method_not_found, Handlers};
use super::lines::{read_line, Line};
use super::link::{write_queued, Handle, Link};
use super::{CallError, PeerOptions};
use crate::jsonrpc::{code, ErrorObject, Id, Message};
use crate::{from_json, to_json, Json};

/// Says why a stream closed, when it can say more than "it closed" (a
/// child: its exit status and last stderr lines).
pub(super) type CloseReason =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = String> + Send>> + Send + Sync>;

/// A JSON-RPC 2.0 peer: calls the other side and serves it, over one
/// reader and one writer (a child's stdout and stdin, a unix socket's two
/// halves, an in-memory pipe). Cloning gives another handle to the same
/// peer; when the last handle is dropped, its tasks stop.
///
/// Batches (a JSON array of messages) are refused with one -32600
/// response, which the spec allows a server that does not support them.
/// A line that is not JSON is answered with -32700; a message of the wrong
/// shape with -32600 (with its id when it had one); an answer whose id
/// matches no call is dropped. Each of these is also reported through
/// `log` (target `ctywire_bridge::runtime`) and counted in [`faults`](Self::faults).
#[derive(Clone)]
pub struct JsonRpcPeer {
    handle: Arc<Handle<Json>>,
}

type Shared = Link<Json>;

/// A message's line.
fn line_of(m: &Message) -> Vec<u8> {
    let mut line = Vec::with_capacity(64);
    m.write_into(&mut line);
    line.push(b'\n');
    line
}

impl JsonRpcPeer {
    /// Starts a peer on `reader` and `writer`, serving `handlers`. Must be
    /// called within a tokio runtime.
    pub fn new<R, W>(reader: R, writer: W, handlers: Handlers, opts: PeerOptions) -> JsonRpcPeer
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Self::start(reader, writer, handlers, opts, None)
    }

    pub(super) fn start<R, W>(
        reader: R,
        writer: W,
        handlers: Handlers,
        opts: PeerOptions,
        close_reason: Option<CloseReason>,
    ) -> JsonRpcPeer
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        // Ids are JSON numbers; keep them within what every JSON
        // implementation reads exactly.
        let (link, rx) = Link::new(opts, (1 << 53) - 1, "JSON-RPC");
        let writing = tokio::spawn(write_queued(writer, rx, link.clone()));
        let reading = tokio::spawn(read_messages(
            reader,
            Arc::new(handlers),
            link.clone(),
            close_reason,
        ));
        JsonRpcPeer {
            handle: Handle::new(link, vec![writing.abort_handle(), reading.abort_handle()]),
        }
    }

    fn link(&self) -> &Shared {
        &self.handle.link
    }

    /// Calls `method` and waits for its answer, within the peer's call
    /// timeout.
    pub async fn call(&self, method: &str, params: Option<Json>) -> Result<Json, CallError> {
        self.call_with_timeout(method, params, self.link().opts.call_timeout)
            .await
    }

    /// [`call`](Self::call) with a timeout of its own.
    pub async fn call_with_timeout(
        &self,
        method: &str,
        params: Option<Json>,
        timeout: Duration,
    ) -> Result<Json, CallError> {
        self.link()
            .call(method, timeout, |id| {
                line_of(&Message::request(Id::Number(id.into()), method, params))
            })
            .await
    }

    /// Calls `method` with parameters and a result of Rust types, through
    /// [`to_json`] and [`from_json`]: numbers stay exact both ways.
    pub async fn call_typed<P, R>(&self, method: &str, params: &P) -> Result<R, CallError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let params = to_json(params)?;
        let result = self.call(method, Some(params)).await?;
        Ok(from_json(&result)?)
    }

    /// Sends a notification (no answer comes).
    pub async fn notify(&self, method: &str, params: Option<Json>) -> Result<(), CallError> {
        self.link()
            .notify(line_of(&Message::notification(method, params)))
            .await
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
    reader: R,
    handlers: Arc<Handlers>,
    shared: Arc<Shared>,
    close_reason: Option<CloseReason>,
) {
    let mut reader = BufReader::new(reader);
    let max = shared.opts.max_message;
    let why = loop {
        match read_line(&mut reader, max).await {
            Ok(Some(Line::Text(line))) => handle_line(&line, &handlers, &shared).await,
            Ok(Some(Line::TooLong(n))) => {
                shared.fault(format!("a line of {n} bytes exceeds the limit of {max}"));
                let reply = Message::failure(
                    Id::Null,
                    ErrorObject::new(
                        code::PARSE_ERROR,
                        format!("a line of {n} bytes exceeds the limit of {max} bytes"),
                    ),
                );
                shared.send(line_of(&reply)).await;
            }
            Ok(None) => break "the other side closed its output".to_string(),
            Err(e) => break format!("reading from the other side failed: {e}"),
        }
    };
    let why = match close_reason {
        Some(reason) => reason().await,
        None => why,
    };
    shared.calls.close(why);
}

async fn handle_line(line: &[u8], handlers: &Arc<Handlers>, shared: &Arc<Shared>) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let parsed = std::str::from_utf8(line)
        .map_err(|_| {
            Box::new(Message::failure(
                Id::Null,
                ErrorObject::new(code::PARSE_ERROR, "parse error: the line is not UTF-8"),
            ))
        })
        .and_then(Message::parse);
    let message = match parsed {
        Ok(m) => m,
        Err(reply) => {
            let what = match &*reply {
                Message::Response {
                    outcome: Err(e), ..
                } => e.message.clone(),
                _ => "an invalid message".into(),
            };
            shared.fault(format!(
                "{what}: {}",
                String::from_utf8_lossy(&line[..line.len().min(200)])
            ));
            shared.send(line_of(&reply)).await;
            return;
        }
    };
    match message {
        Message::Response { id, outcome } => {
            let known = match &id {
                Id::Number(n) => n
                    .as_u64()
                    .is_some_and(|n| shared.calls.answer(n, outcome.map_err(CallError::Remote))),
                _ => false,
            };
            if !known {
                shared.fault(format!("an answer to no call in flight (id {id:?})"));
            }
        }
        Message::Notification { method, params } => {
            if !handlers.notify(&method, params) {
                log::debug!(target: "ctywire_bridge::runtime", "JSON-RPC: notification {method:?} has no handler");
            }
        }
        Message::Request { id, method, params } => {
            let reply_to = id;
            match handlers.request_fn(&method) {
                Some(f) => {
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let reply = match f(params).await {
                            Ok(result) => Message::success(reply_to, result),
                            Err(e) => Message::failure(reply_to, e),
                        };
                        shared.send(line_of(&reply)).await;
                    });
                }
                None => {
                    shared
                        .send(line_of(&Message::failure(
                            reply_to,
                            method_not_found(&method),
                        )))
                        .await;
                }
            }
        }
    }
}
