//! The example provider binary, started as Terraform starts providers:
//! the go-plugin handshake, AutoMTLS, and calls over the socket.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ctywire_tfplugin6::client::{ClientCertificate, Handshake};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::{health, plugin};
use ctywire_tfplugin6::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use tonic::transport::Channel;

const BIN: &str = env!("CARGO_BIN_EXE_tfplugin6-example-provider");

// The core's test support: the one SKIPPED rule.
#[path = "../../tests/support/skip.rs"]
mod skip;

fn client_identity() -> ClientCertificate {
    ClientCertificate::generate().unwrap()
}

/// The running provider; killed when dropped.
struct Plugin {
    child: Child,
    line: String,
}

impl Drop for Plugin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Plugin {
    fn fields(&self) -> Vec<&str> {
        self.line.trim_end().split('|').collect()
    }
    fn socket(&self) -> String {
        self.fields()[3].to_string()
    }
    /// Waits for the process to exit on its own.
    fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < within {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

fn command(env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Starts the provider with Terraform's environment and reads its
/// handshake line.
fn start(client: Option<&ClientCertificate>, socket_dir: &std::path::Path) -> Plugin {
    start_with(client, socket_dir, command)
}

/// [`start`], the process made by `make` from the environment.
fn start_with(
    client: Option<&ClientCertificate>,
    socket_dir: &std::path::Path,
    make: impl FnOnce(&[(&str, &str)]) -> Command,
) -> Plugin {
    let mut env = vec![
        (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
        ("PLUGIN_PROTOCOL_VERSIONS", "5,6"),
        ("PLUGIN_UNIX_SOCKET_DIR", socket_dir.to_str().unwrap()),
    ];
    if let Some(c) = client {
        env.push(("PLUGIN_CLIENT_CERT", c.pem()));
    }
    let mut child = make(&env).spawn().expect("the provider starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    Plugin { child, line }
}

/// A gRPC channel to the plugin over its socket, with mTLS presenting
/// `identity`.
async fn connect(
    plugin: &Plugin,
    identity: &ClientCertificate,
) -> Result<Channel, ctywire_tfplugin6::client::ConnectError> {
    ctywire_tfplugin6::client::connect(&Handshake::parse(&plugin.line)?, Some(identity)).await
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tfplugin6-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn refuses_to_run_without_the_magic_cookie() {
    let out = command(&[("PLUGIN_PROTOCOL_VERSIONS", "6")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("This binary is a plugin. These are not meant to be executed directly."),
        "{stderr}"
    );
}

#[test]
fn refuses_a_protocol_version_offer_without_6_naming_the_offer() {
    let out = command(&[
        (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
        ("PLUGIN_PROTOCOL_VERSIONS", "4,5"),
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("\"4,5\""), "{stderr}");
}

#[test]
fn handshake_line_names_a_unix_socket_and_the_server_cert() {
    let dir = temp_dir("line");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let f = plugin.fields();
    assert_eq!(f.len(), 6, "{:?}", plugin.line);
    assert_eq!(&f[..3], ["1", "6", "unix"]);
    assert_eq!(f[4], "grpc");
    assert!(plugin.line.ends_with('\n'));
    // In a fresh directory under PLUGIN_UNIX_SOCKET_DIR.
    let socket = std::path::Path::new(f[3]);
    assert_eq!(socket.parent().unwrap().parent().unwrap(), dir);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(socket).unwrap().file_type().is_socket());
    // go-plugin's RawStdEncoding: no padding; the DER of a certificate.
    assert!(!f[5].ends_with('='));
    let handshake = Handshake::parse(&plugin.line).unwrap();
    assert_eq!(handshake.server_certificate.unwrap()[0], 0x30);
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_client_cert_the_line_has_an_empty_cert_field() {
    let dir = temp_dir("plain");
    let plugin = start(None, &dir);
    assert!(plugin.line.ends_with("|grpc|\n"), "{:?}", plugin.line);
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_terraforms_cert_gets_the_provider_schema_over_mtls() {
    let dir = temp_dir("mtls");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let channel = connect(&plugin, &identity).await.expect("mTLS connects");

    let health = health::health_client::HealthClient::new(channel.clone())
        .check(health::HealthCheckRequest {
            service: "plugin".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.status, 1, "plugin is SERVING");

    let mut client = pb::provider_client::ProviderClient::new(channel);
    let schema = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(schema.diagnostics.is_empty());
    assert!(schema.data_source_schemas.contains_key("example_echo"));
    let secret = &schema.resource_schemas["example_secret"];
    let password = secret
        .block
        .as_ref()
        .unwrap()
        .attributes
        .iter()
        .find(|a| a.name == "password")
        .unwrap();
    assert!(password.write_only);
    assert_eq!(password.r#type, b"\"string\"");
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_another_cert_is_refused() {
    let dir = temp_dir("wrong");
    let expected = client_identity();
    let intruder = client_identity();
    let plugin = start(Some(&expected), &dir);
    let refused = match connect(&plugin, &intruder).await {
        // The TLS 1.3 client learns of the refusal only on its first read.
        Ok(channel) => pb::provider_client::ProviderClient::new(channel)
            .get_provider_schema(pb::get_provider_schema::Request {})
            .await
            .is_err(),
        Err(_) => true,
    };
    assert!(refused, "a client with the wrong certificate got through");
    // The server is still there for the right client.
    let channel = connect(&plugin, &expected).await.unwrap();
    pb::provider_client::ProviderClient::new(channel)
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap();
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_value_is_answered_with_a_diagnostic_at_its_path() {
    let dir = temp_dir("malformed");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let mut client =
        pb::provider_client::ProviderClient::new(connect(&plugin, &identity).await.unwrap());
    // {"id": null, "password": 7}: a number where a string belongs (msgpack
    // 7 is a fixint, which is never a string).
    let resp = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "example_secret".into(),
            proposed_new_state: Some(pb::DynamicValue {
                msgpack: b"\x82\xa2id\xc0\xa8password\x07".to_vec(),
                json: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.planned_state.is_none());
    let d = &resp.diagnostics[0];
    assert_eq!(d.severity, pb::diagnostic::Severity::Error as i32);
    assert!(d.summary.contains("proposed_new_state"), "{d:?}");
    let steps = &d.attribute.as_ref().expect("a path").steps;
    assert_eq!(
        steps[0].selector,
        Some(pb::attribute_path::step::Selector::AttributeName(
            "password".into()
        ))
    );
    // Bytes that are not msgpack at all, and an unknown type name.
    let resp = client
        .read_data_source(pb::read_data_source::Request {
            type_name: "example_echo".into(),
            config: Some(pb::DynamicValue {
                msgpack: vec![0xc1, 0xff],
                json: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1);
    let resp = client
        .read_data_source(pb::read_data_source::Request {
            type_name: "nope".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        resp.diagnostics[0].summary.contains("\"nope\""),
        "{:?}",
        resp.diagnostics
    );
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_only_attributes_are_null_in_the_planned_state() {
    let dir = temp_dir("writeonly");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let mut client =
        pb::provider_client::ProviderClient::new(connect(&plugin, &identity).await.unwrap());
    // The example provider returns the proposal as it is, password and all.
    let resp = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "example_secret".into(),
            proposed_new_state: Some(pb::DynamicValue {
                msgpack: b"\x82\xa2id\xc0\xa8password\xa3pw!".to_vec(),
                json: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        resp.planned_state.unwrap().msgpack,
        b"\x82\xa2id\xc0\xa8password\xc0"
    );
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_from_the_controller_ends_the_process_even_with_streams_open() {
    let dir = temp_dir("shutdown");
    let identity = client_identity();
    let mut plugin = start(Some(&identity), &dir);
    let channel = connect(&plugin, &identity).await.unwrap();
    // go-plugin's client opens these two streams and keeps them open.
    let mut stdio = plugin::grpc_stdio_client::GrpcStdioClient::new(channel.clone())
        .stream_stdio(())
        .await
        .unwrap()
        .into_inner();
    let _broker = plugin::grpc_broker_client::GrpcBrokerClient::new(channel.clone())
        .start_stream(tokio_stream::iter(Vec::<plugin::ConnInfo>::new()))
        .await
        .unwrap();
    plugin::grpc_controller_client::GrpcControllerClient::new(channel)
        .shutdown(plugin::Empty {})
        .await
        .unwrap();
    // The stdio stream ends, having sent nothing.
    assert!(matches!(stdio.message().await, Ok(None) | Err(_)));
    let status = tokio::task::block_in_place(|| plugin.wait_exit(Duration::from_secs(10)))
        .expect("the plugin exits after Shutdown");
    assert!(status.success(), "{status}");
    let mut stderr = String::new();
    let _ = plugin
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr);
    // The socket's directory is removed.
    let socket = plugin.socket();
    assert!(
        !std::path::Path::new(&socket).parent().unwrap().exists(),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_client_cert_that_is_a_pem_block_of_garbage_exits_1_before_the_handshake() {
    let dir = temp_dir("garbage-cert");
    let garbage = "-----BEGIN CERTIFICATE-----\naGVsbG8sIG5vdCBhIGNlcnRpZmljYXRl\n-----END CERTIFICATE-----\n";
    let mut child = command(&[
        (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
        ("PLUGIN_PROTOCOL_VERSIONS", "6"),
        ("PLUGIN_UNIX_SOCKET_DIR", dir.to_str().unwrap()),
        ("PLUGIN_CLIENT_CERT", garbage),
    ])
    .spawn()
    .unwrap();
    // A provider that took the certificate would serve on, unreachable.
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "no handshake line");
    assert!(stderr.contains("PLUGIN_CLIENT_CERT"), "{stderr}");
    assert!(stderr.contains("not an X.509 certificate"), "{stderr}");
    // Nothing was bound.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_socket_directory_is_owner_only_even_under_umask_000() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("umask");
    let plugin = start_with(None, &dir, |env| {
        let mut cmd = command(env);
        // The same process, started by a shell whose umask is 000.
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", "umask 000 && exec \"$0\"", BIN])
            .env_clear()
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::mem::swap(&mut cmd, &mut sh);
        cmd
    });
    let socket = plugin.socket();
    let parent = std::path::Path::new(&socket).parent().unwrap();
    let mode = std::fs::metadata(parent).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the socket's directory has mode {mode:o}");
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A panic in provider code, over the wire as Terraform sees it: the call
/// is answered with an error diagnostic naming the panic and where it
/// happened, and the provider goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_provider_code_reaches_the_client_as_a_diagnostic_over_grpc() {
    let dir = temp_dir("panic");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let channel = connect(&plugin, &identity).await.unwrap();
    let mut client = pb::provider_client::ProviderClient::new(channel);
    let request = pb::read_data_source::Request {
        type_name: "example_panic".into(),
        // {"message": "boom"} in msgpack.
        config: Some(pb::DynamicValue {
            msgpack: b"\x81\xa7message\xa4boom".to_vec(),
            json: vec![],
        }),
        ..Default::default()
    };
    for _ in 0..2 {
        let answer = client
            .read_data_source(request.clone())
            .await
            .expect("answered, not a cancelled stream")
            .into_inner();
        let d = &answer.diagnostics[0];
        assert_eq!(d.severity, pb::diagnostic::Severity::Error as i32);
        assert_eq!(d.summary, "The provider panicked");
        assert!(d.detail.contains("boom"), "{}", d.detail);
        assert!(d.detail.contains("example_provider.rs:"), "{}", d.detail);
    }
    // Still serving.
    client
        .get_metadata(pb::get_metadata::Request {})
        .await
        .unwrap();
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ReadDataSource` of `example_block`, whose provider code blocks its
/// thread for `seconds`.
fn read_blocking(seconds: u8) -> pb::read_data_source::Request {
    pb::read_data_source::Request {
        type_name: "example_block".into(),
        // {"seconds": seconds} in msgpack.
        config: Some(pb::DynamicValue {
            msgpack: [b"\x81\xa7seconds".as_slice(), &[seconds]].concat(),
            json: vec![],
        }),
        ..Default::default()
    }
}

/// How long `f` takes to answer.
async fn timed<T>(f: impl std::future::Future<Output = T>) -> (T, Duration) {
    let start = Instant::now();
    let out = f.await;
    (out, start.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_own_rpcs_answer_while_provider_code_blocks_every_thread() {
    const BLOCK: u8 = 6;
    let dir = temp_dir("blocked");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let channel = connect(&plugin, &identity).await.unwrap();
    let client = pb::provider_client::ProviderClient::new(channel.clone());
    // More blocking calls than the provider's runtime has threads (the
    // example's `#[tokio::main]`: one per core).
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let began = Instant::now();
    let blocked: Vec<_> = (0..threads * 2 + 2)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move { client.read_data_source(read_blocking(BLOCK)).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(blocked.iter().all(|b| !b.is_finished()));

    let mut latencies = vec![];
    let (r, t) = timed(client.clone().get_metadata(pb::get_metadata::Request {})).await;
    r.unwrap();
    latencies.push(("GetMetadata", t));
    let (r, t) = timed(
        client
            .clone()
            .get_provider_schema(pb::get_provider_schema::Request {}),
    )
    .await;
    r.unwrap();
    latencies.push(("GetProviderSchema", t));
    let mut health = health::health_client::HealthClient::new(channel.clone());
    let (r, t) = timed(health.check(health::HealthCheckRequest {
        service: "plugin".into(),
    }))
    .await;
    assert_eq!(r.unwrap().into_inner().status, 1);
    latencies.push(("health", t));
    let (r, t) = timed(client.clone().stop_provider(pb::stop_provider::Request {})).await;
    assert_eq!(r.unwrap().into_inner().error, "");
    latencies.push(("StopProvider", t));
    eprintln!(
        "while {} calls block every provider thread: {latencies:?}",
        blocked.len()
    );
    for (rpc, t) in &latencies {
        assert!(*t < Duration::from_millis(100), "{rpc} took {t:?}");
    }

    // The blocked calls are answered as stopped, though their threads
    // still sleep.
    for b in blocked {
        let r = b.await.unwrap().unwrap().into_inner();
        assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
        assert_eq!(r.diagnostics[0].summary, "The provider was stopped");
    }
    let answered = began.elapsed();
    eprintln!(
        "the blocked calls were answered {answered:?} after they began (each blocks {BLOCK} s)"
    );
    assert!(
        answered < Duration::from_secs(BLOCK as u64 - 2),
        "{answered:?}"
    );
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_calls_on_one_connection_are_all_answered() {
    const CALLS: usize = 10_000;
    let dir = temp_dir("concurrent");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let client =
        pb::provider_client::ProviderClient::new(connect(&plugin, &identity).await.unwrap());
    let start = Instant::now();
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move {
                client
                    .read_data_source(pb::read_data_source::Request {
                        type_name: "example_echo".into(),
                        config: Some(pb::DynamicValue {
                            msgpack: b"\x82\xa5input\xc0\xa6output\xc0".to_vec(),
                            json: vec![],
                        }),
                        ..Default::default()
                    })
                    .await
            })
        })
        .collect();
    let mut failed = vec![];
    for c in calls {
        match c.await.unwrap() {
            Ok(r) => assert!(r.get_ref().diagnostics.is_empty()),
            Err(status) => failed.push(status),
        }
    }
    eprintln!(
        "{CALLS} concurrent calls on one connection: {:?}",
        start.elapsed()
    );
    assert!(
        failed.is_empty(),
        "{} failed, first: {:?}",
        failed.len(),
        failed.first()
    );
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Python with grpcio from target/peers/venv, or None (SKIPPED).
fn grpcio_python() -> Option<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/peers/venv/bin/python");
    let has_grpcio = Command::new(&python)
        .args(["-c", "import grpc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_grpcio {
        skip::missing(
            "grpcio (Python)",
            "scripts/test-peers.sh installs it from PyPI into target/peers/venv",
        );
        return None;
    }
    Some(python)
}

/// tests/grpcio_client.py with `args` (the socket, then the TLS files if
/// any), its GetMetadata and GetProviderSchema answers checked.
fn grpcio_client_gets_the_metadata_and_schema(python: &std::path::Path, args: &[&std::ffi::OsStr]) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpcio_client.py");
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let answer = |method: &str| {
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{method} ")))
            .unwrap_or_else(|| panic!("no answer to {method}: {stdout}\n{stderr}"));
        let hex = line
            .strip_prefix("ok ")
            .unwrap_or_else(|| panic!("{method}: {line}"));
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect::<Vec<u8>>()
    };
    use prost::Message;
    let metadata = pb::get_metadata::Response::decode(&answer("GetMetadata")[..]).unwrap();
    assert!(metadata.diagnostics.is_empty());
    assert!(metadata
        .data_sources
        .iter()
        .any(|d| d.type_name == "example_echo"));
    let schema =
        pb::get_provider_schema::Response::decode(&answer("GetProviderSchema")[..]).unwrap();
    assert!(schema.diagnostics.is_empty());
    assert!(schema.resource_schemas.contains_key("example_secret"));
}

#[test]
fn a_python_grpcio_client_gets_the_metadata_and_schema_over_mtls() {
    let Some(python) = grpcio_python() else {
        return;
    };
    let dir = temp_dir("grpcio");
    let identity = client_identity();
    let plugin = start(Some(&identity), &dir);
    let (cert, key) = (dir.join("client.pem"), dir.join("client.key"));
    std::fs::write(&cert, identity.pem()).unwrap();
    std::fs::write(&key, identity.key_pem()).unwrap();
    let socket = plugin.socket();
    let server_cert = plugin.fields()[5].to_string();
    grpcio_client_gets_the_metadata_and_schema(
        &python,
        &[
            socket.as_ref(),
            server_cert.as_ref(),
            cert.as_ref(),
            key.as_ref(),
        ],
    );
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}

/// grpcio's default `:authority` for a unix socket is its percent-encoded
/// path, which h2 alone would refuse (every call reset, PROTOCOL_ERROR).
#[test]
fn a_python_grpcio_client_on_default_settings_gets_the_metadata_and_schema_in_plaintext() {
    let Some(python) = grpcio_python() else {
        return;
    };
    let dir = temp_dir("grpcio-plain");
    let plugin = start(None, &dir);
    let socket = plugin.socket();
    grpcio_client_gets_the_metadata_and_schema(&python, &[socket.as_ref()]);
    drop(plugin);
    let _ = std::fs::remove_dir_all(&dir);
}
