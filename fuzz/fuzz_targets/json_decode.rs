//! JSON decoding under an arbitrary type: never a panic, and whatever
//! decodes can be written as msgpack.
#![no_main]

mod common;

use ctywire::{json, msgpack};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((ty, payload)) = common::split(data) else {
        return;
    };
    if let Ok(value) = json::decode_with(payload, &ty, &common::options()) {
        msgpack::encode(&value, &ty).expect("a decoded value encodes");
    }
});
