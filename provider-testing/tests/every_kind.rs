//! Ephemeral resources, actions and queries through the harness, against
//! a provider on the protocol trait that records every call it gets: what
//! core calls and when (opened at plan and again at apply, renewed once
//! due, closed when each operation ends; actions validated, planned and
//! invoked with their progress in order, or triggered from a resource's
//! lifecycle around its apply; `list` blocks run with their limits), as
//! `SPEC-list-and-actions.md` and `src/ephemeral.rs` say.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Type, Value};
use ctywire_provider::tfplugin6::{self as tf, async_trait};
use ctywire_provider::Diagnostics;
use ctywire_provider_testing::{ChangeAction, Harness};
use serde_json::json;

#[path = "../../examples/kv/src/main.rs"]
#[allow(dead_code)]
mod kv;

/// `rec`: `rec_secret` (a write-only `password`, its `length` computed at
/// apply), the ephemeral `rec_token` (`value` is `token-NAME`; a name
/// starting with `renew` asks to be renewed at once) and the action
/// `rec_notify` (progress `sending MESSAGE`, `sent`; the message `fail`
/// fails). Every call is logged.
/// The provider's `label` names the instance in what it logs.
#[derive(Clone, Default)]
struct Rec(Arc<Mutex<Vec<String>>>, Arc<Mutex<String>>);

impl Rec {
    fn log(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }

    /// Another instance, logging to the same log.
    fn another(&self) -> Rec {
        Rec(self.0.clone(), Arc::default())
    }

    fn label(&self) -> String {
        self.1.lock().unwrap().clone()
    }
}

fn name_of(v: &Value) -> String {
    match v.attr("name").or(v.attr("message")) {
        Some(n) if !n.is_known() => "(unknown)".into(),
        Some(n) => n.as_str().unwrap_or("(null)").to_owned(),
        None => String::new(),
    }
}

/// The name an ephemeral token's open put in its private data.
fn private_name(private: &Option<Vec<u8>>) -> String {
    String::from_utf8_lossy(private.as_deref().unwrap_or_default()).into_owned()
}

