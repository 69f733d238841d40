//! Turning a child's `propPath` (an array of names and indexes) into a
//! [`Path`] by the value it points into.

use serde::{Deserialize, Serialize};

use ctywire::Type;
use ctywire::Value;
use ctywire::{Error, Result};
use ctywire::{Path, PathStep};

/// One segment of a `propPath`: a name or an index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PropSegment {
    /// A position in a list or tuple.
    Index(i64),
    /// An attribute name or a map key.
    Name(String),
}

/// Resolves a `propPath` against the value it points into: a name on an
/// object is an attribute, a name on a map is a key (even `"123"`), an
/// index (or a name made of digits) on a list or tuple is a position.
/// Dynamic parts are resolved by the concrete type of the value held
/// there. A segment that fits nothing is an error naming where, never a
/// guess.
///
/// ```
/// use ctywire_bridge::{from_props, resolve_prop_path, Json, PropSegment};
/// use ctywire::Type;
/// let ty = Type::parse(r#"["object",{"props":"dynamic"}]"#)?;
/// let v = from_props(&Json::parse(r#"{"props": {"items": [{"name": "a"}], "tags": {"123": "x"}}}"#)?, &ty)?;
/// let seg = |s: &str| PropSegment::Name(s.into());
/// let p = resolve_prop_path(&v, &[seg("props"), seg("items"), PropSegment::Index(0), seg("name")])?;
/// assert_eq!(p.to_string(), ".props.items[0].name");
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn resolve_prop_path(value: &Value, segments: &[PropSegment]) -> Result<Path> {
    let mut path = Path::root();
    let mut ty: Type = value.ty().clone();
    let mut here: Option<&Value> = Some(value);
    for seg in segments {
        let fail = |path: &Path, msg: String| Error::data(msg).within(path);
        // In a dynamic position the value knows its type.
        if ty == Type::Dynamic {
            match here {
                Some(v) if *v.ty() != Type::Dynamic => ty = v.ty().clone(),
                _ => {
                    return Err(fail(
                        &path,
                        format!("cannot look into a value of unknown type (segment {seg:?})"),
                    ))
                }
            }
        }
        let known = here.filter(|v| v.is_known() && !v.is_null());
        let (step, next_ty, next): (PathStep, Type, Option<&Value>) = match (&ty, seg) {
            (Type::Object(o), PropSegment::Name(n)) => match o.index_of(n) {
                Some(i) => (
                    PathStep::Attr(n.clone()),
                    o.attribute_type_at(i).clone(),
                    known.and_then(|v| v.attr(n)),
                ),
                None => {
                    // A few names help; all of them (an object may have
                    // thousands) would make every failed path as long as
                    // the type.
                    const SHOWN: usize = 10;
                    let names: Vec<&str> = o.attributes().map(|(n, _)| n).take(SHOWN).collect();
                    let more = o.len().saturating_sub(SHOWN);
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    return Err(fail(
                        &path,
                        format!("there is no attribute {n:?} (there are {names:?}{more})"),
                    ));
                }
            },
            (Type::Map(e), PropSegment::Name(k)) => {
                let next = known.and_then(|v| v.entry(k));
                if known.is_some() && next.is_none() {
                    return Err(fail(&path, format!("there is no key {k:?}")));
                }
                (PathStep::Key(k.clone()), (**e).clone(), next)
            }
            (Type::List(_) | Type::Set(_) | Type::Tuple(_), seg) => {
                let i = match seg {
                    PropSegment::Index(i) => *i,
                    PropSegment::Name(s) => s
                        .parse::<i64>()
                        .ok()
                        .filter(|_| s.bytes().all(|b| b.is_ascii_digit()))
                        .ok_or_else(|| {
                            fail(
                                &path,
                                format!(
                                    "a {} is indexed by position, not by {s:?}",
                                    kind_name(&ty)
                                ),
                            )
                        })?,
                };
                let len = known.and_then(Value::len);
                if i < 0 || len.is_some_and(|n| i as usize >= n) {
                    return Err(fail(
                        &path,
                        format!(
                            "index {i} is out of range{}",
                            len.map(|n| format!(" (length {n})")).unwrap_or_default()
                        ),
                    ));
                }
                let next_ty = match &ty {
                    Type::Tuple(es) => es
                        .get(i as usize)
                        .cloned()
                        .ok_or_else(|| fail(&path, format!("index {i} is out of range")))?,
                    other => other.element_type().cloned().unwrap_or(Type::Dynamic),
                };
                (
                    PathStep::Index(i as u64),
                    next_ty,
                    known
                        .and_then(|v| v.elements())
                        .and_then(|e| e.get(i as usize)),
                )
            }
            (Type::Object(_), PropSegment::Index(i)) => {
                return Err(fail(
                    &path,
                    format!("an object has attributes, not position {i}"),
                ))
            }
            (Type::Map(_), PropSegment::Index(i)) => {
                return Err(fail(
                    &path,
                    format!("a map has string keys, not position {i}; send the key as a string"),
                ))
            }
            (other, seg) => {
                return Err(fail(
                    &path,
                    format!("a {other} has no parts (segment {seg:?})"),
                ))
            }
        };
        path.push(step);
        ty = next_ty;
        here = next;
    }
    Ok(path)
}

/// A collection type's kind, for messages: the whole type can be as large
/// as the value.
fn kind_name(ty: &Type) -> &'static str {
    match ty {
        Type::List(_) => "list",
        Type::Set(_) => "set",
        _ => "tuple",
    }
}
