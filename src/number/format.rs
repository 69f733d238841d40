//! [`Number`] to text, as Go prints a `big.Float`: the canonical
//! positional form (`Text('f', -1)`, what both encoders write) and `%g`
//! with ten digits (`Text('g', 10)`, what go-cty's set hash strings hold).

use std::fmt;

use compact_str::{CompactString, ToCompactString};
use num_bigint::BigUint;
use num_traits::One;

use super::float::{decompose, exact_decimal};
use super::{Number, Repr};

impl Number {
    /// Appends the canonical decimal text: positional, no exponent, no
    /// trailing fractional zeros, `-0` for negative zero. Infinity has no
    /// such text and writes `+Inf`/`-Inf`.
    pub(crate) fn write_text(&self, out: &mut Vec<u8>) {
        match &self.0 {
            // Already the text: copied as it is, without a CompactString
            // clone, which for a long decimal would allocate.
            Repr::Decimal(text) => out.extend_from_slice(text.as_bytes()),
            _ => out.extend_from_slice(self.text().as_bytes()),
        }
    }

    /// The canonical text (see [`Number::write_text`]), held inline
    /// unless it is a long decimal.
    pub(crate) fn text(&self) -> CompactString {
        match &self.0 {
            Repr::Int(i) => i.to_compact_string(),
            Repr::NegZero => CompactString::const_new("-0"),
            Repr::Inf { negative: true } => CompactString::const_new("-Inf"),
            Repr::Inf { negative: false } => CompactString::const_new("+Inf"),
            Repr::Decimal(text) => text.clone(),
            Repr::Float(f) => {
                let (digits, point) = float_shortest(*f);
                let mut text = CompactString::default();
                write_f_format(&mut text, *f < 0.0, &digits, point);
                text
            }
        }
    }

    /// Appends Go's `big.Float.Text('g', 10)` (what its `String()`
    /// prints, and so what go-cty puts in set hash strings): `%g` with 10
    /// significant digits (`1e+10`, `0.0001`, `1.23456789e+11`).
    pub(crate) fn write_g10(&self, out: &mut String) {
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
            out.push(char::from(digits[0]));
            if digits.len() > 1 {
                out.push('.');
                out.extend(digits[1..].iter().map(|&d| char::from(d)));
            }
            let (sign, e) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
            out.push('e');
            out.push(sign);
            if e < 10 {
                out.push('0');
            }
            out.push_str(&e.to_string());
        } else {
            write_f_format(out, false, &digits, point);
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

/// Writes `0.DIGITS × 10^point` positionally (Go's `%f` with the shortest
/// precision): integer part padded with zeros, fraction only if non-empty.
/// `digits` are ASCII digits; `out` takes chars, so the `String` or
/// `CompactString` it builds needs no UTF-8 check afterwards.
pub(super) fn write_f_format(
    out: &mut impl Extend<char>,
    negative: bool,
    digits: &[u8],
    point: i32,
) {
    // Places left of the first digit or right of the last are zeros.
    let digit = |at: i32| {
        usize::try_from(at)
            .ok()
            .and_then(|at| digits.get(at))
            .map_or('0', |&d| char::from(d))
    };
    if negative {
        out.extend(['-']);
    }
    if point > 0 {
        out.extend((0..point).map(digit));
    } else {
        out.extend(['0']);
    }
    let frac = (digits.len() as i32 - point).max(0);
    if frac > 0 {
        out.extend(['.']);
        out.extend((point..point + frac).map(digit));
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
        // `{:e}` always writes `D.DDDeN`; were it ever not to, Go's own
        // algorithm below still gives the right digits.
        let exp = s
            .split_once('e')
            .and_then(|(mant, exp)| Some((mant, exp.parse::<i32>().ok()?)));
        if let Some((mant, exp)) = exp {
            let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
            let mut point = exp + 1;
            trim_zeros(&mut digits, &mut point);
            return (digits, point);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::tests::{parsed, text};

    fn g10(n: &Number) -> String {
        let mut s = String::new();
        n.write_g10(&mut s);
        s
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
    fn g10_is_go_percent_g_with_ten_digits() {
        assert_eq!(g10(&parsed("1e10")), "1e+10");
        assert_eq!(g10(&parsed("9999999999")), "9999999999");
        assert_eq!(g10(&parsed("1000000")), "1000000");
        assert_eq!(g10(&parsed("0.0001")), "0.0001");
        assert_eq!(g10(&parsed("0.00001")), "1e-05");
        assert_eq!(g10(&parsed("12345.6789")), "12345.6789");
        assert_eq!(g10(&parsed("123456789012")), "1.23456789e+11");
        assert_eq!(g10(&parsed("-0")), "-0");
        assert_eq!(g10(&parsed("0")), "0");
        assert_eq!(g10(&parsed("2.00000000005")), "2");
        assert_eq!(g10(&parsed("2.00000000015")), "2");
        assert_eq!(g10(&parsed("2.0000000005")), "2");
        assert_eq!(g10(&parsed("2.0000000015")), "2.000000002");
        assert_eq!(g10(&Number::infinity(false)), "+Inf");
        assert_eq!(g10(&Number::from_f64(0.1).unwrap()), "0.1");
    }
}
