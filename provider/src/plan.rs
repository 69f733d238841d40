//! The plan engine: what `PlanResourceChange` answers when the provider
//! writes no plan code.
//!
//! Terraform's plan semantics as terraform-plugin-framework plans them,
//! with the framework's known pitfalls fixed (the reference is the spec's
//! "plan semantics" §2–§3):
//!
//! - destroy (a null proposal) plans null;
//! - write-only attributes plan null;
//! - an attribute with a default plans it wherever the configuration leaves
//!   it null, inside nested blocks and nested attributes too, the
//!   configuration found through the element correlation below (never by
//!   looking a set element up by its planned value, framework#783);
//! - when the proposal (with defaults) equals the prior state exactly,
//!   the plan *is* the prior state: nothing is marked, the re-plan is empty;
//! - otherwise every computed attribute the configuration leaves null and
//!   without a default plans as its `same_as` sibling's planned value, or
//!   its prior value when it keeps its state and its object has a prior, or
//!   unknown — at every depth. A new element never inherits a null
//!   (pitfall 3);
//! - `requires_replace` attributes whose planned value differs from the
//!   prior one (an unknown counts as a change) are reported, cut at the
//!   first set on their path (the protocol has no set-element step),
//!   sorted and without duplicates.
//!
//! Element correlation: each configuration element is planned from the
//! prior element it continues. The proposal follows core's `ProposedNew`
//! exactly: lists by index, maps by key, sets by core's rule (for each
//! configuration element the first unused prior element for which
//! `validPriorFromConfig` holds). A kept state inside a list element comes
//! from the element at the same index when that element's configured
//! content is the same, else from the first unused prior element that the
//! configuration element continues by the set rule, so removing the head of
//! a list keeps each remaining element's own state (framework#709).
//! `requires_replace` compares list elements by index, as core does.
//!
//! The pairing rules are objchange's (`match_set_elements`,
//! `valid_prior_from_config`), the code core's proposal is built with.
//!
//! The engine walks the prior state and the configuration together with
//! the schema and recomputes the proposal element by element rather than
//! reading the one Terraform sent (which it only reads for being null): a
//! proposed set element says nothing of which configuration element it
//! came from, and that is exactly what defaults and kept state need. Two
//! passes: the first compares the proposal with the prior state without
//! building it, stopping at the first difference; only when something
//! differs does the second build the plan. Set matches are made once per
//! plan, objects of plain attributes are planned as one copy of their
//! configuration, and nothing is quadratic in the number of elements
//! beyond what core's matching rule itself needs.

use std::collections::HashMap;
use std::hash::Hasher;

use ctywire::schema::{self as tf, NestingMode};
use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::schema::{Attribute, Block, Nested};
use ctywire_objchange as objchange;

/// How deep nested blocks and attributes may go. Recursion follows the
/// schema, which a provider writes, so this only stops a runaway schema.
pub(crate) const MAX_DEPTH: usize = 64;

/// The engine's answer for one resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Planned {
    /// The planned new state.
    pub(crate) planned_state: Value,
    /// Attributes whose change replaces the resource, sorted, each once.
    pub(crate) requires_replace: Vec<Path>,
}

/// Plans a resource: `prior` is its state (null on create), `config` its
/// configuration and `proposed` core's proposal (null on destroy). An error
/// is a fault in the provider's schema (a `same_as` naming no attribute, a
/// default on an attribute that is not computed) or input that does not
/// have the schema's shape, each at its path.
pub(crate) fn plan(
    block: &Block,
    prior: &Value,
    config: &Value,
    proposed: &Value,
) -> Result<Planned, Diagnostics> {
    if proposed.is_null() {
        return Ok(Planned {
            planned_state: proposed.clone(),
            requires_replace: Vec::new(),
        });
    }
    if config.attributes().is_none() {
        return Err(Diagnostic::error("Invalid configuration to plan")
            .with_detail(format!(
                "The configuration of a resource to create or update must be a known object, not {config}."
            ))
            .into());
    }
    let prior = if prior.is_null() {
        None
    } else if prior.attributes().is_some() {
        Some(prior)
    } else {
        return Err(Diagnostic::error("Invalid prior state")
            .with_detail(format!(
                "A resource's prior state must be null or a known object, not {prior}."
            ))
            .into());
    };
    let mut matched = HashMap::new();
    if let Some(prior) = prior {
        let mut walk = Walk::new(Mode::Propose);
        if walk.same_object(block, Some(prior), config, 0)? {
            return Ok(Planned {
                planned_state: prior.clone(),
                requires_replace: Vec::new(),
            });
        }
        matched = walk.matched;
    }
    let mut walk = Walk::new(Mode::Mark);
    walk.matched = matched;
    let planned_state = walk.object(block, Prior::both(prior), config, 0)?;
    let mut requires_replace = walk.replace;
    requires_replace.sort_by_cached_key(|p| p.to_string());
    requires_replace.dedup();
    Ok(Planned {
        planned_state,
        requires_replace,
    })
}

