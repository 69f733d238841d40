//! Validators as declarations: checking a configuration against the rules
//! its schema declares (`ValidateResourceConfig` and its kin).
//!
//! The walk follows the schema through attributes, nested attributes and
//! nested blocks of every nesting mode, so its depth is the schema's (and,
//! under [`Validator::Each`], the validator's own nesting). A null passes
//! (presence is the schema's job), except an element the model's Rust type
//! cannot hold as null ([`Validator::NotNull`]); an unknown is
//! skipped and checked once it is known, as is a value with unknowns inside
//! where the rule needs all of it (`OneOf`, a custom rule, the length of a
//! set, which unknown elements may yet merge).
//!
//! Each error is at the offending value's path: attribute steps, list
//! indexes, map keys. A set element has no path step in the protocol, so
//! an error inside a set is at the set's path and its message names the
//! element's value. The built-in validators' summaries and messages are
//! terraform-plugin-framework-validators' ("Invalid Attribute Value
//! Length", "Attribute name string length must be at least 1, got: 0"), so
//! that tests ported from Go keep matching; they speak Terraform's terms,
//! never Rust types.
//!
//! String lengths count Unicode scalar values (UTF-8 runes), as
//! terraform-plugin-framework's `stringvalidator.LengthBetween` counts
//! them (`utf8.RuneCountInString`); Terraform sends strings in NFC, so
//! this is the count after normalization.

use std::cmp::Ordering;

use ctywire::schema::NestingMode;
use ctywire::{Number, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::schema::{Block, NestedBlock, Presence, Validator};
use ctywire_objchange::{Step, Trail, MAX_DEPTH};

/// Checks `config` (a resource's, data source's or provider's
/// configuration, possibly with unknowns) against the validators `block`
/// declares and against its attributes' presence (see [`presence`]),
/// returning every failure.
pub(crate) fn validate(block: &Block, config: &Value) -> Diagnostics {
    let mut diags = walk(block, config, true);
    if let Some(why) = said(&block.deprecation_message) {
        // The whole resource (data source, provider) is deprecated: said
        // once, with no attribute.
        diags.push(Diagnostic::warning("Deprecated").with_detail(why));
    }
    diags
}

/// Checks only that `config` sets what its schema lets a configuration
/// set: a required attribute is not null, a computed-only one is null.
/// Terraform does not check either (hashicorp/terraform#30669), so a
/// provider must, or the configuration fails later as a provider bug.
/// An unknown required attribute passes: it may yet be set. Validation
/// runs this with the validators; planning runs it alone, for a client
/// that plans without validating first.
pub(crate) fn presence(block: &Block, config: &Value) -> Result<(), Diagnostics> {
    let diags = walk(block, config, false);
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(())
}

fn walk(block: &Block, config: &Value, validators: bool) -> Diagnostics {
    let mut v = Validation {
        trail: Trail::default(),
        set_element: None,
        validators,
        diags: Diagnostics::new(),
    };
    v.block(block, config, 0);
    v.diags
}

struct Validation<'a> {
    trail: Trail<'a>,
    /// Whether the declared validators run (else only presence).
    validators: bool,
    /// The outermost set element the walk is in, named in messages since
    /// the path cannot name it.
    set_element: Option<&'a Value>,
    diags: Diagnostics,
}

/// Whether `v` is `block`'s empty value: every attribute null, every
/// nested block absent (null, no elements, or an empty group).
fn is_empty_block(block: &Block, v: &Value) -> bool {
    block
        .attributes
        .iter()
        .all(|a| v.attr(&a.name).is_none_or(Value::is_null))
        && block.blocks.iter().all(|nb| match v.attr(&nb.name) {
            None => true,
            Some(b) if b.is_null() => true,
            Some(b) if nb.nesting == NestingMode::Group => is_empty_block(&nb.block, b),
            Some(b) => b.is_empty(),
        })
}

/// A deprecation message to warn with: plugin-framework warns only of a
/// deprecation that says something (a schema read from elsewhere may
/// mark one deprecated with no reason).
fn said(why: &Option<String>) -> Option<&str> {
    why.as_deref().filter(|w| !w.is_empty())
}

/// Whether the configuration writes the nested block `nb` whose value is
/// `v`: Terraform sends one it leaves out as an empty collection, or a
/// group's empty value, rather than null.
fn block_configured(nb: &NestedBlock, v: &Value) -> bool {
    if v.is_null() || !v.is_known() {
        return false;
    }
    match nb.nesting {
        NestingMode::Group => !is_empty_block(&nb.block, v),
        NestingMode::List | NestingMode::Set | NestingMode::Map => !v.is_empty(),
        NestingMode::Single | NestingMode::Invalid => true,
    }
}

