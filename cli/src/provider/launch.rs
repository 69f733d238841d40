//! A provider launched as Terraform launches it and asked for its schemas:
//! go-plugin's handshake with AutoMTLS (a fresh P-521 client CA in
//! `PLUGIN_CLIENT_CERT`, the server certificate from the handshake line),
//! then `GetProviderSchema` and `GetResourceIdentitySchemas` over gRPC,
//! read by ctywire-tfplugin6's own conversions (its `client` side).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use ctywire::schema::Schema;
use ctywire_tfplugin6::client::{
    diagnostic_from_proto, function_from_proto, identity_schema_from_proto, schema_from_proto,
};
use ctywire_tfplugin6::pb::plugin::grpc_controller_client::GrpcControllerClient;
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::{Schemas, Severity, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tonic::transport::{Channel, Endpoint, Uri};

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
    let identity = ClientIdentity::new()?;
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

/// Terraform's side of AutoMTLS: a self-signed P-521 CA certificate, as
/// go-plugin's client makes for each plugin it starts.
struct ClientIdentity {
    pem: String,
    der: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

impl ClientIdentity {
    fn new() -> Result<ClientIdentity, String> {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let fail = |e: rcgen::Error| format!("the client certificate: {e}");
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).map_err(fail)?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).map_err(fail)?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).map_err(fail)?;
        Ok(ClientIdentity {
            pem: cert.pem(),
            der: cert.der().clone(),
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        })
    }
}

/// The provider process, from its handshake line on.
struct Plugin {
    child: Child,
    /// `unix` or `tcp`, and the address.
    network: String,
    address: String,
    server_cert: CertificateDer<'static>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

impl Plugin {
    fn start(binary: &Path, sockets: &Path, identity: &ClientIdentity) -> Result<Plugin, String> {
        let name = binary.display();
        // The environment Terraform gives a provider: its own, plus
        // go-plugin's handshake variables.
        let mut child = Command::new(binary)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "6")
            .env("PLUGIN_MIN_PORT", "10000")
            .env("PLUGIN_MAX_PORT", "25000")
            .env("PLUGIN_UNIX_SOCKET_DIR", sockets)
            .env("PLUGIN_CLIENT_CERT", &identity.pem)
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
            network: String::new(),
            address: String::new(),
            server_cert: CertificateDer::from(Vec::new()),
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
            Ok((network, address, cert)) => {
                plugin.network = network;
                plugin.address = address;
                plugin.server_cert = cert;
                Ok(plugin)
            }
            Err(e) => Err(plugin.explain(format!("{name}'s handshake line {line:?}: {e}"))),
        }
    }

    /// A gRPC channel to the plugin, with mTLS presenting `identity` and
    /// trusting only the handshake's certificate.
    async fn connect(&self, identity: &ClientIdentity) -> Result<Channel, String> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let tls = |e: rustls::Error| format!("TLS: {e}");
        let mut config = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(tls)?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ExactServer(
                self.server_cert.clone(),
                provider,
            )))
            .with_client_auth_cert(vec![identity.der.clone()], identity.key.clone_key())
            .map_err(tls)?;
        config.alpn_protocols = vec![b"h2".to_vec()];
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let (network, address) = (self.network.clone(), self.address.clone());
        let endpoint = Endpoint::from_static("http://localhost").connect_timeout(START_TIMEOUT);
        let connect = endpoint.connect_with_connector(tower::service_fn(move |_: Uri| {
            let connector = connector.clone();
            let (network, address) = (network.clone(), address.clone());
            async move {
                let localhost = ServerName::try_from("localhost").expect("a valid name");
                if network == "unix" {
                    let stream = tokio::net::UnixStream::connect(address).await?;
                    let tls = connector.connect(localhost, stream).await?;
                    Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(EitherStream::Unix(tls)))
                } else {
                    let stream = tokio::net::TcpStream::connect(address).await?;
                    let tls = connector.connect(localhost, stream).await?;
                    Ok(hyper_util::rt::TokioIo::new(EitherStream::Tcp(tls)))
                }
            }
        }));
        tokio::time::timeout(START_TIMEOUT, connect)
            .await
            .map_err(|_| format!("connecting: no connection within {START_TIMEOUT:?}"))?
            .map_err(|e| {
                use std::error::Error;
                let mut msg = format!("connecting to {}: {e}", self.address);
                let mut source = e.source();
                while let Some(s) = source {
                    msg += &format!(": {s}");
                    source = s.source();
                }
                msg
            })
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