/// How an attribute is planned, before the passes differ.
enum Rule<'a> {
    /// Write-only: null.
    WriteOnly,
    /// The configuration's value (null for an unset attribute the provider
    /// does not compute).
    Config,
    /// Configured nested attributes: element by element.
    Nested(&'a Nested),
    /// Unset, with a default.
    Default(&'a Value),
    /// Unset and computed: the prior value in the proposal; in the plan,
    /// `same_as`, kept state or unknown.
    Computed,
}

/// Which pass the walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Core's proposal with defaults and write-only nulls: compared with
    /// the prior state to decide whether anything changes.
    Propose,
    /// The plan: computed attributes left to the provider are marked.
    Mark,
}

/// The prior values an object (or attribute) is planned from.
#[derive(Clone, Copy, Default)]
struct Prior<'a> {
    /// Paired as core pairs: the proposal and `requires_replace` use it.
    pair: Option<&'a Value>,
    /// The value this one continues: kept state comes from it. The same as
    /// `pair` except under a list element whose content moved.
    keep: Option<&'a Value>,
}

impl<'a> Prior<'a> {
    fn pair(v: Option<&'a Value>) -> Self {
        Prior {
            pair: v,
            keep: None,
        }
    }

    fn both(v: Option<&'a Value>) -> Self {
        Prior { pair: v, keep: v }
    }

    /// Only known, non-null values are priors to pair with.
    fn known(self) -> Self {
        let k = |v: Option<&'a Value>| v.filter(|v| v.is_known() && !v.is_null());
        Prior {
            pair: k(self.pair),
            keep: k(self.keep),
        }
    }

    fn attr(self, name: &str) -> Self {
        Prior {
            pair: self.pair.and_then(|p| p.attr(name)),
            keep: self.keep.and_then(|p| p.attr(name)),
        }
    }
}

/// One step of a [`Trail`], borrowed from the schema.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step<'a> {
    /// An attribute or nested block.
    Attr(&'a str),
    /// A list or tuple element.
    Index(usize),
    /// A map element.
    Key(&'a str),
}

/// Where a walk through a value is, kept as borrowed steps so walking a
/// large value allocates nothing until a path is reported. Inside a set
/// the reported path stops at the set: the protocol has no step for a set
/// element.
#[derive(Debug, Default)]
pub(crate) struct Trail<'a> {
    steps: Vec<Step<'a>>,
    /// How many steps lead to the outermost set the walk is inside.
    set_at: Option<usize>,
}

impl<'a> Trail<'a> {
    pub(crate) fn push(&mut self, step: Step<'a>) {
        self.steps.push(step);
    }

    pub(crate) fn pop(&mut self) {
        self.steps.pop();
    }

    /// Enters the elements of a set at the current step; hand the answer
    /// back to [`leave_set`](Self::leave_set).
    pub(crate) fn enter_set(&mut self) -> Option<usize> {
        let before = self.set_at;
        self.set_at.get_or_insert(self.steps.len());
        before
    }

    pub(crate) fn leave_set(&mut self, before: Option<usize>) {
        self.set_at = before;
    }

    /// The path to report: the steps, cut at the outermost set.
    pub(crate) fn path(&self) -> Path {
        to_path(&self.steps[..self.set_at.unwrap_or(self.steps.len())])
    }

    /// The reported path as text for a message (`rule[0].port`).
    pub(crate) fn shown(&self) -> String {
        shown(&self.steps[..self.set_at.unwrap_or(self.steps.len())])
    }

    /// The steps inside the outermost set element, as text (`port`);
    /// empty outside sets and at the element itself.
    pub(crate) fn shown_in_set(&self) -> String {
        self.set_at
            .map(|at| shown(&self.steps[at..]))
            .unwrap_or_default()
    }
}

