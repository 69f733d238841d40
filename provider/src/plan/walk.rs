//! The walk: plans an object attribute by attribute, in the two passes
//! the plan entry point runs.

use std::collections::HashMap;

use ctywire::schema::NestingMode;
use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::Diagnostic;

use super::forms::Forms;
use super::{semantic, Mode, Prior, Rule};
use crate::schema::{Attribute, Block, Nested, NestedBlock};
use ctywire_objchange::{Step, Trail, MAX_DEPTH};

pub(super) struct Walk<'a> {
    pub(super) mode: Mode,
    pub(super) trail: Trail<'a>,
    /// Requires-replace paths found (Mark only).
    pub(super) replace: Vec<Path>,
    /// The protocol's forms of the object being walked and of what it
    /// nests, built by the builder (core's matching rule reads them).
    pub(super) forms: &'a Forms,
    /// Set matches already made, by the addresses of the prior and
    /// configured elements (both borrowed for the whole plan): the
    /// comparison pass's serve the planning pass.
    pub(super) matched: HashMap<(usize, usize), Vec<Option<usize>>>,
}

pub(super) type Planning<T> = Result<T, Diagnostic>;

/// Whether the configuration leaves the computed block `nb` to the
/// provider: Terraform 1.16 sends one the configuration does not write as
/// null (`objchange.PrepareComputedBlocks` turns its empty list, set or
/// map into null before `PlanResourceChange`), and only a Terraform that
/// does so may plan one (`computed_blocks_allowed`).
fn left_to_provider(nb: &NestedBlock, config: &Value) -> bool {
    nb.block.computed && config.is_null()
}

impl<'a> Walk<'a> {
    pub(super) fn new(mode: Mode, forms: &'a Forms) -> Self {
        Walk {
            mode,
            trail: Trail::default(),
            replace: Vec::new(),
            forms,
            matched: HashMap::new(),
        }
    }

    /// Runs `walk` with the forms of the nested block or attribute `name`
    /// of the current object as the current ones.
    fn within<T>(
        &mut self,
        name: &str,
        walk: impl FnOnce(&mut Self) -> Planning<T>,
    ) -> Planning<T> {
        let outer = self.forms;
        self.forms = outer.nested(name).ok_or_else(|| {
            self.schema_error(&format!("{name:?} is not in the schema the plan was given"))
        })?;
        let out = walk(self);
        self.forms = outer;
        out
    }

    /// An error about the schema or the shape of the input, at the walk's
    /// place.
    pub(super) fn error(&self, summary: &str, detail: String) -> Diagnostic {
        Diagnostic::error(summary)
            .with_detail(detail)
            .at(self.trail.path())
    }

