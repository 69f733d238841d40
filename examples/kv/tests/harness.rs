//! The kv example through the in-process Terraform core
//! (ctywire-provider-testing), configured in HCL as its users write it:
//! the lifecycle of tests/terraform.rs —
//! plan, apply, an empty re-plan, update, replace, a refresh that finds an
//! entry deleted outside Terraform, import, a validation error at its
//! attribute, destroy — in milliseconds, no `terraform` binary needed.

use std::path::PathBuf;

use ctywire_provider_testing::{ChangeAction, Harness};
use serde_json::json;

#[path = "../src/main.rs"]
#[allow(dead_code)]
mod kv;

struct Store(PathBuf);

impl Store {
    fn new(name: &str) -> Store {
        let dir = std::env::temp_dir().join(format!("kv-harness-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Store(dir)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn harness(store: &Store) -> Harness {
    let provider = kv::provider()
        .build()
        .expect("the kv provider's schemas are valid");
    let mut h = Harness::new(provider).unwrap().source("ctywire/kv");
    h.provider_config(json!({ "root": store.0.display().to_string() }));
    h
}

/// A `main.tf` for the store: the provider block, then `body`.
fn main_tf(store: &Store, body: &str) -> String {
    format!(
        "provider \"kv\" {{\n  root = {}\n}}\n{body}",
        serde_json::Value::String(store.0.display().to_string())
    )
}

/// `kv_entry.a` in HCL, as a user writes it.
fn entry_tf(key: &str, value: &str) -> String {
    format!(
        r#"
resource "kv_entry" "a" {{
  key   = "{key}"
  value = "{value}"
  tags  = {{ env = "test" }}
  ports = [443, 80]
  rule {{
    port = 80
  }}
  rule {{
    port = 443
    note = "tls"
  }}
}}
"#
    )
}

fn entry(key: &str, value: &str) -> serde_json::Value {
    json!({
        "key": key,
        "value": value,
        "tags": { "env": "test" },
        "ports": [443, 80],
        "rule": [{ "port": 80 }, { "port": 443, "note": "tls" }],
    })
}

#[test]
fn an_entry_lives_through_create_update_replace_and_destroy() {
    let store = Store::new("lifecycle");
    let mut tf = harness(&store);
    tf.config_hcl(&main_tf(&store, &entry_tf("a", "one")))
        .unwrap();

    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("kv_entry.a"), ["create"]);
    assert_eq!(plan.change("kv_entry.a")["after_unknown"]["revision"], true);
    assert_eq!(plan.change("kv_entry.a")["after_sensitive"]["value"], true);
    let state = tf.apply_plan(&plan).unwrap();
    assert_eq!(state.values("kv_entry.a")["revision"], 1);
    assert_eq!(state.values("kv_entry.a")["ports"], json!([80, 443]));
    assert!(store.0.join("a.json").exists());

    assert!(
        tf.plan().unwrap().is_empty(),
        "a second plan changes nothing"
    );

    tf.config_hcl(&main_tf(&store, &entry_tf("a", "two")))
        .unwrap();
    assert_eq!(tf.plan().unwrap().actions("kv_entry.a"), ["update"]);
    assert_eq!(tf.apply().unwrap().values("kv_entry.a")["revision"], 2);

    tf.config_hcl(&main_tf(&store, &entry_tf("b", "two")))
        .unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("kv_entry.a"), ["delete", "create"]);
    assert_eq!(plan.change("kv_entry.a")["replace_paths"], json!([["key"]]));
    tf.apply_plan(&plan).unwrap();
    assert!(!store.0.join("a.json").exists() && store.0.join("b.json").exists());

    assert!(tf.destroy().unwrap().addresses().is_empty());
    assert!(!store.0.join("b.json").exists());
}

#[test]
fn an_entry_deleted_outside_is_refreshed_away_and_planned_again() {
    let store = Store::new("refresh");
    let mut tf = harness(&store);
    tf.resource("kv_entry.a", entry("a", "one")).unwrap();
    tf.apply().unwrap();
    std::fs::remove_file(store.0.join("a.json")).unwrap();
    assert_eq!(
        tf.plan().unwrap().action("kv_entry.a"),
        Some(ChangeAction::Create)
    );
    assert!(tf.refresh().unwrap().addresses().is_empty());
}

#[test]
fn an_existing_entry_is_imported_by_its_key() {
    let store = Store::new("import");
    let mut first = harness(&store);
    first.resource("kv_entry.a", entry("a", "one")).unwrap();
    first.apply().unwrap();

    // Another configuration imports the entry the first one wrote.
    let mut tf = harness(&store);
    tf.resource("kv_entry.a", entry("a", "one")).unwrap();
    let state = tf.import("kv_entry.a", "a").unwrap();
    assert_eq!(state.values("kv_entry.a")["value"], "one");
    assert!(tf.plan().unwrap().is_empty());
    let err = tf.import("kv_entry.a", "a").unwrap_err();
    assert_eq!(
        err.iter().next().unwrap().summary,
        "Resource already managed by Terraform"
    );
}

#[test]
fn a_key_with_a_slash_is_refused_at_the_key() {
    let store = Store::new("validate");
    let mut tf = harness(&store);
    tf.resource("kv_entry.a", entry("a/b", "one")).unwrap();
    let err = tf.plan().unwrap_err();
    let d = err.iter().find(|d| d.is_error()).unwrap();
    assert_eq!(
        d.attribute.as_ref().map(ToString::to_string).as_deref(),
        Some(".key")
    );
}

/// Identity (protocol 6.9): the harness asks for identity schemas as
/// Terraform 1.12 does and keeps each object's identity in state.
#[test]
fn the_identity_is_the_key_and_stays_in_state_through_plan_apply_and_refresh() {
    let store = Store::new("identity");
    let mut tf = harness(&store);
    tf.resource("kv_entry.a", entry("a", "one")).unwrap();
    let state = tf.apply().unwrap();
    assert_eq!(state.identity("kv_entry.a"), &json!({ "key": "a" }));
    assert_eq!(state.resource("kv_entry.a")["identity_schema_version"], 0);

    // An update keeps it; the plan before it sent and got it back.
    tf.config_hcl(&main_tf(&store, &entry_tf("a", "two")))
        .unwrap();
    assert_eq!(tf.plan().unwrap().actions("kv_entry.a"), ["update"]);
    assert_eq!(
        tf.apply().unwrap().identity("kv_entry.a"),
        &json!({ "key": "a" })
    );
    assert_eq!(
        tf.refresh().unwrap().identity("kv_entry.a"),
        &json!({ "key": "a" })
    );

    // A replace gives the new object its own.
    tf.resource("kv_entry.a", entry("b", "two")).unwrap();
    assert_eq!(
        tf.apply().unwrap().identity("kv_entry.a"),
        &json!({ "key": "b" })
    );
}

#[test]
fn an_entry_is_imported_by_its_identity_with_the_identity_kept() {
    let store = Store::new("import-identity");
    let mut first = harness(&store);
    first.resource("kv_entry.a", entry("a", "one")).unwrap();
    first.apply().unwrap();

    let mut tf = harness(&store);
    tf.resource("kv_entry.a", entry("a", "one")).unwrap();
    let state = tf
        .import_identity("kv_entry.a", json!({ "key": "a" }))
        .unwrap();
    assert_eq!(state.values("kv_entry.a")["value"], "one");
    assert_eq!(state.identity("kv_entry.a"), &json!({ "key": "a" }));
    assert!(tf.plan().unwrap().is_empty());

    let mut other = harness(&store);
    other.resource("kv_entry.z", entry("z", "one")).unwrap();
    let err = other
        .import_identity("kv_entry.z", json!({ "key": "z" }))
        .unwrap_err();
    assert_eq!(
        err.iter().next().unwrap().summary,
        "Cannot import non-existent remote object"
    );
}

/// What the test reads of an entry listed with its object: a typed model
/// of some of its attributes.
#[derive(serde::Deserialize)]
struct Listed {
    key: String,
    value: String,
    revision: Option<u64>,
    #[serde(flatten)]
    _rest: ctywire_provider::ctywire::IgnoredAttributes,
}

#[derive(serde::Deserialize)]
struct EntryId {
    key: String,
}

/// List resources (protocol 6.10): `list "kv_entry"` with a prefix.
#[test]
fn the_list_resource_finds_entries_by_prefix_with_their_identities() {
    let store = Store::new("list");
    let mut tf = harness(&store);
    for key in ["app-1", "app-2", "db-1"] {
        tf.resource(
            &format!("kv_entry.{}", key.replace('-', "_")),
            entry(key, key),
        )
        .unwrap();
    }
    tf.apply().unwrap();

    let found = tf
        .list("kv_entry", json!({ "prefix": "app-" }), true, 100)
        .unwrap();
    let names: Vec<&str> = found.iter().map(|l| l.display_name.as_str()).collect();
    assert_eq!(names, ["app-1", "app-2"]);
    let first: Listed = found[0].object().unwrap().unwrap();
    assert_eq!(
        (first.key.as_str(), first.value.as_str()),
        ("app-1", "app-1")
    );
    assert_eq!(first.revision, Some(1));
    assert_eq!(found[1].identity::<EntryId>().unwrap().key, "app-2");

    // Without the objects: identities only; and the limit stops the list.
    let ids = tf.list("kv_entry", json!({}), false, 2).unwrap();
    assert_eq!(ids.len(), 2);
    assert!(ids.iter().all(|l| l.object_json.is_none()));
    assert_eq!(ids[0].identity_json, json!({ "key": "app-1" }));
}

#[test]
fn a_key_made_from_another_entrys_id_flows_through_plan_and_apply() {
    let store = Store::new("flow");
    let mut tf = harness(&store);
    tf.config_hcl(&main_tf(
        &store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
resource "kv_entry" "b" {
  key   = "${kv_entry.a.id}-copy"
  value = "two"
}
"#,
    ))
    .unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("kv_entry.b"), ["create"]);
    // `a`'s id is known at plan (same_as its key), so `b`'s key is too.
    assert_eq!(plan.change("kv_entry.b")["after"]["key"], "a-copy");
    tf.apply().unwrap();
    assert!(tf.plan().unwrap().is_empty());
    assert_eq!(tf.state().unwrap().values("kv_entry.b")["key"], "a-copy");
}

