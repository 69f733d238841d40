//! Input format shared by the decode targets: a type constraint in its JSON
//! form, a newline, then the payload. The fuzzer mutates both, so types are
//! arbitrary too, and seeds are easy to make from the fixtures.

#![allow(dead_code)]

use ctywire::{DecodeOptions, Type};

/// Limits small enough that a fuzz run stays far below its memory cap.
pub fn options() -> DecodeOptions {
    DecodeOptions::new()
        .max_collection_len(100_000)
        .max_number_exponent(2_000)
}

/// Splits the input into a parsed type and the payload after the newline.
pub fn split(data: &[u8]) -> Option<(Type, &[u8])> {
    let nl = data.iter().position(|&b| b == b'\n')?;
    let ty = Type::parse_with(&data[..nl], &ctywire::DecodeOptions::new().max_depth(64)).ok()?;
    Some((ty, &data[nl + 1..]))
}

#[path = "../../../tests/support/negative_zero.rs"]
pub mod negative_zero;
