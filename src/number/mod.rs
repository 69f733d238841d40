//! cty numbers: arbitrary precision, with go-cty's provenance rules.
//!
//! go-cty keeps numbers as Go `big.Float`s whose precision depends on where
//! they came from, and that precision shows in the bytes: a float64 `0.1`
//! goes out as msgpack float64 (`cb3fb999999999999a`), the text `"0.1"` as
//! the msgpack string `a3302e31`. ctywire keeps the same three provenances:
//!
//! * integers (from msgpack ints, or any integral value) — exact, any size;
//! * non-integral float64s (from msgpack floats) — the binary value, printed
//!   the way Go prints a 53-bit `big.Float`;
//! * decimals (from text: msgpack strings, JSON) — the exact decimal.
//!
//! Deliberate differences from go-cty, both so that no number ever changes
//! its value: an integral value always prints all its digits (go-cty issue
//! 220 rounds 2^63 to `9223372036854776000`), and decimal text is kept
//! exactly where go-cty rounds it to 512 bits (which only shows beyond ~154
//! significant digits).
//!
//! Here: the type, its queries and its comparisons. Text comes in through
//! `parse`, goes out through `format`; `float` links float64s to exact
//! decimals for both.

mod float;
mod format;
mod parse;

use std::cmp::Ordering;

use compact_str::CompactString;
use num_bigint::BigUint;

use crate::error::{Error, Result};
use float::{decompose, exact_decimal, exact_f64_of_text};
use format::write_f_format;
pub use parse::DEFAULT_MAX_NUMBER_EXPONENT;

/// An arbitrary-precision cty number. Never NaN; may be ±infinity.
///
/// ```
/// use ctywire::Number;
/// let n: Number = "123456789012345678901234567890.123456789".parse()?;
/// assert_eq!(n.to_string(), "123456789012345678901234567890.123456789");
/// assert_eq!(Number::from_f64(0.1)?.to_string(), "0.1");
/// assert_eq!("1e3".parse::<Number>()?.to_i64(), Some(1000));
/// assert!(Number::from_f64(f64::NAN).is_err());
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone)]
#[cfg_attr(test, derive(Debug, PartialEq))]
enum Repr {
    /// Any integer that fits in i64 (never negative zero).
    Int(i64),
    /// A finite float64 that is not an integer.
    Float(f64),
    /// Anything else finite: a non-integral decimal, or an integer outside
    /// i64, held as its canonical text (`-12.345`, `18446744073709551616`):
    /// that is what both encoders write, and it keeps the number small.
    Decimal(CompactString),
    NegZero,
    Inf {
        negative: bool,
    },
}

/// A borrowed or computed exact decimal view of a finite number.
struct Exact<'a> {
    negative: bool,
    /// Empty for zero.
    digits: std::borrow::Cow<'a, [u8]>,
    point: i32,
}

impl Number {
    /// Positive or negative infinity.
    pub fn infinity(negative: bool) -> Number {
        Number(Repr::Inf { negative })
    }

    /// An integer.
    pub fn from_i64(v: i64) -> Number {
        Number(Repr::Int(v))
    }

