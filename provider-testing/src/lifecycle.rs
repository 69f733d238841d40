//! A resource's `lifecycle` block as core honours it (hashicorp/terraform
//! v1.11, `internal/terraform`): `create_before_destroy`,
//! `prevent_destroy` (`NodeAbstractResourceInstance.checkPreventDestroy`),
//! `ignore_changes` (`NodeAbstractResource.processIgnoreChanges`, applied
//! to the configuration before `ProposedNew`), and `replace_triggered_by`
//! (`NodePlannableResourceInstance.replaceTriggered` with
//! `BuiltinEvalContext.EvaluateReplaceTriggeredBy`: a replace forced when
//! a referenced resource, or its attribute, has an update or a replace
//! planned).

use ctywire::schema::{Attribute, Block};
use ctywire::{Path, PathStep, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use hcl::expr::{Expression, TraversalOperator};
use serde_json::Value as Json;

use crate::config::UnknownScope;
use crate::core::{Change, ChangeAction};
use crate::eval::evaluate;
use crate::instances::{instance_address, resource_of, InstanceKey, Repeated, Repetition};
use crate::triggers::{self, ActionTrigger};
use crate::{Body, Harness};

/// What a resource's `lifecycle` block says, and for one instance whether
/// `replace_triggered_by` forces its replacement.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lifecycle {
    pub create_before_destroy: bool,
    pub prevent_destroy: bool,
    /// `ignore_changes = all`.
    pub ignore_all: bool,
    pub ignore_changes: Vec<Path>,
    /// `replace_triggered_by`'s expressions.
    pub triggers: Vec<Expression>,
    /// Set per instance: a trigger fired (`forceReplace`).
    pub force_replace: bool,
    /// The `action_trigger` blocks.
    pub action_triggers: Vec<ActionTrigger>,
}

fn invalid(address: &str, what: &str, why: impl std::fmt::Display) -> Diagnostics {
    Diagnostics::from(
        Diagnostic::error(format!("Invalid {what}"))
            .with_detail(format!("{address}: lifecycle.{what}: {why}")),
    )
}

/// A lifecycle expression as written: JSON syntax writes a reference as a
/// string (`"tags"`), the HCL reader as a template of it (`"${tags}"`).
fn expression(address: &str, what: &str, v: &Json) -> Result<Expression, Diagnostics> {
    let Some(text) = v.as_str() else {
        return Err(invalid(address, what, "each element is a reference"));
    };
    let text = match text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
        Some(inner) => inner,
        None => text,
    };
    text.parse::<Expression>()
        .map_err(|e| invalid(address, what, format!("{text:?} is not a reference: {e}")))
}

fn elements<'j>(address: &str, what: &str, v: &'j Json) -> Result<&'j [Json], Diagnostics> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(address, what, "a list of references"))
}

/// `traversalToPath`: `tags["env"]` → `.tags["env"]`.
fn traversal_path(address: &str, e: &Expression) -> Result<Path, Diagnostics> {
    let (root, ops): (&str, &[TraversalOperator]) = match e {
        Expression::Variable(v) => (v.as_str(), &[]),
        Expression::Traversal(t) => match &t.expr {
            Expression::Variable(v) => (v.as_str(), t.operators.as_slice()),
            _ => {
                return Err(invalid(
                    address,
                    "ignore_changes",
                    "each element is an attribute path",
                ))
            }
        },
        _ => {
            return Err(invalid(
                address,
                "ignore_changes",
                "each element is an attribute path",
            ))
        }
    };
    let mut path = Path::root().attr(root);
    for op in ops {
        path = match op {
            TraversalOperator::GetAttr(n) => path.attr(n.as_str()),
            TraversalOperator::LegacyIndex(i) => path.index(*i),
            TraversalOperator::Index(Expression::Number(n)) => match n.as_u64() {
                Some(i) => path.index(i),
                None => {
                    return Err(invalid(
                        address,
                        "ignore_changes",
                        "an index is a whole number",
                    ))
                }
            },
            TraversalOperator::Index(Expression::String(s)) => path.key(s.as_str()),
            _ => {
                return Err(invalid(
                    address,
                    "ignore_changes",
                    "a path has attributes and literal indexes only",
                ))
            }
        };
    }
    Ok(path)
}

impl Harness {
    /// The `lifecycle` block of the resource `resource`.
    pub(crate) fn lifecycle(&self, resource: &str) -> Result<Lifecycle, Diagnostics> {
        let mut lc = Lifecycle::default();
        let Some(Json::Object(l)) = (self.resources.get(resource))
            .and_then(Body::json)
            .and_then(|b| b.get("lifecycle"))
        else {
            return Ok(lc);
        };
        for (key, v) in l {
            match key.as_str() {
                "//" => {}
                "create_before_destroy" | "prevent_destroy" => {
                    let b = v
                        .as_bool()
                        .ok_or_else(|| invalid(resource, key, "a literal true or false"))?;
                    match key.as_str() {
                        "create_before_destroy" => lc.create_before_destroy = b,
                        _ => lc.prevent_destroy = b,
                    }
                }
                "ignore_changes" => {
                    if matches!(v.as_str(), Some("all" | "${all}")) {
                        lc.ignore_all = true;
                        continue;
                    }
                    for e in elements(resource, key, v)? {
                        let e = expression(resource, key, e)?;
                        lc.ignore_changes.push(traversal_path(resource, &e)?);
                    }
                }
                "replace_triggered_by" => {
                    for e in elements(resource, key, v)? {
                        lc.triggers.push(expression(resource, key, e)?);
                    }
                }
                "action_trigger" => lc.action_triggers = triggers::parse(self, resource, v)?,
                other => {
                    return Err(Diagnostics::error(format!(
                        "{resource}: the harness does not support lifecycle.{other}"
                    )))
                }
            }
        }
        Ok(lc)
    }

