// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod compatible;
mod computed_blocks;
mod plan_valid;
mod proposed_new;
mod range;
mod schema_pos;
mod set_match;
mod unknowns;
mod value_ops;

#[cfg(test)]
mod tests;

use std::fmt;

use ctywire::Path;
use ctywire::PathStep;

pub use compatible::assert_object_compatible;
pub use computed_blocks::prepare_computed_blocks;
pub use plan_valid::assert_plan_valid;
pub use proposed_new::proposed_new;
// The framework's plan engine pairs set elements (and moved list elements)
// by core's rule: the same code as ProposedNew's, so public for it; hidden,
// as no provider needs them.
#[doc(hidden)]
pub use schema_pos::Nested;
#[doc(hidden)]
pub use set_match::{match_set_elements, valid_prior_from_config};
pub use unknowns::{unknown_paths, unknowns_as_null};
#[doc(hidden)]
pub use value_ops::{hash_unrefined, raw_eq_unrefined, FastHasher};
// The framework's walks (plan, validation) name the element they are in
// with the same trail and stop at the same depth.
#[doc(hidden)]
pub use value_ops::{Step, Trail, MAX_DEPTH};

/// One thing core would report: where, and what, in core's words.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The offending value, relative to the resource object. For an
    /// element of a set (which a [`Path`] cannot name) this is the set's
    /// path, and `in_set_element` is true.
    pub path: Path,
    /// The problem is in an element of the set at `path`; Terraform prints
    /// that step as `[...]`.
    pub in_set_element: bool,
    /// The message as Terraform 1.11 words it.
    pub message: String,
    /// The attribute at fault is sensitive, so the message (as core chose
    /// it) shows no values.
    pub sensitive: bool,
}

impl Problem {
    pub(crate) fn new(path: &Path, message: impl Into<String>) -> Problem {
        Problem {
            path: path.clone(),
            in_set_element: false,
            message: message.into(),
            sensitive: false,
        }
    }

    pub(crate) fn sensitive(mut self, sensitive: bool) -> Problem {
        self.sensitive = sensitive;
        self
    }

    pub(crate) fn in_set_element(mut self) -> Problem {
        self.in_set_element = true;
        self
    }

    /// The path as Terraform prints it (`tfdiags.FormatCtyPath`):
    /// `.rule[0].port`, `.tags["env"]`, `.tag[...]`.
    pub fn display_path(&self) -> String {
        let mut out = String::new();
        for step in self.path.steps() {
            match step {
                PathStep::Attr(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                PathStep::Key(key) => {
                    out.push('[');
                    out.push_str(&value_ops::go_quote(key));
                    out.push(']');
                }
                PathStep::Index(i) => {
                    out.push('[');
                    out.push_str(&value_ops::go_g_shortest(&ctywire::Number::from_u64(*i)));
                    out.push(']');
                }
            }
        }
        if self.in_set_element {
            out.push_str("[...]");
        }
        out
    }

    /// What Terraform prints after the resource address
    /// (`tfdiags.FormatErrorPrefixed`): `<path>: <message>`, or
    /// `: <message>` at the root.
    pub fn after_address(&self) -> String {
        format!("{}: {}", self.display_path(), self.message)
    }
}

impl fmt::Display for Problem {
    /// `tfdiags.FormatError`: `<path>: <message>`, or the message alone
    /// at the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.display_path();
        if path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{path}: {}", self.message)
        }
    }
}
