//! The plugins the Terraform tests run, one per language, each with what
//! it needs to really run; a missing interpreter is SKIPPED by the one
//! rule (a failure under CI=true).

// Each test binary uses what it needs of this.
#![allow(dead_code)]

use std::path::PathBuf;

// The one rule for a missing component, as the e2e support loads it.
use crate::e2e::missing;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A plugin command: the language it is written in and how to run it.
pub struct PluginCommand {
    pub language: &'static str,
    pub command: Vec<String>,
}

/// Python with msgpack: `$SEASONINGS_PYTHON`, else the peers script's
/// venv, else `python3` on PATH; none → SKIPPED (a failure under CI).
pub fn python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("SEASONINGS_PYTHON").map(PathBuf::from),
        Some(workspace().join("target/peers/python/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    for c in candidates.into_iter().flatten() {
        let ok = std::process::Command::new(&c)
            .args(["-c", "import msgpack"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(c);
        }
    }
    missing(
        "python with msgpack",
        "run `bash scripts/seasonings-peers.sh` (a venv with msgpack from PyPI)",
    );
    None
}

/// The `things` plugin in each language that can run here. (Node and the
/// Rust SDK's plugin join this list when they exist.)
pub fn things() -> Vec<PluginCommand> {
    let mut out = Vec::new();
    if let Some(py) = python() {
        let script = workspace().join("examples/seasonings/python/things.py");
        out.push(PluginCommand {
            language: "python",
            command: vec![py.display().to_string(), script.display().to_string()],
        });
    }
    out
}