#[async_trait]
impl tf::Provider for Rec {
    fn schemas(&self) -> tf::Schemas {
        let secret = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("note", Type::String).optional())
            .attribute(
                Attribute::new("password", Type::String)
                    .optional()
                    .write_only(),
            )
            .attribute(Attribute::new("length", Type::Number).computed());
        let token = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("value", Type::String).computed());
        let notify = Block::new().attribute(Attribute::new("message", Type::String).required());
        let config = Block::new().attribute(Attribute::new("label", Type::String).optional());
        tf::Schemas::new(Schema::new(config))
            .resource("rec_secret", Schema::new(secret))
            .ephemeral_resource("rec_token", Schema::new(token))
            .action("rec_notify", Schema::new(notify))
    }

    async fn configure_provider(&self, req: tf::ConfigureProviderRequest) -> Diagnostics {
        let label = req
            .config
            .attr("label")
            .and_then(Value::as_str)
            .unwrap_or("");
        *self.1.lock().unwrap() = label.to_owned();
        Diagnostics::new()
    }

    async fn plan_resource_change(
        &self,
        req: tf::PlanResourceChangeRequest,
    ) -> Result<tf::PlanResourceChangeResponse, Diagnostics> {
        let mut planned = req.proposed_new_state;
        if req.prior_state.is_null() && !planned.is_null() {
            planned.set_attr("length", Value::unknown(Type::Number))?;
        }
        Ok(tf::PlanResourceChangeResponse::new(planned))
    }

    async fn apply_resource_change(
        &self,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let mut new = req.planned_state;
        if new.is_null() && !self.label().is_empty() {
            self.log(format!(
                "delete {} via {}",
                name_of(&req.prior_state),
                self.label()
            ));
        }
        if !new.is_null() && !self.label().is_empty() {
            self.log(format!("apply {} via {}", name_of(&new), self.label()));
        }
        if !new.is_null() && !req.prior_state.is_null() && self.label().is_empty() {
            let note = new.attr("note").and_then(Value::as_str);
            self.log(format!("update {} note={note:?}", name_of(&new)));
        }
        if !new.is_null() && !new.attr("length").is_some_and(Value::is_known) {
            let password = req.config.attr("password").and_then(Value::as_str);
            self.log(format!("apply {} password={password:?}", name_of(&new)));
            let len = password.map_or(0, |p| p.len() as u64);
            new.set_attr("length", Value::number(len))?;
        }
        Ok(tf::ApplyResourceChangeResponse::new(new))
    }

    /// An import of `rec_secret` finds the object named by the id.
    async fn import_resource_state(
        &self,
        req: tf::ImportResourceStateRequest,
    ) -> Result<tf::ImportResourceStateResponse, Diagnostics> {
        self.log(format!("import {}", req.id));
        let state = Value::object([
            ("name", Value::string(req.id.clone())),
            ("note", Value::null(Type::String)),
            ("password", Value::null(Type::String)),
            ("length", Value::number(0u64)),
        ]);
        Ok(tf::ImportResourceStateResponse {
            imported_resources: vec![tf::ImportedResource {
                type_name: req.type_name,
                state,
                private: Vec::new(),
            }],
            ..Default::default()
        })
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: tf::ValidateEphemeralResourceConfigRequest,
    ) -> Diagnostics {
        self.log(format!("validate {}", name_of(&req.config)));
        Diagnostics::new()
    }

    async fn open_ephemeral_resource(
        &self,
        req: tf::OpenEphemeralResourceRequest,
    ) -> Result<tf::OpenEphemeralResourceResponse, Diagnostics> {
        let name = name_of(&req.config);
        self.log(format!("open {name}"));
        let renew_at = name
            .starts_with("renew")
            .then(|| SystemTime::now() - Duration::from_secs(1));
        let result = (req.config).with_attr("value", Value::string(format!("token-{name}")))?;
        Ok(tf::OpenEphemeralResourceResponse {
            result,
            private: Some(name.into_bytes()),
            renew_at,
            diagnostics: Diagnostics::new(),
            deferred: None,
        })
    }

    async fn renew_ephemeral_resource(
        &self,
        req: tf::RenewEphemeralResourceRequest,
    ) -> Result<tf::RenewEphemeralResourceResponse, Diagnostics> {
        self.log(format!("renew {}", private_name(&req.private)));
        Ok(tf::RenewEphemeralResourceResponse {
            private: req.private,
            ..Default::default()
        })
    }

    async fn close_ephemeral_resource(
        &self,
        req: tf::CloseEphemeralResourceRequest,
    ) -> Diagnostics {
        self.log(format!("close {}", private_name(&req.private)));
        Diagnostics::new()
    }

    async fn validate_action_config(&self, req: tf::ValidateActionConfigRequest) -> Diagnostics {
        self.log(format!("validate action {}", name_of(&req.config)));
        Diagnostics::new()
    }

    async fn plan_action(
        &self,
        req: tf::PlanActionRequest,
    ) -> Result<tf::PlanActionResponse, Diagnostics> {
        self.log(format!("plan action {}", name_of(&req.config)));
        Ok(tf::PlanActionResponse::default())
    }

    async fn invoke_action(
        &self,
        req: tf::InvokeActionRequest,
        progress: &tf::ActionProgress,
    ) -> Diagnostics {
        let message = name_of(&req.config);
        self.log(format!("invoke action {message}"));
        let _ = progress.send(format!("sending {message}")).await;
        if message == "fail" {
            return Diagnostics::error("the notification could not be sent");
        }
        let _ = progress.send("sent").await;
        Diagnostics::new()
    }
}

fn harness() -> (Harness, Rec) {
    let rec = Rec::default();
    (Harness::new(rec.clone()).unwrap(), rec)
}

/// A harness that starts an instance of `rec` per provider configuration:
/// the first serves the default configuration; the others share its log.
fn harness_with_aliases() -> (Harness, Rec) {
    let first = Rec::default();
    let rec = first.clone();
    let others = first.clone();
    let starts = Arc::new(Mutex::new(Some(first)));
    let tf = Harness::with_aliases(move || {
        starts
            .lock()
            .unwrap()
            .take()
            .unwrap_or_else(|| others.another())
    })
    .unwrap();
    (tf, rec)
}

