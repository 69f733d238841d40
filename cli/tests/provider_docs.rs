//! `ctywire provider docs` on the kv example, its provider built and
//! launched as Terraform launches it: kv's checked-in docs/ are what it
//! writes, and `--check` finds a hand-broken page and every registry rule
//! a docs/ folder can break.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

// The end-to-end tests' support: the one "cargo build and find the
// executable" helper.
#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// kv's executable, built as `ctywire provider docs` itself builds it.
fn kv_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| e2e::cargo_build("terraform-provider-kv", "terraform-provider-kv"))
}

fn docs(args: &[&str], dir: &Path) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ctywire"))
        .args(["provider", "docs", "--dir"])
        .arg(dir)
        .args(args)
        .output()
        .expect("ctywire runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A copy of kv's examples/ and docs/ to break.
fn copy_of_kv(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctywire-docs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["examples", "docs"] {
        copy_dir(&repo().join("examples/kv").join(sub), &dir.join(sub));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn kv() -> &'static str {
    kv_binary().to_str().unwrap()
}

#[test]
fn kvs_checked_in_docs_are_what_the_provider_builds_and_launched_says() {
    // As CI runs it: the folder's own package built, no --binary.
    let (ok, out, err) = docs(&["--check"], &repo().join("examples/kv"));
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("6 pages, up to date"), "{out}");
}

#[test]
fn check_fails_on_a_hand_broken_page_naming_it_and_the_line() {
    let dir = copy_of_kv("broken");
    let page = dir.join("docs/resources/kv_entry.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, text.replace("(String, Sensitive)", "(String)")).unwrap();
    let (ok, _, err) = docs(&["--check", "--binary", kv()], &dir);
    assert!(!ok);
    assert!(err.contains("resources/kv_entry.md: stale: line"), "{err}");
    assert!(
        err.contains("- `value` (String) The entry's value."),
        "{err}"
    );
    // Regenerating mends it.
    let (ok, _, err) = docs(&["--binary", kv()], &dir);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), text);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_holds_docs_to_the_registrys_rules() {
    let dir = copy_of_kv("rules");
    let d = dir.join("docs");
    std::fs::write(d.join("notes.txt"), "not markdown").unwrap();
    std::fs::write(
        d.join("resources/kv_gone.md"),
        "---\npage_title: \"gone\"\n---\n",
    )
    .unwrap();
    std::fs::remove_file(d.join("functions/hash.md")).unwrap();
    let index = std::fs::read_to_string(d.join("index.md")).unwrap();
    std::fs::write(
        d.join("index.md"),
        index.replacen("---\n", "---\nlayout: \"kv\"\n", 1),
    )
    .unwrap();
    std::fs::create_dir_all(d.join("guides")).unwrap();
    let big = format!("---\npage_title: \"big\"\n---\n{}", "x".repeat(500_001));
    std::fs::write(d.join("guides/big.md"), big).unwrap();
    // A guide of one's own is the author's, never stale.
    std::fs::write(
        d.join("guides/start.md"),
        "---\npage_title: \"start\"\n---\n# Start\n",
    )
    .unwrap();
    std::fs::create_dir_all(d.join("extras")).unwrap();
    std::fs::write(d.join("extras/a.md"), "---\npage_title: \"a\"\n---\n").unwrap();
    let (ok, _, err) = docs(&["--check", "--binary", kv()], &dir);
    assert!(!ok);
    for says in [
        "notes.txt: not a .md file",
        "resources/kv_gone.md: stale: the provider has no such resource",
        "functions/hash.md: missing",
        "index.md: front matter has `layout`",
        "guides/big.md: 500027 bytes, more than the registry takes (500000)",
        "extras/ is not a folder the registry reads",
    ] {
        assert!(err.contains(says), "{says:?} not in:\n{err}");
    }
    assert!(!err.contains("start.md"), "{err}");
    // The page with `layout` differs from the generated one too.
    assert_eq!(err.matches("\n  ").count(), 7, "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_refuses_more_files_than_the_registry_takes() {
    let dir = copy_of_kv("many");
    let guides = dir.join("docs/guides");
    std::fs::create_dir_all(&guides).unwrap();
    for i in 0..2000 {
        std::fs::write(
            guides.join(format!("g{i}.md")),
            "---\npage_title: \"g\"\n---\n",
        )
        .unwrap();
    }
    let (ok, _, err) = docs(&["--check", "--binary", kv()], &dir);
    assert!(!ok);
    assert!(err.contains("more than the registry takes (2000)"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn generating_removes_pages_of_things_the_provider_no_longer_has_and_keeps_guides() {
    let dir = copy_of_kv("regen");
    let d = dir.join("docs");
    std::fs::write(d.join("resources/kv_gone.md"), "old").unwrap();
    std::fs::create_dir_all(d.join("guides")).unwrap();
    std::fs::write(d.join("guides/start.md"), "mine").unwrap();
    let (ok, _, err) = docs(&["--binary", kv()], &dir);
    assert!(ok, "{err}");
    assert!(!d.join("resources/kv_gone.md").exists());
    assert_eq!(
        std::fs::read_to_string(d.join("guides/start.md")).unwrap(),
        "mine"
    );
    let (ok, _, err) = docs(&["--check", "--binary", kv()], &dir);
    assert!(!ok, "the guide has no front matter");
    assert!(
        err.contains("guides/start.md: no YAML front matter"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_binary_that_is_not_a_provider_fails_with_what_it_said() {
    let dir = std::env::temp_dir().join(format!("ctywire-docs-notplugin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fake = dir.join("terraform-provider-fake");
    std::fs::write(&fake, "#!/bin/sh\necho 'no plugin here' >&2\nexit 3\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (ok, _, err) = docs(&["--binary", fake.to_str().unwrap()], &dir);
    assert!(!ok);
    assert!(err.contains("exited before its handshake"), "{err}");
    assert!(err.contains("no plugin here"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_provider_served_by_the_protocol_layer_alone_is_documented_too() {
    // The protocol layer's example provider: no framework, no doc comments.
    let binary = e2e::cargo_build("ctywire-tfplugin6", "tfplugin6-example-provider");
    let dir = std::env::temp_dir().join(format!("ctywire-docs-plain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, _, err) = docs(
        &["--binary", binary.to_str().unwrap(), "--name", "example"],
        &dir,
    );
    assert!(ok, "{err}");
    let page = |p: &str| std::fs::read_to_string(dir.join("docs").join(p)).unwrap();
    let secret = page("resources/example_secret.md");
    assert!(
        secret.contains("page_title: \"example_secret Resource - terraform-provider-example\""),
        "{secret}"
    );
    assert!(
        secret.contains("### Optional\n\n- `password` (String, [Write-only]"),
        "{secret}"
    );
    assert!(
        secret.contains("### Read-Only\n\n- `id` (String)\n"),
        "{secret}"
    );
    let echo = page("data-sources/example_echo.md");
    assert!(
        echo.contains("### Required\n\n- `input` (Dynamic)\n"),
        "{echo}"
    );
    assert!(page("index.md").contains("- `prefix` (String)"));
    // An executable not named terraform-provider-TYPE needs --name.
    let (ok, _, err) = docs(&["--binary", binary.to_str().unwrap()], &dir);
    assert!(!ok);
    assert!(err.contains("say the type with --name"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
