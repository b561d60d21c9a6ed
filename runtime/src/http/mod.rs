//! Interactive queries over HTTP (the `http` feature): every instance serves its stores as
//! JSON, and answers for keys it does not host by asking the instance that does.
//!
//! ```no_run
//! # use dekaf_streams::prelude::*;
//! # use dekaf_streams::KafkaStreams;
//! # use dekaf_streams::http::QueryServer;
//! # topology! { pub WordCount = "word-count" {
//! #     stream("sentences", Utf8, Utf8)
//! #         .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
//! #         .group_by(|_key, word| word.clone(), Utf8, Utf8)
//! #         .count("counts").to_stream().to("word-counts", Utf8, I64);
//! # } }
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let streams = KafkaStreams::builder(WordCount)
//!     .bootstrap_servers("localhost:9092")
//!     .application_server("10.0.0.5:8080") // what other instances reach this one at
//!     .build()?;
//! let server = QueryServer::new(streams.queries()).store(WordCount::COUNTS);
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//! tokio::spawn(server.serve(listener, std::future::pending()));
//! streams.run(dekaf_streams::shutdown_signal()).await?;
//! # Ok(()) }
//! ```
//!
//! # Routes
//!
//! | request | answer |
//! |---|---|
//! | `GET /stores/{store}/keys/{key}` | `200 {"key": k, "value": v}`; `404` when the key has no value |
//! | `GET /stores/{store}/windows/{key}?from=<ms>&to=<ms>` | `200 {"key": k, "windows": [{"start", "end", "value"}]}` (window stores; windows starting in `[from, to]`, both optional) |
//! | `GET /stores/{store}/all` | `200 {"partition_count": n, "partitions": [0..n], "entries": [{"key", "value"}]}` |
//! | `GET /stores/{store}/range?from=a&to=b` | as `all`, keys from `a` to `b` inclusive (either optional) |
//!
//! Keys are path segments or query parameters, percent-encoded, parsed with the key type's
//! `FromStr` (`String`, integers, ...); values are written with the value type's
//! `serde::Serialize`. Errors are `{"error": "..."}` saying what to do.
//!
//! # Where the answer comes from
//!
//! A key query is answered from this instance's committed state when it hosts the key's task
//! (see [`crate::query`] for what a read sees). Otherwise the instance that
//! [`metadata_for_key`](crate::query::Queries::metadata_for_key) names is asked (the request
//! carries `x-dekaf-forwarded: 1`, and a forwarded request is never forwarded again) and its
//! answer is relayed. `all` and `range` ask every instance of the group for its own tasks
//! (`?scope=local` asks only this one) and answer only when the answers together cover every
//! partition of the store exactly once. One instance's entries come partition after partition,
//! each in serialized-key order; the instances' blocks follow by their lowest partition.
//!
//! # Status codes
//!
//! - `404`: no such store (or not registered with this server), or no value for the key.
//! - `400`: a key or bound that does not parse as the store's key type, or a bad parameter.
//! - `503` with `Retry-After: 1`: the key's task is restoring, moving between instances (a
//!   rebalance), the application is not running yet, no instance hosts the partition right now,
//!   or the owner did not answer. Retry: the answer is never a value from the wrong place.
//!
//! # Why hyper
//!
//! hyper is the HTTP implementation under axum, reqwest and tonic, maintained with tokio, which
//! the runtime already uses: it serves and forwards with one dependency and no framework. The
//! routes are few and fixed, so a router would add compile time and no function.

mod forward;
mod reply;
mod routes;
mod url;

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::future::Future;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;

pub use forward::FORWARDED;
use reply::{error_body, not_found_route, query_error, range_body, relay, reply, unavailable};
use routes::{KeyValueRoute, Local, LocalRange, StoreRoute, WindowRoute};
use url::{parse_query, percent_decode, percent_encode};

use crate::query::{Queries, QueryError};
use crate::task::{StoreRef, Topology, WindowStoreRef};

/// Serves an application's stores over HTTP. Made with [`QueryServer::new`], given the stores
/// to serve by their generated handles, then run with [`QueryServer::serve`].
pub struct QueryServer<T: Topology> {
    queries: Queries<T>,
    routes: Vec<Arc<dyn StoreRoute<T>>>,
}

