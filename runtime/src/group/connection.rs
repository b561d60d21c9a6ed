//! One connection to a broker (TCP, or TLS over it), authenticated with SASL when configured:
//! request framing, correlation ids, version negotiation, re-authentication (KIP-368).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::{ApiVersionsRequest, RequestHeader};
use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::error::GroupError;
use crate::protocol::DecodeError;
use crate::protocol::responses::{ApiVersionsResponse, Response};
use crate::security::ConnectionSecurity;
use crate::security::tls::BrokerStream;

/// The largest response this connection accepts (a corrupt size prefix must not allocate GiBs).
const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// A connection to one broker, after ApiVersions.
#[derive(Debug)]
pub struct BrokerConnection {
    stream: BrokerStream,
    addr: String,
    client_id: String,
    next_correlation_id: i32,
    request_timeout: Duration,
    /// api key → (min, max) version the broker serves.
    versions: HashMap<i16, (i16, i16)>,
    /// The SASL credentials, kept to re-authenticate.
    pub(super) security: ConnectionSecurity,
    /// When to re-authenticate, before the broker ends the SASL session (KIP-368).
    pub(super) reauthenticate_at: Option<Instant>,
}

impl BrokerConnection {
    /// Connects to `addr` (`host:port`), runs the TLS handshake and SASL authentication that
    /// `security` asks for, and asks which API versions the broker serves.
    pub async fn connect(
        addr: &str,
        client_id: &str,
        request_timeout: Duration,
        security: &ConnectionSecurity,
    ) -> Result<Self, GroupError> {
        let timeout = |api| GroupError::Timeout {
            broker: addr.to_owned(),
            api,
            timeout: request_timeout,
        };
        let tcp = tokio::time::timeout(request_timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| timeout("connect"))?
            .map_err(|e| io_error(addr, e))?;
        // Heartbeats are small and latency matters more than batching.
        tcp.set_nodelay(true).map_err(|e| io_error(addr, e))?;
        let stream = match &security.tls {
            None => BrokerStream::Plain(tcp),
            Some(tls) => {
                let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
                let host = host.trim_start_matches('[').trim_end_matches(']');
                let tls_stream = tokio::time::timeout(request_timeout, tls.connect(host, tcp))
                    .await
                    .map_err(|_| timeout("TLS handshake"))?
                    .map_err(|e| tls_error(addr, e))?;
                BrokerStream::Tls(Box::new(tls_stream))
            }
        };
        let mut conn = BrokerConnection {
            stream,
            addr: addr.to_owned(),
            client_id: client_id.to_owned(),
            next_correlation_id: 1,
            request_timeout,
            versions: HashMap::new(),
            security: security.clone(),
            reauthenticate_at: None,
        };
        conn.negotiate().await?;
        conn.authenticate().await?;
        Ok(conn)
    }

