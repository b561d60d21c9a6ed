//! Read-only typed views of a store's committed state on this instance.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;

use super::error::QueryError;
use super::registry::{Hosted, Registry, Snapshot};
use crate::record::Partitioning;
use crate::serdes::{Encoded, SerdeError};
use crate::task::{StoreRef, WindowStoreRef};

/// Entries fetched from a snapshot per step of an iterator.
const BATCH: usize = 64;

pub(super) type Ser<T> = fn(&T, &mut Vec<u8>) -> Result<Encoded, SerdeError>;

/// The key bytes of `key`; a key that serializes to null has no bytes.
pub(super) fn key_bytes<K>(ser: Ser<K>, key: &K) -> Result<Vec<u8>, QueryError> {
    let mut out = Vec::new();
    ser(key, &mut out)?;
    Ok(out)
}

/// The partition (task) of a key's bytes: Kafka's default partitioner, as the producer applies
/// it (murmur2 of the serialized key, positive, modulo the partition count).
pub(crate) fn partition_of(key: &[u8], partitions: i32) -> i32 {
    Partitioning::ByKey
        .partition(Some(key), partitions)
        .unwrap_or(0)
}

/// Which copy of a task's state answered a query.
///
/// Without stale stores (the default) every answer comes from an active task. A view made with
/// `enable_stale_stores()` (Kafka Streams' `StoreQueryParameters.enableStaleStores()`) may also
/// answer from this instance's standby replica of the key's task: a copy kept up to date from
/// the task's changelog, which may lag behind the active task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replica {
    /// The active task of this instance, as of its last commit.
    Active,
    /// A standby replica of this instance, as of the last changelog record it applied
    /// (committed records only under exactly-once).
    Standby {
        /// Changelog records the standby had not applied yet, as of its last look at the
        /// changelogs' end offsets (about every 2 s); `None` before the first look.
        lag: Option<i64>,
    },
}

impl Replica {
    /// Whether a standby replica answered.
    pub fn is_standby(&self) -> bool {
        matches!(self, Replica::Standby { .. })
    }
}

/// The snapshot of the partition of `key` bytes of `store`, which copy it is, or why there is
/// none. With `stale`, a standby copy answers when no active task of the partition is ready
/// here.
pub(super) fn snapshot_for(
    registry: &Registry,
    store: &'static str,
    kind: &'static str,
    key: &[u8],
    stale: bool,
) -> Result<(i32, Replica, Snapshot), QueryError> {
    let (sub, _) = registry
        .store(store)
        .ok_or_else(|| QueryError::UnknownStore {
            store: store.to_owned(),
            kind,
        })?;
    let partitions = registry
        .partitions(sub.id)
        .ok_or_else(|| QueryError::NotRunning {
            store: store.to_owned(),
        })?;
    let partition = partition_of(key, partitions);
    let hosted = registry.hosted(store, partition);
    if let Some(Hosted::Ready(snapshot)) = hosted {
        return Ok((partition, Replica::Active, snapshot));
    }
    if stale && let Some(copy) = registry.standby(store, partition) {
        return Ok((partition, Replica::Standby { lag: copy.lag }, copy.snapshot));
    }
    match hosted {
        Some(Hosted::Restoring) => Err(QueryError::Restoring {
            store: store.to_owned(),
            partition,
        }),
        _ => Err(QueryError::NotLocal {
            store: store.to_owned(),
            partition,
            stale,
        }),
    }
}

