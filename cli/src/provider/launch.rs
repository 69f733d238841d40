//! A provider launched as Terraform launches it and asked for its schemas:
//! go-plugin's handshake with AutoMTLS (a fresh P-521 client CA in
//! `PLUGIN_CLIENT_CERT`, the server certificate from the handshake line),
//! then `GetProviderSchema` and `GetResourceIdentitySchemas` over gRPC,
//! read by ctywire-tfplugin6's own conversions (its `client` side).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use ctywire::schema::Schema;
use ctywire_tfplugin6::client::{
    diagnostic_from_proto, function_from_proto, identity_schema_from_proto, schema_from_proto,
    ClientCertificate, Handshake,
};
use ctywire_tfplugin6::pb::plugin::grpc_controller_client::GrpcControllerClient;
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::{Schemas, Severity, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use tonic::transport::Channel;

/// How long the provider may take to print its handshake line. Terraform
/// waits a minute (go-plugin's default StartTimeout).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one schema call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest handshake line read; a real one is well under 2 KiB.
const MAX_HANDSHAKE_LINE: u64 = 64 * 1024;
/// The largest gRPC message accepted: a big provider's schema is tens of
/// megabytes (Terraform itself lifts gRPC's 4 MB default for it).
const MAX_MESSAGE: usize = 256 << 20;
/// How much of the provider's stderr an error quotes.
const STDERR_KEPT: usize = 8 * 1024;

/// Launches `binary`, asks it for its schemas and stops it. The answer is
/// the protocol layer's own [`Schemas`], what a provider serves.
pub fn provider_schema(binary: &Path) -> Result<Schemas, String> {
    let sockets = tempfile::tempdir().map_err(|e| format!("a socket directory: {e}"))?;
    let identity = ClientCertificate::generate().map_err(|e| e.to_string())?;
    let mut plugin = Plugin::start(binary, sockets.path(), &identity)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the async runtime: {e}"))?;
    let result = runtime.block_on(async {
        let channel = plugin.connect(&identity).await?;
        let schema = ask(channel.clone()).await;
        // go-plugin's client ends a plugin through its controller.
        let _ = tokio::time::timeout(
            Duration::from_secs(5),
            GrpcControllerClient::new(channel).shutdown(ctywire_tfplugin6::pb::plugin::Empty {}),
        )
        .await;
        schema
    });
    plugin.stop();
    result.map_err(|e| plugin.explain(e))
}

async fn ask(channel: Channel) -> Result<Schemas, String> {
    let mut client = pb::provider_client::ProviderClient::new(channel)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    let response = tokio::time::timeout(
        CALL_TIMEOUT,
        client.get_provider_schema(pb::get_provider_schema::Request {}),
    )
    .await
    .map_err(|_| format!("GetProviderSchema: no answer within {CALL_TIMEOUT:?}"))?
    .map_err(|e| format!("GetProviderSchema: {}", e.message()))?
    .into_inner();
    errors_of("GetProviderSchema", &response.diagnostics)?;
    let mut out = Schemas::new(match &response.provider {
        Some(s) => schema_from_proto(s).map_err(|e| format!("the provider schema: {e}"))?,
        None => Schema::default(),
    });
    let kinds = [
        ("resource", &response.resource_schemas, &mut out.resources),
        (
            "data source",
            &response.data_source_schemas,
            &mut out.data_sources,
        ),
        (
            "ephemeral resource",
            &response.ephemeral_resource_schemas,
            &mut out.ephemeral_resources,
        ),
        (
            "list resource",
            &response.list_resource_schemas,
            &mut out.list_resources,
        ),
        (
            "state store",
            &response.state_store_schemas,
            &mut out.state_stores,
        ),
    ];
    for (kind, from, to) in kinds {
        for (name, s) in from {
            let schema = schema_from_proto(s).map_err(|e| format!("{kind} {name}: {e}"))?;
            to.insert(name.clone(), schema);
        }
    }
    for (name, a) in &response.action_schemas {
        let schema = match &a.schema {
            Some(s) => schema_from_proto(s).map_err(|e| format!("action {name}: {e}"))?,
            None => Schema::default(),
        };
        out.actions.insert(name.clone(), schema);
    }
    for (name, f) in &response.functions {
        let function = function_from_proto(f).map_err(|e| format!("function {name}: {e}"))?;
        out.functions.insert(name.clone(), function);
    }
    // Identities have their own call; a provider without resource
    // identities may not implement it (Terraform treats that as none).
    let identities = tokio::time::timeout(
        CALL_TIMEOUT,
        client.get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {}),
    )
    .await
    .map_err(|_| format!("GetResourceIdentitySchemas: no answer within {CALL_TIMEOUT:?}"))?;
    match identities {
        Ok(r) => {
            let r = r.into_inner();
            errors_of("GetResourceIdentitySchemas", &r.diagnostics)?;
            for (name, s) in &r.identity_schemas {
                let identity = identity_schema_from_proto(s)
                    .map_err(|e| format!("the identity of resource {name}: {e}"))?;
                out.identities.insert(name.clone(), identity);
            }
        }
        Err(e) if e.code() == tonic::Code::Unimplemented => {}
        Err(e) => return Err(format!("GetResourceIdentitySchemas: {}", e.message())),
    }
    Ok(out)
}

