//! Asking another instance: one HTTP/1.1 GET over a fresh connection, with a deadline.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;

use crate::query::HostInfo;

/// The header that marks a request one instance forwarded to another: the receiver answers
/// from its own state only and never forwards again (no loops while ownership moves).
pub const FORWARDED: &str = "x-dekaf-forwarded";

/// How long a forwarded request may take.
pub(crate) const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

/// What another instance answered: its status, its `Retry-After`, its body.
pub(crate) struct Forwarded {
    pub status: StatusCode,
    pub retry_after: Option<String>,
    pub body: Bytes,
}

/// GETs `path_and_query` from `host`, marked as forwarded. `Err` says why it failed.
pub(crate) async fn get(host: &HostInfo, path_and_query: &str) -> Result<Forwarded, String> {
    tokio::time::timeout(FORWARD_TIMEOUT, get_inner(host, path_and_query))
        .await
        .map_err(|_| format!("{host} did not answer within {FORWARD_TIMEOUT:?}"))?
}

async fn get_inner(host: &HostInfo, path_and_query: &str) -> Result<Forwarded, String> {
    let addr = format!("{}:{}", host.host, host.port);
    let stream = tokio::net::TcpStream::connect(&addr)
        .await
        .map_err(|e| format!("connecting to {addr}: {e}"))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr}: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(error = %e, "forwarded query connection ended");
        }
    });
    let request = Request::get(path_and_query)
        .header(hyper::header::HOST, addr.as_str())
        .header(FORWARDED, "1")
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("building the request to {addr}: {e}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("request to {addr}: {e}"))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(hyper::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("reading the answer of {addr}: {e}"))?
        .to_bytes();
    Ok(Forwarded {
        status,
        retry_after,
        body,
    })
}