    /// An unsigned integer.
    pub fn from_u64(v: u64) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number(Repr::Int(i)),
            Err(_) => Number::from_integer_digits(false, v.to_string().into_bytes()),
        }
    }

    /// A float64. NaN is an error (go-cty panics on it); an integral value
    /// becomes an exact integer.
    pub fn from_f64(v: f64) -> Result<Number> {
        if v.is_nan() {
            return Err(Error::data("NaN is not a number cty can hold"));
        }
        if v.is_infinite() {
            return Ok(Number::infinity(v < 0.0));
        }
        if v == 0.0 {
            return Ok(if v.is_sign_negative() {
                Number(Repr::NegZero)
            } else {
                Number(Repr::Int(0))
            });
        }
        if v.fract() != 0.0 {
            return Ok(Number(Repr::Float(v)));
        }
        // Integral: exact, whatever its size.
        let two_pow_63 = (1u64 << 63) as f64;
        if (-two_pow_63..two_pow_63).contains(&v) {
            return Ok(Number(Repr::Int(v as i64)));
        }
        let (mant, exp2) = decompose(v);
        let n = BigUint::from(mant) << (exp2 as usize);
        Ok(Number::from_integer_digits(
            v < 0.0,
            n.to_string().into_bytes(),
        ))
    }

    fn from_integer_digits(negative: bool, digits: Vec<u8>) -> Number {
        let point = digits.len() as i32;
        Number::normalize(negative, digits, point)
    }

    /// Builds from `0.DIGITS × 10^point`, trimming zeros and choosing the
    /// representation. `digits` must be ASCII digits.
    fn normalize(negative: bool, mut digits: Vec<u8>, mut point: i32) -> Number {
        let lead = digits.iter().take_while(|&&d| d == b'0').count();
        if lead == digits.len() {
            return if negative {
                Number(Repr::NegZero)
            } else {
                Number(Repr::Int(0))
            };
        }
        if lead > 0 {
            digits.drain(..lead);
            point -= lead as i32;
        }
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        if point >= digits.len() as i32 && point <= 19 {
            let mut mag: u128 = 0;
            for &d in &digits {
                mag = mag * 10 + u128::from(d - b'0');
            }
            for _ in digits.len() as i32..point {
                mag *= 10;
            }
            let v = if negative {
                -(mag as i128)
            } else {
                mag as i128
            };
            if let Ok(i) = i64::try_from(v) {
                return Number(Repr::Int(i));
            }
        }
        let mut text = CompactString::with_capacity(digits.len() + 3);
        write_f_format(&mut text, negative, &digits, point);
        Number(Repr::Decimal(text))
    }

    /// Whether the value is a (finite) integer.
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(_) | Repr::NegZero => true,
            Repr::Float(_) | Repr::Inf { .. } => false,
            Repr::Decimal(text) => !text.contains('.'),
        }
    }

    /// Whether the value is ±infinity.
    pub fn is_infinite(&self) -> bool {
        matches!(self.0, Repr::Inf { .. })
    }

    /// Whether the sign is negative (including negative zero).
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Int(i) => *i < 0,
            Repr::Float(f) => *f < 0.0,
            Repr::Decimal(text) => text.starts_with('-'),
            Repr::Inf { negative } => *negative,
            Repr::NegZero => true,
        }
    }

    /// The value as an `i64`, if it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(i) => Some(*i),
            Repr::NegZero => Some(0),
            _ => None,
        }
    }

    /// The value as a `u64`, if it is a non-negative integer in range.
    pub fn to_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(i) => u64::try_from(*i).ok(),
            Repr::NegZero => Some(0),
            Repr::Decimal(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The nearest `f64` (lossy for most decimals and large integers).
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Int(i) => *i as f64,
            Repr::Float(f) => *f,
            Repr::NegZero => -0.0,
            Repr::Inf { negative } => {
                if *negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            // Rust's parser rounds decimal text correctly, and canonical
            // decimal text is always valid to it; were it not, NaN (which
            // no Number holds) would show it rather than some wrong value.
            Repr::Decimal(text) => text.parse().unwrap_or(f64::NAN),
        }
    }

    /// The i64 this number is held as, if any (never -0, which is not an
    /// i64): `from_i64` makes this same number again.
    #[cfg(feature = "serde")]
    pub(crate) fn as_held_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The float64 this number is held as, if any (a finite fraction):
    /// `from_f64` makes this same number again.
    #[cfg(feature = "serde")]
    pub(crate) fn as_held_f64(&self) -> Option<f64> {
        match self.0 {
            Repr::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The decimal equal to the finite, non-zero float64 `f`: its exact
    /// value held as text, as if it had been read as text (`0.5`), which
    /// encoders write as text where the float64 itself would be written as
    /// a float64. The inverse of [`non_integer_as_exact_f64`] for decimals.
    ///
    /// [`non_integer_as_exact_f64`]: Number::non_integer_as_exact_f64
    #[cfg(feature = "serde")]
    pub(crate) fn decimal_of_f64(f: f64) -> Number {
        let (m, e) = decompose(f);
        let (digits, point) = exact_decimal(&BigUint::from(m), e);
        Number::normalize(f < 0.0, digits, point)
    }

    /// The float64 equal to this non-integral number, if float64 holds it
    /// exactly: every float64 read from the wire, a binary fraction read as
    /// text (`0.5`), and ±infinity. `None` for every integer, even one
    /// float64 holds (`2^70`), and for fractions it cannot hold (`0.1`).
    pub(crate) fn non_integer_as_exact_f64(&self) -> Option<f64> {
        match &self.0 {
            Repr::Int(_) | Repr::NegZero => None,
            Repr::Float(f) => Some(*f),
            Repr::Inf { negative: true } => Some(f64::NEG_INFINITY),
            Repr::Inf { negative: false } => Some(f64::INFINITY),
            // Canonical text has a point exactly when it is not an integer.
            Repr::Decimal(text) if text.contains('.') => exact_f64_of_text(text),
            Repr::Decimal(_) => None,
        }
    }

    fn exact(&self) -> Option<Exact<'_>> {
        use std::borrow::Cow;
        Some(match &self.0 {
            Repr::Inf { .. } => return None,
            Repr::Int(0) | Repr::NegZero => Exact {
                negative: self.is_negative(),
                digits: Cow::Borrowed(&[]),
                point: 0,
            },
            Repr::Int(i) => {
                let mut d = i.unsigned_abs().to_string().into_bytes();
                let point = d.len() as i32;
                while d.last() == Some(&b'0') {
                    d.pop();
                }
                Exact {
                    negative: *i < 0,
                    digits: Cow::Owned(d),
                    point,
                }
            }
            Repr::Decimal(text) => {
                let (negative, digits, point) = decimal_parts(text);
                Exact {
                    negative,
                    digits: Cow::Owned(digits),
                    point,
                }
            }
            Repr::Float(f) => {
                let (m, e) = decompose(*f);
                let (digits, point) = exact_decimal(&BigUint::from(m), e);
                Exact {
                    negative: *f < 0.0,
                    digits: Cow::Owned(digits),
                    point,
                }
            }
        })
    }

    /// Exact numeric comparison (the order of numbers in a set).
    /// Negative zero equals zero.
    pub fn numeric_cmp(&self, other: &Number) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => return a.cmp(b),
            // A Float is never NaN nor zero, where total order and numeric
            // order part.
            (Repr::Float(a), Repr::Float(b)) => return a.total_cmp(b),
            _ => {}
        }
        let rank = |n: &Number| match n.0 {
            Repr::Inf { negative: true } => -1,
            Repr::Inf { negative: false } => 1,
            _ => 0,
        };
        match (rank(self), rank(other)) {
            (0, 0) => {}
            (a, b) => return a.cmp(&b),
        }
        let (Some(a), Some(b)) = (self.exact(), other.exact()) else {
            return Ordering::Equal;
        };
        let sign = |e: &Exact| {
            if e.digits.is_empty() {
                0
            } else if e.negative {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(&a), sign(&b));
        if sa != sb {
            return sa.cmp(&sb);
        }
        let mag = a.point.cmp(&b.point).then_with(|| a.digits.cmp(&b.digits));
        if sa < 0 {
            mag.reverse()
        } else {
            mag
        }
    }

    /// Whether go-cty's set would merge the two: equal by cty's rules and
    /// equal hash strings, which comes down to equal canonical text
    /// (`0.1` parsed equals float64 `0.1`; `-0` and `0` stay apart).
    pub(crate) fn set_equivalent(&self, other: &Number) -> bool {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => a == b,
            (Repr::Float(a), Repr::Float(b)) => a == b,
            _ => self.text() == other.text(),
        }
    }

    pub(crate) fn hash_key<H: std::hash::Hasher>(&self, state: &mut H) {
        use std::hash::Hash;
        match &self.0 {
            Repr::Int(i) => i.hash(state),
            _ => self.text().hash(state),
        }
    }
}