impl<T: Topology> std::fmt::Debug for QueryServer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.routes.iter().map(|r| r.name()).collect();
        f.debug_struct("QueryServer")
            .field("stores", &names)
            .finish()
    }
}

impl<T: Topology> Clone for QueryServer<T> {
    fn clone(&self) -> Self {
        QueryServer {
            queries: self.queries.clone(),
            routes: self.routes.clone(),
        }
    }
}

impl<T: Topology> QueryServer<T> {
    /// A server of no stores yet over `queries` (from `KafkaStreams::queries`).
    pub fn new(queries: Queries<T>) -> Self {
        QueryServer {
            queries,
            routes: Vec::new(),
        }
    }

    /// Serves the key-value store `store`: keys parse with `K: FromStr`, keys and values are
    /// written with `serde::Serialize`.
    pub fn store<K, V>(mut self, store: StoreRef<K, V>) -> Self
    where
        K: FromStr + Serialize + 'static,
        V: Serialize + 'static,
    {
        self.routes.push(Arc::new(KeyValueRoute(store)));
        self
    }

    /// Serves the window store `store`.
    pub fn window_store<K, V>(mut self, store: WindowStoreRef<K, V>) -> Self
    where
        K: FromStr + Serialize + 'static,
        V: Serialize + 'static,
    {
        self.routes.push(Arc::new(WindowRoute(store, PhantomData)));
        self
    }

