//! The `log` crate routed to the host as `log` notifications (§2.5): a
//! record becomes `{level, message, fields}` (its key-values, as
//! strings) in a bounded queue, which a task sends on, and which each
//! answer flushes first, so what a call logged reaches the host before
//! the call's answer.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::MsgpackRpcPeer;
use tokio::sync::Notify;

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
    peer: Mutex<Option<(MsgpackRpcPeer, Arc<Output>)>>,
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
    let queue = Arc::new(LogQueue {
        pending: Mutex::new(VecDeque::new()),
        dropped: AtomicU64::new(0),
        wake: Notify::new(),
        sending: tokio::sync::Mutex::new(()),
        peer: Mutex::new(None),
    });
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
        if let Ok(mut p) = self.peer.lock() {
            *p = Some((peer, output));
        }
        self.wake.notify_one();
    }

    pub(super) fn detach(&self) {
        if let Ok(mut p) = self.peer.lock() {
            *p = None;
        }
        if let Ok(mut current) = CURRENT.write() {
            *current = None;
        }
    }

    /// Sends every record queued so far (once a peer is attached).
    pub(super) async fn flush(&self) {
        let _one_at_a_time = self.sending.lock().await;
        let Some((peer, output)) = self.peer.lock().ok().and_then(|p| p.clone()) else {
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
