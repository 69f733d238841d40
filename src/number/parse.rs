//! Text to [`Number`]: go-cty's number syntax (Go's `big.ParseFloat`),
//! with shortcuts for the two forms that make up nearly all real input.

use compact_str::CompactString;
use num_bigint::BigUint;

use super::{parse_digits, Number, Repr};
use crate::error::{Error, Result};

/// The largest decimal exponent a number may have by default, written as
/// the position of the decimal point (`1e400` has 401). It keeps a short
/// input such as `1e999999999` from expanding into a gigabyte of digits on
/// re-encoding; go-cty's own limit is about 6.4e8.
pub const DEFAULT_MAX_NUMBER_EXPONENT: u32 = 10_000;

impl Number {
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
            let mant: BigUint = parse_digits(&digits).ok_or_else(bad)?;
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
}

impl std::str::FromStr for Number {
    type Err = Error;
    fn from_str(s: &str) -> Result<Number> {
        Number::parse(s)
    }
}

/// Whether a number whose decimal point sits at `point` (`0.DIGITS ×
/// 10^point`) is within the exponent limit: the one rule the parser and
/// its shortcuts share.
fn point_within_limit(point: i64, max_exponent: u32) -> bool {
    let max = i64::from(max_exponent);
    (-max..=max + 1).contains(&point)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::tests::{parsed, text};

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
}
