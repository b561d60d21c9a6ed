//! TLS for the coordinator connection with OpenSSL, from librdkafka's `ssl.*` properties.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use openssl::pkey::PKey;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_openssl::SslStream;

use super::config::{PemSource, TlsSettings};
use super::error::SecurityError;

/// A TLS client configuration made once (files read, key decrypted) and used by every
/// connection of the application.
#[derive(Clone)]
pub struct TlsConnector {
    connector: SslConnector,
    verify_hostname: bool,
}

impl std::fmt::Debug for TlsConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConnector")
            .field("verify_hostname", &self.verify_hostname)
            .finish_non_exhaustive()
    }
}

fn tls_error(property: &'static str) -> impl Fn(openssl::error::ErrorStack) -> SecurityError {
    move |e| SecurityError::Tls {
        property,
        reason: e.to_string(),
    }
}

fn read_pem(source: &PemSource, property: &'static str) -> Result<Vec<u8>, SecurityError> {
    match source {
        PemSource::File(path) => std::fs::read(path).map_err(|e| SecurityError::Tls {
            property,
            reason: format!("cannot read {path}: {e}"),
        }),
        PemSource::Inline(text) => Ok(text.expose().as_bytes().to_vec()),
    }
}

impl TlsConnector {
    /// Loads the CA, client certificate and key named by `settings`. Fails naming the property
    /// whose file or PEM text cannot be used (a wrong `ssl.key.password` included).
    pub fn new(settings: &TlsSettings) -> Result<Self, SecurityError> {
        let mut b = SslConnector::builder(SslMethod::tls_client())
            .map_err(tls_error("security.protocol"))?;
        match &settings.ca {
            None => b
                .set_default_verify_paths()
                .map_err(tls_error("ssl.ca.location"))?,
            Some(PemSource::File(path)) if std::path::Path::new(path).is_dir() => b
                .load_verify_locations(None, Some(std::path::Path::new(path)))
                .map_err(tls_error("ssl.ca.location"))?,
            Some(source) => {
                let property = match source {
                    PemSource::File(_) => "ssl.ca.location",
                    PemSource::Inline(_) => "ssl.ca.pem",
                };
                let certs = X509::stack_from_pem(&read_pem(source, property)?)
                    .map_err(tls_error(property))?;
                if certs.is_empty() {
                    return Err(SecurityError::Tls {
                        property,
                        reason: "no PEM certificate found".into(),
                    });
                }
                for cert in certs {
                    b.cert_store_mut()
                        .add_cert(cert)
                        .map_err(tls_error(property))?;
                }
            }
        }
        if let (Some(cert), Some(key)) = (&settings.certificate, &settings.key) {
            let (cert_prop, key_prop) = match (cert, key) {
                (PemSource::File(_), PemSource::File(_)) => {
                    ("ssl.certificate.location", "ssl.key.location")
                }
                (PemSource::File(_), PemSource::Inline(_)) => {
                    ("ssl.certificate.location", "ssl.key.pem")
                }
                (PemSource::Inline(_), PemSource::File(_)) => {
                    ("ssl.certificate.pem", "ssl.key.location")
                }
                (PemSource::Inline(_), PemSource::Inline(_)) => {
                    ("ssl.certificate.pem", "ssl.key.pem")
                }
            };
            let mut chain = X509::stack_from_pem(&read_pem(cert, cert_prop)?)
                .map_err(tls_error(cert_prop))?
                .into_iter();
            let leaf = chain.next().ok_or(SecurityError::Tls {
                property: cert_prop,
                reason: "no PEM certificate found".into(),
            })?;
            b.set_certificate(&leaf).map_err(tls_error(cert_prop))?;
            for extra in chain {
                b.add_extra_chain_cert(extra)
                    .map_err(tls_error(cert_prop))?;
            }
            let pem = read_pem(key, key_prop)?;
            let key = match &settings.key_password {
                Some(pw) => PKey::private_key_from_pem_passphrase(&pem, pw.expose().as_bytes())
                    .map_err(|e| SecurityError::Tls {
                        property: "ssl.key.password",
                        reason: format!("the key of `{key_prop}` cannot be decrypted with it: {e}"),
                    })?,
                None => PKey::private_key_from_pem(&pem).map_err(|e| SecurityError::Tls {
                    property: key_prop,
                    reason: format!("{e} (an encrypted key needs `ssl.key.password`)"),
                })?,
            };
            b.set_private_key(&key).map_err(tls_error(key_prop))?;
            b.check_private_key().map_err(|e| SecurityError::Tls {
                property: key_prop,
                reason: format!("the key does not match the certificate of `{cert_prop}`: {e}"),
            })?;
        }
        if let Some(list) = &settings.cipher_suites {
            b.set_cipher_list(list)
                .map_err(tls_error("ssl.cipher.suites"))?;
        }
        if let Some(list) = &settings.curves {
            b.set_groups_list(list)
                .map_err(tls_error("ssl.curves.list"))?;
        }
        if let Some(list) = &settings.sigalgs {
            b.set_sigalgs_list(list)
                .map_err(tls_error("ssl.sigalgs.list"))?;
        }
        if !settings.verify_certificate {
            b.set_verify(SslVerifyMode::NONE);
        }
        Ok(TlsConnector {
            connector: b.build(),
            verify_hostname: settings.verify_hostname && settings.verify_certificate,
        })
    }

