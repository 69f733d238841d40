//! go-plugin's AutoMTLS, server side.
//!
//! Terraform generates a self-signed client certificate (ECDSA P-521, with
//! CA=true) for each plugin it starts and passes it in `PLUGIN_CLIENT_CERT`.
//! The plugin generates a self-signed server certificate, sends its DER
//! (base64, no padding) on the handshake line, and then accepts only TLS
//! clients presenting exactly Terraform's certificate. go-plugin does this
//! with a one-certificate pool and `RequireAndVerifyClientCert`; rustls'
//! WebPKI verifier refuses a CA certificate as an end entity, so
//! [`ExactClientCert`] compares the presented certificate with the
//! expected one instead, and still checks the handshake signature made
//! with its key (proof the client holds that key).

use std::sync::Arc;

use base64::Engine;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    CertificateError, DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme,
};

/// The crypto provider used for everything here: aws-lc-rs, since ring
/// cannot verify the P-521 signatures go-plugin's client certificate makes.
pub(crate) fn crypto() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// A freshly generated server certificate and its key.
pub struct ServerCert {
    /// The certificate (DER).
    pub cert: CertificateDer<'static>,
    /// Its private key (PKCS#8 DER).
    pub key: PrivateKeyDer<'static>,
}

impl ServerCert {
    /// A self-signed certificate shaped like go-plugin's own (`mtls.go`):
    /// for `localhost` (the name go-plugin's client verifies), a CA,
    /// usable for server and client auth. ECDSA P-256.
    pub fn generate() -> Result<ServerCert, rcgen::Error> {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
            KeyUsagePurpose,
        };
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()])?;
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        params
            .distinguished_name
            .push(DnType::OrganizationName, "HashiCorp");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyAgreement,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ClientAuth,
            ExtendedKeyUsagePurpose::ServerAuth,
        ];
        // Validity: rcgen's default (1975 to 4096) covers go-plugin's own
        // (now - 30 s to now + ~30 years), so clock skew cannot matter.
        let cert = params.self_signed(&key)?;
        Ok(ServerCert {
            cert: cert.der().clone(),
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        })
    }

    /// The handshake line's last field: the DER in standard base64 without
    /// padding (go-plugin's `base64.RawStdEncoding`).
    pub fn handshake_field(&self) -> String {
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(self.cert.as_ref())
    }
}

/// The first certificate of a PEM text (`PLUGIN_CLIENT_CERT`), which
/// must parse as X.509: a client certificate that does not could never
/// be presented in a TLS handshake, so serving with it would serve a
/// socket nobody can use.
pub fn parse_client_cert(pem: &str) -> Result<CertificateDer<'static>, String> {
    let der = CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()
        .ok_or_else(|| "PLUGIN_CLIENT_CERT holds no PEM certificate".to_string())?
        .map_err(|e| format!("PLUGIN_CLIENT_CERT is not a PEM certificate: {e}"))?;
    webpki::EndEntityCert::try_from(&der).map_err(|e| {
        format!("PLUGIN_CLIENT_CERT holds a PEM block that is not an X.509 certificate: {e}")
    })?;
    Ok(der)
}

/// A client verifier that accepts exactly one certificate.
#[derive(Debug)]
pub struct ExactClientCert {
    expected: CertificateDer<'static>,
    crypto: Arc<CryptoProvider>,
}

impl ExactClientCert {
    /// Accepts only `expected`.
    pub fn new(expected: CertificateDer<'static>) -> Self {
        ExactClientCert {
            expected,
            crypto: crypto(),
        }
    }
}

impl ClientCertVerifier for ExactClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        // No hints: Go's client then sends its one certificate if its key
        // type is among the schemes below.
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        // Byte equality is the whole trust decision: Terraform made this
        // certificate for this process alone. (Its validity period is
        // decades; go-plugin's pool check adds nothing beyond it.)
        if end_entity.as_ref() == self.expected.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.crypto.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.crypto.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.crypto
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The server's TLS configuration: our certificate, Terraform's client
/// certificate required, HTTP/2 by ALPN (grpc-go insists on it).
pub fn server_config(
    server: &ServerCert,
    client: CertificateDer<'static>,
) -> Result<ServerConfig, rustls::Error> {
    let mut config = ServerConfig::builder_with_provider(crypto())
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(Arc::new(ExactClientCert::new(client)))
        .with_single_cert(vec![server.cert.clone()], server.key.clone_key())?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_signatures_from_go_plugins_p521_client_keys() {
        let schemes = ExactClientCert::new(CertificateDer::from(vec![])).supported_verify_schemes();
        assert!(
            schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512),
            "{schemes:?}"
        );
    }

    #[test]
    fn the_handshake_field_is_unpadded_standard_base64_of_the_der() {
        let c = ServerCert::generate().unwrap();
        let field = c.handshake_field();
        assert!(!field.ends_with('='));
        let back = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(&field)
            .unwrap();
        assert_eq!(back, c.cert.as_ref());
    }

    #[test]
    fn a_client_cert_that_is_not_pem_is_refused_with_a_reason() {
        assert!(parse_client_cert("hello").unwrap_err().contains("no PEM"));
    }
}
