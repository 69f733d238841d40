//! Panics in provider code, caught where the server polls it.
//!
//! A panic that unwound through the gRPC handler would end its HTTP/2
//! stream with no answer (`Cancelled: h2 protocol error` in Terraform),
//! the message only on stderr. Each provider call is polled inside
//! [`catch`] instead, so the panic becomes a value the service answers
//! with (an error diagnostic, or a `FunctionError`), and the process and
//! every other call go on.

use std::any::Any;
use std::cell::RefCell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use std::task::Poll;

/// A caught panic: its message, and where it happened when known.
#[derive(Clone, Debug)]
pub(crate) struct Panic {
    pub(crate) message: String,
    /// `file:line:column`; `None` when another panic hook replaced the
    /// one [`catch`] installs.
    pub(crate) location: Option<String>,
}

impl Panic {
    fn from_payload(payload: Box<dyn Any + Send>) -> Panic {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "(a panic payload that is not a string)".to_string()
        };
        Panic {
            message,
            location: LOCATION.try_with(|l| l.borrow_mut().take()).ok().flatten(),
        }
    }

    /// "`message` (at `file:line:column`)".
    pub(crate) fn describe(&self) -> String {
        match &self.location {
            Some(at) => format!("{} (at {at})", self.message),
            None => self.message.clone(),
        }
    }
}

thread_local! {
    /// Where the last panic on this thread happened: the hook runs on the
    /// panicking thread just before the unwinding reaches [`catch`], on
    /// the same thread, which takes it.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Adds to the process's panic hook (once) a note of each panic's
/// location, for [`catch`]; the hook there before still runs (by default
/// it prints the panic to stderr, which Terraform logs).
fn note_locations() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            // try_with: a panic while the thread exits finds the
            // thread-local gone; a second panic here would abort.
            let _ = LOCATION.try_with(|l| *l.borrow_mut() = at);
            previous(info);
        }));
    });
}

/// `f`'s output, or the panic that ended it. After a panic `f` is not
/// polled again (it is dropped with the returned future).
pub(crate) fn catch<F: Future + Send>(
    f: F,
) -> impl Future<Output = Result<F::Output, Panic>> + Send {
    note_locations();
    let mut f = Box::pin(f);
    // The future is never polled after it panicked, so whatever state the
    // panic left it in is not observed: unwind safety holds.
    std::future::poll_fn(
        move |cx| match catch_unwind(AssertUnwindSafe(|| f.as_mut().poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(Panic::from_payload(payload))),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_its_message_and_location() {
        let p = catch(async { panic!("boom {}", 7) }).await.unwrap_err();
        assert_eq!(p.message, "boom 7");
        let at = p.location.expect("the location is noted");
        assert!(at.starts_with(file!()), "{at}");
        assert_eq!(catch(async { 5 }).await.unwrap(), 5);
    }
}
