//! Arbitrary bytes into a running msgpack-rpc peer with a call in flight
//! and a method served: never a panic, the call ends with the stream (an
//! answer from the bytes or the closed error, promptly, never a timeout).
#![no_main]

#[path = "common/peer.rs"]
mod peer;

use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::{MsgpackHandlers, MsgpackRpcPeer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    peer::feed(
        data,
        |r, w| {
            let echo = MsgpackHandlers::new().request("echo", |mut p: Vec<Raw>| async move {
                Ok(p.pop().unwrap_or_else(Raw::nil))
            });
            MsgpackRpcPeer::new(r, w, echo, peer::options())
        },
        |p| async move {
            // Id 1: the bytes may answer it, fail it, or close first.
            peer::ends_with_the_stream(p.call("first", vec![])).await;
            assert_eq!(p.in_flight(), 0);
        },
    );
});