impl<'a> Validation<'a> {
    fn block(&mut self, block: &'a Block, value: &'a Value, depth: usize) {
        if value.is_null() || !value.is_known() {
            return;
        }
        if depth > MAX_DEPTH {
            self.diags.push(
                Diagnostic::error("Schema too deep")
                    .with_detail(format!(
                        "Nested blocks and attributes go deeper than {MAX_DEPTH} levels."
                    ))
                    .at(self.trail.path()),
            );
            return;
        }
        for attr in &block.attributes {
            let Some(v) = value.attr(&attr.name) else {
                continue;
            };
            self.trail.push(Step::Attr(&attr.name));
            self.presence(attr.presence, v);
            // Under presence only, this runs just the nulls the model's
            // Rust types cannot hold (see `check`).
            self.run(&attr.validators, v, VALUE);
            if self.validators {
                // plugin-framework warns only of a known value: an unknown
                // may yet be null.
                if !v.is_null() && v.is_known() {
                    self.deprecated("Attribute Deprecated", &attr.deprecation_message);
                }
            }
            if let Some(n) = &attr.nested {
                self.nested(n.nesting, &n.block, v, depth + 1);
            }
            self.trail.pop();
        }
        for nb in &block.blocks {
            let Some(v) = value.attr(&nb.name) else {
                continue;
            };
            self.trail.push(Step::Attr(&nb.name));
            if self.validators {
                self.run(&nb.validators, v, "Invalid Block");
                if block_configured(nb, v) {
                    self.deprecated("Block Deprecated", &nb.block.deprecation_message);
                }
            }
            self.nested(nb.nesting, &nb.block, v, depth + 1);
            self.trail.pop();
        }
        if self.validators {
            self.combinations(block, value);
        }
    }

    /// A deprecated attribute or block the configuration sets: a warning
    /// at its path, in the provider's words.
    fn deprecated(&mut self, summary: &str, why: &Option<String>) {
        if let Some(why) = said(why) {
            self.diags.push(
                Diagnostic::warning(summary)
                    .with_detail(why)
                    .at(self.trail.path()),
            );
        }
    }

    fn nested(&mut self, nesting: NestingMode, block: &'a Block, v: &'a Value, depth: usize) {
        if v.is_null() || !v.is_known() {
            return;
        }
        match nesting {
            // Terraform sends a group block the configuration leaves out
            // as its empty value rather than null (configschema's
            // DefaultSpec): nothing in it was configured, so nothing in it
            // is missing.
            NestingMode::Group if is_empty_block(block, v) => {}
            NestingMode::Single | NestingMode::Group => self.block(block, v, depth),
            NestingMode::List => {
                for (i, e) in v.elements().unwrap_or(&[]).iter().enumerate() {
                    self.trail.push(Step::Index(i));
                    self.block(block, e, depth);
                    self.trail.pop();
                }
            }
            NestingMode::Map => {
                // A map of blocks with dynamic content is an object.
                let entries: Vec<(&'a str, &'a Value)> = match v.entries() {
                    Some(es) => es.collect(),
                    None => v.attributes().map(Iterator::collect).unwrap_or_default(),
                };
                for (k, e) in entries {
                    self.trail.push(Step::Key(k));
                    self.block(block, e, depth);
                    self.trail.pop();
                }
            }
            NestingMode::Set => {
                for e in v.elements().unwrap_or(&[]) {
                    let before = self.enter_set(e);
                    self.block(block, e, depth);
                    self.leave_set(before);
                }
            }
            NestingMode::Invalid => {}
        }
    }

    fn enter_set(&mut self, element: &'a Value) -> (Option<usize>, Option<&'a Value>) {
        let before = (self.trail.enter_set(), self.set_element);
        self.set_element.get_or_insert(element);
        before
    }

