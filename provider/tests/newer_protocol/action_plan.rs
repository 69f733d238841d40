//! An action's plan hook (`PlanAction`) over the real gRPC connection:
//! typed configuration, diagnostics at the attribute's path, deferred
//! while the configuration holds an unknown its model cannot, and not
//! run at validation. The action is terraform-provider-local's
//! `local_command`, whose plan checks that the command exists.

use std::path::Path;

use ctywire_provider::{
    async_trait, Action, Builder, Context, Diagnostic, Diagnostics, Model, Progress, Result,
};
use serde::{Deserialize, Serialize};

use super::{dv, errors, pb, serve_configured, Channel, ProviderClient, Type, Value};

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

/// Runs a program.
#[derive(Serialize, Deserialize, Model)]
struct Command {
    /// The program: a name found on `PATH`, or a path.
    command: String,
    arguments: Option<Vec<String>>,
}

/// Where `command` is found, as a shell finds it.
fn find(command: &str) -> Option<std::path::PathBuf> {
    if command.contains('/') {
        return Path::new(command).is_file().then(|| command.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

struct Local;

#[async_trait]
impl Action<()> for Local {
    type Config = Command;

    async fn invoke(&self, _: &Context<()>, config: Command, progress: &Progress) -> Result<()> {
        let name = config.command.clone();
        let status = tokio::task::spawn_blocking(move || {
            std::process::Command::new(&config.command)
                .args(config.arguments.unwrap_or_default())
                .status()
        })
        .await
        .map_err(|e| Diagnostics::error(e.to_string()))?
        .map_err(|e| Diagnostics::error(format!("cannot run {name}: {e}")))?;
        progress.send(format!("{name} exited: {status}")).await
    }

    async fn plan(&self, _: &Context<()>, config: Command) -> Diagnostics {
        let mut diags = Diagnostics::new();
        if find(&config.command).is_none() {
            diags.push(
                Diagnostic::error("Command Not Found")
                    .with_detail(format!(
                        "{:?} is not a file and is on no directory of PATH.",
                        config.command
                    ))
                    .at(Command::field_paths().command),
            );
        }
        diags
    }
}

fn command_type() -> Type {
    Type::object([
        ("command", Type::String),
        ("arguments", Type::list(Type::String)),
    ])
}

fn command(c: Value) -> Value {
    Value::object([
        ("command", c),
        ("arguments", Value::null(Type::list(Type::String))),
    ])
}

async fn served() -> ProviderClient<Channel> {
    let framework = Builder::from_fn(|_: NoConfig| Ok(()))
        .action("local_command", Local)
        .build()
        .unwrap();
    serve_configured(framework).await
}

/// The errors of planning `local_command` with `config`, as (summary, path).
async fn plan_errors(client: &mut ProviderClient<Channel>, config: Value) -> Vec<(String, String)> {
    let resp = client
        .plan_action(pb::plan_action::Request {
            action_type: "local_command".into(),
            config: dv(&config, &command_type()),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    errors(&resp.diagnostics)
        .into_iter()
        .map(|d| {
            let at = d.attribute.map(|p| p.to_string()).unwrap_or_default();
            (d.summary, at)
        })
        .collect()
}

#[tokio::test]
async fn an_actions_plan_hook_refuses_at_the_attribute_what_it_finds_wrong() {
    let mut client = served().await;
    let missing = command(Value::string("no-such-command-for-ctywire"));
    assert_eq!(
        plan_errors(&mut client, missing.clone()).await,
        [("Command Not Found".to_string(), ".command".to_string())]
    );
    assert!(plan_errors(&mut client, command(Value::string("sh")))
        .await
        .is_empty());
    // `command` is a String: an unknown one defers the check.
    let unknown = command(Value::unknown(Type::String));
    assert!(plan_errors(&mut client, unknown).await.is_empty());
    // Validation does not run the plan hook.
    let valid = client
        .validate_action_config(pb::validate_action_config::Request {
            type_name: "local_command".into(),
            config: dv(&missing, &command_type()),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(valid.diagnostics.is_empty(), "{:?}", valid.diagnostics);
}
