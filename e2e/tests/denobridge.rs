//! terraform-provider-denobridge end to end: the real terraform CLI
//! launches the built provider itself (a `dev_overrides` CLI configuration,
//! no reattach, no `terraform init`), which runs real Deno scripts (and a
//! Python one through `command`) written from the protocol document
//! (`denobridge/tests/scripts/`).
//!
//! The lifecycle: plan, apply, an empty re-plan, an update, a refresh where
//! the script reports the object gone (re-created), an import, destroy; and
//! `terraform show -json` holding exact numbers (past 2^64, 30 decimals,
//! past float64), a set, a map inside an object, a tuple, a sensitive
//! value, and a second resource whose props refer to the first's id (unknown
//! at plan).
//!
//! When terraform, deno (or, for the Python test, python3) cannot be found
//! it says `SKIPPED: <tool> is missing: <why>` and passes, except under
//! `CI=true`, where it fails (`support::missing`; `scripts/test-peers.sh`
//! installs deno from the npm registry).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use denobridge::ctywire_bridge::Json;

mod support;
use support::{dev_overrides, missing, terraform, terraform_available};

const SCRIPTS: [(&str, &str); 5] = [
    (
        "rpc.ts",
        include_str!("../../denobridge/tests/scripts/rpc.ts"),
    ),
    (
        "resource.ts",
        include_str!("../../denobridge/tests/scripts/resource.ts"),
    ),
    (
        "datasource.ts",
        include_str!("../../denobridge/tests/scripts/datasource.ts"),
    ),
    (
        "ephemeral.ts",
        include_str!("../../denobridge/tests/scripts/ephemeral.ts"),
    ),
    (
        "resource.py",
        include_str!("../../denobridge/tests/scripts/resource.py"),
    ),
];

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn works(program: &Path, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn deno() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("DENO_BINARY").map(PathBuf::from),
        Some(workspace().join("target/peers/node_modules/.bin/deno")),
        Some(PathBuf::from("deno")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|c| works(c, "--version"))
        .map(|c| std::path::absolute(c).unwrap())
}

/// Builds the provider binary (a no-op when `cargo test --workspace` has
/// built it already) and returns the directory holding it.
fn provider_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = support::cargo_build(
            "terraform-provider-denobridge",
            "terraform-provider-denobridge",
        );
        exe.parent().unwrap().to_path_buf()
    })
}

struct Workdir(PathBuf);

impl Drop for Workdir {
    fn drop(&mut self) {
        if std::env::var_os("DENOBRIDGE_E2E_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn setup(name: &str, main_tf: &str) -> Workdir {
    let dir = std::env::temp_dir().join(format!("denobridge-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in SCRIPTS {
        std::fs::write(dir.join(file), text).unwrap();
    }
    std::fs::write(dir.join("main.tf"), main_tf).unwrap();
    let cli = dev_overrides(
        "registry.terraform.io/brad-jones/denobridge",
        provider_dir(),
    );
    std::fs::write(dir.join("terraformrc"), cli).unwrap();
    Workdir(dir)
}

/// Runs terraform; its exit code and output.
fn tf(dir: &Path, args: &[&str]) -> (i32, String) {
    support::run(terraform(dir).args(args).arg("-no-color"))
}

fn tf_ok(dir: &Path, args: &[&str], want: i32) -> String {
    let (code, text) = tf(dir, args);
    assert_eq!(
        code,
        want,
        "terraform {} exited {code}:\n{text}",
        args.join(" ")
    );
    text
}

/// `terraform show -json` (of the state, or of a plan file), read with
/// exact numbers.
fn show(dir: &Path, plan: Option<&str>) -> (Json, String) {
    let mut args = vec!["show", "-json"];
    args.extend(plan);
    let out = terraform(dir).args(&args).output().expect("terraform runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        Json::parse(&text).expect("terraform show -json is JSON"),
        text,
    )
}

fn resource<'a>(state: &'a Json, address: &str) -> &'a Json {
    state["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["address"] == address))
        .unwrap_or_else(|| panic!("{address} is not in the state"))
}

fn calls(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("store/calls.log")).unwrap_or_default()
}

fn available() -> Option<PathBuf> {
    if !terraform_available() {
        return None;
    }
    let d = deno();
    if d.is_none() {
        missing(
            "deno",
            "not in $DENO_BINARY, target/peers or PATH (scripts/test-peers.sh installs it from the npm registry)",
        );
    }
    d
}

/// The configuration: the props hold every kind denobridge loses.
fn config(provider: &str, script: &str, permissions: &str, rest: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    denobridge = {{ source = "brad-jones/denobridge" }}
  }}
}}

