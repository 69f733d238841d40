//! The `log` crate routed to the host as `log` notifications (§2.5): a
//! record becomes `{level, message, fields}` (its key-values, as
//! strings) in a bounded queue, which a task sends on, and which each
//! answer flushes first, so what a call logged reaches the host before
//! the call's answer.
//!
//! The guarantee holds from the first request on: the peer starts
//! serving before it can be attached here, so a flush made before the
//! attachment waits for it (instead of returning with the records still
//! queued, which then went out after the answer).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::MsgpackRpcPeer;
use tokio::sync::{watch, Notify};

use super::dispatch::Output;
use crate::protocol::{method, Fields};

/// Records waiting beyond this many are dropped (and counted): a plugin
/// that logs faster than the host reads must not grow without bound.
const MAX_PENDING: usize = 10_000;

pub(super) struct LogQueue {
    pending: Mutex<VecDeque<Raw>>,
    dropped: AtomicU64,
    wake: Notify,
    /// One sender at a time, so records go out in the order logged.
    sending: tokio::sync::Mutex<()>,
    peer: watch::Sender<Attachment>,
}

/// Where the queue stands with the peer it sends on.
#[derive(Clone)]
enum Attachment {
    /// Not yet: records wait, and so does a flush.
    Awaited,
    Attached(MsgpackRpcPeer, Arc<Output>),
    /// The plugin has ended: nothing more is sent, no flush waits.
    Detached,
}

/// The queue the process's `log` records go to (the `log` crate has one
/// logger per process; the plugin serving on stdio owns it).
static CURRENT: RwLock<Option<Arc<LogQueue>>> = RwLock::new(None);

struct Router;

static ROUTER: Router = Router;

impl log::Log for Router {
    fn enabled(&self, _: &log::Metadata) -> bool {
        CURRENT.read().is_ok_and(|q| q.is_some())
    }

    fn log(&self, record: &log::Record) {
        let Some(queue) = CURRENT.read().ok().and_then(|q| q.clone()) else {
            return;
        };
        queue.push(encode(record));
    }

    fn flush(&self) {}
}

/// Routes the `log` crate to a new queue, sent on by a task of the
/// current runtime once a peer is attached.
pub(super) fn install() -> Arc<LogQueue> {
    let queue = Arc::new(LogQueue::new());
    if let Ok(mut current) = CURRENT.write() {
        *current = Some(queue.clone());
    }
    // Another logger set first (by the author) keeps its place.
    if log::set_logger(&ROUTER).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
    let forwarding = queue.clone();
    tokio::spawn(async move {
        loop {
            forwarding.wake.notified().await;
            forwarding.flush().await;
        }
    });
    queue
}

impl LogQueue {
    fn new() -> LogQueue {
        LogQueue {
            pending: Mutex::new(VecDeque::new()),
            dropped: AtomicU64::new(0),
            wake: Notify::new(),
            sending: tokio::sync::Mutex::new(()),
            peer: watch::Sender::new(Attachment::Awaited),
        }
    }

