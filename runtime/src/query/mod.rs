//! Interactive queries: read a running application's state stores, on this instance or
//! wherever a key lives (Kafka Streams' `KafkaStreams#store` and `queryMetadataForKey`).
//!
//! ```no_run
//! # use dekaf_streams::prelude::*;
//! # topology! { pub WordCount = "word-count" {
//! #     stream("sentences", Utf8, Utf8)
//! #         .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
//! #         .group_by(|_key, word| word.clone(), Utf8, Utf8)
//! #         .count("counts").to_stream().to("word-counts", Utf8, I64);
//! # } }
//! # #[cfg(feature = "kafka")] // the Kafka runtime; without it, see `testing::TestDriver`
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! # use dekaf_streams::KafkaStreams;
//! let streams = KafkaStreams::builder(WordCount)
//!     .bootstrap_servers("localhost:9092")
//!     .application_server("10.0.0.5:8080")
//!     .build()?;
//! let queries = streams.queries(); // before `run`, which takes the application
//! tokio::spawn(streams.run(std::future::pending()));
//! // ... later, from any thread:
//! let counts = queries.store(WordCount::COUNTS)?;
//! match counts.get(&"kafka".to_owned()) {
//!     Ok(count) => println!("kafka: {count:?}"),
//!     Err(e) if e.is_retriable() => {
//!         // Hosted elsewhere (ask `queries.metadata_for_key`), restoring, or moving: retry.
//!     }
//!     Err(e) => return Err(e.into()),
//! }
//! # Ok(()) }
//! ```
//!
//! # What a read sees
//!
//! **The state of the key's task as of that task's last successful commit**: under exactly-once
//! the state its last committed transaction made durable, under at-least-once the state as of its
//! last committed offsets. A read never sees part of a commit interval, nor the work of an
//! interval that was aborted and redone. So a read may lag processing by up to one commit
//! interval (100 ms by default). (Kafka Streams reads the live store, uncommitted writes
//! included, and refuses all stores of a thread while it rebalances; here a task that keeps
//! running through a rebalance stays readable.)
//!
//! A key whose task is not an active task of this instance is refused with
//! [`QueryError::NotLocal`], one whose task still restores with [`QueryError::Restoring`]: never
//! answered with a missing or stale value. A task that is revoked stops answering when it is
//! closed; a task assigned here answers once its restore is done.
//!
//! # Stale stores: reading standby replicas
//!
//! By default only active tasks answer. A caller that accepts stale data opts in per view,
//! as with Kafka Streams' `StoreQueryParameters.enableStaleStores()`:
//!
//! ```no_run
//! # use dekaf_streams::prelude::*;
//! # use dekaf_streams::query::{Queries, QueryError, Replica};
//! # topology! { pub WordCount = "word-count" {
//! #     stream("sentences", Utf8, Utf8)
//! #         .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
//! #         .group_by(|_key, word| word.clone(), Utf8, Utf8)
//! #         .count("counts").to_stream().to("word-counts", Utf8, I64);
//! # } }
//! # fn demo(queries: Queries<WordCount>) -> Result<(), QueryError> {
//! let counts = queries.store(WordCount::COUNTS)?.enable_stale_stores();
//! let (count, replica) = counts.get_with_replica(&"kafka".to_owned())?;
//! if let Replica::Standby { lag } = replica {
//!     println!("from a standby, {lag:?} changelog records behind");
//! }
//! # let _ = count;
//! # Ok(()) }
//! ```
//!
//! Such a view answers a key from the active task when it is ready here, else from this
//! instance's **standby replica** of the key's task (standbys are kept when the group's
//! `streams.num.standby.replicas` is above 0: `group::set_standby_replicas`), else refuses as before
//! ([`QueryError::Restoring`], or [`QueryError::NotLocal`] when the instance keeps neither).
//! A standby's copy is the state of the changelog records it applied (committed ones only under
//! exactly-once), published after each round of standby updates; it may lag behind the active
//! task, by the [`Replica::Standby`] `lag` the answer carries (changelog records not applied
//! yet, as of the standby's last look at the changelog ends, about every 2 s). A standby that
//! is promoted keeps answering stale reads while its active task restores the rest. Kafka
//! Streams also lets a stale query read an active task mid-restore; here a restoring task has
//! no published state, so that read is refused unless a standby copy answers. Standby copies,
//! like the active snapshots, are kept only by an application that made a query handle.
//!
//! # How, and what it costs
//!
//! Each task's stores are published, at the end of each successful commit, as a persistent
//! ordered map of key bytes to value bytes ([`imbl::OrdMap`]): the commit applies the changelog
//! records it just made durable (one per changed key: the changelog buffer already keeps
//! exactly these) and swaps the new version in under a lock held for that swap. A reader takes a
//! version (an `Arc` clone under a read lock) and reads it lock-free; an iterator keeps its
//! version, so a long scan neither blocks nor sees later commits. The processing path per
//! record is untouched: no lock, no allocation, no extra copy; the cost is paid per changed key
//! per commit (O(log n) with copy-on-write of the touched tree nodes) and one whole-store copy
//! when a task finishes restoring.
//!
//! The trade-off is memory: the published state is a second copy of each store, in memory, also
//! for LMDB stores (reading LMDB directly would need LMDB's own write transactions to line up
//! with commits, which a store that flushes on its own when its pending changes grow does not
//! guarantee). A table read straight from its source topic writes no changelog records, so its
//! store is republished whole at each commit that processed records of its task.
//!
//! # Remote
//!
//! With [`Builder::application_server`](crate::Builder::application_server) each member sends
//! the instance's endpoint in its heartbeats, and [`Queries::metadata_for_key`] names the
//! instance hosting a key; see [`metadata`]. The `http` feature serves all this over HTTP,
//! forwarding to the owner: see `dekaf_streams::http`.