/// go-plugin's handshake line: `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT`,
/// the certificate as unpadded standard base64 DER.
fn parse_handshake(line: &str) -> Result<(String, String, CertificateDer<'static>), String> {
    let fields: Vec<&str> = line.trim_end().split('|').collect();
    let [core, app, network, address, protocol, cert] = fields[..] else {
        return Err(format!("{} fields, not 6", fields.len()));
    };
    if core != "1" {
        return Err(format!("core protocol version {core:?}, not 1"));
    }
    if app != "6" {
        return Err(format!(
            "plugin protocol version {app:?}: only protocol 6 is read"
        ));
    }
    if network != "unix" && network != "tcp" {
        return Err(format!("network {network:?}, not unix or tcp"));
    }
    if protocol != "grpc" {
        return Err(format!("protocol {protocol:?}, not grpc"));
    }
    if cert.is_empty() {
        return Err("no server certificate (AutoMTLS was asked for)".into());
    }
    let der = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(cert.trim_end_matches('='))
        .map_err(|e| format!("the certificate is not base64: {e}"))?;
    Ok((network.into(), address.into(), CertificateDer::from(der)))
}

/// A TLS stream over either kind of socket the handshake may name.
enum EitherStream {
    Unix(tokio_rustls::client::TlsStream<tokio::net::UnixStream>),
    Tcp(tokio_rustls::client::TlsStream<tokio::net::TcpStream>),
}

macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match std::pin::Pin::get_mut($self) {
            EitherStream::Unix($s) => $e,
            EitherStream::Tcp($s) => $e,
        }
    };
}

impl tokio::io::AsyncRead for EitherStream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        both!(self, s => std::pin::Pin::new(s).poll_read(cx, buf))
    }
}

impl tokio::io::AsyncWrite for EitherStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        both!(self, s => std::pin::Pin::new(s).poll_write(cx, buf))
    }
    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        both!(self, s => std::pin::Pin::new(s).poll_flush(cx))
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        both!(self, s => std::pin::Pin::new(s).poll_shutdown(cx))
    }
}

/// Accepts exactly the server certificate from the handshake line, as
/// go-plugin's client does (a pool holding only it).
#[derive(Debug)]
struct ExactServer(CertificateDer<'static>, Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for ExactServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.0.as_ref() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "not the certificate of the plugin's handshake".into(),
            ))
        }
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.1.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.1.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.1.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_handshake;

    #[test]
    fn a_handshake_line_that_is_not_go_plugins_is_an_error_not_a_panic() {
        for (line, says) in [
            ("", "1 fields"),
            ("1|6|unix|/s|grpc", "5 fields"),
            ("2|6|unix|/s|grpc|MIIB", "core protocol"),
            ("1|5|unix|/s|grpc|MIIB", "only protocol 6"),
            ("1|6|pipe|/s|grpc|MIIB", "network"),
            ("1|6|unix|/s|netrpc|MIIB", "netrpc"),
            ("1|6|unix|/s|grpc|", "no server certificate"),
            ("1|6|unix|/s|grpc|!!", "not base64"),
        ] {
            let e = parse_handshake(line).unwrap_err();
            assert!(e.contains(says), "{line:?}: {e}");
        }
        let (network, address, cert) = parse_handshake("1|6|tcp|127.0.0.1:1|grpc|MIIB\n").unwrap();
        assert_eq!((network.as_str(), address.as_str()), ("tcp", "127.0.0.1:1"));
        assert_eq!(cert.as_ref(), [0x30, 0x82, 0x01]);
    }
}