#[test]
fn ephemeral_resources_are_opened_at_plan_and_apply_and_closed_after_each() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
ephemeral "rec_token" "db" {
  name = "db"
}
locals {
  password = "${ephemeral.rec_token.db.value}!"
}
resource "rec_secret" "s" {
  name     = "s"
  password = local.password
}
"#,
    )
    .unwrap();
    let plan = tf.plan().unwrap();
    // Validated with the configuration, then validated again and opened
    // by the plan walk, closed as it ends.
    assert_eq!(
        rec.take(),
        ["validate db", "validate db", "open db", "close db"]
    );
    let state = tf.apply_plan(&plan).unwrap();
    assert_eq!(
        rec.take(),
        [
            "validate db",
            "open db",
            "apply s password=Some(\"token-db!\")",
            "close db"
        ]
    );
    // Never in the plan or the state (which names it among the secret's
    // dependencies only, as Terraform 1.11 does); the write-only password
    // neither.
    let text = format!("{}{}", plan.to_json_text(), state.to_json_text());
    assert!(!text.contains("token-db"), "{text}");
    assert!(!plan.to_json_text().contains("rec_token"));
    let resources = &state.to_json()["values"]["root_module"]["resources"];
    assert_eq!(resources.as_array().unwrap().len(), 1);
    assert_eq!(resources[0]["values"]["length"], json!(9));
    assert_eq!(
        resources[0]["depends_on"],
        json!(["ephemeral.rec_token.db"])
    );
}

#[test]
fn an_ephemeral_resource_whose_renewal_is_due_is_renewed_before_it_is_closed() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
ephemeral "rec_token" "r" {
  name = "renew-me"
}
"#,
    )
    .unwrap();
    tf.plan().unwrap();
    assert_eq!(
        rec.take(),
        [
            "validate renew-me",
            "validate renew-me",
            "open renew-me",
            "renew renew-me",
            "close renew-me"
        ]
    );
}

#[test]
fn an_ephemeral_resource_with_a_configuration_unknown_at_plan_is_opened_at_apply_only() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
resource "rec_secret" "a" {
  name = "a"
}
ephemeral "rec_token" "t" {
  name = "t-${rec_secret.a.length}"
}
resource "rec_secret" "b" {
  name     = "b"
  password = ephemeral.rec_token.t.value
}
"#,
    )
    .unwrap();
    let plan = tf.plan().unwrap();
    let log = rec.take();
    assert!(!log.iter().any(|l| l.starts_with("open")), "{log:?}");
    tf.apply_plan(&plan).unwrap();
    assert_eq!(
        rec.take(),
        [
            "apply a password=None",
            "validate t-0",
            "open t-0",
            "apply b password=Some(\"token-t-0\")",
            "close t-0"
        ]
    );
}

#[test]
fn an_ephemeral_value_in_an_attribute_that_is_not_write_only_is_refused_in_cores_words() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
ephemeral "rec_token" "db" {
  name = "db"
}
resource "rec_secret" "s" {
  name = "s"
  note = upper(ephemeral.rec_token.db.value)
}
"#,
    )
    .unwrap();
    let e = tf.plan().unwrap_err();
    let d = e.iter().next().unwrap();
    assert_eq!(d.summary, "Invalid use of ephemeral value");
    assert_eq!(
        d.detail,
        "Ephemeral values are not valid for \"note\", because it is not a write-only attribute and must be persisted to state."
    );
    // Refused before anything was opened.
    assert!(!rec.take().iter().any(|l| l.starts_with("open")));
}

#[test]
fn an_action_is_validated_planned_and_invoked_with_its_progress_in_order() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
resource "rec_secret" "s" {
  name = "s"
}
action "rec_notify" "hello" {
  config {
    message = "hello ${rec_secret.s.name}"
  }
}
"#,
    )
    .unwrap();
    tf.apply().unwrap();
    rec.take();
    let serial = tf.state().unwrap().to_json_text().to_owned();
    let invoked = tf.invoke("action.rec_notify.hello").unwrap();
    assert_eq!(invoked.progress, ["sending hello s", "sent"]);
    assert_eq!(
        rec.take(),
        [
            "validate action (unknown)",
            "plan action hello s",
            "invoke action hello s"
        ]
    );
    // Nothing written to state.
    assert_eq!(tf.state().unwrap().to_json_text(), serial);
    // The plan of what is configured is not changed by the action.
    assert_eq!(
        tf.plan().unwrap().action("rec_secret.s"),
        Some(ChangeAction::NoOp)
    );
}

