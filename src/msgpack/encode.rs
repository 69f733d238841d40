//! Value → msgpack, driven by the type.

use rmp::encode as mp;

use super::{key, EXT_REFINED_UNKNOWN, EXT_UNKNOWN, MAX_PREFIX_LEN};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::refinements::{safe_prefix, Refinements};
use crate::types::Type;
use crate::value::{Repr, Value};

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

pub(super) fn encode_into(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    // A concrete value in a dynamic position carries its type in band.
    if *ty == Type::Dynamic && *v.ty() != Type::Dynamic {
        out.push(0x92);
        let mut type_json = Vec::with_capacity(16);
        v.ty().write_json(&mut type_json);
        let _ = mp::write_bin(out, &type_json);
        return encode_into(out, v, v.ty());
    }
    match v.repr() {
        Repr::Unknown(_, r) => {
            write_unknown(out, v.ty(), r.as_deref());
            Ok(())
        }
        Repr::Null(_) => {
            let _ = mp::write_nil(out);
            Ok(())
        }
        repr => encode_known(out, v, repr, ty),
    }
}

fn mismatch(v: &Value, ty: &Type) -> Error {
    Error::data(format!(
        "a value of type {} cannot be written as {}",
        v.ty(),
        ty
    ))
}

fn encode_known(out: &mut Vec<u8>, v: &Value, repr: &Repr, ty: &Type) -> Result<()> {
    match (ty, repr) {
        (Type::String, Repr::String(s)) => {
            let _ = mp::write_str(out, s);
        }
        (Type::Number, Repr::Number(n)) => write_number(out, n),
        (Type::Bool, Repr::Bool(b)) => {
            let _ = mp::write_bool(out, *b);
        }
        // cty converts between the primitive types where it can.
        (Type::String, Repr::Number(n)) => {
            let mut text = Vec::new();
            n.write_text(&mut text);
            let _ = mp::write_str_len(out, text.len() as u32);
            out.extend_from_slice(&text);
        }
        (Type::String, Repr::Bool(b)) => {
            let _ = mp::write_str(out, if *b { "true" } else { "false" });
        }
        (Type::Number, Repr::String(s)) => {
            let n = Number::parse(s)
                .map_err(|_| Error::data(format!("cannot convert {s:?} to a number")))?;
            write_number(out, &n);
        }
        (Type::Bool, Repr::String(s)) => match &**s {
            "true" => {
                let _ = mp::write_bool(out, true);
            }
            "false" => {
                let _ = mp::write_bool(out, false);
            }
            _ => return Err(Error::data(format!("cannot convert {s:?} to a bool"))),
        },
        (Type::List(ety), Repr::Seq(_, items)) if matches!(v.ty(), Type::List(_)) => {
            write_seq(out, items, |_| ety)?
        }
        (Type::Set(ety), Repr::Seq(_, items)) if matches!(v.ty(), Type::Set(_)) => {
            write_seq(out, items, |_| ety)?
        }
        (Type::Tuple(etys), Repr::Seq(_, items))
            if matches!(v.ty(), Type::Tuple(_)) && etys.len() == items.len() =>
        {
            write_seq(out, items, |i| &etys[i])?
        }
        (Type::Map(ety), Repr::Map(_, entries)) => {
            let _ = mp::write_map_len(out, entries.len() as u32);
            for (k, item) in entries {
                let _ = mp::write_str(out, k);
                encode_into(out, item, ety).map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            }
        }
        (Type::Object(oty), Repr::Seq(_, items)) => {
            let Type::Object(vty) = v.ty() else {
                return Err(mismatch(v, ty));
            };
            if !vty.has_names_of(oty) {
                return Err(mismatch(v, ty));
            }
            let _ = mp::write_map_len(out, oty.len() as u32);
            for ((name, aty), item) in oty.attributes().zip(items) {
                let _ = mp::write_str(out, name);
                encode_into(out, item, aty)
                    .map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
            }
        }
        _ => return Err(mismatch(v, ty)),
    }
    Ok(())
}

fn write_seq<'t>(
    out: &mut Vec<u8>,
    items: &[Value],
    ety: impl Fn(usize) -> &'t Type,
) -> Result<()> {
    let _ = mp::write_array_len(out, items.len() as u32);
    for (i, item) in items.iter().enumerate() {
        encode_into(out, item, ety(i)).map_err(|e| e.under(PathStep::Index(i as u64)))?;
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

/// `d4 00 00`, or an ext 0x0c whose payload maps refinement keys to values.
fn write_unknown(out: &mut Vec<u8>, ty: &Type, r: Option<&Refinements>) {
    let payload = r.and_then(|r| refinement_payload(ty, r));
    match payload {
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
            if let Some(p) = r.string_prefix.as_deref().filter(|p| !p.is_empty()) {
                let p = if p.len() > MAX_PREFIX_LEN {
                    let mut cut = MAX_PREFIX_LEN - 1;
                    while !p.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    safe_prefix(&p[..cut])
                } else {
                    p.to_string()
                };
                if !p.is_empty() {
                    let _ = mp::write_uint(&mut entries, key::STRING_PREFIX);
                    let _ = mp::write_str(&mut entries, &p);
                    count += 1;
                }
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