    pub(super) fn shape_error(&self, what: &str) -> Diagnostic {
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
    pub(super) fn object(
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
            let from = self.default_from(block, attr, config);
            let v = from.and_then(|from| {
                self.attribute(
                    attr,
                    prior.keep.is_some(),
                    prior.attr(&attr.name),
                    c,
                    from,
                    depth,
                )
            });
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
                    if attr.plan.requires_replace && replaces(attr, p.attr(&attr.name), v.as_ref())
                    {
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
            if left_to_provider(nb, c) {
                // As a computed attribute the configuration leaves null:
                // unknown, for the provider to set (the comparison pass has
                // already kept the prior when nothing changes).
                values.push(Some(Value::unknown(c.ty().clone())));
                names.push(&nb.name);
                continue;
            }
            self.trail.push(Step::Attr(&nb.name));
            let p = prior.attr(&nb.name);
            let v = self.within(&nb.name, |w| {
                w.nested(nb.nesting, &nb.block, p, c, depth + 1)
            });
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
    pub(super) fn attribute(
        &mut self,
        attr: &'a Attribute,
        has_keep: bool,
        prior: Prior<'a>,
        config: &'a Value,
        default_from: Option<&'a Value>,
        depth: usize,
    ) -> Planning<Option<Value>> {
        // A nested attribute's null configuration carries the attribute's
        // whole type; `ty` says it for the others.
        let declared = || match attr.nested {
            Some(_) => config.ty().clone(),
            None => attr.ty.clone(),
        };
        match self.rule(attr, config, default_from)? {
            Rule::WriteOnly => return Ok(Some(Value::null(declared()))),
            Rule::Config => {
                return Ok(Some(semantic::configured(attr, prior.pair, config).clone()))
            }
            Rule::Nested(n) => {
                return self.within(&attr.name, |w| w.nested_attribute(n, prior, config, depth))
            }
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

    /// Which rule plans `attr` given its configuration (and the default
    /// its `default_from` gives, [`default_from`](Self::default_from)):
    /// the one place both passes read it from.
    pub(super) fn rule(
        &self,
        attr: &'a Attribute,
        config: &Value,
        default_from: Option<&'a Value>,
    ) -> Planning<Rule<'a>> {
        if attr.write_only {
            return Ok(Rule::WriteOnly);
        }
        if !config.is_null() {
            return Ok(match &attr.nested {
                Some(n) => Rule::Nested(n),
                None => Rule::Config,
            });
        }
        if let Some(default) = attr.plan.default.as_ref().or(default_from) {
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
    pub(super) fn same_object(
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
            let from = self.default_from(block, attr, config);
            let same = from.and_then(|from| self.same_attribute(attr, p, c, from, depth));
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
            if left_to_provider(nb, c) {
                // The proposal keeps what the provider set before.
                if p.is_none() {
                    return Ok(false);
                }
                continue;
            }
            self.trail.push(Step::Attr(&nb.name));
            let same = self.within(&nb.name, |w| {
                w.same_nested(nb.nesting, &nb.block, p, c, depth + 1)
            });
            self.trail.pop();
            if !same? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub(super) fn same_attribute(
        &mut self,
        attr: &'a Attribute,
        prior: Option<&'a Value>,
        config: &'a Value,
        default_from: Option<&'a Value>,
        depth: usize,
    ) -> Planning<bool> {
        Ok(match self.rule(attr, config, default_from)? {
            Rule::WriteOnly => prior.is_some_and(Value::is_null),
            Rule::Config => prior == Some(semantic::configured(attr, prior, config)),
            Rule::Default(d) => prior == Some(d),
            Rule::Nested(n) => self.within(&attr.name, |w| {
                w.same_nested(n.nesting, &n.block, prior, config, depth + 1)
            })?,
            // The proposal keeps the prior value, unless core drops it.
            Rule::Computed => prior.is_some_and(|p| !configured_before(attr, p)),
        })
    }

    pub(super) fn nested_attribute(
        &mut self,
        nested: &'a Nested,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Option<Value>> {
        self.nested(nested.nesting, &nested.block, prior, config, depth + 1)
            .map(Some)
    }

    pub(super) fn check_default(
        &self,
        attr: &Attribute,
        default: &Value,
        declared: &Type,
    ) -> Planning<()> {
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

    /// The default `attr` takes from a sibling (`default_from`) in the
    /// object configured as `config`: the sibling's configured value, or
    /// its own default when the configuration leaves it null; `None` when
    /// neither is set (an unknown is a default not yet known). The source
    /// is read from the configuration, not the plan, so the default is
    /// what the user wrote (terraform-provider-random's `numeric`).
    pub(super) fn default_from(
        &self,
        block: &'a Block,
        attr: &Attribute,
        config: &'a Value,
    ) -> Planning<Option<&'a Value>> {
        let Some(name) = &attr.plan.default_from else {
            return Ok(None);
        };
        let Some(source) = block.attribute(name) else {
            return Err(self.schema_error(&format!(
                "{} defaults to the value of {name:?}, which is not an attribute beside it",
                attr.name
            )));
        };
        let c = config
            .attr(name)
            .ok_or_else(|| self.shape_error(&format!("no attribute {name:?}")))?;
        Ok(if c.is_null() {
            source.plan.default.as_ref()
        } else {
            Some(c)
        })
    }

    /// Gives each attribute planned as a sibling's value (`same_as`) that
    /// value, following a chain of them.
    pub(super) fn resolve_same_as(
        &self,
        block: &'a Block,
        values: &mut [Option<Value>],
    ) -> Planning<()> {
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

    pub(super) fn schema_error(&self, what: &str) -> Diagnostic {
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

    pub(super) fn collection_error(&self, e: &ctywire::Error) -> Diagnostic {
        self.error(
            "Cannot build the planned value",
            format!(
                "The planned elements of {} do not make one collection: {e}. This is a bug in the provider's schema or in ctywire-provider.",
                self.trail.shown()
            ),
        )
    }
}

/// Whether the change of the `requires_replace` attribute `attr` from
/// `prior` to `planned` replaces the object: any change does (an unknown
/// counts as one), unless its `replace_if` condition says otherwise.
fn replaces(attr: &Attribute, prior: Option<&Value>, planned: Option<&Value>) -> bool {
    if prior == planned {
        return false;
    }
    let Some(rule) = &attr.plan.replace_if else {
        return true;
    };
    let null = Value::null(attr.ty.clone());
    rule.replaces(prior.unwrap_or(&null), planned.unwrap_or(&null))
}

/// Core's `optionalValueNotComputable`: whether a prior value of an
/// optional nested attribute holds a value only configuration can set (a
/// non-null attribute that is not computed), at any depth.
pub(super) fn configured_before(attr: &Attribute, prior: &Value) -> bool {
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
