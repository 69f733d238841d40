//! Shared by the property tests and the fuzz targets (included by path).

use ctywire::Value;

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
