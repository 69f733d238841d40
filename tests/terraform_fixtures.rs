//! Replays what the real terraform CLI sent to the ctywire test provider
//! (recorded by `e2e/tests/terraform.rs`), without needing Terraform:
//! every value decodes, and re-encodes to Terraform's exact bytes; state
//! values render as `terraform show -json` rendered them; state JSON
//! renders as Terraform wrote it. Which expectation in the file is
//! Terraform's and which is a regression golden of ctywire's own output:
//! `testdata/terraform/README.md`.

mod support;

use ctywire::json;
use serde_json::Value as Json;
use support::fixtures::{check_file, run};

fn recorded() -> Vec<Json> {
    let path = format!(
        "{}/testdata/terraform/recorded.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ty(line: &Json) -> ctywire::Type {
    ctywire::Type::parse(&line["type"].to_string()).unwrap()
}

#[test]
fn every_value_terraform_sent_re_encodes_to_its_bytes() {
    let out = check_file("terraform/recorded.jsonl");
    eprintln!(
        "terraform/recorded.jsonl: {} passed, {} failed",
        out.passed,
        out.failures.len()
    );
    for f in &out.failures {
        eprintln!("{f}\n");
    }
    assert!(out.failures.is_empty());
    assert!(
        out.passed >= 20,
        "the recording is unexpectedly small: {}",
        out.passed
    );
}

/// `expect.terraform_values`: each attribute's text as `terraform show
/// -json` printed it (Terraform's jsonstate: go-cty's JSON of the attribute
/// at its own type, so a dynamic attribute without its type wrapper).
/// ctywire's JSON of the decoded attribute must be that text, byte for byte.
#[test]
fn state_values_render_as_terraform_show_json_printed_them() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (n, line) in recorded().iter().enumerate() {
        let Some(want) = line["expect"].get("terraform_values") else {
            continue;
        };
        let want = want.as_object().expect("terraform_values is an object");
        let note = line["note"].as_str().unwrap_or_default();
        let (value, _, _) = run(&ty(line), line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let attrs: Vec<_> = value.attributes().expect("a state is an object").collect();
        let names: Vec<&str> = attrs.iter().map(|(k, _)| *k).collect();
        let shown: Vec<&str> = want.keys().map(String::as_str).collect();
        if names != shown {
            failures.push(format!(
                "line {} {note}: attributes {names:?}, terraform {shown:?}",
                n + 1
            ));
        }
        for (name, v) in attrs {
            let Some(terraform) = want.get(name).and_then(Json::as_str) else {
                continue;
            };
            let ours = json::encode_string(v, v.ty()).unwrap_or_else(|e| format!("error: {e}"));
            if ours != terraform {
                failures.push(format!(
                    "line {} {note}: {name}\n  terraform {terraform}\n  ctywire   {ours}",
                    n + 1
                ));
            }
        }
        checked += 1;
    }
    for f in &failures {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty(), "{} differ", failures.len());
    // Both resources' states, raw and as msgpack, at the re-plan and the
    // destroy.
    assert!(
        checked >= 8,
        "only {checked} lines hold Terraform's rendering"
    );
}

/// The state JSON Terraform handed to UpgradeResourceState, re-encoded as
/// msgpack, is bytes Terraform itself sent for that state (the
/// ReadResource that follows the upgrade).
#[test]
fn state_json_re_encodes_to_msgpack_terraform_sent() {
    let lines = recorded();
    let sent: Vec<&str> = lines.iter().filter_map(|l| l["msgpack"].as_str()).collect();
    let mut checked = 0;
    for (n, line) in lines.iter().enumerate() {
        if line.get("json").is_none() {
            continue;
        }
        let (_, mp, _) = run(&ty(line), line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let mp = support::hex(&mp);
        assert!(
            sent.contains(&mp.as_str()),
            "line {}: ctywire's msgpack for Terraform's state JSON is no value Terraform sent:\n  {mp}",
            n + 1
        );
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} state JSON lines");
}
