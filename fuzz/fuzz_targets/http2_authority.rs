//! Arbitrary client byte streams through the `:authority` filter h2
//! reads a connection through (`ctywire_tfplugin6::authority`), pushed in
//! pieces. Never a panic; a stream that needed no rewrite comes out byte
//! for byte as it went in; what a rewrite puts out is frames h2 takes.
#![no_main]

use ctywire_tfplugin6::authority::AuthorityFilter;
use libfuzzer_sys::fuzz_target;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    // Bit 7: the connection preface goes first (so the fuzzer spends its
    // time past it); the low bits: the size of the pieces pushed.
    let mut input = vec![];
    if control & 0x80 != 0 {
        input.extend_from_slice(PREFACE);
    }
    input.extend_from_slice(rest);
    let piece = usize::from(control & 0x3f) + 1;

    let mut filter = AuthorityFilter::new();
    let mut out = vec![];
    let mut closed = false;
    for chunk in input.chunks(piece) {
        if filter.push(chunk, &mut out).is_err() {
            closed = true;
            break;
        }
    }
    if !closed {
        filter.finish(&mut out);
    }
    if !filter.rewrote() {
        assert!(!closed, "closed without a rewrite");
        assert_eq!(out, input, "changed without a rewrite");
        return;
    }
    if closed {
        // Nothing more is read from the connection.
        return;
    }
    // After the preface, every header frame is within the frame size h2
    // takes.
    assert!(out.starts_with(PREFACE));
    let mut frames = &out[PREFACE.len()..];
    while frames.len() >= 9 {
        let len =
            usize::from(frames[0]) << 16 | usize::from(frames[1]) << 8 | usize::from(frames[2]);
        if matches!(frames[3], 0x1 | 0x9) {
            assert!(len <= 16_384, "a header frame of {len} bytes");
        }
        frames = &frames[(9 + len).min(frames.len())..];
    }
});
