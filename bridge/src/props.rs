//! Props: a cty value as the plain JSON a child process reads and writes.

use ctywire::Type;
use ctywire::Value;
use ctywire::{Error, Result};
use ctywire::{Path, PathStep};

use crate::json::{Json, JsonNumber, Object};

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
    implied(json, 0)?.convert_strict(ty)
}

const MAX_DEPTH: usize = ctywire::DEFAULT_MAX_DEPTH;

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
