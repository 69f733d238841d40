//! Actions triggered from a managed resource's lifecycle (Terraform 1.14+):
//! `lifecycle { action_trigger { events = [...], condition = ...,
//! actions = [...] } }`, as core runs them (hashicorp/terraform
//! v1.17.0-alpha20260812): the block read by `configs/action.go`
//! (`decodeActionTriggerBlock`), the invocations planned with the
//! resource's change (`node_resource_abstract_instance.go`,
//! `planActionTriggers`, `planActionTrigger`; which events a change fires,
//! `node_resource_plan_instance.go`, `eventsForPlannedAction`), and invoked
//! around the resource's apply (`node_resource_apply_instance.go`: the
//! `before_*` ones before `apply`, the `after_*` ones after it, through
//! `invokeActions`, the condition evaluated again). See
//! `SPEC-list-and-actions.md`, rules T1–T6.

use std::collections::BTreeMap;

use ctywire::{Path, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::{json, Map, Value as Json};

use crate::config::{evaluate_json, references, ApplyScope, Decoded, PlanScope, Scope};
use crate::core::{Change, ChangeAction, Stored};
use crate::data::DataValues;
use crate::instances::{by_resource, resource_of, Repeated, Repetition};
use crate::lifecycle::Lifecycle;
use crate::{show, split, Harness};

/// A lifecycle event an `action_trigger` names (`configs.ActionTriggerEvent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    BeforeCreate,
    AfterCreate,
    BeforeUpdate,
    AfterUpdate,
}

impl Event {
    /// The keyword the configuration writes.
    fn keyword(self) -> &'static str {
        match self {
            Event::BeforeCreate => "before_create",
            Event::AfterCreate => "after_create",
            Event::BeforeUpdate => "before_update",
            Event::AfterUpdate => "after_update",
        }
    }

    /// The name `show -json` gives it (the Go enum's `String()`).
    fn show_name(self) -> &'static str {
        match self {
            Event::BeforeCreate => "BeforeCreate",
            Event::AfterCreate => "AfterCreate",
            Event::BeforeUpdate => "BeforeUpdate",
            Event::AfterUpdate => "AfterUpdate",
        }
    }

    fn is_before(self) -> bool {
        matches!(self, Event::BeforeCreate | Event::BeforeUpdate)
    }

    /// `eventsForPlannedAction`: a create (or the create of a replace)
    /// fires the create events, an update the update events.
    fn fired_by(self, action: ChangeAction) -> bool {
        match self {
            Event::BeforeCreate | Event::AfterCreate => {
                action == ChangeAction::Create || action.is_replace()
            }
            Event::BeforeUpdate | Event::AfterUpdate => action == ChangeAction::Update,
        }
    }
}

/// One `action_trigger` block.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActionTrigger {
    events: Vec<Event>,
    condition: Option<Json>,
    /// The actions' addresses (`action.TYPE.NAME`), in order.
    actions: Vec<String>,
}

/// An invocation planned for a resource instance's change
/// (`plans.ActionInvocationInstance` with its `ResourceActionTrigger`).
#[derive(Clone, Debug)]
pub(crate) struct Invocation {
    action: String,
    type_name: String,
    /// The triggering resource instance.
    resource: String,
    event: Event,
    block: usize,
    index: usize,
    config: Value,
    /// The paths its references marked sensitive.
    marks: Vec<Path>,
}

/// An action a resource's lifecycle invoked during an apply, with the
/// progress it reported (core hands each message to the `ProgressAction`
/// hook).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Triggered {
    /// The action's address, `action.TYPE.NAME`.
    pub action: String,
    /// The resource instance whose lifecycle triggered it.
    pub resource: String,
    /// The event, as the configuration writes it (`after_create`).
    pub event: &'static str,
    /// Its progress messages, in order.
    pub progress: Vec<String>,
}

