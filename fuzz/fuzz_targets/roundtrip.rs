//! decode → encode → decode is stable: once a payload decodes, its
//! re-encoding decodes, and encodes to the same bytes again. The same for
//! JSON on wholly known values.
#![no_main]

mod common;

use ctywire::{json, msgpack};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((ty, payload)) = common::split(data) else {
        return;
    };
    let opts = common::options();
    let Ok(first) = msgpack::decode_with(payload, &ty, &opts) else {
        return;
    };
    let bytes = msgpack::encode(&first, &ty).expect("a decoded value encodes");
    let second = msgpack::decode_with(&bytes, &ty, &opts).expect("ctywire's own bytes decode");
    let again = msgpack::encode(&second, &ty).expect("encodes again");
    if !common::negative_zero::holds_negative_zero(&first) {
        assert_eq!(again, bytes, "msgpack re-encoding changed");
    }
    if second.is_wholly_known() {
        if let Ok(text) = json::encode(&second, &ty) {
            let third = json::decode_with(&text, &ty, &opts).expect("ctywire's own JSON decodes");
            assert_eq!(
                json::encode(&third, &ty).expect("encodes again"),
                text,
                "JSON re-encoding changed"
            );
        }
    }
});