/// A read-only view of a key-value store on this instance (Kafka Streams'
/// `ReadOnlyKeyValueStore`), made by [`Queries::store`](super::Queries::store).
///
/// Every read sees the state of the key's task **as of that task's last successful commit**
/// (exactly-once: its last committed transaction; at-least-once: its last committed offsets):
/// never a write of an interval still under way or aborted. A point read looks up the key's task
/// (its partition, by the producer's partitioner) and fails with [`QueryError::NotLocal`] or
/// [`QueryError::Restoring`] rather than answering from the wrong place. A range or a full scan
/// reads the tasks of the store this instance hosts, each at its own last commit, one after
/// another in partition order, each ordered by serialized key bytes (Kafka Streams' composite
/// store also returns one store's entries after another's).
///
/// A global table's store (`global_table(..)`'s handle) is answered from this instance's full
/// copy, as Kafka Streams' `store()` answers for a global store: every key on every instance,
/// as far as the instance's global reader has read the topic (committed records only), with no
/// partition (`range_of_partitions` names none).
///
/// The view is cheap to keep and to clone, and safe to use from any thread: each call takes the
/// newest published snapshots.
pub struct ReadOnlyKeyValueStore<K, V> {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: StoreRef<K, V>,
    /// Whether standby replicas answer too (see [`Self::enable_stale_stores`]).
    pub(crate) stale: bool,
}

impl<K, V> Clone for ReadOnlyKeyValueStore<K, V> {
    fn clone(&self) -> Self {
        ReadOnlyKeyValueStore {
            registry: Arc::clone(&self.registry),
            handle: self.handle,
            stale: self.stale,
        }
    }
}

impl<K, V> std::fmt::Debug for ReadOnlyKeyValueStore<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadOnlyKeyValueStore({})", self.handle.name)
    }
}

