//! go-plugin's client side, as Terraform starts a provider: the client
//! certificate Terraform hands the plugin in `PLUGIN_CLIENT_CERT`, the
//! handshake line the plugin answers with, and a gRPC channel to the
//! socket it names — with AutoMTLS trusting exactly the handshake's server
//! certificate (go-plugin's client builds a pool of that one certificate),
//! or in plaintext when the plugin was started without a client
//! certificate.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tonic::transport::{Channel, Endpoint, Uri};

/// How long [`connect`] waits for the connection: go-plugin's client
/// gives a plugin a minute to start (its default `StartTimeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// Terraform's side of AutoMTLS: a fresh self-signed ECDSA P-521 CA
/// certificate, as go-plugin's client makes for each plugin it starts.
/// The plugin is started with [`pem`](Self::pem) in `PLUGIN_CLIENT_CERT`
/// and then accepts only a client presenting this certificate.
pub struct ClientCertificate {
    pem: String,
    key_pem: String,
    der: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

impl ClientCertificate {
    /// A new certificate and its key.
    pub fn generate() -> Result<ClientCertificate, ConnectError> {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let fail = |e: rcgen::Error| ConnectError(format!("the client certificate: {e}"));
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).map_err(fail)?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).map_err(fail)?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).map_err(fail)?;
        Ok(ClientCertificate {
            pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().clone(),
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        })
    }

    /// The certificate in PEM, what `PLUGIN_CLIENT_CERT` carries.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// Its private key in PEM (PKCS#8), for a client other than
    /// [`connect`] to present the certificate.
    pub fn key_pem(&self) -> &str {
        &self.key_pem
    }
}

/// The kind of socket a plugin listens on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// A Unix domain socket (what go-plugin chooses on Unix).
    Unix,
    /// A TCP address.
    Tcp,
}

/// go-plugin's handshake line, `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT`,
/// as read for a protocol-6 gRPC plugin.
#[derive(Clone, Debug)]
pub struct Handshake {
    /// Where the plugin listens.
    pub network: Network,
    /// The socket's path or `host:port`.
    pub address: String,
    /// The plugin's server certificate (DER), when it serves TLS
    /// (started with `PLUGIN_CLIENT_CERT`); `None` for plaintext.
    pub server_certificate: Option<Vec<u8>>,
}

impl Handshake {
    /// Reads a handshake line (its newline optional). Anything but core
    /// protocol 1, plugin protocol 6 and gRPC over `unix` or `tcp` is an
    /// error saying which field is off.
    pub fn parse(line: &str) -> Result<Handshake, ConnectError> {
        let fail = |m: String| Err(ConnectError(m));
        let fields: Vec<&str> = line.trim_end().split('|').collect();
        let [core, app, network, address, protocol, cert] = fields[..] else {
            return fail(format!("{} fields, not 6", fields.len()));
        };
        if core != "1" {
            return fail(format!("core protocol version {core:?}, not 1"));
        }
        if app != "6" {
            return fail(format!(
                "plugin protocol version {app:?}: only protocol 6 is read"
            ));
        }
        let network = match network {
            "unix" => Network::Unix,
            "tcp" => Network::Tcp,
            other => return fail(format!("network {other:?}, not unix or tcp")),
        };
        if protocol != "grpc" {
            return fail(format!("protocol {protocol:?}, not grpc"));
        }
        // go-plugin writes the certificate with RawStdEncoding (no
        // padding); padding is tolerated.
        let server_certificate = match cert {
            "" => None,
            cert => Some(
                base64::engine::general_purpose::STANDARD_NO_PAD
                    .decode(cert.trim_end_matches('='))
                    .map_err(|e| ConnectError(format!("the certificate is not base64: {e}")))?,
            ),
        };
        Ok(Handshake {
            network,
            address: address.to_owned(),
            server_certificate,
        })
    }
}

/// Why a plugin could not be reached: a message naming the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectError(String);

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

