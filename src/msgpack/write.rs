//! Writing msgpack items: markers, numbers, strs and headers, in the
//! forms go-cty's encoder chooses. The value encoder, the typed serializer
//! and the unknowns' writer all write through these.

use rmp::encode as mp;

use crate::number::Number;

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

/// nil: a null of any type.
pub(crate) const NIL: u8 = 0xc0;

/// false (0xc2) and true (0xc3).
#[inline(always)]
pub(crate) fn bool_marker(b: bool) -> u8 {
    if b {
        0xc3
    } else {
        0xc2
    }
}

pub(crate) fn write_number(out: &mut Vec<u8>, n: &Number) {
    // go-cty's choice, in its order. An integer int64 holds is an int (-0
    // is the integer 0).
    if let Some(i) = n.to_i64() {
        let _ = mp::write_sint(out, i);
        return;
    }
    // A non-integer that float64 holds exactly, or ±infinity, is a float64;
    // a larger integer never is, even where float64 could hold it.
    if let Some(f) = n.non_integer_as_exact_f64() {
        let _ = mp::write_f64(out, f);
        return;
    }
    // The rest (`0.1`, 2^64) is exact decimal text, so nothing is lost.
    write_str(out, &n.text());
}

/// The msgpack forms with a length in their header.
#[derive(Clone, Copy)]
pub(super) enum HeaderKind {
    Str,
    Bin,
    Array,
    Map,
}

/// Writes a str, bin, array or map header for `len` elements or bytes,
/// in the shortest form (as rmp and go-cty's encoder choose).
///
/// Written here rather than by rmp's `write_str_len` and friends: those
/// reach `write_marker` through a call that the compiler inlines or not
/// depending on how the crate is split into codegen units, and when it
/// did not (after an unrelated module split) msgpack encoding of the
/// fleet went from 81M to 100M instructions. `#[inline]` here keeps the
/// header a few stores into the vector whatever the partitioning.
#[inline(always)]
pub(super) fn header(out: &mut Vec<u8>, kind: HeaderKind, len: u32) {
    // (fix marker and its largest length, 8-, 16- and 32-bit markers)
    let (fix, fix_max, m8, m16, m32) = match kind {
        HeaderKind::Str => (0xa0, 31, Some(0xd9), 0xda, 0xdb),
        HeaderKind::Bin => (0, 0, Some(0xc4), 0xc5, 0xc6),
        HeaderKind::Array => (0x90, 15, None, 0xdc, 0xdd),
        HeaderKind::Map => (0x80, 15, None, 0xde, 0xdf),
    };
    match (len, m8) {
        // Bin has no fix form: its fix_max of 0 sends every length on.
        (n, _) if fix_max > 0 && n <= fix_max => out.push(fix | n as u8),
        (n, Some(m8)) if n <= 0xff => out.extend_from_slice(&[m8, n as u8]),
        (n, _) if n <= 0xffff => {
            let [hi, lo] = (n as u16).to_be_bytes();
            out.extend_from_slice(&[m16, hi, lo]);
        }
        (n, _) => {
            let [a, b, c, d] = n.to_be_bytes();
            out.extend_from_slice(&[m32, a, b, c, d]);
        }
    }
}

/// A str: its header, then its bytes.
///
/// Always inlined: with three callers the compiler kept it a call, whose
/// prologue and epilogue were 7.7M of its 27.8M instructions (callgrind,
/// dynamic payload, 5 encodes).
#[inline(always)]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    write_str_bytes(out, s.as_bytes());
}

/// [`write_str`], answering whether the text was all ASCII (and so NFC).
///
/// For text from Rust values, which must be checked for NFC where a
/// `Value`'s already is: a short string's bytes are looked at as they are
/// copied, which costs a few instructions, where a separate ASCII check
/// was 10% of encoding the fleet from structs (callgrind).
#[cfg(feature = "serde")]
#[inline(always)]
pub(crate) fn write_str_ascii(out: &mut Vec<u8>, s: &str) -> bool {
    write_str_bytes(out, s.as_bytes()) & HIGH_BITS == 0
}

