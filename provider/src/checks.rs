//! Consistency checks: what Terraform core checks of a provider's answers,
//! run before Terraform sees them, so a provider bug is reported naming
//! the attribute and saying whose bug it is, instead of Terraform's bare
//! "Provider produced inconsistent result".

use ctywire::schema::Block;
use ctywire::Value;
use ctywire_objchange::{assert_object_compatible, assert_plan_valid, unknown_paths, Problem};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

const WHOSE_BUG: &str =
    "This is a bug in the provider, not in your configuration: please report it to the provider's developers.";

/// Diagnostics for `problems`, or `Ok` when there are none.
fn report(
    problems: Vec<Problem>,
    summary: &str,
    detail: impl Fn(&Problem) -> String,
) -> Result<(), Diagnostics> {
    if problems.is_empty() {
        return Ok(());
    }
    let mut diags = Diagnostics::new();
    for p in &problems {
        diags.push(
            Diagnostic::error(summary)
                .with_detail(format!("{}\n\n{WHOSE_BUG}", detail(p)))
                .at(p.path.clone()),
        );
    }
    Err(diags)
}

/// A plan as core's `AssertPlanValid` checks it: every configured value
/// planned as configured (or as it was), nothing planned where the
/// configuration wants nothing.
pub(crate) fn plan(
    type_name: &str,
    schema: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
) -> Result<(), Diagnostics> {
    report(
        assert_plan_valid(schema, prior, config, planned),
        "Provider produced an invalid plan",
        |p| {
            format!(
                "The provider planned an invalid value for {type_name}{}.",
                p.after_address()
            )
        },
    )
}

/// A new state as core's `AssertObjectCompatible` checks it against the
/// plan: every value that was known when planned came out as planned.
pub(crate) fn applied(
    type_name: &str,
    what: &str,
    schema: &Block,
    planned: &Value,
    new: &Value,
) -> Result<(), Diagnostics> {
    report(
        assert_object_compatible(schema, planned, new),
        "Provider produced inconsistent result after apply",
        |p| {
            format!(
                "The provider's {what} produced an invalid new value for {type_name}{}.",
                p.after_address()
            )
        },
    )
}

/// A state handed to Terraform must be wholly known.
pub(crate) fn wholly_known(type_name: &str, what: &str, state: &Value) -> Result<(), Diagnostics> {
    let paths = unknown_paths(state);
    if paths.is_empty() {
        return Ok(());
    }
    let mut diags = Diagnostics::new();
    for path in paths {
        diags.push(
            Diagnostic::error("Provider returned an unknown value")
                .with_detail(format!(
                    "{what} left {type_name}{path} unknown: after {what} every value must be known.\n\n{WHOSE_BUG}"
                ))
                .at(path),
        );
    }
    Err(diags)
}
