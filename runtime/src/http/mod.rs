//! Interactive queries over HTTP (the `http` feature): every instance serves its stores as
//! JSON, and answers for keys it does not host by asking the instance that does. The same
//! server answers Kubernetes' health probes and (feature `prometheus`) Prometheus' scrapes.
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
//!     .application_server("127.0.0.1:8080") // what other instances reach this one at
//!     .build()?;
//! let server = QueryServer::new(streams.queries())
//!     .store(WordCount::COUNTS)
//!     .lifecycle(streams.lifecycle()); // for /health/ready
//! // 127.0.0.1: reachable from this machine only. See "Hardening" before binding wider.
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
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
//! | `GET /stores/{store}/sessions/{key}?from=<ms>&to=<ms>` | `200 {"key": k, "sessions": [{"start", "end", "value"}]}` (session stores; the key's sessions that overlap `[from, to]`, oldest first: Kafka Streams' `findSessions(key, from, to)`, `end >= from` and `start <= to`; both optional, without them every session of the key; `start` and `end` are the first and last record's timestamps, both inclusive) |
//! | `GET /stores/{store}/versions/{key}?as_of=<ms>` | `200 {"key": k, "value": v, "timestamp": t, "valid_to": t or null}`: the version valid at `as_of` (Kafka Streams' `VersionedKeyQuery.asOf`; without `as_of` the latest); `404` when the key had no value then or the table's history does not reach back that far (versioned tables' stores, served with [`QueryServer::versioned_store`]) |
//! | `GET /stores/{store}/versions/{key}?from=<ms>&to=<ms>` | `200 {"key": k, "versions": [{"value", "timestamp", "valid_to"}]}`: the versions valid at some time in `[from, to]`, oldest first (`MultiVersionedKeyQuery`; both optional) |
//! | `GET /stores/{store}/all?limit=<n>&after=<token>` | one page: `200 {"partition_count": n, "partitions": [0..n], "entries": [{"key", "value"}], "next": token or null}` (key-value and versioned stores; a session store's entries are its sessions, `{"key", "start", "end", "value"}`, each key's oldest first: Kafka Streams' `fetch(keyFrom, keyTo)`) |
//! | `GET /stores/{store}/range?from=a&to=b&limit=<n>&after=<token>` | as `all`, keys from `a` to `b` inclusive (either optional) |
//! | `all` or `range` of a session store with `&earliest_end=<ms>&latest_start=<ms>` | the sessions that end at or after `earliest_end` and start at or before `latest_start` (Kafka Streams' `findSessions(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime)`; either optional) |
//! | `GET /health/live` | `200 {"status": "live", "state": s}`; `503` once the instance is in `ERROR` |
//! | `GET /health/ready` | `200 {"status": "ready", "state": "RUNNING"}`; otherwise `503 {"state": s, "error": why}` |
//! | `GET /` | `200`, the status page: the topology drawn as SVG, this instance's threads and tasks with their lag, refreshed every 2 s (see below) |
//! | `GET /status` | `200 {"application_id", "state", "paused", "threads": [{"name", "state", "active_tasks": [{"task", "lag", "partitions": [{"topic", "partition", "position", "end", "lag"}]}], "standby_tasks"}]}` |
//! | `GET /metrics` | `200`, Prometheus' text format (feature `prometheus`, given `QueryServer::prometheus`); `404` otherwise |
//!
//! A key's read (`keys`, `windows`, `sessions`) and a scan (`all`, `range`) take `stale=true`
//! (Kafka Streams' `enableStaleStores()`): a standby replica may then answer when no active
//! task of the key's partition is ready (see [`crate::query`]'s "Stale stores"), and the body
//! says which copy did, `"standby": true|false` and its `"lag"` (changelog records behind,
//! `null` when not known). A stale read of a key whose partition this instance keeps neither
//! as active task nor as standby goes to the key's active instance, then to its standbys,
//! until one answers other than `503`. A stale scan reads each partition once, from the
//! instance with its active task, else from the standby with the smallest known lag (an
//! instance that does not answer is left out), and adds `"replicas": [{"partition",
//! "standby", "lag"}]`, the copy each partition was read from. A versioned table's history
//! (`versions`) is kept by active tasks only: it takes no `stale` (`400`).
//!
//! Keys are path segments or query parameters, percent-encoded, parsed with the key type's
//! `FromStr` (`String`, integers, ...); values are written with the value type's
//! `serde::Serialize`. Errors are `{"error": "..."}` saying what to do.
//!
//! # Pages of `all` and `range`
//!
//! A scan answers one page of at most `limit` entries ([`DEFAULT_PAGE_SIZE`] without `limit`,
//! at most [`DEFAULT_MAX_PAGE_SIZE`]; see [`QueryServer::page_size`]). When more entries follow,
//! `next` is a continuation token: ask again with `after=<next>` (and the same other
//! parameters) for the next page, until `next` is `null`:
//!
//! ```text
//! GET /stores/counts/all?limit=500              -> {"entries": [...500], "next": "AAAAA3cxMg"}
//! GET /stores/counts/all?limit=500&after=AAAAA3cxMg -> {"entries": [...], "next": null}
//! ```
//!
//! Entries come partition after partition, each partition in serialized-key order (a session
//! store's: each key's sessions oldest first). A token is the position (partition, serialized
//! store key) of a page's last entry; each page reads the
//! committed state as of its own request, so an entry written or deleted between two pages
//! shows in the later page only if it lies after the token. Each page is read on tokio's
//! blocking threads (`spawn_blocking`), never on the worker threads that also send the group's
//! heartbeats, and holds at most `limit` entries per instance in memory.
//!
//! # Where the answer comes from
//!
//! A key query is answered from this instance's committed state when it hosts the key's task
//! (see [`crate::query`] for what a read sees). Otherwise the instance that
//! [`metadata_for_key`](crate::query::Queries::metadata_for_key) names is asked (the request
//! carries `x-dekaf-forwarded: 1`, and a forwarded request is never forwarded again) and its
//! answer is relayed. `all` and `range` ask every instance of the group for its page of its own
//! tasks (`?scope=local` asks only this one, and `&partitions=0,2` with it only for those of
//! its partitions) and answer only when the answers together cover every partition of the
//! store exactly once.
//!
//! # Health
//!
//! `/health/live` and `/health/ready` need no authentication (probes carry no credentials, and
//! the answers tell only the instance's state) and read the [`Lifecycle`] given with
//! [`QueryServer::lifecycle`]:
//!
//! - **live**: `200` while the process serves requests, `503` once the instance is in `ERROR`
//!   (a fatal error stopped it; only a restart helps). Shutting down (`PENDING_SHUTDOWN`,
//!   `NOT_RUNNING`) stays live, so a liveness probe never kills a clean shutdown.
//! - **ready**: `200` when the state is `RUNNING`: every thread has joined the group and runs
//!   its tasks, restored (a thread restoring state or rebalancing makes it `REBALANCING`).
//!   `503` with the state otherwise, and `503` when the server was given no lifecycle: a
//!   readiness probe must not report ready on a guess.
//!
//! # Status page
//!
//! `GET /` is a page for people: the topology as [`Topology::describe`] has it, drawn as SVG
//! (subtopologies as boxes, topics, processors and stores, each with its name in `data-name`),
//! the instance's state, and a table of its threads with their active and standby tasks and
//! each active task's lag (records of its input partitions it has not processed yet, from the
//! thread's report of about once a second). The subtopologies this instance runs active tasks
//! of are marked on the drawing. It needs [`QueryServer::lifecycle`] for the states and tasks,
//! sits behind the same authentication as the stores, and loads nothing from elsewhere (its
//! `Content-Security-Policy` allows its own inline script and style and requests to this
//! server only).
//!
//! # Metrics
//!
//! With the `prometheus` feature, `prometheus_recorder()` installs the process's `metrics`
//! recorder and returns the handle `/metrics` renders with:
//!
//! ```no_run
//! # #[cfg(feature = "prometheus")]
//! # fn demo<T: dekaf_streams::task::Topology>(server: dekaf_streams::http::QueryServer<T>) -> Result<(), Box<dyn std::error::Error>> {
//! let handle = dekaf_streams::http::prometheus_recorder()?; // once, before the streams run
//! let server = server.prometheus(handle);
//! # Ok(()) }
//! ```
//!
//! **Why `metrics-exporter-prometheus`**: it is the exporter of the `metrics` project itself
//! (the facade the runtime records through), kept in step with it, and it renders on demand
//! (`PrometheusHandle::render`) without its own HTTP listener: the query server serves
//! `/metrics` on its port, behind the same limits, TLS and authentication, and the crate is
//! built without its listener and push gateway (no second HTTP stack, no rustls). Names are
//! written with `_` for `.` (`dekaf.streams.commits` is `dekaf_streams_commits`); counters get
//! no `_total` suffix. The instruments recorded today:
//!
//! | instrument | kind | labels | meaning |
//! |---|---|---|---|
//! | `dekaf.streams.records.processed` | counter | | records processed, counted at commit |
//! | `dekaf.streams.records.restored` | counter | `task`, `reason` | changelog records applied while restoring |
//! | `dekaf.streams.commits` | counter | | completed commits |
//! | `dekaf.streams.commits.aborted` | counter | | aborted commits (their work is redone) |
//! | `dekaf.streams.commit.duration` | histogram | | commit time, seconds |
//! | `dekaf.streams.restore.duration` | histogram | `task`, `reason` | time to restore one task's stores, seconds |
//! | `dekaf.streams.tasks.active` | gauge | | tasks owned |
//! | `dekaf.streams.tasks.standby` | gauge | | standby tasks maintained |
//! | `dekaf.streams.standby.records` | counter | | changelog records applied to standby tasks |
//! | `dekaf.streams.standby.lag` | gauge | `task` | changelog records a standby task has not applied |
//! | `dekaf.streams.standby.promotions` | counter | | standby tasks that became active |
//! | `dekaf.streams.threads.replaced` | counter | | processing threads replaced after an error (`ReplaceThread`) |
//! | `dekaf.streams.poll.absence.warnings` | counter | `thread` | a thread away from its loop for long |
//! | `dekaf.streams.poll.interval.exceeded` | counter | `thread` | a thread past `max_poll_interval`: its member left the group |
//! | `dekaf.streams.global.dropped` | counter | `topic` | global-table records dropped |
//! | `dekaf.streams.http.requests` | counter | `status` | requests answered by this server |
//! | `dekaf.streams.http.request.duration` | histogram | | time to answer a request, seconds |
//! | `dekaf.streams.http.connections.open` | gauge | | connections open |
//! | `dekaf.streams.http.connections.refused` | counter | | connections closed at once: over [`QueryServer::max_connections`] |
//! | `dekaf.streams.http.connections.timed_out` | counter | `reason` (`header`, `idle`) | connections closed by a timeout |
//! | `dekaf.streams.http.accept.errors` | counter | | failed `accept()`s (survived) |
//!
//! # Status codes
//!
//! - `404`: no such store (or not registered with this server), or no value for the key.
//! - `400`: a key or bound that does not parse as the store's key type, a bad parameter
//!   (`limit`, `after`, a time that is not a number of milliseconds, `as_of` with
//!   `from`/`to`, `stale` on `versions`), or a route of another kind of store (the message
//!   names the right one).
//! - `401`: authentication is required ([`QueryServer::bearer_token`],
//!   [`QueryServer::authenticate`]) and the request has none or a wrong one.
//! - `405`: a method other than `GET`.
//! - `413`: a request body over [`QueryServer::max_request_body`]; `431`: a request head over
//!   [`QueryServer::max_header_bytes`].
//! - `503` with `Retry-After: 1`: the key's task is restoring, moving between instances (a
//!   rebalance), the application is not running yet, no instance hosts the partition right now,
//!   the owner did not answer, the answer took longer than the request timeout, or the server
//!   is at its connection limit. Retry: the answer is never a value from the wrong place.
//!   Error bodies never name another instance's address (it is logged instead).
//!
//! # Hardening
//!
//! The server is meant to sit inside the application's network, but it does not trust its
//! clients. Every limit has a safe default and a setter on [`QueryServer`]:
//!
//! | setting | default | what happens past it |
//! |---|---|---|
//! | [`header_read_timeout`](QueryServer::header_read_timeout) | 10 s from a request head's first byte (also bounds the TLS handshake) | connection closed (slowloris) |
//! | [`request_timeout`](QueryServer::request_timeout) | 30 s from the head to the answer | `503` |
//! | [`idle_timeout`](QueryServer::idle_timeout) | 60 s with no request and no byte | connection closed |
//! | [`max_connections`](QueryServer::max_connections) | 512 open at once | `503` and closed at once, counted |
//! | [`max_request_body`](QueryServer::max_request_body) | 16 KiB | `413` |
//! | [`max_header_bytes`](QueryServer::max_header_bytes) | 16 KiB | `431`, connection closed |
//! | [`forward_timeout`](QueryServer::forward_timeout) | 10 s per forwarded request | `503` |
//! | [`max_forwarded_response`](QueryServer::max_forwarded_response) | 16 MiB from a peer | `503` |
//! | [`page_size`](QueryServer::page_size) / [`max_page_size`](QueryServer::max_page_size) | 1000 / 10 000 entries | a page; `400` over the maximum |
//! | TLS ([`tls`](QueryServer::tls)) | off | |
//! | authentication ([`bearer_token`](QueryServer::bearer_token), [`authenticate`](QueryServer::authenticate)) | off | `401` |
//!
//! Also: a failed `accept()` (out of file descriptors: `EMFILE`) is logged and retried after a
//! backoff of 10 ms doubling to 1 s, and the server goes on; scans run off the worker threads.
//!
//! **Where to bind.** Bind to `127.0.0.1` unless something else must reach the server. Other
//! instances forwarding to this one must: then bind to the address `application_server`
//! names (the pod's IP, not `0.0.0.0`), and turn on TLS and a bearer token, which the server
//! also sends when it forwards. Without them anyone who reaches the port reads every store.
//!
//! **Why OpenSSL for TLS** (`openssl` and `tokio-openssl`, not rustls): the crate already links
//! OpenSSL for librdkafka and for its own coordinator connections, so TLS here adds no second
//! TLS stack to build and audit, and takes the same PEM certificates, keys (encrypted ones
//! too) and CA files the Kafka clients are configured with.
//!
//! # Why hyper
//!
//! hyper is the HTTP implementation under axum, reqwest and tonic, maintained with tokio, which
//! the runtime already uses: it serves and forwards with one dependency and no framework. The
//! routes are few and fixed, so a router would add compile time and no function.

