//! Retention of window and session stores without scanning them: a time-ordered index of
//! every window a task's store holds (window start for time and sliding windows, session end
//! for sessions), so expiring is popping the index's first entries, as Kafka Streams drops
//! whole segments instead of looking at every window.
//!
//! The index lives in the task next to its store. A window enters it when it is created (the
//! one allocation, of its key, as the store makes one for a new key), when a changelog record
//! restores it, and when the task opens a store that already holds windows (LMDB: one scan at
//! start). An entry whose window is gone already (a merged-away session) costs nothing when it
//! expires: it is dropped without a tombstone.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::be_i64;
use crate::cache::DirtyKeys;
use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, store_error};
use crate::store::{StoreBackend, StoreError};

/// The keys of the windows with one time (nearly always one).
#[derive(Debug)]
enum Slot {
    One(Box<[u8]>),
    Many(Vec<Box<[u8]>>),
}

/// How many freed keys the index keeps for reuse: an expiry frees the keys of a half retention
/// period at once, which the next half period's new windows reuse.
const SPARE: usize = 4096;

/// The windows of one store by time.
#[derive(Debug, Default)]
pub struct TimeIndex {
    entries: BTreeMap<i64, Slot>,
    len: usize,
    /// Keys of removed or expired windows, reused for new ones of the same length (a session
    /// merge removes the old session and adds the merged one, whose key has the same length),
    /// so a steady state allocates no key.
    spare: Vec<Box<[u8]>>,
    /// Where a key's time is: this many bytes before its end (time windows:
    /// [`WINDOW_SUFFIX`](crate::store::WINDOW_SUFFIX), sessions: 16).
    offset: usize,
}

impl TimeIndex {
    /// An empty index of a store whose keys end with their time `offset` bytes before the end
    /// ([`WINDOW_SUFFIX`](crate::store::WINDOW_SUFFIX) for time and sliding windows, whose keys
    /// end with start ‖ sequence number; 16 for sessions, whose keys end with end ‖ start).
    pub fn new(offset: usize) -> Self {
        TimeIndex {
            entries: BTreeMap::new(),
            len: 0,
            spare: Vec::new(),
            offset,
        }
    }

    /// The time of a store key (a window's start, a session's end).
    #[inline]
    pub fn time_of(&self, key: &[u8]) -> Option<i64> {
        let at = key.len().checked_sub(self.offset)?;
        Some(be_i64(key, at))
    }

    /// A boxed copy of `key`, reusing a spare key of its length.
    #[inline]
    fn boxed(&mut self, key: &[u8]) -> Box<[u8]> {
        match self.spare.iter().position(|b| b.len() == key.len()) {
            Some(i) => {
                let mut b = self.spare.swap_remove(i);
                b.copy_from_slice(key);
                b
            }
            None => key.into(),
        }
    }

    #[inline]
    fn recycle(&mut self, key: Box<[u8]>) {
        if self.spare.len() < SPARE {
            self.spare.push(key);
        }
    }

    /// Records a window the store just created under `key`.
    #[inline]
    pub fn insert(&mut self, key: &[u8]) {
        let Some(time) = self.time_of(key) else {
            return;
        };
        let present = match self.entries.get(&time) {
            Some(Slot::One(k)) => **k == *key,
            Some(Slot::Many(ks)) => ks.iter().any(|k| **k == *key),
            None => false,
        };
        if present {
            return;
        }
        let boxed = self.boxed(key);
        self.len += 1;
        match self.entries.entry(time) {
            Entry::Vacant(v) => {
                v.insert(Slot::One(boxed));
            }
            Entry::Occupied(mut o) => {
                let slot = o.get_mut();
                match slot {
                    Slot::Many(ks) => ks.push(boxed),
                    Slot::One(_) => {
                        let Slot::One(first) = std::mem::replace(slot, Slot::Many(Vec::new()))
                        else {
                            return;
                        };
                        *slot = Slot::Many(vec![first, boxed]);
                    }
                }
            }
        }
    }

    /// Forgets the window under `key` (the store deleted it: a merged-away session).
    #[inline]
    pub fn remove(&mut self, key: &[u8]) {
        let Some(time) = self.time_of(key) else {
            return;
        };
        let Entry::Occupied(mut o) = self.entries.entry(time) else {
            return;
        };
        let removed = match o.get_mut() {
            Slot::One(k) if **k == *key => {
                let Slot::One(k) = o.remove() else {
                    return;
                };
                Some(k)
            }
            Slot::One(_) => None,
            Slot::Many(ks) => {
                let found = ks
                    .iter()
                    .position(|k| **k == *key)
                    .map(|i| ks.swap_remove(i));
                if ks.is_empty() {
                    o.remove();
                }
                found
            }
        };
        if let Some(k) = removed {
            self.len -= 1;
            self.recycle(k);
        }
    }

    /// Records what a changelog record restored (a tombstone removes the entry).
    #[inline]
    pub fn restored(&mut self, key: &[u8], value: Option<&[u8]>) {
        if value.is_some() {
            self.insert(key);
        } else {
            self.remove(key);
        }
    }

