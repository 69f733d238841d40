//! Models in and out of values: the one place a `Value` becomes a typed
//! model and back, with the framework's rules for unknowns.

use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::model::Model;

/// `value` read into a model. Unknown values become nulls first: in a
/// plan they are what the provider decides, which a model holds as `None`.
pub(crate) fn read_model<M: Model>(value: Value) -> Result<M, Diagnostics> {
    let value = unknowns_as_null(value)?;
    ctywire::from_value(&value).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Value does not fit the provider's model")
                .with_detail(format!(
                    "{}. The provider's schema and its model disagree: this is a bug in the provider.",
                    e.message()
                ))
                .at(e.path().clone()),
        )
    })
}

/// A model written as a value of `ty` (the model's own implied type).
pub(crate) fn write_model<M: Model>(model: &M, ty: &Type) -> Result<Value, Diagnostics> {
    ctywire::to_value(model, ty).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Provider returned a value its schema cannot hold")
                .with_detail(format!("{}. This is a bug in the provider.", e.message()))
                .at(e.path().clone()),
        )
    })
}

/// `value` with every unknown part null (a wholly known value as it is).
pub(crate) fn unknowns_as_null(value: Value) -> Result<Value, Diagnostics> {
    if value.is_wholly_known() {
        return Ok(value);
    }
    Ok(value.transform(|_, v| {
        Ok(if v.is_known() {
            v
        } else {
            Value::null(v.ty().clone())
        })
    })?)
}

/// The paths of `value`'s unknown parts (outermost only).
pub(crate) fn unknown_paths(value: &Value) -> Vec<Path> {
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
