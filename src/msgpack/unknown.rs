//! Unknown values in msgpack, both directions: every wire rule about
//! unknowns and their refinements lives here (go-cty's `unknown.go`).
//!
//! An unknown with nothing known about it is `d4 00 00` (fixext 1, type 0,
//! payload `00`). One with refinements is ext type `0x0c` whose payload is
//! a msgpack map from refinement keys to values, written in key order:
//!
//! | key | refinement | value |
//! |---|---|---|
//! | 1 | nullness | `false`: definitely not null |
//! | 2 | string prefix | str |
//! | 3 / 4 | number lower / upper bound | `[number, inclusive]` |
//! | 5 / 6 | collection length lower / upper bound | int |

use rmp::encode as mp;

use super::read::{is_ext, Head, Reader};
use super::write::write_number;
use crate::error::{Error, Result};
use crate::refinements::{safe_prefix, Bound, Refinements};
use crate::strings::nfc;
use crate::types::Type;
use crate::value::{collapse, Value};
use crate::DecodeOptions;

/// Ext type of an unknown with no refinements. On decode, any ext type
/// with a payload of at most one byte is a plain unknown, as in go-cty.
const EXT_UNKNOWN: i8 = 0;
/// Ext type of an unknown carrying refinements.
const EXT_REFINED_UNKNOWN: i8 = 0x0c;
/// go-cty refuses refinement payloads longer than this.
const MAX_REFINEMENT_PAYLOAD: usize = 1024;
/// go-cty's encoder shortens string prefixes longer than this.
const MAX_PREFIX_LEN: usize = 256;

/// Refinement map keys.
mod key {
    pub const NULLNESS: u64 = 1;
    pub const STRING_PREFIX: u64 = 2;
    pub const NUMBER_LOWER: u64 = 3;
    pub const NUMBER_UPPER: u64 = 4;
    pub const LENGTH_LOWER: u64 = 5;
    pub const LENGTH_UPPER: u64 = 6;
}

// ---- writing --------------------------------------------------------------

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

/// `d4 00 00`, or an ext 0x0c whose payload maps refinement keys to values.
pub(super) fn write(out: &mut Vec<u8>, ty: &Type, r: Option<&Refinements>) {
    match r.and_then(|r| refinement_payload(ty, r)) {
        None => {
            let _ = mp::write_ext_meta(out, 1, EXT_UNKNOWN);
            out.push(0);
        }
        Some(p) => {
            let _ = mp::write_ext_meta(out, p.len() as u32, EXT_REFINED_UNKNOWN);
            out.extend_from_slice(&p);
        }
    }
}

/// The refinement map, or `None` when no refinement applies to `ty`
/// (go-cty then writes a plain unknown).
fn refinement_payload(ty: &Type, r: &Refinements) -> Option<Vec<u8>> {
    let mut entries: Vec<u8> = Vec::new();
    let mut count = 0u32;
    if r.not_null {
        let _ = mp::write_uint(&mut entries, key::NULLNESS);
        let _ = mp::write_bool(&mut entries, false);
        count += 1;
    }
    match ty {
        Type::String => {
            if let Some(p) = r.string_prefix.as_deref().and_then(written_prefix) {
                let _ = mp::write_uint(&mut entries, key::STRING_PREFIX);
                let _ = mp::write_str(&mut entries, &p);
                count += 1;
            }
        }
        Type::Number => {
            for (k, b) in [(key::NUMBER_LOWER, &r.lower), (key::NUMBER_UPPER, &r.upper)] {
                if let Some(b) = b {
                    let _ = mp::write_uint(&mut entries, k);
                    let _ = mp::write_array_len(&mut entries, 2);
                    write_number(&mut entries, &b.value);
                    let _ = mp::write_bool(&mut entries, b.inclusive);
                    count += 1;
                }
            }
        }
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            // A lower bound of 0 says nothing, so go-cty leaves it out.
            if r.length_min != 0 {
                let _ = mp::write_uint(&mut entries, key::LENGTH_LOWER);
                let _ = mp::write_uint(&mut entries, r.length_min);
                count += 1;
            }
            if let Some(max) = r.length_max {
                let _ = mp::write_uint(&mut entries, key::LENGTH_UPPER);
                let _ = mp::write_uint(&mut entries, max);
                count += 1;
            }
        }
        _ => {}
    }
    if count == 0 {
        return None;
    }
    let mut payload = Vec::with_capacity(entries.len() + 1);
    let _ = mp::write_map_len(&mut payload, count);
    payload.extend_from_slice(&entries);
    Some(payload)
}

/// The prefix as written: go-cty cuts one longer than 256 bytes to a safe
/// prefix of at most 255, so that the payload stays within its limit.
fn written_prefix(p: &str) -> Option<String> {
    let p = if p.len() > MAX_PREFIX_LEN {
        let mut cut = MAX_PREFIX_LEN - 1;
        while !p.is_char_boundary(cut) {
            cut -= 1;
        }
        safe_prefix(&p[..cut])
    } else {
        p.to_string()
    };
    (!p.is_empty()).then_some(p)
}

// ---- reading --------------------------------------------------------------