/// The error diagnostics of an answer, as one message.
fn errors_of(call: &str, diagnostics: &[pb::Diagnostic]) -> Result<(), String> {
    let errors: Vec<String> = diagnostics
        .iter()
        .map(diagnostic_from_proto)
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            if d.detail.is_empty() {
                d.summary
            } else {
                format!("{}: {}", d.summary, d.detail)
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{call} answered with errors:\n  {}",
            errors.join("\n  ")
        ))
    }
}

/// The provider process, from its handshake line on.
struct Plugin {
    child: Child,
    /// Where it listens, and its server certificate.
    handshake: Option<Handshake>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

impl Plugin {
    fn start(
        binary: &Path,
        sockets: &Path,
        identity: &ClientCertificate,
    ) -> Result<Plugin, String> {
        let name = binary.display();
        // The environment Terraform gives a provider: its own, plus
        // go-plugin's handshake variables.
        let mut child = Command::new(binary)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "6")
            .env("PLUGIN_MIN_PORT", "10000")
            .env("PLUGIN_MAX_PORT", "25000")
            .env("PLUGIN_UNIX_SOCKET_DIR", sockets)
            .env("PLUGIN_CLIENT_CERT", identity.pem())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        // The line is read on a thread so that a provider that never
        // prints it cannot hold the command forever.
        let (line_tx, line_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let mut reader = BufReader::new(stdout).take(MAX_HANDSHAKE_LINE);
            let read = reader.read_line(&mut line).map(|_| line);
            let _ = line_tx.send(read);
            // Whatever else it prints goes nowhere, but is read, so the
            // provider never blocks on a full pipe.
            let _ = std::io::copy(&mut reader.into_inner(), &mut std::io::sink());
        });
        let (err_tx, err_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                let room = STDERR_KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            let _ = err_tx.send(kept);
        });
        let mut plugin = Plugin {
            child,
            handshake: None,
            stderr: err_rx,
        };
        let line = match line_rx.recv_timeout(START_TIMEOUT) {
            Ok(Ok(line)) if !line.is_empty() => line,
            Ok(Ok(_)) => return Err(plugin.explain(format!("{name} exited before its handshake"))),
            Ok(Err(e)) => return Err(plugin.explain(format!("reading {name}'s handshake: {e}"))),
            Err(_) => {
                return Err(plugin.explain(format!(
                    "{name} printed no handshake line within {START_TIMEOUT:?}"
                )))
            }
        };
        match parse_handshake(&line) {
            Ok(handshake) => {
                plugin.handshake = Some(handshake);
                Ok(plugin)
            }
            Err(e) => Err(plugin.explain(format!("{name}'s handshake line {line:?}: {e}"))),
        }
    }

    /// A gRPC channel to the plugin, with mTLS presenting `identity` and
    /// trusting only the handshake's certificate.
    async fn connect(&self, identity: &ClientCertificate) -> Result<Channel, String> {
        let handshake = (self.handshake.as_ref()).ok_or("the provider made no handshake")?;
        ctywire_tfplugin6::client::connect(handshake, Some(identity))
            .await
            .map_err(|e| e.to_string())
    }

    /// Ends the process (after the controller's shutdown, a short grace).
    fn stop(&mut self) {
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// `message`, with what the provider wrote to stderr.
    fn explain(&mut self, message: String) -> String {
        self.stop();
        match self.stderr.recv_timeout(Duration::from_secs(2)) {
            Ok(err) if !err.is_empty() => format!(
                "{message}\nthe provider's stderr:\n{}",
                String::from_utf8_lossy(&err).trim_end()
            ),
            _ => message,
        }
    }
}

impl Drop for Plugin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// go-plugin's handshake line, read by the protocol layer's client; the
/// provider was started with a client certificate, so it must serve TLS.
fn parse_handshake(line: &str) -> Result<Handshake, String> {
    let handshake = Handshake::parse(line).map_err(|e| e.to_string())?;
    if handshake.server_certificate.is_none() {
        return Err("no server certificate (AutoMTLS was asked for)".into());
    }
    Ok(handshake)
}

#[cfg(test)]
mod tests {
    use super::parse_handshake;

    /// The line's other fields are the protocol layer's to read (its own
    /// tests); a line without a certificate is refused here, since the
    /// provider was given Terraform's client certificate.
    #[test]
    fn a_handshake_line_without_the_server_certificate_is_an_error_not_a_panic() {
        let e = parse_handshake("1|6|unix|/s|grpc|").unwrap_err();
        assert!(e.contains("no server certificate"), "{e}");
        let e = parse_handshake("1|5|unix|/s|grpc|MIIB").unwrap_err();
        assert!(e.contains("only protocol 6"), "{e}");
        let h = parse_handshake("1|6|tcp|127.0.0.1:1|grpc|MIIB\n").unwrap();
        assert_eq!(h.address, "127.0.0.1:1");
    }
}
