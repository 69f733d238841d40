//! Where a walk over a value stands in the schema: configschema's
//! `Block.AttributeByPath` and `Object.AttributeByPath`, followed one step
//! at a time instead of re-read from the root at every value.

use ctywire::schema::{Attribute, Block, Object};

use super::value_ops::Step;

/// The schema at a path, as `AttributeByPath` sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SchemaPos<'s> {
    /// Inside a block (its object, or an element of a block collection):
    /// no attribute here.
    Block(&'s Block),
    /// Inside a nested attribute's object type: no attribute here.
    Object(&'s Object),
    /// Exactly at an attribute.
    Attr(&'s Attribute),
    /// Past the schema: every deeper path has no attribute.
    Nothing,
}

/// The nested schema a set's elements follow: a set block's body, or a
/// set nested attribute's object (core's `nestedSchema`).
#[derive(Clone, Copy, Debug)]
pub enum Nested<'s> {
    /// A set block's body.
    Block(&'s Block),
    /// A set nested attribute's object.
    Object(&'s Object),
}

impl<'s> Nested<'s> {
    pub(crate) fn root(self) -> SchemaPos<'s> {
        match self {
            Nested::Block(b) => SchemaPos::Block(b),
            Nested::Object(o) => SchemaPos::Object(o),
        }
    }
}

/// An object's attribute by name; with duplicate names the last one wins,
/// as it does in the implied type.
pub(crate) fn object_attribute<'s>(o: &'s Object, name: &str) -> Option<&'s Attribute> {
    o.attributes.iter().rev().find(|a| a.name == name)
}

impl<'s> SchemaPos<'s> {
    /// The attribute exactly at this path, if there is one.
    pub(crate) fn attribute(self) -> Option<&'s Attribute> {
        match self {
            SchemaPos::Attr(a) => Some(a),
            _ => None,
        }
    }

    /// The position one step further.
    pub(crate) fn step(self, step: Step<'_>) -> SchemaPos<'s> {
        match self {
            SchemaPos::Nothing => SchemaPos::Nothing,
            // More path after an attribute: into its nested type, where
            // the step is looked up (Object.AttributeByPath of the rest),
            // or nowhere for a plain attribute.
            SchemaPos::Attr(a) => match &a.nested_type {
                Some(o) => SchemaPos::Object(o).step(step),
                None => SchemaPos::Nothing,
            },
            SchemaPos::Block(b) => match step {
                Step::Index(_) | Step::Key(_) => self,
                Step::Attr(name) => {
                    if let Some(a) = b.find_attribute(name) {
                        SchemaPos::Attr(a)
                    } else if let Some(nb) = b.find_block_type(name) {
                        SchemaPos::Block(&nb.block)
                    } else {
                        SchemaPos::Nothing
                    }
                }
            },
            // Object.AttributeByPath skips steps it does not recognise,
            // an unknown name included, and keeps looking.
            SchemaPos::Object(o) => match step {
                Step::Attr(name) => match object_attribute(o, name) {
                    Some(a) => SchemaPos::Attr(a),
                    None => self,
                },
                Step::Index(_) | Step::Key(_) => self,
            },
        }
    }
}
