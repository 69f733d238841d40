//! The runtime against real peers, not mocks: a Deno child written from
//! the denobridge protocol document (`tests/peers/denobridge_child.ts`),
//! Neovim's msgpack-rpc API (`nvim --embed`), and Node's `json-rpc-2.0`
//! package serving ipc-jsonrpc over a unix socket
//! (`tests/peers/ipc_server.mjs`). `scripts/test-peers.sh` installs them
//! (`.ci/run` calls it); a test whose peer is missing says
//! `SKIPPED: <tool> is missing: <why>` and passes, except under `CI=true`,
//! where it fails (`support::skip`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod denobridge_protocol;

use ctywire::{Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::{
    CallError, Child, ChildOptions, Handlers, JsonRpcPeer, MsgpackHandlers, MsgpackRpcPeer,
    PeerOptions,
};
use ctywire_bridge::{Json, JsonNumber};
use denobridge_protocol::{
    method, CreateParams, CreateResult, DeleteParams, DoneResult, ReadParams, ReadResult,
    UpdateParams, UpdateResult,
};

// The core's test support: the one SKIPPED rule (tests/support/skip.rs).
#[path = "../../tests/support/mod.rs"]
mod support;
use support::skip::missing;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn peers() -> PathBuf {
    // scripts/test-peers.sh installs them under the workspace's target/.
    root().join("../target/peers")
}

fn json(text: &str) -> Json {
    Json::parse(text).unwrap()
}

/// denobridge's readiness check.
async fn health(child: &Child) -> Result<Json, CallError> {
    child.peer().call(method::HEALTH, Some(json("{}"))).await
}

/// The Deno binary the npm package `deno` installed, or `missing`'s SKIPPED
/// line (a failure under CI).
fn deno() -> Option<PathBuf> {
    let bin = peers().join("node_modules/.bin/deno");
    if bin.exists() {
        let version = std::process::Command::new(&bin).arg("--version").output();
        if let Ok(out) = version {
            let first = String::from_utf8_lossy(&out.stdout);
            eprintln!("peer: {}", first.lines().next().unwrap_or("deno"));
        }
        Some(bin)
    } else {
        missing(
            "deno",
            "target/peers has no deno (scripts/test-peers.sh installs it from the npm registry)",
        );
        None
    }
}

fn deno_options(opts: PeerOptions) -> Option<ChildOptions> {
    let bin = deno()?;
    let script = root().join("tests/peers/denobridge_child.ts");
    let mut o = ChildOptions::new(
        bin,
        [
            "run".to_string(),
            "--quiet".into(),
            "--no-prompt".into(),
            "--no-config".into(),
            script.display().to_string(),
        ],
    );
    o.env = vec![
        ("DENO_NO_UPDATE_CHECK".into(), "1".into()),
        ("NO_COLOR".into(), "1".into()),
        (
            "DENO_DIR".into(),
            peers().join("deno-dir").display().to_string(),
        ),
    ];
    o.peer = opts;
    o.grace = Duration::from_secs(3);
    Some(o)
}

fn deno_child(handlers: Handlers) -> Option<Child> {
    let opts = deno_options(PeerOptions::default())?;
    Some(Child::spawn(opts, handlers).expect("deno starts"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_answers_its_first_call_and_one_that_is_no_peer_says_why() {
    let Some(opts) = deno_options(PeerOptions::default()) else {
        return;
    };
    let child = Child::spawn(opts, Handlers::new()).unwrap();
    assert_eq!(health(&child).await.unwrap(), json(r#"{"ok":true}"#));
    assert_eq!(child.peer().in_flight(), 0);
    // Something that is not a JSON-RPC child at all fails the first call,
    // with its exit status and what it wrote to stderr.
    let sh = Child::spawn(
        ChildOptions::new("sh", ["-c", "echo not a child >&2; exit 4"]),
        Handlers::new(),
    )
    .unwrap();
    let err = health(&sh).await.expect_err("sh is no child");
    let text = err.to_string();
    assert!(text.contains("exit status: 4"), "{text}");
    assert!(text.contains("not a child"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_killed_mid_call_fails_the_call_and_is_gone() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let peer = child.peer().clone();
    let waiting = tokio::spawn(async move { peer.call("never", None).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pid = child.id().await.expect("running");
    child.kill().await.unwrap();
    let err = waiting.await.unwrap().unwrap_err();
    let CallError::Closed(why) = &err else {
        panic!("{err:?}")
    };
    assert!(why.contains("signal: 9"), "{why}");
    assert!(!Path::new(&format!("/proc/{pid}")).exists() || is_zombie(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deno_resource_goes_through_create_read_update_delete() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    assert_eq!(health(&child).await.unwrap(), json(r#"{"ok":true}"#));
    let peer = child.peer();
    let props = json(r#"{"name":"web","count":3,"ports":[443,80]}"#);
    let created: CreateResult = peer
        .call_typed(
            method::CREATE,
            &CreateParams {
                props: props.clone(),
                write_only_props: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(created.id, "res-1");
    assert_eq!(created.state["created"], Json::Bool(true));

    let read: ReadResult = peer
        .call_typed(
            method::READ,
            &ReadParams {
                id: created.id.clone(),
                props: props.clone(),
            },
        )
        .await
        .unwrap();
    assert_eq!(read.props, Some(props.clone()));

    let next = json(r#"{"name":"web","count":4,"ports":[443]}"#);
    let updated: UpdateResult = peer
        .call_typed(
            method::UPDATE,
            &UpdateParams {
                id: created.id.clone(),
                next_props: next.clone(),
                next_write_only_props: None,
                current_props: props.clone(),
                current_state: created.state.clone(),
                current_sensitive_state: Json::Null,
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.state, Some(json(r#"{"updated":true}"#)));

    let done: DoneResult = peer
        .call_typed(
            method::DELETE,
            &DeleteParams {
                id: created.id.clone(),
                props: next,
                state: Json::Null,
                sensitive_state: Json::Null,
            },
        )
        .await
        .unwrap();
    assert!(done.done);
    let gone: ReadResult = peer
        .call_typed(
            method::READ,
            &ReadParams {
                id: created.id,
                props,
            },
        )
        .await
        .unwrap();
    assert!(gone.is_gone());
    child
        .peer()
        .call(method::SHUTDOWN, Some(json("{}")))
        .await
        .unwrap();
    let status = child.stop().await.expect("an exit status");
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_arrive_before_the_answer_they_precede() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let handlers = {
        let seen = seen.clone();
        Handlers::new().notification(method::INVOKE_PROGRESS, move |params| {
            let message = params
                .as_ref()
                .and_then(|p| p["message"].as_str().map(str::to_string));
            seen.lock().unwrap().push(message.unwrap_or_default());
        })
    };
    let Some(child) = deno_child(handlers) else {
        return;
    };
    let done = child.peer().call("invoke", None).await.unwrap();
    assert_eq!(done, json(r#"{"done":true}"#));
    assert_eq!(*seen.lock().unwrap(), ["step 1", "step 2", "step 3"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_calls_in_flight_are_answered_out_of_order() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let peer = child.peer().clone();
    let slow = {
        let peer = peer.clone();
        tokio::spawn(async move {
            peer.call("slow", Some(json(r#"{"ms":400,"tag":"slow"}"#)))
                .await
        })
    };
    // Let the slow call go out first.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(peer.in_flight(), 1);
    let fast = peer
        .call("slow", Some(json(r#"{"ms":0,"tag":"fast"}"#)))
        .await
        .unwrap();
    assert_eq!(fast, json(r#"{"tag":"fast"}"#));
    // The slow one is still waiting when the fast one is done.
    assert_eq!(peer.in_flight(), 1);
    let slow = slow.await.unwrap().unwrap();
    assert_eq!(slow, json(r#"{"tag":"slow"}"#));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_exits_mid_call_fails_every_call_with_its_status_and_stderr() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let peer = child.peer().clone();
    let waiting = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.call("never", None).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let err = peer
        .call("exit", Some(json(r#"{"status":7}"#)))
        .await
        .unwrap_err();
    let CallError::Closed(why) = &err else {
        panic!("{err:?}")
    };
    assert!(why.contains("exit status: 7"), "{why}");
    assert!(why.contains("exiting on purpose with status 7"), "{why}");
    // The call that was already waiting fails too, at once, the same way.
    let other = waiting.await.unwrap().unwrap_err();
    assert_eq!(other, err);
    // And so does any call after.
    assert!(matches!(
        peer.call("health", None).await,
        Err(CallError::Closed(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_json_line_on_stdout_is_reported_and_the_peer_goes_on() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let peer = child.peer();
    let after = peer.call("garbage", None).await.unwrap();
    assert_eq!(after, json(r#"{"after":"garbage"}"#));
    assert_eq!(peer.faults(), 1);
    assert_eq!(health(&child).await.unwrap(), json(r#"{"ok":true}"#));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_with_an_unknown_id_is_reported_and_dropped() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let after = child.peer().call("wrongid", None).await.unwrap();
    assert_eq!(after, json(r#"{"after":"wrongid"}"#));
    assert_eq!(child.peer().faults(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_never_answers_times_out() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let err = child
        .peer()
        .call_with_timeout("never", None, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        CallError::Timeout {
            method: "never".into(),
            after: Duration::from_millis(300)
        }
    );
    // The forgotten call leaves nothing behind.
    assert_eq!(child.peer().in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_mb_line_is_refused_within_the_line_limit() {
    let Some(opts) = deno_options(PeerOptions {
        max_message: 1 << 20,
        ..PeerOptions::default()
    }) else {
        return;
    };
    let child = Child::spawn(opts, Handlers::new()).unwrap();
    let after = child
        .peer()
        .call("bigline", Some(json(r#"{"mb":100}"#)))
        .await
        .unwrap();
    assert_eq!(after, json(r#"{"after":"bigline"}"#));
    assert_eq!(child.peer().faults(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_stops_reading_and_exits_is_reported_by_how_it_ended() {
    // It closes its stdin at once, so the call's write fails (a broken
    // pipe) before its stdout closes: the call still fails saying how the
    // child ended, not only that a write failed. (Under load, a child that
    // exits at once, as in the health-check test, can race this way.)
    let script = "exec 0<&-; echo giving up >&2; sleep 0.3; exit 5";
    let child = Child::spawn(ChildOptions::new("sh", ["-c", script]), Handlers::new()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let err = child.peer().call("health", None).await.unwrap_err();
    let CallError::Closed(why) = &err else {
        panic!("{err:?}")
    };
    assert!(why.contains("exit status: 5"), "{why}");
    assert!(why.contains("giving up"), "{why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_closed_while_stderr_goes_on_fails_calls_at_once() {
    // A child that closes its stdout and goes on writing to stderr for
    // four seconds (a shell: Deno keeps its stdout open until it exits).
    let script = "echo closing stdout >&2; exec 1>&-; i=0; \
                  while [ $i -lt 40 ]; do echo still here $i >&2; i=$((i+1)); sleep 0.1; done";
    let child = Child::spawn(ChildOptions::new("sh", ["-c", script]), Handlers::new()).unwrap();
    let started = std::time::Instant::now();
    let err = child.peer().call("health", None).await.unwrap_err();
    let CallError::Closed(why) = &err else {
        panic!("{err:?}")
    };
    assert!(
        why.contains("closed its stdout but is still running"),
        "{why}"
    );
    assert!(why.contains("closing stdout"), "{why}");
    // The call failed without waiting for the child to exit.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let pid = child.id().await;
    drop(child);
    // Dropping the child kills it: nothing is left running.
    if let Some(pid) = pid {
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!Path::new(&format!("/proc/{pid}")).exists() || is_zombie(pid));
    }
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.contains(") Z "))
        .unwrap_or(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_errors_keep_their_code_and_exact_data() {
    let Some(child) = deno_child(Handlers::new()) else {
        return;
    };
    let err = child.peer().call("fail", None).await.unwrap_err();
    let CallError::Remote(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.code, -32001);
    assert_eq!(e.message, "failed on purpose");
    assert_eq!(e.data.as_ref().unwrap()["why"], Json::String("test".into()));
}

// ---- Node's json-rpc-2.0 over a unix socket (ipc-jsonrpc) ---------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_json_rpc_2_0_answers_100_concurrent_calls_out_of_order() {
    let package = peers().join("node_modules/json-rpc-2.0");
    let node = which("node");
    let Some(node) = node else {
        missing("node", "not on PATH (install Node.js with npm)");
        return;
    };
    if !package.exists() {
        missing(
            "json-rpc-2.0",
            "target/peers has no npm package json-rpc-2.0 (scripts/test-peers.sh installs it)",
        );
        return;
    }
    let version = std::fs::read_to_string(package.join("package.json")).unwrap_or_default();
    let version = Json::parse(&version)
        .ok()
        .and_then(|j| j["version"].as_str().map(str::to_string))
        .unwrap_or_default();
    eprintln!("peer: node with json-rpc-2.0 {version}");
    let dir = tempdir("ipc");
    let socket = dir.join("rpc.sock");
    let mut server = tokio::process::Command::new(node)
        .arg(root().join("tests/peers/ipc_server.mjs"))
        .arg(&socket)
        .env("JSON_RPC_2_0", &package)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Wait for "listening".
    let stdout = server.stdout.take().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("the node server starts")
        .unwrap();
    assert_eq!(first.as_deref(), Some("listening"));

    let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (r, w) = stream.into_split();
    let pushed = Arc::new(Mutex::new(Vec::new()));
    let handlers = {
        let pushed = pushed.clone();
        Handlers::new().notification("pushed", move |p| pushed.lock().unwrap().push(p))
    };
    let peer = JsonRpcPeer::new(r, w, handlers, PeerOptions::default());

    // 100 calls at once; call n waits (100 - n) * 3 ms, so they finish in
    // the reverse of the order they were sent.
    let calls = (0..100).map(|n| {
        let peer = peer.clone();
        async move {
            let params = json(&format!(r#"{{"n":{n},"ms":{}}}"#, (100 - n) * 3));
            let answer = peer.call("delayed", Some(params)).await.unwrap();
            (n, answer["n"].as_i64(), std::time::Instant::now())
        }
    });
    let results = futures_join_all(calls).await;
    for (n, got, _) in &results {
        assert_eq!(*got, Some(*n as i64));
    }
    let first_done = results.iter().min_by_key(|r| r.2).unwrap().0;
    assert!(
        first_done > 50,
        "the last sent finished first, not {first_done}"
    );

    let err = peer.call("fails", None).await.unwrap_err();
    let CallError::Remote(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!((e.code, e.message.as_str()), (-32042, "it failed"));
    assert_eq!(e.data, Some(json(r#"{"detail":"with data","count":3}"#)));

    let ok = peer
        .call("pushme", Some(json(r#"{"text":"hello"}"#)))
        .await
        .unwrap();
    assert_eq!(ok, json(r#"{"pushed":true}"#));
    // The notification was sent before the answer, on the same socket.
    assert_eq!(*pushed.lock().unwrap(), [Some(json(r#"{"text":"hello"}"#))]);
    let _ = server.kill().await;
}

/// Runs futures concurrently on this task, in order of their results.
async fn futures_join_all<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctywire-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---- Neovim, a real msgpack-rpc server --------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neovim_answers_msgpack_rpc_calls_errors_and_notifies() {
    let Some(nvim) = which("nvim") else {
        missing(
            "nvim",
            "not on PATH (scripts/test-peers.sh installs neovim with apt-get)",
        );
        return;
    };
    let version = std::process::Command::new(&nvim).arg("--version").output();
    if let Ok(out) = version {
        eprintln!(
            "peer: {}",
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .unwrap_or("nvim")
        );
    }
    let mut process = tokio::process::Command::new(nvim)
        .args(["--embed", "--headless", "--clean", "-n", "-i", "NONE"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stdout, stdin) = (
        process.stdout.take().unwrap(),
        process.stdin.take().unwrap(),
    );
    let notified = Arc::new(Mutex::new(Vec::new()));
    let handlers = {
        let notified = notified.clone();
        MsgpackHandlers::new().notification("ctywire_hello", move |params: Vec<Raw>| {
            notified.lock().unwrap().push(params);
        })
    };
    let peer = MsgpackRpcPeer::new(stdout, stdin, handlers, PeerOptions::default());
    let text = |s: &str| Raw::encode(&Value::string(s), &Type::String).unwrap();

    let three = peer.call("nvim_eval", vec![text("1 + 2")]).await.unwrap();
    assert_eq!(three.decode(&Type::Number).unwrap(), Value::number(3));

    // nvim_get_api_info: [channel id, metadata].
    let info = peer.call("nvim_get_api_info", vec![]).await.unwrap();
    // Its metadata is a map of mixed values; the channel id is what matters.
    let id = first_array_element_u64(&info.0).expect("a channel id");
    assert!(id > 0);

    let err = peer
        .call("nvim_eval", vec![text("NoSuchFunction()")])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("E117"), "{err}");

    // Neovim sends a notification back on our channel.
    let cmd = format!("call rpcnotify({id}, 'ctywire_hello', 42, 'x')");
    peer.call("nvim_command", vec![text(&cmd)]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let got = notified.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0][0].decode(&Type::Number).unwrap(), Value::number(42));
    assert_eq!(got[0][1].decode(&Type::String).unwrap(), Value::string("x"));

    // Typed values out, a typed result back.
    let got = peer
        .call_values(
            "nvim_call_function",
            &[
                (&Value::string("get"), &Type::String),
                (
                    &Value::tuple(vec![
                        Value::tuple(vec![Value::string("a")]),
                        Value::number(0),
                    ]),
                    &Type::tuple([Type::tuple([Type::String]), Type::Number]),
                ),
            ],
            &Type::String,
        )
        .await
        .unwrap();
    assert_eq!(got, Value::string("a"));
    let _ = process.kill().await;
}

/// The first element of a msgpack array, as an unsigned integer.
fn first_array_element_u64(bytes: &[u8]) -> Option<u64> {
    let (&head, rest) = bytes.split_first()?;
    if !(0x90..=0x9f).contains(&head) {
        return None;
    }
    let (&b, rest) = rest.split_first()?;
    match b {
        0x00..=0x7f => Some(u64::from(b)),
        0xcc => rest.first().map(|&x| u64::from(x)),
        0xcd => Some(u64::from(u16::from_be_bytes([
            *rest.first()?,
            *rest.get(1)?,
        ]))),
        _ => None,
    }
}

#[test]
fn exact_numbers_survive_typed_calls_in_memory() {
    // No child needed: two peers on a pipe, numbers past f64 both ways.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 16);
        let (ar, aw) = tokio::io::split(a);
        let (br, bw) = tokio::io::split(b);
        let echo = Handlers::new().request("echo", |p| async move { Ok(p.unwrap_or(Json::Null)) });
        let _server = JsonRpcPeer::new(br, bw, echo, PeerOptions::default());
        let client = JsonRpcPeer::new(ar, aw, Handlers::new(), PeerOptions::default());
        let big: JsonNumber = "18446744073709551617.000000000000000000000000000001"
            .parse()
            .unwrap();
        let back = client
            .call("echo", Some(Json::Array(vec![Json::Number(big.clone())])))
            .await
            .unwrap();
        assert_eq!(back[0], Json::Number(big));
    });
}

#[test]
fn a_call_given_up_is_forgotten_and_its_late_answer_reported() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 16);
        let (ar, aw) = tokio::io::split(a);
        let (br, bw) = tokio::io::split(b);
        let slow = Handlers::new().request("slow", |_| async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(Json::Null)
        });
        let _server = JsonRpcPeer::new(br, bw, slow, PeerOptions::default());
        let client = JsonRpcPeer::new(ar, aw, Handlers::new(), PeerOptions::default());
        let call = client.call("slow", None);
        // Give up on it after 50 ms: dropping the future cancels the call.
        assert!(tokio::time::timeout(Duration::from_millis(50), call)
            .await
            .is_err());
        assert_eq!(client.in_flight(), 0);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(client.faults(), 1, "the late answer matched no call");
    });
}

#[test]
fn refined_unknowns_survive_a_msgpack_rpc_round_trip() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 16);
        let (ar, aw) = tokio::io::split(a);
        let (br, bw) = tokio::io::split(b);
        let echo = MsgpackHandlers::new().request("echo", |mut p: Vec<Raw>| async move {
            Ok(p.pop().unwrap_or_else(Raw::nil))
        });
        let _server = MsgpackRpcPeer::new(br, bw, echo, PeerOptions::default());
        let client = MsgpackRpcPeer::new(ar, aw, MsgpackHandlers::new(), PeerOptions::default());
        let refined = Value::unknown(Type::String)
            .refined(ctywire::Refinements {
                not_null: true,
                string_prefix: Some("web-".into()),
                ..Default::default()
            })
            .unwrap();
        let back = client
            .call_values("echo", &[(&refined, &Type::String)], &Type::String)
            .await
            .unwrap();
        assert_eq!(back, refined);
        assert_eq!(
            back.refinements().unwrap().string_prefix.as_deref(),
            Some("web-")
        );
        let err = client.call("nope", vec![]).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"the peer answered with error "method not found: nope""#
        );
    });
}

#[test]
fn a_fallback_serves_every_method_not_named_and_is_told_the_name() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 16);
        let (ar, aw) = tokio::io::split(a);
        let (br, bw) = tokio::io::split(b);
        let handlers = MsgpackHandlers::new()
            .request("named", |_| async { Ok(Raw(vec![0xc3])) })
            .fallback(|method: String, params: Vec<Raw>| async move {
                let mut out = Vec::new();
                rmp::encode::write_str(&mut out, &format!("{method}/{}", params.len())).unwrap();
                Err(Raw(out))
            });
        let _server = MsgpackRpcPeer::new(br, bw, handlers, PeerOptions::default());
        let client = MsgpackRpcPeer::new(ar, aw, MsgpackHandlers::new(), PeerOptions::default());
        assert_eq!(client.call("named", vec![]).await.unwrap(), Raw(vec![0xc3]));
        let err = client.call("a/b.c", vec![Raw::nil()]).await.unwrap_err();
        assert_eq!(err.to_string(), r#"the peer answered with error "a/b.c/1""#);
    });
}
