//! Models in and out of values: the one place a `Value` becomes a typed
//! model and back, with the framework's rules for unknowns.

use ctywire::{Type, Value};
use ctywire_objchange::{unknown_paths, unknowns_as_null};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::model::Model;

/// `value` read into a model. Unknown values become nulls first: in a
/// configuration or plan they are what the provider decides, which a
/// model holds as `None`.
pub(crate) fn read_model<M: Model>(value: Value) -> Result<M, Diagnostics> {
    let value = unknowns_as_null(value)?;
    fit_model(&value)
}

/// A provider's configuration read into its model `M`. Terraform may
/// configure a provider with values not known yet (from a resource not
/// yet created): when the model has an [`Unknowable`](ctywire::Unknowable)
/// field for each of them, they are read as unknown there, so the provider
/// can refuse them rather than take a default; otherwise all are nulls,
/// as [`read_model`] reads them.
pub(crate) fn read_config<M: Model>(value: Value) -> Result<M, Diagnostics> {
    if !value.is_wholly_known() {
        if let Ok(config) = ctywire::from_value(&value) {
            return Ok(config);
        }
    }
    read_model(value)
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
