//! Unknown values where core allows none: a state after apply, a
//! configuration at apply. Core names them (each "still unknown" error is
//! at a path) and, after apply, keeps the rest of the object with each
//! unknown part null (`cty.UnknownAsNull`).

use ctywire::{Path, Value};

/// `value` with every unknown part null (a wholly known value as it is):
/// `cty.UnknownAsNull`.
pub fn unknowns_as_null(value: Value) -> ctywire::Result<Value> {
    if value.is_wholly_known() {
        return Ok(value);
    }
    value.transform(|_, v| {
        Ok(if v.is_known() {
            v
        } else {
            Value::null(v.ty().clone())
        })
    })
}

/// The paths of `value`'s unknown parts (outermost only).
pub fn unknown_paths(value: &Value) -> Vec<Path> {
    let mut paths = Vec::new();
    if value.is_wholly_known() {
        return paths;
    }
    // A walk over our own value cannot fail: the callback never errs.
    let _ = value.walk(|path, v| {
        if v.is_known() {
            Ok(true)
        } else {
            paths.push(path.clone());
            Ok(false)
        }
    });
    paths
}

#[cfg(test)]
mod tests {
    use ctywire::Type;

    use super::*;

    #[test]
    fn unknown_parts_are_named_outermost_only() {
        let v = Value::object([
            ("a", Value::unknown(Type::list(Type::String))),
            ("b", Value::string("x")),
        ]);
        let paths: Vec<String> = unknown_paths(&v).iter().map(|p| p.to_string()).collect();
        assert_eq!(paths, [".a"]);
    }

    #[test]
    fn unknowns_become_nulls_of_their_type() {
        let v = Value::object([("a", Value::unknown(Type::String))]);
        let v = unknowns_as_null(v).unwrap();
        assert_eq!(v.attr("a"), Some(&Value::null(Type::String)));
    }
}
