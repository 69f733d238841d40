//! What the fuzz targets drive (feature `fuzzing`): the framework's own
//! checks of configuration, plan and new state, on values of a schema.
//! Not an API: it may change with any release.

use ctywire::Value;
use ctywire_tfplugin6::Diagnostics;

use crate::schema::Block;

/// ValidateResourceConfig's checks: the declared validators and presence.
pub fn validate(block: &Block, config: &Value) -> Diagnostics {
    crate::validate::validate(block, config)
}

/// Core's ProposedNewState, as the harness computes it.
pub fn proposed_new(block: &Block, prior: &Value, config: &Value) -> Value {
    ctywire_objchange::proposed_new(&block.to_schema_block(), prior, config)
}

/// The plan engine, then the check every plan passes before Terraform
/// sees it (core's AssertPlanValid): the planned state, or why not.
pub fn plan(
    block: &Block,
    prior: &Value,
    config: &Value,
    proposed: &Value,
) -> Result<Value, Diagnostics> {
    crate::validate::presence(block, config)?;
    let planned = crate::plan::plan(block, prior, config, proposed)?.planned_state;
    crate::checks::plan(
        "fuzz_thing",
        &block.to_schema_block(),
        prior,
        config,
        &planned,
    )?;
    Ok(planned)
}

/// The checks of a new state against its plan (core's
/// AssertObjectCompatible, and that it is wholly known).
pub fn applied(block: &Block, planned: &Value, actual: &Value) -> Result<(), Diagnostics> {
    crate::checks::wholly_known("fuzz_thing", "create", actual)?;
    crate::checks::applied(
        "fuzz_thing",
        "create",
        &block.to_schema_block(),
        planned,
        actual,
    )
}
