//! [`KafkaStreams`]: a compiled topology running as members of its streams group.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::config::{BuildError, ProcessingGuarantee, StreamsConfig};
use super::context::ThreadContext;
use super::error::StreamsError;
use super::lifecycle::{
    Command, Lifecycle, Shared, State, StateListener, ThreadErrorHandler, ThreadErrorResponse,
};
use super::startup::{self, Globals, StateCleaner};
use super::supervisor::{Supervisor, ThreadTemplate};
use crate::kafka::settings::SettingsError;
use crate::query::registry::Registry;
use crate::query::{HostInfo, KeyQueryMetadata, Queries, QueryError, ReadOnlyKeyValueStore};
use crate::task::{GlobalStores, StoreRef, Topology};

/// A topology that runs on Kafka.
///
/// ```no_run
/// use dekaf_streams::prelude::*;
/// use dekaf_streams::{KafkaStreams, shutdown_signal};
///
/// topology! {
///     /// Upper-cases values.
///     pub Shout = "shout" {
///         stream("in", Utf8, Utf8)
///             .map_values(|v| v.to_uppercase())
///             .to("out", Utf8, Utf8);
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let streams = KafkaStreams::builder(Shout)
///     .bootstrap_servers("localhost:9092")
///     .threads(2)
///     .build()?;
/// streams.run(shutdown_signal()).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct KafkaStreams<T: Topology> {
    config: StreamsConfig,
    /// What the processing threads publish for interactive queries.
    registry: Arc<Registry>,
    /// State, listener, thread-error handler, pause, the supervisor's commands.
    lifecycle: Arc<Shared>,
    /// How long a shutdown waits for the processing threads.
    close_timeout: Duration,
    topology: PhantomData<fn() -> T>,
}

/// Sets up a [`KafkaStreams`]. Made by [`KafkaStreams::builder`].
pub struct Builder<T: Topology> {
    config: StreamsConfig,
    error: Option<SettingsError>,
    state_listener: Option<StateListener>,
    on_thread_error: Option<ThreadErrorHandler>,
    close_timeout: Duration,
    topology: PhantomData<fn() -> T>,
}

impl<T: Topology> std::fmt::Debug for Builder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("config", &self.config)
            .field("error", &self.error)
            .field("state_listener", &self.state_listener.is_some())
            .field("on_thread_error", &self.on_thread_error.is_some())
            .field("close_timeout", &self.close_timeout)
            .finish()
    }
}

impl<T: Topology> KafkaStreams<T> {
    /// Starts setting up `topology` (the type `topology!` defined).
    pub fn builder(topology: T) -> Builder<T> {
        let _ = topology;
        Builder {
            config: StreamsConfig::new(""),
            error: None,
            state_listener: None,
            on_thread_error: None,
            close_timeout: SHUTDOWN_TIMEOUT,
            topology: PhantomData,
        }
    }

    /// The settings it runs with.
    pub fn config(&self) -> &StreamsConfig {
        &self.config
    }

    /// A handle for interactive queries of this application's stores (see [`crate::query`]),
    /// usable from any thread before, while and after it runs. Take it before [`Self::run`],
    /// which consumes the application.
    ///
    /// Queries read committed snapshots of the stores that the processing threads keep in memory
    /// and update after each commit. Only an application that took this handle (or
    /// [`Self::store`]) keeps them: without one, a restored task's store is not copied into
    /// memory, which matters for large stores on disk (LMDB).
    pub fn queries(&self) -> Queries<T> {
        Queries::new(Arc::clone(&self.registry))
    }

    /// A handle on this instance's lifecycle (see [`super::lifecycle`]): its [`State`], adding
    /// and removing threads, pausing and resuming, closing. Take it before [`Self::run`], which
    /// consumes the application; it stays valid after `run` returned.
    pub fn lifecycle(&self) -> Lifecycle {
        Lifecycle::new(Arc::clone(&self.lifecycle))
    }

    /// A read-only view of a key-value store of this instance: `queries().store(..)`.
    ///
    /// # Errors
    ///
    /// [`QueryError::UnknownStore`] when the topology has no such key-value store.
    pub fn store<K, V>(
        &self,
        store: StoreRef<K, V>,
    ) -> Result<ReadOnlyKeyValueStore<K, V>, QueryError> {
        self.queries().store(store)
    }

