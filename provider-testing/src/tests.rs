//! The harness's answers must be able to say "something is wrong": a state
//! it cannot read is an error, a plan missing a configured resource is
//! not empty, and numbers past an `f64`'s precision are told apart.

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Number, Type, Value};
use ctywire_tfplugin6::{
    async_trait, ApplyResourceChangeRequest, ApplyResourceChangeResponse, Diagnostics,
    PlanResourceChangeRequest, PlanResourceChangeResponse, Provider, Schemas,
};
use serde_json::json;

use super::*;

/// A resource that is planned and applied as configured.
struct Plain;

#[async_trait]
impl Provider for Plain {
    fn schemas(&self) -> Schemas {
        let thing = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("size", Type::Number).optional());
        Schemas::new(Schema::new(Block::new())).resource("plain_thing", Schema::new(thing))
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        Ok(PlanResourceChangeResponse::new(req.proposed_new_state))
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        Ok(ApplyResourceChangeResponse::new(req.planned_state))
    }
}

fn applied() -> Harness {
    let mut h = Harness::new(Plain).expect("a harness");
    h.resource("plain_thing.a", json!({ "name": "a" }))
        .expect("a resource");
    h.apply().expect("the apply");
    h
}

#[test]
fn a_state_object_the_schema_cannot_read_is_an_error_not_left_out() {
    let mut h = applied();
    assert_eq!(h.state().expect("a state").addresses(), ["plain_thing.a"]);
    if let Some(stored) = h.state.get_mut("plain_thing.a") {
        stored.attrs_json = br#"{"name":"a","gone":1}"#.to_vec();
    }
    let err = h.state().expect_err("an unreadable object");
    let d = err.iter().next().expect("a diagnostic");
    assert_eq!(d.summary, "Invalid resource instance data in state");
    assert!(
        d.detail
            .starts_with("The object of plain_thing.a in state cannot be read: "),
        "{}",
        d.detail
    );
}

#[test]
fn a_plan_that_leaves_out_a_configured_resource_is_not_empty() {
    let mut h = applied();
    let plan = h.plan().expect("a plan");
    assert!(plan.is_empty(), "nothing changed");
    let mut partial = plan.clone();
    partial.changes.clear();
    assert!(
        !partial.is_empty(),
        "plain_thing.a is configured and has no change in the plan"
    );
    h.remove_resource("plain_thing.a");
    assert!(!h.plan().expect("a plan").is_empty(), "it is destroyed");
}

#[test]
fn documents_as_text_keep_every_digit_of_a_number() {
    let big = "123456789012345678901234567890";
    let v = Value::object([
        ("big", Value::from(Number::parse(big).expect("a number"))),
        (
            "small",
            Value::from(Number::parse("0.1").expect("a number")),
        ),
        // A string that starts as a tagged number would: still a string.
        ("text", Value::string("\u{0}12")),
    ]);
    let tagged = show::to_tagged(&v);
    assert_eq!(
        show::exact_text(&tagged),
        format!(r#"{{"big":{big},"small":0.1,"text":"\u000012"}}"#)
    );
    assert_eq!(
        show::plain(tagged),
        json!({ "big": 1.2345678901234568e29, "small": 0.1, "text": "\u{0}12" })
    );

    let mut h = Harness::new(Plain).expect("a harness");
    // Terraform converts a string to a number exactly: so must the harness.
    h.resource("plain_thing.a", json!({ "name": "a", "size": big }))
        .expect("a resource");
    let plan = h.plan().expect("a plan");
    assert!(
        plan.to_json_text().contains(&format!(r#""size":{big}"#)),
        "{}",
        plan.to_json_text()
    );
    let state = h.apply_plan(&plan).expect("the apply");
    assert!(
        state.to_json_text().contains(&format!(r#""size":{big}"#)),
        "{}",
        state.to_json_text()
    );
    assert_eq!(
        state.values("plain_thing.a")["size"],
        json!(1.2345678901234568e29)
    );
}
