//! Shared by the tests: the one rule for a test whose real component (Deno,
//! Python) is missing (the core's `tests/support/skip.rs`), where Deno is
//! found, and a directory of scripts.

#![allow(dead_code)] // each test file uses its own part

use std::path::PathBuf;

#[path = "../../../tests/support/skip.rs"]
mod skip;
pub use skip::missing;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Deno from `$DENO_BINARY`, else `scripts/test-peers.sh`'s install, else
/// `PATH`; when none runs, [`missing`] says so (and fails under CI).
pub fn deno() -> Option<PathBuf> {
    let installed = workspace().join("target/peers/node_modules/.bin/deno");
    let candidates = [
        std::env::var_os("DENO_BINARY").map(PathBuf::from),
        Some(installed),
        Some(PathBuf::from("deno")),
    ];
    for c in candidates.into_iter().flatten() {
        let ok = std::process::Command::new(&c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(c);
        }
    }
    missing(
        "deno",
        "not in $DENO_BINARY, target/peers or PATH (scripts/test-peers.sh installs it from the npm registry)",
    );
    None
}

/// A fresh directory holding `scripts` (name, text), removed when dropped.
pub struct ScriptDir(pub PathBuf);

impl ScriptDir {
    pub fn new(prefix: &str, name: &str, scripts: &[(&str, &str)]) -> ScriptDir {
        let d = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for (file, text) in scripts {
            std::fs::write(d.join(file), text).unwrap();
        }
        ScriptDir(d)
    }

    /// The path of the script `name`, as a provider configuration names it.
    pub fn script(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for ScriptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
