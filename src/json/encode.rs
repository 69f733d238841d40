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

/// An element, attribute or entry value, which conforms to `ty`: strings,
/// nulls and bools of a known type written in place, the rest by [`write`].
///
/// Most values are such leaves, and a call to `write` for each cost more
/// than the writing (its prologue, epilogue and dispatch).
///
/// Inlined only when optimizing: unoptimized, its inlined copies kept
/// stack slots of their own in `write`'s frame, which deep nesting pays
/// for at every level.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_member(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    // Under `dynamic` even a leaf carries its type: `write` does that.
    if !matches!(ty, Type::Dynamic) {
        match v.repr() {
            Repr::String(s) => write_quoted(out, s),
            Repr::Null(_) => out.extend_from_slice(b"null"),
            Repr::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            _ => return write(out, v, ty),
        }
        return Ok(());
    }
    write(out, v, ty)
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
        write_member(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
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
        write_key(out, name);
        write_member(out, item, ty).map_err(|e| e.under(step(name)))?;
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
///
/// The short path is inlined into each caller (only when optimizing, for
/// the stack, as [`write_member`] is): as a call, its prologue, epilogue
/// and the check's constants were a third of its instructions.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn write_quoted(out: &mut Vec<u8>, s: &str) {
    write_quoted_then(out, s, b"\"");
}

/// An object key and its colon: [`write_quoted`] with the colon stored
/// with the closing quote, saving it a capacity check and length update.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn write_key(out: &mut Vec<u8>, s: &str) {
    write_quoted_then(out, s, b"\":");
}

/// `s` quoted, and after it `close` (its closing quote and what follows).
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_quoted_then(out: &mut Vec<u8>, s: &str, close: &[u8]) {
    let b = s.as_bytes();
    if b.len() <= SHORT_MAX && write_short_plain(out, b, close) {
        return;
    }
    write_quoted_long(out, s);
    out.extend_from_slice(close.get(1..).unwrap_or_default());
}

/// [`write_quoted`] for a string that is long or needs escaping.
#[inline(never)]
fn write_quoted_long(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    // A short one came here because it needs escaping.
    if b.len() > SHORT_MAX && needs_no_escape(b) {
        out.reserve(b.len() + 2);
        out.push(b'"');
        out.extend_from_slice(b);
        out.push(b'"');
    } else {
        json_quote_into(out, s);
    }
}

/// Longest string [`write_short_plain`] takes: four 8-byte words.
const SHORT_MAX: usize = 32;