mod error;
pub mod metadata;
pub(crate) mod registry;
pub mod session;
mod versioned;
mod view;

use std::marker::PhantomData;
use std::sync::Arc;

pub use error::QueryError;
pub use metadata::{HostInfo, KeyQueryMetadata};
pub use session::{ReadOnlySessionStore, SessionIter};
pub use versioned::ReadOnlyVersionedKeyValueStore;
pub use view::{KeyValueIter, ReadOnlyKeyValueStore, ReadOnlyWindowStore, Replica, WindowIter};

use crate::task::{SessionStoreRef, StoreRef, Topology, WindowStoreRef};
use crate::topology::StoreKind;
use registry::Registry;

/// One version of a key of a versioned table (Kafka Streams' `VersionedRecord`): what a read as
/// of a time answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionedRecord<V> {
    /// The key's value in this version.
    pub value: V,
    /// When the version began: the timestamp of the record that put it.
    pub timestamp: i64,
    /// When the next version replaced it; `None` while it is the latest.
    pub valid_to: Option<i64>,
}

/// A handle for querying the stores of a running application, from any thread. Cloning it is
/// cheap; every clone sees the same application. Made by `KafkaStreams::queries` (before `run`
/// takes the application).
pub struct Queries<T: Topology> {
    pub(crate) registry: Arc<Registry>,
    topology: PhantomData<fn() -> T>,
}

impl<T: Topology> Clone for Queries<T> {
    fn clone(&self) -> Self {
        Queries {
            registry: Arc::clone(&self.registry),
            topology: PhantomData,
        }
    }
}

impl<T: Topology> std::fmt::Debug for Queries<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Queries({})", T::APPLICATION_ID)
    }
}

impl<T: Topology> Queries<T> {
    /// A handle over `registry`.
    #[cfg_attr(not(feature = "kafka"), allow(dead_code))]
    pub(crate) fn new(registry: Arc<Registry>) -> Self {
        // From now on the processing threads publish their stores for this handle.
        registry.mark_queried();
        Queries {
            registry,
            topology: PhantomData,
        }
    }

    /// A read-only view of the key-value store `store` (a generated handle,
    /// `WordCount::COUNTS`), or of a global table's store (every key on every instance).
    ///
    /// # Errors
    ///
    /// [`QueryError::UnknownStore`] when the topology has no key-value store of that name.
    pub fn store<K, V>(
        &self,
        store: StoreRef<K, V>,
    ) -> Result<ReadOnlyKeyValueStore<K, V>, QueryError> {
        if self.registry.global(store.name).is_some() {
            return Ok(ReadOnlyKeyValueStore {
                registry: Arc::clone(&self.registry),
                handle: store,
                stale: false,
            });
        }
        self.check(store.name, "key-value", |k| {
            matches!(k, StoreKind::KeyValue | StoreKind::TimestampedKeyValue)
        })?;
        Ok(ReadOnlyKeyValueStore {
            registry: Arc::clone(&self.registry),
            handle: store,
            stale: false,
        })
    }

    /// A read-only view of the store of a versioned table (`table(..)` or `to_table(..)` with
    /// `.versioned(..)`, a generated handle): its values as of a time and its versions (Kafka
    /// Streams' `VersionedKeyQuery` and `MultiVersionedKeyQuery`). Its latest values can also
    /// be read with [`Self::store`].
    ///
    /// # Errors
    ///
    /// [`QueryError::UnknownStore`] when the topology has no key-value store of that name; a
    /// store that is not versioned is refused with it at the first read.
    pub fn versioned_store<K, V>(
        &self,
        store: StoreRef<K, V>,
    ) -> Result<ReadOnlyVersionedKeyValueStore<K, V>, QueryError> {
        self.check(store.name, "versioned key-value", |k| {
            matches!(k, StoreKind::TimestampedKeyValue)
        })?;
        Ok(ReadOnlyVersionedKeyValueStore {
            registry: Arc::clone(&self.registry),
            handle: store,
        })
    }