variable "rev" {{
  type    = number
  default = 1
}}

provider "denobridge" {{
{provider}
}}

resource "denobridge_resource" "first" {{
  path = "${{path.module}}/{script}"
{permissions}
  props = {{
    name   = "first"
    rev    = var.rev
    big    = 123456789012345678901234567890
    fine   = 0.123456789012345678901234567891
    huge   = 1e400
    tags   = toset(["b", "a"])
    nested = {{ labels = tomap({{ x = "1", y = "2" }}) }}
    pair   = ["x", 7]
  }}
}}

# Its props refer to the first's id: unknown when the first is planned.
resource "denobridge_resource" "second" {{
  path = "${{path.module}}/{script}"
{permissions}
  props = {{
    name   = "second"
    parent = denobridge_resource.first.id
  }}
}}
{rest}
"#
    )
}

const DENO_EXTRAS: &str = r#"
ephemeral "denobridge_ephemeral_resource" "token" {
  path        = "${path.module}/ephemeral.ts"
  permissions = { allow = ["read", "write"] }
  props       = { name = "e2e" }
}

# The ephemeral token goes to the script as a write-only prop.
resource "denobridge_resource" "third" {
  path             = "${path.module}/resource.ts"
  permissions      = { allow = ["read", "write"] }
  # The script answers create with a warning at props.labels["123"].
  props            = { name = "third", misbehave = "map-key", labels = tomap({ "123" = "x" }) }
  write_only_props = { token = ephemeral.denobridge_ephemeral_resource.token.result.token }
}

data "denobridge_datasource" "d" {
  path  = "${path.module}/datasource.ts"
  props = { name = "d", big = 18446744073709551617 }
}

output "data_exact" {
  value = data.denobridge_datasource.d.result.exact
}
"#;

