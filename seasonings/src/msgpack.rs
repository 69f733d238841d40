//! The little msgpack the envelope needs: one whole value's bytes taken
//! apart as a string, an integer, an array or a map, without ever trusting
//! a length header beyond the bytes that are there. The cty values inside
//! are never read here: they are kept as their bytes and decoded at their
//! types by ctywire.

use ctywire::{Error, Result};
use ctywire_bridge::msgpack_rpc::value_len;
use rmp::encode as mp;

/// The bytes of the first msgpack value in `b` and what follows it.
pub(crate) fn split_first(b: &[u8]) -> Result<(&[u8], &[u8])> {
    match value_len(b)? {
        Some(n) => Ok(b.split_at(n)),
        None => Err(Error::eof()),
    }
}

/// What one value is, for messages that say what was expected.
pub(crate) fn kind(b: &[u8]) -> &'static str {
    match b.first() {
        None => "nothing",
        Some(0xc0) => "nil",
        Some(0xc2 | 0xc3) => "a bool",
        Some(0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xd3) => "an integer",
        Some(0xca | 0xcb) => "a float",
        Some(0xa0..=0xbf | 0xd9..=0xdb) => "a string",
        Some(0xc4..=0xc6) => "a bin",
        Some(0x90..=0x9f | 0xdc | 0xdd) => "an array",
        Some(0x80..=0x8f | 0xde | 0xdf) => "a map",
        Some(0xc7..=0xc9 | 0xd4..=0xd8) => "an extension value",
        Some(_) => "not msgpack",
    }
}

/// The string `b` holds (exactly one value), if it is one.
pub(crate) fn as_str(b: &[u8]) -> Option<&str> {
    match rmp::decode::read_str_from_slice(b) {
        Ok((s, [])) => Some(s),
        _ => None,
    }
}

/// The integer `b` holds, if it is one that fits an i64.
pub(crate) fn as_int(b: &[u8]) -> Option<i64> {
    let mut s = b;
    rmp::decode::read_int::<i64, _>(&mut s)
        .ok()
        .filter(|_| s.is_empty())
}

/// The bool `b` holds, if it is one.
pub(crate) fn as_bool(b: &[u8]) -> Option<bool> {
    match b {
        [0xc2] => Some(false),
        [0xc3] => Some(true),
        _ => None,
    }
}

pub(crate) fn is_nil(b: &[u8]) -> bool {
    b == [0xc0]
}

/// The header of the array or map at the start of `b`: (count, header
/// length). `pairs` picks maps.
fn header(b: &[u8], pairs: bool) -> Option<(u64, usize)> {
    let be = |n: usize| {
        b.get(1..1 + n)
            .map(|s| (s.iter().fold(0u64, |a, &x| a << 8 | u64::from(x)), 1 + n))
    };
    match (b.first()?, pairs) {
        (&m @ 0x90..=0x9f, false) => Some((u64::from(m & 0x0f), 1)),
        (0xdc, false) => be(2),
        (0xdd, false) => be(4),
        (&m @ 0x80..=0x8f, true) => Some((u64::from(m & 0x0f), 1)),
        (0xde, true) => be(2),
        (0xdf, true) => be(4),
        _ => None,
    }
}

/// The values of the array (or, with `pairs`, the keys and values of the
/// map) `b` holds, exactly one value, in order; `None` for another kind.
/// The vector grows with the bytes present, never with the header.
fn items(b: &[u8], pairs: bool) -> Result<Option<Vec<&[u8]>>> {
    let Some((n, at)) = header(b, pairs) else {
        return Ok(None);
    };
    let mut rest = &b[at..];
    let mut out = Vec::new();
    for _ in 0..n * (1 + u64::from(pairs)) {
        let (v, r) = split_first(rest)?;
        out.push(v);
        rest = r;
    }
    if !rest.is_empty() {
        return Err(Error::syntax("bytes after the value"));
    }
    Ok(Some(out))
}

/// The elements of the array `b` holds, if it is one.
pub(crate) fn elements(b: &[u8]) -> Result<Option<Vec<&[u8]>>> {
    items(b, false)
}

/// A map entry: (key bytes, value bytes).
pub(crate) type Entry<'a> = (&'a [u8], &'a [u8]);

/// The entries of the map `b` holds, if it is one.
pub(crate) fn entries(b: &[u8]) -> Result<Option<Vec<Entry<'_>>>> {
    Ok(items(b, true)?.map(|kv| {
        kv.chunks_exact(2)
            .filter_map(|p| match *p {
                [k, v] => Some((k, v)),
                _ => None,
            })
            .collect()
    }))
}

// Writing: to a Vec, which cannot fail.

pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let _ = mp::write_str(out, s);
}

pub(crate) fn write_int(out: &mut Vec<u8>, n: i64) {
    let _ = mp::write_sint(out, n);
}

pub(crate) fn write_uint(out: &mut Vec<u8>, n: u64) {
    let _ = mp::write_uint(out, n);
}

pub(crate) fn write_array_len(out: &mut Vec<u8>, n: usize) {
    let _ = mp::write_array_len(out, u32::try_from(n).unwrap_or(u32::MAX));
}

pub(crate) fn write_map_len(out: &mut Vec<u8>, n: usize) {
    let _ = mp::write_map_len(out, u32::try_from(n).unwrap_or(u32::MAX));
}

/// A type expression (§3.2: the type's JSON, as msgpack) as JSON text,
/// for [`ctywire::Type::parse`]. Only strings, arrays and maps with string
/// keys occur in one; depth is bounded.
pub(crate) fn type_json(b: &[u8]) -> Result<String> {
    let mut out = String::new();
    write_json(b, &mut out, 64)?;
    Ok(out)
}

fn write_json(b: &[u8], out: &mut String, depth_left: usize) -> Result<()> {
    if depth_left == 0 {
        return Err(Error::limit("a type nested more than 64 deep"));
    }
    if let Some(s) = as_str(b) {
        json_string(s, out);
    } else if let Some(items) = elements(b)? {
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json(item, out, depth_left - 1)?;
        }
        out.push(']');
    } else if let Some(pairs) = entries(b)? {
        out.push('{');
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let k = as_str(k).ok_or_else(|| Error::type_error("a type's map keys are strings"))?;
            json_string(k, out);
            out.push(':');
            write_json(v, out, depth_left - 1)?;
        }
        out.push('}');
    } else {
        return Err(Error::type_error(format!(
            "a type is a string, an array or a map, not {}",
            kind(b)
        )));
    }
    Ok(())
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}