    /// Indexes every window of `store` (a store opened with windows in it).
    pub fn rebuild<B: StoreBackend>(&mut self, store: &B) -> Result<(), StoreError> {
        self.clear();
        for entry in store.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)? {
            let (key, _) = entry?;
            self.insert(key);
        }
        Ok(())
    }

    /// The latest time indexed (`i64::MIN` when empty): the store's newest window time after a
    /// rebuild, as Kafka Streams' stores track it.
    pub fn latest(&self) -> i64 {
        self.entries.last_key_value().map_or(i64::MIN, |(t, _)| *t)
    }

    /// Forgets everything (the task cleared its stores).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.len = 0;
    }

    /// The number of indexed windows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no window is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Deletes every window of `store` whose time is before `cutoff` (stream time minus
    /// retention), writing a changelog tombstone (stamped `timestamp`) for each so a restore
    /// does not bring it back. Windows in the record cache (`dirty`) wait for the next call:
    /// their last value is still forwarded at the next flush, as Kafka Streams forwards an
    /// expired window's cached value. Looks at the expired entries only.
    pub fn expire<B: StoreBackend, S: RecordSink>(
        &mut self,
        store: &mut B,
        cutoff: i64,
        dirty: Option<&DirtyKeys>,
        sink: &mut S,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        node: &'static str,
    ) -> Result<(), RecordError> {
        self.expire_stored(store, cutoff, dirty, sink, changelog, partition, timestamp)
            .map_err(|e| store_error(node, e))
    }

    /// [`TimeIndex::expire`] for a store without a node of its own (a store of
    /// `process(..)`), its failure a store's.
    pub fn expire_stored<B: StoreBackend, S: RecordSink>(
        &mut self,
        store: &mut B,
        cutoff: i64,
        dirty: Option<&DirtyKeys>,
        sink: &mut S,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
    ) -> Result<(), StoreError> {
        let mut kept: Vec<Box<[u8]>> = Vec::new();
        while let Some(entry) = self.entries.first_entry() {
            if *entry.key() >= cutoff {
                break;
            }
            let keys = match entry.remove() {
                Slot::One(k) => vec![k],
                Slot::Many(ks) => ks,
            };
            for key in keys {
                self.len -= 1;
                if dirty.is_some_and(|d| !d.is_empty() && d.contains(&key)) {
                    kept.push(key);
                    continue;
                }
                if store.delete(&key)? {
                    sink.send(OutgoingRecord::changelog(
                        changelog, partition, &key, None, timestamp,
                    ))?;
                }
                self.recycle(key);
            }
        }
        for key in kept {
            self.insert(&key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;
    use crate::task::{OutgoingRecord, RecordSink, SinkError};

    #[derive(Default)]
    struct Tombstones(Vec<Vec<u8>>);
    impl RecordSink for Tombstones {
        fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
            assert!(r.value.is_none());
            self.0.push(r.key.unwrap_or_default().to_vec());
            Ok(())
        }
    }

    fn key(k: &[u8], start: i64) -> Vec<u8> {
        let mut out = k.to_vec();
        crate::store::window_key(&mut out, start);
        out
    }

    #[test]
    fn expires_only_what_is_older_than_the_cutoff_with_a_tombstone_each() {
        let mut store = MemoryBackend::default();
        let mut index = TimeIndex::new(crate::store::WINDOW_SUFFIX);
        for (k, start) in [(&b"a"[..], 0), (b"b", 10), (b"a", 20), (b"c", 30)] {
            store.put(&key(k, start), b"v").expect("put");
            index.insert(&key(k, start));
        }
        // A window deleted meanwhile (a merge) expires without a tombstone.
        store.delete(&key(b"b", 10)).expect("delete");
        index.insert(&key(b"c", 30)); // again: indexed once
        assert_eq!(index.len(), 4);
        let mut sink = Tombstones::default();
        index
            .expire(&mut store, 21, None, &mut sink, "cl", 0, 99, "n")
            .expect("expire");
        assert_eq!(sink.0, [key(b"a", 0), key(b"a", 20)]);
        assert_eq!(store.len(), 1);
        assert_eq!(index.len(), 1);
        let mut rebuilt = TimeIndex::new(crate::store::WINDOW_SUFFIX);
        rebuilt.rebuild(&store).expect("rebuild");
        assert_eq!(rebuilt.len(), 1);
        // Removing and adding keys of one length reuses the freed key.
        let mut sessions = TimeIndex::new(16);
        let mut k = b"a".to_vec();
        crate::window::session_key(&mut k, 0, 5);
        sessions.insert(&k);
        sessions.insert(&k[..15]); // too short for a time: ignored
        sessions.remove(&k);
        assert!(sessions.is_empty());
        let mut merged = b"a".to_vec();
        crate::window::session_key(&mut merged, 0, 9);
        sessions.insert(&merged);
        assert_eq!((sessions.len(), sessions.spare.len()), (1, 0));
    }
}
