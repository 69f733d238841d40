//! The protocol's form of every nested block and nested attribute object
//! of a schema, which core's element matching reads (`objchange`'s
//! `match_set_elements`, `valid_prior_from_config` take a protocol
//! block). The builder makes them once per type; a plan only looks them
//! up as it descends.

use ctywire::schema as tf;
use ctywire_objchange::MAX_DEPTH;

use crate::schema::Block;

/// One object's protocol form and its nested objects', by name.
#[derive(Debug)]
pub(crate) struct Forms {
    block: tf::Block,
    /// Nested blocks and nested attributes (one namespace in a block).
    nested: Vec<(String, Forms)>,
}

impl Forms {
    /// The forms of `block` and everything nested in it, down to the
    /// depth the plan walks (it refuses anything deeper).
    pub(crate) fn of(block: &Block) -> Forms {
        Forms::at_depth(block, 0)
    }

    fn at_depth(block: &Block, depth: usize) -> Forms {
        let nested = if depth > MAX_DEPTH {
            Vec::new()
        } else {
            let blocks = (block.blocks.iter()).map(|nb| (&nb.name, &nb.block));
            let attrs = (block.attributes.iter())
                .filter_map(|a| Some((&a.name, &a.nested.as_ref()?.block)));
            blocks
                .chain(attrs)
                .map(|(name, b)| (name.clone(), Forms::at_depth(b, depth + 1)))
                .collect()
        };
        Forms {
            block: block.to_schema_block(),
            nested,
        }
    }

    /// The protocol form of this object.
    pub(crate) fn block(&self) -> &tf::Block {
        &self.block
    }

    /// The forms of the nested block or attribute `name`.
    pub(crate) fn nested(&self, name: &str) -> Option<&Forms> {
        self.nested.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }
}