    /// A read-only view of the window store `store` (a generated handle, `PageViews::VIEWS`).
    ///
    /// # Errors
    ///
    /// [`QueryError::UnknownStore`] when the topology has no window store of that name.
    pub fn window_store<K, V>(
        &self,
        store: WindowStoreRef<K, V>,
    ) -> Result<ReadOnlyWindowStore<K, V>, QueryError> {
        self.check(store.name, "window", |k| {
            matches!(k, StoreKind::Window { .. } | StoreKind::Sliding { .. })
        })?;
        Ok(ReadOnlyWindowStore {
            registry: Arc::clone(&self.registry),
            handle: store,
            stale: false,
        })
    }

    /// A read-only view of the session store `store` (a generated handle,
    /// `Activity::CLICKS_PER_SESSION`); see [`session`] for its reads.
    ///
    /// # Errors
    ///
    /// [`QueryError::UnknownStore`] when the topology has no session store of that name.
    pub fn session_store<K, V>(
        &self,
        store: SessionStoreRef<K, V>,
    ) -> Result<ReadOnlySessionStore<K, V>, QueryError> {
        self.check(store.name, "session", |k| {
            matches!(k, StoreKind::Session { .. })
        })?;
        Ok(ReadOnlySessionStore {
            registry: Arc::clone(&self.registry),
            handle: store,
            stale: false,
        })
    }

    fn check(
        &self,
        name: &str,
        kind: &'static str,
        ok: impl Fn(&StoreKind) -> bool,
    ) -> Result<(), QueryError> {
        match self.registry.store(name) {
            Some((_, info)) if ok(&info.kind) => Ok(()),
            _ => Err(QueryError::UnknownStore {
                store: name.to_owned(),
                kind,
            }),
        }
    }

    /// Which instance hosts `key` of `store` (Kafka Streams' `queryMetadataForKey`): the key's
    /// partition by the producer's partitioner (murmur2 of the key serialized with the store's
    /// key serde), and the `application_server` of the member whose active task reads that
    /// partition, with those of its standbys, as the group coordinator last reported them.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotRunning`] before the application learned the partition count,
    /// [`QueryError::NotAvailable`] while no member with an endpoint owns the partition (a
    /// rebalance, or no `application_server` set), [`QueryError::UnknownStore`],
    /// [`QueryError::Serde`].
    pub fn metadata_for_key<K, V>(
        &self,
        store: StoreRef<K, V>,
        key: &K,
    ) -> Result<KeyQueryMetadata, QueryError> {
        let mut bytes = Vec::new();
        (store.key_ser)(key, &mut bytes)?;
        self.metadata_for_key_bytes(store.name, &bytes)
    }

    /// [`Self::metadata_for_key`] for a window store.
    pub fn metadata_for_window_key<K, V>(
        &self,
        store: WindowStoreRef<K, V>,
        key: &K,
    ) -> Result<KeyQueryMetadata, QueryError> {
        let mut bytes = Vec::new();
        (store.key_ser)(key, &mut bytes)?;
        self.metadata_for_key_bytes(store.name, &bytes)
    }

    /// [`Self::metadata_for_key`] for a session store.
    pub fn metadata_for_session_key<K, V>(
        &self,
        store: SessionStoreRef<K, V>,
        key: &K,
    ) -> Result<KeyQueryMetadata, QueryError> {
        let mut bytes = Vec::new();
        (store.key_ser)(key, &mut bytes)?;
        self.metadata_for_key_bytes(store.name, &bytes)
    }

    /// [`Self::metadata_for_key`] for a serialized key.
    pub fn metadata_for_key_bytes(
        &self,
        store: &str,
        key: &[u8],
    ) -> Result<KeyQueryMetadata, QueryError> {
        let (sub, info) = self
            .registry
            .store(store)
            .ok_or_else(|| QueryError::UnknownStore {
                store: store.to_owned(),
                kind: "key-value, window or session",
            })?;
        let partitions =
            self.registry
                .partitions(sub.id)
                .ok_or_else(|| QueryError::NotRunning {
                    store: info.name.to_owned(),
                })?;
        let partition = view::partition_of(key, partitions);
        let mut topics: Vec<&str> = sub.source_topics.to_vec();
        topics.extend(sub.repartition_source_topics.iter().map(|t| t.name));
        let (active, standbys) = self
            .registry
            .with_endpoints(|e| e.owners(&topics, partition));
        match active {
            Some(active) => Ok(KeyQueryMetadata {
                active,
                standbys,
                partition,
            }),
            None => Err(QueryError::NotAvailable {
                store: info.name.to_owned(),
                partition,
            }),
        }
    }

    /// The `application_server` of every instance of the group, as last reported (Kafka
    /// Streams' `metadataForAllStreamsClients`, reduced to the endpoints).
    pub fn all_hosts(&self) -> Vec<HostInfo> {
        self.registry.with_endpoints(|e| e.hosts())
    }

    /// This instance's `application_server`, if set.
    pub fn this_host(&self) -> Option<&HostInfo> {
        self.registry.self_endpoint.as_ref()
    }
}

#[cfg(test)]
pub(crate) mod tests;