    /// Which instance hosts `key` of `store`: `queries().metadata_for_key(..)`.
    ///
    /// # Errors
    ///
    /// As [`Queries::metadata_for_key`].
    pub fn metadata_for_key<K, V>(
        &self,
        store: StoreRef<K, V>,
        key: &K,
    ) -> Result<KeyQueryMetadata, QueryError> {
        self.queries().metadata_for_key(store, key)
    }

    /// Runs the application until `shutdown` completes, then commits, closes the tasks and
    /// leaves the group. Returns an error when the application fails: a record for which
    /// `on_error` chose `Fail`, an unretriable produce error, a topology the group refuses, or
    /// brokers that cannot be reached.
    ///
    /// Each processing thread is an OS thread running one streams-group member; the member's
    /// heartbeat and admin calls run on the tokio runtime that polls this future.
    ///
    /// Its progress shows in the instance's [`State`] (see [`Self::lifecycle`]): `Rebalancing`
    /// from the start, `Running` once every thread runs its tasks, `PendingShutdown` then
    /// `NotRunning` after a shutdown, `PendingError` then `Error` after a fatal error.
    pub async fn run<S: Future<Output = ()>>(self, shutdown: S) -> Result<(), StreamsError> {
        let lifecycle = Arc::clone(&self.lifecycle);
        let commands = lifecycle.open_commands();
        lifecycle.set_state(State::Rebalancing);
        // The shutdown future, or `Lifecycle::close`.
        let close = Arc::clone(&lifecycle);
        let shutdown = async move {
            tokio::select! {
                () = shutdown => {}
                () = close.closed() => {}
            }
        };
        let result = self.start(shutdown, commands).await;
        lifecycle.close_commands();
        let end = match (lifecycle.state(), &result) {
            (State::PendingShutdown, _) | (_, Ok(())) => {
                [State::PendingShutdown, State::NotRunning]
            }
            (_, Err(_)) => [State::PendingError, State::Error],
        };
        for state in end {
            lifecycle.set_state(state);
        }
        result
    }

    /// [`Self::run`] from the start to the threads' end: the steps before the threads
    /// ([`startup`]), then the threads under their supervisor until they end.
    async fn start<S: Future<Output = ()>>(
        self,
        shutdown: S,
        commands: tokio::sync::mpsc::UnboundedReceiver<Command>,
    ) -> Result<(), StreamsError> {
        let config = &self.config;
        let security = config.settings.connection_security()?;
        let bootstrap = config.settings.bootstrap_servers();
        crate::group::check_credentials(bootstrap, T::APPLICATION_ID, &security).await?;
        let state = startup::open_state_dir::<T>(config).await?;
        let process_id = state
            .as_ref()
            .map_or_else(uuid::Uuid::new_v4, |s| s.process_id());
        let _cleaner = state
            .clone()
            .map(|s| StateCleaner::start(s, config.state_cleanup_delay));
        tokio::pin!(shutdown);
        if !startup::await_cluster::<T, _>(config, security, shutdown.as_mut()).await? {
            return Ok(());
        }
        if !startup::check_serdes::<T, _>(config, shutdown.as_mut()).await? {
            return Ok(());
        }
        // The global tables are complete before any task processes a record. Their stores are
        // the registry's, so queries read what the tasks join with; a restarted run reads them
        // again from empty.
        let globals = self.registry.globals.clone();
        self.registry.set_globals_ready(false);
        for (_, store) in globals.iter() {
            store.clear();
        }
        let stop = Arc::new(AtomicBool::new(false));
        // Completes if the global thread fails while the processing threads run.
        let (global_failed_tx, global_failed) = tokio::sync::oneshot::channel();
        let global_thread = match startup::start_globals::<T, _>(
            config,
            &globals,
            &stop,
            global_failed_tx,
            shutdown.as_mut(),
        )
        .await?
        {
            Globals::Running(thread) => thread,
            Globals::Stopped => return Ok(()),
        };
        self.registry.set_globals_ready(true);
        self.lifecycle.globals_running();
        let (admin, log_ends) = match startup::shared_clients::<T>(config).await {
            Ok(clients) => clients,
            Err(e) => {
                let _ = startup::stop_globals(global_thread, &stop).await;
                return Err(e);
            }
        };
        if let Err(e) = startup::check_chosen_topics::<T>(&admin).await {
            let _ = startup::stop_globals(global_thread, &stop).await;
            return Err(e);
        }
        let threads = config.threads;
        tracing::info!(application_id = T::APPLICATION_ID, %process_id, threads, "starting");
        let template = ThreadTemplate {
            ctx: ThreadContext {
                index: 0,
                generation: 0,
                live_threads: threads,
                lifecycle: Arc::clone(&self.lifecycle),
                config: config.clone(),
                process_id,
                handle: tokio::runtime::Handle::current(),
                stop: Arc::new(AtomicBool::new(false)),
                state,
                queries: Arc::clone(&self.registry),
                globals,
                admin,
                log_ends,
            },
            state_root: config.state_dir.clone(),
        };
        let supervisor =
            Supervisor::<T>::new(template, Arc::clone(&self.lifecycle), self.close_timeout);
        let mut first_error = supervisor
            .run(threads, shutdown, commands, global_failed)
            .await;
        // The processing threads are done (or the global thread failed and they stopped): the
        // global thread stops too, and its error, if any, is the application's.
        if let Err(e) = startup::stop_globals(global_thread, &stop).await {
            first_error.get_or_insert(e);
        }
        match first_error {
            Some(e) => Err(e),
            None => {
                tracing::info!("stopped");
                Ok(())
            }
        }
    }
}

