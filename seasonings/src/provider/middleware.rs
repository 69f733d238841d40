//! Middleware on a saved plan (§7, level 1): the plan's JSON (`terraform
//! show -json PLANFILE`) read into resource changes, each handed to the
//! plugin's `hooks.prePlan` and `hooks.postPlan`, then the whole plan to
//! `hooks.planStageCompleted`. What the `ctywire-seasonings middleware`
//! command runs in CI, before `terraform apply PLANFILE`.
//!
//! A plan's JSON carries values without their types, so each value is
//! given the type its JSON implies (objects, tuples, strings, exact
//! numbers, bools; null is a null of type dynamic), with the plan's
//! `after_unknown` marks as unknowns; it reaches the plugin at `dynamic`,
//! carrying that type (§3.1).

use ctywire::DecodeOptions;
use ctywire::{Number, PathStep, Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::Json;

use crate::host::{ErrorKind, Plugin, PluginError};
use crate::msgpack as mp;
use crate::protocol::{method, Capability, Fields};

/// One entry of the plan's `resource_changes`.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceChange {
    /// `aws_instance.web[0]`, `module.m.data.x.y`.
    pub address: String,
    /// `managed` or `data`.
    pub mode: String,
    /// The resource type (`aws_instance`).
    pub resource_type: String,
    /// The resource's name in its block (`web`).
    pub name: String,
    /// The provider's address (`registry.terraform.io/hashicorp/aws`).
    pub provider: String,
    /// §7's `planned_action`: `create`, `update`, `delete`, `replace`,
    /// `read` or `no-op`.
    pub action: &'static str,
    /// The prior state (null when creating).
    pub before: Value,
    /// The planned state, unknowns as unknowns (null when deleting).
    pub after: Value,
}

/// Reads a plan's JSON: its resource changes, in the plan's order. A
/// document that is not a plan (a state's JSON, say) is refused.
pub fn read_plan(text: &[u8]) -> Result<Vec<ResourceChange>, ctywire::Error> {
    let doc = Json::parse_with(text, &DecodeOptions::default())?;
    let Some(plan) = doc.as_object() else {
        return Err(ctywire::Error::data(format!(
            "a plan's JSON is an object, not {}",
            doc.kind()
        )));
    };
    if !plan.contains_key("planned_values") {
        return Err(ctywire::Error::data(
            "this JSON has no planned_values: not a plan (`terraform show -json PLANFILE` writes one)",
        ));
    }
    let Some(changes) = plan.get("resource_changes") else {
        // Terraform leaves the key out when nothing would change.
        return Ok(Vec::new());
    };
    let changes = array(changes).map_err(|e| e.under(attr("resource_changes")))?;
    changes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            resource_change(c)
                .map_err(|e| e.under(PathStep::Index(i as u64)))
                .map_err(|e| e.under(attr("resource_changes")))
        })
        .collect()
}

fn resource_change(c: &Json) -> Result<ResourceChange, ctywire::Error> {
    let text = |key: &str| -> Result<String, ctywire::Error> {
        c.get(key)
            .and_then(Json::as_str)
            .map(str::to_string)
            .ok_or_else(|| ctywire::Error::data("a string is required here").under(attr(key)))
    };
    let change = c
        .get("change")
        .filter(|ch| ch.as_object().is_some())
        .ok_or_else(|| ctywire::Error::data("an object is required here").under(attr("change")))?;
    let under_change = |e: ctywire::Error| e.under(attr("change"));
    let actions: Vec<&str> = array(change.get("actions").unwrap_or(&Json::Null))
        .and_then(|a| {
            a.iter()
                .map(|s| {
                    s.as_str()
                        .ok_or_else(|| ctywire::Error::data("not a string"))
                })
                .collect()
        })
        .map_err(|e| under_change(e.under(attr("actions"))))?;
    let action = match actions.as_slice() {
        ["create"] => "create",
        ["update"] => "update",
        ["delete"] => "delete",
        ["read"] => "read",
        ["no-op"] => "no-op",
        ["delete", "create"] | ["create", "delete"] => "replace",
        other => {
            return Err(under_change(
                ctywire::Error::data(format!("unknown actions {other:?}")).under(attr("actions")),
            ))
        }
    };
    let value = |key: &str, unknown: Option<&Json>| {
        implied_value(change.get(key).unwrap_or(&Json::Null), unknown)
            .map_err(|e| under_change(e.under(attr(key))))
    };
    Ok(ResourceChange {
        address: text("address")?,
        mode: text("mode")?,
        resource_type: text("type")?,
        name: text("name")?,
        provider: text("provider_name")?,
        action,
        before: value("before", None)?,
        after: value("after", change.get("after_unknown"))?,
    })
}