#[test]
fn an_action_that_fails_is_an_error_and_one_not_yet_known_is_refused() {
    let (mut tf, _rec) = harness();
    tf.config_hcl(
        r#"
action "rec_notify" "bad" {
  config {
    message = "fail"
  }
}
resource "rec_secret" "s" {
  name = "s"
}
action "rec_notify" "early" {
  config {
    message = "${rec_secret.s.length}"
  }
}
"#,
    )
    .unwrap();
    let e = tf.invoke("action.rec_notify.bad").unwrap_err();
    assert_eq!(
        e.iter().next().unwrap().summary,
        "the notification could not be sent"
    );
    let e = tf.invoke("action.rec_notify.early").unwrap_err();
    assert_eq!(
        e.iter().next().unwrap().summary,
        "Partially applied configuration"
    );
    let e = tf.invoke("action.rec_notify.missing").unwrap_err();
    assert_eq!(
        e.iter().next().unwrap().summary,
        "Reference to undeclared action"
    );
}

#[test]
fn a_query_runs_each_list_block_with_its_limit_and_config() {
    let store = std::env::temp_dir().join(format!("kinds-query-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&store);
    let built = kv::provider().build().unwrap();
    let mut tf = Harness::new(built).unwrap();
    tf.config_hcl(&format!(
        r#"
variable "prefix" {{ default = "app-" }}
provider "kv" {{
  root = {root}
}}
resource "kv_entry" "a1" {{
  key   = "app-1"
  value = "1"
}}
resource "kv_entry" "a2" {{
  key   = "app-2"
  value = "2"
}}
resource "kv_entry" "d1" {{
  key   = "db-1"
  value = "3"
}}
"#,
        root = json!(store.display().to_string())
    ))
    .unwrap();
    tf.apply().unwrap();
    let results = tf
        .query(
            r#"
list "kv_entry" "apps" {
  provider         = kv
  include_resource = true
  config {
    prefix = var.prefix
  }
}
list "kv_entry" "first" {
  provider = kv
  limit    = 1
}
"#,
        )
        .unwrap();
    let apps = &results["list.kv_entry.apps"];
    let names: Vec<&str> = apps.iter().map(|l| l.display_name.as_str()).collect();
    assert_eq!(names, ["app-1", "app-2"]);
    assert!(apps.iter().all(|l| l.object_json.is_some()));
    let first = &results["list.kv_entry.first"];
    assert_eq!(first.len(), 1);
    assert!(first[0].object_json.is_none());

    for (text, summary) in [
        (
            "list \"kv_entry\" \"x\" {\n}\n",
            "Missing \"provider\" attribute",
        ),
        (
            "list \"kv_entry\" \"x\" {\n  provider = kv\n  limit = -1\n}\n",
            "Invalid limit argument",
        ),
        ("resource \"kv_entry\" \"x\" {\n}\n", "Invalid block type"),
    ] {
        let e = tf.query(text).unwrap_err();
        assert_eq!(e.iter().next().unwrap().summary, summary, "{text}");
    }
    let _ = std::fs::remove_dir_all(&store);
}

#[test]
fn each_provider_configuration_is_an_instance_of_its_own_and_keeps_its_objects() {
    let (mut tf, rec) = harness_with_aliases();
    let config = |with_b: bool, with_alias: bool| {
        let mut text = String::from("provider \"rec\" {\n  label = \"main\"\n}\n");
        if with_alias {
            text += "provider \"rec\" {\n  alias = \"two\"\n  label = \"two\"\n}\n";
        }
        text += "resource \"rec_secret\" \"a\" {\n  name = \"a\"\n}\n";
        if with_b {
            text += "resource \"rec_secret\" \"b\" {\n  provider = rec.two\n  name = \"b\"\n}\n";
        }
        text
    };
    tf.config_hcl(&config(true, true)).unwrap();
    tf.apply().unwrap();
    let log = rec.take();
    assert!(log.contains(&"apply a via main".to_owned()), "{log:?}");
    assert!(log.contains(&"apply b via two".to_owned()), "{log:?}");

    // Gone from the configuration, b is destroyed through the
    // configuration that made it.
    tf.config_hcl(&config(false, true)).unwrap();
    tf.apply().unwrap();
    assert!(rec.take().contains(&"delete b via two".to_owned()));

    // An object whose configuration is gone too cannot be destroyed.
    tf.config_hcl(&config(true, true)).unwrap();
    tf.apply().unwrap();
    tf.config_hcl(&config(false, false)).unwrap();
    let e = tf.plan().unwrap_err();
    assert_eq!(
        e.iter().next().unwrap().summary,
        "Provider configuration not present"
    );

    // A harness that cannot start instances refuses aliases.
    let (mut single, _) = harness();
    single.config_hcl(&config(true, true)).unwrap();
    let e = single.plan().unwrap_err();
    assert!(e.to_string().contains("Harness::with_aliases"), "{e}");
}

#[test]
fn ephemeral_resources_with_count_are_opened_per_instance_and_referred_to_by_index() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
ephemeral "rec_token" "t" {
  count = 2
  name  = "t${count.index}"
}
resource "rec_secret" "s" {
  count    = 2
  name     = "s${count.index}"
  password = ephemeral.rec_token.t[count.index].value
}
"#,
    )
    .unwrap();
    let plan = tf.plan().unwrap();
    let log = rec.take();
    for line in ["open t0", "open t1", "close t0", "close t1"] {
        assert!(log.contains(&line.to_owned()), "{line}: {log:?}");
    }
    let state = tf.apply_plan(&plan).unwrap();
    let log = rec.take();
    for line in [
        "apply s0 password=Some(\"token-t0\")",
        "apply s1 password=Some(\"token-t1\")",
    ] {
        assert!(log.contains(&line.to_owned()), "{line}: {log:?}");
    }
    // The instances are never managed instances: not in the plan, not in
    // the state.
    let text = format!("{}{}", plan.to_json_text(), state.to_json_text());
    assert!(!text.contains("token-t"), "{text}");
    assert!(!plan.to_json_text().contains("rec_token.t["), "{text}");
    let resources = &state.to_json()["values"]["root_module"]["resources"];
    assert_eq!(resources.as_array().unwrap().len(), 2);
}

