//! `ctywire provider release` on the kv example, installed by Terraform
//! 1.11 from a CLI configuration whose `provider_installation` names only
//! a `filesystem_mirror` holding the release: `terraform init` installs
//! it and records its checksum in `.terraform.lock.hcl`, apply and an
//! empty re-plan pass, and a corrupted or substituted archive is refused.
//! No `dev_overrides`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

#[path = "../../e2e/tests/support/mod.rs"]
mod support;
use support::{missing, run, terraform, terraform_available};

const SOURCE: &str = "ctywire/kv";
const VERSION: &str = "0.1.0";
const ZIP: &str = "terraform-provider-kv_0.1.0_linux_amd64.zip";
const KEY: &str = "ctywire release test <release@ctywire.test>";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctywire-release-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `ctywire provider release` for kv, linux amd64, with `extra` flags:
/// success, stdout, stderr.
fn release(out: &Path, extra: &[&str], env: &[(&str, &Path)]) -> (bool, String, String) {
    let manifest = repo().join("examples/kv/Cargo.toml");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctywire"));
    cmd.args([
        "provider",
        "release",
        "--source",
        SOURCE,
        "--version",
        VERSION,
    ])
    .arg("--manifest-path")
    .arg(&manifest)
    .args(["--target", "x86_64-unknown-linux-gnu"])
    // The dev profile: the build the workspace's tests already made.
    .args(["--profile", "dev"])
    .arg("--out")
    .arg(out)
    .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("ctywire runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A CLI configuration that installs providers from `mirror` only.
fn mirror_only(dir: &Path, mirror: &Path) {
    let quoted = serde_json::to_string(&mirror.display().to_string()).unwrap();
    let rc = format!(
        "disable_checkpoint = true\n\
         provider_installation {{\n  filesystem_mirror {{\n    path = {quoted}\n  }}\n}}\n"
    );
    std::fs::write(dir.join("terraformrc"), rc).unwrap();
    let store = serde_json::to_string(&dir.join("store").display().to_string()).unwrap();
    let main = format!(
        r#"
terraform {{
  required_providers {{
    kv = {{
      source  = "{SOURCE}"
      version = "{VERSION}"
    }}
  }}
}}

provider "kv" {{
  root = {store}
}}

resource "kv_entry" "a" {{
  key   = "a"
  value = "installed"
  rule {{
    port = 443
  }}
}}

output "hash" {{
  value = provider::kv::hash("abc")
}}
"#
    );
    std::fs::write(dir.join("main.tf"), main).unwrap();
}

/// Whether Terraform's output says `text`, however it wrapped the lines.
fn says(output: &str, text: &str) -> bool {
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    fold(output).contains(&fold(text))
}

fn tf(dir: &Path, args: &[&str]) -> (i32, String) {
    run(terraform(dir).args(args).arg("-no-color"))
}

/// A GNUPGHOME with one signing key, or none when gpg is missing.
fn gpg_home() -> Option<PathBuf> {
    if !Command::new("gpg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        missing(
            "gpg",
            "`gpg --version` does not run (apt-get install gnupg)",
        );
        return None;
    }
    let home = temp("gnupg");
    let made = Command::new("gpg")
        .env("GNUPGHOME", &home)
        .args([
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            KEY,
            "ed25519",
            "sign",
            "never",
        ])
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    Some(home)
}

#[test]
fn terraform_init_installs_kvs_release_from_a_filesystem_mirror_and_refuses_a_corrupted_one() {
    if !terraform_available() {
        return;
    }
    let out = temp("out");
    let gnupg = gpg_home();
    let (ok, stdout, stderr) = match &gnupg {
        Some(home) => release(&out, &["--gpg-key", KEY], &[("GNUPGHOME", home)]),
        None => release(&out, &[], &[]),
    };
    assert!(ok, "release failed:\n{stdout}\n{stderr}");

    // The registry's files: the zip holds the binary alone, executable.
    let dist = out.join("release");
    let zip_bytes = std::fs::read(dist.join(ZIP)).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&zip_bytes)).unwrap();
    assert_eq!(zip.len(), 1);
    let entry = zip.by_index(0).unwrap();
    assert_eq!(entry.name(), "terraform-provider-kv_v0.1.0");
    assert_eq!(entry.unix_mode().map(|m| m & 0o777), Some(0o755));
    drop(entry);
    let manifest = std::fs::read(dist.join("terraform-provider-kv_0.1.0_manifest.json")).unwrap();
    let manifest_json: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(manifest_json["version"], 1);
    assert_eq!(
        manifest_json["metadata"]["protocol_versions"],
        serde_json::json!(["6.0"])
    );
    let sums =
        std::fs::read_to_string(dist.join("terraform-provider-kv_0.1.0_SHA256SUMS")).unwrap();
    assert_eq!(
        sums,
        format!(
            "{}  {ZIP}\n{}  terraform-provider-kv_0.1.0_manifest.json\n",
            sha256_hex(&zip_bytes),
            sha256_hex(&manifest)
        )
    );
    if let Some(home) = &gnupg {
        let verified = Command::new("gpg")
            .env("GNUPGHOME", home)
            .arg("--verify")
            .arg(dist.join("terraform-provider-kv_0.1.0_SHA256SUMS.sig"))
            .arg(dist.join("terraform-provider-kv_0.1.0_SHA256SUMS"))
            .output()
            .unwrap();
        assert!(
            verified.status.success(),
            "{}",
            String::from_utf8_lossy(&verified.stderr)
        );
    }

    // Terraform installs it from the mirror, and records its hash.
    let mirror = out.join("filesystem-mirror");
    assert!(mirror
        .join("registry.terraform.io/ctywire/kv")
        .join(ZIP)
        .is_file());
    let work = temp("work");
    mirror_only(&work, &mirror);
    let (code, init) = tf(&work, &["init", "-input=false"]);
    assert_eq!(code, 0, "init failed:\n{init}");
    assert!(init.contains("Installed ctywire/kv v0.1.0"), "{init}");
    let installed = work.join(".terraform/providers/registry.terraform.io/ctywire/kv/0.1.0/linux_amd64/terraform-provider-kv_v0.1.0");
    assert!(
        installed.is_file(),
        "{} is not installed",
        installed.display()
    );
    let lock = std::fs::read_to_string(work.join(".terraform.lock.hcl")).unwrap();
    let index: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("network-mirror/registry.terraform.io/ctywire/kv/0.1.0.json"))
            .unwrap(),
    )
    .unwrap();
    let archive = &index["archives"]["linux_amd64"];
    assert_eq!(archive["url"], ZIP);
    let h1 = archive["hashes"][0].as_str().unwrap();
    assert!(h1.starts_with("h1:"), "{h1}");
    // The network mirror's hash is the one Terraform computes.
    assert!(
        lock.contains(&format!("\"{h1}\"")),
        "{h1} not in the lock file:\n{lock}"
    );
    assert!(lock.contains("version     = \"0.1.0\""), "{lock}");

    let (code, apply) = tf(&work, &["apply", "-input=false", "-auto-approve"]);
    assert_eq!(code, 0, "apply failed:\n{apply}");
    assert!(
        apply.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        "{apply}"
    );
    assert!(work.join("store/a.json").is_file());
    let (code, plan) = tf(&work, &["plan", "-input=false", "-detailed-exitcode"]);
    assert_eq!(code, 0, "the re-plan is not empty:\n{plan}");

    // A damaged archive: init without a lock file cannot unpack it.
    let damaged = temp("damaged");
    let damaged_mirror = damaged.join("mirror/registry.terraform.io/ctywire/kv");
    std::fs::create_dir_all(&damaged_mirror).unwrap();
    let mut bytes = zip_bytes.clone();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 4096] {
        *b ^= 0x5a;
    }
    std::fs::write(damaged_mirror.join(ZIP), &bytes).unwrap();
    mirror_only(&damaged, &damaged.join("mirror"));
    let (code, init) = tf(&damaged, &["init", "-input=false"]);
    assert_ne!(code, 0, "init took a damaged archive:\n{init}");
    assert!(
        init.contains("Error while installing ctywire/kv v0.1.0"),
        "{init}"
    );
    assert!(!damaged.join(".terraform.lock.hcl").exists());

    // A whole, valid archive that is not the one locked: refused by its
    // checksum.
    let swapped = temp("swapped");
    let swapped_mirror = swapped.join("mirror/registry.terraform.io/ctywire/kv");
    std::fs::create_dir_all(&swapped_mirror).unwrap();
    let mut other = zip::ZipWriter::new(std::fs::File::create(swapped_mirror.join(ZIP)).unwrap());
    let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
    other
        .start_file("terraform-provider-kv_v0.1.0", options)
        .unwrap();
    other.write_all(b"#!/bin/sh\nexit 1\n").unwrap();
    other.finish().unwrap();
    mirror_only(&swapped, &swapped.join("mirror"));
    std::fs::write(swapped.join(".terraform.lock.hcl"), &lock).unwrap();
    let (code, init) = tf(&swapped, &["init", "-input=false"]);
    assert_ne!(
        code, 0,
        "init took an archive the lock file does not name:\n{init}"
    );
    assert!(
        says(
            &init,
            "doesn't match any of the checksums previously recorded"
        ),
        "{init}"
    );

    for dir in [out, work, damaged, swapped] {
        let _ = std::fs::remove_dir_all(dir);
    }
    if let Some(home) = gnupg {
        let _ = std::fs::remove_dir_all(home);
    }
}

