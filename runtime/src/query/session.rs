//! Read-only typed views of a session store's committed state on this instance.
//!
//! A session store holds, per key, the key's **sessions**: periods of activity `[start, end]`
//! (both inclusive, the first and the last record's timestamps) separated by at least the
//! store's inactivity gap, each with its aggregate. [`ReadOnlySessionStore`] offers what Kafka
//! Streams' `ReadOnlySessionStore` does:
//!
//! | Kafka Streams | here |
//! |---|---|
//! | `fetch(key)` / `backwardFetch(key)` | [`fetch`](ReadOnlySessionStore::fetch) / [`backward_fetch`](ReadOnlySessionStore::backward_fetch) |
//! | `fetch(keyFrom, keyTo)` (`null`: open) | [`fetch_range`](ReadOnlySessionStore::fetch_range) (`Bound::Unbounded`: open) |
//! | `findSessions(key, earliestSessionEndTime, latestSessionStartTime)` | [`find_sessions`](ReadOnlySessionStore::find_sessions) |
//! | `findSessions(keyFrom, keyTo, ...)` | [`find_sessions_range`](ReadOnlySessionStore::find_sessions_range) |
//! | `backwardFindSessions(...)`, `backwardFetch(keyFrom, keyTo)` | the `backward_` variants |
//! | `fetchSession(key, start, end)` | [`fetch_session`](ReadOnlySessionStore::fetch_session) |
//!
//! ```no_run
//! # use dekaf_streams::prelude::*;
//! # topology! { pub Activity = "activity" {
//! #     stream("clicks", Utf8, Utf8)
//! #         .group_by_key()
//! #         .windowed_by(session(std::time::Duration::from_secs(300)))
//! #         .count("clicks-per-session")
//! #         .to_stream().to("sessions", SessionWindowed::<Utf8>, I64);
//! # } }
//! # fn demo(queries: dekaf_streams::query::Queries<Activity>) -> Result<(), Box<dyn std::error::Error>> {
//! let sessions = queries.session_store(Activity::CLICKS_PER_SESSION)?;
//! // Every session of "alice", oldest first:
//! for session in sessions.fetch(&"alice".to_owned())? {
//!     let (window, clicks) = session?;
//!     println!("{} [{}, {}]: {clicks}", window.key, window.window.start, window.window.end);
//! }
//! // The sessions of "alice" that overlap [10:00, 11:00] (in ms):
//! let (from, to) = (36_000_000, 39_600_000);
//! let overlapping = sessions.find_sessions(&"alice".to_owned(), from, to)?;
//! # let _ = overlapping;
//! # Ok(()) }
//! ```
//!
//! # Order and bounds, as Kafka Streams 4.4
//!
//! Checked against `kafka-streams` 4.4.0 (its default, RocksDB-backed session store, through
//! `TopologyTestDriver`):
//!
//! - A key's sessions come **oldest first**: by session end, then start (`backward_`: newest
//!   first). A key range comes key after key by serialized key bytes, each key's sessions
//!   oldest first; here one partition (task) after another, as Kafka Streams' composite store
//!   reads one local store after another.
//! - `find_sessions(key, earliest_session_end, latest_session_start)` returns the sessions with
//!   `end >= earliest_session_end` and `start <= latest_session_start`: **both bounds
//!   inclusive**, so it finds the sessions that overlap `[earliest_session_end,
//!   latest_session_start]`; inverted bounds find nothing (no error).
//! - `fetch_session(key, start, end)` answers only the session with exactly those bounds.
//!
//! Reads see committed state and refuse keys hosted elsewhere exactly as
//! [`ReadOnlyKeyValueStore`](super::ReadOnlyKeyValueStore)'s do; with
//! [`enable_stale_stores`](ReadOnlySessionStore::enable_stale_stores) a standby replica of
//! this instance may answer, and [`SessionIter::replicas`] says which copy did.

use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;