/// How long [`KafkaStreams::run`] waits for its processing threads after the shutdown future
/// completes, unless [`Builder::close_timeout`] says otherwise. The threads give up their own waits within
/// [`STOPPING_GRACE`](crate::kafka::producer::STOPPING_GRACE) and leave the group within a few
/// seconds; a thread still blocked after this long is abandoned (like Kafka Streams'
/// `close(timeout)`), so a shutdown always ends, even while every broker is down.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(20);

impl<T: Topology> Builder<T> {
    /// The brokers to bootstrap from (`host:port[,host:port]`). Required.
    pub fn bootstrap_servers(mut self, servers: impl Into<String>) -> Self {
        let servers = servers.into();
        if let Err(e) = self.config.settings.set("bootstrap.servers", servers) {
            self.error.get_or_insert(e);
        }
        self
    }

    /// Processing threads of this instance; each is one member of the streams group (1 by
    /// default).
    pub fn threads(mut self, threads: usize) -> Self {
        self.config.threads = threads;
        self
    }

    /// Exactly-once (the default) or at-least-once.
    pub fn processing_guarantee(mut self, guarantee: ProcessingGuarantee) -> Self {
        self.config.guarantee = guarantee;
        self
    }

    /// How often output, state and offsets commit (100 ms by default).
    pub fn commit_interval(mut self, interval: Duration) -> Self {
        self.config.commit_interval = interval;
        self
    }

    /// How soon after its last commit a thread that has processed everything it fetched
    /// commits, rather than waiting out the [`commit_interval`](Self::commit_interval) (10 ms by
    /// default).
    ///
    /// Under exactly-once a record's output becomes visible only when its transaction commits,
    /// and a record that crosses a repartition topic waits for two commits: with commits only
    /// every `commit_interval`, that is up to two intervals (Kafka Streams' behaviour: about
    /// 250 ms of p99 latency at its 100 ms default). A thread that has caught up with its input
    /// has nothing to gain from waiting, so when its fetched queue is empty and it is not busy
    /// (at most 1,000 records per `commit_interval`, pro rata, since the start of its last
    /// commit), it commits once this much has passed since that commit. A busy thread (a backlog) commits every
    /// `commit_interval` as before: there, more commits would only cost more records (each
    /// record cache flush and changelog writes one record per changed key). The cost is more, smaller transactions (or
    /// offset commits) when the input is slow: up to one per `idle_commit_interval` plus the
    /// commit's own time. A value of `commit_interval` or more commits only every
    /// `commit_interval`, as Kafka Streams does.
    pub fn idle_commit_interval(mut self, interval: Duration) -> Self {
        self.config.idle_commit_interval = interval;
        self
    }

