//! The answers of the query server: JSON bodies, status codes, `Retry-After`.

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::forward;
use super::routes::LocalRange;
use crate::query::{QueryError, Replica};

/// One instance's page. `internal` (an answer to another instance): each entry also carries its
/// partition and position, which the asking instance merges pages by. `stale`: the body also
/// says which copy each partition was read from (`"replicas"`).
pub(super) fn range_body(
    range: &LocalRange,
    next: Option<String>,
    internal: bool,
    stale: bool,
) -> Value {
    let entries: Vec<Value> = range
        .entries
        .iter()
        .map(|e| {
            let mut json = e.json.clone();
            if internal && let Value::Object(fields) = &mut json {
                fields.insert("partition".to_owned(), e.partition.into());
                fields.insert("position".to_owned(), e.token.clone().into());
            }
            json
        })
        .collect();
    let mut body = json!({
        "partition_count": range.partition_count,
        "partitions": range.partitions(),
        "entries": entries,
        "next": next,
    });
    if stale {
        body["replicas"] = replicas_json(&range.replicas);
    }
    body
}

/// Which copy each partition of a stale scan was read from: `[{"partition", "standby",
/// "lag"}]`, `lag` in changelog records (`null` when not known, and for an active task).
pub(super) fn replicas_json(replicas: &[(i32, Replica)]) -> Value {
    replicas
        .iter()
        .map(|(partition, replica)| {
            let (standby, lag) = match replica {
                Replica::Active => (false, None),
                Replica::Standby { lag } => (true, *lag),
            };
            json!({ "partition": partition, "standby": standby, "lag": lag })
        })
        .collect()
}

/// `401` with the scheme to use.
pub(super) fn unauthorized() -> Response<Full<Bytes>> {
    let mut response = reply(
        StatusCode::UNAUTHORIZED,
        &error_body("authentication required: send `Authorization: Bearer <token>`"),
    );
    response.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    response
}

/// `200` with Prometheus' text exposition format.
#[cfg(feature = "prometheus")]
pub(super) fn prometheus_text(text: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(text)));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

pub(super) fn error_body(message: &str) -> Value {
    json!({ "error": message })
}

pub(super) fn reply(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            hyper::header::RETRY_AFTER,
            hyper::header::HeaderValue::from_static("1"),
        );
    }
    response
}

pub(super) fn relay(answer: forward::Forwarded) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(answer.body));
    *response.status_mut() = answer.status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    if let Some(retry) = answer
        .retry_after
        .and_then(|r| hyper::header::HeaderValue::from_str(&r).ok())
    {
        response
            .headers_mut()
            .insert(hyper::header::RETRY_AFTER, retry);
    }
    response
}

pub(super) fn unavailable(message: &str) -> Response<Full<Bytes>> {
    reply(StatusCode::SERVICE_UNAVAILABLE, &error_body(message))
}

pub(super) fn not_found_route() -> Response<Full<Bytes>> {
    reply(
        StatusCode::NOT_FOUND,
        &error_body(
            "no such route: GET /stores/{store}/keys/{key}, /stores/{store}/windows/{key}, \
             /stores/{store}/sessions/{key}, /stores/{store}/versions/{key}, \
             /stores/{store}/all, /stores/{store}/range?from=..&to=.., /health/live, \
             /health/ready, /status or /metrics",
        ),
    )
}

/// The status of a query error: 404 for an unknown store, 400 for a key that does not
/// serialize, 503 (retry) for the rest.
pub(super) fn query_error(error: &QueryError) -> Response<Full<Bytes>> {
    let status = match error {
        QueryError::UnknownStore { .. } => StatusCode::NOT_FOUND,
        QueryError::Serde(_) => StatusCode::BAD_REQUEST,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    reply(status, &error_body(&error.to_string()))
}
