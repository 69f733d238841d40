//! Value → msgpack. The value is first converted to the type it is
//! written as ([`crate::convert`]), as go-cty's `Marshal` does; from there
//! on this only writes.

use super::unknown;
use super::write::{
    bool_marker, header, write_array_header, write_map_header, write_number, write_str, HeaderKind,
    NIL,
};
use crate::convert::conformed;
use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::types::Type;
use crate::value::{Repr, Value};

/// fixarray of two: a dynamic value's `[type, value]` pair.
const FIXARRAY_2: u8 = 0x92;
/// bin8, a bin of at most 255 bytes: a dynamic value's type JSON, mostly.
const BIN8: u8 = 0xc4;

pub(super) fn encode_into(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    let v = conformed(v, ty)?;
    write(out, &v, ty)
}

/// Writes `v`, which conforms to `ty`.
fn write(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    // A concrete value in a dynamic position carries its type in band; a
    // wholly unknown value and a null of unknown type are written bare.
    // (`matches!`, not `==`: `Type`'s `PartialEq` is a call, made for
    // every value written; 3% of encoding the dynamic payload.)
    if matches!(ty, Type::Dynamic) && !matches!(v.ty(), Type::Dynamic) {
        return write_typed(out, v);
    }
    match (v.repr(), ty) {
        (Repr::Unknown(_, r), _) => unknown::write(out, v.ty(), r.as_deref()),
        (Repr::Null(_), _) => out.push(NIL),
        (Repr::String(s), _) => write_str(out, s),
        (Repr::Number(n), _) => write_number(out, n),
        (Repr::Bool(b), _) => out.push(bool_marker(*b)),
        (Repr::Seq(_, items), Type::List(ety) | Type::Set(ety)) => {
            write_array_header(out, items.len() as u32);
            for (i, item) in items.iter().enumerate() {
                write_member(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
            }
        }
        (Repr::Seq(_, items), Type::Tuple(etys)) => {
            write_array_header(out, items.len() as u32);
            for (i, (item, ety)) in items.iter().zip(etys.iter()).enumerate() {
                write_member(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
            }
        }
        // Attributes in the type's (sorted) order, which is the value's.
        (Repr::Seq(_, items), Type::Object(oty)) => {
            write_map_header(out, oty.len() as u32);
            for ((name, aty), item) in oty.attributes().zip(items.iter()) {
                write_str(out, name);
                write_member(out, item, aty)
                    .map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
            }
        }
        // Keys sorted bytewise, which is how a map value holds them.
        (Repr::Map(_, entries), Type::Map(ety)) => {
            write_map_header(out, entries.len() as u32);
            for (k, item) in entries {
                write_str(out, k);
                write_member(out, item, ety).map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            }
        }
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
/// stack slots of their own in `write`'s frame, and 255 levels of nesting
/// no longer fitted a 1 MiB stack.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_member(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    // Under `dynamic` even a leaf carries its type: `write` does that.
    if !matches!(ty, Type::Dynamic) {
        match v.repr() {
            Repr::String(s) => write_str(out, s),
            Repr::Null(_) => out.push(NIL),
            Repr::Bool(b) => out.push(bool_marker(*b)),
            _ => return write(out, v, ty),
        }
        return Ok(());
    }
    write(out, v, ty)
}

/// A concrete value in a dynamic position: `[type JSON as bin, value]`.
///
/// Out of line: few values are in dynamic positions, and inlined into
/// `write` this would widen the frame every value pays for.
#[inline(never)]
fn write_typed(out: &mut Vec<u8>, v: &Value) -> Result<()> {
    out.push(FIXARRAY_2);
    // The JSON goes straight into `out`, after a placeholder for a bin8
    // header (lengths up to 255, which almost every type's JSON fits); a
    // longer one is moved over for its wider header. Cheaper than a JSON
    // buffer of its own per value, an allocation each.
    let at = out.len();
    out.extend_from_slice(&[0, 0]);
    v.ty().write_json(out);
    let len = (out.len() - at - 2) as u32;
    if len <= 0xff {
        out[at] = BIN8;
        out[at + 1] = len as u8;
    } else {
        let mut wide = Vec::with_capacity(5);
        header(&mut wide, HeaderKind::Bin, len);
        out.splice(at..at + 2, wide);
    }
    write(out, v, v.ty())
}

#[cfg(test)]
mod tests {
    use rmp::encode as mp;

    use super::*;

    /// A dynamic value's type JSON, written in place after room for a bin8
    /// header, gets the header rmp gives its length on both sides of the
    /// bin8/bin16 (255/256) and bin16/bin32 (65535/65536) limits.
    #[test]
    fn type_json_headers_are_rmps() {
        // `["object",{"a…a":"bool"}]`: the name's length sets the JSON's.
        let frame = r#"["object",{"":"bool"}]"#.len();
        for json_len in [254, 255, 256, 257, 65_534, 65_535, 65_536, 65_537] {
            let name = "a".repeat(json_len - frame);
            let v = Value::object([(name.as_str(), Value::bool(true))]);
            let json = v.ty().to_json();
            assert_eq!(json.len(), json_len);
            let mut theirs = vec![0x92];
            let _ = mp::write_bin(&mut theirs, json.as_bytes());
            let _ = mp::write_map_len(&mut theirs, 1);
            let _ = mp::write_str(&mut theirs, &name);
            theirs.push(0xc3);
            let mut ours = vec![];
            encode_into(&mut ours, &v, &Type::Dynamic).unwrap();
            assert_eq!(ours, theirs, "type JSON of {json_len} bytes");
        }
    }
}
