//! What both end-to-end tests need of the terraform CLI: whether it is
//! here, a CLI configuration that makes it run a provider binary built by
//! the test, and the way it is run; the binary built; and the rule for a
//! test whose real component (terraform, deno, python3) is missing.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

// The one rule for a missing real component, shared with the core's tests.
#[path = "../../../tests/support/skip.rs"]
mod skip;
pub use skip::missing;

/// Whether the terraform CLI runs here; when it does not, says so by the
/// rule of [`missing`] (under CI, fails).
pub fn terraform_available() -> bool {
    let runs = Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        missing(
            "terraform",
            "`terraform version` does not run (install Terraform 1.11 and put it on PATH)",
        );
    }
    runs
}

/// A CLI configuration that makes Terraform run the provider binary in
/// `provider_dir` for `source` (`dev_overrides`: no registry, no
/// `terraform init`), and every other provider as usual.
pub fn dev_overrides(source: &str, provider_dir: &Path) -> String {
    // HCL strings take JSON's escapes.
    let quoted = |s: &str| serde_json::to_string(s).expect("a string is JSON");
    format!(
        "disable_checkpoint = true\n\
         provider_installation {{\n  \
           dev_overrides {{\n    {} = {}\n  }}\n  \
           direct {{}}\n\
         }}\n",
        quoted(source),
        quoted(&provider_dir.display().to_string())
    )
}

/// `terraform` to run in `dir`, with `dir/terraformrc` as its CLI
/// configuration, its data in `dir/.terraform`, and no calls home.
pub fn terraform(dir: &Path) -> Command {
    let mut c = Command::new("terraform");
    c.current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", dir.join("terraformrc"))
        .env("TF_IN_AUTOMATION", "1")
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_DATA_DIR", dir.join(".terraform"));
    c
}

/// Runs `command` (terraform), logs its arguments and output for a
/// failing test's report, and returns its exit code and its output,
/// stdout then stderr.
pub fn run(command: &mut Command) -> (i32, String) {
    let out = command.output().expect("terraform runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let args: Vec<_> = command.get_args().map(|a| a.to_string_lossy()).collect();
    eprintln!("== terraform {}\n{text}", args.join(" "));
    (out.status.code().unwrap_or(-1), text)
}

/// Builds the binary `bin` of the workspace's package `package` with cargo
/// (a no-op when it is built already) and returns its executable, as cargo
/// names it, wherever the target directory is. Building is part of the
/// test, so a failure fails it.
pub fn cargo_build(package: &str, bin: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Every package that loads this file sits one level below the root.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--bin", bin])
        .arg("--message-format=json")
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building {bin} of {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo names no executable for {bin}"))
}