/// Writes `b`, of at most [`SHORT_MAX`] bytes, quoted (`"`, `b`, then
/// `close`, the closing quote and perhaps a colon), if it needs no escape;
/// else writes nothing and returns false.
///
/// Most strings are short. For them the general path cost two `memcpy`
/// calls (the check's last partial word, and the copy) and four capacity
/// checks: 40% of JSON-encoding a map of short strings. Here the bytes
/// are loaded once as a few fixed-size pieces (the first and last 8, or
/// 4, bytes, overlapping in the middle; for 17 to 32 bytes also the 8
/// after the first and before the last), checked, and stored as they
/// are, with one capacity check.
#[allow(unsafe_code)]
#[inline(always)]
fn write_short_plain(out: &mut Vec<u8>, b: &[u8], close: &[u8]) -> bool {
    let n = b.len();
    // The callers check this already (and the check then folds away); it
    // is here so that the stores below are sound on their own.
    if n > SHORT_MAX {
        return false;
    }
    // With `close`, the bytes to write.
    let len = n + 1 + close.len();
    if n > 16 {
        // The first and last 16 bytes, as four words.
        let w = [word(b, 0), word(b, 8), word(b, n - 16), word(b, n - 8)];
        if escape_mask(w[0]) | escape_mask(w[1]) | escape_mask(w[2]) | escape_mask(w[3]) != 0 {
            return false;
        }
        return store_words(
            out,
            n,
            &[(1, w[0]), (9, w[1]), (n - 15, w[2]), (n - 7, w[3])],
            close,
        );
    }
    if n >= 8 {
        // The first and last 8 bytes.
        let (first, last) = (word(b, 0), word(b, n - 8));
        if escape_mask(first) | escape_mask(last) != 0 {
            return false;
        }
        return store_words(out, n, &[(1, first), (n - 7, last)], close);
    }
    // Under 8 bytes: the check on one word made of the first and last 4
    // bytes (overlapping), or of the first, middle and last byte, padded
    // with a byte that never needs escaping.
    let (head, tail) = if n >= 4 {
        (half(b, 0), half(b, n - 4))
    } else {
        (0, 0)
    };
    let w = if n >= 4 {
        u64::from(head) | u64::from(tail) << 32
    } else if n > 0 {
        u64::from_le_bytes([b[0], b[n / 2], b[n - 1], b'a', b'a', b'a', b'a', b'a'])
    } else {
        u64::from_le_bytes([b'a'; 8])
    };
    if escape_mask(w) != 0 {
        return false;
    }
    out.reserve(len);
    let at = out.len();
    // SAFETY: `reserve` made room for the `len` bytes written from `at`:
    // every store below lies within `at..at + len`, as n < 8 (4-byte
    // stores at 1 and n - 3 for n >= 4; else bytes at 1, 1 + n / 2 and n;
    // the quote at 0, `close` from n + 1); `set_len` covers exactly those
    // bytes, now all written (the stores overlap, leaving no gap); `close`,
    // like `b`, is borrowed apart from `out`, so no copy overlaps.
    unsafe {
        let dst = out.as_mut_ptr().add(at);
        dst.write(b'"');
        if n >= 4 {
            dst.add(1)
                .cast::<[u8; 4]>()
                .write_unaligned(head.to_le_bytes());
            dst.add(n - 3)
                .cast::<[u8; 4]>()
                .write_unaligned(tail.to_le_bytes());
        } else if n > 0 {
            dst.add(1).write(b[0]);
            dst.add(1 + n / 2).write(b[n / 2]);
            dst.add(n).write(b[n - 1]);
        }
        std::ptr::copy_nonoverlapping(close.as_ptr(), dst.add(n + 1), close.len());
        out.set_len(at + len);
    }
    true
}

/// Writes `"`, then `n` bytes given as 8-byte words at their offsets
/// (from 1, in order, overlapping so that together they cover `1..=n`),
/// then `close`, after one `reserve`. False, with nothing written, if the
/// words do not cover `1..=n` exactly (the callers' always do: the check
/// is here so that the stores are sound on their own, and folds away).
#[allow(unsafe_code)]
#[inline(always)]
fn store_words(out: &mut Vec<u8>, n: usize, words: &[(usize, u64)], close: &[u8]) -> bool {
    let mut covered = 1;
    for &(to, _) in words {
        if to < 1 || to > covered || to + 8 > n + 1 {
            return false;
        }
        covered = covered.max(to + 8);
    }
    if covered != n + 1 {
        return false;
    }
    let len = n + 1 + close.len();
    out.reserve(len);
    let at = out.len();
    // SAFETY: `reserve` made room for the `len` bytes written from `at`:
    // the quote at 0, the words within `1..=n`, which they cover with no
    // gap (both checked above), `close` from n + 1; so `set_len` covers
    // only written bytes. `close` is not inside `out`, which is borrowed
    // mutably, so the copy does not overlap.
    unsafe {
        let dst = out.as_mut_ptr().add(at);
        dst.write(b'"');
        for &(to, w) in words {
            dst.add(to)
                .cast::<[u8; 8]>()
                .write_unaligned(w.to_le_bytes());
        }
        std::ptr::copy_nonoverlapping(close.as_ptr(), dst.add(n + 1), close.len());
        out.set_len(at + len);
    }
    true
}

/// The 8 bytes of `b` from `at`, as a little-endian word.
#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    // (An 8-byte slice always converts; the callers bound `at`.)
    u64::from_le_bytes(<[u8; 8]>::try_from(&b[at..at + 8]).unwrap_or_default())
}

/// The 4 bytes of `b` from `at`, as a little-endian word.
#[inline(always)]
fn half(b: &[u8], at: usize) -> u32 {
    // (A 4-byte slice always converts; the callers bound `at`.)
    u32::from_le_bytes(<[u8; 4]>::try_from(&b[at..at + 4]).unwrap_or_default())
}