    /// How long the broker waits before aborting the open transaction of an instance that
    /// crashed (10 s by default).
    pub fn transaction_timeout(mut self, timeout: Duration) -> Self {
        self.config.transaction_timeout = timeout;
        self
    }

    /// How long the coordinator waits for this instance to release tasks it must give up before
    /// fencing it (30 s by default, [`DEFAULT_REBALANCE_TIMEOUT`](crate::DEFAULT_REBALANCE_TIMEOUT);
    /// Kafka Streams uses its `max.poll.interval.ms`, 300 s).
    pub fn rebalance_timeout(mut self, timeout: Duration) -> Self {
        self.config.rebalance_timeout = timeout;
        self
    }

    /// How long a processing thread may stay away from its loop before its member leaves the
    /// group: Kafka's `max.poll.interval.ms`, 300 s by default.
    ///
    /// Each thread's group member heartbeats from a task of its own, so a thread stuck in user
    /// code (a closure that blocks) would otherwise keep its tasks forever. When a thread has not
    /// come back to its loop for this long, its member leaves the group (as Kafka's consumer does
    /// when `max.poll.interval.ms` expires) and the coordinator gives its tasks to other
    /// members; an error names the thread and how long it was stuck, and the metric
    /// `dekaf.streams.poll.interval.exceeded` (label `thread`) counts it. When the thread comes
    /// back it drops its tasks without committing (its open transaction is aborted: the new
    /// owner redoes that work) and rejoins. Restores and the runtime's own waits for a
    /// restarting broker count as being in the loop.
    ///
    /// Well before that, once a thread has been away for a fifth of this interval, its member
    /// warns (once per absence) with what the thread was last doing (processing records,
    /// committing, taking on tasks, ...), and `dekaf.streams.poll.absence.warnings` (label
    /// `thread`) counts it: a thread stuck anywhere shows while it is stuck.
    pub fn max_poll_interval(mut self, interval: Duration) -> Self {
        self.config.max_poll_interval = interval;
        self
    }

