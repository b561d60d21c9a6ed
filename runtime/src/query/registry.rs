//! What the processing threads publish for queries, and the thread's side that publishes it.
//!
//! The [`Registry`] is shared (an `Arc`) by the application's handle, every [`Queries`] handle
//! and every processing thread. It holds, per (store, partition) this instance hosts, either
//! "restoring" or the store's **committed snapshot**: a persistent ordered map
//! ([`imbl::OrdMap`]) of key bytes to value bytes. A reader clones the snapshot (an `Arc`
//! increment) under a read lock held for that clone only, then reads without any lock.
//!
//! A processing thread never touches the registry per record. At the end of each successful
//! commit its [`Publisher`] applies the changelog records that commit made durable (the changelog
//! buffer's one latest record per key) to its copy of the snapshot (copy-on-write: only the tree
//! nodes on the changed keys' paths are copied when a reader still holds the old version) and
//! swaps the new version in. A task that restores publishes its whole store once, when the
//! restore is done.
//!
//! Only an application whose queries can be asked keeps snapshots: [`KafkaStreams::queries`]
//! (the only way to a [`Queries`] handle, taken before the application runs) marks the registry
//! as queried. Without that mark the publisher does nothing: a restored task's whole store is not
//! copied into memory (with a million keys on LMDB that copy took most of a restart's
//! 1.8 s before the first record, and held the state in memory a second time), and commits
//! skip the snapshot updates.
//!
//! [`KafkaStreams::queries`]: crate::KafkaStreams::queries
//! [`Queries`]: super::Queries

// Without the `kafka` feature nothing runs tasks, so nothing publishes.
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use bytes::Bytes;

use super::metadata::{Endpoints, HostInfo};
use crate::protocol::heartbeat::EndpointToPartitions;
use crate::store::{StoreBackend, StoreError};
use crate::table::global::{GlobalStore, GlobalStores};
use crate::topology::{StoreInfo, StoreKind, SubtopologyInfo, TopologyInfo};

/// A store's state as of a commit: key bytes to value bytes, ordered by key bytes.
pub(crate) type Snapshot = imbl::OrdMap<Bytes, Bytes>;

/// What one (store, partition) of this instance can answer.
#[derive(Clone)]
pub(crate) enum Hosted {
    /// The task is assigned here and restores its state.
    Restoring,
    /// The task runs here; this is its state as of its last commit.
    Ready(Snapshot),
}

/// A versioned table's state as of a commit (one partition): every version of every key it
/// keeps, latest included, keyed by the key bytes and then the version's timestamp
/// ([`versioned_key`]), valued `[1] ‖ value` or `[0]` for a tombstone; with the table's observed
/// stream time and history retention (which decide how far back a read reaches).
#[derive(Clone)]
pub(crate) struct VersionedSnapshot {
    pub(crate) versions: Snapshot,
    pub(crate) observed: i64,
    pub(crate) retention: i64,
}

/// The key of one version in a [`VersionedSnapshot`]: the key bytes, then the timestamp as 8
/// bytes big-endian with the sign bit flipped (so the versions of one key sort by time).
pub(crate) fn versioned_key(out: &mut Vec<u8>, key: &[u8], timestamp: i64) {
    out.clear();
    out.extend_from_slice(key);
    out.extend_from_slice(&((timestamp as u64) ^ (1 << 63)).to_be_bytes());
}

/// The timestamp of a [`versioned_key`] whose key bytes are `key_len` long; `None` for a key of
/// another length (another key sharing the prefix).
pub(crate) fn versioned_time(stored: &[u8], key_len: usize) -> Option<i64> {
    let ts: [u8; 8] = stored.get(key_len..)?.try_into().ok()?;
    Some((u64::from_be_bytes(ts) ^ (1 << 63)) as i64)
}

/// A standby replica's copy of one (store, partition): the changelog records it applied.
#[derive(Clone)]
pub(crate) struct StandbyCopy {
    /// The processing thread that keeps the standby (only it removes the copy: a task revoked
    /// from another thread of the instance may close after this thread opened its standby).
    owner: usize,
    /// The store's state as of the last changelog record the standby applied.
    pub(crate) snapshot: Snapshot,
    /// Changelog records the standby had not applied, as of its last end-offset lookup
    /// (`None` before the first one).
    pub(crate) lag: Option<i64>,
}

