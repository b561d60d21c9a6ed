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

use std::collections::BTreeSet;

use super::be_i64;
use crate::__private::{RecordError, store_error};
use crate::cache::DirtyKeys;
use crate::record::{Headers, OutgoingRecord, Partitioning, RecordSink, TopicKind};
use crate::store::{StoreBackend, StoreError};

/// The windows of one store by time.
#[derive(Debug, Default)]
pub struct TimeIndex {
    entries: BTreeSet<(i64, Box<[u8]>)>,
    /// Where a key's time is: this many bytes before its end (time windows: 8, sessions: 16).
    offset: usize,
}

impl TimeIndex {
    /// An empty index of a store whose keys end with their time `offset` bytes before the end
    /// (8 for time and sliding windows, whose keys end with the start; 16 for sessions, whose
    /// keys end with end ‖ start).
    pub fn new(offset: usize) -> Self {
        TimeIndex {
            entries: BTreeSet::new(),
            offset,
        }
    }

    /// The time of a store key.
    #[inline]
    fn time_of(&self, key: &[u8]) -> Option<i64> {
        let at = key.len().checked_sub(self.offset)?;
        Some(be_i64(key, at))
    }

    /// Records a window the store just created under `key`.
    #[inline]
    pub fn insert(&mut self, key: &[u8]) {
        if let Some(time) = self.time_of(key) {
            self.entries.insert((time, key.into()));
        }
    }

    /// Records what a changelog record restored (a tombstone leaves the entry to expire).
    #[inline]
    pub fn restored(&mut self, key: &[u8], value: Option<&[u8]>) {
        if value.is_some() {
            self.insert(key);
        }
    }

    /// Indexes every window of `store` (a store opened with windows in it).
    pub fn rebuild<B: StoreBackend>(&mut self, store: &B) -> Result<(), StoreError> {
        self.entries.clear();
        for entry in store.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)? {
            let (key, _) = entry?;
            self.insert(key);
        }
        Ok(())
    }

    /// Forgets everything (the task cleared its stores).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The number of indexed windows.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no window is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        let mut kept = Vec::new();
        while let Some(first) = self.entries.first() {
            if first.0 >= cutoff {
                break;
            }
            let Some((time, key)) = self.entries.pop_first() else {
                break;
            };
            if dirty.is_some_and(|d| !d.is_empty() && d.contains(&key)) {
                kept.push((time, key));
                continue;
            }
            if store.delete(&key).map_err(|e| store_error(node, e))? {
                sink.send(OutgoingRecord {
                    topic: changelog,
                    kind: TopicKind::Changelog,
                    partitioning: Partitioning::Exact(partition),
                    key: Some(&key),
                    value: None,
                    timestamp,
                    headers: Headers::empty(),
                })?;
            }
        }
        self.entries.extend(kept);
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
        let mut index = TimeIndex::new(8);
        for (k, start) in [(&b"a"[..], 0), (b"b", 10), (b"a", 20), (b"c", 30)] {
            store.put(&key(k, start), b"v").expect("put");
            index.insert(&key(k, start));
        }
        // A window deleted meanwhile (a merge) expires without a tombstone.
        store.delete(&key(b"b", 10)).expect("delete");
        let mut sink = Tombstones::default();
        index
            .expire(&mut store, 21, None, &mut sink, "cl", 0, 99, "n")
            .expect("expire");
        assert_eq!(sink.0, [key(b"a", 0), key(b"a", 20)]);
        assert_eq!(store.len(), 1);
        assert_eq!(index.len(), 1);
        let mut rebuilt = TimeIndex::new(8);
        rebuilt.rebuild(&store).expect("rebuild");
        assert_eq!(rebuilt.len(), 1);
    }
}
