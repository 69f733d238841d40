//! The real terraform CLI starts the ctywire test provider itself, as it
//! starts any provider (go-plugin's handshake, AutoMTLS), and drives it
//! through plan, apply, a second plan that must be empty, and destroy.
//! The CLI configuration points `registry.terraform.io/ctywire/test` at
//! the directory of the built binary with `dev_overrides`, so there is no
//! `terraform init` (it would go to the registry). Without `terraform` it
//! says `SKIPPED: terraform is missing: …` and passes, except under
//! `CI=true`, where it fails (`support::missing`).
//!
//! `CTYWIRE_UPDATE_FIXTURES=1` copies what Terraform sent into
//! `testdata/terraform/recorded.jsonl`, which ordinary tests replay.

use std::path::{Path, PathBuf};

mod support;
use support::{dev_overrides, terraform, terraform_available};

const CONFIG: &str = r#"
terraform {
  required_providers {
    ctywire = { source = "registry.terraform.io/ctywire/test" }
  }
}

provider "ctywire" {
  prefix = "e2e"
}

resource "ctywire_thing" "first" {
  name     = "first"
  size     = 0.1
  big      = 123456789012345678901234567890
  enabled  = true
  tags     = { env = "test", team = "codec" }
  ports    = [443, 80, 443]
  names    = ["a", "b"]
  shape    = { w = 1.5, h = 2 }
  pair     = ["x", 7]
  anything = { list = [1, "two", true], nested = { deep = [null] } }
  endpoints = [{ url = "https://a", weight = 0.25 }, { url = "https://b", weight = null }]

  settings {
    level = 3
  }
  rule {
    port = 80
  }
  rule {
    port = 443
    note = "tls"
  }
  ingress {
    cidr = "10.0.0.0/8"
  }
  ingress {
    cidr = "192.168.0.0/16"
  }
  listener "http" {
    port = 8080
  }
  timeouts {
    create = "5m"
  }
}

# Arrives at plan as unknowns refined by Terraform: a string known to start
# with "web-", and a label known to start with "label-" and not be null.
resource "ctywire_thing" "second" {
  name     = "web-${ctywire_thing.first.id}"
  note     = ctywire_thing.first.computed_label
  anything = ctywire_thing.first.id
}

data "ctywire_echo" "e" {
  input = { list = [1, 2, 3], name = "echo", flag = false }
}

output "label" {
  value = ctywire_thing.first.computed_label
}

output "echo" {
  value = data.ctywire_echo.e.output
}
"#;

#[test]
fn terraform_drives_the_provider_through_a_whole_lifecycle() {
    if !terraform_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ctywire-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.tf"), CONFIG).unwrap();
    let provider_dir = Path::new(env!("CARGO_BIN_EXE_terraform-provider-test"))
        .parent()
        .expect("the binary is in a directory");
    std::fs::write(
        dir.join("terraformrc"),
        dev_overrides("registry.terraform.io/ctywire/test", provider_dir),
    )
    .unwrap();
    let record = dir.join("recorded.jsonl");

    let steps: [(&[&str], i32); 4] = [
        (&["plan", "-input=false", "-no-color", "-out=tfplan"], 0),
        (
            &[
                "apply",
                "-input=false",
                "-no-color",
                "-auto-approve",
                "tfplan",
            ],
            0,
        ),
        // 0 = succeeded with an empty diff (2 would mean changes).
        (
            &["plan", "-input=false", "-no-color", "-detailed-exitcode"],
            0,
        ),
        (
            &["destroy", "-input=false", "-no-color", "-auto-approve"],
            0,
        ),
    ];
    for (args, want) in steps {
        // Terraform hands its environment to the provider processes it starts.
        let (code, text) = support::run(terraform(&dir).args(args).env("CTYWIRE_RECORD", &record));
        assert_eq!(
            code,
            want,
            "terraform {} exited {code}:\n{text}",
            args.join(" ")
        );
        if args[0] == "apply" {
            assert!(text.contains("label-first"), "{text}");
        }
        // Terraform started our binary through the override, not a
        // provider from anywhere else.
        assert!(
            text.contains("Provider development overrides are in effect"),
            "{text}"
        );
    }

    let recorded =
        std::fs::read_to_string(&record).expect("the provider recorded what it received");
    check_recorded(&recorded);
    if std::env::var_os("CTYWIRE_UPDATE_FIXTURES").is_some() {
        let target =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/terraform/recorded.jsonl");
        std::fs::write(target, dedup_lines(&recorded)).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn dedup_lines(text: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .filter(|l| seen.insert(l.to_string()))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What Terraform sent covers what the issue asks the fixtures to hold.
fn check_recorded(text: &str) {
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let hexes: Vec<&str> = lines.iter().filter_map(|l| l["msgpack"].as_str()).collect();
    // ext 0x0c with a prefix entry: "web-" or "label-".
    assert!(
        hexes.iter().any(|h| h.contains("0c8201c202a4")
            || h.contains("0c8102a4")
            || h.contains("0c8201c202a6")),
        "no refined unknown recorded"
    );
    // size = 0.1 travels as the msgpack string "0.1".
    assert!(
        hexes.iter().any(|h| h.contains("a473697a65a3302e31")),
        "no string-encoded number recorded"
    );
    // A dynamic wrapper: [bin(type JSON), value].
    assert!(
        hexes.iter().any(|h| h.contains("92c4")),
        "no dynamic wrapper recorded"
    );
    let types: Vec<String> = lines.iter().map(|l| l["type"].to_string()).collect();
    for (mode, shape) in [
        ("SINGLE (settings)", r#""settings":["object""#),
        ("LIST (rule)", r#""rule":["list",["object""#),
        ("SET (ingress)", r#""ingress":["set",["object""#),
        ("MAP (listener)", r#""listener":["map",["object""#),
        ("GROUP (timeouts)", r#""timeouts":["object""#),
    ] {
        assert!(
            types.iter().any(|t| t.contains(shape)),
            "no value with a {mode} block recorded"
        );
    }
}
