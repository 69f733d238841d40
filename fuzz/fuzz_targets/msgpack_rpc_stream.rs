//! A msgpack-rpc stream fed in arbitrary chunks: never a panic, the buffer
//! stays bounded, and every message decoded re-encodes to bytes that
//! decode to it again.
#![no_main]

use ctywire_bridge::msgpack_rpc::{Message, StreamDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, stream)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(chunk % 16) + 1;
    let mut decoder = StreamDecoder::new(4096);
    for piece in stream.chunks(chunk) {
        if decoder.feed(piece).is_err() {
            return;
        }
        assert!(decoder.pending() <= 4096);
        loop {
            match decoder.next() {
                Ok(Some(m)) => assert_eq!(
                    Message::decode(&m.encode()).expect("re-encoded message decodes"),
                    m
                ),
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
});