/// The high bit of each of eight bytes: any set, in bytes or'ed together,
/// means a byte that is not ASCII.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Longest str with the length in its marker byte (fixstr).
const FIXSTR_MAX: usize = 31;
/// fixstr marker, or'ed with the length.
const FIXSTR: u8 = 0xa0;

/// A str's header and bytes. One of at most [`FIXSTR_MAX`] bytes, nearly
/// every one: its marker and bytes written in place, the bytes as two
/// fixed-size pieces (one from the start, one from the end, overlapping
/// in the middle) instead of a `memcpy` call.
///
/// Most strings written are short (names, ids, values). Through
/// `extend_from_slice` each cost a call to `memcpy` (20% of encoding the
/// dynamic payload, 13 instructions inside it per string) and a capacity
/// check and length update for the marker and again for the bytes. A
/// safe version (fixed-size `extend_from_slice`s and a `truncate`) was
/// slower than `memcpy`: the vector's length and capacity are reloaded
/// after every store.
///
/// Returns the bytes copied, or'ed together (in some order, so only
/// [`HIGH_BITS`] mean anything in it); callers that do not ask pay
/// nothing, as it folds away.
///
/// Inlined only when optimizing: unoptimized, each of `write`'s inlined
/// copies kept stack slots of its own, and `write`'s frame grew from 2.5
/// to 8.5 KB, too much for 255 levels of nesting on a 1 MiB stack.
#[allow(unsafe_code)]
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn write_str_bytes(out: &mut Vec<u8>, b: &[u8]) -> u64 {
    let n = b.len();
    // Longer: its header and then the bytes. This check also bounds the
    // stores below.
    if n > FIXSTR_MAX {
        header(out, HeaderKind::Str, n as u32);
        out.extend_from_slice(b);
        return if b.is_ascii() { 0 } else { HIGH_BITS };
    }
    out.reserve(1 + n);
    let at = out.len();
    let src = b.as_ptr();
    // SAFETY: `reserve` made room for the 1 + n bytes written from `at`
    // (every write below is within `dst[..1 + n]`, and reads within
    // `src[..n]`, as the branch conditions bound n); `b` is borrowed and
    // so not inside `out`, which is borrowed mutably, so the copies do
    // not overlap; and `set_len` covers exactly the bytes now written.
    unsafe {
        let dst = out.as_mut_ptr().add(at);
        dst.write(FIXSTR | n as u8);
        let dst = dst.add(1);
        let seen = if n >= 16 {
            copy_fixed::<16>(src, dst) | copy_fixed::<16>(src.add(n - 16), dst.add(n - 16))
        } else if n >= 8 {
            copy_fixed::<8>(src, dst) | copy_fixed::<8>(src.add(n - 8), dst.add(n - 8))
        } else if n >= 4 {
            copy_fixed::<4>(src, dst) | copy_fixed::<4>(src.add(n - 4), dst.add(n - 4))
        } else if n > 0 {
            // 1 to 3 bytes: the first, the middle and the last.
            let (first, middle, last) = (*src, *src.add(n / 2), *src.add(n - 1));
            dst.write(first);
            dst.add(n / 2).write(middle);
            dst.add(n - 1).write(last);
            u64::from(first | middle | last) * 0x0101_0101_0101_0101
        } else {
            0
        };
        out.set_len(at + 1 + n);
        seen
    }
}