#[derive(Default)]
struct Local {
    /// Per (store name, partition): the active tasks of this instance.
    stores: HashMap<(&'static str, i32), Hosted>,
    /// Per (store name, partition): the standby replicas of this instance (read only by
    /// queries that enable stale stores).
    standbys: HashMap<(&'static str, i32), StandbyCopy>,
    /// Per subtopology id: the partition count of its input (the number of its tasks).
    partitions: HashMap<&'static str, i32>,
    /// Per (store name, partition): the versions of the versioned tables of the active tasks.
    versioned: HashMap<(&'static str, i32), VersionedSnapshot>,
}

/// The state queries read: local snapshots, partition counts, the group's endpoints.
pub(crate) struct Registry {
    pub(crate) topology: &'static TopologyInfo,
    /// This instance's `application_server`, if set.
    pub(crate) self_endpoint: Option<HostInfo>,
    local: RwLock<Local>,
    endpoints: RwLock<Endpoints>,
    /// Whether a query handle was made: until then nothing is published (see the module docs).
    queried: AtomicBool,
    /// The global tables' stores of this instance (the ones its tasks join with).
    pub(crate) globals: GlobalStores,
    /// Whether the global tables were read to their end once (before that a query of a global
    /// store answers `NotRunning`, as the tasks have not started either).
    globals_ready: AtomicBool,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("application_id", &self.topology.application_id)
            .field("self_endpoint", &self.self_endpoint)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry for `topology`, served at `self_endpoint`, with the instance's global
    /// tables' stores.
    pub(crate) fn new(
        topology: &'static TopologyInfo,
        self_endpoint: Option<HostInfo>,
        globals: GlobalStores,
    ) -> Self {
        Registry {
            topology,
            self_endpoint,
            local: RwLock::default(),
            endpoints: RwLock::default(),
            queried: AtomicBool::new(false),
            globals,
            globals_ready: AtomicBool::new(false),
        }
    }

    /// Marks the registry as read by queries: the processing threads publish their stores from
    /// then on. Called when a query handle is made, before the application runs.
    pub(crate) fn mark_queried(&self) {
        self.queried.store(true, Ordering::Release);
    }

    /// Whether queries can read the registry (a query handle was made).
    pub(crate) fn is_queried(&self) -> bool {
        self.queried.load(Ordering::Acquire)
    }

    /// The global store `name`, if the topology has that global table.
    pub(crate) fn global(&self, name: &str) -> Option<&GlobalStore> {
        self.globals.store(name)
    }

    /// Whether the global tables were read to their end once.
    pub(crate) fn globals_ready(&self) -> bool {
        self.globals_ready.load(Ordering::Acquire)
    }

    /// Marks the global tables as read to their end (or absent: `false` again at a restart).
    pub(crate) fn set_globals_ready(&self, ready: bool) {
        self.globals_ready.store(ready, Ordering::Release);
    }

    /// The store `name` and its subtopology.
    pub(crate) fn store(
        &self,
        name: &str,
    ) -> Option<(&'static SubtopologyInfo, &'static StoreInfo)> {
        self.topology.subtopologies.iter().find_map(|sub| {
            sub.stores
                .iter()
                .find(|s| s.name == name)
                .map(|store| (sub, store))
        })
    }

    /// The partition count of `subtopology`'s input, once a thread learned it.
    pub(crate) fn partitions(&self, subtopology: &str) -> Option<i32> {
        read(&self.local).partitions.get(subtopology).copied()
    }

    /// Whether the partition count of `subtopology` is known.
    pub(crate) fn knows_partitions(&self, subtopology: &str) -> bool {
        self.partitions(subtopology).is_some()
    }

    /// Records the partition count of `subtopology`'s input.
    pub(crate) fn set_partitions(&self, subtopology: &'static str, partitions: i32) {
        write(&self.local)
            .partitions
            .insert(subtopology, partitions);
    }

    /// What this instance holds of `store` partition `partition` (`None`: not hosted here).
    pub(crate) fn hosted(&self, store: &'static str, partition: i32) -> Option<Hosted> {
        read(&self.local).stores.get(&(store, partition)).cloned()
    }

    /// The versions of versioned table `store` on `partition` as of its task's last commit.
    pub(crate) fn versioned(
        &self,
        store: &'static str,
        partition: i32,
    ) -> Option<VersionedSnapshot> {
        read(&self.local)
            .versioned
            .get(&(store, partition))
            .cloned()
    }

    /// The ready snapshots of `store` on this instance, by partition, in partition order.
    pub(crate) fn ready(&self, store: &str) -> Vec<(i32, Snapshot)> {
        let local = read(&self.local);
        let mut out: Vec<(i32, Snapshot)> = local
            .stores
            .iter()
            .filter(|((s, _), _)| *s == store)
            .filter_map(|((_, p), h)| match h {
                Hosted::Ready(snapshot) => Some((*p, snapshot.clone())),
                Hosted::Restoring => None,
            })
            .collect();
        out.sort_by_key(|(p, _)| *p);
        out
    }

    /// The standby copy of `store` partition `partition` on this instance, if any.
    pub(crate) fn standby(&self, store: &'static str, partition: i32) -> Option<StandbyCopy> {
        read(&self.local).standbys.get(&(store, partition)).cloned()
    }

    /// The standby copies of `store` on this instance, by partition, in partition order.
    pub(crate) fn standbys(&self, store: &str) -> Vec<(i32, StandbyCopy)> {
        let local = read(&self.local);
        let mut out: Vec<(i32, StandbyCopy)> = local
            .standbys
            .iter()
            .filter(|((s, _), _)| *s == store)
            .map(|((_, p), c)| (*p, c.clone()))
            .collect();
        out.sort_by_key(|(p, _)| *p);
        out
    }

    /// The partitions of `store` whose active task is restoring here.
    pub(crate) fn restoring(&self, store: &str) -> Vec<i32> {
        read(&self.local)
            .stores
            .iter()
            .filter(|((s, _), h)| *s == store && matches!(h, Hosted::Restoring))
            .map(|((_, p), _)| *p)
            .collect()
    }

    fn set(&self, store: &'static str, partition: i32, hosted: Hosted) {
        write(&self.local).stores.insert((store, partition), hosted);
    }

    fn remove(&self, store: &str, partition: i32) {
        let mut local = write(&self.local);
        local
            .stores
            .retain(|(s, p), _| !(*p == partition && *s == store));
        local
            .versioned
            .retain(|(s, p), _| !(*p == partition && *s == store));
    }

    fn remove_standby(&self, owner: usize, store: &str, partition: i32) {
        write(&self.local)
            .standbys
            .retain(|(s, p), c| !(c.owner == owner && *p == partition && *s == store));
    }

    /// Keeps the group's partitions by endpoint from a heartbeat response (the newest epoch
    /// wins: every thread of the instance is a member and hears the same information).
    pub(crate) fn set_endpoints(&self, epoch: i32, partitions: Vec<EndpointToPartitions>) {
        let mut endpoints = write(&self.endpoints);
        if epoch >= endpoints.epoch {
            *endpoints = Endpoints::new(epoch, partitions);
        }
    }

    /// Reads the group's endpoints.
    pub(crate) fn with_endpoints<R>(&self, f: impl FnOnce(&Endpoints) -> R) -> R {
        f(&read(&self.endpoints))
    }
}

// A poisoned lock only means a reader or writer panicked mid-way; the data (whole snapshots
// swapped in one assignment) is still consistent, so carry on.
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A processing thread's side of the registry.
pub(crate) struct Publisher {
    registry: Arc<Registry>,
    /// The thread's index: the owner of the standby copies it publishes.
    thread: usize,
    /// Snapshots changed by the commit under way, published by [`Publisher::publish`].
    changed: Vec<((&'static str, i32), Snapshot)>,
    /// Standby copies changed by the changelog records standbys applied since
    /// [`Publisher::publish_standbys`].
    standby_changed: Vec<((&'static str, i32), Snapshot)>,
}

impl Publisher {
    /// A publisher into `registry` for processing thread `thread`.
    pub(crate) fn new(registry: Arc<Registry>, thread: usize) -> Self {
        Publisher {
            registry,
            thread,
            changed: Vec::new(),
            standby_changed: Vec::new(),
        }
    }

    /// The registry.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The stores of `sub` on `partition` are restoring.
    pub(crate) fn restoring(&self, sub: &'static SubtopologyInfo, partition: i32) {
        for store in sub.stores.iter().filter(|s| published(s)) {
            self.registry.set(store.name, partition, Hosted::Restoring);
        }
    }

    /// Publishes the whole of `backend` as the committed state of `store` on `partition`
    /// (after a restore, or for a table read from its source topic, whose changes do not pass
    /// through the changelog buffer); for a versioned table (`history`) every version it keeps
    /// too: the latest values in `backend` (timestamped entries) and the past ones in
    /// `history`, read in the same pass over the store and swapped in under the same lock.
    /// Whole, at each commit of a task that processed records: the versions a commit moved are
    /// not in the changelog buffer's one record per key.
    pub(crate) fn publish_whole<B: StoreBackend>(
        &self,
        store: &'static StoreInfo,
        partition: i32,
        backend: &B,
        history: Option<&crate::table::versioned::VersionHistory>,
    ) -> Result<(), StoreError> {
        if !published(store) {
            return Ok(());
        }
        let mut snapshot = Snapshot::new();
        let mut versions = history.map(|_| Snapshot::new());
        let mut key = Vec::new();
        for entry in backend.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)? {
            let (k, v) = entry?;
            snapshot.insert(Bytes::copy_from_slice(k), Bytes::copy_from_slice(v));
            if let Some(versions) = versions.as_mut() {
                let (ts, value) = crate::table::timestamped::split_timestamped(v)?;
                versioned_key(&mut key, k, ts);
                versions.insert(
                    Bytes::copy_from_slice(&key),
                    Bytes::from([&[1u8][..], value].concat()),
                );
            }
        }
        let versioned = match (history, versions) {
            (Some(history), Some(mut versions)) => {
                for k in history.keys() {
                    for (ts, value) in history.versions(k) {
                        versioned_key(&mut key, k, ts);
                        let stored = match value {
                            Some(v) => [&[1u8][..], v].concat(),
                            None => vec![0],
                        };
                        versions.insert(Bytes::copy_from_slice(&key), Bytes::from(stored));
                    }
                }
                Some(VersionedSnapshot {
                    versions,
                    observed: history.observed_stream_time(),
                    retention: history.retention_ms(),
                })
            }
            _ => None,
        };
        let mut local = write(&self.registry.local);
        local
            .stores
            .insert((store.name, partition), Hosted::Ready(snapshot));
        if let Some(versioned) = versioned {
            local.versioned.insert((store.name, partition), versioned);
        }
        Ok(())
    }

    /// Notes one committed changelog record (`value: None`: a tombstone) of `changelog`
    /// partition `partition`, written at `timestamp`. Records of stores not hosted (or not
    /// ready) here are ignored. A timestamped store's entry is the timestamp (8 bytes,
    /// big-endian) and the value, as the store itself holds it and as a restore writes it
    /// (`table::timestamped`): its changelog carries the value alone.
    pub(crate) fn committed(
        &mut self,
        changelog: &str,
        partition: i32,
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) {
        let Some((store, timestamped)) = self.store_of(changelog) else {
            return;
        };
        let registry = &self.registry;
        let Some(snapshot) = changing(&mut self.changed, store, partition, || {
            match registry.hosted(store, partition) {
                Some(Hosted::Ready(snapshot)) => Some(snapshot),
                _ => None,
            }
        }) else {
            return;
        };
        apply(snapshot, timestamped, key, value, timestamp);
    }

    /// Publishes what [`Publisher::committed`] changed: each store's new snapshot replaces the
    /// old one at once.
    pub(crate) fn publish(&mut self) {
        if self.changed.is_empty() {
            return;
        }
        let mut local = write(&self.registry.local);
        for (key, snapshot) in self.changed.drain(..) {
            // A task closed meanwhile is not brought back.
            if let Some(hosted) = local.stores.get_mut(&key) {
                *hosted = Hosted::Ready(snapshot);
            }
        }
    }

    /// Publishes the whole of `backend` as a standby replica's copy of `store` on `partition`
    /// (when the standby opens, its stores holding what its directory kept), with `lag` (see
    /// [`StandbyCopy::lag`]).
    pub(crate) fn publish_standby_all<B: StoreBackend>(
        &self,
        store: &'static StoreInfo,
        partition: i32,
        backend: &B,
        lag: Option<i64>,
    ) -> Result<(), StoreError> {
        if !published(store) {
            return Ok(());
        }
        let mut snapshot = Snapshot::new();
        for entry in backend.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)? {
            let (k, v) = entry?;
            snapshot.insert(Bytes::copy_from_slice(k), Bytes::copy_from_slice(v));
        }
        write(&self.registry.local).standbys.insert(
            (store.name, partition),
            StandbyCopy {
                owner: self.thread,
                snapshot,
                lag,
            },
        );
        Ok(())
    }

    /// Notes one changelog record a standby applied to its stores (as [`Publisher::committed`]
    /// notes a commit's): the standby copy of its store changes with it at the next
    /// [`Publisher::publish_standbys`]. Records of stores without a published standby copy
    /// here are ignored.
    pub(crate) fn standby_applied(
        &mut self,
        changelog: &str,
        partition: i32,
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) {
        let Some((store, timestamped)) = self.store_of(changelog) else {
            return;
        };
        let registry = &self.registry;
        let Some(snapshot) = changing(&mut self.standby_changed, store, partition, || {
            registry.standby(store, partition).map(|copy| copy.snapshot)
        }) else {
            return;
        };
        apply(snapshot, timestamped, key, value, timestamp);
    }

    /// Publishes the standby copies [`Publisher::standby_applied`] changed, and each standby's
    /// lag as `lags` gives it per (subtopology, partition).
    pub(crate) fn publish_standbys(
        &mut self,
        lags: impl Iterator<Item = (&'static SubtopologyInfo, i32, Option<i64>)>,
    ) {
        let mut local = write(&self.registry.local);
        for (key, snapshot) in self.standby_changed.drain(..) {
            // A standby closed meanwhile is not brought back.
            if let Some(copy) = local.standbys.get_mut(&key) {
                copy.snapshot = snapshot;
            }
        }
        for (sub, partition, lag) in lags {
            for store in sub.stores {
                if let Some(copy) = local.standbys.get_mut(&(store.name, partition)) {
                    copy.lag = lag;
                }
            }
        }
    }

    /// The standby replica of `sub` on `partition` is no longer kept here (closed, or promoted
    /// and its active task restored). (What [`Publisher::standby_applied`] noted is published
    /// within the same round of standby updates, so nothing of it is pending here.)
    pub(crate) fn standby_closed(&self, sub: &'static SubtopologyInfo, partition: i32) {
        for store in sub.stores {
            self.registry
                .remove_standby(self.thread, store.name, partition);
        }
    }

    /// The thread ends: none of its standby copies answers any more (a standby promoted but
    /// not restored when the thread failed included).
    pub(crate) fn forget_standbys(&self) {
        write(&self.registry.local)
            .standbys
            .retain(|_, c| c.owner != self.thread);
    }

    /// The stores of `sub` on `partition` are no longer hosted here (revoked, lost, closed).
    pub(crate) fn closed(&self, sub: &'static SubtopologyInfo, partition: i32) {
        for store in sub.stores {
            self.registry.remove(store.name, partition);
        }
    }

    /// The store `changelog` belongs to, and whether it is timestamped.
    fn store_of(&self, changelog: &str) -> Option<(&'static str, bool)> {
        self.registry
            .topology
            .subtopologies
            .iter()
            .flat_map(|sub| sub.stores.iter())
            .find(|s| s.changelog_topic == changelog && published(s))
            .map(|s| {
                let timestamped = matches!(
                    s.kind,
                    StoreKind::TimestampedKeyValue
                        | StoreKind::Window {
                            timestamped: true,
                            ..
                        }
                );
                (s.name, timestamped)
            })
    }
}

/// The snapshot of `store` on `partition` among the `changed` ones of this round, taken from
/// `current` (the published one, copy-on-write) the first time the round changes it; `None`
/// when there is none to change.
fn changing<'a>(
    changed: &'a mut Vec<((&'static str, i32), Snapshot)>,
    store: &'static str,
    partition: i32,
    current: impl FnOnce() -> Option<Snapshot>,
) -> Option<&'a mut Snapshot> {
    let i = match changed
        .iter()
        .position(|((s, p), _)| *p == partition && *s == store)
    {
        Some(i) => i,
        None => {
            changed.push(((store, partition), current()?));
            changed.len() - 1
        }
    };
    Some(&mut changed[i].1)
}

/// Applies one changelog record (`value: None`: a tombstone) written at `timestamp` to
/// `snapshot`. A timestamped store's entry is the timestamp (8 bytes, big-endian) and the value,
/// as the store itself holds it and as a restore writes it (`table::timestamped`).
fn apply(
    snapshot: &mut Snapshot,
    timestamped: bool,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
) {
    match value {
        Some(v) if timestamped => {
            let mut entry = Vec::with_capacity(8 + v.len());
            entry.extend_from_slice(&timestamp.to_be_bytes());
            entry.extend_from_slice(v);
            snapshot.insert(Bytes::copy_from_slice(key), Bytes::from(entry));
        }
        Some(v) => {
            snapshot.insert(Bytes::copy_from_slice(key), Bytes::copy_from_slice(v));
        }
        None => {
            snapshot.remove(key);
        }
    }
}

/// Whether the committed state of `store` is published for queries. A stream-stream join's
/// window stores are not: no query reads them (`Queries::store` and `window_store` take
/// key-value and window stores), and their copy would double the join's memory (100k records a
/// side: the snapshots held about as much as the stores).
fn published(store: &StoreInfo) -> bool {
    !matches!(store.kind, StoreKind::JoinWindow { .. })
}
