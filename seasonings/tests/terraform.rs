//! Terraform 1.11 drives a Seasonings plugin through the host provider:
//! `ctywire-seasonings install` writes the launcher, a CLI configuration's
//! `dev_overrides` points at it, and Terraform plans (with inputs unknown
//! until apply), applies, re-plans to nothing, updates, replaces, calls the
//! plugin's function, reads its data source, plans again an object deleted
//! outside, shows the plugin's validation at its attribute, imports, keeps
//! an object whose create failed after it existed (tainted), shows the
//! plugin's plan warnings, upgrades a state stored at an older schema
//! version through the plugin, and destroys. Each test runs for every
//! language's `things` plugin that can run here (tests/support: Python,
//! Node).
//! Without `terraform` or an interpreter it says `SKIPPED: …` and passes,
//! except under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;
mod support;
use e2e::{dev_overrides, run, terraform, terraform_available};
use support::plugins::{things, PluginCommand};

const SOURCE: &str = "registry.terraform.io/ctywire/things";

/// A working directory with the plugin installed as `things` and
/// Terraform's CLI configuration pointing at it.
struct Workspace {
    dir: PathBuf,
    language: &'static str,
    env: Vec<(String, String)>,
}

impl Workspace {
    fn new(plugin: &PluginCommand, test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "ctywire-seasonings-tf-{}-{test}-{}",
            plugin.language,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let launchers = dir.join("providers");
        let out = Command::new(env!("CARGO_BIN_EXE_ctywire-seasonings"))
            .args(["install", "--dir"])
            .arg(&launchers)
            .arg("--")
            .args(&plugin.command)
            .envs(plugin.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("ctywire-seasonings runs");
        assert!(
            out.status.success(),
            "install failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert_eq!(
            Path::new(&written),
            launchers.join("terraform-provider-things"),
            "install names the launcher after the plugin"
        );
        std::fs::write(dir.join("terraformrc"), dev_overrides(SOURCE, &launchers)).unwrap();
        Workspace {
            dir,
            language: plugin.language,
            env: plugin.env.clone(),
        }
    }

    fn write(&self, body: &str) {
        let config = format!(
            "terraform {{\n  required_providers {{\n    things = {{ source = \"{SOURCE}\" }}\n  }}\n}}\n{body}"
        );
        std::fs::write(self.dir.join("main.tf"), config).unwrap();
    }

    fn tf(&self, args: &[&str]) -> (i32, String) {
        // The plugin keeps its objects in $THINGS_DIR: Terraform passes
        // its environment to the provider, which passes it to the plugin
        // (and its runtime's, NODE_PATH say).
        let mut c = terraform(&self.dir);
        c.env("THINGS_DIR", self.things_dir())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .args(args)
            .arg("-no-color");
        let (code, out) = run(&mut c);
        (code, format!("[{} plugin]\n{out}", self.language))
    }

    fn apply(&self) -> String {
        let (code, out) = self.tf(&["apply", "-input=false", "-auto-approve"]);
        assert_eq!(code, 0, "apply failed:\n{out}");
        out
    }

    /// `terraform destroy`, which leaves the plugin no object.
    fn destroy(&self) {
        let (code, out) = self.tf(&["destroy", "-input=false", "-auto-approve"]);
        assert_eq!(code, 0, "destroy failed:\n{out}");
        assert_eq!(
            self.objects(),
            Vec::<String>::new(),
            "destroy deletes every object"
        );
    }

    /// `terraform plan -detailed-exitcode`: 0 when there is nothing to do.
    fn plan(&self) -> (i32, String) {
        self.tf(&["plan", "-input=false", "-detailed-exitcode"])
    }

    fn output(&self, name: &str) -> serde_json::Value {
        let (code, out) = run(terraform(&self.dir).args(["output", "-json", name]));
        assert_eq!(code, 0, "output {name} failed:\n{out}");
        serde_json::from_str(&out).expect("terraform output -json prints JSON")
    }

    fn things_dir(&self) -> PathBuf {
        self.dir.join("things")
    }

    /// The objects the plugin holds: its files' names, sorted.
    fn objects(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.things_dir())
            .map(|d| {
                d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A note (planned by the host), a thing whose text is unknown until the
/// note exists (planned by the plugin), a data source and a function.
fn config(name: &str, text: &str) -> String {
    format!(
        r#"
resource "things_note" "n" {{
  content = "first"
}}

resource "things_thing" "t" {{
  name = "{name}"
  text = {text}
}}

data "things_slug" "s" {{
  text = "Data Source Text"
}}

output "slug" {{
  value = things_thing.t.slug
}}

output "id" {{
  value = things_thing.t.id
}}

output "data_slug" {{
  value = data.things_slug.s.slug
}}

output "function_slug" {{
  value = provider::things::slug("Hello World")
}}
"#
    )
}

/// Runs `test` for each plugin that can run here; none (or no terraform)
/// is SKIPPED by the one rule.
fn for_each_plugin(name: &str, test: impl Fn(&Workspace)) {
    if !terraform_available() {
        return;
    }
    for plugin in things() {
        test(&Workspace::new(&plugin, name));
    }
}

#[test]
fn terraform_plans_applies_updates_replaces_and_destroys_a_plugins_resources() {
    for_each_plugin("lifecycle", |ws| {
        // Create: the thing's text waits for the note's id, so it reaches
        // the plugin's plan unknown, and its slug is unknown too; the data
        // source and the function already have answers.
        ws.write(&config("alpha", r#""Hello ${things_note.n.id}""#));
        let (code, out) = ws.plan();
        assert_eq!(code, 2, "a create is a change:\n{out}");
        assert!(out.contains("+ text = (known after apply)"), "{out}");
        assert!(out.contains("+ slug = (known after apply)"), "{out}");
        assert!(
            out.contains("+ id      = (known after apply)"),
            "the host plans the note's id unknown:\n{out}"
        );
        assert!(out.contains("+ function_slug = \"hello-world\""), "{out}");
        assert!(
            out.contains("+ data_slug     = \"data-source-text\""),
            "{out}"
        );

        ws.apply();
        let id = ws.output("id");
        let id = id.as_str().expect("the thing has an id");
        assert!(id.starts_with("alpha-"), "{id}");
        let slug = ws.output("slug");
        assert!(
            slug.as_str().is_some_and(|s| s.starts_with("hello-note-")),
            "{slug}"
        );
        assert_eq!(ws.objects().len(), 2, "{:?}", ws.objects());

        // Nothing changed: nothing to do (the plugin's plan and the
        // host's keep the prior state).
        let (code, out) = ws.plan();
        assert_eq!(code, 0, "an unchanged configuration plans nothing:\n{out}");

        // Update: a known text; the plugin plans its slug at plan time,
        // and the thing keeps its id.
        ws.write(&config("alpha", r#""New Text""#));
        let (code, out) = ws.plan();
        assert_eq!(code, 2, "{out}");
        assert!(
            out.contains(r#"-> "new-text""#),
            "the plugin plans the slug of a known text:\n{out}"
        );
        assert!(
            out.contains(&format!("id   = \"{id}\"")),
            "the id is kept at plan:\n{out}"
        );
        assert!(out.contains("update in-place"), "{out}");
        ws.apply();
        assert_eq!(
            ws.output("id"),
            serde_json::json!(id),
            "an update keeps the object"
        );
        assert_eq!(ws.output("slug"), serde_json::json!("new-text"));

        // Replace: the plugin says a new name requires replacement.
        ws.write(&config("beta", r#""New Text""#));
        let (code, out) = ws.plan();
        assert_eq!(code, 2, "{out}");
        assert!(
            out.contains("~ name = \"alpha\" -> \"beta\" # forces replacement"),
            "{out}"
        );
        ws.apply();
        let new_id = ws.output("id");
        assert!(
            new_id.as_str().is_some_and(|s| s.starts_with("beta-")),
            "{new_id}"
        );
        assert!(
            !ws.objects().contains(&format!("{id}.json")),
            "the old thing is gone: {:?}",
            ws.objects()
        );
        assert_eq!(ws.output("function_slug"), serde_json::json!("hello-world"));
        assert_eq!(
            ws.output("data_slug"),
            serde_json::json!("data-source-text")
        );

        ws.destroy();
    });
}

#[test]
fn an_apply_that_fails_after_creating_keeps_the_object_tainted() {
    for_each_plugin("tainted", |ws| {
        ws.write(
            r#"
resource "things_thing" "bad" {
  name              = "bad"
  text              = "Made"
  fail_after_create = true
}
"#,
        );
        let (code, out) = ws.tf(&["apply", "-input=false", "-auto-approve"]);
        assert_eq!(code, 1, "the apply fails:\n{out}");
        assert!(
            out.contains("Error: Thing created, then failed"),
            "the plugin's error:\n{out}"
        );
        let objects = ws.objects();
        assert_eq!(objects.len(), 1, "the object exists: {objects:?}");

        // Terraform kept it, tainted: the next plan replaces it, and a
        // destroy deletes it: nothing is lost.
        let (code, out) = ws.tf(&["state", "show", "things_thing.bad"]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("# things_thing.bad: (tainted)"), "{out}");
        let stored = objects[0].trim_end_matches(".json");
        assert!(
            out.contains(&format!("id                = \"{stored}\"")),
            "the state names the object:\n{out}"
        );
        assert_replaced_as_tainted(ws);
        ws.destroy();
    });
}

/// The next plan replaces what Terraform holds tainted.
fn assert_replaced_as_tainted(ws: &Workspace) {
    let (code, out) = ws.plan();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("is tainted, so must be replaced"), "{out}");
}

#[test]
fn a_plugin_that_exits_during_a_create_leaves_the_object_tainted_not_lost() {
    for_each_plugin("crash", |ws| {
        let body = |crash: bool| {
            format!(
                r#"
resource "things_thing" "c" {{
  name               = "crash"
  text               = "Made"
  exit_during_create = {crash}
}}
"#
            )
        };
        ws.write(&body(true));
        let (code, out) = ws.tf(&["apply", "-input=false", "-auto-approve"]);
        assert_eq!(code, 1, "the apply fails:\n{out}");
        assert!(
            out.contains(r#"plugin "things", resources.applyChange"#),
            "the error names the plugin and the method:\n{out}"
        );
        assert!(
            out.contains("exiting in the middle of creating"),
            "with the plugin's stderr:\n{out}"
        );
        assert!(out.contains("Error: The object may exist"), "{out}");
        let objects = ws.objects();
        assert_eq!(objects.len(), 1, "the plugin made it: {objects:?}");

        // Terraform holds it, tainted; the plugin finds it again by its
        // name, and the next apply replaces it: nothing is left behind.
        let (code, out) = ws.tf(&["state", "show", "things_thing.c"]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("# things_thing.c: (tainted)"), "{out}");
        ws.write(&body(false));
        assert_replaced_as_tainted(ws);
        ws.apply();
        let stored = objects[0].trim_end_matches(".json");
        let after = ws.objects();
        assert_eq!(after.len(), 1, "{after:?}");
        assert_ne!(
            after[0], objects[0],
            "the crashed create's object {stored} was replaced"
        );
        ws.destroy();
    });
}

#[test]
fn install_without_a_plugin_command_says_how_to_call_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_ctywire-seasonings"))
        .args(["install", "--dir", "x"])
        .output()
        .expect("ctywire-seasonings runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the plugin command follows `--`"), "{err}");
    assert!(
        err.contains("ctywire-seasonings install --dir DIR -- COMMAND"),
        "{err}"
    );
}

#[test]
fn the_plugins_own_validation_names_the_attribute() {
    for_each_plugin("validate", |ws| {
        ws.write(&config("Not Valid", r#""x""#));
        let (code, out) = ws.tf(&["validate"]);
        assert_eq!(code, 1, "{out}");
        assert_shown(
            &out,
            "Error: Invalid name",
            "'Not Valid': lower-case letters, digits and - only",
            r#"name = "Not Valid""#,
        );
    });
}

/// `out` shows the diagnostic `heading` with `detail`, at the attribute
/// of things_thing.t whose line is `attribute`.
fn assert_shown(out: &str, heading: &str, detail: &str, attribute: &str) {
    for part in [heading, detail, "with things_thing.t,", attribute] {
        assert!(out.contains(part), "{part:?} is not shown:\n{out}");
    }
}

#[test]
fn terraform_imports_an_object_the_plugin_holds() {
    for_each_plugin("import", |ws| {
        ws.write(
            r#"
resource "things_thing" "t" {
  name = "kept"
  text = "Kept Text"
}
"#,
        );
        ws.apply();
        let (code, out) = ws.tf(&["state", "rm", "things_thing.t"]);
        assert_eq!(code, 0, "{out}");
        let objects = ws.objects();
        let id = objects[0].trim_end_matches(".json");

        let (code, out) = ws.tf(&["import", "-input=false", "things_thing.t", id]);
        assert_eq!(code, 0, "import failed:\n{out}");
        let (code, out) = ws.plan();
        assert_eq!(
            code, 0,
            "the imported object matches its configuration:\n{out}"
        );

        // An id the plugin does not hold: Terraform's own error.
        ws.write(
            r#"
resource "things_thing" "u" {
  name = "missing"
  text = "x"
}
"#,
        );
        let (code, out) = ws.tf(&["import", "-input=false", "things_thing.u", "no-such-id"]);
        assert_ne!(code, 0, "{out}");
        assert!(
            out.contains("Cannot import non-existent remote object"),
            "{out}"
        );
    });
}

#[test]
fn warnings_from_the_plugins_plan_reach_terraform() {
    for_each_plugin("warning", |ws| {
        ws.write(
            r#"
resource "things_thing" "t" {
  name = "quiet"
  text = "!!!"
}
"#,
        );
        let (code, out) = ws.plan();
        assert_eq!(code, 2, "a warning does not stop the plan:\n{out}");
        assert_shown(
            &out,
            "Warning: Empty slug",
            "'!!!' has no letters or digits to slug",
            r#"text = "!!!""#,
        );
    });
}

#[test]
fn a_state_stored_at_an_older_schema_version_is_upgraded_by_the_plugin() {
    for_each_plugin("upgrade", |ws| {
        ws.write(
            r#"
resource "things_note" "n" {
  content = "kept"
}
"#,
        );
        ws.apply();
        // The state as the note's version 0 stored it: `body`, not
        // `content`.
        let path = ws.dir.join("terraform.tfstate");
        let mut state: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let instance = &mut state["resources"][0]["instances"][0];
        assert_eq!(instance["schema_version"], 1, "the note is at version 1");
        instance["schema_version"] = 0.into();
        let attributes = instance["attributes"].as_object_mut().unwrap();
        let content = attributes.remove("content").unwrap();
        attributes.insert("body".into(), content);
        let id = attributes["id"].clone();
        std::fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();

        let (code, out) = ws.plan();
        assert_eq!(
            code, 0,
            "the upgraded state matches the configuration:\n{out}"
        );
        // A refresh-only apply writes the state back, upgraded.
        let (code, out) = ws.tf(&["apply", "-input=false", "-auto-approve", "-refresh-only"]);
        assert_eq!(code, 0, "{out}");
        let state: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let instance = &state["resources"][0]["instances"][0];
        assert_eq!(instance["schema_version"], 1, "stored at version 1 again");
        assert_eq!(instance["attributes"]["content"], "kept");
        assert_eq!(instance["attributes"]["id"], id);
    });
}

/// `ctywire-seasonings middleware` with the Python cost estimator over
/// `plan` (a file, or `-` with `stdin`), prices from `prices`: its exit
/// code and what it printed.
fn middleware(ws: &Workspace, plan: &str, stdin: Option<&[u8]>, prices: &str) -> (i32, String) {
    use std::io::Write;
    let py = support::plugins::python().expect("the cost plugin's python");
    let script = support::plugins::workspace().join("examples/seasonings/python/cost.py");
    let prices_file = ws.dir.join("prices.json");
    std::fs::write(&prices_file, prices).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctywire-seasonings"))
        .args(["middleware", plan, "--"])
        .arg(py)
        .arg(script)
        .arg(prices_file)
        .current_dir(&ws.dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ctywire-seasonings runs");
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_middleware_command_runs_a_cost_estimator_over_a_real_plan() {
    if !terraform_available() {
        return;
    }
    // The plan is Terraform's, of the things provider (any language would
    // do: the Python one).
    let Some(plugin) = things().into_iter().find(|p| p.language == "python") else {
        return;
    };
    let ws = Workspace::new(&plugin, "middleware");
    ws.write(&config("alpha", r#""Hello ${things_note.n.id}""#));
    let (code, out) = ws.tf(&["plan", "-input=false", "-out=tfplan"]);
    assert_eq!(code, 0, "{out}");
    let (code, json) = run(terraform(&ws.dir).args(["show", "-json", "tfplan"]));
    assert_eq!(code, 0, "{json}");
    std::fs::write(ws.dir.join("plan.json"), &json).unwrap();

    // What the hooks see: the plan's changes, unknowns as unknowns.
    let changes = ctywire_seasonings::provider::middleware::read_plan(json.as_bytes()).unwrap();
    let thing = changes
        .iter()
        .find(|c| c.address == "things_thing.t")
        .expect("the thing is planned");
    assert_eq!(thing.action, "create");
    assert_eq!(thing.provider, SOURCE);
    assert_eq!(thing.after.attr("name").unwrap().as_str(), Some("alpha"));
    assert!(
        !thing.after.attr("text").unwrap().is_known(),
        "{:?}",
        thing.after
    );

    let prices = r#"{"things_thing": "12.50", "things_note": "0.10", "budget": 20}"#;
    let (code, out) = middleware(&ws, "plan.json", None, prices);
    assert_eq!(code, 0, "within the budget:\n{out}");
    assert!(
        out.contains("Warning: things_thing.t: adds $12.50/month (hooks.postPlan)"),
        "{out}"
    );
    assert!(
        out.contains("Warning: things_note.n: adds $0.10/month (hooks.postPlan)"),
        "{out}"
    );
    assert!(
        out.contains("Warning: the plan: the plan adds $12.60/month (hooks.planStageCompleted)"),
        "{out}"
    );
    assert!(
        out.contains("2 resource changes checked: 0 failed, 3 warnings"),
        "{out}"
    );

    // Over the budget: the plan fails, from stdin as from a file.
    let prices = r#"{"things_thing": "12.50", "things_note": "0.10", "budget": "10"}"#;
    let (code, out) = middleware(&ws, "-", Some(json.as_bytes()), prices);
    assert_eq!(code, 1, "over the budget:\n{out}");
    assert!(
        out.contains("Error: the plan: the plan adds $12.60/month, over the budget of $10.00"),
        "{out}"
    );

    // Not a plan: a state's JSON is refused, naming what it wants.
    std::fs::write(
        ws.dir.join("state.json"),
        r#"{"format_version":"1.0","values":{}}"#,
    )
    .unwrap();
    let (code, out) = middleware(&ws, "state.json", None, prices);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("state.json: "), "{out}");
    assert!(out.contains("not a plan"), "{out}");
}