/// An ext at the reader's position, as an unknown (or null) of type `ty`.
pub(super) fn read(r: &mut Reader<'_>, ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    let at = r.pos();
    let len = r.ext_len()?;
    let ext_type = i8::from_be_bytes(r.be()?);
    if len <= 1 {
        // Any ext type: an unknown whose payload means nothing.
        r.take(len)?;
        return Ok(Value::unknown(ty.clone()));
    }
    if ext_type != EXT_REFINED_UNKNOWN {
        return Err(Error::data(format!(
            "unsupported extension type 0x{ext_type:02x} with len {len}"
        ))
        .at_offset(at));
    }
    if len > MAX_REFINEMENT_PAYLOAD {
        // go-cty's message.
        return Err(Error::data("oversize unknown value refinement").at_offset(at));
    }
    let payload_at = r.pos();
    let payload = r.take(len)?;
    let refinements = read_refinements(&mut Reader::new(payload), ty, opts).map_err(|e| {
        // Offsets inside the payload become offsets in the input.
        let inner = e.offset().unwrap_or(0);
        e.in_context("invalid unknown value refinements")
            .relocated(payload_at + inner)
    })?;
    let Some(refinements) = refinements else {
        return Ok(Value::null(ty.clone()));
    };
    if *ty == Type::Dynamic {
        return Ok(Value::unknown(Type::Dynamic));
    }
    let refinements = refinements.validated(ty).map_err(|e| e.at_offset(at))?;
    if refinements.not_null && refinements.length_max == Some(refinements.length_min) {
        // It collapses into a known collection of that many unknowns.
        opts.check_collection_len(refinements.length_min)
            .map_err(|e| e.at_offset(at))?;
    }
    Ok(collapse(ty.clone(), refinements))
}

/// The refinement map. `None` means "definitely null".
fn read_refinements(
    p: &mut Reader<'_>,
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<Option<Refinements>> {
    let n = match p.head()? {
        Head::Map(n) => n,
        _ => return Err(Error::data("not a map").at_offset(0)),
    };
    let mut r = Refinements::default();
    if *ty == Type::Dynamic {
        // go-cty does not look at the entries for an unknown of unknown type.
        return Ok(Some(r));
    }
    let mut nullness: Option<bool> = None;
    for _ in 0..n {
        let kat = p.pos();
        let Some(k) = p.head()?.integer_or_nil() else {
            return Err(Error::data("non-integer key in map").at_offset(kat));
        };
        let vat = p.pos();
        // An unknown key is ignored, but go-cty does not skip its value:
        // the next key is read from where the value starts.
        let Some(k) = k.to_u64() else { continue };
        // go-cty's messages, where it has them.
        let err = |msg: &'static str| Error::data(msg).at_offset(vat);
        match k {
            key::NULLNESS => {
                let null = match p.head()? {
                    Head::Bool(b) => b,
                    Head::Nil => false,
                    _ => return Err(err("null refinement is not boolean")),
                };
                if nullness.is_some_and(|prev| prev != null) {
                    return Err(err("contradictory null refinements"));
                }
                nullness = Some(null);
            }
            key::STRING_PREFIX => {
                if *ty != Type::String {
                    return Err(err("string prefix refinement for non-string type"));
                }
                let prefix = match p.head()? {
                    Head::Str(len) | Head::Bin(len) => p.text(len)?.0,
                    Head::Nil => "",
                    _ => return Err(err("string prefix refinement is not string")),
                };
                if !prefix.is_empty() {
                    r.add_prefix(nfc(prefix).into_owned())
                        .map_err(|e| e.at_offset(vat))?;
                }
            }
            key::NUMBER_LOWER | key::NUMBER_UPPER => {
                if *ty != Type::Number {
                    return Err(err("numeric bound refinement for non-number type"));
                }
                let bound = read_bound(p, vat, opts.max_number_exponent)?;
                if k == key::NUMBER_LOWER {
                    r.tighten_lower(bound);
                } else {
                    r.tighten_upper(bound);
                }
            }
            key::LENGTH_LOWER | key::LENGTH_UPPER => {
                if !ty.is_collection() {
                    return Err(err("length bound refinement for non-collection type"));
                }
                let Some(n) = p.head()?.integer_or_nil() else {
                    return Err(err("length bound refinement must be integer"));
                };
                if k == key::LENGTH_LOWER {
                    // go-cty keeps the tighter of two lower bounds, and no
                    // length is below 0: a negative one says nothing.
                    if !n.is_negative() {
                        let n = n.to_u64().ok_or_else(|| {
                            err("a length bound refinement must be an integer within 64 bits")
                        })?;
                        r.tighten_length_min(n);
                    }
                } else {
                    let n = n.to_u64().ok_or_else(|| {
                        err("a length upper bound refinement must be a non-negative integer")
                    })?;
                    r.tighten_length_max(n);
                }
            }
            _ => {}
        }
    }
    match nullness {
        Some(true) => Ok(None),
        Some(false) => {
            r.not_null = true;
            Ok(Some(r))
        }
        None => Ok(Some(r)),
    }
}

/// A `[number, inclusive]` bound.
fn read_bound(p: &mut Reader<'_>, at: usize, max_exponent: u32) -> Result<Bound> {
    let bad =
        || Error::data("a number bound refinement must be a [number, bool] array").at_offset(at);
    if !matches!(p.head()?, Head::Array(2)) {
        return Err(bad());
    }
    let nat = p.pos();
    // Neither a null nor an unknown can bound a number.
    if matches!(p.peek()?, 0xc0) || is_ext(p.peek()?) {
        return Err(bad());
    }
    let head = p.head()?;
    let value = p.number_from(head, nat, max_exponent)?.ok_or_else(bad)?;
    let inclusive = match p.head()? {
        Head::Bool(b) => b,
        _ => return Err(bad()),
    };
    Ok(Bound { value, inclusive })
}
