//! Configurations as users write them: a `main.tf`'s text with
//! variables, locals, templates, Terraform's functions and the
//! provider's own, evaluated as Terraform evaluates them (the constructs
//! Terraform itself can show are held to it in harness_matches_terraform).

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Type, Value};
use ctywire_provider::tfplugin6::{self as tf, async_trait};
use ctywire_provider::Diagnostics;
use ctywire_provider_testing::{ChangeAction, Harness};
use serde_json::json;

/// `demo_thing`: `id` computed at create (`id-NAME`), `name` required,
/// `note` optional; the function `shout(s)` upper-cases and adds "!".
struct Demo;

#[async_trait]
impl tf::Provider for Demo {
    fn schemas(&self) -> tf::Schemas {
        let thing = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("note", Type::String).optional())
            .attribute(Attribute::new("id", Type::String).computed());
        tf::Schemas::new(Schema::new(
            Block::new().attribute(Attribute::new("prefix", Type::String).optional()),
        ))
        .resource("demo_thing", Schema::new(thing))
        .data_source(
            "demo_echo",
            Schema::new(
                Block::new()
                    .attribute(Attribute::new("name", Type::String).required())
                    .attribute(Attribute::new("id", Type::String).computed()),
            ),
        )
        .function(
            "shout",
            tf::Function {
                parameters: vec![tf::Parameter::new("s", Type::String)],
                return_type: Type::String,
                ..Default::default()
            },
        )
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

    /// An object whose note is "drifts" is found changed outside.
    async fn read_resource(
        &self,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        let mut state = req.current_state;
        if state.attr("note").and_then(Value::as_str) == Some("drifts") {
            state.set_attr("note", Value::string("drifted"))?;
        }
        Ok(tf::ReadResourceResponse::new(state))
    }

    /// `demo_echo`: `id` is `echo-NAME`; the names "null" and "unknown"
    /// answer what a broken provider would.
    async fn read_data_source(
        &self,
        req: tf::ReadDataSourceRequest,
    ) -> Result<tf::ReadDataSourceResponse, Diagnostics> {
        let mut state = req.config;
        let name = state.attr("name").and_then(Value::as_str).unwrap_or("");
        let id = match name {
            "null" => {
                return Ok(tf::ReadDataSourceResponse::new(Value::null(
                    state.ty().clone(),
                )))
            }
            "unknown" => Value::unknown(Type::String),
            _ => Value::string(format!("echo-{name}")),
        };
        state.set_attr("id", id)?;
        Ok(tf::ReadDataSourceResponse::new(state))
    }

    async fn call_function(
        &self,
        req: tf::CallFunctionRequest,
    ) -> Result<Value, tf::FunctionError> {
        let s = req.arguments.first().and_then(Value::as_str).unwrap_or("");
        if s.is_empty() {
            return Err(tf::FunctionError::new("nothing to shout"));
        }
        Ok(Value::string(format!("{}!", s.to_uppercase())))
    }
}

fn values(h: &Harness, address: &str) -> serde_json::Value {
    h.state().unwrap().values(address).clone()
}

fn error_text(d: Diagnostics) -> String {
    d.to_string()
}

#[test]
fn variables_locals_and_templates_evaluate_as_terraform_does() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        variable "env" {
          type    = string
          default = "dev"
        }
        variable "size" { type = number }
        locals {
          base = "app-${var.env}"
        }
        resource "demo_thing" "a" {
          name = local.base
          note = "size ${var.size}, ${demo_thing.b.id}"
        }
        resource "demo_thing" "b" {
          name = "b"
        }
        "#,
    )
    .unwrap();
    h.variable("size", json!(3)).unwrap();
    let plan = h.plan().unwrap();
    assert_eq!(plan.action("demo_thing.a"), Some(ChangeAction::Create));
    h.apply().unwrap();
    assert_eq!(values(&h, "demo_thing.a")["name"], "app-dev");
    assert_eq!(values(&h, "demo_thing.a")["note"], "size 3, id-b");
    // The reference through the template orders a after b.
    assert_eq!(
        h.state().unwrap().to_json()["values"]["root_module"]["resources"][0]["depends_on"],
        json!(["demo_thing.b"])
    );
}