use super::error::QueryError;
use super::registry::Registry;
#[cfg(feature = "http")]
use super::view::page_snapshots;
use super::view::{Replica, Scan, key_bytes, local_snapshots, snapshot_for};
use crate::serdes::{SerdeError, Windowed};
use crate::task::SessionStoreRef;
use crate::window::{session_key, split_session_key};

/// A read-only view of a session store on this instance (Kafka Streams'
/// `ReadOnlySessionStore`), made by [`Queries::session_store`](super::Queries::session_store).
/// See [the module](self) for what each read returns, in which order.
pub struct ReadOnlySessionStore<K, V> {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: SessionStoreRef<K, V>,
    /// Whether standby replicas answer too (see [`Self::enable_stale_stores`]).
    pub(crate) stale: bool,
}

impl<K, V> Clone for ReadOnlySessionStore<K, V> {
    fn clone(&self) -> Self {
        ReadOnlySessionStore {
            registry: Arc::clone(&self.registry),
            handle: self.handle,
            stale: self.stale,
        }
    }
}

impl<K, V> std::fmt::Debug for ReadOnlySessionStore<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadOnlySessionStore({})", self.handle.name)
    }
}

/// Serialized-key bounds of a range.
type KeyBounds = (Bound<Bytes>, Bound<Bytes>);

