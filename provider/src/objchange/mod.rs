//! Terraform core's own rules around a plan and an apply, as pure
//! functions over ctywire values and the protocol schema
//! ([`ctywire::schema::Block`]), so that they hold for any provider:
//!
//! * [`proposed_new`]: the proposed new state core sends to
//!   `PlanResourceChange` (core's `objchange.ProposedNew`);
//! * [`assert_plan_valid`]: core's check of a provider's planned state
//!   against the prior state and configuration (`objchange.AssertPlanValid`;
//!   each [`Problem`] is a "Provider produced invalid plan" error);
//! * [`assert_object_compatible`]: core's check of a later value against a
//!   planned one (`objchange.AssertObjectCompatible`; "Provider produced
//!   inconsistent final plan" and "… inconsistent result after apply").
//!
//! Each function mirrors the core function named in its comment, as of
//! Terraform 1.11 (whose messages these are). Core assumes values conform
//! to the schema and panics otherwise; here nothing panics: a part that
//! does not conform is treated as a mismatch. Every walk is bounded by
//! [`value_ops::MAX_DEPTH`].
//!
//! Core iterates attributes and block types in Go map order, so the order
//! of its messages varies from run to run; here attributes come first,
//! then block types, each sorted by name.

mod compatible;
mod plan_valid;
mod proposed_new;
mod range;
mod schema_pos;
mod set_match;
mod value_ops;

#[cfg(test)]
mod tests;

use std::fmt;

use ctywire::Path;
use ctywire::PathStep;

pub(crate) use compatible::assert_object_compatible;
pub(crate) use plan_valid::assert_plan_valid;
pub(crate) use proposed_new::proposed_new;
// The plan engine pairs set elements (and moved list elements) by core's
// rule: the same code as ProposedNew's.
pub(crate) use schema_pos::Nested;
pub(crate) use set_match::{match_set_elements, valid_prior_from_config};
pub(crate) use value_ops::{hash_unrefined, raw_eq_unrefined, FastHasher, Step, Trail, MAX_DEPTH};

/// One thing core would report: where, and what, in core's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The offending value, relative to the resource object. For an
    /// element of a set (which a [`Path`] cannot name) this is the set's
    /// path, and [`in_set_element`](Self::in_set_element) is true.
    pub(crate) path: Path,
    /// The problem is in an element of the set at `path`; Terraform prints
    /// that step as `[...]`.
    pub(crate) in_set_element: bool,
    /// The message as Terraform 1.11 words it.
    pub(crate) message: String,
    /// The attribute at fault is sensitive, so the message (as core chose
    /// it) shows no values.
    pub(crate) sensitive: bool,
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
    pub(crate) fn display_path(&self) -> String {
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
    pub(crate) fn after_address(&self) -> String {
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