fn attr(name: &str) -> PathStep {
    PathStep::Attr(name.to_string())
}

fn array(j: &Json) -> Result<&Vec<Json>, ctywire::Error> {
    j.as_array()
        .ok_or_else(|| ctywire::Error::data(format!("an array is required here, not {}", j.kind())))
}

/// `j` at the type it implies, unknown where `unknown` (the plan's
/// `after_unknown`, the same shape as `j`) is `true`. Depth is bounded by
/// the JSON reader's.
fn implied_value(j: &Json, unknown: Option<&Json>) -> Result<Value, ctywire::Error> {
    if unknown.and_then(Json::as_bool) == Some(true) {
        return Ok(Value::unknown(Type::Dynamic));
    }
    Ok(match j {
        Json::Null => Value::null(Type::Dynamic),
        Json::Bool(b) => Value::bool(*b),
        Json::String(s) => Value::string(s.clone()),
        Json::Number(n) => Value::number(Number::parse(n.as_str())?),
        Json::Array(items) => {
            // Unknown elements may lie past the known ones' end.
            let marks = unknown.and_then(Json::as_array);
            let len = items.len().max(marks.map_or(0, Vec::len));
            let elements = (0..len)
                .map(|i| {
                    implied_value(
                        items.get(i).unwrap_or(&Json::Null),
                        marks.and_then(|m| m.get(i)),
                    )
                    .map_err(|e| e.under(PathStep::Index(i as u64)))
                })
                .collect::<Result<_, _>>()?;
            Value::tuple(elements)
        }
        Json::Object(o) => {
            let marks = unknown.and_then(Json::as_object);
            let mut attrs = o
                .iter()
                .map(|(k, v)| {
                    let mark = marks.and_then(|m| m.get(k));
                    Ok((
                        k.to_string(),
                        implied_value(v, mark).map_err(|e| e.under(attr(k)))?,
                    ))
                })
                .collect::<Result<Vec<_>, ctywire::Error>>()?;
            // An attribute unknown in full may be missing from the value.
            for (k, mark) in marks.into_iter().flat_map(|m| m.iter()) {
                if !o.contains_key(k) {
                    attrs.push((k.to_string(), implied_value(&Json::Null, Some(mark))?));
                }
            }
            Value::object(attrs)
        }
    })
}

/// A hook's answer about one resource or (no address) the whole plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The hook that answered (`hooks.postPlan`).
    pub hook: &'static str,
    /// The resource's address; `None` for the whole plan.
    pub address: Option<String>,
    /// Whether the hook failed the plan.
    pub fail: bool,
    /// What it said (a `success` without one is not a finding).
    pub message: Option<String>,
}

/// Runs the plugin's plan hooks over `changes`: for each, `hooks.prePlan`
/// (`after` null: a plan not yet made) and `hooks.postPlan`; then
/// `hooks.planStageCompleted` with every change as `postPlan` saw it. A
/// hook the plugin does not have (method not found) is skipped. The
/// findings: every `fail`, and every `success` with a message (a
/// warning), in call order.
pub async fn run(plugin: &Plugin, changes: &[ResourceChange]) -> Result<Vec<Finding>, PluginError> {
    if !plugin.info().capabilities.contains(&Capability::Hooks) {
        return Err(plugin.failure(
            method::HOOKS_POST_PLAN,
            ErrorKind::BadAnswer(ctywire::Error::data(
                "the plugin does not offer the hooks capability (its init did not list \"hooks\")",
            )),
        ));
    }
    let mut findings = Vec::new();
    let mut planned = Vec::with_capacity(changes.len());
    for c in changes {
        let before_plan = params(plugin, c, &Value::null(Type::Dynamic))?;
        let after_plan = params(plugin, c, &c.after)?;
        for (hook, p) in [
            (method::HOOKS_PRE_PLAN, before_plan),
            (method::HOOKS_POST_PLAN, after_plan.clone()),
        ] {
            findings.extend(call(plugin, hook, p, Some(&c.address)).await?);
        }
        planned.push(after_plan.encode());
    }
    let mut list = Vec::new();
    mp::write_array_len(&mut list, planned.len());
    planned.iter().for_each(|p| list.extend_from_slice(&p.0));
    let mut whole = Fields::new();
    whole.insert_raw("resources", Raw(list));
    let hook = method::HOOKS_PLAN_STAGE_COMPLETED;
    findings.extend(call(plugin, hook, whole, None).await?);
    Ok(findings)
}

