//! Value → msgpack. The value is first converted to the type it is
//! written as ([`crate::convert`]), as go-cty's `Marshal` does; from there
//! on this only writes.

use rmp::encode as mp;

use super::unknown;
use crate::convert::conformed;
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::types::Type;
use crate::value::{Repr, Value};

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

pub(super) fn encode_into(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    let v = conformed(v, ty)?;
    write(out, &v, ty)
}

/// Writes `v`, which conforms to `ty`.
fn write(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    // A concrete value in a dynamic position carries its type in band; a
    // wholly unknown value and a null of unknown type are written bare.
    if *ty == Type::Dynamic && *v.ty() != Type::Dynamic {
        out.push(0x92);
        let mut type_json = Vec::with_capacity(16);
        v.ty().write_json(&mut type_json);
        let _ = mp::write_bin(out, &type_json);
        return write(out, v, v.ty());
    }
    match (v.repr(), ty) {
        (Repr::Unknown(_, r), _) => unknown::write(out, v.ty(), r.as_deref()),
        (Repr::Null(_), _) => {
            let _ = mp::write_nil(out);
        }
        (Repr::String(s), _) => {
            let _ = mp::write_str(out, s);
        }
        (Repr::Number(n), _) => write_number(out, n),
        (Repr::Bool(b), _) => {
            let _ = mp::write_bool(out, *b);
        }
        (Repr::Seq(_, items), Type::List(ety) | Type::Set(ety)) => {
            let _ = mp::write_array_len(out, items.len() as u32);
            for (i, item) in items.iter().enumerate() {
                write(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
            }
        }
        (Repr::Seq(_, items), Type::Tuple(etys)) => {
            let _ = mp::write_array_len(out, items.len() as u32);
            for (i, (item, ety)) in items.iter().zip(etys.iter()).enumerate() {
                write(out, item, ety).map_err(|e| e.under(PathStep::Index(i as u64)))?;
            }
        }
        // Attributes in the type's (sorted) order, which is the value's.
        (Repr::Seq(_, items), Type::Object(oty)) => {
            let _ = mp::write_map_len(out, oty.len() as u32);
            for ((name, aty), item) in oty.attributes().zip(items.iter()) {
                let _ = mp::write_str(out, name);
                write(out, item, aty).map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
            }
        }
        // Keys sorted bytewise, which is how a map value holds them.
        (Repr::Map(_, entries), Type::Map(ety)) => {
            let _ = mp::write_map_len(out, entries.len() as u32);
            for (k, item) in entries {
                let _ = mp::write_str(out, k);
                write(out, item, ety).map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            }
        }
        _ => return Err(Error::nonconforming(v, ty)),
    }
    Ok(())
}

pub(super) fn write_number(out: &mut Vec<u8>, n: &Number) {
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
    let mut text = Vec::with_capacity(24);
    n.write_text(&mut text);
    let _ = mp::write_str_len(out, text.len() as u32);
    out.extend_from_slice(&text);
}