#[test]
fn a_release_to_sign_without_gpg_fails_at_once_saying_so() {
    let out = temp("nogpg");
    let (ok, _, stderr) = release(
        &out,
        &["--gpg-key", KEY, "--gpg-program", "/nonexistent/gpg"],
        &[],
    );
    assert!(!ok);
    assert!(stderr.contains("is not installed"), "{stderr}");
    assert!(stderr.contains("apt-get install gnupg"), "{stderr}");
    // Refused before building or writing anything.
    assert!(!out.join("release").exists());
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_target_without_its_standard_library_fails_naming_the_reason() {
    let target = "aarch64-unknown-linux-gnu";
    let libdir = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", target])
        .output()
        .unwrap();
    let libdir = PathBuf::from(String::from_utf8_lossy(&libdir.stdout).trim());
    let has_std = std::fs::read_dir(&libdir).is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
    });
    if has_std {
        eprintln!("{target}'s standard library is installed here: nothing to refuse");
        return;
    }
    let out = temp("arm64");
    let (ok, _, stderr) = release(&out, &["--target", target], &[]);
    assert!(!ok);
    assert!(
        stderr.contains("standard library is not installed"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("rustup target add {target}")),
        "{stderr}"
    );
    assert!(stderr.contains("Other targets"), "{stderr}");
    assert!(!out.join("release").exists());
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_target_terraform_has_no_platform_for_is_refused() {
    let out = temp("riscv");
    let (ok, _, stderr) = release(&out, &["--target", "riscv64gc-unknown-linux-gnu"], &[]);
    assert!(!ok);
    assert!(stderr.contains("Terraform has no platform"), "{stderr}");
    let _ = std::fs::remove_dir_all(out);
}