    fn leave_set(&mut self, (at, element): (Option<usize>, Option<&'a Value>)) {
        self.trail.leave_set(at);
        self.set_element = element;
    }

    /// plugin-framework's presence checks, in its words.
    fn presence(&mut self, presence: Presence, value: &Value) {
        let (summary, detail) = if presence.is_required() && value.is_null() {
            (
                "Missing Configuration for Required Attribute",
                format!(
                    "{} must be set: the provider has marked it as required. Refer to the provider's documentation for the attributes a configuration must set.",
                    self.named()
                ),
            )
        } else if presence == Presence::Computed && !value.is_null() {
            (
                "Invalid Configuration for Read-Only Attribute",
                format!(
                    "{} cannot be set: the provider has marked it as read-only and sets it itself. Remove the line that sets it from the configuration.",
                    self.named()
                ),
            )
        } else {
            return;
        };
        self.report(summary, detail);
    }

    /// The attribute at the walk's place, as a message names it.
    fn named(&self) -> String {
        match self.set_element {
            None => format!("The attribute {}", self.trail.shown()),
            Some(element) => format!(
                "In {}, the element {element}: the attribute {}",
                self.trail.shown(),
                self.trail.shown_in_set()
            ),
        }
    }

    fn run(&mut self, rules: &'a [Validator], value: &'a Value, summary: &str) {
        for rule in rules {
            self.check(rule, value, summary);
        }
    }

    fn check(&mut self, rule: &'a Validator, value: &'a Value, summary: &str) {
        match rule {
            Validator::NotNull { rust_type } => return self.not_null(rust_type, value),
            // A null the model cannot hold is refused wherever the
            // configuration is checked, the plan too: read into the model
            // at apply it would fail there, after the plan was accepted.
            Validator::Each(_) => {}
            _ if !self.validators => return,
            _ => {}
        }
        if value.is_null() || !value.is_known() {
            return;
        }
        match rule {
            Validator::Range { min, max, whole } => {
                let Some(n) = value.as_number() else {
                    return self.misapplied("a number range", value);
                };
                let below = min
                    .as_ref()
                    .is_some_and(|m| n.numeric_cmp(m) == Ordering::Less);
                let above = max
                    .as_ref()
                    .is_some_and(|m| n.numeric_cmp(m) == Ordering::Greater);
                let fraction = *whole && !n.is_integer();
                if below || above || fraction {
                    let rule = range_text(min.as_ref(), max.as_ref(), fraction);
                    self.fail(VALUE, &rule, &n.to_string());
                }
            }
            Validator::Length { min, max } => {
                let (len, what) = if let Some(s) = value.as_str() {
                    (s.chars().count(), None)
                } else if let Some(len) = collection_len(value) {
                    if matches!(value.ty(), Type::Set(_)) && !value.is_wholly_known() {
                        // Unknown elements may turn out equal and merge.
                        return;
                    }
                    (len, Some(collection_word(value.ty())))
                } else {
                    return self.misapplied("a length", value);
                };
                let len = len as u64;
                if min.is_some_and(|m| len < m) || max.is_some_and(|m| len > m) {
                    match what {
                        None => {
                            let rule =
                                format!("string length must be {}", bounds(*min, *max, false));
                            self.fail(LENGTH, &rule, &len.to_string());
                        }
                        Some(kind) => {
                            let rule = format!("{kind} must contain {}", bounds(*min, *max, true));
                            self.fail(VALUE, &rule, &len.to_string());
                        }
                    }
                }
            }
            Validator::Pattern { regex, description } => {
                let Some(s) = value.as_str() else {
                    return self.misapplied("a pattern", value);
                };
                if !regex.is_match(s) {
                    self.fail(MATCH, &format!("value must be {description}"), s);
                }
            }
            Validator::OneOf(allowed) => {
                if !value.is_wholly_known() {
                    return;
                }
                if !allowed.contains(value) {
                    let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
                    let rule = format!("value must be one of: [{}]", list.join(" "));
                    self.fail(MATCH, &rule, &value.to_string());
                }
            }
            Validator::Each(inner) => self.each(inner, value, summary),
            Validator::Custom(f) => {
                if !value.is_wholly_known() {
                    return;
                }
                if let Err(invalid) = f(value) {
                    let summary = invalid.summary.as_deref().unwrap_or(summary);
                    self.fail_custom(summary, value, &invalid.detail);
                }
            }
            Validator::NotNull { .. } => {}
        }
    }

    /// A null where the model's Rust type (`rust_type`) cannot hold one:
    /// said to the configuration's author (remove it) and to the
    /// provider's (what to declare instead).
    fn not_null(&mut self, rust_type: &str, value: &Value) {
        if !value.is_null() {
            return;
        }
        let detail = format!(
            "Attribute {} must not be null: the provider reads it into a {rust_type}, which cannot hold a null. Remove the null from the configuration; if a null should be allowed there, the provider must declare the element type Option<{rust_type}>.",
            self.subject()
        );
        self.report(NULL, detail);
    }

    /// Runs `rules` on each element of a collection or attribute of an
    /// object.
    fn each(&mut self, rules: &'a [Validator], value: &'a Value, summary: &str) {
        match value.ty() {
            Type::List(_) | Type::Tuple(_) => {
                for (i, e) in value.elements().unwrap_or(&[]).iter().enumerate() {
                    self.trail.push(Step::Index(i));
                    self.run(rules, e, summary);
                    self.trail.pop();
                }
            }
            Type::Set(_) => {
                for e in value.elements().unwrap_or(&[]) {
                    let before = self.enter_set(e);
                    self.run(rules, e, summary);
                    self.leave_set(before);
                }
            }
            Type::Map(_) => {
                for (k, e) in value.entries().into_iter().flatten() {
                    self.trail.push(Step::Key(k));
                    self.run(rules, e, summary);
                    self.trail.pop();
                }
            }
            Type::Object(_) => {
                for (k, e) in value.attributes().into_iter().flatten() {
                    self.trail.push(Step::Attr(k));
                    self.run(rules, e, summary);
                    self.trail.pop();
                }
            }
            _ => self.misapplied("an each-element", value),
        }
    }

    /// Reports the value at the walk's place breaking `rule` (what it
    /// "must be"), `got` saying what it is, in plugin-framework-validators'
    /// form: "Attribute {path} {rule}, got: {got}".
    fn fail(&mut self, summary: &str, rule: &str, got: &str) {
        let detail = format!("Attribute {} {rule}, got: {got}", self.subject());
        self.report(summary, detail);
    }

    fn fail_custom(&mut self, summary: &str, value: &Value, message: &str) {
        let detail = match self.set_element {
            None => message.to_string(),
            Some(element) => {
                let inside = self.trail.shown_in_set();
                if inside.is_empty() {
                    format!("{}: {value}: {message}", self.trail.shown())
                } else {
                    format!(
                        "{}: in the element {element}, {inside}: {message}",
                        self.trail.shown()
                    )
                }
            }
        };
        self.report(summary, detail);
    }

    fn report(&mut self, summary: &str, detail: String) {
        self.diags.push(
            Diagnostic::error(summary)
                .with_detail(detail)
                .at(self.trail.path()),
        );
    }

    /// What a message calls the value at the walk's place: its path, with
    /// the set element it is in (which the diagnostic's path, stopping at
    /// the set, cannot name) written as plugin-framework writes one,
    /// `tag[Value({"port" = 70000})].port`.
    fn subject(&self) -> String {
        let shown = self.trail.shown();
        let shown = match self.set_element {
            None => shown,
            Some(element) => {
                let inside = self.trail.shown_in_set();
                let inside = if inside.is_empty() {
                    inside
                } else {
                    format!(".{inside}")
                };
                format!("{shown}[Value({element})]{inside}")
            }
        };
        if shown.is_empty() {
            "The value".into()
        } else {
            shown
        }
    }

    /// A validator declared on a value it cannot check: a schema bug.
    fn misapplied(&mut self, what: &str, value: &Value) {
        let detail = format!(
            "{} has {what} rule, which cannot check a {} value. This is a bug in the provider.",
            self.subject(),
            value.ty()
        );
        self.report("Invalid validator in the provider's schema", detail);
    }
}

/// Elements of a list, set, tuple or map, attributes of an object.
fn collection_len(v: &Value) -> Option<usize> {
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) | Type::Map(_) | Type::Object(_) => v.len(),
        _ => None,
    }
}