/// A gRPC channel to the plugin of `handshake`. With a server certificate
/// in the handshake, over TLS presenting `client` and trusting only that
/// certificate, as go-plugin's AutoMTLS client does; without one, in
/// plaintext (then `client` is not used). Gives up after
/// [`CONNECT_TIMEOUT`].
pub async fn connect(
    handshake: &Handshake,
    client: Option<&ClientCertificate>,
) -> Result<Channel, ConnectError> {
    let tls = match (&handshake.server_certificate, client) {
        (Some(server), Some(client)) => Some(tls_connector(server, client)?),
        (Some(_), None) => {
            return Err(ConnectError(
                "the plugin serves TLS (its handshake has a certificate), and no client certificate was given".into(),
            ))
        }
        (None, _) => None,
    };
    let (network, address) = (handshake.network, handshake.address.clone());
    let endpoint = Endpoint::from_static("http://localhost").connect_timeout(CONNECT_TIMEOUT);
    let connect = endpoint.connect_with_connector(tower::service_fn(move |_: Uri| {
        let (tls, address) = (tls.clone(), address.clone());
        async move {
            let stream: Box<dyn Io> = match network {
                Network::Unix => Box::new(UnixStream::connect(address).await?),
                Network::Tcp => Box::new(TcpStream::connect(address).await?),
            };
            let stream: Box<dyn Io> = match tls {
                // The name is not checked (ExactServer compares the
                // certificate itself); go-plugin's server certificate
                // names localhost.
                Some(tls) => {
                    let localhost = ServerName::try_from("localhost")
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                    Box::new(tls.connect(localhost, stream).await?)
                }
                None => stream,
            };
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }
    }));
    tokio::time::timeout(CONNECT_TIMEOUT, connect)
        .await
        .map_err(|_| {
            ConnectError(format!(
                "connecting: no connection within {CONNECT_TIMEOUT:?}"
            ))
        })?
        .map_err(|e| {
            // tonic's error says "transport error"; the cause is below.
            use std::error::Error;
            let mut msg = format!("connecting to {}: {e}", handshake.address);
            let mut source = e.source();
            while let Some(s) = source {
                msg += &format!(": {s}");
                source = s.source();
            }
            ConnectError(msg)
        })
}

fn tls_connector(
    server: &[u8],
    client: &ClientCertificate,
) -> Result<tokio_rustls::TlsConnector, ConnectError> {
    let provider = crate::tls::crypto();
    let tls = |e: rustls::Error| ConnectError(format!("TLS: {e}"));
    let verifier = ExactServer(CertificateDer::from(server.to_vec()), provider.clone());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_client_auth_cert(vec![client.der.clone()], client.key.clone_key())
        .map_err(tls)?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// A connection of either kind of socket, in TLS or plain.
trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// Accepts exactly the server certificate from the handshake line, as
/// go-plugin's client does (a pool holding only it); the handshake
/// signatures are still checked, proof the plugin holds its key.
#[derive(Debug)]
struct ExactServer(CertificateDer<'static>, Arc<CryptoProvider>);

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
    use super::{Handshake, Network};

    #[test]
    fn a_handshake_line_that_is_not_go_plugins_is_an_error_not_a_panic() {
        for (line, says) in [
            ("", "1 fields"),
            ("1|6|unix|/s|grpc", "5 fields"),
            ("2|6|unix|/s|grpc|MIIB", "core protocol"),
            ("1|5|unix|/s|grpc|MIIB", "only protocol 6"),
            ("1|6|pipe|/s|grpc|MIIB", "network"),
            ("1|6|unix|/s|netrpc|MIIB", "netrpc"),
            ("1|6|unix|/s|grpc|!!", "not base64"),
        ] {
            let e = Handshake::parse(line).unwrap_err();
            assert!(e.to_string().contains(says), "{line:?}: {e}");
        }
        let h = Handshake::parse("1|6|tcp|127.0.0.1:1|grpc|MIIB\n").unwrap();
        assert_eq!(
            (h.network, h.address.as_str()),
            (Network::Tcp, "127.0.0.1:1")
        );
        assert_eq!(h.server_certificate.unwrap(), [0x30, 0x82, 0x01]);
        let plain = Handshake::parse("1|6|unix|/s|grpc|\n").unwrap();
        assert_eq!(plain.server_certificate, None);
    }
}