/// The whole lifecycle in `dir`; what the first apply printed.
/// `with_data_source`: the configuration has `DENO_EXTRAS` (the data
/// source and its `data_exact` output).
fn lifecycle(dir: &Path, script: &str, permissions: &str, with_data_source: bool) -> String {
    // Plan: the second resource's parent is unknown, and stays unknown
    // (denobridge would show the script an empty string). Under
    // TF_LOG_PROVIDER the provider's `log::debug!` lines reach Terraform's
    // log: serving (tfplugin6) sets the logging up, not the framework.
    let log = dir.join("provider.log");
    let (code, text) = support::run(
        terraform(dir)
            .args(["plan", "-input=false", "-out=tfplan", "-no-color"])
            .env("TF_LOG_PROVIDER", "DEBUG")
            .env("TF_LOG_PATH", &log),
    );
    assert_eq!(code, 0, "terraform plan:\n{text}");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("modifyPlan skipped: props") && logged.contains("is not known yet"),
        "denobridge's debug line is not in Terraform's log:\n{logged}"
    );
    let (plan, _) = show(dir, Some("tfplan"));
    let second = plan["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["address"] == "denobridge_resource.second")
        .unwrap();
    assert_eq!(
        second["change"]["after_unknown"]["props"]["parent"],
        Json::Bool(true),
        "{second}"
    );
    assert!(
        !calls(dir).contains("modifyPlan create {\"name\":\"second\""),
        "modifyPlan saw unknown props:\n{}",
        calls(dir)
    );

    let applied = tf_ok(
        dir,
        &["apply", "-input=false", "-auto-approve", "tfplan"],
        0,
    );
    let (state, text) = show(dir, None);
    let first = resource(&state, "denobridge_resource.first");
    let v = &first["values"];
    let id = v["id"].as_str().unwrap().to_string();
    // Exact numbers, stored as configured and as the script received them.
    let whole = format!("1{}", "0".repeat(400));
    for (name, want) in [
        ("big", "123456789012345678901234567890"),
        ("fine", "0.123456789012345678901234567891"),
        ("huge", whole.as_str()),
    ] {
        assert_eq!(
            v["props"][name].as_number().unwrap().as_str(),
            want,
            "props.{name}"
        );
        assert_eq!(
            v["state"]["echo"][name].as_number().unwrap().as_str(),
            want,
            "state.echo.{name}"
        );
    }
    assert!(text.contains("\"big\":123456789012345678901234567890"));
    // The set reached the script as an array (in canonical order).
    assert_eq!(v["state"]["echo"]["tags"].to_string(), r#"["a","b"]"#);
    assert_eq!(v["props"]["tags"].to_string(), r#"["a","b"]"#);
    assert_eq!(
        v["props"]["nested"]["labels"].to_string(),
        r#"{"x":"1","y":"2"}"#
    );
    assert_eq!(v["props"]["pair"].to_string(), r#"["x",7]"#);
    // Sensitive state: stored, and marked sensitive.
    assert!(v["sensitive_state"]["token"]
        .as_str()
        .unwrap()
        .ends_with(&id));
    assert_eq!(
        first["sensitive_values"]["sensitive_state"],
        Json::Bool(true)
    );
    // The data source's result, exact, in an output: the Deno run's
    // configuration has the data source, so the output must be there.
    let data_exact = state["values"]["outputs"].get("data_exact");
    if with_data_source {
        let out = data_exact.unwrap_or_else(|| {
            panic!("the data source's output data_exact is not in the state:\n{text}")
        });
        assert_eq!(
            out["value"].as_number().map(|n| n.as_str()),
            Some("0.1000000000000000000000000000001"),
            "data_exact: {out}"
        );
    } else {
        assert!(data_exact.is_none(), "{text}");
    }
    // The second resource got the first's id.
    let second = resource(&state, "denobridge_resource.second");
    assert_eq!(
        second["values"]["props"]["parent"].as_str(),
        Some(id.as_str())
    );

    // Nothing changes on a re-plan: props came back as the kinds they were.
    tf_ok(dir, &["plan", "-input=false", "-detailed-exitcode"], 0);

    // Update: changed props reach `update`; the state follows.
    let text = tf_ok(
        dir,
        &[
            "plan",
            "-input=false",
            "-detailed-exitcode",
            "-var",
            "rev=2",
        ],
        2,
    );
    assert!(text.contains("1 to change"), "{text}");
    tf_ok(
        dir,
        &["apply", "-input=false", "-auto-approve", "-var", "rev=2"],
        0,
    );
    assert!(
        calls(dir).contains(&format!("update {id} ")),
        "{}",
        calls(dir)
    );
    let (state, _) = show(dir, None);
    let v = &resource(&state, "denobridge_resource.first")["values"];
    assert_eq!(v["id"].as_str(), Some(id.as_str()));
    assert_eq!(v["state"]["updates"].as_i64(), Some(1));
    assert_eq!(v["props"]["rev"].as_i64(), Some(2));
    tf_ok(
        dir,
        &[
            "plan",
            "-input=false",
            "-detailed-exitcode",
            "-var",
            "rev=2",
        ],
        0,
    );

    // The object disappears behind Terraform's back: the refresh sees
    // `exists: false` and the plan creates it again.
    std::fs::remove_file(dir.join(format!("store/{id}.json"))).unwrap();
    let text = tf_ok(
        dir,
        &[
            "plan",
            "-input=false",
            "-detailed-exitcode",
            "-var",
            "rev=2",
        ],
        2,
    );
    assert!(
        text.contains("denobridge_resource.first will be created"),
        "{text}"
    );
    tf_ok(
        dir,
        &["apply", "-input=false", "-auto-approve", "-var", "rev=2"],
        0,
    );
    tf_ok(
        dir,
        &[
            "plan",
            "-input=false",
            "-detailed-exitcode",
            "-var",
            "rev=2",
        ],
        0,
    );

    // Import an object the script knows but Terraform does not.
    std::fs::write(
        dir.join("store/made-by-hand.json"),
        r#"{"props":{"name":"imported","n":18446744073709551617,"list":["a","b"]},"updates":0}"#,
    )
    .unwrap();
    let mut main_tf = std::fs::read_to_string(dir.join("main.tf")).unwrap();
    // The import id names the permissions the configuration has, if any.
    let import_permissions = if permissions.is_empty() {
        ""
    } else {
        r#", permissions = { allow = ["read", "write"] }"#
    };
    main_tf.push_str(&format!(
        r#"
import {{
  to = denobridge_resource.imported
  id = jsonencode({{ id = "made-by-hand", path = "${{path.module}}/{script}"{import_permissions} }})
}}

resource "denobridge_resource" "imported" {{
  path = "${{path.module}}/{script}"
{permissions}
  props = {{ name = "imported", n = 18446744073709551617, list = ["a", "b"] }}
}}
"#
    ));
    std::fs::write(dir.join("main.tf"), main_tf).unwrap();
    let text = tf_ok(dir, &["plan", "-input=false", "-var", "rev=2"], 0);
    assert!(
        text.contains("1 to import, 0 to add, 0 to change, 0 to destroy"),
        "{text}"
    );
    tf_ok(
        dir,
        &["apply", "-input=false", "-auto-approve", "-var", "rev=2"],
        0,
    );
    let (state, _) = show(dir, None);
    let v = &resource(&state, "denobridge_resource.imported")["values"];
    assert_eq!(v["id"].as_str(), Some("made-by-hand"));
    assert_eq!(
        v["props"]["n"].as_number().unwrap().as_str(),
        "18446744073709551617"
    );
    tf_ok(
        dir,
        &[
            "plan",
            "-input=false",
            "-detailed-exitcode",
            "-var",
            "rev=2",
        ],
        0,
    );

    // Destroy: every object the script kept is gone.
    tf_ok(
        dir,
        &["destroy", "-input=false", "-auto-approve", "-var", "rev=2"],
        0,
    );
    let left: Vec<String> = std::fs::read_dir(dir.join("store"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert!(left.is_empty(), "objects left after destroy: {left:?}");
    applied
}

#[test]
fn terraform_runs_deno_scripts_through_the_whole_lifecycle_losing_nothing() {
    let Some(deno) = available() else { return };
    let permissions = r#"  permissions = { allow = ["read", "write"] }"#;
    let main_tf = config(
        &format!("  deno_binary_path = \"{}\"", deno.display()),
        "resource.ts",
        permissions,
        DENO_EXTRAS,
    );
    let dir = setup("deno", &main_tf);
    let applied = lifecycle(&dir.0, "resource.ts", permissions, true);
    // A script's warning reaches Terraform at the attribute it names: the
    // numeric map key stays a key (denobridge makes it index 123).
    assert!(
        applied.contains("Warning: about a numeric map key"),
        "{applied}"
    );
    assert!(applied.contains("denobridge_resource.third"), "{applied}");
    let log = calls(&dir.0);
    // The ephemeral resource was opened and closed, and its token reached
    // the third resource as a write-only prop (never stored in state).
    assert!(log.contains("open {\"name\":\"e2e\"}"), "{log}");
    assert!(log.contains("close {\"opened\":\"e2e\""), "{log}");
    assert!(log.contains("wo={\"token\":\"tok-e2e\"}"), "{log}");
}

#[test]
fn terraform_runs_a_python_script_through_the_command_option() {
    if available().is_none() {
        return;
    }
    if !works(Path::new("python3"), "--version") {
        missing("python3", "`python3 --version` does not run");
        return;
    }
    let main_tf = config("  command = [\"python3\"]", "resource.py", "", "");
    let dir = setup("python", &main_tf);
    lifecycle(&dir.0, "resource.py", "", false);
    assert!(calls(&dir.0).contains("create py-"), "{}", calls(&dir.0));
}