impl PartialEq for Number {
    /// cty's `Equals`: integers compare exactly (so `-0 == 0`), an integer
    /// never equals a non-integer, and two non-integers are equal when their
    /// canonical texts are (so float64 `0.1` equals the decimal `0.1`).
    fn eq(&self, other: &Number) -> bool {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => a == b,
            (Repr::Inf { negative: a }, Repr::Inf { negative: b }) => a == b,
            (Repr::Inf { .. }, _) | (_, Repr::Inf { .. }) => false,
            _ => match (self.is_integer(), other.is_integer()) {
                (true, true) => self.numeric_cmp(other) == Ordering::Equal,
                (false, false) => self.text() == other.text(),
                _ => false,
            },
        }
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number { Number::from_i64(i64::from(v)) }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32);

impl TryFrom<f64> for Number {
    type Error = Error;
    /// [`Number::from_f64`]: NaN is an error.
    fn try_from(v: f64) -> Result<Number> {
        Number::from_f64(v)
    }
}

impl From<u64> for Number {
    fn from(v: u64) -> Number {
        Number::from_u64(v)
    }
}

impl From<i128> for Number {
    fn from(v: i128) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number::from_i64(i),
            Err(_) => Number::from_integer_digits(v < 0, v.unsigned_abs().to_string().into_bytes()),
        }
    }
}

