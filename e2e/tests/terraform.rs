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
//! `testdata/terraform/recorded.jsonl`, which ordinary tests replay. Each
//! state value in it (the prior and current states, the raw state JSON)
//! carries `expect.terraform_values`: Terraform's own JSON rendering of
//! that state, each attribute's text as `terraform show -json` printed it
//! in `values.root_module.resources[].values`.

use std::path::{Path, PathBuf};

use ctywire::{json, msgpack, Type, Value};

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
    let mut shown = None;
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
            // The state as Terraform renders it, before anything else runs.
            let out = terraform(&dir)
                .args(["show", "-json", "-no-color"])
                .output()
                .expect("terraform runs");
            assert!(
                out.status.success(),
                "terraform show -json: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            shown = Some(String::from_utf8(out.stdout).expect("terraform show -json is UTF-8"));
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
    let shown = shown.expect("the apply step ran terraform show -json");
    let recorded = with_terraform_values(&recorded, &shown);
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

/// The recorded notes whose value is a resource's state: after the first
/// apply (the only one that changes it), the state `terraform show -json`
/// printed then.
const STATE_NOTES: [&str; 4] = [
    "ReadResource.current_state",
    "PlanResourceChange.prior_state",
    "ApplyResourceChange.prior_state",
    "UpgradeResourceState.raw_state.json",
];

/// The recording, each non-null state value given
/// `expect.terraform_values`: Terraform's rendering of that resource's
/// state, attribute by attribute, as `shown` (`terraform show -json`) has
/// it. The resource is the one whose `id` the value holds. Checks here too
/// that ctywire renders each attribute (at its own type, as Terraform's
/// jsonstate does) to the same text.
fn with_terraform_values(recorded: &str, shown: &str) -> String {
    let resources = shown_resources(shown);
    let mut out = String::new();
    let mut attached = 0;
    for raw in recorded.lines() {
        let mut line: serde_json::Value = serde_json::from_str(raw).unwrap();
        let note = line["note"].as_str().unwrap_or_default().to_string();
        if STATE_NOTES.contains(&note.as_str()) {
            let ty = Type::parse(&line["type"].to_string()).expect("a recorded type");
            let value = match (line["msgpack"].as_str(), line["json"].as_str()) {
                (Some(h), _) => msgpack::decode(&unhex(h), &ty),
                (None, Some(j)) => json::decode(j.as_bytes(), &ty),
                (None, None) => panic!("a recorded line without a value: {raw}"),
            }
            .unwrap_or_else(|e| panic!("{note}: {e}"));
            if !value.is_null() {
                let id = value.attr("id").and_then(Value::as_str).unwrap_or_else(|| {
                    panic!("{note}: a state without an id");
                });
                let quoted = serde_json::to_string(id).unwrap();
                let attrs = resources
                    .iter()
                    .find(|r| r.iter().any(|(k, v)| k == "id" && *v == quoted))
                    .unwrap_or_else(|| panic!("{note}: no resource {id} in terraform show -json"));
                for (name, v) in value.attributes().expect("a state is an object") {
                    let terraform = attrs
                        .iter()
                        .find(|(k, _)| k == name)
                        .map(|(_, t)| t.as_str())
                        .unwrap_or_else(|| panic!("{note}: show -json has no {name}"));
                    let ours = json::encode_string(v, v.ty()).unwrap();
                    assert_eq!(ours, terraform, "{note} {id}: {name}");
                }
                let map: serde_json::Map<_, _> = attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                    .collect();
                line["expect"]["terraform_values"] = serde_json::Value::Object(map);
                attached += 1;
            }
        }
        out.push_str(&line.to_string());
        out.push('\n');
    }
    // Both resources, refreshed and planned at the re-plan and the destroy.
    assert!(
        attached >= 8,
        "only {attached} state values matched terraform show -json"
    );
    out
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Each managed resource's `values` in `terraform show -json` output:
/// attribute name and its JSON text exactly as Terraform printed it (read
/// without a JSON library, which would round the numbers).
fn shown_resources(shown: &str) -> Vec<Vec<(String, String)>> {
    let doc = raw::members(shown.trim());
    let values = raw::get(&doc, "values").expect("show -json has values");
    let root = raw::get(&raw::members(values), "root_module").expect("a root module");
    let resources = raw::get(&raw::members(root), "resources").expect("resources");
    raw::items(resources)
        .into_iter()
        .map(raw::members)
        .filter(|r| raw::get(r, "mode") == Some("\"managed\""))
        .map(|r| {
            raw::members(raw::get(&r, "values").expect("a resource has values"))
                .into_iter()
                .map(|(k, v)| (k, v.to_string()))
                .collect()
        })
        .collect()
}

/// Slices of JSON text: an object's members and an array's items, each
/// value the exact text it was written as.
mod raw {
    /// The object `text` (`{...}`): each key (unescaped) and its value's text.
    pub fn members(text: &str) -> Vec<(String, &str)> {
        let b = text.as_bytes();
        assert_eq!(b.first(), Some(&b'{'), "not an object: {text}");
        let mut out = Vec::new();
        let mut i = ws(b, 1);
        while b[i] != b'}' {
            let key_end = end(b, i);
            let key: String = serde_json::from_str(&text[i..key_end]).expect("a key");
            i = ws(b, key_end);
            assert_eq!(b[i], b':');
            let start = ws(b, i + 1);
            let stop = end(b, start);
            out.push((key, &text[start..stop]));
            i = ws(b, stop);
            if b[i] == b',' {
                i = ws(b, i + 1);
            }
        }
        out
    }

    /// The array `text` (`[...]`): each item's text.
    pub fn items(text: &str) -> Vec<&str> {
        let b = text.as_bytes();
        assert_eq!(b.first(), Some(&b'['), "not an array: {text}");
        let mut out = Vec::new();
        let mut i = ws(b, 1);
        while b[i] != b']' {
            let stop = end(b, i);
            out.push(&text[i..stop]);
            i = ws(b, stop);
            if b[i] == b',' {
                i = ws(b, i + 1);
            }
        }
        out
    }

    pub fn get<'a>(members: &[(String, &'a str)], key: &str) -> Option<&'a str> {
        members.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    fn ws(b: &[u8], mut i: usize) -> usize {
        while b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }

    /// Where the value starting at `i` ends.
    fn end(b: &[u8], i: usize) -> usize {
        match b[i] {
            b'"' => {
                let mut j = i + 1;
                while b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                j + 1
            }
            b'{' | b'[' => {
                let mut depth = 0;
                let mut j = i;
                loop {
                    match b[j] {
                        b'"' => {
                            j = end(b, j);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while j < b.len()
                    && !matches!(b[j], b',' | b'}' | b']')
                    && !b[j].is_ascii_whitespace()
                {
                    j += 1;
                }
                j
            }
        }
    }
}
