//! core's `objchange.PrepareComputedBlocks` (Terraform 1.16, protocol
//! 6.11): before `PlanResourceChange` an empty list, set or map of a
//! computed nested block becomes null in the configuration, so the
//! provider can tell "not written" (null: its to fill in) from "written
//! empty".

use ctywire::schema::{Block, NestedBlock, NestingMode};
use ctywire::{Path, PathStep, Value};

/// core's `PrepareComputedBlocks(schema, config)`: `config` with each
/// known, empty collection of a computed nested block made null. A
/// schema without computed blocks leaves it as it is.
pub fn prepare_computed_blocks(schema: &Block, config: Value) -> Value {
    if !contains_computed_blocks(schema) {
        return config;
    }
    let prepared = config.clone().transform(|path, v| {
        if !v.is_known() || v.is_null() {
            return Ok(v);
        }
        let Some(nb) = nested_block_by_path(schema, path) else {
            return Ok(v);
        };
        let collection = matches!(
            nb.nesting,
            NestingMode::List | NestingMode::Set | NestingMode::Map
        );
        Ok(if nb.block.computed && collection && v.is_empty() {
            Value::null(v.ty().clone())
        } else {
            v
        })
    });
    // The transform only puts nulls of the same type in place, so it
    // cannot fail; should it, the configuration goes as written.
    prepared.unwrap_or(config)
}

/// `Block.ContainsComputedBlocks`: a computed block anywhere below.
fn contains_computed_blocks(schema: &Block) -> bool {
    schema
        .block_types
        .iter()
        .any(|nb| nb.block.computed || contains_computed_blocks(&nb.block))
}

/// `Block.NestedBlockByPath`: the nested block type whose value `path`
/// names, stepping over the index or key of a collection's element.
/// Like core, an attribute step that names no block type is passed over.
fn nested_block_by_path<'s>(schema: &'s Block, path: &Path) -> Option<&'s NestedBlock> {
    by_steps(schema, path.steps())
}

fn by_steps<'s>(schema: &'s Block, steps: &[PathStep]) -> Option<&'s NestedBlock> {
    for (i, step) in steps.iter().enumerate() {
        let PathStep::Attr(name) = step else { continue };
        let Some(nb) = schema.block_types.iter().find(|nb| &nb.type_name == name) else {
            continue;
        };
        let rest = &steps[i + 1..];
        if rest.is_empty() {
            return Some(nb);
        }
        if nb.block.block_types.is_empty() {
            return None;
        }
        return by_steps(&nb.block, rest);
    }
    None
}