    async fn negotiate(&mut self) -> Result<(), GroupError> {
        // v3 is flexible and served by every broker since 2.4; ApiVersions responses always use
        // response header v0.
        let version = 3;
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("dekaf-streams"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        let response: ApiVersionsResponse = self
            .send_now(API_VERSIONS, version, &request, "ApiVersions")
            .await?;
        if response.error_code != 0 {
            return Err(GroupError::Rejected {
                api: "ApiVersions",
                group: String::new(),
                code: error_name(response.error_code),
                message: "the broker refused ApiVersions v3".into(),
            });
        }
        self.versions = response
            .api_keys
            .iter()
            .map(|k| (k.api_key, (k.min_version, k.max_version)))
            .collect();
        Ok(())
    }

    /// The broker's address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The versions of `api_key` the broker serves, if any.
    pub fn versions(&self, api_key: i16) -> Option<(i16, i16)> {
        self.versions.get(&api_key).copied()
    }

    /// The newest version of `api_key` that both the broker and `ours` speak.
    pub fn pick_version(&self, api_key: i16, ours: (i16, i16)) -> Option<i16> {
        let (min, max) = self.versions(api_key)?;
        let v = max.min(ours.1);
        (v >= min.max(ours.0)).then_some(v)
    }

    /// Sends a request of the `kafka-protocol` crate and decodes its response (re-authenticating
    /// first when the SASL session is about to end).
    pub async fn send<Req, Resp>(
        &mut self,
        api_key: i16,
        version: i16,
        request: &Req,
        api: &'static str,
    ) -> Result<Resp, GroupError>
    where
        Req: Encodable + HeaderVersion,
        Resp: Response,
    {
        self.reauthenticate_if_due().await?;
        self.send_now(api_key, version, request, api).await
    }

    /// [`send`](Self::send) without the re-authentication check (for the SASL exchange itself).
    pub(super) async fn send_now<Req, Resp>(
        &mut self,
        api_key: i16,
        version: i16,
        request: &Req,
        api: &'static str,
    ) -> Result<Resp, GroupError>
    where
        Req: Encodable + HeaderVersion,
        Resp: Response,
    {
        let mut body = BytesMut::new();
        request
            .encode(&mut body, version)
            .map_err(|e| GroupError::Rejected {
                api,
                group: String::new(),
                code: "encode".into(),
                message: e.to_string(),
            })?;
        let request_header_version = Req::header_version(version);
        let response_header_version = <Resp as Response>::header_version(version);
        let bytes = self
            .round_trip(
                api_key,
                version,
                request_header_version,
                response_header_version,
                &body,
                api,
            )
            .await?;
        Resp::decode(&bytes, version).map_err(|e| self.decode_error(api, e))
    }

    /// Sends a request body encoded by this crate's codec (flexible: request header v2,
    /// response header v1) and returns the response body.
    pub async fn send_flexible(
        &mut self,
        api_key: i16,
        version: i16,
        body: &[u8],
        api: &'static str,
    ) -> Result<Bytes, GroupError> {
        self.reauthenticate_if_due().await?;
        self.round_trip(api_key, version, 2, 1, body, api).await
    }

    async fn round_trip(
        &mut self,
        api_key: i16,
        version: i16,
        request_header_version: i16,
        response_header_version: i16,
        body: &[u8],
        api: &'static str,
    ) -> Result<Bytes, GroupError> {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(api_key)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(StrBytes::from_string(self.client_id.clone())));
        let mut frame = BytesMut::new();
        header
            .encode(&mut frame, request_header_version)
            .map_err(|e| self.malformed(api, e.to_string()))?;
        frame.extend_from_slice(body);
        let size = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        let timeout = self.request_timeout;
        let addr = self.addr.clone();
        let exchange = async {
            self.stream.write_all(&size.to_be_bytes()).await?;
            self.stream.write_all(&frame).await?;
            self.stream.flush().await?;
            let size = self.stream.read_u32().await? as usize;
            if size > MAX_RESPONSE_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("response of {size} bytes exceeds the limit of {MAX_RESPONSE_BYTES}"),
                ));
            }
            let mut buf = vec![0u8; size];
            self.stream.read_exact(&mut buf).await?;
            Ok(buf)
        };
        let buf = tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| GroupError::Timeout {
                broker: addr.clone(),
                api,
                timeout,
            })?
            .map_err(|e| tls_error(&addr, e))?;
        let (received, header_len) =
            crate::protocol::response_header(&buf, response_header_version)
                .map_err(|e| self.decode_error(api, e))?;
        if received != correlation_id {
            return Err(self.malformed(
                api,
                format!("correlation id {received} where {correlation_id} was expected"),
            ));
        }
        let mut bytes = Bytes::from(buf);
        let _header = bytes.split_to(header_len);
        Ok(bytes)
    }

    fn malformed(&self, api: &'static str, detail: String) -> GroupError {
        GroupError::Io {
            broker: self.addr.clone(),
            source: Arc::new(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{api}: {detail}"),
            )),
        }
    }

    /// Wraps a decode error of this crate's codec.
    pub fn decode_error(&self, api: &'static str, source: DecodeError) -> GroupError {
        GroupError::Malformed {
            broker: self.addr.clone(),
            api,
            source,
        }
    }
}

/// Api key of ApiVersions.
pub(crate) const API_VERSIONS: i16 = 18;

