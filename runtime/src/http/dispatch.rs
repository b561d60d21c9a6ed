//! Answering one request: limits and authentication, then the route (health, metrics, the
//! status page, a key of a store, a scan), and a key's forwarding to its owner.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};

use super::forward::FORWARDED;
use super::page::Position;
use super::reply::{self, error_body, not_found_route, query_error, relay, reply, unavailable};
use super::routes::{KeyRead, Kind, Local, StoreRoute};
use super::scan::Scan;
use super::url::{parse_query, percent_decode};
use super::{QueryServer, health, status};
use crate::query::QueryError;
use crate::task::Topology;

impl<T: Topology> QueryServer<T> {
    /// One request, bounded by the request timeout, counted in the request metrics.
    pub(super) async fn respond(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let started = std::time::Instant::now();
        let timeout = self.settings.request_timeout;
        let response = match tokio::time::timeout(timeout, self.answer(request)).await {
            Ok(response) => response,
            Err(_) => unavailable(&format!(
                "the request took longer than the server's request timeout of {timeout:?}: retry"
            )),
        };
        metrics::counter!("dekaf.streams.http.requests", "status" => response.status().as_str().to_owned())
            .increment(1);
        metrics::histogram!("dekaf.streams.http.request.duration")
            .record(started.elapsed().as_secs_f64());
        response
    }

    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let (parts, body) = request.into_parts();
        // The body first: a GET needs none, and a large one is refused before anything else.
        let max = self.settings.max_request_body;
        let declared = parts
            .headers
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > max as u64)
            || Limited::new(body, max).collect().await.is_err()
        {
            return reply(
                StatusCode::PAYLOAD_TOO_LARGE,
                &error_body(&format!(
                    "the request body is larger than this server's limit of {max} bytes (every route is a GET without a body)"
                )),
            );
        }
        if parts.method != hyper::Method::GET {
            return reply(
                StatusCode::METHOD_NOT_ALLOWED,
                &error_body("only GET is served"),
            );
        }
        let path = parts.uri.path().to_owned();
        match path.as_str() {
            "/health/live" => return health::live(self.lifecycle.as_ref()),
            "/health/ready" => return health::ready(self.lifecycle.as_ref()),
            _ => {}
        }
        if let Some(auth) = &self.settings.auth
            && !auth.allows(&parts.headers)
        {
            return reply::unauthorized();
        }
        match path.as_str() {
            "/metrics" => return self.metrics().await,
            "/" => return status::html(&self.status_page),
            "/status" => return status::status(T::APPLICATION_ID, self.lifecycle.as_ref()),
            _ => {}
        }
        let forwarded = parts.headers.contains_key(FORWARDED);
        let raw_query = parts.uri.query();
        let query = parse_query(raw_query.unwrap_or(""));
        let param = |name: &str| {
            query
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let segments: Vec<String> = path
            .trim_start_matches('/')
            .split('/')
            .map(percent_decode)
            .collect();
        let [stores, store, kind, rest @ ..] = segments.as_slice() else {
            return not_found_route();
        };
        if stores != "stores" {
            return not_found_route();
        }
        let Some(route) = self.routes.iter().find(|r| r.name() == store) else {
            return reply(
                StatusCode::NOT_FOUND,
                &error_body(&format!(
                    "no store `{store}` is served here: serve it with QueryServer::store, window_store or session_store"
                )),
            );
        };
        let wrong_kind = matches!(kind.as_str(), "keys" | "windows" | "sessions")
            && kind != route.kind().segment();
        if wrong_kind {
            let (is, use_) = route.kind().usage();
            return reply(
                StatusCode::BAD_REQUEST,
                &error_body(&format!(
                    "`{store}` is {is}: query it with /stores/{store}{use_}"
                )),
            );
        }
        let stale = match param("stale") {
            None | Some("false" | "0") => false,
            Some("" | "true" | "1") => true,
            Some(other) => {
                return reply(
                    StatusCode::BAD_REQUEST,
                    &error_body(&format!(
                        "`stale={other}` is not a flag: pass stale=true to let a standby replica answer, or leave it out"
                    )),
                );
            }
        };
        match (kind.as_str(), rest) {
            ("keys", [key]) => {
                let read = KeyRead {
                    key,
                    from: 0,
                    to: 0,
                    stale,
                };
                self.key(route, &read, forwarded, &path, raw_query).await
            }
            ("windows" | "sessions", [key]) => {
                let bound = |name, default| match param(name) {
                    None => Ok(default),
                    Some(v) => v.parse::<i64>().map_err(|_| v.to_owned()),
                };
                match (bound("from", 0), bound("to", i64::MAX)) {
                    (Ok(from), Ok(to)) => {
                        let read = KeyRead {
                            key,
                            from,
                            to,
                            stale,
                        };
                        self.key(route, &read, forwarded, &path, raw_query).await
                    }
                    (Err(bad), _) | (_, Err(bad)) => reply(
                        StatusCode::BAD_REQUEST,
                        &error_body(&format!("`{bad}` is not a time in milliseconds")),
                    ),
                }
            }
            ("all" | "range", []) if stale => reply(
                StatusCode::BAD_REQUEST,
                &error_body(
                    "`stale` is served for a key's reads (/keys, /windows, /sessions): a scan reads the active tasks of every instance, each partition once; leave `stale` out",
                ),
            ),
            ("all" | "range", []) => {
                let (from, to) = if kind == "all" {
                    (None, None)
                } else {
                    (param("from"), param("to"))
                };
                let limit = match param("limit") {
                    None => self.settings.page_size,
                    Some(text) => match text.parse::<usize>() {
                        Ok(n) if (1..=self.settings.max_page_size).contains(&n) => n,
                        _ => {
                            return reply(
                                StatusCode::BAD_REQUEST,
                                &error_body(&format!(
                                    "`limit` must be a number of entries from 1 to {}",
                                    self.settings.max_page_size
                                )),
                            );
                        }
                    },
                };
                let after = match param("after").map(|t| (t, Position::parse(t))) {
                    None => None,
                    Some((_, Some(position))) => Some(position),
                    Some((token, None)) => {
                        return reply(
                            StatusCode::BAD_REQUEST,
                            &error_body(&format!(
                                "`{token}` is not a continuation token: pass the `next` of the previous page as `after`"
                            )),
                        );
                    }
                };
                let scan = Scan {
                    from,
                    to,
                    after,
                    limit,
                };
                let scope = param("scope");
                self.scan(route, &scan, forwarded, forwarded || scope == Some("local"))
                    .await
            }
            _ => not_found_route(),
        }
    }

    /// `GET /metrics`.
    async fn metrics(&self) -> Response<Full<Bytes>> {
        #[cfg(feature = "prometheus")]
        if let Some(handle) = self.prometheus.clone() {
            return match tokio::task::spawn_blocking(move || {
                handle.run_upkeep();
                handle.render()
            })
            .await
            {
                Ok(text) => reply::prometheus_text(text),
                Err(e) => reply(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &error_body(&format!("rendering the metrics failed: {e}")),
                ),
            };
        }
        reply(
            StatusCode::NOT_FOUND,
            &error_body(if cfg!(feature = "prometheus") {
                "no metrics are served here: give the server a handle with QueryServer::prometheus(dekaf_streams::http::prometheus_recorder()?)"
            } else {
                "no metrics are served here: build dekaf-streams with the `prometheus` feature and give the server a handle with QueryServer::prometheus"
            }),
        )
    }

    /// A key query: here, or forwarded to the key's owner. A stale read (`stale=true`) that
    /// this instance cannot answer goes to the active instance, then to the standbys, until
    /// one answers with other than `503`.
    async fn key(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        read: &KeyRead<'_>,
        forwarded: bool,
        path: &str,
        query: Option<&str>,
    ) -> Response<Full<Bytes>> {
        let local = if route.kind() != Kind::KeyValue {
            // A key's windows or sessions may be many: read them off the runtime's worker
            // threads.
            let (route, queries, key) =
                (Arc::clone(route), self.queries.clone(), read.key.to_owned());
            let (from, to, stale) = (read.from, read.to, read.stale);
            match tokio::task::spawn_blocking(move || {
                let read = KeyRead {
                    key: &key,
                    from,
                    to,
                    stale,
                };
                route.get(&queries, &read)
            })
            .await
            {
                Ok(local) => local,
                Err(e) => return unavailable(&format!("the store read failed: {e}")),
            }
        } else {
            route.get(&self.queries, read)
        };
        let key = read.key;
        let error = match local {
            Local::Found(body) => return reply(StatusCode::OK, &body),
            Local::NoValue => {
                return reply(
                    StatusCode::NOT_FOUND,
                    &error_body(&format!("no value for key `{key}` in `{}`", route.name())),
                );
            }
            Local::BadRequest(message) => {
                return reply(StatusCode::BAD_REQUEST, &error_body(&message));
            }
            Local::Failed(error) => error,
        };
        if !matches!(error, QueryError::NotLocal { .. }) || forwarded {
            return query_error(&error);
        }
        let (owner, standbys) = match route.owner(&self.queries, key) {
            Ok(meta) => (meta.active, meta.standbys),
            Err(why) => return unavailable(&format!("{error}; and no owner is known: {why}")),
        };
        let this = self.queries.this_host();
        // A stale read may also be answered by a standby of the key's partition.
        let mut hosts = vec![owner];
        if read.stale {
            hosts.extend(standbys);
        }
        hosts.retain(|h| Some(h) != this);
        if hosts.is_empty() {
            // The group says the key is ours, but its task is not (yet, or any more) here.
            return query_error(&error);
        }
        let target = match query {
            Some(q) => format!("{path}?{q}"),
            None => path.to_owned(),
        };
        let mut last = None;
        for host in &hosts {
            match self.settings.forward.get(host, &target).await {
                Ok(answer) if answer.status != StatusCode::SERVICE_UNAVAILABLE => {
                    return relay(answer);
                }
                Ok(answer) => last = Some(answer),
                // The reason (with the peer's address) is logged, not told.
                Err(_) => {}
            }
        }
        match last {
            Some(answer) => relay(answer),
            None => unavailable("the instance hosting the key did not answer: retry"),
        }
    }
}
