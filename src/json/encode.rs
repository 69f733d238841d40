//! Value → JSON, driven by the type.

use crate::error::{Error, Result};
use crate::gostr::json_quote_into;
use crate::number::Number;
use crate::path::PathStep;
use crate::types::Type;
use crate::value::{Repr, Value};

pub(super) fn encode_into(out: &mut Vec<u8>, v: &Value, ty: &Type) -> Result<()> {
    if let Repr::Unknown(..) = v.repr() {
        return Err(Error::unrepresentable("value is not known"));
    }
    if *ty == Type::Dynamic && *v.ty() != Type::Dynamic {
        out.extend_from_slice(b"{\"value\":");
        encode_into(out, v, v.ty())?;
        out.extend_from_slice(b",\"type\":");
        v.ty().write_json(out);
        out.push(b'}');
        return Ok(());
    }
    let mismatch = || {
        Error::data(format!(
            "a value of type {} cannot be written as {}",
            v.ty(),
            ty
        ))
    };
    match (ty, v.repr()) {
        (_, Repr::Null(_)) => out.extend_from_slice(b"null"),
        (Type::String, Repr::String(s)) => json_quote_into(out, s),
        (Type::Number, Repr::Number(n)) => write_number(out, n)?,
        (Type::Bool, Repr::Bool(b)) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        (Type::String, Repr::Number(n)) => {
            let mut text = Vec::new();
            n.write_text(&mut text);
            out.push(b'"');
            out.extend_from_slice(&text);
            out.push(b'"');
        }
        (Type::String, Repr::Bool(b)) => {
            out.extend_from_slice(if *b { b"\"true\"" } else { b"\"false\"" })
        }
        (Type::Number, Repr::String(s)) => {
            let n = Number::parse(s)
                .map_err(|_| Error::data(format!("cannot convert {s:?} to a number")))?;
            write_number(out, &n)?;
        }
        (Type::Bool, Repr::String(s)) if matches!(&**s, "true" | "false") => {
            out.extend_from_slice(s.as_bytes())
        }
        (Type::List(ety), Repr::Seq(_, items)) if matches!(v.ty(), Type::List(_)) => {
            write_array(out, items, |_| ety)?
        }
        (Type::Set(ety), Repr::Seq(_, items)) if matches!(v.ty(), Type::Set(_)) => {
            write_array(out, items, |_| ety)?
        }
        (Type::Tuple(etys), Repr::Seq(_, items))
            if matches!(v.ty(), Type::Tuple(_)) && etys.len() == items.len() =>
        {
            write_array(out, items, |i| &etys[i])?
        }
        (Type::Map(ety), Repr::Map(_, entries)) => {
            out.push(b'{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_quote_into(out, k);
                out.push(b':');
                encode_into(out, item, ety).map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            }
            out.push(b'}');
        }
        (Type::Object(oty), Repr::Seq(_, items)) => {
            let Type::Object(vty) = v.ty() else {
                return Err(mismatch());
            };
            if !vty.has_names_of(oty) {
                return Err(mismatch());
            }
            out.push(b'{');
            for (i, ((name, aty), item)) in oty.attributes().zip(items).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_quote_into(out, name);
                out.push(b':');
                encode_into(out, item, aty)
                    .map_err(|e| e.under(PathStep::Attr(name.to_string())))?;
            }
            out.push(b'}');
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

fn write_number(out: &mut Vec<u8>, n: &Number) -> Result<()> {
    if n.is_infinite() {
        return Err(Error::unrepresentable("cannot serialize infinity as JSON"));
    }
    n.write_text(out);
    Ok(())
}

fn write_array<'t>(
    out: &mut Vec<u8>,
    items: &[Value],
    ety: impl Fn(usize) -> &'t Type,
) -> Result<()> {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        encode_into(out, item, ety(i)).map_err(|e| e.under(PathStep::Index(i as u64)))?;
    }
    out.push(b']');
    Ok(())
}
