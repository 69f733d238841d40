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

use ctywire::{Path, Unknowable, Value};

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
/// A `command` or `timeout` not known yet is refused: the default (Deno,
/// 600 s) would run scripts other than as configured. A
/// `deno_binary_path` not known yet is the default's.
pub fn configure(config: &provider::Config) -> Result<Runner, Diagnostics> {
    let mut diags = Diagnostics::new();
    let mut runner = Runner::default();
    if let Some(Some(p)) = config.deno_binary_path.known() {
        runner.deno = PathBuf::from(p);
    }
    match &config.command {
        Unknowable::Known(None) => {}
        Unknowable::Known(Some(argv)) if !argv.is_empty() => runner.command = Some(argv.clone()),
        _ => diags.push(
            crate::diag::error(
                "Invalid command",
                "`command` must be a known, non-empty list of strings: the program and its leading arguments (the script's path is appended).",
            )
            .at(Path::root().attr("command")),
        ),
    }
    match config.timeout {
        Unknowable::Known(None) => {}
        // At most a day: a call that may take longer is one that
        // never returns.
        Unknowable::Known(Some(s)) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => {
            runner.timeout = Duration::from_secs_f64(s)
        }
        _ => diags.push(
            crate::diag::error(
                "Invalid timeout",
                "`timeout` must be a known, positive number of seconds, at most 86400 (a day).",
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

#[cfg(test)]
mod tests {
    use super::*;
    use ctywire::Type;

    fn attribute_of(diags: &Diagnostics) -> Vec<String> {
        diags
            .iter()
            .map(|d| {
                format!(
                    "{:?}:{}",
                    d.severity,
                    d.attribute
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn an_empty_command_or_a_timeout_past_a_day_is_refused_at_its_attribute() {
        let config = provider::Config {
            command: Unknowable::Known(Some(Vec::new())),
            timeout: Unknowable::Known(Some(86_401.0)),
            ..provider::Config::default()
        };
        let refused = configure(&config).unwrap_err();
        assert_eq!(attribute_of(&refused), ["Error:.command", "Error:.timeout"]);
        let config = provider::Config {
            deno_binary_path: Unknowable::Known(Some("/opt/deno".into())),
            command: Unknowable::Known(Some(vec!["python3".into()])),
            timeout: Unknowable::Known(Some(1.5)),
            ..provider::Config::default()
        };
        let runner = configure(&config).unwrap();
        assert_eq!(runner.deno, PathBuf::from("/opt/deno"));
        assert_eq!(runner.command, Some(vec!["python3".to_owned()]));
        assert_eq!(runner.timeout, Duration::from_millis(1500));
    }

    /// What ConfigureProvider answers for a provider block with these
    /// values (the others null).
    async fn configured_with(set: &[(&str, Value)]) -> Vec<String> {
        use ctywire_provider::tfplugin6::{ConfigureProviderRequest, Provider as _};
        let null = [
            ("deno_binary_path", Value::null(Type::String)),
            ("deno_version", Value::null(Type::String)),
            ("command", Value::null(Type::list(Type::String))),
            ("timeout", Value::null(Type::Number)),
        ];
        let config = Value::object(null.map(|(name, v)| {
            let given = set.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
            (name, given.unwrap_or(v))
        }));
        let diags = provider::DenoBridge::new()
            .configure_provider(ConfigureProviderRequest {
                terraform_version: "1.11.4".into(),
                config,
                client_capabilities: Default::default(),
            })
            .await;
        attribute_of(&diags)
    }

    #[tokio::test]
    async fn a_command_or_timeout_not_known_yet_is_refused_not_taken_as_unset() {
        let unknown_command = ("command", Value::unknown(Type::list(Type::String)));
        let unknown_timeout = ("timeout", Value::unknown(Type::Number));
        assert_eq!(
            configured_with(std::slice::from_ref(&unknown_command)).await,
            ["Error:.command"]
        );
        assert_eq!(
            configured_with(&[unknown_timeout]).await,
            ["Error:.timeout"]
        );
        // Whatever else is unknown too.
        let unknown_path = ("deno_binary_path", Value::unknown(Type::String));
        assert_eq!(
            configured_with(&[unknown_command, unknown_path.clone()]).await,
            ["Error:.command"]
        );
        // A path not known yet is the default's, as before.
        assert!(configured_with(&[unknown_path]).await.is_empty());
    }

    #[test]
    fn deno_version_is_warned_about_when_validated() {
        let config = |version: Value| {
            Value::object([
                ("deno_binary_path", Value::null(Type::String)),
                ("deno_version", version),
                ("command", Value::null(Type::list(Type::String))),
                ("timeout", Value::null(Type::Number)),
            ])
        };
        let warned = validate(&config(Value::string("2.1.0")));
        assert_eq!(attribute_of(&warned), ["Warning:.deno_version"]);
        assert!(validate(&config(Value::null(Type::String))).is_empty());
    }
}