/// Whether `s` holds none of the bytes Go's JSON quoting may escape:
/// control bytes, `"`, `\`, `<`, `>`, `&`, and (conservatively, since
/// U+2028 and U+2029 start with 0xE2) any byte of 0x80 or more.
#[inline]
fn needs_no_escape(s: &[u8]) -> bool {
    let mut chunks = s.chunks_exact(8);
    let mut mask = 0;
    for chunk in &mut chunks {
        mask |= escape_mask(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    // The last few bytes: the last 8 (overlapping checked ones), or, in a
    // string under 8 bytes, the bytes padded with one that never needs
    // escaping.
    let rest = chunks.remainder();
    if !rest.is_empty() {
        mask |= if s.len() >= 8 {
            escape_mask(word(s, s.len() - 8))
        } else {
            let mut w = [b'a'; 8];
            w[..rest.len()].copy_from_slice(rest);
            escape_mask(u64::from_le_bytes(w))
        };
    }
    mask == 0
}

/// Nonzero where some of eight bytes may need escaping, for
/// [`needs_no_escape`]; exact as a whole, though not byte by byte, so the
/// masks of several words may be or'ed and tested once.
///
/// SWAR: for each kind of byte a subtraction leaves a byte's high bit set
/// where the byte matches (`y - 0x01…` turns a zero byte of `y` into
/// 0xff). Bytes of 0x80 or more are refused outright (the `x` term), so
/// the usual `& !y` that keeps such bytes from matching falsely is not
/// needed; a borrow carried into a higher byte can set its high bit too,
/// but only below a byte that matched, so the whole is exact.
#[inline(always)]
fn escape_mask(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let control = x.wrapping_sub(0x20 * ONES);
    let backslash = (x ^ (b'\\' as u64 * ONES)).wrapping_sub(ONES);
    // `"` (0x22) and `&` (0x26) differ only in bit 2; `<` (0x3c) and `>`
    // (0x3e) only in bit 1: one comparison for each pair.
    let quote_amp = ((x | (0x04 * ONES)) ^ (0x26 * ONES)).wrapping_sub(ONES);
    let angle = ((x | (0x02 * ONES)) ^ (0x3e * ONES)).wrapping_sub(ONES);
    (x | control | backslash | quote_amp | angle) & HIGH
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time check and copy agree with the byte-by-byte
    /// quoting: every byte value at every position of strings of 0 to 40
    /// bytes (through each size class of the short path, its limit of 32,
    /// and the general path's whole and partial last words).
    #[test]
    fn quick_quoting_agrees_with_go_quoting() {
        let base = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN";
        for len in 0..=base.len() {
            let plain = &base[..len];
            let quoted = format!("\"{plain}\"").into_bytes();
            // After what is already there, with and without room for it.
            for before in [0, 1, 7] {
                for room in [0, len + 2] {
                    let mut ours = Vec::with_capacity(before + room);
                    ours.extend_from_slice(&b"0123456"[..before]);
                    write_quoted(&mut ours, plain);
                    assert_eq!(ours[..before], b"0123456"[..before]);
                    assert_eq!(ours[before..], quoted, "{len} after {before}");
                    ours.truncate(before);
                    write_key(&mut ours, plain);
                    assert_eq!(ours[..before], b"0123456"[..before]);
                    assert_eq!(ours[before..ours.len() - 1], quoted);
                    assert_eq!(ours.last(), Some(&b':'));
                }
            }
            for at in 0..len {
                for b in 0u8..=0xff {
                    let mut bytes = plain.as_bytes().to_vec();
                    bytes[at] = b;
                    let Ok(text) = std::str::from_utf8(&bytes) else {
                        // A lone byte of 0x80 or more: not text, but the
                        // checks must still refuse it.
                        assert!(!needs_no_escape(&bytes));
                        if len <= SHORT_MAX {
                            let mut out = Vec::new();
                            assert!(!write_short_plain(&mut out, &bytes, b"\""));
                            assert!(out.is_empty());
                        }
                        continue;
                    };
                    let (mut ours, mut go) = (Vec::new(), Vec::new());
                    write_quoted(&mut ours, text);
                    json_quote_into(&mut go, text);
                    assert_eq!(ours, go, "byte {b:#x} at {at} of {len}");
                    let escaped = go.len() != text.len() + 2;
                    assert!(!(escaped && needs_no_escape(&bytes)));
                    let mut key = Vec::new();
                    write_key(&mut key, text);
                    go.push(b':');
                    assert_eq!(key, go, "key: byte {b:#x} at {at} of {len}");
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
