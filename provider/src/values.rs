//! Models in and out of values: the one place a `Value` becomes a typed
//! model and back, with the framework's rules for unknowns.

use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::model::Model;

/// `value` read into a model. Unknown values become nulls first: in a
/// configuration or plan they are what the provider decides, which a
/// model holds as `None`.
pub(crate) fn read_model<M: Model>(value: Value) -> Result<M, Diagnostics> {
    let value = unknowns_as_null(value)?;
    fit_model(&value)
}

/// A state (`which`: "current", "prior") read into a model. A state is
/// wholly known, so an unknown in one is an error at its path, from the
/// client, not a null the provider would read as "not set".
pub(crate) fn read_state<M: Model>(value: Value, which: &str) -> Result<M, Diagnostics> {
    let unknown = unknown_paths(&value);
    if !unknown.is_empty() {
        let mut diags = Diagnostics::new();
        for path in unknown {
            diags.push(
                Diagnostic::error("Unknown value in state")
                    .with_detail(format!(
                        "The {which} state Terraform sent has an unknown value at {path}; a state must be wholly known."
                    ))
                    .at(path),
            );
        }
        return Err(diags);
    }
    fit_model(&value)
}

fn fit_model<M: Model>(value: &Value) -> Result<M, Diagnostics> {
    ctywire::from_value(value).map_err(|e| {
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
