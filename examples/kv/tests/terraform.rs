//! The kv example driven by the real terraform CLI through
//! `dev_overrides`: plan, apply, an empty re-plan, update, replace, a
//! refresh that finds an entry deleted outside Terraform, import,
//! validation errors at their attributes, the provider function, its log
//! lines under `TF_LOG`, and destroy. Without `terraform` it says
//! `SKIPPED: …` and passes, except under `CI=true`.

use std::path::{Path, PathBuf};

#[path = "../../../e2e/tests/support/mod.rs"]
mod support;
use support::{dev_overrides, run, terraform, terraform_available};

const SOURCE: &str = "registry.terraform.io/ctywire/kv";

/// A configuration: the provider block, `body`, and the outputs.
fn config(store: &Path, body: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "{SOURCE}" }}
  }}
}}

provider "kv" {{
  root = "{}"
}}

{body}

output "hash" {{
  value = provider::kv::hash("abc")
}}
"#,
        store.display()
    )
}

fn entry(key: &str, value: &str) -> String {
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

data "kv_entries" "all" {{
  prefix     = ""
  depends_on = [kv_entry.a]
}}

output "keys" {{
  value = data.kv_entries.all.keys
}}

output "revision" {{
  value = kv_entry.a.revision
}}
"#
    )
}

struct Workspace {
    dir: PathBuf,
    store: PathBuf,
}

impl Workspace {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("ctywire-kv-e2e-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let provider_dir = Path::new(env!("CARGO_BIN_EXE_terraform-provider-kv"))
            .parent()
            .expect("the binary is in a directory");
        std::fs::write(dir.join("terraformrc"), dev_overrides(SOURCE, provider_dir)).unwrap();
        let store = dir.join("store");
        Workspace { dir, store }
    }

    fn write(&self, body: &str) {
        std::fs::write(self.dir.join("main.tf"), config(&self.store, body)).unwrap();
    }

    /// Runs terraform with `args`, returning its exit code and output.
    fn tf(&self, args: &[&str]) -> (i32, String) {
        run(terraform(&self.dir).args(args).arg("-no-color"))
    }

    fn apply(&self) -> String {
        let (code, out) = self.tf(&["apply", "-input=false", "-auto-approve"]);
        assert_eq!(code, 0, "apply failed:\n{out}");
        out
    }

    /// `terraform plan -detailed-exitcode`: 0 when there is nothing to do.
    fn plan(&self) -> (i32, String) {
        self.tf(&["plan", "-input=false", "-detailed-exitcode"])
    }

    fn output(&self, name: &str) -> serde_json::Value {
        let (code, out) = self.tf(&["output", "-json", name]);
        assert_eq!(code, 0, "output {name} failed:\n{out}");
        serde_json::from_str(&out).expect("terraform output -json prints JSON")
    }

    fn stored(&self, key: &str) -> Option<serde_json::Value> {
        let bytes = std::fs::read(self.store.join(format!("{key}.json"))).ok()?;
        Some(serde_json::from_slice(&bytes).expect("an entry file is JSON"))
    }
}