    /// The resources `replace_triggered_by` refers to (dependencies, as
    /// core's `References` counts them).
    pub(crate) fn trigger_resources(&self, resource: &str) -> Vec<String> {
        let Ok(lc) = self.lifecycle(resource) else {
            return Vec::new();
        };
        (lc.triggers.iter())
            .filter_map(|e| trigger_parts(e).map(|(r, _)| r))
            .collect()
    }

    /// `replaceTriggered`: whether a trigger of this instance fires, given
    /// the changes planned so far (all the triggers' resources').
    pub(crate) fn replace_triggered(
        &self,
        address: &str,
        lc: &Lifecycle,
        rep: &Repetition,
        changes: &[Change],
    ) -> Result<bool, Diagnostics> {
        for e in &lc.triggers {
            let bad = || {
                invalid(address, "replace_triggered_by", "each element is a reference to a managed resource, an instance of it, or an attribute of one")
            };
            let (resource, ops) = trigger_parts(e).ok_or_else(bad)?;
            if !self.resources.contains_key(&resource) {
                return Err(Diagnostic::error("Reference to undeclared resource")
                    .with_detail(format!(
                        "A resource {resource} has not been declared in the root module"
                    ))
                    .into());
            }
            // `kv_entry.a[count.index]`: the key evaluated with this
            // instance's repetition data.
            let (instance, rest) = match ops.first() {
                Some(TraversalOperator::Index(k)) => {
                    let scope = Repeated {
                        inner: &UnknownScope,
                        rep,
                    };
                    let key = evaluate(k, &scope).map_err(|e| {
                        Diagnostics::from(Diagnostic::error(e.summary).with_detail(e.detail))
                    })?;
                    let key = InstanceKey::from_value(&key.value).ok_or_else(bad)?;
                    (Some(instance_address(&resource, Some(&key))), &ops[1..])
                }
                Some(TraversalOperator::LegacyIndex(i)) => (
                    Some(instance_address(&resource, Some(&InstanceKey::Int(*i)))),
                    &ops[1..],
                ),
                _ => (None, ops),
            };
            let acting = |c: &&Change| {
                matches!(
                    c.action,
                    ChangeAction::Update
                        | ChangeAction::DeleteThenCreate
                        | ChangeAction::CreateThenDelete
                )
            };
            let mine: Vec<&Change> = changes
                .iter()
                .filter(|c| match &instance {
                    Some(i) => &c.address == i,
                    None => resource_of(&c.address) == resource,
                })
                .collect();
            if rest.is_empty() {
                if mine.iter().any(acting) {
                    return Ok(true);
                }
                continue;
            }
            // An attribute: only an instance's, and only when it changes.
            let Some(change) = mine.first().copied().filter(acting) else {
                continue;
            };
            let mut path = Path::root();
            for op in rest {
                path = match op {
                    TraversalOperator::GetAttr(n) => path.attr(n.as_str()),
                    TraversalOperator::LegacyIndex(i) => path.index(*i),
                    TraversalOperator::Index(Expression::Number(n)) => {
                        path.index(n.as_u64().ok_or_else(bad)?)
                    }
                    TraversalOperator::Index(Expression::String(s)) => path.key(s.as_str()),
                    _ => return Err(bad()),
                };
            }
            let fired = match (change.before.get(&path), change.after.get(&path)) {
                (Ok(b), Ok(a)) => b != a,
                (Err(_), Err(_)) => false,
                _ => true,
            };
            if fired {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A trigger's resource (`TYPE.NAME`) and the traversal after it.
fn trigger_parts(e: &Expression) -> Option<(String, &[TraversalOperator])> {
    let Expression::Traversal(t) = e else {
        return None;
    };
    let (Expression::Variable(ty), Some(TraversalOperator::GetAttr(name))) =
        (&t.expr, t.operators.first())
    else {
        return None;
    };
    Some((
        format!("{}.{}", ty.as_str(), name.as_str()),
        &t.operators[1..],
    ))
}

/// `checkPreventDestroy`: a delete or replace of an instance whose
/// resource sets `prevent_destroy` is refused.
pub(crate) fn check_prevent_destroy(lc: &Lifecycle, change: &Change) -> Result<(), Diagnostics> {
    if lc.prevent_destroy && (change.action == ChangeAction::Delete || change.action.is_replace()) {
        return Err(Diagnostic::error("Instance cannot be destroyed")
            .with_detail(format!(
                "Resource {} has lifecycle.prevent_destroy set, but the plan calls for this resource to be destroyed. To avoid this error and continue with the plan, either disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target option.",
                change.address
            ))
            .into());
    }
    Ok(())
}

/// `processIgnoreChanges`: the configuration with the ignored parts taken
/// from the prior object (for `all`, the whole prior object, its
/// computed-only attributes null as a configuration has them). Nothing is
/// ignored while there is no prior object.
pub(crate) fn ignore_changes(
    lc: &Lifecycle,
    block: &Block,
    prior: &Value,
    config: &Value,
) -> Value {
    if prior.is_null() || config.is_null() {
        return config.clone();
    }
    if lc.ignore_all {
        return prior
            .clone()
            .transform(|path, v| {
                Ok(match attribute_by_path(block, path) {
                    Some(a) if a.computed && !a.optional => Value::null(v.ty().clone()),
                    _ => v,
                })
            })
            .unwrap_or_else(|_| prior.clone());
    }
    let mut out = config.clone();
    for p in &lc.ignore_changes {
        // processIgnoreChangesIndividual: a trailing map key ignores that
        // key of the map only.
        let mut path = p.clone();
        let key = match path.steps().last() {
            Some(PathStep::Key(k)) => {
                let k = k.clone();
                path.pop();
                Some(k)
            }
            _ => None,
        };
        let (Ok(before), Ok(now)) = (prior.get(&path), config.get(&path)) else {
            continue;
        };
        if before == now {
            continue;
        }
        let kept = match (&key, now.ty()) {
            (Some(k), ctywire::Type::Map(elem)) if now.is_known() => {
                let mut entries: Vec<(String, Value)> = (now.entries().into_iter().flatten())
                    .map(|(k, v)| (k.to_owned(), v.clone()))
                    .filter(|(x, _)| x != k)
                    .collect();
                if let Some(v) = before.entry(k) {
                    entries.push((k.clone(), v.clone()));
                }
                match Value::map((**elem).clone(), entries) {
                    Ok(m) => m,
                    Err(_) => continue,
                }
            }
            (Some(_), _) if !now.is_known() => continue,
            _ => before.clone(),
        };
        if let Ok(v) = out.with(&path, kept) {
            out = v;
        }
    }
    out
}

/// `configschema.Block.AttributeByPath`: the attribute a path names,
/// through nested blocks and nested attributes (indexes skipped).
fn attribute_by_path<'b>(block: &'b Block, path: &Path) -> Option<&'b Attribute> {
    let mut block = Some(block);
    let mut attrs: Option<&'b [Attribute]> = None;
    let mut found = None;
    for step in path.steps() {
        let PathStep::Attr(name) = step else {
            continue;
        };
        found = None;
        if let Some(a) = attrs.and_then(|a| a.iter().find(|a| &a.name == name)) {
            found = Some(a);
            attrs = a.nested_type.as_ref().map(|o| o.attributes.as_slice());
            block = None;
            continue;
        }
        let b = block?;
        if let Some(a) = b.find_attribute(name) {
            found = Some(a);
            attrs = a.nested_type.as_ref().map(|o| o.attributes.as_slice());
            block = None;
        } else {
            block = Some(&b.find_block_type(name)?.block);
            attrs = None;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctywire::Type;

    fn obj(name: &str, tags: &[(&str, &str)], id: &str) -> Value {
        Value::object([
            ("name", Value::string(name)),
            (
                "tags",
                Value::map(
                    Type::String,
                    tags.iter()
                        .map(|(k, v)| (*k, Value::string(*v)))
                        .collect::<Vec<_>>(),
                )
                .unwrap(),
            ),
            ("id", Value::string(id)),
        ])
    }

    fn block() -> Block {
        Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("tags", Type::map(Type::String)).optional())
            .attribute(Attribute::new("id", Type::String).computed())
    }

    #[test]
    fn ignored_attributes_and_map_keys_keep_their_prior_values() {
        let prior = obj("a", &[("env", "test"), ("team", "x")], "1");
        let config = obj("b", &[("env", "prod"), ("team", "y")], "1");
        let lc = Lifecycle {
            ignore_changes: vec![
                Path::root().attr("name"),
                Path::root().attr("tags").key("env"),
            ],
            ..Lifecycle::default()
        };
        let got = ignore_changes(&lc, &block(), &prior, &config);
        assert_eq!(got, obj("a", &[("env", "test"), ("team", "y")], "1"));
        // Nothing is ignored at create.
        let null = Value::null(prior.ty().clone());
        assert_eq!(ignore_changes(&lc, &block(), &null, &config), config);
    }

    #[test]
    fn ignoring_all_takes_the_prior_object_without_its_computed_only_attributes() {
        let prior = obj("a", &[], "1");
        let lc = Lifecycle {
            ignore_all: true,
            ..Lifecycle::default()
        };
        let got = ignore_changes(&lc, &block(), &prior, &obj("b", &[], ""));
        assert_eq!(got.attr("name"), Some(&Value::string("a")));
        assert!(got.attr("id").is_some_and(Value::is_null));
    }
}
