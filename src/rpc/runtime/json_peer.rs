//! A JSON-RPC 2.0 peer over newline-delimited JSON.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::calls::Calls;
use super::handlers::{method_not_found, Handlers};
use super::lines::{read_line, Line};
use super::{CallError, PeerOptions};
use crate::bridge::{from_json, to_json, Json};
use crate::rpc::jsonrpc::{code, ErrorObject, Id, Message};

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
/// `log` (target `ctywire::rpc`) and counted in [`faults`](Self::faults).
#[derive(Clone)]
pub struct JsonRpcPeer {
    handle: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
    tasks: Vec<AbortHandle>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.shared.calls.close("the peer was dropped".into());
    }
}

struct Shared {
    calls: Calls<Json>,
    out: mpsc::Sender<Vec<u8>>,
    opts: PeerOptions,
    faults: AtomicU64,
}

impl Shared {
    fn fault(&self, message: String) {
        self.faults.fetch_add(1, Ordering::Relaxed);
        log::warn!(target: "ctywire::rpc", "JSON-RPC: {message}");
    }

    /// Queues a message for the writer; `false` once the writer is gone.
    async fn send(&self, m: &Message) -> bool {
        let mut line = m.to_json().to_vec();
        line.push(b'\n');
        self.out.send(line).await.is_ok()
    }
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
        let (out, rx) = mpsc::channel(opts.write_queue.max(1));
        let shared = Arc::new(Shared {
            // Ids are JSON numbers; keep them within what every JSON
            // implementation reads exactly.
            calls: Calls::new((1 << 53) - 1),
            out,
            opts,
            faults: AtomicU64::new(0),
        });
        let writing = tokio::spawn(write_lines(writer, rx, shared.clone()));
        let reading = tokio::spawn(read_messages(
            reader,
            Arc::new(handlers),
            shared.clone(),
            close_reason,
        ));
        JsonRpcPeer {
            handle: Arc::new(Handle {
                shared,
                tasks: vec![writing.abort_handle(), reading.abort_handle()],
            }),
        }
    }

    fn shared(&self) -> &Shared {
        &self.handle.shared
    }

    /// Calls `method` and waits for its answer, within the peer's call
    /// timeout.
    pub async fn call(&self, method: &str, params: Option<Json>) -> Result<Json, CallError> {
        self.call_with_timeout(method, params, self.shared().opts.call_timeout)
            .await
    }

    /// [`call`](Self::call) with a timeout of its own.
    pub async fn call_with_timeout(
        &self,
        method: &str,
        params: Option<Json>,
        timeout: Duration,
    ) -> Result<Json, CallError> {
        let shared = self.shared();
        let pending = shared.calls.begin()?;
        let id = Id::Number(pending.id.into());
        let request = Message::request(id, method, params);
        let sent = tokio::time::timeout(timeout, shared.send(&request)).await;
        match sent {
            Ok(true) => {}
            Ok(false) => return Err(self.closed_error()),
            Err(_) => {
                return Err(CallError::Timeout {
                    method: method.into(),
                    after: timeout,
                })
            }
        }
        pending.answer(method, timeout).await
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
        if let Some(why) = self.shared().calls.closed() {
            return Err(CallError::Closed(why));
        }
        if self
            .shared()
            .send(&Message::notification(method, params))
            .await
        {
            Ok(())
        } else {
            Err(self.closed_error())
        }
    }

    /// How many messages from the other side did not fit the protocol.
    pub fn faults(&self) -> u64 {
        self.shared().faults.load(Ordering::Relaxed)
    }

    /// How many calls are waiting for their answers.
    pub fn in_flight(&self) -> usize {
        self.shared().calls.in_flight()
    }

    /// Why the connection closed, once it has.
    pub fn closed(&self) -> Option<String> {
        self.shared().calls.closed()
    }

    fn closed_error(&self) -> CallError {
        CallError::Closed(
            self.closed()
                .unwrap_or_else(|| "the connection is closed".into()),
        )
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
    shared: Arc<Shared>,
) {
    while let Some(line) = rx.recv().await {
        let written = async {
            writer.write_all(&line).await?;
            writer.flush().await
        };
        if let Err(e) = written.await {
            shared
                .calls
                .close(format!("writing to the other side failed: {e}"));
            return;
        }
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
                shared.send(&reply).await;
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
            shared.send(&reply).await;
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
                log::debug!(target: "ctywire::rpc", "JSON-RPC: notification {method:?} has no handler");
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
                        shared.send(&reply).await;
                    });
                }
                None => {
                    shared
                        .send(&Message::failure(reply_to, method_not_found(&method)))
                        .await;
                }
            }
        }
    }
}