#[test]
fn terraform_functions_give_terraforms_answers() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        resource "demo_thing" "a" {
          name = join("-", split(",", "x,y,z"))
          note = jsonencode({ b = [1, true, "<a&b>"], a = null, n = length("ab\r\nc") })
        }
        resource "demo_thing" "b" {
          name = format("%s=%d%%", upper("k"), 42)
          note = "${base64encode("hi")} ${base64decode("aGk=")} ${md5("")} ${sha1("a")}"
        }
        resource "demo_thing" "c" {
          name = sha256("abc")
          note = lookup({ a = "1" }, "b", "fallback")
        }
        "#,
    )
    .unwrap();
    h.apply().unwrap();
    assert_eq!(values(&h, "demo_thing.a")["name"], "x-y-z");
    // go-cty's JSON: attributes sorted, HTML characters escaped.
    assert_eq!(
        values(&h, "demo_thing.a")["note"],
        r#"{"a":null,"b":[1,true,"\u003ca\u0026b\u003e"],"n":4}"#
    );
    assert_eq!(values(&h, "demo_thing.b")["name"], "K=42%");
    assert_eq!(
        values(&h, "demo_thing.b")["note"],
        "aGk= hi d41d8cd98f00b204e9800998ecf8427e 86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"
    );
    assert_eq!(
        values(&h, "demo_thing.c")["name"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(values(&h, "demo_thing.c")["note"], "fallback");
}

#[test]
fn provider_functions_are_called_through_the_protocol() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        resource "demo_thing" "a" {
          name = provider::demo::shout("hey")
        }
        "#,
    )
    .unwrap();
    h.apply().unwrap();
    assert_eq!(values(&h, "demo_thing.a")["name"], "HEY!");

    h.config_hcl(r#"resource "demo_thing" "a" { name = provider::demo::shout("") }"#)
        .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(
        e.contains("provider::demo::shout") && e.contains("nothing to shout"),
        "{e}"
    );
}

#[test]
fn a_function_the_harness_lacks_is_an_error_naming_it() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(r#"resource "demo_thing" "a" { name = title("x") }"#)
        .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(
        e.contains("\"title\"") && e.contains("does not implement"),
        "{e}"
    );

    h.config_hcl(r#"resource "demo_thing" "a" { name = nosuch("x") }"#)
        .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("Call to unknown function"), "{e}");

    // Outside the ASCII range Terraform's upper follows Go's Unicode
    // tables: the harness says it does not go there.
    h.config_hcl(r#"resource "demo_thing" "a" { name = upper("straße") }"#)
        .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("ASCII"), "{e}");
}

#[test]
fn variables_are_checked_as_core_checks_them() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        variable "name" { type = string }
        resource "demo_thing" "a" { name = var.name }
        "#,
    )
    .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("No value for required variable"), "{e}");

    h.variable("name", json!(["not", "a", "string"])).unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("Invalid value for input variable"), "{e}");

    h.variable("name", json!("ok")).unwrap();
    h.variable("other", json!("x")).unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("Value for undeclared variable"), "{e}");
}

#[test]
fn a_sensitive_variable_marks_what_it_sets() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        variable "secret" {
          type      = string
          sensitive = true
        }
        resource "demo_thing" "a" {
          name = "a"
          note = "pw: ${var.secret}"
        }
        "#,
    )
    .unwrap();
    h.variable("secret", json!("hunter2")).unwrap();
    h.apply().unwrap();
    let state = h.state().unwrap().to_json().clone();
    assert_eq!(
        state["values"]["root_module"]["resources"][0]["sensitive_values"],
        json!({ "note": true })
    );
}