#[test]
fn the_hash_function_is_called_from_a_configuration_and_its_outputs_kept() {
    let store = Store::new("function");
    let mut tf = harness(&store);
    tf.config_hcl(&main_tf(
        &store,
        r#"
variable "word" { default = "abc" }
resource "kv_entry" "a" {
  key   = "h"
  value = provider::kv::hash(var.word)
}
output "hash" {
  value     = kv_entry.a.value
  sensitive = true
}
"#,
    ))
    .unwrap();
    let state = tf.apply().unwrap();
    // kv's hash is the SHA-256 of its input, as Terraform's sha256.
    let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(state.values("kv_entry.a")["value"], sha);
    assert_eq!(
        state.to_json()["values"]["outputs"]["hash"],
        json!({ "sensitive": true, "value": sha, "type": "string" })
    );
    tf.variable("word", json!("")).unwrap();
    let plan = tf.plan().unwrap();
    assert_eq!(plan.actions("kv_entry.a"), ["update"]);
}

#[test]
fn the_entries_data_source_is_read_at_plan_or_at_apply_when_its_prefix_is_unknown() {
    let store = Store::new("data");
    let mut tf = harness(&store);
    tf.config_hcl(&main_tf(
        &store,
        r#"
resource "kv_entry" "app" {
  key   = "app-1"
  value = "one"
}
data "kv_entries" "apps" {
  prefix = "app-"
}
data "kv_entries" "after" {
  prefix = "${kv_entry.app.revision}"
}
output "apps" {
  value = data.kv_entries.apps.keys
}
"#,
    ))
    .unwrap();
    let plan = tf.plan().unwrap();
    // `apps` is read during plan (before app-1 exists): no change of its
    // own. `after` waits for app's revision.
    assert!(plan.resource_change("data.kv_entries.apps").is_null());
    assert_eq!(plan.actions("data.kv_entries.after"), ["read"]);
    assert_eq!(
        plan.resource_change("data.kv_entries.after")["action_reason"],
        "read_because_config_unknown"
    );
    let state = tf.apply().unwrap();
    assert_eq!(state.values("data.kv_entries.apps")["keys"], json!([]));
    assert_eq!(state.values("data.kv_entries.after")["prefix"], "1");
    assert_eq!(state.resource("data.kv_entries.after")["mode"], "data");
    // The next plan reads both again, app-1 there now.
    tf.apply().unwrap();
    let state = tf.state().unwrap();
    assert_eq!(
        state.values("data.kv_entries.apps")["keys"],
        json!(["app-1"])
    );
    assert_eq!(
        state.to_json()["values"]["outputs"]["apps"]["value"],
        json!(["app-1"])
    );
    assert!(tf.plan().unwrap().is_empty());
}

#[test]
fn the_entries_are_listed_by_a_query_with_their_state_when_asked() {
    let store = Store::new("query");
    let mut tf = harness(&store);
    tf.config_hcl(&main_tf(
        &store,
        r#"
resource "kv_entry" "app" {
  key   = "app-1"
  value = "one"
}
resource "kv_entry" "db" {
  key   = "db-1"
  value = "two"
}
"#,
    ))
    .unwrap();
    tf.apply().unwrap();
    let listed = tf
        .query(
            r#"
list "kv_entry" "apps" {
  provider         = kv
  include_resource = true
  config {
    prefix = "app-"
  }
}
list "kv_entry" "all" {
  provider = kv
}
"#,
        )
        .unwrap();
    let apps = &listed["list.kv_entry.apps"];
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0].display_name, "app-1");
    assert_eq!(apps[0].object_json.as_ref().unwrap()["value"], "one");
    let all: Vec<&str> = (listed["list.kv_entry.all"].iter())
        .map(|l| l.display_name.as_str())
        .collect();
    assert_eq!(all, ["app-1", "db-1"]);
    // Without include_resource, no state comes with a result.
    assert!(listed["list.kv_entry.all"][0].object_json.is_none());
}
