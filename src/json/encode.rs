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
    if *ty == Type::Dynamic && *v.ty() != Type::Dynamic {
        out.extend_from_slice(b"{\"value\":");
        write(out, v, v.ty())?;
        out.extend_from_slice(b",\"type\":");
        v.ty().write_json(out);
        out.push(b'}');
        return Ok(());
    }
    match (v.repr(), ty) {
        (Repr::Null(_), _) => out.extend_from_slice(b"null"),
        (Repr::String(s), _) => json_quote_into(out, s),
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
        json_quote_into(out, name);
        out.push(b':');
        write(out, item, ty).map_err(|e| e.under(step(name)))?;
    }
    out.push(b'}');
    Ok(())
}