    fn push(&self, params: Raw) {
        if let Ok(mut pending) = self.pending.lock() {
            if pending.len() >= MAX_PENDING {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            pending.push_back(params);
        }
        self.wake.notify_one();
    }

    pub(super) fn attach(&self, peer: MsgpackRpcPeer, output: Arc<Output>) {
        self.peer.send_replace(Attachment::Attached(peer, output));
        self.wake.notify_one();
    }

    pub(super) fn detach(&self) {
        self.peer.send_replace(Attachment::Detached);
        if let Ok(mut current) = CURRENT.write() {
            *current = None;
        }
    }

    /// Sends every record queued so far, waiting for the peer to be
    /// attached if it is not yet (it is attached right after it is made,
    /// so this wait is short; after `detach` nothing is sent).
    pub(super) async fn flush(&self) {
        let _one_at_a_time = self.sending.lock().await;
        let mut attachment = self.peer.subscribe();
        let now = match attachment
            .wait_for(|a| !matches!(a, Attachment::Awaited))
            .await
        {
            Ok(now) => now.clone(),
            Err(_) => return,
        };
        let Attachment::Attached(peer, output) = now else {
            return;
        };
        let send = |params: Raw| {
            let peer = peer.clone();
            let output = output.clone();
            async move {
                let sent = peer.notify(method::LOG, vec![params]).await.is_ok();
                if sent {
                    output.queued.fetch_add(1, Ordering::AcqRel);
                }
                sent
            }
        };
        let batch: Vec<Raw> = match self.pending.lock() {
            Ok(mut pending) => pending.drain(..).collect(),
            Err(_) => return,
        };
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let mut f = Fields::new();
            f.insert_str("level", "warn");
            f.insert_str(
                "message",
                &format!("{dropped} log records were dropped: the host did not read them in time"),
            );
            send(f.encode()).await;
        }
        for params in batch {
            if !send(params).await {
                return;
            }
        }
    }
}

/// `{level, message, fields}`.
fn encode(record: &log::Record) -> Raw {
    let mut f = Fields::new();
    let level = match record.level() {
        log::Level::Error => "error",
        log::Level::Warn => "warn",
        log::Level::Info => "info",
        log::Level::Debug => "debug",
        log::Level::Trace => "trace",
    };
    f.insert_str("level", level);
    f.insert_str("message", &record.args().to_string());
    let mut fields = Fields::new();
    struct Collect<'f>(&'f mut Fields);
    impl<'kvs> log::kv::VisitSource<'kvs> for Collect<'_> {
        fn visit_pair(
            &mut self,
            key: log::kv::Key<'kvs>,
            value: log::kv::Value<'kvs>,
        ) -> Result<(), log::kv::Error> {
            self.0.insert_str(key.as_str(), &value.to_string());
            Ok(())
        }
    }
    let _ = record.key_values().visit(&mut Collect(&mut fields));
    if fields.keys().next().is_some() {
        f.insert_raw("fields", fields.encode());
    }
    f.encode()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ctywire_bridge::msgpack_rpc::{Message, StreamDecoder};
    use ctywire_bridge::runtime::{MsgpackHandlers, PeerOptions};
    use tokio::io::AsyncReadExt;

    use super::*;

    fn record(message: &str) -> Raw {
        let mut f = Fields::new();
        f.insert_str("level", "info");
        f.insert_str("message", message);
        f.encode()
    }

    /// The peer's reader task starts serving before `run` attaches the
    /// peer to the queue: an answer made in that window must still send
    /// what its call logged first, not leave it for after the answer.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_flushed_before_the_peer_is_attached_sends_the_record_first() {
        let queue = Arc::new(LogQueue::new());
        queue.push(record("made slug"));
        let answering = tokio::spawn({
            let queue = queue.clone();
            async move { queue.flush().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        // The host's ends: one it would write requests to, one it reads.
        let (from_host, _to_plugin) = tokio::io::duplex(1 << 16);
        let (to_host, mut from_plugin) = tokio::io::duplex(1 << 16);
        let peer = MsgpackRpcPeer::new(
            from_host,
            to_host,
            MsgpackHandlers::new(),
            PeerOptions::default(),
        );
        queue.attach(peer, Arc::default());
        answering.await.unwrap();
        // The answer would be queued now: the record must be out already.
        let mut buf = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(2), from_plugin.read(&mut buf))
            .await
            .expect("the record was sent before the answer")
            .unwrap();
        let mut decoder = StreamDecoder::new(1 << 16);
        decoder.feed(&buf[..n]).unwrap();
        let Some(Message::Notification { method: m, params }) = decoder.next().unwrap() else {
            panic!("not a notification: {:x?}", &buf[..n])
        };
        assert_eq!(m, method::LOG);
        assert_eq!(params, vec![record("made slug")]);
    }
}