fn invalid(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostics {
    Diagnostic::error(summary).with_detail(detail).into()
}

/// A keyword or reference as JSON syntax writes it (`"before_create"`) or
/// the HCL reader hands it on (`"${before_create}"`).
fn bare(v: &Json) -> Option<&str> {
    let text = v.as_str()?;
    Some(
        text.strip_prefix("${")
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or(text),
    )
}

fn elements<'j>(resource: &str, key: &str, v: &'j Json) -> Result<&'j [Json], Diagnostics> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| {
        invalid(
            "Invalid expression",
            format!("{resource}: action_trigger.{key}: a list is required"),
        )
    })
}

/// `decodeActionTriggerBlock`: the blocks of `lifecycle.action_trigger`
/// (one object, or a list of them).
pub(crate) fn parse(
    h: &Harness,
    resource: &str,
    v: &Json,
) -> Result<Vec<ActionTrigger>, Diagnostics> {
    let blocks: Vec<&Json> = match v {
        Json::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    blocks
        .into_iter()
        .map(|b| parse_one(h, resource, b))
        .collect()
}

fn parse_one(h: &Harness, resource: &str, v: &Json) -> Result<ActionTrigger, Diagnostics> {
    let Json::Object(body) = v else {
        return Err(invalid(
            "Invalid action_trigger block",
            format!("{resource}: lifecycle.action_trigger is a block"),
        ));
    };
    let mut t = ActionTrigger::default();
    for (key, v) in body {
        match key.as_str() {
            "//" => {}
            "condition" => t.condition = Some(v.clone()),
            "events" => {
                for e in elements(resource, key, v)? {
                    let keyword = bare(e).unwrap_or_default();
                    let event = match keyword {
                        "before_create" => Event::BeforeCreate,
                        "after_create" => Event::AfterCreate,
                        "before_update" => Event::BeforeUpdate,
                        "after_update" => Event::AfterUpdate,
                        "before_destroy" | "after_destroy" => {
                            return Err(Diagnostics::error(format!(
                                "{resource}: the harness does not support the {keyword} event"
                            )))
                        }
                        _ => return Err(invalid(
                            format!("Invalid \"event\" value {keyword}"),
                            "The \"event\" argument supports the following values: before_create, after_create, before_update, after_update, before_destroy, after_destroy.",
                        )),
                    };
                    if t.events.contains(&event) {
                        return Err(invalid(
                            format!("Duplicate {keyword:?} event"),
                            "The event is already defined in this action_trigger block.",
                        ));
                    }
                    t.events.push(event);
                }
            }
            "actions" => {
                for a in elements(resource, key, v)? {
                    t.actions.push(action_reference(h, bare(a).unwrap_or_default())?);
                }
            }
            "on_failure" => match bare(v) {
                Some("halt") => {}
                Some(other @ ("taint" | "continue")) => {
                    return Err(Diagnostics::error(format!(
                        "{resource}: the harness does not support on_failure = {other}"
                    )))
                }
                _ => return Err(invalid(
                    "Invalid \"on_failure\" keyword",
                    "The \"on_failure\" argument requires one of the following keywords: halt, taint or continue.",
                )),
            },
            other => {
                return Err(invalid(
                    "Unsupported argument",
                    format!("An argument named {other:?} is not expected here."),
                ))
            }
        }
    }
    if t.actions.is_empty() {
        return Err(invalid(
            "No actions specified",
            "At least one action must be specified for an action_trigger.",
        ));
    }
    if t.events.is_empty() {
        return Err(invalid(
            "No events specified",
            "At least one event must be specified for an action_trigger.",
        ));
    }
    Ok(t)
}

/// An element of `actions`: an action of this configuration. An instance
/// of one (`action.T.N[0]`) would need the action's `count` or
/// `for_each`, which the harness refuses.
fn action_reference(h: &Harness, text: &str) -> Result<String, Diagnostics> {
    let parts: Vec<&str> = text.split('.').collect();
    let ["action", type_name, name] = parts.as_slice() else {
        return Err(invalid(
            "Invalid action argument inside action_triggers",
            "action_triggers.actions must only refer to actions in the current module, count.index, or each.key.",
        ));
    };
    let plain = |s: &str| !s.is_empty() && !s.contains(['[', ']', '(', ')', ' ']);
    if !plain(type_name) || !plain(name) {
        return Err(Diagnostics::error(format!(
            "{text}: the harness does not support instances of actions (count and for_each on an action block)"
        )));
    }
    h.action_block(text)?;
    Ok(text.to_owned())
}

impl Harness {
    /// The resources the actions a resource's lifecycle triggers refer to:
    /// the resource's apply evaluates their configuration, so it comes
    /// after them (core's action nodes are referencers in the graph).
    pub(crate) fn action_trigger_references(&self, resource: &str) -> Vec<String> {
        let Ok(lc) = self.lifecycle(resource) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for action in lc.action_triggers.iter().flat_map(|t| &t.actions) {
            if let Some(config) = self.actions.get(action).and_then(|b| b.get("config")) {
                // One referring to the triggering resource reads its new
                // object (core warns it should use `caller`): no cycle.
                let refs = references(config, &self.locals).unwrap_or_default();
                out.extend(refs.into_iter().filter(|r| r != resource));
            }
        }
        out
    }

    /// `planActionTriggers`: for each `action_trigger` whose condition is
    /// not known to be false, an invocation per event the change fires
    /// and per action listed, each action's configuration validated and
    /// planned (`PlanAction`) with what the plan knows (`scope`).
    /// `planned` is what the walk planned before this resource,
    /// `instances` its instances planned so far, this one's change with
    /// them: core writes the change before it plans the triggers, so an
    /// action may read the object that triggers it.
    pub(crate) fn plan_action_triggers(
        &self,
        triggers: &[ActionTrigger],
        change: &Change,
        planned: &BTreeMap<String, (Value, Vec<Path>)>,
        instances: &BTreeMap<String, (Value, Vec<Path>)>,
        rep: &Repetition,
        warnings: &mut Diagnostics,
    ) -> Result<Vec<Invocation>, Diagnostics> {
        let resource = resource_of(&change.address);
        let mut planned = planned.clone();
        planned.extend(
            by_resource(self, instances)
                .into_iter()
                .filter(|(a, _)| a == resource),
        );
        let scope = PlanScope {
            harness: self,
            planned: &planned,
        };
        let condition_scope = Repeated { inner: &scope, rep };
        let mut out = Vec::new();
        for (block, t) in triggers.iter().enumerate() {
            if !condition_holds(t, &condition_scope, &change.address, true)? {
                continue;
            }
            for event in (t.events.iter().copied()).filter(|e| e.fired_by(change.action)) {
                for (index, action) in t.actions.iter().enumerate() {
                    self.validate_action_block(action, warnings)?;
                    let (
                        type_name,
                        Decoded {
                            value: config,
                            marks,
                        },
                        ty,
                    ) = self.action_config(action, &scope)?;
                    let d = (self.client).plan_action(&type_name, &config, &ty)?;
                    split(d, warnings)?;
                    out.push(Invocation {
                        action: action.clone(),
                        type_name,
                        resource: change.address.clone(),
                        event,
                        block,
                        index,
                        config,
                        marks,
                    });
                }
            }
        }
        Ok(out)
    }

    /// `invokeActions`: the planned invocations of `resource` for the
    /// `before_*` events (`before`) or the `after_*` ones, in plan order;
    /// each condition evaluated again (false: skipped), the configuration
    /// evaluated again with what the apply knows (`scope`) and invoked.
    /// The first error stops the apply (`on_failure = halt`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn invoke_action_triggers(
        &self,
        planned: &[Invocation],
        lifecycle: &Lifecycle,
        resource: &str,
        rep: &Repetition,
        before: bool,
        working: &BTreeMap<String, Stored>,
        data: &DataValues,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        let scope = ApplyScope {
            harness: self,
            working,
            data,
        };
        let condition_scope = Repeated { inner: &scope, rep };
        let triggers = &lifecycle.action_triggers;
        let mine =
            (planned.iter()).filter(|i| i.resource == resource && i.event.is_before() == before);
        for inv in mine {
            let Some(t) = triggers.get(inv.block) else {
                continue;
            };
            if !condition_holds(t, &condition_scope, resource, false)? {
                continue;
            }
            let (type_name, config, ty) = self.action_config(&inv.action, &scope)?;
            let config = config.value;
            if !config.is_wholly_known() {
                return Err(invalid(
                    "Action configuration unknown during apply",
                    format!("The action {} was not fully known during apply. This may be caused by using the caller object in conjunction with a before event.", inv.action),
                ));
            }
            let (progress, d) = (self.client).invoke_action(&type_name, &config, &ty)?;
            if let Ok(mut log) = self.triggered.lock() {
                log.push(Triggered {
                    action: inv.action.clone(),
                    resource: resource.to_owned(),
                    event: inv.event.keyword(),
                    progress,
                });
            }
            split(d, warnings)?;
        }
        Ok(())
    }

    /// The actions the last apply's resources triggered, in the order they
    /// were invoked, with their progress messages.
    pub fn triggered(&self) -> Vec<Triggered> {
        self.triggered.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// A trigger's `condition`: absent is true; at plan an unknown one plans
/// the invocation (only a known false skips it); at apply it must be known
/// ("Unknown condition when invoking action before apply").
fn condition_holds(
    t: &ActionTrigger,
    scope: &dyn Scope,
    resource: &str,
    planning: bool,
) -> Result<bool, Diagnostics> {
    let Some(condition) = &t.condition else {
        return Ok(true);
    };
    let v = evaluate_json(condition, scope)?.value;
    if !v.is_known() {
        if planning {
            return Ok(true);
        }
        return Err(invalid(
            "Unknown condition when invoking action before apply",
            "The action trigger condition must be known before it can be invoked.",
        ));
    }
    match v.convert(&ctywire::Type::Bool) {
        Ok(b) if b.as_bool() == Some(true) => Ok(true),
        Ok(b) if b.as_bool() == Some(false) => Ok(false),
        _ => Err(invalid(
            "Incorrect value type",
            format!("{resource}: action_trigger.condition: a bool is required"),
        )),
    }
}

/// `show -json`'s `action_invocations` (jsonplan's
/// `MarshalActionInvocation`), in `ActionInvocationCompare`'s order:
/// triggering resource, then block index, then list index.
pub(crate) fn invocations_json(h: &Harness, planned: &[Invocation]) -> Json {
    let mut sorted: Vec<&Invocation> = planned.iter().collect();
    sorted.sort_by(|a, b| {
        (crate::core::address_order(&a.resource), a.block, a.index).cmp(&(
            crate::core::address_order(&b.resource),
            b.block,
            b.index,
        ))
    });
    let out: Vec<Json> = sorted
        .into_iter()
        .map(|i| {
            let name = i.action.rsplit('.').next().unwrap_or_default();
            let mut o = Map::new();
            o.insert("address".into(), json!(i.action));
            o.insert("type".into(), json!(i.type_name));
            o.insert("name".into(), json!(name));
            if let Some(v) = show::omit_unknowns(&i.config) {
                o.insert("config_values".into(), show::to_tagged(&v));
            }
            // Its references' marks and the schema's sensitive attributes.
            let mut marks = i.marks.clone();
            if let Ok((_, _, schema)) = h.action_block(&i.action) {
                marks.extend(crate::core::sensitive_paths(
                    &schema.schema.block,
                    &i.config,
                ));
            }
            o.insert(
                "config_sensitive".into(),
                show::sensitive_as_bool(&i.config, &marks),
            );
            o.insert("config_unknown".into(), show::unknown_as_bool(&i.config));
            o.insert("provider_name".into(), json!(h.provider));
            o.insert(
                "lifecycle_action_trigger".into(),
                json!({
                    "triggering_resource_address": i.resource,
                    "action_trigger_event": i.event.show_name(),
                    "action_trigger_block_index": i.block,
                    "actions_list_index": i.index,
                    "on_failure": "ActionOnFailureHalt",
                }),
            );
            Json::Object(o)
        })
        .collect();
    Json::Array(out)
}
