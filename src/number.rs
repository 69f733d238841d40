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

use std::cmp::Ordering;
use std::fmt;

use compact_str::{CompactString, ToCompactString};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::error::{Error, Result};

/// The largest decimal exponent a number may have by default, written as
/// the position of the decimal point (`1e400` has 401). It keeps a short
/// input such as `1e999999999` from expanding into a gigabyte of digits on
/// re-encoding; go-cty's own limit is about 6.4e8.
pub const DEFAULT_MAX_NUMBER_EXPONENT: u32 = 10_000;

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
        let mut text = Vec::with_capacity(digits.len() + 3);
        write_f_format(&mut text, negative, &digits, point);
        // write_f_format writes ASCII only.
        Number(Repr::Decimal(
            CompactString::from_utf8(&text).unwrap_or_default(),
        ))
    }

    /// Parses go-cty's number syntax (Go's `big.ParseFloat`, base 10):
    /// `[+-](digits[.digits]|.digits)[(e|E)[+-]digits]`, a binary exponent
    /// `p`/`P` (`"1p3"` is 8), or `Inf`/`inf` with an optional sign. No
    /// whitespace, underscores or hex.
    pub fn parse(text: &str) -> Result<Number> {
        Number::parse_with_limit(text, DEFAULT_MAX_NUMBER_EXPONENT)
    }

    pub(crate) fn parse_with_limit(text: &str, max_exponent: u32) -> Result<Number> {
        match Number::small_integer(text, max_exponent)
            .or_else(|| Number::canonical_decimal(text, max_exponent))
        {
            Some(n) => Ok(n),
            None => Number::parse_any(text, max_exponent),
        }
    }

    /// An integer of up to 18 digits (JSON's usual number), read without
    /// collecting its digits first.
    fn small_integer(text: &str, max_exponent: u32) -> Option<Number> {
        let b = text.as_bytes();
        let negative = b.first() == Some(&b'-');
        let digits = &b[usize::from(negative)..];
        if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = digits
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        // The decimal point's place, counted as `normalize` counts it.
        let point = if v == 0 { 0 } else { v.ilog10() + 1 };
        if !point_within_limit(i64::from(point), max_exponent) {
            return None;
        }
        Some(match (negative, v) {
            (true, 0) => Number(Repr::NegZero),
            (true, v) => Number(Repr::Int(-v)),
            (false, v) => Number(Repr::Int(v)),
        })
    }

    /// `text` kept as it is when it already reads the way `normalize` would
    /// write it (`-12.345`, `0.05`): go-cty sends every non-integral
    /// decimal in that form, so decoding one need not take it apart into
    /// digits and build it again.
    fn canonical_decimal(text: &str, max_exponent: u32) -> Option<Number> {
        let b = text.as_bytes();
        let unsigned = b.strip_prefix(b"-").unwrap_or(b);
        let dot = unsigned.iter().position(|&c| c == b'.')?;
        let (int, frac) = (&unsigned[..dot], &unsigned[dot + 1..]);
        let all_digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
        // The decimal point's place, counted as `normalize` counts it.
        let point = match int {
            b"0" => -(frac.iter().take_while(|&&c| c == b'0').count() as i64),
            [b'1'..=b'9', ..] if all_digits(int) => int.len() as i64,
            _ => return None,
        };
        let canonical = matches!(frac.last(), Some(b'1'..=b'9'))
            && all_digits(frac)
            && point_within_limit(point, max_exponent);
        canonical.then(|| Number(Repr::Decimal(CompactString::from(text))))
    }

    fn parse_any(text: &str, max_exponent: u32) -> Result<Number> {
        let bad = || Error::data("a number is required");
        let b = text.as_bytes();
        let (negative, rest) = match b.first() {
            Some(b'-') => (true, &b[1..]),
            Some(b'+') => (false, &b[1..]),
            _ => (false, b),
        };
        if rest == b"Inf" || rest == b"inf" {
            return Ok(Number::infinity(negative));
        }
        let mut i = 0;
        let mut digits: Vec<u8> = Vec::with_capacity(rest.len());
        let mut int_digits: i64 = 0;
        let mut seen_digit = false;
        while let Some(&c) = rest.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            if !(digits.is_empty() && c == b'0') {
                digits.push(c);
                int_digits += 1;
            }
            seen_digit = true;
            i += 1;
        }
        // Digits before the point that were leading zeros do not count.
        let mut point = int_digits;
        if rest.get(i) == Some(&b'.') {
            i += 1;
            while let Some(&c) = rest.get(i) {
                if !c.is_ascii_digit() {
                    break;
                }
                if digits.is_empty() && c == b'0' {
                    point -= 1;
                } else {
                    digits.push(c);
                }
                seen_digit = true;
                i += 1;
            }
        }
        if !seen_digit {
            return Err(bad());
        }
        let mut binary_exp: i64 = 0;
        if let Some(&marker) = rest.get(i) {
            i += 1;
            let exp_negative = match rest.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let start = i;
            let mut e: i64 = 0;
            while let Some(&c) = rest.get(i) {
                if !c.is_ascii_digit() {
                    return Err(bad());
                }
                e = e.saturating_mul(10).saturating_add(i64::from(c - b'0'));
                i += 1;
            }
            if i == start {
                return Err(bad());
            }
            let e = if exp_negative { -e } else { e };
            match marker {
                b'e' | b'E' => point = point.saturating_add(e),
                b'p' | b'P' => binary_exp = e,
                _ => return Err(bad()),
            }
        }
        let too_big = || {
            Error::limit(format!(
                "number exponent is out of range (the limit is 10^±{max_exponent})"
            ))
        };
        if digits.is_empty() {
            return Ok(if negative {
                Number(Repr::NegZero)
            } else {
                Number(Repr::Int(0))
            });
        }
        if binary_exp != 0 {
            // 2^p is about 10^(0.3 p): bound p before doing big arithmetic.
            if binary_exp.unsigned_abs() > u64::from(max_exponent) * 4 {
                return Err(too_big());
            }
            let mant: BigUint = parse_digits(&digits);
            let frac_digits = digits.len() as i64 - point;
            let (n, shift10) = if binary_exp > 0 {
                (mant << (binary_exp as usize), 0i64)
            } else {
                let k = (-binary_exp) as u32;
                (mant * BigUint::from(5u32).pow(k), i64::from(k))
            };
            let s = n.to_string().into_bytes();
            point = s.len() as i64 - frac_digits - shift10;
            digits = s;
        }
        // Position of the point relative to the first significant digit.
        if !point_within_limit(point, max_exponent) {
            return Err(too_big());
        }
        Ok(Number::normalize(negative, digits, point as i32))
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
            // Rust's parser rounds decimal text correctly.
            Repr::Decimal(text) => text.parse().unwrap_or(f64::NAN),
        }
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
            Repr::Decimal(text) if text.contains('.') => {
                let (negative, digits, point) = decimal_parts(text);
                exact_f64(negative, &digits, point)
            }
            Repr::Decimal(_) => None,
        }
    }

    /// Appends the canonical decimal text: positional, no exponent, no
    /// trailing fractional zeros, `-0` for negative zero. Infinity has no
    /// such text and writes `+Inf`/`-Inf`.
    pub(crate) fn write_text(&self, out: &mut Vec<u8>) {
        match &self.0 {
            Repr::Int(i) => out.extend_from_slice(i.to_compact_string().as_bytes()),
            Repr::NegZero => out.extend_from_slice(b"-0"),
            Repr::Inf { negative } => {
                out.extend_from_slice(if *negative { b"-Inf" } else { b"+Inf" })
            }
            Repr::Decimal(text) => out.extend_from_slice(text.as_bytes()),
            Repr::Float(f) => {
                let (digits, point) = float_shortest(*f);
                write_f_format(out, *f < 0.0, &digits, point);
            }
        }
    }

    /// The canonical text as a `String`.
    fn text(&self) -> String {
        let mut out = Vec::new();
        self.write_text(&mut out);
        String::from_utf8(out).unwrap_or_default()
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
            (Repr::Float(a), Repr::Float(b)) => return a.partial_cmp(b).unwrap_or(Ordering::Equal),
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

    /// Appends go-cty's set hash form of the number: Go's `%g` with 10
    /// significant digits (`1e+10`, `0.0001`, `1.23456789e+11`).
    pub(crate) fn write_hash(&self, out: &mut String) {
        let Some(exact) = self.exact() else {
            out.push_str(if self.is_negative() { "-Inf" } else { "+Inf" });
            return;
        };
        if exact.negative {
            out.push('-');
        }
        let mut digits = exact.digits.into_owned();
        let mut point = exact.point;
        round_half_even(&mut digits, &mut point, 10);
        let n = digits.len() as i32;
        let mut eprec = 10;
        if eprec > n && n >= point {
            eprec = n;
        }
        let exp = point - 1;
        if digits.is_empty() {
            out.push('0');
        } else if exp < -4 || exp >= eprec {
            out.push(digits[0] as char);
            if digits.len() > 1 {
                out.push('.');
                out.extend(digits[1..].iter().map(|&d| d as char));
            }
            let (sign, e) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
            out.push('e');
            out.push(sign);
            if e < 10 {
                out.push('0');
            }
            out.push_str(&e.to_string());
        } else {
            let mut buf = Vec::new();
            write_f_format(&mut buf, false, &digits, point);
            out.push_str(std::str::from_utf8(&buf).unwrap_or_default());
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

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({})", self.text())
    }
}

impl std::str::FromStr for Number {
    type Err = Error;
    fn from_str(s: &str) -> Result<Number> {
        Number::parse(s)
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

// ---- helpers ---------------------------------------------------------------

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

fn parse_digits(digits: &[u8]) -> BigUint {
    BigUint::parse_bytes(digits, 10).unwrap_or_default()
}

/// A finite non-zero f64 as `mant × 2^exp` with `mant < 2^53`.
fn decompose(f: f64) -> (u64, i32) {
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
fn exact_decimal(m: &BigUint, e: i32) -> (Vec<u8>, i32) {
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

/// Whether a number whose decimal point sits at `point` (`0.DIGITS ×
/// 10^point`) is within the exponent limit: the one rule the parser and
/// its shortcuts share.
fn point_within_limit(point: i64, max_exponent: u32) -> bool {
    let max = i64::from(max_exponent);
    (-max..=max + 1).contains(&point)
}

/// Writes `0.DIGITS × 10^point` positionally (Go's `%f` with the shortest
/// precision): integer part padded with zeros, fraction only if non-empty.
fn write_f_format(out: &mut Vec<u8>, negative: bool, digits: &[u8], point: i32) {
    if negative {
        out.push(b'-');
    }
    let n = digits.len() as i32;
    if point > 0 {
        let m = point.min(n) as usize;
        out.extend_from_slice(&digits[..m]);
        out.extend(std::iter::repeat_n(b'0', (point - m as i32) as usize));
    } else {
        out.push(b'0');
    }
    let frac = (n - point).max(0);
    if frac > 0 {
        out.push(b'.');
        for i in 0..frac {
            let at = point + i;
            out.push(if at < 0 || at >= n {
                b'0'
            } else {
                digits[at as usize]
            });
        }
    }
}

fn digit_at(digits: &[u8], i: usize) -> u8 {
    digits.get(i).copied().unwrap_or(b'0')
}

fn trim_zeros(digits: &mut Vec<u8>, point: &mut i32) {
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        *point = 0;
    }
}

fn round_down(digits: &mut Vec<u8>, point: &mut i32, n: usize) {
    if n >= digits.len() {
        return;
    }
    digits.truncate(n);
    trim_zeros(digits, point);
}

fn round_up(digits: &mut Vec<u8>, point: &mut i32, n: usize) {
    if n >= digits.len() {
        return;
    }
    let mut i = n;
    while i > 0 && digits[i - 1] >= b'9' {
        i -= 1;
    }
    if i == 0 {
        // All nines: 0.999 rounds up to 1.0.
        digits.clear();
        digits.push(b'1');
        *point += 1;
        return;
    }
    digits[i - 1] += 1;
    digits.truncate(i);
}

/// Go's decimal rounding to `n` digits: half to even, on the exact digits.
fn round_half_even(digits: &mut Vec<u8>, point: &mut i32, n: usize) {
    if n >= digits.len() {
        return;
    }
    let up = if digits[n] == b'5' && n + 1 == digits.len() {
        n > 0 && (digits[n - 1] - b'0') % 2 == 1
    } else {
        digits[n] >= b'5'
    };
    if up {
        round_up(digits, point, n);
    } else {
        round_down(digits, point, n);
    }
}

/// The digits Go's `big.Float.Text('f', -1)` prints for a non-integral
/// float64 (precision 53): the shortest decimal in the rounding interval.
fn float_shortest(f: f64) -> (Vec<u8>, i32) {
    let bits = f.to_bits();
    let normal = (bits >> 52) & 0x7ff != 0;
    let power_of_two = bits & ((1u64 << 52) - 1) == 0;
    // Rust's formatter finds the same shortest digits as Go's symmetric
    // 53-bit interval except for subnormals and powers of two (where the
    // intervals differ) and for exact ties between two shortest candidates
    // (Rust rounds half up, Go half to even). A tie needs the exact binary
    // expansion to be one digit longer than the shortest form (≤ 18
    // digits), so only floats with long exact expansions take the fast path.
    if normal && !power_of_two && exact_digit_count(f) > 20 {
        let s = format!("{:e}", f.abs());
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
        let mut point = exp + 1;
        trim_zeros(&mut digits, &mut point);
        return (digits, point);
    }
    go_shortest(f)
}

/// About how many significant digits the exact decimal expansion of a
/// non-integral float has (±1): integer digits plus one per fractional bit.
fn exact_digit_count(f: f64) -> i32 {
    let (m, e) = decompose(f);
    let fraction_bits = -(e + m.trailing_zeros() as i32);
    let leading = f.abs().log10().floor() as i32 + 1;
    leading + fraction_bits
}

/// Go's `roundShortest` for a float64 held at 53-bit precision.
fn go_shortest(f: f64) -> (Vec<u8>, i32) {
    let (m, e) = decompose(f);
    let (mut digits, mut point) = exact_decimal(&BigUint::from(m), e);
    // Scale the mantissa to prec+1 = 54 bits so its lsb is half an ulp.
    let bitlen = 64 - m.leading_zeros() as i32;
    let shift = 54 - bitlen;
    let mant = BigUint::from(m) << (shift as usize);
    let exp = e - shift;
    let (lower, _) = exact_decimal(&(&mant - BigUint::one()), exp);
    let (upper, _) = exact_decimal(&(&mant + BigUint::one()), exp);
    let inclusive = !(mant.bit(1));
    for i in 0..digits.len() {
        let m = digits[i];
        let l = digit_at(&lower, i);
        let u = digit_at(&upper, i);
        let okdown = l != m || inclusive && i + 1 == lower.len();
        let okup = m != u && (inclusive || m + 1 < u || i + 1 < upper.len());
        match (okdown, okup) {
            (true, true) => {
                round_half_even(&mut digits, &mut point, i + 1);
                break;
            }
            (true, false) => {
                round_down(&mut digits, &mut point, i + 1);
                break;
            }
            (false, true) => {
                round_up(&mut digits, &mut point, i + 1);
                break;
            }
            (false, false) => {}
        }
    }
    (digits, point)
}

/// The float64 equal to the non-integral decimal `±0.DIGITS × 10^point`,
/// if there is one.
fn exact_f64(negative: bool, digits: &[u8], point: i32) -> Option<f64> {
    // value = D / 10^k with k > 0 fractional digits; it is a binary fraction
    // only if 5^k divides D, and then value = (D / 5^k) / 2^k.
    let k = digits.len() as i64 - i64::from(point);
    if k <= 0 || k > 1100 {
        return None;
    }
    let q: BigUint = if digits.len() <= 19 {
        let d: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        if k > 27 {
            return None; // 5^28 > 10^19 > d, so 5^k cannot divide it.
        }
        let p = 5u64.pow(k as u32);
        if d % p != 0 {
            return None;
        }
        BigUint::from(d / p)
    } else {
        let d = parse_digits(digits);
        let p = BigUint::from(5u32).pow(k as u32);
        if !(&d % &p).is_zero() {
            return None;
        }
        d / p
    };
    let tz = q.trailing_zeros().unwrap_or(0);
    let odd = q >> tz;
    let lsb_exp = tz as i64 - k;
    if odd.bits() > 53 || lsb_exp < -1074 || lsb_exp + odd.bits() as i64 > 1024 {
        return None;
    }
    let odd = odd.to_u64()? as f64;
    let scale = if lsb_exp >= -1022 {
        f64::from_bits(((lsb_exp + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (lsb_exp + 1074))
    };
    let v = odd * scale;
    Some(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: &Number) -> String {
        n.to_string()
    }

    fn parsed(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    fn hash(n: &Number) -> String {
        let mut s = String::new();
        n.write_hash(&mut s);
        s
    }

    #[test]
    fn parsed_text_keeps_its_exact_value_in_canonical_form() {
        assert_eq!(text(&parsed("1e20")), "100000000000000000000");
        assert_eq!(text(&parsed("1e-7")), "0.0000001");
        assert_eq!(text(&parsed("1.10")), "1.1");
        assert_eq!(text(&parsed("007")), "7");
        assert_eq!(text(&parsed(".5")), "0.5");
        assert_eq!(text(&parsed("5.")), "5");
        assert_eq!(text(&parsed("+5")), "5");
        assert_eq!(text(&parsed("-0")), "-0");
        assert_eq!(text(&parsed("1p3")), "8");
        assert_eq!(text(&parsed("3p-2")), "0.75");
        assert_eq!(text(&parsed("100.000")), "100");
        assert_eq!(text(&parsed("1e400")), format!("1{}", "0".repeat(400)));
        assert_eq!(text(&parsed("1e-400")), format!("0.{}1", "0".repeat(399)));
        assert!(parsed("Inf").is_infinite() && parsed("-inf").is_negative());
    }

    #[test]
    fn shortcut_texts_are_taken_as_the_general_parser_would_take_them() {
        let texts = [
            "0.5",
            "-0.5",
            "12.345",
            "-12.345",
            "0.05",
            "0.0000001",
            "123456789012345678901.5",
            "1.10",
            "01.5",
            "-0.0",
            "0.",
            ".5",
            "1.5e3",
            "+1.5",
            "1.5.5",
            "-",
            "-.5",
            "1.-5",
            "12",
            "0.0",
            "00.5",
            "1a.5",
            "1.5a",
            "٣.5",
            "0",
            "-0",
            "007",
            "-10",
            "999999999999999999",
            "-999999999999999999",
            "9223372036854775807",
            "12345",
            "123",
            "100",
        ];
        for limit in [DEFAULT_MAX_NUMBER_EXPONENT, 6, 1] {
            for t in texts {
                let general = Number::parse_any(t, limit).map(|n| n.0);
                let fast =
                    Number::small_integer(t, limit).or_else(|| Number::canonical_decimal(t, limit));
                if let Some(fast) = fast {
                    assert_eq!(
                        Ok(&fast.0),
                        general.as_ref().map_err(|_| ()),
                        "{t} (limit {limit})"
                    );
                }
                let both = Number::parse_with_limit(t, limit).map(|n| n.0);
                assert_eq!(both.is_ok(), general.is_ok(), "{t} (limit {limit})");
            }
        }
        assert!(Number::canonical_decimal("12.345", 10).is_some());
        assert!(Number::canonical_decimal("0.0000001", 5).is_none());
        assert!(Number::canonical_decimal("1234567.5", 5).is_none());
        assert_eq!(
            Number::small_integer("-0", 5).map(|n| n.0),
            Some(Repr::NegZero)
        );
        assert_eq!(
            Number::small_integer("0042", 2).map(|n| n.0),
            Some(Repr::Int(42))
        );
        assert!(Number::small_integer("1234", 2).is_none());
    }

    proptest::proptest! {
        #[test]
        fn the_canonical_shortcut_never_disagrees_with_the_general_parser(
            text in "-?[+0-9]{0,4}(\\.[0-9]{0,4}0?)?([eE][-+]?[0-9]{1,2})?|-?[0-9]{1,20}",
            limit in 0u32..8,
        ) {
            let general = Number::parse_any(&text, limit).map(|n| n.0).ok();
            if let Some(fast) = Number::canonical_decimal(&text, limit) {
                proptest::prop_assert_eq!(Some(fast.0), general.clone());
            }
            if let Some(fast) = Number::small_integer(&text, limit) {
                proptest::prop_assert_eq!(Some(fast.0), general);
            }
        }
    }

    #[test]
    fn go_rejected_number_syntax_is_rejected() {
        for bad in [
            "", " 1", "1 ", "1_000", "0x10", "NaN", "infinity", "INF", "abc", ".", "e5", "1e",
            "1e+", "--1", "1.2.3",
        ] {
            assert!(Number::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn huge_exponents_are_a_limit_error_not_a_huge_allocation() {
        let err = Number::parse("1e999999999999").unwrap_err();
        assert_eq!(err.category(), crate::Category::Limit);
        assert!(Number::parse("1p-999999999").is_err());
    }

    #[test]
    fn floats_print_like_go_big_float_at_53_bits() {
        assert_eq!(text(&Number::from_f64(0.1).unwrap()), "0.1");
        assert_eq!(
            text(&Number::from_f64(f64::from(0.1f32)).unwrap()),
            "0.10000000149011612"
        );
        let min_sub = f64::from_bits(1);
        assert_eq!(
            text(&Number::from_f64(min_sub).unwrap()),
            format!("0.{}4940656458412465", "0".repeat(323))
        );
        assert_eq!(text(&Number::from_f64(-0.25).unwrap()), "-0.25");
    }

    #[test]
    fn rust_shortest_agrees_with_go_algorithm_on_normal_floats() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            if !f.is_finite() || f.fract() == 0.0 || (x >> 52) & 0x7ff == 0 {
                continue;
            }
            assert_eq!(float_shortest(f), go_shortest(f), "{f:e}");
        }
        // Floats with short exact expansions, where ties happen.
        for k in 1..20_000u64 {
            let f = (k as f64) * 0.25 + 1658206780088000.0 + (k % 7) as f64 / 8.0;
            if f.fract() != 0.0 {
                assert_eq!(float_shortest(f), go_shortest(f), "{f:e}");
            }
            let g = k as f64 / 1024.0 + 0.5;
            if g.fract() != 0.0 {
                assert_eq!(float_shortest(g), go_shortest(g), "{g:e}");
            }
        }
        let tie = 1658206780088562.0f64 + 0.25;
        assert_eq!(float_shortest(tie), (b"16582067800885622".to_vec(), 16));
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
        let mut sub = Vec::new();
        write_f_format(&mut sub, false, &digits, point);
        let sub = String::from_utf8(sub).unwrap();
        assert_eq!(f(parsed(&sub)), Some(f64::from_bits(1)));
    }

    #[test]
    fn hash_strings_are_go_percent_g_with_ten_digits() {
        assert_eq!(hash(&parsed("1e10")), "1e+10");
        assert_eq!(hash(&parsed("9999999999")), "9999999999");
        assert_eq!(hash(&parsed("1000000")), "1000000");
        assert_eq!(hash(&parsed("0.0001")), "0.0001");
        assert_eq!(hash(&parsed("0.00001")), "1e-05");
        assert_eq!(hash(&parsed("12345.6789")), "12345.6789");
        assert_eq!(hash(&parsed("123456789012")), "1.23456789e+11");
        assert_eq!(hash(&parsed("-0")), "-0");
        assert_eq!(hash(&parsed("0")), "0");
        assert_eq!(hash(&parsed("2.00000000005")), "2");
        assert_eq!(hash(&parsed("2.00000000015")), "2");
        assert_eq!(hash(&parsed("2.0000000005")), "2");
        assert_eq!(hash(&parsed("2.0000000015")), "2.000000002");
        assert_eq!(hash(&Number::infinity(false)), "+Inf");
        assert_eq!(hash(&Number::from_f64(0.1).unwrap()), "0.1");
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
