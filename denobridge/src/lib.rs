//! terraform-provider-denobridge on ctywire: Terraform resources, data
//! sources and ephemeral resources implemented by scripts (Deno, or any
//! program through the provider's `command`) over JSON-RPC on stdio, with
//! none of denobridge's data losses.
//!
//! Each operation is a plain async function over ctywire [`Value`]s on a
//! configured [`Runner`]; the tfplugin6 layer only decodes Terraform's
//! messages into them and encodes the answers.
//!
//! [`Value`]: ctywire::Value

pub mod data;
pub mod diag;
pub mod private;
pub mod props;
pub mod provider;
pub mod resource;
pub mod schema;
pub mod script;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use script::Runner;

use std::path::PathBuf;
use std::time::Duration;

use ctywire::{Path, Value};

/// `ConfigureProvider`: the runner the provider block describes.
///
/// * `deno_binary_path`, else `$DENO_BINARY`, else `deno` on `PATH`;
///   `deno_version` is accepted (denobridge downloads that version) and
///   warned about, since this provider never downloads anything.
/// * `command`: run scripts with it instead of Deno.
/// * `timeout`: seconds per call (default 600).
pub fn configure(config: &Value) -> (Runner, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut runner = Runner::default();
    let known = |name: &str| config.attr(name).filter(|v| v.is_known() && !v.is_null());
    if let Some(p) = known("deno_binary_path").and_then(Value::as_str) {
        runner.deno = PathBuf::from(p);
    }
    if known("deno_version").is_some() {
        diags.push(
            crate::diag::warning(
                "deno_version is ignored",
                "This provider does not download Deno. It runs deno_binary_path, else $DENO_BINARY, else `deno` from PATH.",
            )
            .at(Path::root().attr("deno_version")),
        );
    }
    if let Some(c) = config.attr("command").filter(|v| !v.is_null()) {
        let argv: Option<Vec<String>> = c.elements().filter(|_| c.is_wholly_known()).map(|es| {
            es.iter()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect()
        });
        match argv {
            Some(argv) if !argv.is_empty() && argv.len() == c.len().unwrap_or(0) => {
                runner.command = Some(argv)
            }
            _ => diags.push(
                crate::diag::error(
                    "Invalid command",
                    "`command` must be a known, non-empty list of strings: the program and its leading arguments (the script's path is appended).",
                )
                .at(Path::root().attr("command")),
            ),
        }
    }
    if let Some(t) = known("timeout") {
        match t.as_f64() {
            // At most a day: a call that may take longer is one that
            // never returns.
            Some(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => {
                runner.timeout = Duration::from_secs_f64(s)
            }
            _ => diags.push(
                crate::diag::error(
                    "Invalid timeout",
                    "`timeout` must be a positive number of seconds, at most 86400 (a day).",
                )
                .at(Path::root().attr("timeout")),
            ),
        }
    }
    (runner, diags)
}

/// The longest `timeout` a configuration may set.
const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;

/// The ctywire this provider is built on.
pub use ctywire;
/// The bridge this provider talks to scripts with (its tests read
/// Terraform's JSON with `ctywire_bridge::Json`).
pub use ctywire_bridge;
