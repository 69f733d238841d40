//! Bridging cty values to plain JSON "props" for a child process (a script
//! in another language behind JSON-RPC) and back, the way
//! terraform-provider-denobridge does, without its losses:
//!
//! | denobridge | ctywire |
//! |---|---|
//! | a set is sent as the *string* `"[\"a\",\"b\"]"` | a set is an array, in canonical order |
//! | an unknown becomes `""`, `false`, `[]` or `"<nil>"` silently | an unknown is refused with its path, or (if the caller asks) written as `null` and reported |
//! | numbers pass through float64 (`2^53 + 1` is rounded) | numbers are exact, at any size |
//! | arrays come back as `list(dynamic)`, so `[1, "a"]` crashes Terraform | arrays in a dynamic position come back as tuples |
//! | every `propPath` segment that is not a number is a map key | a `propPath` is resolved against the value's type |
//!
//! The JSON itself is a [`Json`] document: exact numbers, ordered objects,
//! parsed and written by ctywire (so depending on ctywire leaves your
//! serde_json as it was). [`to_json`] and [`from_json`] move typed serde
//! messages in and out of it, like `serde_json::to_value`/`from_value`.
//!
//! *Needs the `bridge` feature.*
//!
//! ```
//! use ctywire::bridge::{from_props, to_props, Json, Unknowns};
//! use ctywire::{Type, Value};
//!
//! let ty = Type::parse(r#"["object",{"ports":["set","number"],"id":"string"}]"#)?;
//! let v = Value::object([
//!     ("ports", Value::set(Type::Number, vec![Value::number(443), Value::number(80)])?),
//!     ("id", Value::unknown(Type::String)),
//! ]);
//! assert!(to_props(&v, Unknowns::Refuse).is_err());
//! let props = to_props(&v, Unknowns::NullAndReport)?;
//! assert_eq!(props.json.to_string(), r#"{"id":null,"ports":[80,443]}"#);
//! assert_eq!(props.unknown[0].to_string(), ".id");
//!
//! let back = from_props(&Json::parse(r#"{"id": "i-1", "ports": [80, 443, 80]}"#)?, &ty)?;
//! assert_eq!(back.attr("ports").unwrap().len(), Some(2));
//! # Ok::<(), ctywire::Error>(())
//! ```

mod de;
mod json;
mod paths;
mod sensitive;
mod ser;

use crate::convert;
use crate::error::{Error, Result};
use crate::path::{Path, PathStep};
use crate::types::Type;
use crate::value::Value;

pub use de::from_json;
pub use json::{Json, JsonNumber, Object};
pub use paths::{resolve_prop_path, PropSegment};
pub use sensitive::{merge_sensitive, split_sensitive};
pub use ser::to_json;

/// What [`to_props`] does with unknown values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknowns {
    /// Fail at the first unknown, naming its path.
    Refuse,
    /// Write `null` in its place and list its path in [`Props::unknown`],
    /// so the other side can be told what is not known yet.
    NullAndReport,
}

/// A value as plain JSON, and where it held unknowns.
#[derive(Clone, Debug, PartialEq)]
pub struct Props {
    /// The JSON.
    pub json: Json,
    /// Paths of the unknowns written as `null` (empty with
    /// [`Unknowns::Refuse`]).
    pub unknown: Vec<Path>,
}

/// A cty value as plain JSON: objects and maps as JSON objects, lists,
/// tuples and sets (in canonical order) as arrays, numbers exactly, values
/// in dynamic positions as their plain value.
pub fn to_props(v: &Value, unknowns: Unknowns) -> Result<Props> {
    let mut unknown = Vec::new();
    let mut path = Path::root();
    let json = props_of(v, unknowns, &mut path, &mut unknown)?;
    Ok(Props { json, unknown })
}

fn props_of(
    v: &Value,
    unknowns: Unknowns,
    path: &mut Path,
    unknown: &mut Vec<Path>,
) -> Result<Json> {
    if !v.is_known() {
        return match unknowns {
            Unknowns::Refuse => Err(Error::unrepresentable("value is not known yet").within(path)),
            Unknowns::NullAndReport => {
                unknown.push(path.clone());
                Ok(Json::Null)
            }
        };
    }
    if v.is_null() {
        return Ok(Json::Null);
    }
    if let Some(s) = v.as_str() {
        return Ok(Json::String(s.to_string()));
    }
    if let Some(b) = v.as_bool() {
        return Ok(Json::Bool(b));
    }
    if let Some(n) = v.as_number() {
        return JsonNumber::try_from(n)
            .map(Json::Number)
            .map_err(|e| e.within(path));
    }
    let mut child = |step: PathStep, e: &Value, path: &mut Path| -> Result<Json> {
        path.push(step);
        let r = props_of(e, unknowns, path, unknown);
        path.pop();
        r
    };
    if let Some(items) = v.elements() {
        let mut out = Vec::with_capacity(items.len());
        for (i, e) in items.iter().enumerate() {
            out.push(child(PathStep::Index(i as u64), e, path)?);
        }
        return Ok(Json::Array(out));
    }
    if let Some(entries) = v.entries() {
        let mut out = Object::new();
        for (k, e) in entries {
            out.insert(k.to_string(), child(PathStep::Key(k.to_string()), e, path)?);
        }
        return Ok(Json::Object(out));
    }
    if let Some(attrs) = v.attributes() {
        let mut out = Object::new();
        for (k, e) in attrs {
            out.insert(
                k.to_string(),
                child(PathStep::Attr(k.to_string()), e, path)?,
            );
        }
        return Ok(Json::Object(out));
    }
    Err(Error::data("value has no JSON form").within(path))
}

/// Plain JSON as a value of type `ty`.
///
/// Numbers are read exactly, from JSON numbers or numeric strings. An
/// object must have only the attributes of its type (a missing one is
/// null; an unknown one is an error naming the valid ones). Sets are
/// de-duplicated, tuples read by position. In a `dynamic` position the
/// type comes from the JSON itself, as go-cty's `ImpliedType` does: arrays
/// are tuples and objects are objects, so mixed arrays work.
pub fn from_props(json: &Json, ty: &Type) -> Result<Value> {
    // go-cty's way with JSON of a known type: the value the JSON implies,
    // converted to the type by the one conversion rule.
    convert::props_to_type(&implied(json, 0)?, ty)
}

const MAX_DEPTH: usize = crate::DEFAULT_MAX_DEPTH;

/// A value of the type the JSON implies (go-cty's `ImpliedType`): string,
/// number, bool, tuple for arrays, object for objects, `null` of unknown
/// type for null.
fn implied(j: &Json, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(Error::limit("props nest deeper than the depth limit"));
    }
    Ok(match j {
        Json::Null => Value::null(Type::Dynamic),
        Json::Bool(b) => Value::bool(*b),
        Json::Number(n) => Value::number(n.to_number()?),
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(implied(item, depth + 1).map_err(|e| e.under(PathStep::Index(i as u64)))?);
            }
            Value::tuple(out)
        }
        Json::Object(entries) => {
            let mut attrs = Vec::with_capacity(entries.len());
            for (k, item) in entries {
                attrs.push((
                    k,
                    implied(item, depth + 1).map_err(|e| e.under(PathStep::Attr(k.to_string())))?,
                ));
            }
            Value::object(attrs)
        }
    })
}