#[test]
fn every_instance_of_a_resource_with_count_goes_through_its_provider_alias() {
    let (mut tf, rec) = harness_with_aliases();
    let config = |n: u32| {
        format!(
            r#"
provider "rec" {{
  label = "main"
}}
provider "rec" {{
  alias = "two"
  label = "two"
}}
resource "rec_secret" "b" {{
  provider = rec.two
  count    = {n}
  name     = "b${{count.index}}"
}}
"#
        )
    };
    tf.config_hcl(&config(2)).unwrap();
    tf.apply().unwrap();
    let log = rec.take();
    assert!(log.contains(&"apply b0 via two".to_owned()), "{log:?}");
    assert!(log.contains(&"apply b1 via two".to_owned()), "{log:?}");
    // The instance no longer counted is destroyed through the alias too.
    tf.config_hcl(&config(1)).unwrap();
    tf.apply().unwrap();
    assert_eq!(rec.take(), ["delete b1 via two"]);
}

#[test]
fn an_instance_whose_key_has_a_dot_can_be_imported() {
    let (mut tf, rec) = harness();
    tf.config_hcl(
        r#"
resource "rec_secret" "a" {
  for_each = toset(["x.y"])
  name     = each.key
}
"#,
    )
    .unwrap();
    let state = tf.import("rec_secret.a[\"x.y\"]", "x.y").unwrap();
    assert_eq!(rec.take(), ["import x.y"]);
    let resources = &state.to_json()["values"]["root_module"]["resources"];
    assert_eq!(resources[0]["address"], json!("rec_secret.a[\"x.y\"]"));
    assert_eq!(resources[0]["index"], json!("x.y"));
}

