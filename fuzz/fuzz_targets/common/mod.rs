//! Input format shared by the decode targets: a type constraint in its JSON
//! form, a newline, then the payload. The fuzzer mutates both, so types are
//! arbitrary too, and seeds are easy to make from the fixtures.

#![allow(dead_code)]

use ctywire::{DecodeOptions, Type, Value};

/// Limits small enough that a fuzz run stays far below its memory cap.
pub fn options() -> DecodeOptions {
    DecodeOptions::new()
        .max_collection_len(100_000)
        .max_number_exponent(2_000)
}

/// Splits the input into a parsed type and the payload after the newline.
pub fn split(data: &[u8]) -> Option<(Type, &[u8])> {
    let nl = data.iter().position(|&b| b == b'\n')?;
    let ty = Type::parse_bytes(&data[..nl], 64).ok()?;
    Some((ty, &data[nl + 1..]))
}

/// Whether a negative zero appears anywhere: msgpack writes it as 0 (as
/// go-cty does), so a set holding -0 and 0 has one element fewer after a
/// round trip. The only value that msgpack does not carry exactly.
pub fn holds_negative_zero(v: &Value) -> bool {
    v.as_number()
        .is_some_and(|n| n.is_negative() && n.to_i64() == Some(0))
        || v.elements()
            .is_some_and(|e| e.iter().any(holds_negative_zero))
        || v.entries()
            .is_some_and(|mut e| e.any(|(_, x)| holds_negative_zero(x)))
        || v.attributes()
            .is_some_and(|mut a| a.any(|(_, x)| holds_negative_zero(x)))
}
