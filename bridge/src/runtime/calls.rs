//! The calls a peer has in flight: one table for both protocols.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{oneshot, Notify};

use super::CallError;

/// Calls waiting for their answers (of type `T`), and whether the
/// connection has closed, and why.
pub(super) struct Calls<T> {
    state: Mutex<State<T>>,
    /// Woken when the connection closes.
    closing: Notify,
    /// The largest id the protocol can carry (msgpack-rpc's are 32-bit).
    max_id: u64,
}

struct State<T> {
    next: u64,
    pending: HashMap<u64, oneshot::Sender<Result<T, CallError>>>,
    closed: Option<String>,
}

impl<T> Calls<T> {
    pub(super) fn new(max_id: u64) -> Self {
        Calls {
            state: Mutex::new(State {
                next: 1,
                pending: HashMap::new(),
                closed: None,
            }),
            closing: Notify::new(),
            max_id,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<T>> {
        // A panic while holding this lock would be a bug in this module;
        // the table is still consistent, so go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new call: its id, and where its answer will arrive. Ids increase
    /// and wrap at `max_id`, skipping any still in flight.
    pub(super) fn begin(&self) -> Result<Pending<'_, T>, CallError> {
        let mut s = self.state();
        if let Some(why) = &s.closed {
            return Err(CallError::Closed(why.clone()));
        }
        let mut id = s.next;
        while s.pending.contains_key(&id) {
            id = if id >= self.max_id { 1 } else { id + 1 };
        }
        s.next = if id >= self.max_id { 1 } else { id + 1 };
        let (tx, rx) = oneshot::channel();
        s.pending.insert(id, tx);
        Ok(Pending {
            calls: self,
            id,
            rx: Some(rx),
        })
    }

    /// Delivers an answer; `false` when no call has that id.
    pub(super) fn answer(&self, id: u64, outcome: Result<T, CallError>) -> bool {
        let tx = self.state().pending.remove(&id);
        match tx {
            Some(tx) => {
                // The caller may have gone; then nobody wants the answer.
                let _ = tx.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Marks the connection closed (the first reason stays) and fails
    /// every call in flight with it at once.
    pub(super) fn close(&self, why: String) {
        let pending = {
            let mut s = self.state();
            let why = s.closed.get_or_insert(why).clone();
            std::mem::take(&mut s.pending)
                .into_values()
                .map(move |tx| (tx, why.clone()))
                .collect::<Vec<_>>()
        };
        for (tx, why) in pending {
            let _ = tx.send(Err(CallError::Closed(why)));
        }
        self.closing.notify_waiters();
    }

    /// Waits until the connection has closed, for at most `within`.
    pub(super) async fn wait_closed(&self, within: Duration) {
        // Registered before the check, so a close in between is not
        // missed; a close is never undone, so one wake-up is enough.
        let notified = self.closing.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.closed().is_none() {
            let _ = tokio::time::timeout(within, notified).await;
        }
    }

    /// Why the connection closed, if it has.
    pub(super) fn closed(&self) -> Option<String> {
        self.state().closed.clone()
    }

    /// How many calls are in flight.
    pub(super) fn in_flight(&self) -> usize {
        self.state().pending.len()
    }
}

/// One call in flight. Dropping it (a caller that gave up) forgets the
/// call, so a late answer is reported as one to no call.
pub(super) struct Pending<'c, T> {
    calls: &'c Calls<T>,
    pub(super) id: u64,
    rx: Option<oneshot::Receiver<Result<T, CallError>>>,
}

impl<T> Pending<'_, T> {
    /// The answer, or a timeout after `timeout`.
    pub(super) async fn answer(mut self, method: &str, timeout: Duration) -> Result<T, CallError> {
        let Some(rx) = self.rx.take() else {
            return Err(CallError::Closed("the call was already answered".into()));
        };
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            // The table dropped the sender without an answer: closing does
            // send one, so this is a peer that went away entirely.
            Ok(Err(_)) => Err(CallError::Closed(
                self.calls
                    .closed()
                    .unwrap_or_else(|| "the peer was dropped".into()),
            )),
            Err(_) => Err(CallError::Timeout {
                method: method.to_string(),
                after: timeout,
            }),
        }
    }
}

impl<T> Drop for Pending<'_, T> {
    fn drop(&mut self) {
        self.calls.state().pending.remove(&self.id);
    }
}