#[test]
fn terraform_runs_the_kv_example_through_its_whole_lifecycle() {
    if !terraform_available() {
        return;
    }
    let ws = Workspace::new();

    // Create: the plan knows `id` (it is the key) and leaves `revision`
    // for apply; the function runs at plan.
    ws.write(&entry("alpha", "one"));
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "a create is a change:\n{out}");
    assert!(
        out.contains("+ id       = \"alpha\""),
        "id is known at plan:\n{out}"
    );
    assert!(out.contains("+ revision = (known after apply)"), "{out}");
    assert!(out.contains("+ value    = (sensitive value)"), "{out}");
    // The provider's log lines reach Terraform's log.
    let (code, out) = run(terraform(&ws.dir)
        .args(["apply", "-input=false", "-auto-approve", "-no-color"])
        .env("TF_LOG", "INFO"));
    assert_eq!(code, 0, "apply failed:\n{out}");
    assert!(
        out.contains("saved alpha at revision Some(1)"),
        "the provider's log line:\n{out}"
    );
    let stored = ws.stored("alpha").expect("alpha.json was written");
    assert_eq!(stored["value"], "one");
    assert_eq!(stored["ports"], serde_json::json!([80, 443]));
    assert_eq!(ws.output("revision"), 1);
    assert_eq!(ws.output("keys"), serde_json::json!(["alpha"]));
    assert_eq!(
        ws.output("hash"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );

    // Nothing changed: nothing to do.
    let (code, out) = ws.plan();
    assert_eq!(code, 0, "the re-plan must be empty:\n{out}");

    // Update in place: revision becomes unknown, then 2.
    ws.write(&entry("alpha", "two"));
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("~ update in-place"), "{out}");
    assert!(
        out.contains("~ revision = 1 -> (known after apply)"),
        "{out}"
    );
    ws.apply();
    assert_eq!(ws.output("revision"), 2);
    assert_eq!(ws.stored("alpha").unwrap()["value"], "two");
    assert_eq!(ws.plan().0, 0, "empty after the update");

    // A new key replaces the entry.
    ws.write(&entry("beta", "two"));
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("must be replaced"), "{out}");
    assert!(out.contains("# forces replacement"), "{out}");
    ws.apply();
    assert!(ws.stored("alpha").is_none(), "the old entry is gone");
    assert_eq!(ws.output("revision"), 1);
    assert_eq!(ws.output("keys"), serde_json::json!(["beta"]));

    // Deleted outside Terraform: refresh drops it and the plan creates it.
    std::fs::remove_file(ws.store.join("beta.json")).unwrap();
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("will be created"), "{out}");
    ws.apply();
    assert!(ws.stored("beta").is_some());

    // Import an entry written outside Terraform.
    let outside = serde_json::json!({
        "key": "gamma", "value": "three", "tags": null, "ports": null,
        "rule": [], "id": "gamma", "revision": 7
    });
    std::fs::write(ws.store.join("gamma.json"), outside.to_string()).unwrap();
    let imported = r#"
import {
  to = kv_entry.g
  id = "gamma"
}

resource "kv_entry" "g" {
  key   = "gamma"
  value = "three"
}
"#;
    ws.write(&format!("{}\n{imported}", entry("beta", "two")));
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("will be imported"), "{out}");
    assert!(out.contains("1 to import, 0 to add, 0 to change"), "{out}");
    ws.apply();
    let (code, out) = ws.plan();
    assert_eq!(code, 0, "empty after the import:\n{out}");

    // Validation errors, each at its attribute.
    ws.write(
        r#"
resource "kv_entry" "bad" {
  key   = ".hidden"
  value = "x"
  ports = [70000]
  rule {
    port = 0
  }
}
"#,
    );
    let (code, out) = ws.tf(&["validate"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("Attribute key value must be a file name, got: .hidden"),
        "{out}"
    );
    assert!(
        out.contains("key   = \".hidden\""),
        "the key error points at key:\n{out}"
    );
    assert!(
        out.contains("70000") && out.contains("value must be between 1 and 65535"),
        "{out}"
    );
    assert!(
        out.contains("ports = [70000]"),
        "the ports error points at ports:\n{out}"
    );
    assert!(
        out.contains("port = 0"),
        "the rule error points at rule's port:\n{out}"
    );
    assert!(
        !out.contains("u32"),
        "no Rust type names reach the user:\n{out}"
    );

    // Destroy everything.
    ws.write(&entry("beta", "two"));
    let (code, out) = ws.tf(&["destroy", "-input=false", "-auto-approve"]);
    assert_eq!(code, 0, "destroy failed:\n{out}");
    assert!(ws.stored("beta").is_none() && ws.stored("gamma").is_none());
    let _ = std::fs::remove_dir_all(&ws.dir);
}