fn to_path(steps: &[Step<'_>]) -> Path {
    let mut path = Path::root();
    for s in steps {
        path = match *s {
            Step::Attr(n) => path.attr(n),
            Step::Index(i) => path.index(i as u64),
            Step::Key(k) => path.key(k),
        };
    }
    path
}

/// Steps as Terraform writes a reference: `rule[0].port`, `tags["a"]`.
fn shown(steps: &[Step<'_>]) -> String {
    let text = to_path(steps).to_string();
    match text.strip_prefix('.') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

struct Walk<'a> {
    mode: Mode,
    trail: Trail<'a>,
    /// Requires-replace paths found (Mark only).
    replace: Vec<Path>,
    /// The protocol's form of each block whose elements are matched,
    /// built once per block type (core's matching rule reads it).
    match_schemas: HashMap<*const Block, tf::Block>,
    /// Set matches already made, by the addresses of the prior and
    /// configured elements (both borrowed for the whole plan): the
    /// comparison pass's serve the planning pass.
    matched: HashMap<(usize, usize), Vec<Option<usize>>>,
}

type Planning<T> = Result<T, Diagnostic>;

impl<'a> Walk<'a> {
    fn new(mode: Mode) -> Self {
        Walk {
            mode,
            trail: Trail::default(),
            replace: Vec::new(),
            match_schemas: HashMap::new(),
            matched: HashMap::new(),
        }
    }

    /// An error about the schema or the shape of the input, at the walk's
    /// place.
    fn error(&self, summary: &str, detail: String) -> Diagnostic {
        Diagnostic::error(summary)
            .with_detail(detail)
            .at(self.trail.path())
    }

    fn shape_error(&self, what: &str) -> Diagnostic {
        let at = self.trail.shown();
        let at = if at.is_empty() {
            "the resource".into()
        } else {
            at
        };
        self.error(
            "Value does not match the schema",
            format!("At {at}: {what}. Terraform sends values of the schema's type, so the schema given to the plan is not the one Terraform has."),
        )
    }

    /// Plans the object of `block` whose configuration is `config`.
    fn object(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        if depth > MAX_DEPTH {
            return Err(self.error(
                "Schema too deep",
                format!("Nested blocks and attributes go deeper than {MAX_DEPTH} levels."),
            ));
        }
        if config.is_null() || !config.is_known() {
            // Core's rule: an object the configuration does not give (an
            // unknown one comes from a `dynamic` block whose `for_each` is
            // unknown) keeps its prior.
            return Ok(prior.pair.cloned().unwrap_or_else(|| config.clone()));
        }
        let mut values: Vec<Option<Value>> =
            Vec::with_capacity(block.attributes.len() + block.blocks.len());
        let mut same_as = false;
        for attr in &block.attributes {
            let c = config
                .attr(&attr.name)
                .ok_or_else(|| self.shape_error(&format!("no attribute {:?}", attr.name)))?;
            self.trail.push(Step::Attr(&attr.name));
            let v = self.attribute(attr, prior.keep.is_some(), prior.attr(&attr.name), c, depth);
            self.trail.pop();
            let v = v?;
            same_as |= v.is_none();
            values.push(v);
        }
        if same_as {
            self.resolve_same_as(block, &mut values)?;
        }
        if self.mode == Mode::Mark {
            if let Some(p) = prior.pair {
                for (attr, v) in block.attributes.iter().zip(&values) {
                    if attr.plan.requires_replace && p.attr(&attr.name) != v.as_ref() {
                        self.trail.push(Step::Attr(&attr.name));
                        self.replace.push(self.trail.path());
                        self.trail.pop();
                    }
                }
            }
        }
        let mut names: Vec<&str> = block.attributes.iter().map(|a| a.name.as_str()).collect();
        for nb in &block.blocks {
            if nb.nesting == NestingMode::Invalid {
                // Terraform leaves a block of no nesting out of the type.
                continue;
            }
            let c = config
                .attr(&nb.name)
                .ok_or_else(|| self.shape_error(&format!("no block {:?}", nb.name)))?;
            self.trail.push(Step::Attr(&nb.name));
            let v = self.nested(nb.nesting, &nb.block, prior.attr(&nb.name), c, depth + 1);
            self.trail.pop();
            values.push(Some(v?));
            names.push(&nb.name);
        }
        if block.blocks.is_empty() && block.attributes.iter().all(|a| a.nested.is_none()) {
            // An object of plain attributes (a set element, typically):
            // a copy of its configuration with the planned values put in
            // place costs one allocation, where building an object anew
            // costs several per attribute.
            let mut out = config.clone();
            for (name, v) in names.into_iter().zip(values) {
                let Some(v) = v else { continue };
                if config.attr(name) != Some(&v) {
                    out.set_attr(name, v)
                        .map_err(|e| self.shape_error(&e.to_string()))?;
                }
            }
            return Ok(out);
        }
        let mut attrs = Vec::with_capacity(values.len());
        for (name, v) in names.into_iter().zip(values) {
            // Every `same_as` was resolved above.
            attrs.push((name, v.unwrap_or_else(|| Value::null(Type::Dynamic))));
        }
        Ok(Value::object(attrs))
    }

    /// Plans one attribute; `None` when it is planned as a sibling's value
    /// (`same_as`), which is known once the whole object is planned.
    /// `has_keep`: whether the object has a prior its state is kept from.
    fn attribute(
        &mut self,
        attr: &'a Attribute,
        has_keep: bool,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Option<Value>> {
        // A nested attribute's null configuration carries the attribute's
        // whole type; `ty` says it for the others.
        let declared = || match attr.nested {
            Some(_) => config.ty().clone(),
            None => attr.ty.clone(),
        };
        match self.rule(attr, config)? {
            Rule::WriteOnly => return Ok(Some(Value::null(declared()))),
            Rule::Config => return Ok(Some(config.clone())),
            Rule::Nested(n) => return self.nested_attribute(n, prior, config, depth),
            Rule::Default(d) => return Ok(Some(d.clone())),
            Rule::Computed => {}
        }
        Ok(match self.mode {
            Mode::Propose => Some(match prior.pair {
                // Core (terraform#32551): an optional nested attribute whose
                // prior holds values only configuration sets was configured
                // before and is now removed, so it is not kept.
                Some(p) if !configured_before(attr, p) => p.clone(),
                _ => config.clone(),
            }),
            Mode::Mark if attr.plan.same_as.is_some() => None,
            Mode::Mark if attr.plan.keep_state && has_keep => Some(
                prior
                    .keep
                    .cloned()
                    .unwrap_or_else(|| Value::unknown(declared())),
            ),
            Mode::Mark => Some(Value::unknown(declared())),
        })
    }

    /// Which rule plans `attr` given its configuration: the one place both
    /// passes read it from.
    fn rule(&self, attr: &'a Attribute, config: &Value) -> Planning<Rule<'a>> {
        if attr.write_only {
            return Ok(Rule::WriteOnly);
        }
        if !config.is_null() {
            return Ok(match &attr.nested {
                Some(n) => Rule::Nested(n),
                None => Rule::Config,
            });
        }
        if let Some(default) = &attr.plan.default {
            let declared = match attr.nested {
                Some(_) => config.ty(),
                None => &attr.ty,
            };
            self.check_default(attr, default, declared)?;
            return Ok(Rule::Default(default));
        }
        Ok(if attr.presence.is_computed() {
            Rule::Computed
        } else {
            Rule::Config
        })
    }

    // ---- the comparison pass --------------------------------------------

    /// Whether core's proposal for this object, with defaults and
    /// write-only nulls, is exactly `prior` (no prior: it is not). Stops at
    /// the first difference and builds nothing, except the proposals of
    /// changed set elements, which may still equal another prior element.
    fn same_object(
        &mut self,
        block: &'a Block,
        prior: Option<&'a Value>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        if depth > MAX_DEPTH {
            return Err(self.error(
                "Schema too deep",
                format!("Nested blocks and attributes go deeper than {MAX_DEPTH} levels."),
            ));
        }
        let Some(prior) = prior else {
            return Ok(false);
        };
        if config.is_null() || !config.is_known() {
            return Ok(true);
        }
        for attr in &block.attributes {
            let c = config
                .attr(&attr.name)
                .ok_or_else(|| self.shape_error(&format!("no attribute {:?}", attr.name)))?;
            let p = prior.attr(&attr.name);
            self.trail.push(Step::Attr(&attr.name));
            let same = self.same_attribute(attr, p, c, depth);
            self.trail.pop();
            if !same? {
                return Ok(false);
            }
        }
        for nb in &block.blocks {
            if nb.nesting == NestingMode::Invalid {
                continue;
            }
            let c = config
                .attr(&nb.name)
                .ok_or_else(|| self.shape_error(&format!("no block {:?}", nb.name)))?;
            let p = prior.attr(&nb.name);
            self.trail.push(Step::Attr(&nb.name));
            let same = self.same_nested(nb.nesting, &nb.block, p, c, depth + 1);
            self.trail.pop();
            if !same? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn same_attribute(
        &mut self,
        attr: &'a Attribute,
        prior: Option<&'a Value>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        Ok(match self.rule(attr, config)? {
            Rule::WriteOnly => prior.is_some_and(Value::is_null),
            Rule::Config => prior == Some(config),
            Rule::Default(d) => prior == Some(d),
            Rule::Nested(n) => self.same_nested(n.nesting, &n.block, prior, config, depth + 1)?,
            // The proposal keeps the prior value, unless core drops it.
            Rule::Computed => prior.is_some_and(|p| !configured_before(attr, p)),
        })
    }

    fn same_nested(
        &mut self,
        nesting: NestingMode,
        block: &'a Block,
        prior: Option<&'a Value>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        if config.is_null() || !config.is_known() {
            return Ok(prior == Some(config));
        }
        let Some(prior) = prior.filter(|p| p.is_known() && !p.is_null()) else {
            return Ok(false);
        };
        match nesting {
            NestingMode::Single | NestingMode::Group => {
                self.same_object(block, Some(prior), config, depth)
            }
            NestingMode::List => {
                let configured = config
                    .elements()
                    .ok_or_else(|| self.shape_error("a list was expected"))?;
                let paired = prior.elements().unwrap_or(&[]);
                if configured.is_empty() || configured.len() != paired.len() {
                    return Ok(prior == config);
                }
                for (i, (c, p)) in configured.iter().zip(paired).enumerate() {
                    self.trail.push(Step::Index(i));
                    let same = self.same_object(block, Some(p), c, depth);
                    self.trail.pop();
                    if !same? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            NestingMode::Map => {
                let keys = |v: &'a Value| -> Option<Vec<(&'a str, &'a Value)>> {
                    match v.entries() {
                        Some(es) => Some(es.collect()),
                        None => v.attributes().map(Iterator::collect),
                    }
                };
                let configured =
                    keys(config).ok_or_else(|| self.shape_error("a map was expected"))?;
                let paired = keys(prior).unwrap_or_default();
                if configured.is_empty() || configured.len() != paired.len() {
                    return Ok(prior == config);
                }
                for ((k, c), (pk, p)) in configured.into_iter().zip(paired) {
                    if k != pk {
                        return Ok(false);
                    }
                    self.trail.push(Step::Key(k));
                    let same = self.same_object(block, Some(p), c, depth);
                    self.trail.pop();
                    if !same? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            NestingMode::Set => self.same_set(block, prior, config, depth),
            NestingMode::Invalid => Ok(prior == config),
        }
    }

    /// Whether the proposed set equals the prior set: the elements that
    /// propose exactly their matched prior element, plus the proposals of
    /// the others found among the prior elements, must be all of them.
    fn same_set(
        &mut self,
        block: &'a Block,
        prior: &'a Value,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        let configured = config
            .elements()
            .ok_or_else(|| self.shape_error("a set was expected"))?;
        let paired = prior.elements().unwrap_or(&[]);
        if configured.is_empty() || configured.len() < paired.len() {
            // Fewer proposals than prior elements cannot make the same set.
            return Ok(prior == config);
        }
        let pairs = self.set_matches(block, paired, configured);
        let mut covered = vec![false; paired.len()];
        let mut others = Vec::new();
        let before = self.trail.enter_set();
        for (j, c) in configured.iter().enumerate() {
            let pair = pairs.get(j).copied().flatten();
            let same = match pair.and_then(|i| paired.get(i)) {
                Some(p) => self.same_object(block, Some(p), c, depth),
                None => Ok(false),
            };
            match same {
                Ok(true) => {
                    if let Some(i) = pair {
                        if let Some(c) = covered.get_mut(i) {
                            *c = true;
                        }
                    }
                }
                Ok(false) => others.push((j, pair)),
                Err(e) => {
                    self.trail.leave_set(before);
                    return Err(e);
                }
            }
        }
        if !others.is_empty() {
            // Rare: a changed element whose proposal may equal another
            // prior element. Look each proposal up among them.
            let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
            for (i, p) in paired.iter().enumerate() {
                index.entry(hash_of(p)).or_default().push(i);
            }
            for (j, pair) in others {
                let Some(c) = configured.get(j) else {
                    continue;
                };
                let pair = Prior::pair(pair.and_then(|i| paired.get(i)));
                let proposal = self.object(block, pair, c, depth);
                let proposal = match proposal {
                    Ok(v) => v,
                    Err(e) => {
                        self.trail.leave_set(before);
                        return Err(e);
                    }
                };
                let found = index.get(&hash_of(&proposal)).and_then(|b| {
                    b.iter().find(|&&i| {
                        paired
                            .get(i)
                            .is_some_and(|p| objchange::raw_eq_unrefined(p, &proposal))
                    })
                });
                match found {
                    Some(&i) => {
                        if let Some(c) = covered.get_mut(i) {
                            *c = true;
                        }
                    }
                    None => {
                        self.trail.leave_set(before);
                        return Ok(false);
                    }
                }
            }
        }
        self.trail.leave_set(before);
        Ok(covered.iter().all(|&c| c))
    }

    // ---- the building passes --------------------------------------------

    fn nested_attribute(
        &mut self,
        nested: &'a Nested,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Option<Value>> {
        self.nested(nested.nesting, &nested.block, prior, config, depth + 1)
            .map(Some)
    }

    fn check_default(&self, attr: &Attribute, default: &Value, declared: &Type) -> Planning<()> {
        if !attr.presence.is_computed() {
            return Err(self.error(
                "Invalid default in the provider's schema",
                format!(
                    "The attribute {} has a default but is not computed: Terraform rejects a planned value for an attribute the configuration leaves null unless the provider computes it. Declare it optional and computed. This is a bug in the provider.",
                    self.trail.shown()
                ),
            ));
        }
        if *declared != Type::Dynamic && !default.is_null() && default.ty() != declared {
            return Err(self.error(
                "Invalid default in the provider's schema",
                format!(
                    "The default of {} is a {}, but the attribute is a {}. This is a bug in the provider.",
                    self.trail.shown(),
                    default.ty(),
                    declared
                ),
            ));
        }
        Ok(())
    }

    /// Gives each attribute planned as a sibling's value (`same_as`) that
    /// value, following a chain of them.
    fn resolve_same_as(&self, block: &'a Block, values: &mut [Option<Value>]) -> Planning<()> {
        for i in 0..values.len() {
            if values[i].is_some() {
                continue;
            }
            let Some(attr) = block.attributes.get(i) else {
                continue;
            };
            let mut at = i;
            let mut found = None;
            // A chain longer than the attributes is a cycle.
            for _ in 0..=block.attributes.len() {
                let Some(name) = block
                    .attributes
                    .get(at)
                    .and_then(|a| a.plan.same_as.as_ref())
                else {
                    break;
                };
                let Some(next) = block.attributes.iter().position(|a| &a.name == name) else {
                    return Err(self.schema_error(&format!(
                        "{} is planned as the value of {name:?}, which is not an attribute beside it",
                        attr.name
                    )));
                };
                if let Some(v) = values.get(next).and_then(Option::as_ref) {
                    found = Some((next, v.clone()));
                    break;
                }
                at = next;
            }
            let Some((source, v)) = found else {
                return Err(self.schema_error(&format!(
                    "the `same_as` of {} leads round in a circle",
                    attr.name
                )));
            };
            let source_ty = block.attributes.get(source).map(|a| &a.ty);
            if attr.ty != Type::Dynamic && source_ty != Some(&attr.ty) {
                return Err(self.schema_error(&format!(
                    "{} ({}) is planned as the value of {} ({})",
                    attr.name,
                    attr.ty,
                    block
                        .attributes
                        .get(source)
                        .map_or("?", |a| a.name.as_str()),
                    source_ty.map_or_else(String::new, |t| t.to_string())
                )));
            }
            values[i] = Some(v);
        }
        Ok(())
    }

    fn schema_error(&self, what: &str) -> Diagnostic {
        let at = self.trail.shown();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!("In {at}: ")
        };
        self.error(
            "Invalid plan behaviour in the provider's schema",
            format!("{at}{what}. This is a bug in the provider."),
        )
    }

    /// Plans a nested block's or nested attribute's value.
    fn nested(
        &mut self,
        nesting: NestingMode,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        if config.is_null() || !config.is_known() {
            // No blocks written as null; an unknown collection (a `dynamic`
            // block whose `for_each` is unknown) stays unknown, as in core.
            return Ok(config.clone());
        }
        let prior = prior.known();
        match nesting {
            NestingMode::Single | NestingMode::Group => self.object(block, prior, config, depth),
            NestingMode::List => self.list(block, prior, config, depth),
            NestingMode::Map => self.map(block, prior, config, depth),
            NestingMode::Set => self.set(block, prior, config, depth),
            NestingMode::Invalid => Ok(config.clone()),
        }
    }

    fn list(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        let configured = config
            .elements()
            .ok_or_else(|| self.shape_error("a list was expected"))?;
        if configured.is_empty() {
            return Ok(config.clone());
        }
        let paired = prior.pair.and_then(Value::elements).unwrap_or(&[]);
        let kept = match (self.mode, prior.keep.and_then(Value::elements)) {
            (Mode::Mark, Some(kept)) => {
                let schema = self.match_schema(block);
                continuations(schema, kept, configured)
                    .into_iter()
                    .map(|m| m.and_then(|i| kept.get(i)))
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut out = Vec::with_capacity(configured.len());
        for (i, c) in configured.iter().enumerate() {
            let p = Prior {
                pair: paired.get(i),
                keep: kept.get(i).copied().flatten(),
            };
            self.trail.push(Step::Index(i));
            let v = self.object(block, p, c, depth);
            self.trail.pop();
            out.push(v?);
        }
        if let Type::Tuple(_) = config.ty() {
            // A list of blocks with dynamic content is a tuple.
            return Ok(Value::tuple(out));
        }
        Value::list(Type::Dynamic, out).map_err(|e| self.collection_error(&e))
    }

    fn map(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        if let Some(entries) = config.entries() {
            if entries.len() == 0 {
                return Ok(config.clone());
            }
            let mut out = Vec::with_capacity(entries.len());
            for (k, c) in entries {
                let p = Prior {
                    pair: prior.pair.and_then(|p| p.entry(k)),
                    keep: prior.keep.and_then(|p| p.entry(k)),
                };
                self.trail.push(Step::Key(k));
                let v = self.object(block, p, c, depth);
                self.trail.pop();
                out.push((k, v?));
            }
            return Value::map(Type::Dynamic, out).map_err(|e| self.collection_error(&e));
        }
        // A map of blocks with dynamic content is an object.
        let entries = config
            .attributes()
            .ok_or_else(|| self.shape_error("a map was expected"))?;
        let mut out = Vec::with_capacity(entries.len());
        for (k, c) in entries {
            self.trail.push(Step::Key(k));
            let v = self.object(block, prior.attr(k), c, depth);
            self.trail.pop();
            out.push((k, v?));
        }
        Ok(Value::object(out))
    }

    fn set(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        let configured = config
            .elements()
            .ok_or_else(|| self.shape_error("a set was expected"))?;
        if configured.is_empty() {
            return Ok(config.clone());
        }
        let paired = prior.pair.and_then(Value::elements).unwrap_or(&[]);
        let kept_from = match self.mode {
            Mode::Propose => None,
            Mode::Mark => prior.keep.and_then(Value::elements),
        };
        let pairs = self.set_matches(block, paired, configured);
        // `None`: kept state comes from the paired elements.
        let keeps = match kept_from {
            Some(k) if std::ptr::eq(k, paired) => None,
            Some(k) => Some(self.set_matches(block, k, configured)),
            None => Some(vec![None; configured.len()]),
        };
        let before = self.trail.enter_set();
        let mut out = Vec::with_capacity(configured.len());
        for (j, c) in configured.iter().enumerate() {
            let pair = pairs.get(j).copied().flatten().and_then(|i| paired.get(i));
            let keep = match (&keeps, kept_from) {
                (None, _) => pair,
                (Some(m), Some(k)) => m.get(j).copied().flatten().and_then(|i| k.get(i)),
                (Some(_), None) => None,
            };
            let v = self.object(block, Prior { pair, keep }, c, depth);
            match v {
                Ok(v) => out.push(v),
                Err(e) => {
                    self.trail.leave_set(before);
                    return Err(e);
                }
            }
        }
        self.trail.leave_set(before);
        Value::set(Type::Dynamic, out).map_err(|e| self.collection_error(&e))
    }

    fn collection_error(&self, e: &ctywire::Error) -> Diagnostic {
        self.error(
            "Cannot build the planned value",
            format!(
                "The planned elements of {} do not make one collection: {e}. This is a bug in the provider's schema or in ctywire-provider.",
                self.trail.shown()
            ),
        )
    }

    /// Core's set matching of `configured` against `prior`, made once per
    /// plan.
    fn set_matches(
        &mut self,
        block: &'a Block,
        prior: &'a [Value],
        configured: &'a [Value],
    ) -> Vec<Option<usize>> {
        if prior.is_empty() {
            return vec![None; configured.len()];
        }
        let key = (prior.as_ptr() as usize, configured.as_ptr() as usize);
        if let Some(m) = self.matched.get(&key) {
            return m.clone();
        }
        let m = match_set_elements(self.match_schema(block), prior, configured);
        self.matched.insert(key, m.clone());
        m
    }

    /// The protocol's form of `block`, which core's matching rule reads.
    fn match_schema(&mut self, block: &'a Block) -> &tf::Block {
        self.match_schemas
            .entry(block as *const Block)
            .or_insert_with(|| block.to_schema_block())
    }
}

/// Core's `optionalValueNotComputable`: whether a prior value of an
/// optional nested attribute holds a value only configuration can set (a
/// non-null attribute that is not computed), at any depth.
fn configured_before(attr: &Attribute, prior: &Value) -> bool {
    match &attr.nested {
        Some(n) if attr.presence.is_optional() => nested_configured(n, prior, 0),
        _ => false,
    }
}

fn nested_configured(nested: &Nested, v: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH || v.is_null() || !v.is_known() {
        return false;
    }
    let object_configured = |o: &Value| {
        nested
            .block
            .attributes
            .iter()
            .any(|a| match o.attr(&a.name) {
                Some(av) if !av.is_null() => {
                    !a.presence.is_computed()
                        || a.nested
                            .as_ref()
                            .is_some_and(|n| nested_configured(n, av, depth + 1))
                }
                _ => false,
            })
    };
    match nested.nesting {
        NestingMode::Single | NestingMode::Group => object_configured(v),
        _ => {
            if let Some(es) = v.elements() {
                es.iter().any(object_configured)
            } else if let Some(mut es) = v.entries() {
                es.any(|(_, e)| object_configured(e))
            } else if let Some(mut es) = v.attributes() {
                es.any(|(_, e)| object_configured(e))
            } else {
                false
            }
        }
    }
}

/// For each configuration element of a list, the prior element whose state
/// it keeps: the one at the same index when the configuration element
/// continues it (core's `validPriorFromConfig`), else the first unused
/// prior element it continues (core's set rule), else none.
fn continuations(schema: &tf::Block, prior: &[Value], config: &[Value]) -> Vec<Option<usize>> {
    let mut out = vec![None; config.len()];
    let mut used = vec![false; prior.len()];
    for (i, (p, c)) in prior.iter().zip(config).enumerate() {
        if valid_prior_from_config(schema, p, c) {
            out[i] = Some(i);
            used[i] = true;
        }
    }
    let rest_c: Vec<usize> = (0..config.len()).filter(|&i| out[i].is_none()).collect();
    let rest_p: Vec<usize> = (0..prior.len()).filter(|&i| !used[i]).collect();
    if rest_c.is_empty() || rest_p.is_empty() {
        return out;
    }
    // Only the elements that moved are copied.
    let moved_p: Vec<Value> = rest_p
        .iter()
        .filter_map(|&i| prior.get(i).cloned())
        .collect();
    let moved_c: Vec<Value> = rest_c
        .iter()
        .filter_map(|&i| config.get(i).cloned())
        .collect();
    for (j, m) in match_set_elements(schema, &moved_p, &moved_c)
        .into_iter()
        .enumerate()
    {
        if let (Some(m), Some(&i)) = (m, rest_c.get(j)) {
            out[i] = rest_p.get(m).copied();
        }
    }
    out
}

/// Core's set rule (objchange's, the code `ProposedNew` uses): for each
/// configuration element, the index of the prior element it continues.
fn match_set_elements(schema: &tf::Block, prior: &[Value], config: &[Value]) -> Vec<Option<usize>> {
    objchange::match_set_elements(objchange::Nested::Block(schema), prior, config)
}

/// Core's `validPriorFromConfig`: whether the configuration element could
/// have planned the prior element, only computed values having been added.
fn valid_prior_from_config(schema: &tf::Block, prior: &Value, config: &Value) -> bool {
    objchange::valid_prior_from_config(objchange::Nested::Block(schema), prior, config)
}

/// A hash under which equal values meet.
fn hash_of(v: &Value) -> u64 {
    let mut h = objchange::FastHasher::default();
    objchange::hash_unrefined(v, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests;