    /// Runs the TLS handshake over `tcp` to `host` (a name or an IP address, checked against the
    /// broker's certificate unless `ssl.endpoint.identification.algorithm=none`).
    pub async fn connect(&self, host: &str, tcp: TcpStream) -> io::Result<SslStream<TcpStream>> {
        let ssl = self
            .connector
            .configure()
            .map_err(io::Error::other)?
            .verify_hostname(self.verify_hostname)
            .into_ssl(host)
            .map_err(io::Error::other)?;
        let mut stream = SslStream::new(ssl, tcp).map_err(io::Error::other)?;
        Pin::new(&mut stream)
            .connect()
            .await
            .map_err(|e| match e.into_io_error() {
                Ok(io) => io,
                // The broker closed the connection mid-handshake (killed, shutting down): a
                // network failure that a new connection cures, not a refused handshake.
                Err(ssl) if ended_by_peer(&ssl) => io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the connection ended during the TLS handshake: {ssl}"),
                ),
                Err(ssl) => io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    TlsHandshakeError(ssl.to_string()),
                ),
            })?;
        // With TLS 1.3 the client's handshake ends before the broker has checked the client
        // certificate; a broker that refuses it (missing, untrusted) sends an alert and closes.
        // Wait briefly for that alert, so it is reported as the TLS failure it is rather than as
        // a broken pipe on the first request. Brokers send nothing unasked, so no data is lost.
        if stream.ssl().version2() == Some(openssl::ssl::SslVersion::TLS1_3) {
            let mut byte = [0u8; 1];
            let probe = tokio::io::AsyncReadExt::read(&mut stream, &mut byte);
            if let Ok(Err(e)) = tokio::time::timeout(CLIENT_CERTIFICATE_VERDICT, probe).await {
                return Err(e);
            }
        }
        Ok(stream)
    }
}

/// Whether a handshake failed because the peer closed the connection (a FIN where a handshake
/// message was due) rather than refusing it: OpenSSL reports that as `SSL_ERROR_SYSCALL` with
/// no I/O error ("unexpected EOF"), or (OpenSSL 3) as an SSL error whose reason is "unexpected
/// eof while reading". A refusal comes as an alert, with another reason.
fn ended_by_peer(ssl: &openssl::ssl::Error) -> bool {
    use openssl::ssl::ErrorCode;
    let eof_reason = ssl.ssl_error().is_some_and(|stack| {
        stack
            .errors()
            .iter()
            .any(|e| e.reason().is_some_and(|r| r.contains("unexpected eof")))
    });
    (ssl.code() == ErrorCode::SYSCALL && ssl.io_error().is_none() && ssl.ssl_error().is_none())
        || ((ssl.code() == ErrorCode::SSL || ssl.code() == ErrorCode::SYSCALL) && eof_reason)
}

/// How long a TLS 1.3 connection waits for the broker to refuse its client certificate.
const CLIENT_CERTIFICATE_VERDICT: std::time::Duration = std::time::Duration::from_millis(100);

/// A TLS handshake the broker or this client refused (certificate, hostname, protocol):
/// a new connection would fail the same way.
#[derive(Debug, thiserror::Error)]
#[error("TLS handshake failed: {0}")]
pub(crate) struct TlsHandshakeError(pub String);

/// A connection to a broker: plain TCP or TLS over it.
#[derive(Debug)]
pub(crate) enum BrokerStream {
    /// PLAINTEXT and SASL_PLAINTEXT.
    Plain(TcpStream),
    /// SSL and SASL_SSL.
    Tls(Box<SslStream<TcpStream>>),
}

impl AsyncRead for BrokerStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            BrokerStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            BrokerStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for BrokerStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            BrokerStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            BrokerStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            BrokerStream::Plain(s) => Pin::new(s).poll_flush(cx),
            BrokerStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            BrokerStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            BrokerStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
