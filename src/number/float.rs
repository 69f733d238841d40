//! float64 and exact decimals: a float64's binary parts and its exact
//! decimal expansion, and the float64 (if any) a decimal equals.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use super::parse_digits;

/// A finite non-zero f64 as `mant × 2^exp` with `mant < 2^53`.
pub(super) fn decompose(f: f64) -> (u64, i32) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    }
}

/// The exact decimal expansion of `m × 2^e` as (digits, point), trimmed.
pub(super) fn exact_decimal(m: &BigUint, e: i32) -> (Vec<u8>, i32) {
    if m.is_zero() {
        return (Vec::new(), 0);
    }
    let (n, shift10) = if e >= 0 {
        (m << (e as usize), 0)
    } else {
        (m * BigUint::from(5u32).pow((-e) as u32), e)
    };
    let mut digits = n.to_string().into_bytes();
    let point = digits.len() as i32 + shift10;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, point)
}

/// The float64 equal to the non-integral decimal `±0.DIGITS × 10^point`,
/// if there is one.
pub(super) fn exact_f64(negative: bool, digits: &[u8], point: i32) -> Option<f64> {
    // value = D / 10^k with k > 0 fractional digits; it is a binary fraction
    // only if 5^k divides D, and then value = (D / 5^k) / 2^k.
    let k = digits.len() as i64 - i64::from(point);
    if k <= 0 || k > 1100 {
        return None;
    }
    if digits.len() <= 19 {
        let d: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        return small_exact_f64(negative, d, k);
    }
    let d = parse_digits(digits)?;
    let p = BigUint::from(5u32).pow(k as u32);
    if !(&d % &p).is_zero() {
        return None;
    }
    let q = d / p;
    let tz = q.trailing_zeros()?; // None for zero, which is no fraction
    let odd = q >> tz;
    scaled(negative, odd.to_u64()?, tz as i64 - k)
}

/// [`exact_f64`] of canonical decimal text with a point (`-12.345`,
/// `0.05`): read straight from the text when its digits fit in a u64, as
/// nearly all do, rather than taken apart into a vector of digits first
/// (which both encoders did for every such number they wrote).
pub(super) fn exact_f64_of_text(text: &str) -> Option<f64> {
    let (negative, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = t.split_once('.')?;
    if int.len() + frac.len() > 19 {
        let (negative, digits, point) = super::decimal_parts(text);
        return exact_f64(negative, &digits, point);
    }
    let mut d: u64 = 0;
    for c in int.bytes().chain(frac.bytes()) {
        if !c.is_ascii_digit() {
            return None;
        }
        // At most 19 digits: below 10^19, within u64.
        d = d * 10 + u64::from(c - b'0');
    }
    match frac.len() as i64 {
        0 => None,
        k => small_exact_f64(negative, d, k),
    }
}

/// `±D / 10^k` (k > 0) as a float64, if it is one, for D in a u64.
fn small_exact_f64(negative: bool, d: u64, k: i64) -> Option<f64> {
    if k > 27 {
        return None; // 5^28 > 2^64 > D, so 5^k cannot divide it.
    }
    let p = 5u64.pow(k as u32);
    if d % p != 0 {
        return None;
    }
    let q = d / p;
    if q == 0 {
        return None; // zero is no fraction
    }
    let tz = q.trailing_zeros();
    scaled(negative, q >> tz, i64::from(tz) - k)
}

/// `±odd × 2^lsb_exp` as a float64, if it is one: odd of at most 53
/// bits, and in range.
fn scaled(negative: bool, odd: u64, lsb_exp: i64) -> Option<f64> {
    let bits = i64::from(64 - odd.leading_zeros());
    if bits > 53 || lsb_exp < -1074 || lsb_exp + bits > 1024 {
        return None;
    }
    let scale = if lsb_exp >= -1022 {
        f64::from_bits(((lsb_exp + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (lsb_exp + 1074))
    };
    let v = odd as f64 * scale;
    Some(if negative { -v } else { v })
}
