//! Arbitrary bytes from "the other side" into a running peer, whose own
//! output is drained: the peer never panics, every call it has in flight
//! ends when the stream does, and nothing stays pending.

use std::future::Future;
use std::time::Duration;

use ctywire_bridge::runtime::{CallError, PeerOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};

/// How soon a call in flight must end once the stream has: the input is
/// all written at once, so only the peer's own reaction time is left.
const PROMPTLY: Duration = Duration::from_secs(2);

/// Small limits, so that long inputs exercise them; a call timeout far
/// beyond [`PROMPTLY`], so that a timeout can never pass for the end.
pub fn options() -> PeerOptions {
    PeerOptions {
        call_timeout: Duration::from_secs(600),
        max_message: 512,
        write_queue: 8,
    }
}

/// Runs `start` on one end of a pipe, writes `data` into the other and
/// closes it, drains what the peer writes back, then runs `check`.
pub fn feed<P, Start, Check, Fut>(data: &[u8], start: Start, check: Check)
where
    Start: FnOnce(ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) -> P,
    Check: FnOnce(P) -> Fut,
    Fut: Future<Output = ()>,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (near, far) = tokio::io::duplex(1 << 12);
        let (fr, fw) = tokio::io::split(far);
        let peer = start(fr, fw);
        let (mut nr, mut nw) = tokio::io::split(near);
        let drain = tokio::spawn(async move {
            let mut sink = [0u8; 4096];
            while matches!(nr.read(&mut sink).await, Ok(n) if n > 0) {}
        });
        let data = data.to_vec();
        let writer = tokio::spawn(async move {
            let _ = nw.write_all(&data).await;
            let _ = nw.shutdown().await;
        });
        check(peer).await;
        let _ = writer.await;
        drain.abort();
    });
}

/// Awaits a call made while the stream was carrying the input: the bytes
/// may answer it (with a result or an error), but if they do not, the call
/// must fail with the closed error as soon as the stream ends, never wait
/// for its timeout.
pub async fn ends_with_the_stream<T>(call: impl Future<Output = Result<T, CallError>>) {
    match tokio::time::timeout(PROMPTLY, call).await {
        Err(_) => panic!("a call in flight did not end within {PROMPTLY:?} of the stream's end"),
        Ok(Err(e @ CallError::Timeout { .. })) => {
            panic!("a call in flight timed out instead of failing at the stream's end: {e}")
        }
        Ok(_) => {}
    }
}