/// Copies `K` bytes (4, 8 or 16), a constant: compiled to loads and
/// stores. Returns the bytes as 64-bit words or'ed together (4 bytes
/// repeated to fill one).
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, K)`.
#[allow(unsafe_code)]
#[inline(always)]
unsafe fn copy_fixed<const K: usize>(src: *const u8, dst: *mut u8) -> u64 {
    // SAFETY: the caller's; every read and write below is within the
    // first K bytes of `src` and `dst`, unaligned.
    unsafe {
        match K {
            4 => {
                let w = src.cast::<u32>().read_unaligned();
                dst.cast::<u32>().write_unaligned(w);
                u64::from(w) * 0x1_0000_0001
            }
            8 => {
                let w = src.cast::<u64>().read_unaligned();
                dst.cast::<u64>().write_unaligned(w);
                w
            }
            _ => {
                debug_assert_eq!(K, 16);
                let a = src.cast::<u64>().read_unaligned();
                let b = src.add(8).cast::<u64>().read_unaligned();
                dst.cast::<u64>().write_unaligned(a);
                dst.add(8).cast::<u64>().write_unaligned(b);
                a | b
            }
        }
    }
}

/// A list, set or tuple header for `len` elements.
#[inline(always)]
pub(crate) fn write_array_header(out: &mut Vec<u8>, len: u32) {
    header(out, HeaderKind::Array, len);
}

/// A map or object header for `len` entries.
#[inline(always)]
pub(crate) fn write_map_header(out: &mut Vec<u8>, len: u32) {
    header(out, HeaderKind::Map, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "serde")]
    #[test]
    fn str_writing_tells_ascii_from_not_at_every_length_and_place() {
        // The fixed-size copies see every byte (short strings) and the
        // long path asks `is_ascii`: a non-ASCII character anywhere is
        // noticed, and the bytes are those `write_str` writes.
        for len in 0..40 {
            let plain = "abcdefghijklmnopqrstuvwxyz0123456789ABCD"[..len].to_string();
            let mut cases = vec![(plain.clone(), true)];
            for at in 0..len.saturating_sub(1) {
                let mut t = plain[..at].to_string();
                t.push('é');
                t.push_str(&plain[at + 2..]);
                cases.push((t, false));
            }
            for (text, ascii) in cases {
                let (mut ours, mut plain_path) = (vec![7], vec![7]);
                assert_eq!(write_str_ascii(&mut ours, &text), ascii, "{text:?}");
                write_str(&mut plain_path, &text);
                assert_eq!(ours, plain_path, "{text:?}");
                let mut rmp = vec![7];
                let _ = mp::write_str(&mut rmp, &text);
                assert_eq!(ours, rmp, "{text:?}");
            }
        }
    }

    /// rmp's writer of one header form.
    type RmpHeader = fn(&mut Vec<u8>, u32);

    #[test]
    fn headers_are_rmps() {
        for n in [
            0u32,
            1,
            15,
            16,
            31,
            32,
            255,
            256,
            65_535,
            65_536,
            1 << 24,
            u32::MAX,
        ] {
            let kinds: [(HeaderKind, RmpHeader); 4] = [
                (HeaderKind::Str, |o, n| drop(mp::write_str_len(o, n))),
                (HeaderKind::Bin, |o, n| drop(mp::write_bin_len(o, n))),
                (HeaderKind::Array, |o, n| drop(mp::write_array_len(o, n))),
                (HeaderKind::Map, |o, n| drop(mp::write_map_len(o, n))),
            ];
            for (kind, rmp) in kinds {
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                header(&mut ours, kind, n);
                rmp(&mut theirs, n);
                assert_eq!(ours, theirs, "length {n}");
            }
        }
    }

    /// The inline short-string copy writes what rmp writes, for every
    /// length of each of its size classes and past the fixstr limit, after
    /// any amount already written and whether or not `out` has to grow.
    #[test]
    fn strs_are_rmps() {
        let text: String = (0..300u32)
            .map(|i| char::from(b'!' + (i * 7 % 90) as u8))
            .collect();
        for len in (0..=40).chain([255, 256, 257]) {
            let s = &text[..len];
            for before in [0, 1, 5, 31] {
                let prefix = &text[len..len + before];
                let mut theirs = prefix.as_bytes().to_vec();
                let _ = mp::write_str(&mut theirs, s);
                for capacity in [before, before + len, theirs.len(), 1024] {
                    let mut ours = Vec::with_capacity(capacity);
                    ours.extend_from_slice(prefix.as_bytes());
                    write_str(&mut ours, s);
                    assert_eq!(ours, theirs, "length {len} after {before}");
                }
            }
        }
    }
}
