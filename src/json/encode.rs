//! Value → JSON. The value is first converted to the type it is written
//! as ([`crate::convert`]), as go-cty's `Marshal` does; from there on this
//! only writes.

use crate::convert::conformed;
use crate::error::{Error, Result};
use crate::gostr::json_quote_into;
use crate::path::PathStep;
use crate::types::Type;
use crate::value::{Repr, Value};

pub(super) fn encode_into(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    let v = conformed(v, ty)?;
    write(out, &v, ty)
}

/// Writes `v`, which conforms to `ty`.
fn write(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    if let Repr::Unknown(..) = v.repr() {
        // JSON has no form for an unknown; go-cty refuses the same way.
        return Err(Error::unrepresentable("value is not known"));
    }
    // A concrete value in a dynamic position carries its type beside it.
    // (`matches!`, not `==`: `Type`'s `PartialEq` is a call, made for
    // every value written.)
    if matches!(ty, Type::Dynamic) && !matches!(v.ty(), Type::Dynamic) {
        out.extend_from_slice(b"{\"value\":");
        write(out, v, v.ty())?;
        out.extend_from_slice(b",\"type\":");
        v.ty().write_json(out);
        out.push(b'}');
        return Ok(());
    }
    match (v.repr(), ty) {
        (Repr::Null(_), _) => out.extend_from_slice(b"null"),
        (Repr::String(s), _) => write_quoted(out, s),
        (Repr::Number(n), _) => {
            if n.is_infinite() {
                return Err(Error::unrepresentable("cannot serialize infinity as JSON"));
            }
            // The exact decimal text, never an exponent.
            n.write_text(out);
        }
        (Repr::Bool(b), _) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        (Repr::Seq(_, items), Type::List(ety) | Type::Set(ety)) => {
            write_array(out, items.iter().map(|item| (item, &**ety)))?
        }
        (Repr::Seq(_, items), Type::Tuple(etys)) => {
            write_array(out, items.iter().zip(etys.iter()))?
        }
        (Repr::Seq(_, items), Type::Object(oty)) => write_object(
            out,
            oty.attributes()
                .zip(items.iter())
                .map(|((name, aty), item)| (name, item, aty)),
            |name| PathStep::Attr(name.to_string()),
        )?,
        (Repr::Map(_, entries), Type::Map(ety)) => write_object(
            out,
            entries.iter().map(|(k, item)| (&**k, item, &**ety)),
            |k| PathStep::Key(k.to_string()),
        )?,
        _ => return Err(Error::nonconforming(v, ty)),
    }
    Ok(())
}

fn write_array<'v>(
    out: &mut Vec<u8>,
    items: impl Iterator<Item = (&'v Value, &'v Type)>,
) -> Result<()> {
    out.push(b'[');
    for (i, (item, ety)) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
    }
    out.push(b']');
    Ok(())
}

/// Object attributes or map entries, already in sorted order.
fn write_object<'v>(
    out: &mut Vec<u8>,
    members: impl Iterator<Item = (&'v str, &'v Value, &'v Type)>,
    step: impl Fn(&str) -> PathStep,
) -> Result<()> {
    out.push(b'{');
    for (i, (name, item, ty)) in members.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_quoted(out, name);
        out.push(b':');
        write(out, item, ty).map_err(|e| e.under(step(name)))?;
    }
    out.push(b'}');
    Ok(())
}

/// Appends `s` as a JSON string, as [`json_quote_into`] does: text that
/// needs no escape (most of it) is copied whole, the rest goes through it.
///
/// Quoting was half of JSON encoding's instructions (callgrind, dynamic
/// payload: 60M of 119M in `json_quote_into` over 5 encodes), at a table
/// lookup and branch per byte; checking eight bytes at a time first takes
/// a few instructions per eight.
#[inline]
fn write_quoted(out: &mut Vec<u8>, s: &str) {
    if needs_no_escape(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        json_quote_into(out, s);
    }
}

/// Whether `s` holds none of the bytes Go's JSON quoting may escape:
/// control bytes, `"`, `\`, `<`, `>`, `&`, and (conservatively, since
/// U+2028 and U+2029 start with 0xE2) any byte of 0x80 or more.
#[inline]
fn needs_no_escape(s: &[u8]) -> bool {
    let mut chunks = s.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if !plain_word(u64::from_le_bytes(word)) {
            return false;
        }
    }
    // The last few bytes, padded with a byte that never needs escaping.
    let rest = chunks.remainder();
    let mut word = [b'a'; 8];
    word[..rest.len()].copy_from_slice(rest);
    plain_word(u64::from_le_bytes(word))
}

/// [`needs_no_escape`] for eight bytes at once (SWAR: each test leaves a
/// byte's high bit set where the byte matches; exact as a whole, though
/// not byte by byte).
#[inline(always)]
fn plain_word(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Some byte of `y` is zero.
    let has_zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
    let high_bit = x & HIGH;
    let control = x.wrapping_sub(0x20 * ONES) & !x & HIGH;
    let backslash = has_zero(x ^ (b'\\' as u64 * ONES));
    // `"` (0x22) and `&` (0x26) differ only in bit 2; `<` (0x3c) and `>`
    // (0x3e) only in bit 1: one comparison for each pair.
    let quote_amp = has_zero((x | (0x04 * ONES)) ^ (0x26 * ONES));
    let angle = has_zero((x | (0x02 * ONES)) ^ (0x3e * ONES));
    (high_bit | control | backslash | quote_amp | angle) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight-byte check agrees with the byte-by-byte quoting: every
    /// byte value at every position of strings of 0 to 19 bytes.
    #[test]
    fn quick_quoting_agrees_with_go_quoting() {
        let base = "abcdefghijklmnopqrs";
        for len in 0..=base.len() {
            let plain = &base[..len];
            let mut ours = Vec::new();
            write_quoted(&mut ours, plain);
            assert_eq!(ours, format!("\"{plain}\"").into_bytes());
            for at in 0..len {
                for b in 0u8..=0xff {
                    let mut bytes = plain.as_bytes().to_vec();
                    bytes[at] = b;
                    let Ok(text) = std::str::from_utf8(&bytes) else {
                        // A lone byte of 0x80 or more: not text, but the
                        // check must still refuse it.
                        assert!(!needs_no_escape(&bytes));
                        continue;
                    };
                    let (mut ours, mut go) = (Vec::new(), Vec::new());
                    write_quoted(&mut ours, text);
                    json_quote_into(&mut go, text);
                    assert_eq!(ours, go, "byte {b:#x} at {at} of {len}");
                    let escaped = go.len() != text.len() + 2;
                    assert!(!(escaped && needs_no_escape(&bytes)));
                }
            }
        }
        for text in ["\u{2028}", "a\u{2029}b", "é", "日本語<>&\"\\"] {
            let (mut ours, mut go) = (Vec::new(), Vec::new());
            write_quoted(&mut ours, text);
            json_quote_into(&mut go, text);
            assert_eq!(ours, go, "{text:?}");
        }
    }
}
