//! Asking another instance: one HTTP/1.1 GET over a fresh connection (TLS when the server has
//! TLS), with a deadline, the server's credentials, and a bound on the answer's size.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::header::HeaderValue;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::query::HostInfo;

/// The header that marks a request one instance forwarded to another: the receiver answers
/// from its own state only and never forwards again (no loops while ownership moves).
pub const FORWARDED: &str = "x-dekaf-forwarded";

/// How one instance reaches the others: deadline, answer size, TLS, credentials.
#[derive(Clone)]
pub(crate) struct Forwarder {
    /// How long a forwarded request may take, connection and answer included.
    pub timeout: Duration,
    /// The largest answer body read from a peer, in bytes.
    pub max_body: usize,
    /// TLS towards the peers (they serve TLS as this instance does).
    pub tls: Option<openssl::ssl::SslConnector>,
    /// The `Authorization` header sent to peers.
    pub authorization: Option<HeaderValue>,
}

/// What another instance answered: its status, its `Retry-After`, its body.
pub(crate) struct Forwarded {
    pub status: StatusCode,
    pub retry_after: Option<String>,
    pub body: Bytes,
}

/// Why a forwarded request failed. The full reason (with the peer's address) is logged; the
/// client is told only that the peer did not answer.
#[derive(Debug)]
pub(crate) struct ForwardError(pub String);

impl Forwarder {
    /// GETs `path_and_query` from `host`, marked as forwarded.
    pub(crate) async fn get(
        &self,
        host: &HostInfo,
        path_and_query: &str,
    ) -> Result<Forwarded, ForwardError> {
        let answer = tokio::time::timeout(self.timeout, self.get_inner(host, path_and_query))
            .await
            .map_err(|_| ForwardError(format!("{host} did not answer within {:?}", self.timeout)))
            .and_then(|r| r);
        if let Err(ForwardError(why)) = &answer {
            tracing::warn!(peer = %host, path = path_and_query, "forwarded query failed: {why}");
        }
        answer
    }

    async fn get_inner(
        &self,
        host: &HostInfo,
        path_and_query: &str,
    ) -> Result<Forwarded, ForwardError> {
        let addr = format!("{}:{}", host.host, host.port);
        let tcp = tokio::net::TcpStream::connect(&addr)
            .await
            .map_err(|e| ForwardError(format!("connecting to {addr}: {e}")))?;
        let _ = tcp.set_nodelay(true);
        match &self.tls {
            None => self.exchange(tcp, &addr, path_and_query).await,
            Some(connector) => {
                let ssl = connector
                    .configure()
                    .and_then(|c| c.into_ssl(&host.host))
                    .map_err(|e| ForwardError(format!("TLS set-up for {addr}: {e}")))?;
                let mut stream = tokio_openssl::SslStream::new(ssl, tcp)
                    .map_err(|e| ForwardError(format!("TLS set-up for {addr}: {e}")))?;
                std::pin::Pin::new(&mut stream)
                    .connect()
                    .await
                    .map_err(|e| ForwardError(format!("TLS handshake with {addr}: {e}")))?;
                self.exchange(stream, &addr, path_and_query).await
            }
        }
    }

    async fn exchange<S>(
        &self,
        stream: S,
        addr: &str,
        path_and_query: &str,
    ) -> Result<Forwarded, ForwardError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| ForwardError(format!("HTTP handshake with {addr}: {e}")))?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "forwarded query connection ended");
            }
        });
        let mut request = Request::get(path_and_query)
            .header(hyper::header::HOST, addr)
            .header(FORWARDED, "1");
        if let Some(auth) = &self.authorization {
            request = request.header(hyper::header::AUTHORIZATION, auth.clone());
        }
        let request = request
            .body(Empty::<Bytes>::new())
            .map_err(|e| ForwardError(format!("building the request to {addr}: {e}")))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| ForwardError(format!("request to {addr}: {e}")))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(hyper::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let declared = response
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body as u64) {
            return Err(ForwardError(format!(
                "the answer of {addr} is larger than the forwarded-response limit of {} bytes",
                self.max_body
            )));
        }
        let body = Limited::new(response.into_body(), self.max_body)
            .collect()
            .await
            .map_err(|e| ForwardError(format!("reading the answer of {addr}: {e}")))?
            .to_bytes();
        Ok(Forwarded {
            status,
            retry_after,
            body,
        })
    }
}