/// A failed TLS handshake is permanent (certificates, host name, protocol versions), and so is a
/// TLS protocol error after it (with TLS 1.3 a broker refuses a missing or untrusted client
/// certificate with an alert at the first read); an I/O error (the broker went away) is not.
///
/// Neither is a connection that ends without TLS's `close_notify`: OpenSSL 3 reports it as a
/// protocol error ("unexpected eof while reading"), but it is what a broker killed with SIGKILL,
/// a broker's host going down or a load balancer dropping the connection looks like, and a new
/// connection cures it, as Kafka's Java client treats it (an `EOFException`, a network error).
fn tls_error(addr: &str, e: std::io::Error) -> GroupError {
    let reason = e.get_ref().and_then(|inner| {
        if let Some(handshake) = inner.downcast_ref::<crate::security::tls::TlsHandshakeError>() {
            return Some(handshake.0.clone());
        }
        inner
            .downcast_ref::<openssl::ssl::Error>()
            .filter(|ssl| ssl.code() == openssl::ssl::ErrorCode::SSL && !closed_uncleanly(ssl))
            .map(|ssl| ssl.to_string())
    });
    match reason {
        Some(reason) => GroupError::Tls {
            broker: addr.to_owned(),
            reason,
        },
        None => io_error(addr, e),
    }
}

fn io_error(addr: &str, e: std::io::Error) -> GroupError {
    GroupError::Io {
        broker: addr.to_owned(),
        source: Arc::new(e),
    }
}

/// The name of a Kafka error code, with the code: `NOT_COORDINATOR (16)`.
pub(crate) fn error_name(code: i16) -> String {
    match kafka_protocol::ResponseError::try_from_code(code) {
        None => "NONE (0)".into(),
        Some(e) => format!("{e:?} ({code})"),
    }
}

