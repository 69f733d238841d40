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

/// A plugin command: the language it is written in, how to run it, and
/// what its runtime needs in its environment.
pub struct PluginCommand {
    pub language: &'static str,
    pub command: Vec<String>,
    pub env: Vec<(String, String)>,
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

/// `node` on PATH with `@msgpack/msgpack` from the peers script's
/// node_modules (through NODE_PATH, which the helper's `require` honours):
/// the environment it needs; none → SKIPPED (a failure under CI).
pub fn node() -> Option<Vec<(String, String)>> {
    let modules = workspace().join("target/peers/node/node_modules");
    let env = vec![("NODE_PATH".to_string(), modules.display().to_string())];
    let ok = std::process::Command::new("node")
        .args(["-e", "require('@msgpack/msgpack')"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(env);
    }
    missing(
        "node with @msgpack/msgpack",
        "install Node, then run `bash scripts/seasonings-peers.sh` (@msgpack/msgpack from npm)",
    );
    None
}

/// A plugin of examples/seasonings/rust (`slugs`, `things`), built by
/// cargo (a no-op when it is built already): its executable. Building
/// is part of the test, so a failure fails it.
pub fn rust_plugin(bin: &str) -> PathBuf {
    crate::e2e::cargo_build("seasonings-plugin-example", bin)
}

/// The `things` plugin in each language that can run here.
pub fn things() -> Vec<PluginCommand> {
    let examples = workspace().join("examples/seasonings");
    let mut out = vec![PluginCommand {
        language: "rust",
        command: vec![rust_plugin("things").display().to_string()],
        env: Vec::new(),
    }];
    if let Some(py) = python() {
        let script = examples.join("python/things.py");
        out.push(PluginCommand {
            language: "python",
            command: vec![py.display().to_string(), script.display().to_string()],
            env: Vec::new(),
        });
    }
    if let Some(env) = node() {
        let script = examples.join("node/things.mjs");
        out.push(PluginCommand {
            language: "node",
            command: vec!["node".to_string(), script.display().to_string()],
            env,
        });
    }
    out
}
