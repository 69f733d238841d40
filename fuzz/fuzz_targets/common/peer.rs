//! Arbitrary bytes from "the other side" into a running peer, whose own
//! output is drained: the peer never panics, every call it has in flight
//! ends when the stream does, and nothing stays pending.

use std::future::Future;
use std::time::Duration;

use ctywire_bridge::runtime::PeerOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};

/// Small limits, so that long inputs exercise them.
pub fn options() -> PeerOptions {
    PeerOptions {
        call_timeout: Duration::from_secs(5),
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
