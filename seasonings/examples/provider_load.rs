//! Load on the host provider: N `CallFunction` calls with K in flight over
//! real gRPC to `ctywire-seasonings serve`, started as Terraform starts a
//! provider (go-plugin's handshake, a Unix socket), serving each plugin in
//! turn; calls/s and latency percentiles, beside what call_load.rs
//! measures on the host alone.
//!
//! * `python`, `node`: examples/seasonings/{python/slugs.py, node/slugs.mjs}
//!   behind the provider.
//!
//! Every call is `provider::slugs::sum(123456789012345678901234567890)`,
//! the call call_load makes, answered through the provider. The channel is
//! plain HTTP/2 (no `PLUGIN_CLIENT_CERT`, so the provider serves without
//! TLS); Terraform's AutoMTLS would add its encryption.
//!
//! ```sh
//! bash scripts/seasonings-peers.sh   # msgpack packages
//! cargo build --release -p ctywire-seasonings --features provider --bin ctywire-seasonings --example provider_load
//! target/release/examples/provider_load 20000 64
//! ```

use std::path::{Path, PathBuf};
use std::process::Stdio;

use ctywire::{Number, Type, Value};
use ctywire_provider::tfplugin6::client::{connect, Handshake};
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use pb::provider_client::ProviderClient;
use tokio::io::{AsyncBufReadExt, BufReader};

mod support;
use support::{calls_and_in_flight, measure};

/// go-plugin's handshake cookie for Terraform providers.
const MAGIC_COOKIE: (&str, &str) = (
    "TF_PLUGIN_MAGIC_COOKIE",
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
);

#[tokio::main]
async fn main() {
    let (calls, in_flight) = calls_and_in_flight();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let peers = root.join("target/peers");
    // Built beside this example: target/PROFILE/examples/provider_load.
    let exe = std::env::current_exe().expect("this program's path");
    let server = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("ctywire-seasonings"))
        .expect("a target directory");
    if !server.is_file() {
        println!(
            "skipped: {} is not built (build the bin with this example)",
            server.display()
        );
        return;
    }

    let python = peers.join("python/bin/python").display().to_string();
    let script = root.join("examples/seasonings/python/slugs.py");
    let command = [python, script.display().to_string()];
    run("python", &server, &command, &[], calls, in_flight).await;

    let script = root.join("examples/seasonings/node/slugs.mjs");
    let command = ["node".to_string(), script.display().to_string()];
    let modules = peers.join("node/node_modules").display().to_string();
    let env = [("NODE_PATH", modules.as_str())];
    run("node", &server, &command, &env, calls, in_flight).await;
}

async fn run(
    label: &str,
    server: &Path,
    command: &[String],
    env: &[(&str, &str)],
    calls: usize,
    in_flight: usize,
) {
    let mut child = tokio::process::Command::new(server)
        .arg("serve")
        .arg("--")
        .args(command)
        .env(MAGIC_COOKIE.0, MAGIC_COOKIE.1)
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("ctywire-seasonings starts");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped");
    let _ = BufReader::new(stdout).read_line(&mut line).await;
    let handshake = match Handshake::parse(&line) {
        Ok(handshake) => handshake,
        Err(e) => {
            println!("{label} (provider): skipped, no handshake ({line:?}: {e}); run scripts/seasonings-peers.sh first");
            return;
        }
    };
    // No PLUGIN_CLIENT_CERT: plaintext.
    let mut client = match connect(&handshake, None).await {
        Ok(channel) => ProviderClient::new(channel),
        Err(e) => {
            println!("{label} (provider): skipped, cannot connect: {e}");
            return;
        }
    };
    // As Terraform does before calling a function.
    if let Err(e) = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
    {
        println!("{label} (provider): skipped, GetProviderSchema failed: {e}");
        return;
    }
    let argument = pb::DynamicValue {
        msgpack: ctywire::msgpack::encode(&argument(), &Type::Number).expect("a number"),
        json: Vec::new(),
    };
    let expected = argument.msgpack.clone();
    let label = format!("{label} (through the provider, gRPC)");
    measure(&label, calls, in_flight, move || {
        let mut client = client.clone();
        let (argument, expected) = (argument.clone(), expected.clone());
        async move {
            let request = pb::call_function::Request {
                name: "sum".into(),
                arguments: vec![argument],
            };
            let answer = client
                .call_function(request)
                .await
                .map_err(|e| e.to_string())?
                .into_inner();
            match (answer.result, answer.error) {
                (Some(v), None) if v.msgpack == expected => Ok(()),
                other => Err(format!("sum answered {other:?}")),
            }
        }
    })
    .await;
    let _ = child.kill().await;
}

/// The number every call sums: 30 digits, as call_load's.
fn argument() -> Value {
    Value::number(Number::parse("123456789012345678901234567890").expect("a number"))
}