#[test]
fn an_object_moved_keeps_its_provider_configuration_once_its_resource_is_gone() {
    let (mut tf, rec) = harness_with_aliases();
    let two = "provider \"rec\" {\n  label = \"main\"\n}\nprovider \"rec\" {\n  alias = \"two\"\n  label = \"two\"\n}\n";
    tf.config_hcl(&format!(
        "{two}resource \"rec_secret\" \"a\" {{\n  provider = rec.two\n  name = \"a\"\n}}\n"
    ))
    .unwrap();
    tf.apply().unwrap();
    tf.config_hcl(&format!(
        "{two}resource \"rec_secret\" \"b\" {{\n  provider = rec.two\n  name = \"a\"\n}}\nmoved {{\n  from = rec_secret.a\n  to   = rec_secret.b\n}}\n"
    ))
    .unwrap();
    tf.apply().unwrap();
    rec.take();
    // Gone from the configuration, the moved object is destroyed through
    // the configuration that made it.
    tf.config_hcl(two).unwrap();
    tf.apply().unwrap();
    assert_eq!(rec.take(), ["delete a via two"]);
}

/// `rec_secret.s` with an action triggered before and one after its
/// create, and `rec_secret.other`, which the after action's message reads.
const TRIGGERED_ON_CREATE: &str = r#"
resource "rec_secret" "other" {
  name = "other"
}
resource "rec_secret" "s" {
  name = "s"
  lifecycle {
    action_trigger {
      events  = [before_create]
      actions = [action.rec_notify.pre]
    }
    action_trigger {
      events  = [after_create]
      actions = [action.rec_notify.post]
    }
  }
}
action "rec_notify" "pre" {
  config {
    message = "pre"
  }
}
action "rec_notify" "post" {
  config {
    message = "post ${rec_secret.other.length}"
  }
}
"#;

#[test]
fn actions_triggered_on_create_are_planned_and_run_before_and_after_the_resources_create() {
    let (mut tf, rec) = harness();
    tf.config_hcl(TRIGGERED_ON_CREATE).unwrap();
    let plan = tf.plan().unwrap();
    // T2: validated and planned with the resource's change; post's
    // message is not known until other is created.
    assert_eq!(
        rec.take(),
        [
            "validate action pre",
            "plan action pre",
            "validate action (unknown)",
            "plan action (unknown)"
        ]
    );
    // T3: as `terraform show -json` lists them.
    let invocations = &plan.to_json()["action_invocations"];
    assert_eq!(
        invocations,
        &json!([
            {
                "address": "action.rec_notify.pre",
                "type": "rec_notify",
                "name": "pre",
                "config_values": { "message": "pre" },
                "config_sensitive": {},
                "config_unknown": {},
                "provider_name": "registry.terraform.io/hashicorp/rec",
                "lifecycle_action_trigger": {
                    "triggering_resource_address": "rec_secret.s",
                    "action_trigger_event": "BeforeCreate",
                    "action_trigger_block_index": 0,
                    "actions_list_index": 0,
                    "on_failure": "ActionOnFailureHalt"
                }
            },
            {
                "address": "action.rec_notify.post",
                "type": "rec_notify",
                "name": "post",
                "config_values": {},
                "config_sensitive": {},
                "config_unknown": { "message": true },
                "provider_name": "registry.terraform.io/hashicorp/rec",
                "lifecycle_action_trigger": {
                    "triggering_resource_address": "rec_secret.s",
                    "action_trigger_event": "AfterCreate",
                    "action_trigger_block_index": 1,
                    "actions_list_index": 0,
                    "on_failure": "ActionOnFailureHalt"
                }
            }
        ])
    );
    tf.apply_plan(&plan).unwrap();
    // T4: before_create before the create, after_create after it, with
    // the configuration evaluated again (other exists now: its apply came
    // first, as s depends on what its actions refer to).
    assert_eq!(
        rec.take(),
        [
            "apply other password=None",
            "invoke action pre",
            "apply s password=None",
            "invoke action post 0"
        ]
    );
    let triggered = tf.triggered();
    assert_eq!(
        triggered
            .iter()
            .map(|t| (
                t.action.as_str(),
                t.resource.as_str(),
                t.event,
                t.progress.clone()
            ))
            .collect::<Vec<_>>(),
        [
            (
                "action.rec_notify.pre",
                "rec_secret.s",
                "before_create",
                vec!["sending pre".to_owned(), "sent".to_owned()]
            ),
            (
                "action.rec_notify.post",
                "rec_secret.s",
                "after_create",
                vec!["sending post 0".to_owned(), "sent".to_owned()]
            )
        ]
    );
    // Nothing changes: nothing triggered.
    let plan = tf.plan().unwrap();
    assert!(plan.to_json().get("action_invocations").is_none());
    tf.apply_plan(&plan).unwrap();
    assert!(tf.triggered().is_empty());
}

