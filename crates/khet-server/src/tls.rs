//! `https://` and `wss://` served by the server itself, given a certificate and its key
//! (`--tls-cert`, `--tls-key`, PEM files): a club without a reverse proxy is still safe to reach
//! over the internet. A proxy in front (docs/server.md) remains the other way.

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// The server's TLS: its certificate chain and key, ready to accept connections.
#[derive(Clone)]
pub struct Tls {
    pub(crate) acceptor: TlsAcceptor,
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tls")
    }
}

impl Tls {
    /// Reads the certificate chain in PEM file `cert` (the server's first, then its issuers')
    /// and the private key in PEM file `key`; says which file is wrong, and why.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Tls, String> {
        let certs = CertificateDer::pem_file_iter(cert)
            .map_err(|e| format!("{}: {e}", cert.display()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: {e}", cert.display()))?;
        if certs.is_empty() {
            return Err(format!(
                "{}: no certificate in it (PEM, BEGIN CERTIFICATE)",
                cert.display()
            ));
        }
        let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
            format!(
                "{}: no private key read ({e}; PEM, BEGIN PRIVATE KEY)",
                key.display()
            )
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("{} and its key: {e}", cert.display()))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }
}