/// Whether OpenSSL's error is a connection closed without `close_notify` (the peer went away).
fn closed_uncleanly(ssl: &openssl::ssl::Error) -> bool {
    ssl.ssl_error().is_some_and(|stack| {
        stack
            .errors()
            .iter()
            .any(|e| e.reason().is_some_and(|r| r.contains("unexpected eof")))
    })
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;

    use openssl::ec::{EcGroup, EcKey};
    use openssl::nid::Nid;
    use openssl::pkey::PKey;
    use openssl::ssl::{SslAcceptor, SslConnector, SslMethod, SslVerifyMode};
    use openssl::x509::{X509, X509NameBuilder};
    use tokio::io::AsyncReadExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio_openssl::SslStream;

    use super::*;

    /// A self-signed certificate and its key, made in memory.
    fn certificate() -> (X509, PKey<openssl::pkey::Private>) {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("curve");
        let key = PKey::from_ec_key(EcKey::generate(&group).expect("key")).expect("pkey");
        let mut name = X509NameBuilder::new().expect("name");
        name.append_entry_by_text("CN", "localhost").expect("cn");
        let name = name.build();
        let mut cert = X509::builder().expect("builder");
        cert.set_version(2).expect("version");
        cert.set_subject_name(&name).expect("subject");
        cert.set_issuer_name(&name).expect("issuer");
        cert.set_pubkey(&key).expect("pubkey");
        let now = openssl::asn1::Asn1Time::days_from_now(0).expect("now");
        let later = openssl::asn1::Asn1Time::days_from_now(1).expect("later");
        cert.set_not_before(&now).expect("not before");
        cert.set_not_after(&later).expect("not after");
        cert.sign(&key, openssl::hash::MessageDigest::sha256())
            .expect("sign");
        (cert.build(), key)
    }

    /// A broker (or anything listening on its port) that answers ApiVersions with an array
    /// length of four billion in a 20-byte body gets a decode error back, not an attempt to
    /// reserve memory for four billion entries (which `kafka-protocol`'s decoder made, and the
    /// allocation failure aborts the process).
    #[tokio::test]
    async fn a_hostile_api_versions_response_is_an_error_not_an_abort() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.expect("accept");
            let size = tcp.read_u32().await.expect("request size") as usize;
            let mut request = vec![0u8; size];
            tcp.read_exact(&mut request).await.expect("request");
            // Request header v2: api key, version, then the correlation id.
            let correlation_id = &request[4..8];
            let mut body = Vec::new();
            body.extend_from_slice(correlation_id);
            body.extend_from_slice(&[0, 0]); // error code
            body.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]); // 4 294 967 294 api keys
            body.extend_from_slice(&[0; 12]);
            let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
            frame.extend_from_slice(&body);
            tcp.write_all(&frame).await.expect("response");
            let mut rest = Vec::new();
            let _ = tcp.read_to_end(&mut rest).await;
        });
        let error = BrokerConnection::connect(
            &addr.to_string(),
            "test",
            Duration::from_secs(10),
            &ConnectionSecurity::default(),
        )
        .await
        .expect_err("a hostile response is refused");
        assert!(
            matches!(
                error,
                GroupError::Malformed {
                    api: "ApiVersions",
                    ..
                }
            ),
            "{error}"
        );
        server.abort();
    }

    /// A broker that closes the connection during the TLS handshake (restarting, killed right
    /// then, or shedding load) is a transient failure, not a refused handshake: the member must
    /// connect again, not stop.
    #[tokio::test]
    async fn a_connection_closed_during_the_tls_handshake_is_transient() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.expect("accept");
            drop(tcp);
        });
        let settings = crate::security::config::TlsSettings {
            verify_certificate: false,
            verify_hostname: false,
            ..Default::default()
        };
        let tls = crate::security::tls::TlsConnector::new(&settings).expect("connector");
        let tcp = TcpStream::connect(addr).await.expect("connect");
        let error = tls
            .connect("localhost", tcp)
            .await
            .expect_err("the broker closed the connection");
        server.await.expect("server");
        let mapped = tls_error("127.0.0.1:9093", error);
        assert!(
            mapped.is_transient(),
            "a connection closed mid-handshake must be transient: {mapped}"
        );
    }

    /// A broker that reads the ClientHello and then closes the connection (a broker killed or
    /// shutting down right then: its socket ends with a FIN, nothing unread) makes OpenSSL
    /// report "unexpected EOF" during the handshake, with neither an I/O error nor an OpenSSL
    /// error stack. That is a network failure, not a refused handshake (Kafka's Java client
    /// sees an `EOFException` "EOF during handshake" and connects again): transient. Found by
    /// the SASL_SSL fault loop, where it stopped an instance at start with "the TLS handshake
    /// with 127.0.0.1:9202 failed: unexpected EOF".
    #[tokio::test]
    async fn a_broker_closing_the_connection_after_the_client_hello_is_transient() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.expect("accept");
            // Read everything the client sent (its ClientHello), so that closing sends a FIN
            // rather than a reset.
            let mut buf = [0u8; 4096];
            loop {
                match tokio::time::timeout(Duration::from_millis(200), tcp.read(&mut buf)).await {
                    Ok(Ok(n)) if n > 0 => {}
                    _ => break,
                }
            }
            drop(tcp);
        });
        let settings = crate::security::config::TlsSettings {
            verify_certificate: false,
            verify_hostname: false,
            ..Default::default()
        };
        let tls = crate::security::tls::TlsConnector::new(&settings).expect("connector");
        let tcp = TcpStream::connect(addr).await.expect("connect");
        let error = tls
            .connect("localhost", tcp)
            .await
            .expect_err("the broker closed the connection");
        server.await.expect("server");
        let mapped = tls_error("127.0.0.1:9093", error);
        assert!(
            mapped.is_transient(),
            "a connection closed after the ClientHello must be transient: {mapped}"
        );
    }

    /// A broker killed mid-connection closes its socket without TLS's close_notify: the error
    /// must be a transient I/O error (reconnect), not a permanent TLS failure that stops the
    /// member.
    #[tokio::test]
    async fn a_tls_connection_closed_without_close_notify_is_transient() {
        let (cert, key) = certificate();
        let mut acceptor =
            SslAcceptor::mozilla_intermediate_v5(SslMethod::tls()).expect("acceptor");
        acceptor.set_certificate(&cert).expect("cert");
        acceptor.set_private_key(&key).expect("key");
        let acceptor = acceptor.build();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.expect("accept");
            let ssl = openssl::ssl::Ssl::new(acceptor.context()).expect("ssl");
            let mut stream = SslStream::new(ssl, tcp).expect("stream");
            Pin::new(&mut stream).accept().await.expect("handshake");
            // Gone without close_notify, as a SIGKILLed broker.
            drop(stream);
        });
        let mut connector = SslConnector::builder(SslMethod::tls()).expect("connector");
        connector.set_verify(SslVerifyMode::NONE);
        let ssl = connector
            .build()
            .configure()
            .expect("configure")
            .into_ssl("localhost")
            .expect("ssl");
        let tcp = TcpStream::connect(addr).await.expect("connect");
        let mut stream = SslStream::new(ssl, tcp).expect("stream");
        Pin::new(&mut stream).connect().await.expect("handshake");
        server.await.expect("server");
        let mut buf = [0u8; 4];
        let error = stream
            .read_exact(&mut buf)
            .await
            .expect_err("the peer closed the connection");
        let mapped = tls_error("127.0.0.1:9093", error);
        assert!(
            mapped.is_transient(),
            "an unclean TLS close must be transient: {mapped}"
        );
    }
}