/// plugin-framework's summaries for its built-in validators.
const VALUE: &str = "Invalid Attribute Value";
const LENGTH: &str = "Invalid Attribute Value Length";
const MATCH: &str = "Invalid Attribute Value Match";
/// Ours: plugin-framework's collections hold nulls, so it has no such rule.
const NULL: &str = "Null Element Not Allowed";

/// "value must be between 1 and 10" and kin; `whole`: the value failed
/// for not being a whole number.
fn range_text(min: Option<&Number>, max: Option<&Number>, whole: bool) -> String {
    let kind = if whole { "a whole number " } else { "" };
    match (min, max) {
        (Some(a), Some(b)) => format!("value must be {kind}between {a} and {b}"),
        (Some(a), None) => format!("value must be {kind}at least {a}"),
        (None, Some(b)) => format!("value must be {kind}at most {b}"),
        (None, None) => "value must be a whole number".to_string(),
    }
}

/// A length's bounds in plugin-framework's words: "between 1 and 5" for a
/// string, "at least 1 elements and at most 5 elements" for a collection.
fn bounds(min: Option<u64>, max: Option<u64>, elements: bool) -> String {
    let n = |x: u64| {
        if elements {
            format!("{x} elements")
        } else {
            x.to_string()
        }
    };
    match (min, max) {
        (Some(a), Some(b)) if elements => format!("at least {} and at most {}", n(a), n(b)),
        (Some(a), Some(b)) => format!("between {a} and {b}"),
        (Some(a), None) => format!("at least {}", n(a)),
        (None, Some(b)) => format!("at most {}", n(b)),
        (None, None) => "any".to_string(),
    }
}

/// What plugin-framework calls a collection of this type in a message.
fn collection_word(ty: &Type) -> &'static str {
    match ty {
        Type::List(_) => "list",
        Type::Set(_) => "set",
        Type::Map(_) => "map",
        Type::Tuple(_) => "tuple",
        _ => "object",
    }
}

mod config_validators;

#[cfg(test)]
mod tests;
