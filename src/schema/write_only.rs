//! Write-only attributes: Terraform requires them to be null in every
//! state a provider returns (planned, new, read, imported, upgraded,
//! moved). tfplugin6's server nulls them on the way out, so providers need
//! not; the provider framework nulls them before comparing states.

use super::{Attribute, Block, NestingMode, Object};
use crate::error::Error;
use crate::path::PathStep;
use crate::value::Value;

impl Block {
    /// Whether this block has a write-only attribute anywhere, in nested
    /// blocks and nested attributes too.
    pub fn has_write_only(&self) -> bool {
        has_write_only(self)
    }

    /// `value` (of this block's implied type) with every write-only
    /// attribute null, wherever it is nested: what Terraform requires of
    /// every state a provider returns.
    ///
    /// ```
    /// use ctywire::schema::{Attribute, Block};
    /// use ctywire::{Type, Value};
    /// let block = Block::new()
    ///     .attribute(Attribute::new("name", Type::String).required())
    ///     .attribute(Attribute::new("password", Type::String).optional().write_only());
    /// let v = Value::object([("name", Value::string("a")), ("password", Value::string("secret"))]);
    /// let v = block.null_write_only(v)?;
    /// assert!(v.attr("password").unwrap().is_null());
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn null_write_only(&self, value: Value) -> Result<Value, Error> {
        null_write_only(self, value)
    }
}

fn has_write_only(block: &Block) -> bool {
    block.attributes.iter().any(attribute_has_write_only)
        || block.block_types.iter().any(|b| has_write_only(&b.block))
}

fn attribute_has_write_only(a: &Attribute) -> bool {
    a.write_only
        || a.nested_type
            .as_ref()
            .is_some_and(|o| o.attributes.iter().any(attribute_has_write_only))
}

fn null_write_only(block: &Block, value: Value) -> Result<Value, Error> {
    if !has_write_only(block) {
        return Ok(value);
    }
    value.transform(|path, v| {
        Ok(if !v.is_null() && in_block(block, path.steps()) {
            Value::null(v.ty().clone())
        } else {
            v
        })
    })
}

/// Whether `steps` (from a value of `block`) name a write-only attribute.
fn in_block(block: &Block, steps: &[PathStep]) -> bool {
    let Some((PathStep::Attr(name), rest)) = steps.split_first() else {
        return false;
    };
    if let Some(a) = block.find_attribute(name) {
        return in_attribute(a, rest);
    }
    let Some(nb) = block.find_block_type(name) else {
        return false;
    };
    match nb.nesting {
        NestingMode::Single | NestingMode::Group => in_block(&nb.block, rest),
        NestingMode::List | NestingMode::Set | NestingMode::Map => match rest.split_first() {
            Some((PathStep::Index(_) | PathStep::Key(_), rest)) => in_block(&nb.block, rest),
            _ => false,
        },
        NestingMode::Invalid => false,
    }
}

fn in_attribute(a: &Attribute, rest: &[PathStep]) -> bool {
    if rest.is_empty() {
        return a.write_only;
    }
    match &a.nested_type {
        Some(o) => in_object(o, rest),
        None => false,
    }
}

fn in_object(o: &Object, steps: &[PathStep]) -> bool {
    let steps = match o.nesting {
        NestingMode::Single | NestingMode::Group => steps,
        NestingMode::List | NestingMode::Set | NestingMode::Map => match steps.split_first() {
            Some((PathStep::Index(_) | PathStep::Key(_), rest)) => rest,
            _ => return false,
        },
        NestingMode::Invalid => return false,
    };
    let Some((PathStep::Attr(name), rest)) = steps.split_first() else {
        return false;
    };
    o.attributes
        .iter()
        .rev()
        .find(|a| &a.name == name)
        .is_some_and(|a| in_attribute(a, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Type;

    #[test]
    fn a_write_only_attribute_comes_out_null_and_the_rest_as_it_was() {
        let block = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(
                Attribute::new("password", Type::String)
                    .optional()
                    .write_only(),
            );
        let v = Value::object([
            ("name", Value::string("a")),
            ("password", Value::string("secret")),
        ]);
        let v = null_write_only(&block, v).unwrap();
        assert!(v.attr("password").unwrap().is_null());
        assert_eq!(v.attr("name").unwrap().as_str(), Some("a"));
    }
}
