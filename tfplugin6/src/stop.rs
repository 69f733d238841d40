//! `StopProvider`'s signal: what the server cancels calls in flight with,
//! and what a provider may await itself.

use std::future::Future;

use tokio::runtime::Handle;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Fires when Terraform calls `StopProvider` (the user pressed Ctrl-C)
/// after this signal was taken.
///
/// The server runs every provider call under the signal of the moment the
/// call started, and drops (cancels) a call still running when it fires:
/// a provider whose calls are plain futures needs nothing more. A call
/// started after `StopProvider` gets a fresh signal and runs normally (as
/// terraform-plugin-sdk makes a new stop channel after each stop).
///
/// To stop work that outlives the call, such as a spawned task, take the
/// call's signal with [`StopSignal::current`] and await
/// [`stopped`](Self::stopped) there. [`ProviderService::stop_signal`]
/// gives the signal of calls starting now, to code around the server.
///
/// [`ProviderService::stop_signal`]: crate::ProviderService::stop_signal
#[derive(Clone, Debug)]
pub struct StopSignal {
    // The number of stops so far; this signal fires once it passes
    // `generation`.
    stops: watch::Receiver<u64>,
    generation: u64,
}

tokio::task_local! {
    static CURRENT: StopSignal;
}

impl StopSignal {
    /// Whether `StopProvider` has been called since this signal was taken.
    pub fn is_stopped(&self) -> bool {
        *self.stops.borrow() > self.generation
    }

    /// Returns once `StopProvider` has been called since this signal was
    /// taken (at once if it has been already). Never returns if the
    /// server is gone without a stop.
    pub async fn stopped(&self) {
        let mut stops = self.stops.clone();
        let generation = self.generation;
        if stops.wait_for(|n| *n > generation).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// The signal of the provider call in progress, when called (directly
    /// or in a future it awaits) from inside a call the server made;
    /// `None` elsewhere, such as in a spawned task (take the signal before
    /// spawning and move it in).
    pub fn current() -> Option<StopSignal> {
        CURRENT.try_with(Clone::clone).ok()
    }
}

/// The server's side: counts stops and runs calls under the signal.
#[derive(Debug)]
pub(crate) struct Stopper {
    stops: watch::Sender<u64>,
}

impl Stopper {
    pub(crate) fn new() -> Self {
        Stopper {
            stops: watch::Sender::new(0),
        }
    }

    /// The signal of calls starting now.
    pub(crate) fn signal(&self) -> StopSignal {
        StopSignal {
            stops: self.stops.subscribe(),
            generation: *self.stops.borrow(),
        }
    }

    /// Fires every signal taken so far.
    pub(crate) fn stop(&self) {
        self.stops.send_modify(|n| *n += 1);
    }

    /// `call`'s output, run as a task of `runtime`, or `None` when a stop
    /// came first (or the runtime is shutting down). A stopped call is
    /// aborted: it ends at its next `.await`, and a call blocking its
    /// thread is answered for at once all the same (the thread stays
    /// blocked until the code returns).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        runtime: &Handle,
        call: impl Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let signal = self.signal();
        // Aborted when this future is dropped too: a call whose client
        // went away is cancelled, as it was when the call ran in place.
        let mut task = AbortOnDrop(runtime.spawn(CURRENT.scope(signal.clone(), call)));
        tokio::select! {
            biased;
            out = &mut task.0 => out.ok(),
            () = signal.stopped() => None,
        }
    }
}

/// A task that is aborted when its handle is dropped.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_stop_cancels_calls_in_flight_and_not_the_ones_after_it() {
        let stopper = std::sync::Arc::new(Stopper::new());
        let before = stopper.signal();
        let (has_signal, in_call) = tokio::sync::oneshot::channel();
        let running = {
            let stopper = stopper.clone();
            tokio::spawn(async move {
                stopper
                    .run(&Handle::current(), async {
                        let _ = has_signal.send(StopSignal::current().is_some());
                        std::future::pending::<()>().await
                    })
                    .await
            })
        };
        assert!(in_call.await.unwrap(), "the call sees its stop signal");
        assert!(!before.is_stopped());
        stopper.stop();
        assert!(before.is_stopped());
        before.stopped().await;
        let out = tokio::time::timeout(Duration::from_secs(1), running)
            .await
            .expect("the call in flight ends at the stop")
            .unwrap();
        assert_eq!(out, None);
        // After the stop: a fresh signal, and calls run to their end.
        assert!(!stopper.signal().is_stopped());
        assert_eq!(stopper.run(&Handle::current(), async { 7 }).await, Some(7));
        assert!(StopSignal::current().is_none());
    }
}
