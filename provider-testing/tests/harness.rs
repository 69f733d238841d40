//! The harness's own behaviour, beyond what Terraform can be asked to
//! show (harness_matches_terraform holds it to Terraform): values unknown
//! until apply, bodies given as values, stale plans, references that go
//! nowhere, cycles, and a call from inside an async runtime.

use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Schema};
use ctywire::{Type, Value};
use ctywire_provider::tfplugin6::{self as tf, async_trait};
use ctywire_provider::Diagnostics;
use ctywire_provider_testing::{ChangeAction, Harness};
use serde_json::json;

/// `demo_thing`: `id` computed at create, `name` required, `note`
/// optional, a list block `rule`.
struct Demo;

#[async_trait]
impl tf::Provider for Demo {
    fn schemas(&self) -> tf::Schemas {
        let thing = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("note", Type::String).optional())
            .attribute(Attribute::new("id", Type::String).computed())
            .block(NestedBlock::new(
                "rule",
                NestingMode::List,
                Block::new().attribute(Attribute::new("port", Type::Number).required()),
            ));
        tf::Schemas::new(Schema::new(Block::new())).resource("demo_thing", Schema::new(thing))
    }

    async fn plan_resource_change(
        &self,
        req: tf::PlanResourceChangeRequest,
    ) -> Result<tf::PlanResourceChangeResponse, Diagnostics> {
        let mut planned = req.proposed_new_state;
        if req.prior_state.is_null() && !planned.is_null() {
            planned.set_attr("id", Value::unknown(Type::String))?;
        }
        Ok(tf::PlanResourceChangeResponse::new(planned))
    }

    async fn apply_resource_change(
        &self,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let mut new = req.planned_state;
        if !new.is_null() && req.prior_state.is_null() {
            let name = new
                .attr("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            new.set_attr("id", Value::string(format!("id-{name}")))?;
        }
        Ok(tf::ApplyResourceChangeResponse::new(new))
    }
}

#[test]
fn a_value_unknown_until_apply_is_unknown_in_the_plan_and_known_at_apply() {
    let mut h = Harness::new(Demo).unwrap();
    h.known_after_apply("color", json!("blue"));
    h.resource(
        "demo_thing.a",
        json!({ "name": "a", "note": "${after_apply.color}" }),
    )
    .unwrap();
    let plan = h.plan().unwrap();
    assert_eq!(
        plan.change("demo_thing.a")["after_unknown"],
        json!({ "id": true, "note": true, "rule": [] })
    );
    let state = h.apply_plan(&plan).unwrap();
    assert_eq!(state.values("demo_thing.a")["note"], "blue");
    assert_eq!(state.values("demo_thing.a")["id"], "id-a");
}

#[test]
fn a_value_body_is_planned_as_its_json_body_is() {
    let mut from_json = Harness::new(Demo).unwrap();
    from_json
        .resource(
            "demo_thing.a",
            json!({ "name": "a", "rule": [{ "port": 80 }] }),
        )
        .unwrap();
    let mut from_value = Harness::new(Demo).unwrap();
    let rule = Value::object([("port", Value::number(80))]);
    let body = Value::object([
        ("name", Value::string("a")),
        ("note", Value::null(Type::String)),
        ("id", Value::null(Type::String)),
        ("rule", Value::list(rule.ty().clone(), vec![rule]).unwrap()),
    ]);
    from_value.resource_value("demo_thing.a", body).unwrap();
    assert_eq!(
        from_json.plan().unwrap().to_json(),
        from_value.plan().unwrap().to_json()
    );
}

#[test]
fn a_plan_made_before_the_state_changed_is_refused() {
    let mut h = Harness::new(Demo).unwrap();
    h.resource("demo_thing.a", json!({ "name": "a" })).unwrap();
    let stale = h.plan().unwrap();
    h.apply().unwrap();
    let err = h.apply_plan(&stale).unwrap_err();
    assert_eq!(err.iter().next().unwrap().summary, "Saved plan is stale");
    // The state is the first apply's.
    assert_eq!(h.state().unwrap().addresses(), ["demo_thing.a"]);
    assert_eq!(
        h.plan().unwrap().action("demo_thing.a"),
        Some(ChangeAction::NoOp)
    );
}

#[test]
fn a_reference_to_an_undeclared_resource_is_an_error_naming_both() {
    let mut h = Harness::new(Demo).unwrap();
    h.resource("demo_thing.a", json!({ "name": "${demo_thing.nope.id}" }))
        .unwrap();
    let err = h.plan().unwrap_err().to_string();
    assert!(
        err.contains("demo_thing.a refers to demo_thing.nope"),
        "{err}"
    );
}

#[test]
fn resources_that_refer_to_each_other_are_a_cycle() {
    let mut h = Harness::new(Demo).unwrap();
    h.resource("demo_thing.a", json!({ "name": "${demo_thing.b.id}" }))
        .unwrap();
    h.resource("demo_thing.b", json!({ "name": "${demo_thing.a.id}" }))
        .unwrap();
    let err = h.plan().unwrap_err();
    assert_eq!(err.iter().next().unwrap().summary, "Cycle");
}

#[test]
fn an_argument_the_schema_lacks_is_refused_at_its_path() {
    let mut h = Harness::new(Demo).unwrap();
    h.resource(
        "demo_thing.a",
        json!({ "name": "a", "rule": [{ "port": 1, "prot": 6 }] }),
    )
    .unwrap();
    let err = h.plan().unwrap_err();
    let d = err.iter().next().unwrap();
    assert_eq!(d.summary, "Unsupported argument");
    assert_eq!(d.attribute.as_ref().unwrap().to_string(), ".rule[0].prot");
}

#[test]
fn removing_a_resource_destroys_its_object() {
    let mut h = Harness::new(Demo).unwrap();
    h.resource("demo_thing.a", json!({ "name": "a" })).unwrap();
    h.apply().unwrap();
    h.remove_resource("demo_thing.a");
    let plan = h.plan().unwrap();
    assert_eq!(plan.actions("demo_thing.a"), ["delete"]);
    assert!(h.apply_plan(&plan).unwrap().addresses().is_empty());
}

#[tokio::test]
async fn the_harness_says_so_when_called_inside_an_async_runtime() {
    let err = match Harness::new(Demo) {
        Ok(_) => panic!("the harness ran inside a runtime"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("plain #[test]"), "{err}");
}
