//! terraform-provider-denobridge on ctywire: Terraform resources, data
//! sources and ephemeral resources implemented by scripts (Deno, or any
//! program through the provider's `command`) over JSON-RPC on stdio, with
//! none of denobridge's data losses.
//!
//! Each operation is a plain async function over ctywire [`Value`]s on a
//! configured [`Runner`]; the provider ([`provider`], on ctywire's
//! framework) only moves Terraform's requests into them and the answers
//! out.
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

/// `ValidateProviderConfig`: `deno_version` is accepted (denobridge
/// downloads that version) and warned about, since this provider never
/// downloads anything.
pub fn validate(config: &Value) -> Diagnostics {
    let mut diags = Diagnostics::new();
    if config.attr("deno_version").is_some_and(|v| !v.is_null()) {
        diags.push(
            crate::diag::warning(
                "deno_version is ignored",
                "This provider does not download Deno. It runs deno_binary_path, else $DENO_BINARY, else `deno` from PATH.",
            )
            .at(Path::root().attr("deno_version")),
        );
    }
    diags
}

/// `ConfigureProvider`: the runner the provider block describes.
///
/// * `deno_binary_path`, else `$DENO_BINARY`, else `deno` on `PATH`;
/// * `command`: run scripts with it instead of Deno;
/// * `timeout`: seconds per call (default 600).
///
/// Values not known yet are nulls here (the framework's rule): the
/// defaults.
pub fn configure(config: &provider::Config) -> Result<Runner, Diagnostics> {
    let mut diags = Diagnostics::new();
    let mut runner = Runner::default();
    if let Some(p) = &config.deno_binary_path {
        runner.deno = PathBuf::from(p);
    }
    match &config.command {
        None => {}
        Some(argv) if !argv.is_empty() => runner.command = Some(argv.clone()),
        Some(_) => diags.push(
            crate::diag::error(
                "Invalid command",
                "`command` must be a known, non-empty list of strings: the program and its leading arguments (the script's path is appended).",
            )
            .at(Path::root().attr("command")),
        ),
    }
    match config.timeout {
        None => {}
        // At most a day: a call that may take longer is one that
        // never returns.
        Some(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => {
            runner.timeout = Duration::from_secs_f64(s)
        }
        Some(_) => diags.push(
            crate::diag::error(
                "Invalid timeout",
                "`timeout` must be a positive number of seconds, at most 86400 (a day).",
            )
            .at(Path::root().attr("timeout")),
        ),
    }
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(runner)
}

/// The longest `timeout` a configuration may set.
const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;

/// The ctywire this provider is built on.
pub use ctywire;
/// The bridge this provider talks to scripts with (its tests read
/// Terraform's JSON with `ctywire_bridge::Json`).
pub use ctywire_bridge;