/// §7's per-resource params, with `after` as given.
fn params(plugin: &Plugin, c: &ResourceChange, after: &Value) -> Result<Fields, PluginError> {
    let mut p = Fields::new();
    p.insert_str("provider", &c.provider);
    p.insert_str("resource_type", &c.resource_type);
    p.insert_str("resource_name", &c.name);
    p.insert_str("resource_mode", &c.mode);
    p.insert_str("address", &c.address);
    p.insert_str("planned_action", c.action);
    let refused = |error| {
        plugin.failure(
            method::HOOKS_POST_PLAN,
            ErrorKind::Refused {
                error,
                function_argument: None,
            },
        )
    };
    for (key, v) in [
        ("before", &c.before),
        ("after", after),
        ("config", &Value::null(Type::Dynamic)),
    ] {
        p.insert_value(key, v, &Type::Dynamic).map_err(refused)?;
    }
    Ok(p)
}

/// One hook call: its finding, if any; none when the plugin lacks it.
async fn call(
    plugin: &Plugin,
    hook: &'static str,
    params: Fields,
    address: Option<&str>,
) -> Result<Option<Finding>, PluginError> {
    let answer = match plugin.call(hook, params).await {
        Ok(a) => a,
        Err(e) if e.remote().is_some_and(|r| r.is_method_not_found()) => return Ok(None),
        Err(e) => return Err(e),
    };
    let bad = |e: ctywire::Error| plugin.failure(hook, ErrorKind::BadAnswer(e));
    let fail = match answer.str("status").map_err(bad)? {
        "success" => false,
        "fail" => true,
        other => {
            return Err(bad(ctywire::Error::data(format!(
                "status {other:?}: \"success\" or \"fail\""
            ))
            .under(attr("status"))))
        }
    };
    let message = answer.opt_str("message").map_err(bad)?.map(str::to_string);
    Ok((fail || message.is_some()).then(|| Finding {
        hook,
        address: address.map(str::to_string),
        fail,
        message,
    }))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn values_take_the_type_their_json_implies_with_unknowns_where_marked() {
        let plan = br#"{"format_version":"1.2","planned_values":{},"resource_changes":[{
            "address":"x_a.b","mode":"managed","type":"x_a","name":"b",
            "provider_name":"registry.terraform.io/x/x",
            "change":{"actions":["delete","create"],"before":{"n":123456789012345678901234567890.5},
                      "after":{"n":1,"tags":["a",null]},
                      "after_unknown":{"id":true,"tags":[false,true]}}}]}"#;
        let [c] = <[ResourceChange; 1]>::try_from(read_plan(plan).unwrap()).unwrap();
        assert_eq!(c.action, "replace");
        assert_eq!(
            c.before.attr("n").unwrap().as_number().unwrap().to_string(),
            "123456789012345678901234567890.5",
            "numbers stay exact"
        );
        assert!(!c.after.attr("id").unwrap().is_known(), "unknown in full");
        let tags = c.after.attr("tags").unwrap().elements().unwrap();
        assert_eq!(tags[0].as_str(), Some("a"));
        assert!(!tags[1].is_known());
        assert_eq!(
            c.after.attr("n").unwrap().as_number(),
            Some(&Number::from(1u64))
        );
    }

    #[test]
    fn a_plan_without_changes_has_none_and_a_state_is_refused() {
        assert_eq!(
            read_plan(br#"{"format_version":"1.2","planned_values":{}}"#).unwrap(),
            Vec::new()
        );
        let e = read_plan(br#"{"format_version":"1.0","values":{}}"#).unwrap_err();
        assert!(e.to_string().contains("not a plan"), "{e}");
        let e =
            read_plan(br#"{"planned_values":{},"resource_changes":[{"address":1}]}"#).unwrap_err();
        assert!(e.to_string().contains("resource_changes"), "{e}");
    }

    proptest! {
        #[test]
        fn reading_any_bytes_as_a_plan_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = read_plan(&bytes);
        }

        #[test]
        fn reading_plan_shaped_json_never_panics(
            after in "[\\[\\]{}\",:0-9a-z.e-]{0,40}",
            unknown in "[\\[\\]{}\",:a-z]{0,24}",
        ) {
            let text = format!(
                r#"{{"planned_values":{{}},"resource_changes":[{{"address":"a","mode":"managed","type":"t","name":"n","provider_name":"p","change":{{"actions":["create"],"after":{after},"after_unknown":{unknown}}}}}]}}"#
            );
            let _ = read_plan(text.as_bytes());
        }
    }
}
