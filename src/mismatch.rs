//! How a type fails to fit another, in go-cty's words: the messages that
//! conversion (`convert.rs`) and building values (`value.rs`) share, kept
//! apart from both so that neither has to reach into the other.

use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::types::{ObjectType, Type};

/// What makes type `got` differ from `want`, as an error at the path of
/// the first difference (relative to the types' own position): a missing
/// or unexpected object attribute, or a type where another is required.
/// `None` when `got` conforms to `want`.
pub(crate) fn type_difference(got: &Type, want: &Type) -> Option<Error> {
    if got.conforms_to(want) {
        return None;
    }
    match (got, want) {
        (Type::Object(g), Type::Object(w)) => {
            if let Err(e) = missing_attributes(w, |_, n| g.index_of(n).is_none()) {
                return Some(e);
            }
            if let Some((n, _)) = g.attributes().find(|(n, _)| w.index_of(n).is_none()) {
                return Some(Error::data(format!("unexpected attribute {n:?}")));
            }
            g.attributes()
                .zip(w.attributes())
                .find_map(|((n, gt), (_, wt))| {
                    type_difference(gt, wt).map(|e| e.under(PathStep::Attr(n.to_string())))
                })
        }
        (Type::List(g), Type::List(w))
        | (Type::Set(g), Type::Set(w))
        | (Type::Map(g), Type::Map(w)) => type_difference(g, w),
        _ => Some(mismatch(got, want)),
    }
}

/// The error for types that have no conversion between them.
pub(crate) fn mismatch(from: &Type, to: &Type) -> Error {
    let want = match to {
        Type::String => "a string".to_string(),
        Type::Number => "a number".to_string(),
        Type::Bool => "a bool".to_string(),
        Type::List(_) => "a list".to_string(),
        Type::Set(_) => "a set".to_string(),
        Type::Map(_) => "a map".to_string(),
        Type::Tuple(t) => format!("a tuple of {} elements", t.len()),
        Type::Object(_) => "an object".to_string(),
        Type::Dynamic => "a value".to_string(),
    };
    Error::data(format!("{want} is required, not {}", article(from)))
}

fn article(t: &Type) -> String {
    let name = t.to_string();
    let vowel = name.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {name}", if vowel { "an" } else { "a" })
}

/// The attributes of `to` that `left_out(index, name)` says are missing,
/// named in one error.
pub(crate) fn missing_attributes(
    to: &ObjectType,
    left_out: impl Fn(usize, &str) -> bool,
) -> Result<()> {
    let missing: Vec<&str> = to
        .attributes()
        .enumerate()
        .filter(|&(i, (n, _))| left_out(i, n))
        .map(|(_, (n, _))| n)
        .collect();
    let message = match &missing[..] {
        [] => return Ok(()),
        [one] => format!("attribute {one:?} is missing"),
        [init @ .., last] => format!(
            "attributes {} and {last:?} are missing",
            init.iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Error::data(message))
}
