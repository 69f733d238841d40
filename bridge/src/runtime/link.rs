//! What both peers are made of: the calls in flight, the queue to the
//! writer task, fault counting, and the tasks that stop with the last
//! handle. A protocol adds only how its messages are read and written.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::calls::Calls;
use super::{CallError, PeerOptions};

/// One connection's shared state; `T` is what an answer is.
pub(super) struct Link<T> {
    pub(super) calls: Calls<T>,
    out: mpsc::Sender<Vec<u8>>,
    pub(super) opts: PeerOptions,
    faults: AtomicU64,
    /// For log lines: "JSON-RPC", "msgpack-rpc".
    protocol: &'static str,
}

impl<T: Send + 'static> Link<T> {
    /// A link whose call ids go up to `max_id`, and the queue its writer
    /// task drains.
    pub(super) fn new(
        opts: PeerOptions,
        max_id: u64,
        protocol: &'static str,
    ) -> (Arc<Link<T>>, mpsc::Receiver<Vec<u8>>) {
        let (out, rx) = mpsc::channel(opts.write_queue.max(1));
        let link = Arc::new(Link {
            calls: Calls::new(max_id),
            out,
            opts,
            faults: AtomicU64::new(0),
            protocol,
        });
        (link, rx)
    }

    /// Reports something the other side sent that does not fit.
    pub(super) fn fault(&self, message: String) {
        self.faults.fetch_add(1, Ordering::Relaxed);
        log::warn!(target: "ctywire_bridge::runtime", "{}: {message}", self.protocol);
    }

    pub(super) fn faults(&self) -> u64 {
        self.faults.load(Ordering::Relaxed)
    }

    /// Queues bytes for the writer; `false` once the writer is gone.
    pub(super) async fn send(&self, bytes: Vec<u8>) -> bool {
        self.out.send(bytes).await.is_ok()
    }

    pub(super) fn closed_error(&self) -> CallError {
        CallError::Closed(
            self.calls
                .closed()
                .unwrap_or_else(|| "the connection is closed".into()),
        )
    }

    /// A call: `request` makes the message's bytes for the call's id; the
    /// answer, or why there is none, within `timeout`.
    pub(super) async fn call(
        &self,
        method: &str,
        timeout: Duration,
        request: impl FnOnce(u64) -> Vec<u8>,
    ) -> Result<T, CallError> {
        let pending = self.calls.begin()?;
        let bytes = request(pending.id);
        match tokio::time::timeout(timeout, self.send(bytes)).await {
            Ok(true) => pending.answer(method, timeout).await,
            Ok(false) => Err(self.closed_error()),
            Err(_) => Err(CallError::Timeout {
                method: method.into(),
                after: timeout,
            }),
        }
    }

    /// A notification's bytes, sent unless the connection has closed.
    pub(super) async fn notify(&self, bytes: Vec<u8>) -> Result<(), CallError> {
        if self.calls.closed().is_some() || !self.send(bytes).await {
            return Err(self.closed_error());
        }
        Ok(())
    }
}

/// How long a failed write waits for the reading side to close the link
/// with its own reason: longer than a child's takes to tell how it ended
/// (it waits up to 250 ms for the exit, and as long for stderr).
const READING_SIDE_WAIT: Duration = Duration::from_secs(1);

/// Writes what is queued, in order; a failed write closes the link.
pub(super) async fn write_queued<T: Send + 'static, W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
    link: Arc<Link<T>>,
) {
    while let Some(bytes) = rx.recv().await {
        let written = async {
            writer.write_all(&bytes).await?;
            writer.flush().await
        };
        if let Err(e) = written.await {
            // A write fails when the other side has gone, and then its
            // reading side ends too and says more (a child's exit status
            // and last stderr lines): that reason is given a moment to
            // come first. Only a side that stopped reading but still
            // writes gets this one.
            link.calls.wait_closed(READING_SIDE_WAIT).await;
            link.calls
                .close(format!("writing to the other side failed: {e}"));
            return;
        }
    }
}

/// A peer's handle: when the last clone goes, its tasks stop and calls
/// still waiting fail.
pub(super) struct Handle<T> {
    pub(super) link: Arc<Link<T>>,
    tasks: Vec<AbortHandle>,
}

impl<T> Handle<T> {
    pub(super) fn new(link: Arc<Link<T>>, tasks: Vec<AbortHandle>) -> Arc<Self> {
        Arc::new(Handle { link, tasks })
    }
}

impl<T> Drop for Handle<T> {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.link.calls.close("the peer was dropped".into());
    }
}
