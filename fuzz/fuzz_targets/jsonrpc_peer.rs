//! Arbitrary bytes into a running JSON-RPC peer with a call in flight and
//! a method served: never a panic, the call ends with the stream (an
//! answer from the bytes or the closed error, promptly, never a timeout),
//! and nothing is left pending.
#![no_main]

#[path = "common/peer.rs"]
mod peer;

use ctywire_bridge::runtime::{Handlers, JsonRpcPeer};
use ctywire_bridge::Json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    peer::feed(
        data,
        |r, w| {
            let echo =
                Handlers::new().request("echo", |p| async move { Ok(p.unwrap_or(Json::Null)) });
            JsonRpcPeer::new(r, w, echo, peer::options())
        },
        |p| async move {
            // Id 1: the bytes may answer it, fail it, or close first.
            peer::ends_with_the_stream(p.call("first", None)).await;
            assert_eq!(p.in_flight(), 0);
        },
    );
});
