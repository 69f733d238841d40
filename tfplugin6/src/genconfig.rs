//! `GenerateResourceConfig`'s rule: the configuration for an imported
//! object is its state without what a configuration cannot set.

use ctywire::schema::{Attribute, Block, NestingMode, Object};
use ctywire::{Error, PathStep, Value};

/// The configuration Terraform writes for an imported object
/// (`terraform plan -generate-config-out`): its `state`, with null in
/// place of every computed-only attribute (the provider sets those; a
/// configuration cannot) and every deprecated attribute or nested block
/// (a new configuration should not start out using them), at any depth,
/// as terraform-plugin-framework generates it. Write-only attributes are
/// null in a state already. Optional-and-computed attributes stay: the
/// configuration may set them.
///
/// (terraform-plugin-framework also drops an optional string that is
/// empty, and an optional-and-computed `id`: both only make up for
/// terraform-plugin-sdk's type system, where "" stands for null and every
/// resource has an `id`. Here "" and null are different values, so both
/// are kept.)
///
/// ```
/// use ctywire::schema::{Attribute, Block};
/// use ctywire::{Type, Value};
///
/// let block = Block::new()
///     .attribute(Attribute::new("name", Type::String).required())
///     .attribute(Attribute::new("id", Type::String).computed());
/// let state = Value::object([("name", Value::string("web")), ("id", Value::string("i-1"))]);
/// let config = ctywire_tfplugin6::generated_config(&block, state)?;
/// assert_eq!(config.attr("name").and_then(Value::as_str), Some("web"));
/// assert!(config.attr("id").is_some_and(Value::is_null));
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn generated_config(block: &Block, state: Value) -> Result<Value, Error> {
    state.transform(|path, v| {
        Ok(if !v.is_null() && left_out_of_block(block, path.steps()) {
            Value::null(v.ty().clone())
        } else {
            v
        })
    })
}

fn deprecated(flag: bool, message: &str) -> bool {
    flag || !message.is_empty()
}

/// Whether `steps` (from a value of `block`) name what a configuration
/// does not set.
fn left_out_of_block(block: &Block, steps: &[PathStep]) -> bool {
    let Some((PathStep::Attr(name), rest)) = steps.split_first() else {
        return false;
    };
    if let Some(a) = block.find_attribute(name) {
        return left_out_of_attribute(a, rest);
    }
    let Some(nb) = block.find_block_type(name) else {
        return false;
    };
    if rest.is_empty() {
        return deprecated(nb.block.deprecated, &nb.block.deprecation_message);
    }
    match nb.nesting {
        NestingMode::Single | NestingMode::Group => left_out_of_block(&nb.block, rest),
        NestingMode::List | NestingMode::Set | NestingMode::Map => match rest.split_first() {
            Some((PathStep::Index(_) | PathStep::Key(_), rest)) => {
                left_out_of_block(&nb.block, rest)
            }
            _ => false,
        },
        NestingMode::Invalid => false,
    }
}

fn left_out_of_attribute(a: &Attribute, rest: &[PathStep]) -> bool {
    if rest.is_empty() {
        return (a.computed && !a.optional && !a.required)
            || deprecated(a.deprecated, &a.deprecation_message);
    }
    match &a.nested_type {
        Some(o) => left_out_of_object(o, rest),
        None => false,
    }
}

fn left_out_of_object(o: &Object, steps: &[PathStep]) -> bool {
    let rest = match o.nesting {
        NestingMode::Single | NestingMode::Group => steps,
        _ => match steps.split_first() {
            Some((PathStep::Index(_) | PathStep::Key(_), rest)) => rest,
            _ => return false,
        },
    };
    let Some((PathStep::Attr(name), rest)) = rest.split_first() else {
        return false;
    };
    o.attributes
        .iter()
        .find(|a| &a.name == name)
        .is_some_and(|a| left_out_of_attribute(a, rest))
}