/// A configuration: `head`, then `rec_secret.s` with `body` and the
/// `lifecycle` block's `lifecycle`, and `action.rec_notify.n` sending
/// `message`.
fn triggering(head: &str, body: &str, lifecycle: &str, message: &str) -> String {
    format!(
        r#"
{head}
resource "rec_secret" "s" {{
  {body}
  lifecycle {{
    {lifecycle}
  }}
}}
action "rec_notify" "n" {{
  config {{
    message = "{message}"
  }}
}}
"#
    )
}

/// An `action_trigger` of `action.rec_notify.n` on `events`.
fn trigger(events: &str) -> String {
    format!("action_trigger {{\n  events = [{events}]\n  actions = [action.rec_notify.n]\n}}")
}

#[test]
fn actions_triggered_on_update_run_around_an_update_and_not_a_create() {
    let (mut tf, rec) = harness();
    let config = |note: &str| {
        triggering(
            "",
            &format!("name = \"s\"\nnote = \"{note}\""),
            &trigger("before_update, after_update"),
            "note ${rec_secret.s.note}",
        )
    };
    tf.config_hcl(&config("one")).unwrap();
    tf.apply().unwrap();
    assert_eq!(rec.take(), ["apply s password=None"]);
    assert!(tf.triggered().is_empty());
    tf.config_hcl(&config("two")).unwrap();
    let plan = tf.plan().unwrap();
    let events: Vec<&str> = plan.to_json()["action_invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i["lifecycle_action_trigger"]["action_trigger_event"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(events, ["BeforeUpdate", "AfterUpdate"]);
    rec.take();
    tf.apply_plan(&plan).unwrap();
    // The action reads the resource that triggers it: the object in state
    // before the update, the updated one after it.
    assert_eq!(
        rec.take(),
        [
            "invoke action note one",
            "update s note=Some(\"two\")",
            "invoke action note two"
        ]
    );
}

#[test]
fn a_trigger_whose_condition_is_false_is_neither_planned_nor_invoked() {
    let (mut tf, rec) = harness();
    tf.config_hcl(&triggering(
        "variable \"notify\" {\n  type = bool\n  default = false\n}",
        "count = 2\nname = \"s${count.index}\"",
        "action_trigger {\n  events = [after_create]\n  condition = var.notify || count.index == 1\n  actions = [action.rec_notify.n]\n}",
        "made",
    ))
    .unwrap();
    let plan = tf.plan().unwrap();
    let invocations = plan.to_json()["action_invocations"].as_array().unwrap();
    assert_eq!(invocations.len(), 1);
    assert_eq!(
        invocations[0]["lifecycle_action_trigger"]["triggering_resource_address"],
        "rec_secret.s[1]"
    );
    rec.take();
    tf.apply_plan(&plan).unwrap();
    assert_eq!(
        rec.take(),
        [
            "apply s0 password=None",
            "apply s1 password=None",
            "invoke action made"
        ]
    );
}

#[test]
fn a_sensitive_value_in_a_triggered_actions_configuration_is_marked_in_the_plan() {
    let (mut tf, _rec) = harness();
    tf.config_hcl(&triggering(
        "variable \"to\" {\n  default = \"ops\"\n  sensitive = true\n}",
        "name = \"s\"",
        &trigger("after_create"),
        "to ${var.to}",
    ))
    .unwrap();
    let plan = tf.plan().unwrap();
    let invocation = &plan.to_json()["action_invocations"][0];
    assert_eq!(invocation["config_values"], json!({ "message": "to ops" }));
    assert_eq!(invocation["config_sensitive"], json!({ "message": true }));
}

#[test]
fn an_action_that_fails_stops_the_apply_before_the_create_and_fails_it_after() {
    let failing = |event: &str| {
        let (mut tf, rec) = harness();
        tf.config_hcl(&triggering("", "name = \"s\"", &trigger(event), "fail"))
            .unwrap();
        let e = tf.apply().unwrap_err();
        assert_eq!(
            e.iter().next().unwrap().summary,
            "the notification could not be sent"
        );
        // Past the validate and plan calls.
        let log = rec.take()[2..].to_vec();
        (tf, log)
    };
    // Before: the resource is not created.
    let (tf, log) = failing("before_create");
    assert_eq!(log, ["invoke action fail"], "the create was not applied");
    assert!(tf.state().unwrap().addresses().is_empty());
    assert_eq!(tf.triggered()[0].progress, ["sending fail"]);
    // After: created and kept in state, the apply failed.
    let (tf, log) = failing("after_create");
    assert_eq!(log, ["apply s password=None", "invoke action fail"]);
    assert_eq!(tf.state().unwrap().addresses(), ["rec_secret.s"]);
}

#[test]
fn an_action_trigger_is_refused_in_cores_words_when_it_names_no_event_or_action() {
    let (mut tf, _rec) = harness();
    let refused = |tf: &mut Harness, trigger: &str| {
        let lifecycle = format!("action_trigger {{\n{trigger}\n}}");
        (tf.config_hcl(&triggering("", "name = \"s\"", &lifecycle, "m"))).unwrap();
        let e = tf.plan().unwrap_err();
        e.iter().next().unwrap().summary.clone()
    };
    assert_eq!(
        refused(&mut tf, "events = [after_create]"),
        "No actions specified"
    );
    assert_eq!(
        refused(&mut tf, "actions = [action.rec_notify.n]"),
        "No events specified"
    );
    assert_eq!(
        refused(
            &mut tf,
            "events = [on_create]\nactions = [action.rec_notify.n]"
        ),
        "Invalid \"event\" value on_create"
    );
    assert_eq!(
        refused(
            &mut tf,
            "events = [after_create, after_create]\nactions = [action.rec_notify.n]"
        ),
        "Duplicate \"after_create\" event"
    );
    assert_eq!(
        refused(
            &mut tf,
            "events = [after_create]\nactions = [action.rec_notify.gone]"
        ),
        "Reference to undeclared action"
    );
    assert!(refused(
        &mut tf,
        "events = [before_destroy]\nactions = [action.rec_notify.n]"
    )
    .contains("the harness does not support the before_destroy event"));
}

#[test]
fn a_replace_runs_its_create_actions_after_the_old_object_is_destroyed() {
    let (mut tf, rec) = harness();
    let config = |note: &str| {
        let head = format!(
            "provider \"rec\" {{\n  label = \"main\"\n}}\nresource \"rec_secret\" \"other\" {{\n  name = \"other\"\n  note = \"{note}\"\n}}"
        );
        let lifecycle = format!(
            "replace_triggered_by = [rec_secret.other]\n{}",
            trigger("before_create, after_create, before_update")
        );
        triggering(&head, "name = \"s\"", &lifecycle, "n")
    };
    tf.config_hcl(&config("one")).unwrap();
    tf.apply().unwrap();
    tf.config_hcl(&config("two")).unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(
        plan.action("rec_secret.s"),
        Some(ChangeAction::DeleteThenCreate)
    );
    rec.take();
    tf.apply_plan(&plan).unwrap();
    // T4: the destroy node first, then the apply node's before_create,
    // create and after_create; a replace fires no update event.
    assert_eq!(
        rec.take(),
        [
            "apply other via main",
            "delete s via main",
            "invoke action n",
            "apply s via main",
            "apply s password=None",
            "invoke action n"
        ]
    );
    let events: Vec<&str> = tf.triggered().iter().map(|t| t.event).collect();
    assert_eq!(events, ["before_create", "after_create"]);
}