#[test]
fn the_provider_block_reads_variables() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        variable "p" { default = "x" }
        provider "demo" { prefix = var.p }
        resource "demo_thing" "a" { name = "a" }
        "#,
    )
    .unwrap();
    h.apply().unwrap();
    assert!(h.config_hcl(r#"provider "other" {}"#).is_err());
}

#[test]
fn json_syntax_takes_the_same_expressions() {
    let mut h = Harness::new(Demo).unwrap();
    h.config(json!({
        "variable": { "env": { "default": "prod" } },
        "locals": { "n": "${upper(var.env)}" },
        "resource": { "demo_thing": { "a": { "name": "${local.n}-${jsonencode({a = \"}\"})}" } } }
    }))
    .unwrap();
    h.apply().unwrap();
    assert_eq!(values(&h, "demo_thing.a")["name"], r#"PROD-{"a":"}"}"#);
}

#[test]
fn a_data_source_is_read_at_plan_and_referenced_in_json_syntax_too() {
    for config in [
        json!({
            "data": { "demo_echo": { "e": { "name": "x" } } },
            "resource": { "demo_thing": { "a": { "name": "${data.demo_echo.e.id}" } } }
        }),
        json!(
            r#"
data "demo_echo" "e" {
  name = "x"
}
resource "demo_thing" "a" {
  name = data.demo_echo.e.id
}
"#
        ),
    ] {
        let mut h = Harness::new(Demo).unwrap();
        match config {
            serde_json::Value::String(text) => h.config_hcl(&text).unwrap(),
            doc => h.config(doc).unwrap(),
        };
        let plan = h.plan().unwrap();
        // Read during plan: the resource's name is known, the data source
        // has no change of its own.
        assert_eq!(plan.change("demo_thing.a")["after"]["name"], "echo-x");
        assert!(plan.resource_change("data.demo_echo.e").is_null());
        h.apply().unwrap();
        assert_eq!(values(&h, "data.demo_echo.e")["id"], "echo-x");
        assert_eq!(values(&h, "demo_thing.a")["name"], "echo-x");
    }
}

#[test]
fn a_data_source_answering_null_or_unknown_is_a_provider_bug_at_its_address() {
    for (name, summary) in [
        ("null", "Provider produced null object"),
        ("unknown", "Provider produced invalid object"),
    ] {
        let mut h = Harness::new(Demo).unwrap();
        h.config_hcl(&format!(
            "data \"demo_echo\" \"e\" {{\n  name = \"{name}\"\n}}\n"
        ))
        .unwrap();
        let e = error_text(h.plan().unwrap_err());
        assert!(e.contains(summary), "{e}");
        assert!(e.contains("data.demo_echo.e"), "{e}");
    }
}

#[test]
fn a_data_reference_without_a_name_or_to_an_undeclared_source_is_an_error() {
    for (body, want) in [
        ("data.demo_echo", "must be followed by two attribute names"),
        ("data.demo_echo.nope.id", "data.demo_echo.nope"),
        ("data", "must be followed by two attribute names"),
    ] {
        let mut h = Harness::new(Demo).unwrap();
        h.config_hcl(&format!(
            "resource \"demo_thing\" \"a\" {{\n  name = {body}\n}}\n"
        ))
        .unwrap();
        let e = error_text(h.plan().unwrap_err());
        assert!(e.contains(want), "{body}: {e}");
    }
    let mut h = Harness::new(Demo).unwrap();
    let e = h
        .config_hcl("data \"demo_nope\" \"x\" {}\n")
        .map(|_| ())
        .unwrap_err();
    assert!(error_text(e).contains("does not support data source \"demo_nope\""));
}

mod steps {
    use super::*;
    use ctywire_provider_testing::Step;

    const A: &str = r#"
variable "note" { default = "first" }
resource "demo_thing" "a" {
  name = "a"
  note = var.note
}
"#;

    #[test]
    fn steps_plan_apply_check_and_replan_as_test_authors_write_them() {
        let mut h = Harness::new(Demo).unwrap();
        h.run(&[
            Step::config(A)
                .expect_action("demo_thing.a", ChangeAction::Create)
                .check("demo_thing.a", "id", json!("id-a"))
                .check("demo_thing.a", "note", json!("first")),
            Step::config(A)
                .variable("note", json!("second"))
                .expect_action("demo_thing.a", ChangeAction::Update)
                .check("demo_thing.a", "note", json!("second")),
            Step::refresh().check("demo_thing.a", "note", json!("second")),
            Step::config(r#"resource "demo_thing" "a" { name = title("x") }"#)
                .expect_error(r#"does not implement the function "title""#),
        ])
        .unwrap();
    }

    #[test]
    fn a_failed_check_names_the_step_and_the_attribute() {
        let mut h = Harness::new(Demo).unwrap();
        let e = h
            .run(&[
                Step::config(A),
                Step::config(A).check("demo_thing.a", "note", json!("other")),
            ])
            .unwrap_err();
        assert_eq!(
            e,
            r#"step 2/2: demo_thing.a.note: expected "other", got "first""#
        );
    }

    #[test]
    fn an_unexpected_action_or_a_missing_error_fails_the_step() {
        let mut h = Harness::new(Demo).unwrap();
        let e = h
            .run(&[Step::config(A).expect_action("demo_thing.a", ChangeAction::Update)])
            .unwrap_err();
        assert_eq!(
            e,
            "step 1/1: demo_thing.a: expected the plan to update, it plans create"
        );
        let e = h.run(&[Step::config(A).expect_error("nope")]).unwrap_err();
        assert!(e.contains("but the step succeeded"), "{e}");
    }

    #[test]
    fn a_plan_not_empty_after_apply_fails_the_step_unless_expected() {
        let drifting = r#"resource "demo_thing" "a" {
  name = "a"
  note = "drifts"
}"#;
        let mut h = Harness::new(Demo).unwrap();
        let e = h.run(&[Step::config(drifting)]).unwrap_err();
        assert_eq!(
            e,
            "step 1/1: after applying, the plan was not empty: demo_thing.a (update)"
        );
        let mut h = Harness::new(Demo).unwrap();
        h.run(&[Step::config(drifting).expect_non_empty_plan()])
            .unwrap();
    }
}

#[test]
fn a_cycle_of_locals_is_an_error_at_plan_not_a_hang() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(
        r#"
        locals {
          x = local.y
          y = "${local.x}"
        }
        resource "demo_thing" "a" { name = local.x }
        "#,
    )
    .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("too deep"), "{e}");
}

#[test]
fn a_lifecycle_block_is_read_and_what_the_harness_lacks_refused() {
    let mut h = Harness::new(Demo).unwrap();
    h.config_hcl(r#"resource "demo_thing" "a" { name = "a" }"#)
        .unwrap();
    h.apply().unwrap();
    h.config_hcl(
        r#"
        resource "demo_thing" "a" {
          name = "a"
          lifecycle {
            ignore_changes = [name]
            precondition {
              condition     = true
              error_message = "never"
            }
          }
        }
        "#,
    )
    .unwrap();
    let e = error_text(h.plan().unwrap_err());
    assert!(e.contains("lifecycle.precondition"), "{e}");
}

#[test]
fn count_instances_are_planned_and_shown_at_their_addresses_in_json_syntax_too() {
    let mut h = Harness::new(Demo).unwrap();
    let config = |n: u64| {
        json!({
            "resource": { "demo_thing": {
                "a": { "count": n, "name": "n${count.index}" },
                "b": { "name": "${demo_thing.a[0].id}", "note": "${length(demo_thing.a)}" },
            } }
        })
    };
    h.config(config(2)).unwrap();
    let state = h.apply().unwrap();
    assert_eq!(
        state.addresses(),
        ["demo_thing.a[0]", "demo_thing.a[1]", "demo_thing.b"]
    );
    assert_eq!(state.resource("demo_thing.a[1]")["index"], json!(1));
    assert_eq!(values(&h, "demo_thing.a[1]")["name"], "n1");
    assert_eq!(values(&h, "demo_thing.b")["name"], "id-n0");
    assert_eq!(values(&h, "demo_thing.b")["note"], "2");
    h.config(config(1)).unwrap();
    let plan = h.plan().unwrap();
    assert_eq!(plan.action("demo_thing.a[1]"), Some(ChangeAction::Delete));
    assert_eq!(
        plan.resource_change("demo_thing.a[1]")["action_reason"],
        "delete_because_count_index"
    );
    assert_eq!(plan.action("demo_thing.b"), Some(ChangeAction::Update));
}

#[test]
fn a_for_each_unknown_at_plan_is_refused_in_cores_words() {
    let mut h = Harness::new(Demo).unwrap();
    h.known_after_apply("names", json!({ "x": "y" }));
    h.config(json!({
        "resource": { "demo_thing": { "a": { "for_each": "${after_apply.names}", "name": "${each.value}" } } }
    }))
    .unwrap();
    let e = h.plan().unwrap_err();
    let d = e.iter().next().expect("an error");
    assert_eq!(d.summary, "Invalid for_each argument");
    assert!(d.detail.starts_with("The \"for_each\" map includes keys derived from resource attributes that cannot be determined until apply"), "{}", d.detail);
}

#[test]
fn a_moved_block_in_json_syntax_moves_the_object_with_its_previous_address() {
    let mut h = Harness::new(Demo).unwrap();
    h.config(json!({ "resource": { "demo_thing": { "a": { "name": "x" } } } }))
        .unwrap();
    h.apply().unwrap();
    h.config(json!({
        "resource": { "demo_thing": { "b": { "for_each": "${toset([\"k\"])}", "name": "x" } } },
        "moved": [{ "from": "demo_thing.a", "to": "demo_thing.b[\"k\"]" }],
    }))
    .unwrap();
    let plan = h.plan().unwrap();
    let change = plan.resource_change("demo_thing.b[\"k\"]");
    assert_eq!(change["previous_address"], "demo_thing.a");
    assert_eq!(change["index"], "k");
    assert_eq!(plan.action("demo_thing.b[\"k\"]"), Some(ChangeAction::NoOp));
    h.apply_plan(&plan).unwrap();
    assert_eq!(h.state().unwrap().addresses(), ["demo_thing.b[\"k\"]"]);
}

#[test]
fn moves_from_what_is_still_declared_or_to_two_places_are_refused() {
    let mut h = Harness::new(Demo).unwrap();
    let refused = |h: &mut Harness, text: &str| -> Vec<String> {
        h.config_hcl(text).unwrap();
        let e = h.plan().unwrap_err();
        e.iter().map(|d| d.summary.clone()).collect()
    };
    let still = r#"
        resource "demo_thing" "a" { name = "a" }
        resource "demo_thing" "b" { name = "b" }
        moved {
          from = demo_thing.a
          to   = demo_thing.b
        }
    "#;
    assert_eq!(refused(&mut h, still), ["Moved object still exists"]);
    let twice = r#"
        resource "demo_thing" "b" { name = "b" }
        resource "demo_thing" "c" { name = "c" }
        moved {
          from = demo_thing.a
          to   = demo_thing.b
        }
        moved {
          from = demo_thing.a
          to   = demo_thing.c
        }
    "#;
    assert_eq!(refused(&mut h, twice), ["Ambiguous move statements"]);
}
