//! Newline-delimited JSON-RPC from arbitrary bytes, read through a small
//! buffer: never a panic, every line answered (a message or the error
//! response to send), and the reader always reaches the end.
#![no_main]

use std::io::BufReader;

use ctywire_bridge::jsonrpc::{LineReader, Message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut reader = LineReader::new(BufReader::with_capacity(7, data), 256);
    let mut lines = 0;
    while let Some(message) = reader.read().expect("reading from memory cannot fail") {
        lines += 1;
        assert!(lines <= data.len(), "more messages than bytes");
        match message {
            Ok(m) => {
                // What was read writes out and reads back the same, and
                // writing it straight gives the document's own text.
                let doc = m.to_json();
                let mut straight = Vec::new();
                m.write_into(&mut straight);
                assert_eq!(straight, doc.to_vec(), "written straight as its document");
                let again = Message::from_json(doc).expect("a valid message stays valid");
                assert_eq!(again, m);
            }
            Err(response) => assert!(matches!(
                *response,
                Message::Response {
                    outcome: Err(_),
                    ..
                }
            )),
        }
    }
});