    /// Answers requests on `listener` until `shutdown` completes (connections under way are
    /// finished in the background).
    ///
    /// # Errors
    ///
    /// Only when accepting connections fails for good; a failed connection is logged.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        tokio::pin!(shutdown);
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => accepted?,
                () = &mut shutdown => return Ok(()),
            };
            let server = self.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let server = server.clone();
                    async move { Ok::<_, Infallible>(server.answer(request).await) }
                });
                if let Err(e) = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await
                {
                    tracing::debug!(error = %e, "query connection failed");
                }
            });
        }
    }

    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        if request.method() != hyper::Method::GET {
            return reply(
                StatusCode::METHOD_NOT_ALLOWED,
                &error_body("only GET is served"),
            );
        }
        let forwarded = request.headers().contains_key(FORWARDED);
        let path = request.uri().path().to_owned();
        let query = parse_query(request.uri().query().unwrap_or(""));
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
                    "no store `{store}` is served here: serve it with QueryServer::store or window_store"
                )),
            );
        };
        let wrong_kind = match kind.as_str() {
            "keys" => route.is_window(),
            "windows" => !route.is_window(),
            _ => false,
        };
        if wrong_kind {
            let (is, use_) = if route.is_window() {
                ("a window store", "/windows/{key}?from=<ms>&to=<ms>")
            } else {
                ("a key-value store", "/keys/{key}")
            };
            return reply(
                StatusCode::BAD_REQUEST,
                &error_body(&format!(
                    "`{store}` is {is}: query it with /stores/{store}{use_}"
                )),
            );
        }
        match (kind.as_str(), rest) {
            ("keys", [key]) => {
                self.key(
                    route.as_ref(),
                    key,
                    0,
                    0,
                    forwarded,
                    &path,
                    request.uri().query(),
                )
                .await
            }
            ("windows", [key]) => {
                let bound = |name, default| match param(name) {
                    None => Ok(default),
                    Some(v) => v.parse::<i64>().map_err(|_| v.to_owned()),
                };
                match (bound("from", 0), bound("to", i64::MAX)) {
                    (Ok(from), Ok(to)) => {
                        self.key(
                            route.as_ref(),
                            key,
                            from,
                            to,
                            forwarded,
                            &path,
                            request.uri().query(),
                        )
                        .await
                    }
                    (Err(bad), _) | (_, Err(bad)) => reply(
                        StatusCode::BAD_REQUEST,
                        &error_body(&format!("`{bad}` is not a time in milliseconds")),
                    ),
                }
            }
            ("all", []) => {
                self.scan(
                    route.as_ref(),
                    None,
                    None,
                    forwarded || param("scope") == Some("local"),
                )
                .await
            }
            ("range", []) => {
                self.scan(
                    route.as_ref(),
                    param("from"),
                    param("to"),
                    forwarded || param("scope") == Some("local"),
                )
                .await
            }
            _ => not_found_route(),
        }
    }

    /// A key query: here, or forwarded to the key's owner.
    #[allow(clippy::too_many_arguments)]
    async fn key(
        &self,
        route: &dyn StoreRoute<T>,
        key: &str,
        from: i64,
        to: i64,
        forwarded: bool,
        path: &str,
        query: Option<&str>,
    ) -> Response<Full<Bytes>> {
        let error = match route.get(&self.queries, key, from, to) {
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
        let owner = match route.owner(&self.queries, key) {
            Ok(meta) => meta.active,
            Err(why) => return unavailable(&format!("{error}; and no owner is known: {why}")),
        };
        if Some(&owner) == self.queries.this_host() {
            // The group says the key is ours, but its task is not (yet, or any more) here.
            return query_error(&error);
        }
        let target = match query {
            Some(q) => format!("{path}?{q}"),
            None => path.to_owned(),
        };
        match forward::get(&owner, &target).await {
            Ok(answer) => relay(answer),
            Err(why) => unavailable(&format!(
                "the key's owner {owner} did not answer ({why}): retry"
            )),
        }
    }

    /// `all` or `range`: this instance's tasks, or every instance's, covering every partition.
    async fn scan(
        &self,
        route: &dyn StoreRoute<T>,
        from: Option<&str>,
        to: Option<&str>,
        local_only: bool,
    ) -> Response<Full<Bytes>> {
        let local = match route.range(&self.queries, from, to) {
            Ok(local) => local,
            Err(Local::Failed(error)) => return query_error(&error),
            Err(Local::BadRequest(message)) => {
                return reply(StatusCode::BAD_REQUEST, &error_body(&message));
            }
            Err(Local::Found(_) | Local::NoValue) => return unavailable("unexpected answer"),
        };
        if local_only {
            return reply(StatusCode::OK, &range_body(&local));
        }
        let mut parts = vec![local];
        let this = self.queries.this_host().cloned();
        let mut query = vec![("scope".to_owned(), "local".to_owned())];
        if let Some(f) = from {
            query.push(("from".into(), f.into()));
        }
        if let Some(t) = to {
            query.push(("to".into(), t.into()));
        }
        let query: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect();
        let target = format!(
            "/stores/{}/{}?{}",
            percent_encode(route.name()),
            if from.is_none() && to.is_none() {
                "all"
            } else {
                "range"
            },
            query.join("&")
        );
        for host in self.queries.all_hosts() {
            if Some(&host) == this.as_ref() {
                continue;
            }
            let answer = match forward::get(&host, &target).await {
                Ok(answer) if answer.status == StatusCode::OK => answer,
                Ok(answer) => return relay(answer),
                Err(why) => {
                    return unavailable(&format!("instance {host} did not answer ({why}): retry"));
                }
            };
            match serde_json::from_slice::<Value>(&answer.body) {
                Ok(body) => parts.push(LocalRange {
                    partitions: body["partitions"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|p| p.as_i64())
                                .filter_map(|p| i32::try_from(p).ok())
                                .collect()
                        })
                        .unwrap_or_default(),
                    partition_count: parts[0].partition_count,
                    entries: body["entries"].as_array().cloned().unwrap_or_default(),
                }),
                Err(e) => {
                    return unavailable(&format!("instance {host} answered no JSON ({e}): retry"));
                }
            }
        }
        let count = parts[0].partition_count;
        let mut seen = BTreeSet::new();
        let mut twice = false;
        for part in &parts {
            for p in &part.partitions {
                twice |= !seen.insert(*p);
            }
        }
        let missing: Vec<i32> = (0..count).filter(|p| !seen.contains(p)).collect();
        if twice || !missing.is_empty() {
            return unavailable(&format!(
                "the instances' answers do not cover every partition of `{}` exactly once \
                 (missing {missing:?}): tasks are restoring or moving; retry",
                route.name()
            ));
        }
        // Each instance's block is in its partition order; blocks follow by lowest partition.
        let mut rows: Vec<(i32, Vec<Value>)> = parts
            .into_iter()
            .map(|part| {
                let first = part.partitions.iter().min().copied().unwrap_or(i32::MAX);
                (first, part.entries)
            })
            .collect();
        rows.sort_by_key(|(p, _)| *p);
        let entries: Vec<Value> = rows.into_iter().flat_map(|(_, e)| e).collect();
        reply(
            StatusCode::OK,
            &json!({ "partition_count": count, "partitions": (0..count).collect::<Vec<_>>(), "entries": entries }),
        )
    }
}