impl<K, V> ReadOnlyKeyValueStore<K, V> {
    /// The store's name.
    pub fn name(&self) -> &'static str {
        self.handle.name
    }

    /// This view, also answering from this instance's standby replicas (Kafka Streams'
    /// `StoreQueryParameters.enableStaleStores()`): a key whose task is not active here is
    /// read from the standby copy this instance keeps of it, if any, and so is a task of a
    /// range whose active task is not ready here (restoring). A standby copy may lag behind the
    /// active task; [`Self::get_with_replica`] and [`KeyValueIter::replicas`] say which copy
    /// answered. Active tasks still answer first.
    #[must_use]
    pub fn enable_stale_stores(mut self) -> Self {
        self.stale = true;
        self
    }

    /// Whether this view reads standby replicas too ([`Self::enable_stale_stores`]).
    pub fn stale_stores_enabled(&self) -> bool {
        self.stale
    }

    /// The committed value of `key`, `None` when the key's task (hosted here) has none.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotLocal`] when another instance hosts the key's task (or it is moving),
    /// [`QueryError::Restoring`] while it restores here, [`QueryError::NotRunning`] before the
    /// first assignment, [`QueryError::Serde`] when the key or the value does not convert.
    pub fn get(&self, key: &K) -> Result<Option<V>, QueryError> {
        let bytes = key_bytes(self.handle.key_ser, key)?;
        if let Some(global) = self.global()? {
            return global.with(&bytes, |value| match value {
                Some(value) => Ok(Some(self.handle.decode_value(value)?)),
                None => Ok(None),
            });
        }
        self.get_with_replica(key).map(|(value, _)| value)
    }

    /// [`Self::get`], with the copy that answered: [`Replica::Active`] unless stale stores are
    /// enabled and a standby replica answered (a global table's store answers as
    /// [`Replica::Active`]: every instance holds all of it).
    ///
    /// ```no_run
    /// # use dekaf_streams::query::{ReadOnlyKeyValueStore, Replica};
    /// # fn demo(counts: ReadOnlyKeyValueStore<String, i64>) -> Result<(), Box<dyn std::error::Error>> {
    /// let counts = counts.enable_stale_stores();
    /// match counts.get_with_replica(&"kafka".to_owned())? {
    ///     (count, Replica::Active) => println!("kafka: {count:?}"),
    ///     (count, Replica::Standby { lag }) => println!("kafka: {count:?} (standby, lag {lag:?})"),
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::get`]; with stale stores enabled [`QueryError::NotLocal`] only when this
    /// instance keeps neither the active task nor a standby of the key's partition.
    pub fn get_with_replica(&self, key: &K) -> Result<(Option<V>, Replica), QueryError> {
        let bytes = key_bytes(self.handle.key_ser, key)?;
        if let Some(global) = self.global()? {
            return global.with(&bytes, |value| match value {
                Some(value) => Ok((Some(self.handle.decode_value(value)?), Replica::Active)),
                None => Ok((None, Replica::Active)),
            });
        }
        let (_, replica, snapshot) = snapshot_for(
            &self.registry,
            self.handle.name,
            "key-value",
            &bytes,
            self.stale,
        )?;
        match snapshot.get(bytes.as_slice()) {
            Some(value) => Ok((Some(self.handle.decode_value(value)?), replica)),
            None => Ok((None, replica)),
        }
    }

    /// The entries with keys between `from` and `to` (serialized key bytes compared, as Kafka
    /// Streams compares them) of every task of the store hosted here.
    ///
    /// # Errors
    ///
    /// [`QueryError::Restoring`] while a task of the store restores here (a range would miss its
    /// keys), [`QueryError::NotRunning`] before the first assignment, [`QueryError::Serde`] when
    /// a bound does not serialize. An entry that does not deserialize is an `Err` item.
    pub fn range(&self, from: Bound<&K>, to: Bound<&K>) -> Result<KeyValueIter<K, V>, QueryError> {
        self.range_of_partitions(from, to).map(|(_, iter)| iter)
    }

    /// [`Self::range`], with the partitions (tasks) the iterator reads.
    pub fn range_of_partitions(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
    ) -> Result<(Vec<i32>, KeyValueIter<K, V>), QueryError> {
        let encode = |b: Bound<&K>| -> Result<Bound<Bytes>, QueryError> {
            Ok(match b {
                Bound::Included(k) => Bound::Included(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Excluded(k) => Bound::Excluded(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        let (from, to) = (encode(from)?, encode(to)?);
        if let Some(global) = self.global()? {
            // The instance's whole copy, read now (no partition: every instance holds it all).
            let entries = global.range(as_ref(&from), as_ref(&to));
            let snapshot: Snapshot = entries
                .into_iter()
                .map(|(k, v)| (Bytes::from(k), Bytes::from(v)))
                .collect();
            return Ok((
                Vec::new(),
                KeyValueIter {
                    scan: Scan::new(vec![snapshot], from, to),
                    handle: self.handle,
                    replicas: Vec::new(),
                },
            ));
        }
        let sources = local_snapshots(&self.registry, self.handle.name, "key-value", self.stale)?;
        let replicas: Vec<(i32, Replica)> = sources.iter().map(|(p, r, _)| (*p, *r)).collect();
        let snapshots = sources.into_iter().map(|(_, _, s)| s).collect();
        Ok((
            replicas.iter().map(|(p, _)| *p).collect(),
            KeyValueIter {
                scan: Scan::new(snapshots, from, to),
                handle: self.handle,
                replicas,
            },
        ))
    }

    /// One page of [`Self::range_of_partitions`]: at most `limit` entries after the position
    /// `after` (a partition and a serialized key of it; `None`: from the start) of the
    /// partitions `only` names (`None`: every partition this view answers for), each with its
    /// partition and serialized key, the partitions read with the copy each is read from, and
    /// whether more entries follow. Entries come partition after partition, each in
    /// serialized-key order; a global table's store reads as partition 0 and names no
    /// partition. With stale stores enabled, standby copies answer too, and a partition
    /// restoring here without one is left out (see [`page_snapshots`]).
    #[cfg(feature = "http")]
    pub(crate) fn page(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
        after: Option<(i32, &[u8])>,
        only: Option<&[i32]>,
        limit: usize,
    ) -> Result<KeyValuePage<K, V>, QueryError> {
        let encode = |b: Bound<&K>| -> Result<Bound<Bytes>, QueryError> {
            Ok(match b {
                Bound::Included(k) => Bound::Included(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Excluded(k) => Bound::Excluded(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        let (from, to) = (encode(from)?, encode(to)?);
        let (replicas, sources) = if let Some(global) = self.global()? {
            let lower = match after {
                Some((_, key)) => Bound::Excluded(Bytes::copy_from_slice(key)),
                None => from.clone(),
            };
            let snapshot: Snapshot = global
                .range(as_ref(&lower), as_ref(&to))
                .into_iter()
                .map(|(k, v)| (Bytes::from(k), Bytes::from(v)))
                .collect();
            (Vec::new(), vec![(0, snapshot)])
        } else {
            let sources = page_snapshots(
                &self.registry,
                self.handle.name,
                "key-value",
                self.stale,
                only,
            )?;
            (
                sources.iter().map(|(p, r, _)| (*p, *r)).collect(),
                sources.into_iter().map(|(p, _, s)| (p, s)).collect(),
            )
        };
        let mut page = KeyValuePage {
            replicas,
            entries: Vec::new(),
            more: false,
        };
        'sources: for (partition, snapshot) in sources {
            let lower = match after {
                Some((p, _)) if partition < p => continue,
                Some((p, key)) if partition == p => Bound::Excluded(Bytes::copy_from_slice(key)),
                _ => from.clone(),
            };
            let mut scan = Scan::new(vec![snapshot], lower, to.clone());
            while let Some((k, v)) = scan.next_entry() {
                if page.entries.len() >= limit {
                    page.more = true;
                    break 'sources;
                }
                let key = (self.handle.key_de)(Some(&k))?;
                let value = self.handle.decode_value(&v)?;
                page.entries.push((partition, k, key, value));
            }
        }
        Ok(page)
    }

    /// The global table's store behind this view, if it is one (a global store answers every
    /// key on every instance, once the global tables were read to their end).
    fn global(&self) -> Result<Option<&crate::table::global::GlobalStore>, QueryError> {
        match self.registry.global(self.handle.name) {
            Some(_) if !self.registry.globals_ready() => Err(QueryError::NotRunning {
                store: self.handle.name.to_owned(),
            }),
            other => Ok(other),
        }
    }

    /// The partition count of the store (its number of tasks), once known; 1 for a global
    /// table's store (one copy of every partition of its topic).
    pub fn partitions(&self) -> Result<i32, QueryError> {
        if self.global()?.is_some() {
            return Ok(1);
        }
        let (sub, _) =
            self.registry
                .store(self.handle.name)
                .ok_or_else(|| QueryError::UnknownStore {
                    store: self.handle.name.to_owned(),
                    kind: "key-value",
                })?;
        self.registry
            .partitions(sub.id)
            .ok_or_else(|| QueryError::NotRunning {
                store: self.handle.name.to_owned(),
            })
    }

    /// Every entry of every task of the store hosted here. Errors as [`Self::range`].
    pub fn all(&self) -> Result<KeyValueIter<K, V>, QueryError> {
        self.range(Bound::Unbounded, Bound::Unbounded)
    }

    /// The number of entries in the tasks of the store hosted here, as of their last commits
    /// (Kafka Streams' `approximateNumEntries`; exact for the snapshots read).
    pub fn approximate_len(&self) -> Result<u64, QueryError> {
        if let Some(global) = self.global()? {
            return Ok(global.len() as u64);
        }
        Ok(
            local_snapshots(&self.registry, self.handle.name, "key-value", self.stale)?
                .iter()
                .map(|(_, _, s)| s.len() as u64)
                .sum(),
        )
    }
}

/// The snapshots of every partition of `store` this instance can answer for, in partition
/// order: its ready active tasks, and with `stale` its standby copies of the other partitions.
pub(super) fn local_snapshots(
    registry: &Registry,
    store: &'static str,
    kind: &'static str,
    stale: bool,
) -> Result<Sources, QueryError> {
    let (out, restoring) = answerable(registry, store, kind, stale)?;
    // A range would miss the keys of a task restoring here (unless its standby copy answers).
    match restoring.first() {
        Some(&partition) => Err(QueryError::Restoring {
            store: store.to_owned(),
            partition,
        }),
        None => Ok(out),
    }
}

/// The snapshots of the partitions of `store` one page of a scan reads (the `http` feature):
/// [`local_snapshots`] restricted to the partitions `only` names (all without it). A stale page
/// leaves out a partition restoring here that no standby copy of this instance answers for,
/// rather than failing: another instance's copy may cover it, and the page names the
/// partitions it read. A page that is not stale fails with [`QueryError::Restoring`] then, as
/// a range does.
#[cfg(feature = "http")]
pub(super) fn page_snapshots(
    registry: &Registry,
    store: &'static str,
    kind: &'static str,
    stale: bool,
    only: Option<&[i32]>,
) -> Result<Sources, QueryError> {
    let wanted = |p: &i32| only.is_none_or(|only| only.contains(p));
    let (mut out, restoring) = answerable(registry, store, kind, stale)?;
    out.retain(|(p, _, _)| wanted(p));
    match restoring.into_iter().find(wanted) {
        Some(partition) if !stale => Err(QueryError::Restoring {
            store: store.to_owned(),
            partition,
        }),
        _ => Ok(out),
    }
}

/// The snapshots a scan reads: partition, copy, snapshot.
type Sources = Vec<(i32, Replica, Snapshot)>;

/// What this instance can answer for of `store`: the snapshots of its ready active tasks (and
/// with `stale` of its standby copies of the other partitions), in partition order, and the
/// partitions restoring here that none of them covers.
fn answerable(
    registry: &Registry,
    store: &'static str,
    kind: &'static str,
    stale: bool,
) -> Result<(Sources, Vec<i32>), QueryError> {
    let (sub, _) = registry
        .store(store)
        .ok_or_else(|| QueryError::UnknownStore {
            store: store.to_owned(),
            kind,
        })?;
    if !registry.knows_partitions(sub.id) {
        return Err(QueryError::NotRunning {
            store: store.to_owned(),
        });
    }
    let mut out: Sources = registry
        .ready(store)
        .into_iter()
        .map(|(p, snapshot)| (p, Replica::Active, snapshot))
        .collect();
    if stale {
        for (p, copy) in registry.standbys(store) {
            if !out.iter().any(|(q, _, _)| *q == p) {
                out.push((p, Replica::Standby { lag: copy.lag }, copy.snapshot));
            }
        }
        out.sort_by_key(|(p, _, _)| *p);
    }
    let mut restoring: Vec<i32> = registry
        .restoring(store)
        .into_iter()
        .filter(|p| !out.iter().any(|(q, _, _)| q == p))
        .collect();
    restoring.sort_unstable();
    Ok((out, restoring))
}

/// A scan over snapshots (each an O(1) clone of a published version): entries between two
/// bounds, fetched [`BATCH`] at a time, snapshot after snapshot, forward (ascending key bytes)
/// or backward (descending).
pub(super) struct Scan {
    snapshots: VecDeque<Snapshot>,
    /// Where the next batch of the current snapshot starts (forward: its lower bound;
    /// backward: its upper bound).
    next: Bound<Bytes>,
    from: Bound<Bytes>,
    to: Bound<Bytes>,
    backward: bool,
    batch: VecDeque<(Bytes, Bytes)>,
}

impl Scan {
    /// A forward scan of `snapshots`, one after the other.
    pub(super) fn new(snapshots: Vec<Snapshot>, from: Bound<Bytes>, to: Bound<Bytes>) -> Self {
        Scan {
            snapshots: snapshots.into(),
            next: from.clone(),
            from,
            to,
            backward: false,
            batch: VecDeque::with_capacity(BATCH),
        }
    }

    /// A backward scan of `snapshots`, one after the other (in the order given), each from
    /// its largest key down.
    pub(super) fn backward(snapshots: Vec<Snapshot>, from: Bound<Bytes>, to: Bound<Bytes>) -> Self {
        Scan {
            snapshots: snapshots.into(),
            next: to.clone(),
            from,
            to,
            backward: true,
            batch: VecDeque::with_capacity(BATCH),
        }
    }

    fn inverted(&self) -> bool {
        let f = match &self.from {
            Bound::Included(b) | Bound::Excluded(b) => b,
            Bound::Unbounded => return false,
        };
        let t = match &self.to {
            Bound::Included(b) | Bound::Excluded(b) => b,
            Bound::Unbounded => return false,
        };
        f > t
            || (f == t
                && !(matches!(self.from, Bound::Included(_))
                    && matches!(self.to, Bound::Included(_))))
    }

    pub(super) fn next_entry(&mut self) -> Option<(Bytes, Bytes)> {
        loop {
            if let Some(entry) = self.batch.pop_front() {
                return Some(entry);
            }
            if self.inverted() {
                return None;
            }
            let snapshot = self.snapshots.front()?;
            let copy = |(k, v): (&Bytes, &Bytes)| (k.clone(), v.clone());
            if self.backward {
                let range = (as_ref(&self.from), as_ref(&self.next));
                self.batch
                    .extend(snapshot.range::<_, [u8]>(range).rev().take(BATCH).map(copy));
            } else {
                let range = (as_ref(&self.next), as_ref(&self.to));
                self.batch
                    .extend(snapshot.range::<_, [u8]>(range).take(BATCH).map(copy));
            }
            match self.batch.back() {
                Some((last, _)) if self.batch.len() == BATCH => {
                    self.next = Bound::Excluded(last.clone());
                }
                _ => {
                    // This snapshot is done: the next one starts from its beginning (or end).
                    self.snapshots.pop_front();
                    self.next = if self.backward {
                        self.to.clone()
                    } else {
                        self.from.clone()
                    };
                    if self.batch.is_empty() && self.snapshots.is_empty() {
                        return None;
                    }
                }
            }
        }
    }
}

pub(super) fn as_ref(bound: &Bound<Bytes>) -> Bound<&[u8]> {
    match bound {
        Bound::Included(b) => Bound::Included(b.as_ref()),
        Bound::Excluded(b) => Bound::Excluded(b.as_ref()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// One page of a scan ([`ReadOnlyKeyValueStore::page`]).
#[cfg(feature = "http")]
pub(crate) struct KeyValuePage<K, V> {
    /// The partitions read, in order, each with the copy read (none for a global table's
    /// store).
    pub replicas: Vec<(i32, Replica)>,
    /// Partition, serialized key, key, value.
    pub entries: Vec<(i32, Bytes, K, V)>,
    /// Whether entries follow the last one.
    pub more: bool,
}

/// The iterator of [`ReadOnlyKeyValueStore::range`] and [`ReadOnlyKeyValueStore::all`]: it reads
/// snapshots taken when it was made, so it sees no later commit and blocks none.
pub struct KeyValueIter<K, V> {
    scan: Scan,
    handle: StoreRef<K, V>,
    replicas: Vec<(i32, Replica)>,
}

impl<K, V> KeyValueIter<K, V> {
    /// The partitions the iterator reads, in its order, each with the copy it reads
    /// ([`Replica::Standby`] only with stale stores enabled); empty for a global table's store.
    pub fn replicas(&self) -> &[(i32, Replica)] {
        &self.replicas
    }
}

impl<K, V> Iterator for KeyValueIter<K, V> {
    type Item = Result<(K, V), QueryError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (k, v) = self.scan.next_entry()?;
        Some(
            (self.handle.key_de)(Some(&k))
                .and_then(|k| Ok((k, self.handle.decode_value(&v)?)))
                .map_err(QueryError::from),
        )
    }
}

impl<K, V> std::fmt::Debug for KeyValueIter<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyValueIter({})", self.handle.name)
    }
}

/// A read-only view of a window store on this instance (Kafka Streams' `ReadOnlyWindowStore`),
/// made by [`Queries::window_store`](super::Queries::window_store). Reads see committed state as
/// [`ReadOnlyKeyValueStore`]'s do.
pub struct ReadOnlyWindowStore<K, V> {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: WindowStoreRef<K, V>,
    /// Whether standby replicas answer too (see [`Self::enable_stale_stores`]).
    pub(crate) stale: bool,
}

impl<K, V> Clone for ReadOnlyWindowStore<K, V> {
    fn clone(&self) -> Self {
        ReadOnlyWindowStore {
            registry: Arc::clone(&self.registry),
            handle: self.handle,
            stale: self.stale,
        }
    }
}

impl<K, V> std::fmt::Debug for ReadOnlyWindowStore<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadOnlyWindowStore({})", self.handle.name)
    }
}

impl<K, V> ReadOnlyWindowStore<K, V> {
    /// This view, also answering from this instance's standby replicas, as
    /// [`ReadOnlyKeyValueStore::enable_stale_stores`]; [`WindowIter::replica`] says which copy
    /// answered.
    #[must_use]
    pub fn enable_stale_stores(mut self) -> Self {
        self.stale = true;
        self
    }

    /// Whether this view reads standby replicas too ([`Self::enable_stale_stores`]).
    pub fn stale_stores_enabled(&self) -> bool {
        self.stale
    }

    /// The windows of `key` that start between `from_ms` and `to_ms` (both inclusive, as Kafka
    /// Streams' `fetch(key, timeFrom, timeTo)`), as (window start, value), by window start.
    ///
    /// # Errors
    ///
    /// As [`ReadOnlyKeyValueStore::get`].
    pub fn fetch(&self, key: &K, from_ms: i64, to_ms: i64) -> Result<WindowIter<V>, QueryError> {
        let bytes = key_bytes(self.handle.key_ser, key)?;
        let (partition, replica, snapshot) = snapshot_for(
            &self.registry,
            self.handle.name,
            "window",
            &bytes,
            self.stale,
        )?;
        let bound = |start: i64| {
            let mut k = bytes.clone();
            crate::store::window_key(&mut k, start);
            Bytes::from(k)
        };
        let (from, to) = if from_ms > to_ms || to_ms < 0 {
            (Bound::Excluded(bound(0)), Bound::Excluded(bound(0)))
        } else {
            (
                Bound::Included(bound(from_ms.max(0))),
                Bound::Included(bound(to_ms)),
            )
        };
        Ok(WindowIter {
            scan: Scan::new(vec![snapshot], from, to),
            key_len: bytes.len(),
            value_de: self.handle.value_de,
            value_offset: self.handle.value_offset,
            partition,
            replica,
        })
    }

    /// The store's name.
    pub fn name(&self) -> &'static str {
        self.handle.name
    }
}

/// The iterator of [`ReadOnlyWindowStore::fetch`]: (window start in ms, value).
pub struct WindowIter<V> {
    scan: Scan,
    key_len: usize,
    value_de: fn(Option<&[u8]>) -> Result<V, SerdeError>,
    /// Bytes before the value (a sliding-window store's timestamp).
    value_offset: usize,
    partition: i32,
    replica: Replica,
}

impl<V> WindowIter<V> {
    /// The key's partition (its task). (Not `partition`: that is `Iterator::partition`.)
    pub fn key_partition(&self) -> i32 {
        self.partition
    }

    /// The copy the windows are read from ([`Replica::Standby`] only with stale stores
    /// enabled).
    pub fn replica(&self) -> Replica {
        self.replica
    }
}

impl<V> Iterator for WindowIter<V> {
    type Item = Result<(i64, V), QueryError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (k, v) = self.scan.next_entry()?;
            // Another key whose bytes start with this key's falls in the byte range too.
            let Some((key, start)) = crate::store::split_window_key(&k) else {
                continue;
            };
            if key.len() != self.key_len {
                continue;
            }
            return Some(
                (self.value_de)(Some(v.get(self.value_offset..).unwrap_or_default()))
                    .map(|v| (start, v))
                    .map_err(QueryError::from),
            );
        }
    }
}

impl<V> std::fmt::Debug for WindowIter<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WindowIter")
    }
}
