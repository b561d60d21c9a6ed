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
use super::routes::{KeyRead, Kind, Local, ScanRead, StoreRoute, Versions};
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
        // A store served twice (`store` and `versioned_store`): the route that serves the path.
        let named = |r: &&Arc<dyn StoreRoute<T>>| r.name() == store;
        let route = self
            .routes
            .iter()
            .filter(named)
            .find(|r| r.kind().serves(kind))
            .or_else(|| self.routes.iter().find(named));
        let Some(route) = route else {
            return reply(
                StatusCode::NOT_FOUND,
                &error_body(&format!(
                    "no store `{store}` is served here: serve it with QueryServer::store, window_store, session_store or versioned_store"
                )),
            );
        };
        let wrong_kind = matches!(kind.as_str(), "keys" | "windows" | "sessions" | "versions")
            && !route.kind().serves(kind);
        if wrong_kind {
            let (is, use_) = route.kind().usage();
            let versioned = if kind == "versions" && route.kind() == Kind::KeyValue {
                " (a versioned table's history is served when the server is given its store \
                 with QueryServer::versioned_store)"
            } else {
                ""
            };
            return reply(
                StatusCode::BAD_REQUEST,
                &error_body(&format!(
                    "`{store}` is {is}: query it with /stores/{store}{use_}{versioned}"
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
        // A time in milliseconds, or what to tell the caller.
        let time = |name: &str| -> Result<Option<i64>, String> {
            param(name)
                .map(|v| {
                    v.parse::<i64>()
                        .map_err(|_| format!("`{name}={v}` is not a time in milliseconds"))
                })
                .transpose()
        };
        let bad_request = |message: String| reply(StatusCode::BAD_REQUEST, &error_body(&message));
        match (kind.as_str(), rest) {
            ("keys", [key]) => {
                let read = KeyRead {
                    key,
                    from: 0,
                    to: 0,
                    stale,
                    versions: None,
                };
                self.key(route, &read, forwarded, &path, raw_query).await
            }
            ("windows" | "sessions", [key]) => match (time("from"), time("to")) {
                (Ok(from), Ok(to)) => {
                    let read = KeyRead {
                        key,
                        from: from.unwrap_or(0),
                        to: to.unwrap_or(i64::MAX),
                        stale,
                        versions: None,
                    };
                    self.key(route, &read, forwarded, &path, raw_query).await
                }
                (Err(bad), _) | (_, Err(bad)) => bad_request(bad),
            },
            ("versions", [key]) => {
                let versions = match (time("as_of"), time("from"), time("to")) {
                    (Err(bad), _, _) | (_, Err(bad), _) | (_, _, Err(bad)) => {
                        return bad_request(bad);
                    }
                    (Ok(Some(_)), Ok(from), Ok(to)) if from.is_some() || to.is_some() => {
                        return bad_request(
                            "`as_of` asks for the version valid at one time, `from`/`to` for \
                             the versions valid in a time range: pass one or the other"
                                .to_owned(),
                        );
                    }
                    (Ok(as_of), Ok(None), Ok(None)) => Versions::AsOf(as_of.unwrap_or(i64::MAX)),
                    (Ok(_), Ok(from), Ok(to)) => Versions::Between {
                        from: from.unwrap_or(i64::MIN),
                        to: to.unwrap_or(i64::MAX),
                    },
                };
                let read = KeyRead {
                    key,
                    from: 0,
                    to: 0,
                    stale,
                    versions: Some(versions),
                };
                self.key(route, &read, forwarded, &path, raw_query).await
            }
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
                            return bad_request(format!(
                                "`limit` must be a number of entries from 1 to {}",
                                self.settings.max_page_size
                            ));
                        }
                    },
                };
                let after = match param("after").map(|t| (t, Position::parse(t))) {
                    None => None,
                    Some((_, Some(position))) => Some(position),
                    Some((token, None)) => {
                        return bad_request(format!(
                            "`{token}` is not a continuation token: pass the `next` of the previous page as `after`"
                        ));
                    }
                };
                let (earliest_end, latest_start) =
                    match (time("earliest_end"), time("latest_start")) {
                        (Ok(e), Ok(l)) => (e, l),
                        (Err(bad), _) | (_, Err(bad)) => return bad_request(bad),
                    };
                let local_only = forwarded || param("scope") == Some("local");
                let only = match param("partitions") {
                    None => None,
                    Some(_) if !local_only => {
                        return bad_request(
                            "`partitions` restricts one instance's page: pass it with \
                             scope=local, or leave it out to read every partition"
                                .to_owned(),
                        );
                    }
                    Some(list) => match parse_partitions(list) {
                        Some(only) => Some(only),
                        None => {
                            return bad_request(format!(
                                "`partitions={list}` is not a list of partitions: pass numbers \
                                 separated by commas, as partitions=0,2"
                            ));
                        }
                    },
                };
                let scan = ScanRead {
                    from: from.map(str::to_owned),
                    to: to.map(str::to_owned),
                    earliest_end,
                    latest_start,
                    after,
                    only,
                    stale,
                    limit,
                };
                self.scan(route, &scan, forwarded, local_only).await
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
        // A key's windows, sessions or versions may be many: read them off the runtime's worker
        // threads. A value is one lookup.
        let blocking = match route.kind() {
            Kind::KeyValue => false,
            Kind::Versioned => read.versions.is_some(),
            Kind::Window | Kind::Session => true,
        };
        let local = if blocking {
            let (route, queries, key) =
                (Arc::clone(route), self.queries.clone(), read.key.to_owned());
            let (from, to, stale, versions) = (read.from, read.to, read.stale, read.versions);
            match tokio::task::spawn_blocking(move || {
                let read = KeyRead {
                    key: &key,
                    from,
                    to,
                    stale,
                    versions,
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
                let message = match read.versions {
                    Some(Versions::AsOf(as_of)) if as_of != i64::MAX => format!(
                        "no version of key `{key}` in `{}` was valid at {as_of} (the key had no \
                         value then, or the table's history does not reach back that far)",
                        route.name()
                    ),
                    _ => format!("no value for key `{key}` in `{}`", route.name()),
                };
                return reply(StatusCode::NOT_FOUND, &error_body(&message));
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

/// `0,2,5` as partitions; `None` when an item is not a partition number.
fn parse_partitions(list: &str) -> Option<Vec<i32>> {
    list.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.trim().parse::<i32>().ok().filter(|p| *p >= 0))
        .collect()
}