    /// Gives this instance's serdes the state `state`: built once by the application (a schema
    /// registry client with its URL, credentials and caches), shared by every processing
    /// thread of this instance and by no other instance. A serde reaches it with
    /// [`with_state`](crate::serdes::with_state); see [`SerdeStates`](crate::serdes::SerdeStates)
    /// for the design. One state per type: a second of the same type replaces the first.
    pub fn serde_state<S: Send + Sync + 'static>(mut self, state: S) -> Self {
        self.config.serde_states = std::mem::take(&mut self.config.serde_states).with(state);
        self
    }

    /// Keeps every store on disk, in LMDB, under `<dir>/<application id>/` (see
    /// [`crate::state_dir`]): state may be larger than memory, and a restart after a clean
    /// shutdown restores only what the changelogs gained since. By default stores live in
    /// memory and are rebuilt from their changelogs whenever a task starts.
    ///
    /// One running instance per directory: a second instance started on the same directory
    /// fails with an error naming the first. The instance's process id is kept there too, so
    /// a restarted instance fences its predecessor's open transactions at once instead of
    /// waiting for the transaction timeout.
    pub fn state_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.config.state_dir = Some(dir.into());
        self
    }

    /// How long the directory of a task this instance no longer runs stays in the state
    /// directory before it is deleted, and how often that is checked: 10 minutes by default
    /// (Kafka Streams' `state.cleanup.delay.ms`). A directory is never deleted while a thread
    /// of this instance holds its task. Keeping it for a while lets a task that comes back
    /// soon (a rolling restart elsewhere in the group) restore only what it missed.
    pub fn state_cleanup_delay(mut self, delay: Duration) -> Self {
        self.config.state_cleanup_delay = delay;
        self
    }

    /// The record cache of this instance in bytes: 10 MiB by default (Kafka Streams'
    /// `statestore.cache.max.bytes`); 0 forwards every update of every aggregation and table.
    ///
    /// With a cache, a `count`, `reduce` or `aggregate` forwards its result for a key only when
    /// the cache is flushed: at every commit, or when it is full. So a key updated many times in
    /// one commit interval produces one output record, with its latest value and the timestamp
    /// of its last update (no headers). A table read from a topic (`table(..)`, whose store is
    /// named, as a Kafka Streams table with `Materialized.as`), `to_table(..)` and a re-grouped
    /// table's aggregation do the same: their downstream operators (joins, foreign-key joins,
    /// re-groupings, `to_stream()`) see one change per key and flush, from the key's value at
    /// the previous flush to its latest one. `with_caching_disabled()` turns it off per store. The budget is split evenly over the processing threads
    /// and, within a thread, evenly over its tasks (recomputed whenever its tasks change); a
    /// task whose dirty keys count more than its share flushes at once. Stores, changelogs,
    /// lookups in a store (a stream-table join) and queries always see every update. See [`Task::flush_cache`](crate::task::Task::flush_cache).
    pub fn cache_max_bytes(mut self, bytes: usize) -> Self {
        self.config.cache_max_bytes = bytes;
        self
    }

    /// The replication factor of every internal topic (repartition and changelog) the group
    /// coordinator creates: -1 by default, the broker's `default.replication.factor` (Kafka
    /// Streams' `replication.factor`). The coordinator compares a joining member's topology
    /// with the group's field by field, so an application taking over a Kafka Streams
    /// application's group must set what that application set.
    pub fn replication_factor(mut self, replicas: i16) -> Self {
        self.config.internal_topics.replication_factor = replicas;
        self
    }

    /// A config of every internal topic (repartition and changelog): Kafka Streams'
    /// `topic.`-prefixed configs, named here without the prefix
    /// (`internal_topic_config("min.insync.replicas", "2")` is Kafka Streams'
    /// `topic.min.insync.replicas=2`). A store's own configs (`with_logging_enabled([..])` in
    /// the topology) override it, and it overrides Kafka Streams' own defaults (a changelog's
    /// `cleanup.policy=compact`, ...), except a window store changelog's `retention.ms`, which
    /// follows the store's retention. [`build`](Self::build) refuses a name that is no topic
    /// config of Kafka 4.4. As with the replication factor, a takeover of a Kafka Streams
    /// application must declare the same configs.
    pub fn internal_topic_config(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.config
            .internal_topics
            .configs
            .insert(name.into(), value.into());
        self
    }

    /// How much longer than its store a window store's changelog keeps records (its
    /// `retention.ms` is the store's retention plus this): one day by default, as Kafka
    /// Streams' `windowstore.changelog.additional.retention.ms`.
    pub fn window_changelog_additional_retention(mut self, extra: Duration) -> Self {
        self.config
            .internal_topics
            .window_changelog_additional_retention_ms =
            i64::try_from(extra.as_millis()).unwrap_or(i64::MAX);
        self
    }

    /// Makes every thread of this instance a static member of the streams group (KIP-1071,
    /// Kafka's `group.instance.id`): thread `i` (counting from 1) joins as `<id>-<i>`, as Kafka
    /// Streams suffixes its threads' instance ids. On shutdown a static member leaves with epoch
    /// -2 instead of -1: the coordinator keeps its tasks for the session timeout
    /// (`group.streams.session.timeout.ms`), and an instance restarted with the same id within
    /// it gets exactly those tasks back while no other instance's tasks move. Give every
    /// instance its own id, and the same id again when it restarts.
    pub fn group_instance_id(mut self, id: impl Into<String>) -> Self {
        self.config.group_instance_id = Some(id.into());
        self
    }

    /// The `host:port` at which this instance answers interactive queries (Kafka Streams'
    /// `application.server`). Every processing thread sends it to the group coordinator as its
    /// member's user endpoint (KIP-1071); the coordinator tells every member which endpoint hosts
    /// which partitions, so [`Queries::metadata_for_key`] can name the instance that hosts a
    /// key. Give the address other instances reach this one at; the `http` feature's server
    /// listens there. Not set by default.
    pub fn application_server(mut self, host_port: impl Into<String>) -> Self {
        self.config.application_server = Some(host_port.into());
        self
    }

    /// Sets a librdkafka property on every client (TLS, SASL, tuning such as `linger.ms`).
    /// Properties the guarantees depend on (`isolation.level`, `transactional.id`, …) are
    /// refused by [`build`](Self::build). `security.protocol`, `ssl.*` and `sasl.*` also
    /// configure the group member's own coordinator connection (see [`crate::security`]); one
    /// it cannot honour (GSSAPI, PKCS#12 keystores, OIDC, …) is refused by `build`, naming it.
    pub fn property(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Err(e) = self.config.settings.set(key, value) {
            self.error.get_or_insert(e);
        }
        self
    }

    /// Sets the OAUTHBEARER token provider (with `security.protocol=SASL_SSL` and
    /// `sasl.mechanism=OAUTHBEARER`) used by every client: librdkafka's consumers, producers and
    /// admin clients ask it through their token refresh callback (at 80% of a token's
    /// lifetime), and the coordinator connection asks it for each authentication and
    /// re-authenticates before the broker's session or the token ends. Return an error string
    /// (without secrets) when no token can be had.
    ///
    /// The provider may block (an HTTP call to an identity provider): it runs on a thread of
    /// its own, never on a tokio worker, and a call may take up to
    /// [`TOKEN_PROVIDER_TIMEOUT`](crate::security::TOKEN_PROVIDER_TIMEOUT). A failed call is
    /// logged as a warning and retried with backoff while every client keeps using the current
    /// token as long as it is valid; the application stops only when no valid token is left and
    /// calls kept failing for [`TOKEN_PROVIDER_GIVE_UP`](crate::security::TOKEN_PROVIDER_GIVE_UP).
    ///
    /// ```no_run
    /// # use dekaf_streams::security::OAuthToken;
    /// # fn fetch_token_from_idp() -> String { String::new() }
    /// # fn demo<T: dekaf_streams::task::Topology>(b: dekaf_streams::Builder<T>) -> dekaf_streams::Builder<T> {
    /// b.property("security.protocol", "SASL_SSL")
    ///     .property("sasl.mechanism", "OAUTHBEARER")
    ///     .oauth_token_provider(|| {
    ///         Ok(OAuthToken::new(fetch_token_from_idp(), "my-service", std::time::Duration::from_secs(300)))
    ///     })
    /// # }
    /// ```
    pub fn oauth_token_provider(
        mut self,
        provide: impl Fn() -> Result<crate::security::OAuthToken, String> + Send + Sync + 'static,
    ) -> Self {
        self.config
            .settings
            .set_oauth_token_provider(crate::security::OAuthTokenProvider::new(provide));
        self
    }

    /// Called with the old and the new [`State`] at every change of the instance's state
    /// (Kafka Streams' `setStateListener`), on the thread that made the change: keep it short
    /// and do not block in it. [`Lifecycle::state_changes`] is the `async` alternative.
    pub fn on_state_change(
        mut self,
        listener: impl Fn(State, State) + Send + Sync + 'static,
    ) -> Self {
        self.state_listener = Some(Box::new(listener));
        self
    }

    /// Decides what happens when a processing thread fails (Kafka Streams'
    /// `setUncaughtExceptionHandler`): replace the thread, stop this instance (the default), or
    /// stop every instance of the application. See [`super::lifecycle`].
    pub fn on_thread_error(
        mut self,
        handler: impl Fn(&StreamsError) -> ThreadErrorResponse + Send + Sync + 'static,
    ) -> Self {
        self.on_thread_error = Some(Box::new(handler));
        self
    }

    /// How long a shutdown waits for the processing threads to commit, close their tasks and
    /// leave the group before it abandons them ([`SHUTDOWN_TIMEOUT`], 20 s, by default): Kafka
    /// Streams' `close(timeout)`.
    pub fn close_timeout(mut self, timeout: Duration) -> Self {
        self.close_timeout = timeout;
        self
    }

    /// Checks the settings and makes the application.
    pub fn build(self) -> Result<KafkaStreams<T>, BuildError> {
        if let Some(e) = self.error {
            return Err(e.into());
        }
        self.config.validate()?;
        let endpoint = self
            .config
            .application_server
            .as_deref()
            .and_then(HostInfo::parse);
        Ok(KafkaStreams {
            registry: Arc::new(Registry::new(
                T::INFO,
                endpoint,
                GlobalStores::new(T::GLOBAL_TABLES),
            )),
            lifecycle: Arc::new(Shared::new(
                T::APPLICATION_ID,
                self.state_listener,
                self.on_thread_error,
            )),
            close_timeout: self.close_timeout,
            config: self.config,
            topology: PhantomData,
        })
    }
}