impl From<u128> for Number {
    fn from(v: u128) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number::from_i64(i),
            Err(_) => Number::from_integer_digits(false, v.to_string().into_bytes()),
        }
    }
}

impl From<usize> for Number {
    fn from(v: usize) -> Number {
        // usize is at most 64 bits on every platform Rust supports.
        Number::from(v as u128)
    }
}

impl From<isize> for Number {
    fn from(v: isize) -> Number {
        Number::from(v as i128)
    }
}

/// The digits of canonical decimal text, as `(negative, DIGITS, point)`
/// with value `0.DIGITS × 10^point` and no leading or trailing zeros.
fn decimal_parts(text: &str) -> (bool, Vec<u8>, i32) {
    let (negative, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut digits: Vec<u8>;
    let point;
    if int == "0" {
        let lead = frac.bytes().take_while(|&b| b == b'0').count();
        digits = frac.as_bytes()[lead..].to_vec();
        point = -(lead as i32);
    } else {
        digits = Vec::with_capacity(int.len() + frac.len());
        digits.extend_from_slice(int.as_bytes());
        digits.extend_from_slice(frac.as_bytes());
        point = int.len() as i32;
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (negative, digits, point)
}

/// ASCII digits as an integer; `None` if there are none.
fn parse_digits(digits: &[u8]) -> Option<BigUint> {
    BigUint::parse_bytes(digits, 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shared with the submodules' tests.
    pub(super) fn text(n: &Number) -> String {
        n.to_string()
    }

    pub(super) fn parsed(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    #[test]
    fn float64s_convert_fallibly() {
        assert_eq!(Number::try_from(2.5).unwrap().to_string(), "2.5");
        assert!(Number::try_from(f64::NAN).is_err());
        assert!(Number::try_from(f64::NEG_INFINITY).unwrap().is_negative());
    }

    #[test]
    fn integral_values_are_never_rounded() {
        assert_eq!(
            text(&Number::from_f64(2f64.powi(63)).unwrap()),
            "9223372036854775808"
        );
        assert_eq!(
            text(&Number::from_f64(2f64.powi(70)).unwrap()),
            "1180591620717411303424"
        );
        assert_eq!(
            text(&Number::from_f64(-2f64.powi(63)).unwrap()),
            "-9223372036854775808"
        );
        assert_eq!(
            Number::from_f64(-2f64.powi(63)).unwrap().to_i64(),
            Some(i64::MIN)
        );
        assert_eq!(text(&Number::from_u64(u64::MAX)), "18446744073709551615");
    }

    #[test]
    fn exact_int64_and_float64_queries_follow_the_value_not_the_spelling() {
        assert_eq!(parsed("-0").to_i64(), Some(0));
        assert_eq!(parsed("-9223372036854775808").to_i64(), Some(i64::MIN));
        assert_eq!(parsed("9223372036854775808").to_i64(), None);
        let f = |n: Number| n.non_integer_as_exact_f64();
        assert_eq!(f(parsed("0.1")), None);
        assert_eq!(f(parsed("0.5")), Some(0.5));
        assert_eq!(f(parsed("2.50")), Some(2.5));
        assert_eq!(f(parsed("-0")), None);
        assert_eq!(f(parsed("3")), None);
        // Integral, and float64 holds it, but integers never go through float64.
        assert_eq!(f(parsed("1180591620717411303424")), None);
        assert_eq!(f(Number::from_f64(0.1).unwrap()), Some(0.1));
        assert_eq!(f(Number::infinity(true)), Some(f64::NEG_INFINITY));
        // The smallest subnormal, written out exactly as decimal text, is a float64.
        let (digits, point) = exact_decimal(&BigUint::from(1u32), -1074);
        let mut sub = String::new();
        write_f_format(&mut sub, false, &digits, point);
        assert_eq!(f(parsed(&sub)), Some(f64::from_bits(1)));
    }

    #[test]
    fn exactness_read_from_short_text_agrees_with_the_digit_vector_path() {
        // `exact_f64_of_text` reads up to 19 digits straight from the text;
        // the plain path takes the text apart first. Binary fractions (so
        // exact), decimals that are not, and lengths on both sides of 19.
        let plain = |t: &str| {
            let (negative, digits, point) = decimal_parts(t);
            float::exact_f64(negative, &digits, point)
        };
        let mut seed: u64 = 7;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut exact = 0;
        for _ in 0..20_000 {
            let text = match next() % 3 {
                // A binary fraction: an integer over a power of two.
                0 => format!(
                    "{}",
                    (next() % 100_000) as f64 / f64::from(1u32 << (next() % 30))
                ),
                // A decimal fraction with up to 24 digits.
                1 => {
                    let digits: String = (0..1 + next() % 24)
                        .map(|_| char::from(b'0' + (next() % 10) as u8))
                        .collect();
                    let at = 1 + next() as usize % digits.len();
                    format!("{}.{}1", &digits[..at], &digits[at..])
                }
                // Below one, with leading zeros.
                _ => format!(
                    "0.{}{}",
                    "0".repeat(next() as usize % 12),
                    next() % 1_000_000 + 1
                ),
            };
            let sign = if next() % 2 == 0 { "-" } else { "" };
            let n = parsed(&format!("{sign}{text}"));
            let Repr::Decimal(t) = &n.0 else { continue };
            assert_eq!(exact_f64_of_text(t), plain(t), "{t}");
            exact += usize::from(plain(t).is_some());
        }
        assert!(exact > 1000, "only {exact} exact cases");
    }

    #[test]
    fn equality_follows_cty_and_ordering_is_exact() {
        assert_eq!(parsed("0.1"), Number::from_f64(0.1).unwrap());
        assert_eq!(parsed("-0"), parsed("0"));
        assert!(!parsed("-0").set_equivalent(&parsed("0")));
        assert!(parsed("01").set_equivalent(&Number::from_f64(1.0).unwrap()));
        assert_eq!(
            parsed("0.1").numeric_cmp(&Number::from_f64(0.1).unwrap()),
            Ordering::Less
        );
        assert_eq!(parsed("-1").numeric_cmp(&parsed("0.5")), Ordering::Less);
        assert_eq!(parsed("9").numeric_cmp(&parsed("10")), Ordering::Less);
        assert_eq!(parsed("-10").numeric_cmp(&parsed("-9")), Ordering::Less);
        assert_eq!(
            parsed("1e30").numeric_cmp(&Number::infinity(false)),
            Ordering::Less
        );
        assert_eq!(
            parsed("18446744073709551616").numeric_cmp(&parsed("18446744073709551615")),
            Ordering::Greater
        );
    }
}
