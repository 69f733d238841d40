//! Load on the Seasonings host: N calls of `functions.call` with K in
//! flight, through [`Plugin`], to each plugin in turn, printing calls/s and
//! latency percentiles; in the same run, the bridge's JSON-RPC call to the
//! Deno child of bridge/tests/peers (what bridge/examples/rpc_load.rs
//! measures) for comparison.
//!
//! * `in-process`: a Rust peer in this process, over an in-memory pipe,
//!   answering at once: what the host (and the msgpack-rpc peer on both
//!   sides) costs, with no process and no language runtime in the way;
//! * `rust`: examples/seasonings/rust's `slugs`, on the Rust SDK (built
//!   beside this example: `cargo build --release -p seasonings-plugin-example`);
//! * `python`, `node`: examples/seasonings/{python/slugs.py, node/slugs.mjs};
//! * `deno`: the bridge's JSON-RPC `echo` to denobridge's child.
//!
//! Every plugin call is `sum(123456789012345678901234567890)`: one exact
//! number out, one back.
//!
//! ```sh
//! bash scripts/seasonings-peers.sh && bash scripts/test-peers.sh   # msgpack packages, Deno
//! cargo build --release -p seasonings-plugin-example                 # the Rust plugin
//! cargo run --release -p ctywire-seasonings --example call_load --features host -- 20000 64
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use ctywire::{Number, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::{
    Child, ChildOptions, Handlers, MsgpackHandlers, MsgpackRpcPeer, PeerOptions,
};
use ctywire_bridge::Json;
use ctywire_seasonings::host::{Plugin, PluginOptions};
use ctywire_seasonings::protocol::{code, ErrorObject, Fields};

mod support;
use support::{calls_and_in_flight, measure};

#[tokio::main]
async fn main() {
    let (calls, in_flight) = calls_and_in_flight();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let peers = root.join("target/peers");
    let options = || PluginOptions {
        max_in_flight: in_flight,
        ..PluginOptions::default()
    };

    let (host_end, plugin_end) = tokio::io::duplex(1 << 16);
    let (pr, pw) = tokio::io::split(plugin_end);
    let _echo = MsgpackRpcPeer::new(pr, pw, echo_plugin(), PeerOptions::default());
    let (hr, hw) = tokio::io::split(host_end);
    let plugin = Plugin::over_streams("in-process", hr, hw, options()).await;
    run_plugin("in-process", plugin, calls, in_flight).await;

    // The Rust plugin of the same profile: target/<profile>/slugs, beside
    // target/<profile>/examples/call_load.
    let rust = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("slugs")))
        .unwrap_or_default();
    let plugin = Plugin::spawn(rust, Vec::<String>::new(), options()).await;
    run_plugin("rust", plugin, calls, in_flight).await;

    let python = peers.join("python/bin/python");
    let script = root.join("examples/seasonings/python/slugs.py");
    let plugin = Plugin::spawn(python, [script.display().to_string()], options()).await;
    run_plugin("python", plugin, calls, in_flight).await;

    let script = root.join("examples/seasonings/node/slugs.mjs");
    let mut opts = options();
    let modules = peers.join("node/node_modules").display().to_string();
    opts.env = vec![("NODE_PATH".into(), modules)];
    let plugin = Plugin::spawn("node", [script.display().to_string()], opts).await;
    run_plugin("node", plugin, calls, in_flight).await;

    run_deno(&root, calls, in_flight).await;
}

/// The number every call sums: 30 digits, so exactness costs something.
fn argument() -> Value {
    Value::number(Number::parse("123456789012345678901234567890").expect("a number"))
}

async fn run_plugin(
    label: &str,
    plugin: Result<Plugin, ctywire_seasonings::host::PluginError>,
    calls: usize,
    in_flight: usize,
) {
    let plugin = match plugin {
        Ok(p) => Arc::new(p),
        Err(e) => {
            println!("{label}: skipped, {e} (see the commands above: the peers script, or the Rust plugin's build)");
            return;
        }
    };
    let expected = argument();
    measure(label, calls, in_flight, {
        let plugin = plugin.clone();
        move || {
            let (plugin, expected) = (plugin.clone(), expected.clone());
            async move {
                let v = plugin.call_function("sum", vec![argument()]).await;
                match v {
                    Ok(v) if v == expected => Ok(()),
                    Ok(v) => Err(format!("sum answered {v:?}")),
                    Err(e) => Err(e.to_string()),
                }
            }
        }
    })
    .await;
    if let Ok(p) = Arc::try_unwrap(plugin) {
        p.shutdown().await;
    }
}

async fn run_deno(root: &std::path::Path, calls: usize, in_flight: usize) {
    let deno = root.join("target/peers/node_modules/.bin/deno");
    let script = root.join("bridge/tests/peers/denobridge_child.ts");
    let script = script.display().to_string();
    let args = ["run", "--quiet", "--no-prompt", "--no-config", &script];
    let mut opts = ChildOptions::new(deno, args);
    opts.env = vec![("DENO_NO_UPDATE_CHECK".into(), "1".into())];
    let child = match Child::spawn(opts, Handlers::new()) {
        Ok(c) => c,
        Err(e) => {
            println!("deno: skipped, cannot start deno ({e}); run scripts/test-peers.sh first");
            return;
        }
    };
    let empty = || Some(Json::parse("{}").expect("JSON"));
    if let Err(e) = child.peer().call("health", empty()).await {
        println!("deno: skipped, {e}");
        return;
    }
    // rpc_load's call: an object with an exact 23-digit number, echoed.
    let params =
        Json::parse(r#"{"props":{"name":"web","size":12345678901234567890123}}"#).expect("JSON");
    let peer = child.peer().clone();
    measure("deno (JSON-RPC)", calls, in_flight, move || {
        let (peer, params) = (peer.clone(), params.clone());
        async move {
            peer.call("echo", Some(params))
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        }
    })
    .await;
    let _ = child.peer().call("shutdown", empty()).await;
    child.stop().await;
}

/// A plugin in this process that declares `sum(numbers...)` and answers a
/// call with its first argument, at once: the host's own cost.
fn echo_plugin() -> MsgpackHandlers {
    MsgpackHandlers::new()
        .request("init", |_| async {
            let mut f = Fields::new();
            f.insert_str("protocol_version", "1.0");
            f.insert_str("name", "in-process");
            f.insert_str("version", "0.0.0");
            f.insert_strs("capabilities", ["functions"]);
            Ok(f.encode())
        })
        .request("functions.getSchema", |_| async {
            let mut variadic = Fields::new();
            variadic.insert_str("name", "numbers");
            variadic.insert_str("type", "number");
            let mut sum = Fields::new();
            sum.insert_raw("parameters", Raw(vec![0x90])); // []
            sum.insert_raw("variadic_parameter", variadic.encode());
            sum.insert_str("return_type", "number");
            let mut functions = Fields::new();
            functions.insert_raw("sum", sum.encode());
            let mut result = Fields::new();
            result.insert_raw("functions", functions.encode());
            Ok(result.encode())
        })
        .request("functions.call", |params| async move {
            let invalid =
                |e: ctywire::Error| ErrorObject::new(code::INVALID_PARAMS, e.to_string()).encode();
            let fields = Fields::from_param_list(&params).map_err(invalid)?;
            let args = fields.require("arguments").map_err(invalid)?;
            // [x, ...]: x starts after a fixarray header.
            let first = args.0.get(1..).unwrap_or_default().to_vec();
            let mut result = Fields::new();
            result.insert_raw("result", Raw(first));
            Ok(result.encode())
        })
}