impl<K, V> ReadOnlySessionStore<K, V> {
    /// The store's name.
    pub fn name(&self) -> &'static str {
        self.handle.name
    }

    /// This view, also answering from this instance's standby replicas, as
    /// [`ReadOnlyKeyValueStore::enable_stale_stores`](super::ReadOnlyKeyValueStore::enable_stale_stores);
    /// [`SessionIter::replicas`] says which copy answered.
    #[must_use]
    pub fn enable_stale_stores(mut self) -> Self {
        self.stale = true;
        self
    }

    /// Whether this view reads standby replicas too ([`Self::enable_stale_stores`]).
    pub fn stale_stores_enabled(&self) -> bool {
        self.stale
    }

    /// The partition count of the store (its number of tasks), once known.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotRunning`] before the first assignment.
    pub fn partitions(&self) -> Result<i32, QueryError> {
        let name = self.handle.name;
        let (sub, _) = self
            .registry
            .store(name)
            .ok_or_else(|| QueryError::UnknownStore {
                store: name.to_owned(),
                kind: "session",
            })?;
        self.registry
            .partitions(sub.id)
            .ok_or_else(|| QueryError::NotRunning {
                store: name.to_owned(),
            })
    }

    /// Every session of `key`, oldest first (Kafka Streams' `fetch(key)`).
    ///
    /// # Errors
    ///
    /// As [`ReadOnlyKeyValueStore::get`](super::ReadOnlyKeyValueStore::get). A session that
    /// does not deserialize is an `Err` item.
    pub fn fetch(&self, key: &K) -> Result<SessionIter<K, V>, QueryError> {
        self.single(key, i64::MIN, i64::MAX, false)
    }

    /// Every session of `key`, newest first (Kafka Streams' `backwardFetch(key)`). Errors as
    /// [`Self::fetch`].
    pub fn backward_fetch(&self, key: &K) -> Result<SessionIter<K, V>, QueryError> {
        self.single(key, i64::MIN, i64::MAX, true)
    }

    /// The sessions of `key` that end at or after `earliest_session_end` and start at or
    /// before `latest_session_start` (both inclusive), oldest first (Kafka Streams'
    /// `findSessions(key, earliestSessionEndTime, latestSessionStartTime)`). Errors as
    /// [`Self::fetch`].
    pub fn find_sessions(
        &self,
        key: &K,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.single(key, earliest_session_end, latest_session_start, false)
    }

    /// [`Self::find_sessions`], newest first (Kafka Streams' `backwardFindSessions`).
    pub fn backward_find_sessions(
        &self,
        key: &K,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.single(key, earliest_session_end, latest_session_start, true)
    }

    /// The session of `key` that starts at `start` and ends at `end` exactly, if any (Kafka
    /// Streams' `fetchSession`). Errors as [`Self::fetch`].
    pub fn fetch_session(&self, key: &K, start: i64, end: i64) -> Result<Option<V>, QueryError> {
        self.fetch_session_with_replica(key, start, end)
            .map(|(value, _)| value)
    }

    /// [`Self::fetch_session`], with the copy that answered.
    pub fn fetch_session_with_replica(
        &self,
        key: &K,
        start: i64,
        end: i64,
    ) -> Result<(Option<V>, Replica), QueryError> {
        let mut bytes = key_bytes(self.handle.key_ser, key)?;
        let (_, replica, snapshot) = snapshot_for(
            &self.registry,
            self.handle.name,
            "session",
            &bytes,
            self.stale,
        )?;
        session_key(&mut bytes, start, end);
        match snapshot.get(bytes.as_slice()) {
            Some(v) => Ok((Some((self.handle.value_de)(Some(v))?), replica)),
            None => Ok((None, replica)),
        }
    }

    /// The sessions of the keys between `from` and `to` (serialized key bytes compared, as
    /// Kafka Streams compares them; `Bound::Unbounded` is Kafka Streams' `null`) of every task
    /// of the store this instance answers for: task after task, each key after key, each key's
    /// sessions oldest first (Kafka Streams' `fetch(keyFrom, keyTo)`).
    ///
    /// # Errors
    ///
    /// As [`ReadOnlyKeyValueStore::range`](super::ReadOnlyKeyValueStore::range).
    pub fn fetch_range(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.ranged(from, to, i64::MIN, i64::MAX, false)
    }

    /// [`Self::fetch_range`] in reverse: tasks, keys and sessions last first (Kafka Streams'
    /// `backwardFetch(keyFrom, keyTo)`).
    pub fn backward_fetch_range(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.ranged(from, to, i64::MIN, i64::MAX, true)
    }

    /// [`Self::fetch_range`], keeping the sessions that end at or after
    /// `earliest_session_end` and start at or before `latest_session_start` (Kafka Streams'
    /// `findSessions(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime)`).
    pub fn find_sessions_range(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.ranged(from, to, earliest_session_end, latest_session_start, false)
    }

    /// [`Self::find_sessions_range`] in reverse (Kafka Streams' `backwardFindSessions(keyFrom,
    /// keyTo, ...)`).
    pub fn backward_find_sessions_range(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<SessionIter<K, V>, QueryError> {
        self.ranged(from, to, earliest_session_end, latest_session_start, true)
    }

    /// The sessions of one key, from the key's task.
    fn single(
        &self,
        key: &K,
        earliest_end: i64,
        latest_start: i64,
        backward: bool,
    ) -> Result<SessionIter<K, V>, QueryError> {
        let bytes = key_bytes(self.handle.key_ser, key)?;
        let (partition, replica, snapshot) = snapshot_for(
            &self.registry,
            self.handle.name,
            "session",
            &bytes,
            self.stale,
        )?;
        // Store keys are key ‖ end ‖ start (big-endian): a key's sessions sort by end, and
        // those that end at or after `earliest_end` start at key ‖ earliest_end ‖ 0.
        let mut lower = bytes.clone();
        session_key(&mut lower, 0, earliest_end.max(0));
        let mut upper = bytes.clone();
        upper.extend_from_slice(&[0xff; 16]);
        let (lower, upper) = (Bound::Included(lower.into()), Bound::Included(upper.into()));
        let scan = if backward {
            Scan::backward(vec![snapshot], lower, upper)
        } else {
            Scan::new(vec![snapshot], lower, upper)
        };
        let key: Bytes = bytes.into();
        Ok(SessionIter {
            scan,
            keys: (Bound::Included(key.clone()), Bound::Included(key)),
            earliest_end,
            latest_start,
            key_de: self.handle.key_de,
            value_de: self.handle.value_de,
            replicas: vec![(partition, replica)],
        })
    }

    /// The sessions of a key range, from every task this instance answers for.
    fn ranged(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
        earliest_end: i64,
        latest_start: i64,
        backward: bool,
    ) -> Result<SessionIter<K, V>, QueryError> {
        let keys = self.key_bounds(from, to)?;
        let (lower, upper) = store_bounds(&keys);
        let mut sources = local_snapshots(&self.registry, self.handle.name, "session", self.stale)?;
        if backward {
            sources.reverse();
        }
        let replicas: Vec<(i32, Replica)> = sources.iter().map(|(p, r, _)| (*p, *r)).collect();
        let snapshots = sources.into_iter().map(|(_, _, s)| s).collect();
        let scan = if backward {
            Scan::backward(snapshots, lower, upper)
        } else {
            Scan::new(snapshots, lower, upper)
        };
        Ok(SessionIter {
            scan,
            keys,
            earliest_end,
            latest_start,
            key_de: self.handle.key_de,
            value_de: self.handle.value_de,
            replicas,
        })
    }

    /// The serialized bounds of a key range.
    fn key_bounds(&self, from: Bound<&K>, to: Bound<&K>) -> Result<KeyBounds, QueryError> {
        let encode = |b: Bound<&K>| -> Result<Bound<Bytes>, QueryError> {
            Ok(match b {
                Bound::Included(k) => Bound::Included(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Excluded(k) => Bound::Excluded(key_bytes(self.handle.key_ser, k)?.into()),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        Ok((encode(from)?, encode(to)?))
    }

    /// One page of [`Self::find_sessions_range`] (the `http` feature): at most `limit`
    /// sessions after the position `after` (a partition and a store key of it: the key bytes,
    /// the session's end and start; `None`: from the start) of the partitions `only` names
    /// (`None`: every partition this view answers for), each with its partition and store
    /// key, the partitions read with the copy each is read from, and whether more sessions
    /// follow. Sessions come partition after partition, each key after key, each key's
    /// sessions oldest first. With stale stores enabled, standby copies answer too, and a
    /// partition restoring here without one is left out.
    #[cfg(feature = "http")]
    #[allow(clippy::too_many_arguments)] // the query's bounds and the page's position
    pub(crate) fn page(
        &self,
        from: Bound<&K>,
        to: Bound<&K>,
        earliest_end: i64,
        latest_start: i64,
        after: Option<(i32, &[u8])>,
        only: Option<&[i32]>,
        limit: usize,
    ) -> Result<SessionPage<K, V>, QueryError> {
        let keys = self.key_bounds(from, to)?;
        let (lower, upper) = store_bounds(&keys);
        let sources = page_snapshots(
            &self.registry,
            self.handle.name,
            "session",
            self.stale,
            only,
        )?;
        let mut page = SessionPage {
            replicas: sources.iter().map(|(p, r, _)| (*p, *r)).collect(),
            entries: Vec::new(),
            more: false,
        };
        'sources: for (partition, replica, snapshot) in sources {
            let start = match after {
                Some((p, _)) if partition < p => continue,
                Some((p, key)) if partition == p => Bound::Excluded(Bytes::copy_from_slice(key)),
                _ => lower.clone(),
            };
            let mut sessions = SessionIter {
                scan: Scan::new(vec![snapshot], start, upper.clone()),
                keys: keys.clone(),
                earliest_end,
                latest_start,
                key_de: self.handle.key_de,
                value_de: self.handle.value_de,
                replicas: vec![(partition, replica)],
            };
            while let Some((stored, session)) = sessions.next_stored() {
                if page.entries.len() >= limit {
                    page.more = true;
                    break 'sources;
                }
                let (window, value) = session?;
                page.entries.push((partition, stored, window, value));
            }
        }
        Ok(page)
    }
}

/// The store-key bounds that hold every session of the keys within `keys`: from the lower
/// key's bytes to the upper key's bytes followed by 16 bytes of 0xff. Keys in that byte range
/// that are not within `keys` (longer keys sharing the upper key's bytes) are skipped as read.
fn store_bounds(keys: &KeyBounds) -> (Bound<Bytes>, Bound<Bytes>) {
    let lower = match &keys.0 {
        Bound::Included(k) | Bound::Excluded(k) => Bound::Included(k.clone()),
        Bound::Unbounded => Bound::Unbounded,
    };
    let upper = match &keys.1 {
        Bound::Included(k) | Bound::Excluded(k) => {
            let mut u = k.to_vec();
            u.extend_from_slice(&[0xff; 16]);
            Bound::Included(Bytes::from(u))
        }
        Bound::Unbounded => Bound::Unbounded,
    };
    (lower, upper)
}

/// One page of a session scan ([`ReadOnlySessionStore::page`]).
#[cfg(feature = "http")]
pub(crate) struct SessionPage<K, V> {
    /// The partitions read, in order, each with the copy read.
    pub replicas: Vec<(i32, Replica)>,
    /// Partition, store key (the position to resume after), session, aggregate.
    pub entries: Vec<(i32, Bytes, Windowed<K>, V)>,
    /// Whether sessions follow the last one.
    pub more: bool,
}

/// Whether `key` lies within `bounds`.
fn within(bounds: &KeyBounds, key: &[u8]) -> bool {
    let above = match &bounds.0 {
        Bound::Included(b) => key >= b.as_ref(),
        Bound::Excluded(b) => key > b.as_ref(),
        Bound::Unbounded => true,
    };
    let below = match &bounds.1 {
        Bound::Included(b) => key <= b.as_ref(),
        Bound::Excluded(b) => key < b.as_ref(),
        Bound::Unbounded => true,
    };
    above && below
}

/// The iterator of [`ReadOnlySessionStore`]'s reads: each session as its windowed key (the key
/// and `[start, end]`) and its aggregate. It reads the snapshots taken when it was made, so it
/// sees no later commit and blocks none.
pub struct SessionIter<K, V> {
    scan: Scan,
    keys: KeyBounds,
    earliest_end: i64,
    latest_start: i64,
    key_de: fn(Option<&[u8]>) -> Result<K, SerdeError>,
    value_de: fn(Option<&[u8]>) -> Result<V, SerdeError>,
    replicas: Vec<(i32, Replica)>,
}

impl<K, V> SessionIter<K, V> {
    /// The partitions (tasks) the iterator reads, in its order, each with the copy it reads
    /// ([`Replica::Standby`] only with stale stores enabled). One for a single key's sessions.
    pub fn replicas(&self) -> &[(i32, Replica)] {
        &self.replicas
    }
}

impl<K, V> SessionIter<K, V> {
    /// The next session within the bounds, with its store key (the key bytes, the session's
    /// end and start).
    fn next_stored(&mut self) -> Option<(Bytes, <Self as Iterator>::Item)> {
        loop {
            let (k, v) = self.scan.next_entry()?;
            let Some((key, start, end)) = split_session_key(&k) else {
                continue;
            };
            if !within(&self.keys, key) || end < self.earliest_end || start > self.latest_start {
                continue;
            }
            let session = (self.key_de)(Some(key))
                .and_then(|key| Ok((Windowed::new(key, start, end), (self.value_de)(Some(&v))?)))
                .map_err(QueryError::from);
            return Some((k, session));
        }
    }
}

impl<K, V> Iterator for SessionIter<K, V> {
    type Item = Result<(Windowed<K>, V), QueryError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_stored().map(|(_, session)| session)
    }
}

impl<K, V> std::fmt::Debug for SessionIter<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionIter")
            .field("replicas", &self.replicas)
            .finish_non_exhaustive()
    }
}
