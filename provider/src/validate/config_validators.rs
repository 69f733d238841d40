//! Config validators: rules across the attributes and blocks of one object
//! ([`Combination`]), checked on every object of a block the walk visits,
//! nested ones too.
//!
//! They follow terraform-plugin-framework-validators' config validators:
//! an attribute is configured when it is neither null nor unknown (a
//! nested block when it has an element); an unknown defers a rule whose
//! answer it could change (it may yet be null or a value), while one that
//! already fails whatever the unknown becomes — two of "exactly one" set —
//! is reported at once. The summaries are the framework's, so tests ported
//! from Go match them; each error is at the offending attribute's path.

use ctywire::Value;
use ctywire_tfplugin6::Diagnostic;

use super::{block_configured, Validation};
use crate::schema::{Block, Combination};
use ctywire_objchange::Step;

/// Whether an attribute or block of an object is configured.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unset,
    Unknown,
    Set,
}

/// What the configuration sets of `name` in `object` (of `block`).
fn state(block: &Block, object: &Value, name: &str) -> State {
    match object.attr(name) {
        Some(v) if !v.is_null() && !v.is_known() => State::Unknown,
        Some(v) => match block.block(name) {
            Some(nb) if !block_configured(nb, v) => State::Unset,
            _ if v.is_null() => State::Unset,
            _ => State::Set,
        },
        None => State::Unset,
    }
}

impl<'a> Validation<'a> {
    /// Checks `block`'s config validators on `object`, one of its values.
    pub(super) fn combinations(&mut self, block: &'a Block, object: &'a Value) {
        for rule in &block.combinations {
            self.combination(block, object, rule);
        }
    }

    fn combination(&mut self, block: &'a Block, object: &'a Value, rule: &'a Combination) {
        let of = |names: &'a [String]| -> Vec<(&'a str, State)> {
            names
                .iter()
                .map(|n| (n.as_str(), state(block, object, n)))
                .collect()
        };
        let set = |states: &[(&'a str, State)]| -> Vec<&'a str> {
            states
                .iter()
                .filter(|(_, s)| *s == State::Set)
                .map(|(n, _)| *n)
                .collect()
        };
        let unknown = |states: &[(&str, State)]| states.iter().any(|(_, s)| *s == State::Unknown);
        match rule {
            Combination::ExactlyOneOf(names) | Combination::AtLeastOneOf(names) => {
                let exactly = matches!(rule, Combination::ExactlyOneOf(_));
                let states = of(names);
                let configured = set(&states);
                let listed = self.listed(names);
                let rule_text = if exactly {
                    format!("Exactly one of these attributes must be configured: {listed}")
                } else {
                    format!("At least one of these attributes must be configured: {listed}")
                };
                if exactly && configured.len() > 1 {
                    let detail = format!(
                        "{rule_text}. The configuration sets {}.",
                        self.and_list(&configured)
                    );
                    return self.combination_error(configured[0], detail);
                }
                if configured.is_empty() && !unknown(&states) {
                    let detail = format!("{rule_text}. The configuration sets none of them.");
                    let d = Diagnostic::error("Missing Attribute Configuration")
                        .with_detail(self.in_element(detail))
                        .at(self.trail.path());
                    self.diags.push(d);
                }
            }
            Combination::ConflictsWith { attribute, others }
            | Combination::AlsoRequires { attribute, others } => {
                if state(block, object, attribute) != State::Set {
                    return;
                }
                let states = of(others);
                if unknown(&states) {
                    return;
                }
                let (wrong, verb) = match rule {
                    Combination::ConflictsWith { .. } => (State::Set, "cannot be"),
                    _ => (State::Unset, "must be"),
                };
                for &(other, _) in states.iter().filter(|(_, s)| *s == wrong) {
                    let detail = format!(
                        "Attribute {} {verb} specified when {} is specified.",
                        self.reference(other),
                        self.reference(attribute)
                    );
                    self.combination_error(attribute, detail);
                }
            }
        }
    }

    /// plugin-framework's "Invalid Attribute Combination", at the
    /// attribute `at` of the object the walk is on.
    fn combination_error(&mut self, at: &'a str, detail: String) {
        self.trail.push(Step::Attr(at));
        let d = Diagnostic::error("Invalid Attribute Combination")
            .with_detail(self.in_element(detail))
            .at(self.trail.path());
        self.trail.pop();
        self.diags.push(d);
    }

    /// The attribute `name` of the object the walk is on, quoted as
    /// Terraform writes a reference (`"rule[0].port"`).
    fn reference(&mut self, name: &'a str) -> String {
        self.trail.push(Step::Attr(name));
        let shown = match self.set_element {
            None => self.trail.shown(),
            Some(_) => self.trail.shown_in_set(),
        };
        self.trail.pop();
        format!("{shown:?}")
    }

    /// The attributes `names` as a list of references: `[a,b]`.
    fn listed(&mut self, names: &'a [String]) -> String {
        let shown: Vec<String> = names
            .iter()
            .map(|n| self.reference(n).trim_matches('"').to_string())
            .collect();
        format!("[{}]", shown.join(","))
    }

    /// `a`, `a and b`, `a, b and c`, each a reference.
    fn and_list(&mut self, names: &[&'a str]) -> String {
        let shown: Vec<String> = names.iter().map(|n| self.reference(n)).collect();
        match shown.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => shown.join(""),
        }
    }

    /// `detail` prefixed with the set element the object is in, which the
    /// diagnostic's path (stopping at the set) cannot name.
    fn in_element(&self, detail: String) -> String {
        match self.set_element {
            None => detail,
            Some(element) => format!("In {}, the element {element}: {detail}", self.trail.shown()),
        }
    }
}
