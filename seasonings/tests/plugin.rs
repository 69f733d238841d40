//! The Rust SDK's server (`ctywire_seasonings::plugin`) on its own terms:
//! driven with the bytes of `docs/seasonings.md` §4 (the example `slugs`
//! plugin, examples/seasonings/rust, answers byte for byte what the doc
//! shows), and in process against the host for what an author's mistakes
//! must not do (a panic kills nothing; a slow call holds up no other).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use ctywire::{Type, Value};
use ctywire_bridge::msgpack_rpc::{Message, StreamDecoder};
use ctywire_seasonings::host::{Plugin as Host, PluginOptions};
use ctywire_seasonings::plugin::{async_trait, Error, Function, Model, Plugin};
use ctywire_seasonings::protocol::{code, method, Fields};
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

#[path = "support/doc.rs"]
mod doc;
#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;
mod support;
use doc::example;

/// Sends `requests` to the Rust `slugs` plugin, one at a time (each
/// answered before the next: `init` must come first), and returns every
/// message it wrote, as bytes, in order.
fn exchange(requests: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let exe = support::plugins::rust_plugin("slugs");
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the plugin starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut decoder = StreamDecoder::new(1 << 20);
    let mut out = Vec::new();
    for r in requests {
        stdin.write_all(r).unwrap();
        stdin.flush().unwrap();
        // Read until this request's answer (logs may come first).
        loop {
            match decoder.next().unwrap() {
                Some(m) => {
                    let answer = matches!(m, Message::Response { .. });
                    out.push(m.encode());
                    if answer {
                        break;
                    }
                }
                None => {
                    let mut buf = [0u8; 4096];
                    let n = stdout.read(&mut buf).unwrap();
                    assert!(n > 0, "the plugin closed stdout mid-exchange: {out:x?}");
                    decoder.feed(&buf[..n]).unwrap();
                }
            }
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "the plugin exits 0 when stdin closes: {status}"
    );
    out
}

fn request(id: u32, method: &str, params: Fields) -> Vec<u8> {
    Message::Request {
        id,
        method: method.into(),
        params: params.into_params(),
    }
    .encode()
}

fn call(id: u32, name: &str, arguments: &[&str]) -> Vec<u8> {
    let mut p = Fields::new();
    p.insert_str("name", name);
    let mut args = Vec::new();
    rmp::encode::write_array_len(&mut args, arguments.len() as u32).unwrap();
    for a in arguments {
        rmp::encode::write_str(&mut args, a).unwrap();
    }
    p.insert_raw("arguments", ctywire_bridge::msgpack_rpc::Raw(args));
    request(id, method::FUNCTIONS_CALL, p)
}

#[test]
fn the_rust_slugs_plugin_answers_the_docs_requests_with_the_docs_bytes() {
    let init = example("host → plugin   [0, 1, \"init\"");
    let ping = example("[0, 2, \"ping\"");
    let unknown = example("[0, 3, \"functions.call\"");
    let got = exchange(&[
        init,
        ping,
        unknown,
        call(4, "slug", &["Hello World", "--"]),
        call(7, "slug", &["Hello World", "-"]),
        request(6, "storage.read", Fields::new()),
    ]);
    // init: the doc's plugin offers resources too; this one functions only.
    let Message::Response {
        id: 1,
        error,
        result,
    } = Message::decode(&got[0]).unwrap()
    else {
        panic!("{:x?}", got[0])
    };
    assert!(error.is_nil());
    let result = Fields::read(&result.0).unwrap();
    assert_eq!(result.str("name").unwrap(), "slugs");
    assert_eq!(result.str("protocol_version").unwrap(), "1.0");
    assert_eq!(got[1], example("plugin → host   [1, 2, null"));
    assert_eq!(got[2], example("plugin → host   [1, 3, null"));
    assert_eq!(got[3], example("plugin → host   [1, 4, {\"code\": 1"));
    // The call that logs: its log notification, the doc's bytes, first.
    assert_eq!(got[4], example("plugin → host   [2, \"log\""));
    assert!(matches!(
        Message::decode(&got[5]).unwrap(),
        Message::Response { id: 7, .. }
    ));
    assert_eq!(got[6], example("plugin → host   [1, 6, {\"code\": -32601"));
}

#[test]
fn a_host_of_another_major_version_is_refused_naming_both_versions() {
    let mut p = Fields::new();
    p.insert_str("protocol_version", "2.0");
    let got = exchange(&[request(1, method::INIT, p)]);
    assert_eq!(got[0], example("plugin → host   [1, 1, {\"code\": -32001"));
}

#[test]
fn a_request_before_init_is_an_invalid_request_and_slashes_are_read_as_dots() {
    let got = exchange(&[
        request(1, method::PING, Fields::new()),
        request(2, "functions/getSchema", Fields::new()),
    ]);
    let error = |m: &[u8]| match Message::decode(m).unwrap() {
        Message::Response { error, .. } => Fields::read(&error.0).unwrap(),
        other => panic!("{other:?}"),
    };
    let e = error(&got[0]);
    assert_eq!(e.get("code").unwrap().0, [0xd1, 0x80, 0xa8], "-32600");
    assert_eq!(e.str("detail").unwrap(), "\"ping\" before init");
    assert_eq!(
        error(&got[1]).str("detail").unwrap(),
        "\"functions.getSchema\" before init"
    );
}

// ---------------------------------------------------------------------
// In process: the SDK's server on a duplex pipe, the host on the other end

/// Panics when asked to.
#[derive(Model, Serialize, Deserialize)]
struct PanicArgs {
    message: String,
}

struct Panics;

#[async_trait]
impl Function for Panics {
    type Args = PanicArgs;
    type Output = String;
    async fn call(&self, args: PanicArgs) -> Result<String, Error> {
        if args.message == "fine" {
            return Ok("fine".into());
        }
        panic!("{}", args.message);
    }
}

/// Waits until two calls are in at once, then answers.
#[derive(Model, Serialize, Deserialize)]
struct MeetArgs {
    who: String,
}

struct Meet(Arc<Barrier>);

#[async_trait]
impl Function for Meet {
    type Args = MeetArgs;
    type Output = String;
    async fn call(&self, args: MeetArgs) -> Result<String, Error> {
        self.0.wait().await;
        Ok(format!("met {}", args.who))
    }
}

async fn served(plugin: Plugin) -> Host {
    let (host_end, plugin_end) = tokio::io::duplex(1 << 16);
    let (pr, pw) = tokio::io::split(plugin_end);
    tokio::spawn(plugin.serve_on(pr, pw));
    let (hr, hw) = tokio::io::split(host_end);
    let options = PluginOptions {
        call_timeout: Duration::from_secs(10),
        ..PluginOptions::default()
    };
    Host::over_streams("in-process", hr, hw, options)
        .await
        .expect("the SDK's server answers init")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_a_function_is_an_internal_error_and_the_plugin_still_serves() {
    let host = served(Plugin::new("panics", "0.1.0").function("boom", Panics)).await;
    let e = host
        .call_function("boom", vec![Value::string("on purpose")])
        .await
        .unwrap_err();
    let remote = e.remote().expect("an error answer");
    assert_eq!(remote.code, code::INTERNAL_ERROR);
    assert_eq!(remote.message, "The plugin panicked");
    assert_eq!(remote.detail.as_deref(), Some("functions.call: on purpose"));
    host.ping().await.unwrap();
    let v = host
        .call_function("boom", vec![Value::string("fine")])
        .await
        .unwrap();
    assert_eq!(v.as_str(), Some("fine"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_served_concurrently() {
    // Each call waits for the other: served one at a time, neither ends.
    let plugin = Plugin::new("meets", "0.1.0").function("meet", Meet(Arc::new(Barrier::new(2))));
    let host = Arc::new(served(plugin).await);
    let a = tokio::spawn({
        let host = host.clone();
        async move { host.call_function("meet", vec![Value::string("a")]).await }
    });
    let b = host
        .call_function("meet", vec![Value::string("b")])
        .await
        .unwrap();
    assert_eq!(b.as_str(), Some("met b"));
    assert_eq!(a.await.unwrap().unwrap().as_str(), Some("met a"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_argument_that_does_not_decode_at_its_type_is_invalid_params_naming_it() {
    let host = served(Plugin::new("panics", "0.1.0").function("boom", Panics)).await;
    // Past the host's own checks: the raw call, a number where a string is declared.
    let mut p = Fields::new();
    p.insert_str("name", "boom");
    let mut args = Vec::new();
    rmp::encode::write_array_len(&mut args, 1).unwrap();
    rmp::encode::write_bool(&mut args, true).unwrap();
    p.insert_raw("arguments", ctywire_bridge::msgpack_rpc::Raw(args));
    let e = host.call(method::FUNCTIONS_CALL, p).await.unwrap_err();
    let remote = e.remote().expect("an error answer");
    assert_eq!(remote.code, code::INVALID_PARAMS);
    assert_eq!(remote.function_argument, Some(0));
    assert_eq!(
        remote.path.as_ref().map(|p| p.to_string()).as_deref(),
        Some(".arguments[0]")
    );
    host.ping().await.unwrap();
    let _ = Type::String;
}

#[test]
fn a_declaration_terraform_would_refuse_stops_the_plugin_before_it_serves() {
    /// `count` is Terraform's meta-argument.
    #[derive(Model, Serialize, Deserialize)]
    struct Counted {
        count: String,
    }
    struct R;
    #[async_trait]
    impl ctywire_seasonings::plugin::Resource for R {
        type State = Counted;
        async fn create(
            &self,
            p: Counted,
            _: &Value,
        ) -> Result<Counted, ctywire_seasonings::plugin::Failed<Counted>> {
            Ok(p)
        }
        async fn read(&self, s: Counted) -> Result<Option<Counted>, Error> {
            Ok(Some(s))
        }
        async fn update(
            &self,
            _: Counted,
            p: Counted,
            _: &Value,
        ) -> Result<Counted, ctywire_seasonings::plugin::Failed<Counted>> {
            Ok(p)
        }
        async fn delete(&self, _: Counted) -> Result<(), Error> {
            Ok(())
        }
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (a, _b) = tokio::io::duplex(64);
    let (r, w) = tokio::io::split(a);
    let e = rt
        .block_on(
            Plugin::new("bad", "0.1.0")
                .resource("thing", R)
                .serve_on(r, w),
        )
        .unwrap_err();
    assert!(
        e.contains("resource thing: .count: Reserved Root Attribute/Block Name"),
        "{e}"
    );
}
