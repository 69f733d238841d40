//! The in-process Terraform core keeping its state in kv's own state store
//! (`state_store "kv_fs"`, protocol 6.11), as Terraform does behind a
//! `state_store` block: each apply writes Terraform's state file to the
//! store under the state's lock, and another holder of the lock stops it.

use std::path::PathBuf;

use ctywire_provider::tfplugin6::Provider;
use ctywire_provider_testing::{Harness, InProcess, StateStoreClient};
use serde_json::{json, Value as Json};
use tokio::runtime::Runtime;

#[path = "../src/main.rs"]
#[allow(dead_code)]
mod kv;

/// The entries' directory and the states' directory of one test.
struct Dirs {
    entries: PathBuf,
    states: PathBuf,
}

impl Dirs {
    fn new(name: &str) -> Dirs {
        let base = std::env::temp_dir().join(format!("kv-backend-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        Dirs {
            entries: base.join("entries"),
            states: base.join("states"),
        }
    }
    fn provider_config(&self) -> Json {
        json!({ "root": self.entries.display().to_string() })
    }
    fn store_config(&self) -> Json {
        json!({ "root": self.states.display().to_string() })
    }
    /// The lock file kv_fs keeps for the workspace's state.
    fn lock_file(&self) -> PathBuf {
        self.states.join("default.tflock")
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        if let Some(base) = self.entries.parent() {
            let _ = std::fs::remove_dir_all(base);
        }
    }
}

fn kv_provider() -> impl Provider {
    kv::provider()
        .build()
        .expect("the kv provider's schemas are valid")
}

/// `terraform init` of a configuration whose state is kept in `kv_fs`.
fn harness(dirs: &Dirs, body: &str) -> Harness {
    let mut h = Harness::new(kv_provider()).unwrap().source("ctywire/kv");
    h.config_hcl(&format!(
        "provider \"kv\" {{\n  root = {}\n}}\n{body}",
        json!(dirs.entries.display().to_string())
    ))
    .unwrap();
    h.state_store(
        kv_provider(),
        "kv_fs",
        dirs.provider_config(),
        dirs.store_config(),
    )
    .unwrap();
    h
}

fn entry(value: &str) -> String {
    format!("resource \"kv_entry\" \"a\" {{\n  key = \"a\"\n  value = \"{value}\"\n}}\n")
}

/// Another client of the same store (another Terraform), on its own
/// provider instance and runtime.
fn outside(dirs: &Dirs) -> (Runtime, StateStoreClient<InProcess<impl Provider>>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(StateStoreClient::in_process(
        kv_provider(),
        "kv_fs",
        &dirs.provider_config(),
        &dirs.store_config(),
    ));
    (runtime, client.unwrap())
}

/// The workspace's state as the store holds it.
fn stored(dirs: &Dirs) -> Option<Json> {
    let (runtime, mut client) = outside(dirs);
    let bytes = runtime.block_on(client.read("default")).unwrap()?;
    Some(serde_json::from_slice(&bytes).expect("the stored state is JSON"))
}

#[test]
fn each_apply_writes_the_state_file_to_the_store_and_it_reads_back_equal() {
    let dirs = Dirs::new("write");
    let mut h = harness(&dirs, &entry("one"));
    assert_eq!(stored(&dirs), None, "init writes nothing");
    let state = h.apply().unwrap();

    let doc = stored(&dirs).expect("the apply wrote the state");
    assert_eq!(doc, h.state_file().unwrap());
    assert_eq!(doc["version"], 4);
    assert_eq!(doc["serial"], 1);
    let lineage = doc["lineage"].as_str().unwrap().to_owned();
    assert_eq!(lineage.len(), 36, "a UUID: {lineage}");
    let r = &doc["resources"][0];
    assert_eq!(
        (&r["mode"], &r["type"], &r["name"]),
        (&json!("managed"), &json!("kv_entry"), &json!("a"))
    );
    assert_eq!(
        r["provider"],
        "provider[\"registry.terraform.io/ctywire/kv\"]"
    );
    let instance = &r["instances"][0];
    assert_eq!(&instance["attributes"], state.values("kv_entry.a"));
    assert_eq!(instance["attributes"]["value"], "one");
    assert_eq!(
        instance["sensitive_attributes"],
        json!([[{ "type": "get_attr", "value": "value" }]])
    );
    assert!(!dirs.lock_file().exists(), "the lock is released");

    // An update: the next serial of the same lineage.
    h.config_hcl(&format!(
        "provider \"kv\" {{\n  root = {}\n}}\n{}",
        json!(dirs.entries.display().to_string()),
        entry("two")
    ))
    .unwrap();
    h.apply().unwrap();
    let doc = stored(&dirs).unwrap();
    assert_eq!(
        (&doc["serial"], doc["lineage"].as_str()),
        (&json!(2), Some(lineage.as_str()))
    );
    assert_eq!(
        doc["resources"][0]["instances"][0]["attributes"]["value"],
        "two"
    );

    h.destroy().unwrap();
    let doc = stored(&dirs).unwrap();
    assert_eq!(doc["serial"], 3);
    assert_eq!(doc["resources"], json!([]));
}

/// The configuration reads the lock file while it runs (`file()` at plan
/// and again at apply): a plan or an apply succeeds only if the lock is
/// held throughout, and what it read is core's lock information.
#[test]
fn the_lock_is_held_with_cores_lock_info_from_plan_to_the_end_of_apply() {
    let dirs = Dirs::new("held");
    let lock = json!(dirs.lock_file().display().to_string());
    let body = format!(
        "resource \"kv_entry\" \"probe\" {{\n  key = \"probe\"\n  value = file({lock})\n}}\n"
    );
    let mut h = harness(&dirs, &body);
    // `terraform plan` holds it too, for a plan.
    let plan = h.plan().unwrap();
    let read = plan.change("kv_entry.probe")["after"]["value"]
        .as_str()
        .unwrap();
    let info: ctywire_provider::LockInfo = serde_json::from_str(read).unwrap();
    assert_eq!(info.operation, "OperationTypePlan");
    assert!(!dirs.lock_file().exists(), "released after the plan");

    let state = h.apply().unwrap();
    let read = state.values("kv_entry.probe")["value"].as_str().unwrap();
    let info: ctywire_provider::LockInfo = serde_json::from_str(read).unwrap();
    assert_eq!(info.operation, "OperationTypeApply");
    assert_eq!(
        info.version, "1.11.4",
        "the Terraform version the harness gives"
    );
    assert!(info.who.contains('@'), "{}", info.who);
    assert_eq!(info.id.len(), 36);
    assert!(!dirs.lock_file().exists(), "released after the apply");
}

#[test]
fn an_apply_while_another_holds_the_lock_fails_in_cores_words() {
    let dirs = Dirs::new("refused");
    let mut h = harness(&dirs, &entry("one"));
    let (runtime, mut other) = outside(&dirs);
    let held = runtime
        .block_on(other.lock("default", "OperationTypePlan"))
        .unwrap();

    let e = h.apply().unwrap_err();
    let d = e.iter().next().unwrap();
    assert_eq!(d.summary, "Error acquiring the state lock");
    for shown in [held.as_str(), "OperationTypePlan"] {
        assert!(d.detail.contains(shown), "{shown} in {}", d.detail);
    }
    assert!(!dirs.entries.join("a.json").exists(), "nothing was applied");
    assert_eq!(stored(&dirs), None, "nothing was written");

    runtime.block_on(other.unlock("default", &held)).unwrap();
    h.apply().unwrap();
    assert_eq!(stored(&dirs).unwrap()["serial"], 1);
}

#[test]
fn a_stored_state_with_resources_is_not_silently_replaced() {
    let dirs = Dirs::new("adopt");
    harness(&dirs, &entry("one")).apply().unwrap();
    let mut h = Harness::new(kv_provider()).unwrap().source("ctywire/kv");
    let e = h
        .state_store(
            kv_provider(),
            "kv_fs",
            dirs.provider_config(),
            dirs.store_config(),
        )
        .err()
        .expect("refused");
    let d = e.iter().next().unwrap();
    assert_eq!(d.summary, "Failed to load state");
    assert!(d.detail.contains("has resources"), "{}", d.detail);
}