mod auth;
mod conn;
mod dispatch;
mod forward;
mod health;
mod page;
#[cfg(feature = "prometheus")]
mod prometheus;
mod reply;
mod routes;
mod scan;
mod status;
#[cfg(test)]
mod tests;
mod url;

use std::future::Future;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::net::TcpListener;

pub use auth::BearerTokenError;
pub use forward::FORWARDED;
#[cfg(feature = "prometheus")]
pub use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
#[cfg(feature = "prometheus")]
pub use prometheus::{
    DURATION_BUCKETS, PrometheusError, prometheus_recorder, prometheus_recorder_with,
};

use auth::Auth;
use forward::Forwarder;
use routes::{KeyValueRoute, SessionRoute, StoreRoute, VersionedRoute, WindowRoute};

use crate::query::Queries;
use crate::streams::Lifecycle;
use crate::task::{SessionStoreRef, StoreRef, Topology, WindowStoreRef};

/// Default of [`QueryServer::header_read_timeout`].
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`QueryServer::request_timeout`].
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of [`QueryServer::idle_timeout`].
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default of [`QueryServer::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Default of [`QueryServer::max_request_body`], in bytes.
pub const DEFAULT_MAX_REQUEST_BODY: usize = 16 * 1024;
/// Default of [`QueryServer::max_header_bytes`], in bytes.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 16 * 1024;
/// Default of [`QueryServer::forward_timeout`].
pub const DEFAULT_FORWARD_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`QueryServer::max_forwarded_response`], in bytes.
pub const DEFAULT_MAX_FORWARDED_RESPONSE: usize = 16 * 1024 * 1024;
/// Default of [`QueryServer::page_size`]: entries of a page of `all` or `range` without `limit`.
pub const DEFAULT_PAGE_SIZE: usize = 1000;
/// Default of [`QueryServer::max_page_size`]: the largest `limit` a client may ask for.
pub const DEFAULT_MAX_PAGE_SIZE: usize = 10_000;

/// The limits and security of a server; see the [module docs](self#hardening).
#[derive(Clone)]
pub(crate) struct Settings {
    pub header_read_timeout: Duration,
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_request_body: usize,
    pub max_header_bytes: usize,
    pub page_size: usize,
    pub max_page_size: usize,
    pub tls: Option<openssl::ssl::SslAcceptor>,
    pub forward: Forwarder,
    pub auth: Option<Auth>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_request_body: DEFAULT_MAX_REQUEST_BODY,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            page_size: DEFAULT_PAGE_SIZE,
            max_page_size: DEFAULT_MAX_PAGE_SIZE,
            tls: None,
            forward: Forwarder {
                timeout: DEFAULT_FORWARD_TIMEOUT,
                max_body: DEFAULT_MAX_FORWARDED_RESPONSE,
                tls: None,
                authorization: None,
            },
            auth: None,
        }
    }
}

/// Serves an application's stores, its health and (feature `prometheus`) its metrics over
/// HTTP. Made with [`QueryServer::new`], given the stores to serve by their generated handles
/// and its limits, then run with [`QueryServer::serve`]. See the [module docs](self).
pub struct QueryServer<T: Topology> {
    queries: Queries<T>,
    routes: Vec<Arc<dyn StoreRoute<T>>>,
    lifecycle: Option<Lifecycle>,
    /// The status page, drawn once.
    status_page: Arc<str>,
    #[cfg(feature = "prometheus")]
    prometheus: Option<PrometheusHandle>,
    settings: Arc<Settings>,
}

impl<T: Topology> std::fmt::Debug for QueryServer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.routes.iter().map(|r| r.name()).collect();
        let s = &self.settings;
        f.debug_struct("QueryServer")
            .field("stores", &names)
            .field("lifecycle", &self.lifecycle.is_some())
            .field("header_read_timeout", &s.header_read_timeout)
            .field("request_timeout", &s.request_timeout)
            .field("idle_timeout", &s.idle_timeout)
            .field("max_connections", &s.max_connections)
            .field("max_request_body", &s.max_request_body)
            .field("max_header_bytes", &s.max_header_bytes)
            .field("page_size", &s.page_size)
            .field("max_page_size", &s.max_page_size)
            .field("forward_timeout", &s.forward.timeout)
            .field("max_forwarded_response", &s.forward.max_body)
            .field("tls", &s.tls.is_some())
            .field("authenticated", &s.auth.is_some())
            .finish_non_exhaustive()
    }
}

impl<T: Topology> Clone for QueryServer<T> {
    fn clone(&self) -> Self {
        QueryServer {
            queries: self.queries.clone(),
            routes: self.routes.clone(),
            lifecycle: self.lifecycle.clone(),
            status_page: Arc::clone(&self.status_page),
            #[cfg(feature = "prometheus")]
            prometheus: self.prometheus.clone(),
            settings: Arc::clone(&self.settings),
        }
    }
}

impl<T: Topology> QueryServer<T> {
    /// A server of no stores yet over `queries` (from `KafkaStreams::queries`), with the
    /// default limits (see the [module docs](self#hardening)).
    pub fn new(queries: Queries<T>) -> Self {
        QueryServer {
            queries,
            routes: Vec::new(),
            lifecycle: None,
            status_page: status::page(T::APPLICATION_ID, T::DESCRIPTION).into(),
            #[cfg(feature = "prometheus")]
            prometheus: None,
            settings: Arc::new(Settings::default()),
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

    /// Serves the session store `store`: a key's sessions (`GET
    /// /stores/{store}/sessions/{key}`) and the sessions of a key range (`all`, `range`).
    pub fn session_store<K, V>(mut self, store: SessionStoreRef<K, V>) -> Self
    where
        K: FromStr + Serialize + 'static,
        V: Serialize + 'static,
    {
        self.routes.push(Arc::new(SessionRoute(store)));
        self
    }

    /// Serves the store of a versioned table `store` (a table made with `.versioned(..)`):
    /// its history by `GET /stores/{store}/versions/{key}` (`?as_of=<ms>`, or
    /// `?from=<ms>&to=<ms>`), and its latest values as [`Self::store`] serves them (`/keys`,
    /// `all`, `range`). A store that is not a versioned table's answers `404` at each read.
    pub fn versioned_store<K, V>(mut self, store: StoreRef<K, V>) -> Self
    where
        K: FromStr + Serialize + 'static,
        V: Serialize + 'static,
    {
        self.routes.push(Arc::new(VersionedRoute(store)));
        self
    }

    /// The instance's lifecycle (from `KafkaStreams::lifecycle`), which `/health/ready` and
    /// `/health/live` answer from. Without it `/health/ready` answers `503` (the server cannot
    /// tell that the instance runs, and a probe must not say ready on a guess).
    pub fn lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.lifecycle = Some(lifecycle);
        self
    }

    /// Serves `GET /metrics` in Prometheus' text format from `handle` (from
    /// [`prometheus_recorder`], or the handle of a recorder the application installed itself).
    #[cfg(feature = "prometheus")]
    pub fn prometheus(mut self, handle: PrometheusHandle) -> Self {
        self.prometheus = Some(handle);
        self
    }

    fn settings(&mut self) -> &mut Settings {
        Arc::make_mut(&mut self.settings)
    }

    /// How long a client may take to send a request head (request line and headers), counted
    /// from its first byte; a slower connection is closed (slow clients, slowloris). Also bounds
    /// the TLS handshake. Default [`DEFAULT_HEADER_READ_TIMEOUT`].
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.settings().header_read_timeout = timeout;
        self
    }

    /// How long answering one request may take once its head arrived (its body, the store
    /// read, forwarding); past it the answer is `503` with `Retry-After`. Default
    /// [`DEFAULT_REQUEST_TIMEOUT`].
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.settings().request_timeout = timeout;
        self
    }

    /// How long a connection may stay open with no request under way and no byte of a next one
    /// (keep-alive); then it is closed. Default [`DEFAULT_IDLE_TIMEOUT`].
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.settings().idle_timeout = timeout;
        self
    }

    /// How many connections may be open at once (at least 1); one more is answered `503` and
    /// closed at once (counted in `dekaf.streams.http.connections.refused`). Default
    /// [`DEFAULT_MAX_CONNECTIONS`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.settings().max_connections = connections.max(1);
        self
    }

    /// The largest request body, in bytes; a larger one is answered `413`. Every route is a
    /// `GET`, so a body is never needed. Default [`DEFAULT_MAX_REQUEST_BODY`].
    pub fn max_request_body(mut self, bytes: usize) -> Self {
        self.settings().max_request_body = bytes;
        self
    }

    /// The largest request head (request line and headers), in bytes; a larger one is answered
    /// `431` and the connection closed. Default [`DEFAULT_MAX_HEADER_BYTES`].
    pub fn max_header_bytes(mut self, bytes: usize) -> Self {
        self.settings().max_header_bytes = bytes;
        self
    }

    /// How long asking another instance may take (connection, TLS, answer). Default
    /// [`DEFAULT_FORWARD_TIMEOUT`].
    pub fn forward_timeout(mut self, timeout: Duration) -> Self {
        self.settings().forward.timeout = timeout;
        self
    }

    /// The largest answer body read from another instance, in bytes; a larger one is dropped
    /// and the client answered `503`. Default [`DEFAULT_MAX_FORWARDED_RESPONSE`].
    pub fn max_forwarded_response(mut self, bytes: usize) -> Self {
        self.settings().forward.max_body = bytes;
        self
    }

    /// The entries of a page of `all` or `range` when the request names no `limit` (at least
    /// 1). Default [`DEFAULT_PAGE_SIZE`].
    pub fn page_size(mut self, entries: usize) -> Self {
        self.settings().page_size = entries.max(1);
        self
    }

    /// The largest `limit` a client may ask of `all` or `range` (at least 1); a larger one is
    /// answered `400`. Default [`DEFAULT_MAX_PAGE_SIZE`].
    pub fn max_page_size(mut self, entries: usize) -> Self {
        self.settings().max_page_size = entries.max(1);
        self
    }

    /// Serves over TLS with `acceptor`, and asks the other instances over TLS with
    /// `connector` (they serve TLS too: every instance of an application is configured
    /// alike). The connector checks a peer's certificate against its `application_server` host
    /// name (or IP address); give it the CA that signed the instances' certificates. For
    /// mutual TLS, make `acceptor` require client certificates and give `connector` this
    /// instance's certificate and key.
    pub fn tls(
        mut self,
        acceptor: openssl::ssl::SslAcceptor,
        connector: openssl::ssl::SslConnector,
    ) -> Self {
        let settings = self.settings();
        settings.tls = Some(acceptor);
        settings.forward.tls = Some(connector);
        self
    }

    /// Requires `Authorization: Bearer <token>` on every route but `/health/*` (answered `401`
    /// without it), and sends it when asking other instances (which must have the same
    /// token). The comparison takes the same time whatever the token sent.
    ///
    /// # Errors
    ///
    /// [`BearerTokenError`] when `token` is empty or not an RFC 6750 token (letters, digits,
    /// `-._~+/`, trailing `=`).
    pub fn bearer_token(mut self, token: &str) -> Result<Self, BearerTokenError> {
        let auth = Auth::bearer(token)?;
        let settings = self.settings();
        settings.forward.authorization = auth.forward.clone();
        settings.auth = Some(auth);
        Ok(self)
    }

    /// Authenticates requests with `check` (given the request's headers; `false` answers
    /// `401`) on every route but `/health/*`, and sends `forward_authorization` as the
    /// `Authorization` header when asking other instances (`None`: no header). For schemes a
    /// bearer token does not cover: signed tokens, several keys, a header of its own.
    pub fn authenticate(
        mut self,
        check: impl Fn(&hyper::HeaderMap) -> bool + Send + Sync + 'static,
        forward_authorization: Option<hyper::header::HeaderValue>,
    ) -> Self {
        let settings = self.settings();
        settings.forward.authorization = forward_authorization.clone();
        settings.auth = Some(Auth::custom(check, forward_authorization));
        self
    }

    /// Answers requests on `listener` until `shutdown` completes (connections under way are
    /// finished in the background). Bind the listener to `127.0.0.1` unless other instances
    /// or a proxy must reach it; see the [module docs](self#hardening).
    ///
    /// # Errors
    ///
    /// None today: a failed `accept()` (out of file descriptors, ...) is logged, counted in
    /// `dekaf.streams.http.accept.errors` and retried after a short backoff (10 ms doubling
    /// to 1 s), and a failed connection is logged. The `Result` is kept for errors a future
    /// version may not survive.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        conn::serve(self, listener, shutdown).await;
        Ok(())
    }
}
