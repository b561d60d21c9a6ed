//! The window store of one side of a stream-stream join.
//!
//! Kafka Streams keeps each side's records in a segmented window store that retains duplicates
//! (`Stores.persistentWindowStore(.., retainDuplicates = true)`), with retention `before +
//! after + grace` and segments of `max(retention / 2, 60 s)`. This is the same store over a
//! byte-ordered [`StoreBackend`]:
//!
//! - store key = `segment (i64 BE) ‖ key ‖ timestamp (i64 BE) ‖ seqnum (i32 BE)`, so the records
//!   of one key in one segment are one ordered range, and whole segments are a key prefix;
//! - changelog key = `key ‖ timestamp ‖ seqnum`, Kafka Streams' `WindowKeySchema` with
//!   duplicates, so a Java reader of the changelog sees what Kafka Streams writes.
//!
//! Expiry is by segment: when the store's observed time moves the oldest live segment forward,
//! the expired segments are deleted by a range scan over exactly their entries (no full scan).
//! A put into an expired segment is not stored (Kafka Streams drops it too), and a fetch does
//! not see records older than `observed - retention + 1`. Restore applies the changelog through
//! the same rules, so expired records are not resurrected.

use std::ops::Bound;

use crate::record::{OutgoingRecord, RecordSink};
use crate::store::{StoreBackend, StoreError};

/// Kafka Streams' smallest segment interval.
const MIN_SEGMENT_INTERVAL_MS: i64 = 60_000;
/// The bytes after the key in a store key or changelog key: timestamp and seqnum.
const SUFFIX: usize = 12;
/// The segment id before the key in a store key.
const PREFIX: usize = 8;

/// The bookkeeping of one join window store (not persisted: rebuilt by restore, as Kafka
/// Streams rebuilds a segmented store's observed stream time).
#[derive(Debug, Clone)]
pub struct WindowState {
    retention: i64,
    segment_interval: i64,
    /// The largest timestamp put into the store (Kafka Streams' `observedStreamTime`).
    observed: i64,
    /// Every segment below this one is deleted.
    live_from: i64,
    seqnum: i32,
}

impl WindowState {
    /// The state of a store keeping records for `retention_ms` (before + after + grace).
    pub fn new(retention_ms: i64) -> Self {
        WindowState {
            retention: retention_ms,
            segment_interval: (retention_ms / 2).max(MIN_SEGMENT_INTERVAL_MS),
            observed: -1,
            live_from: 0,
            seqnum: 0,
        }
    }

    /// Forgets everything (the task dropped its stores and restores them).
    pub fn reset(&mut self) {
        *self = WindowState::new(self.retention);
    }

    fn segment(&self, timestamp: i64) -> i64 {
        timestamp / self.segment_interval
    }

    /// The oldest live segment at the current observed time.
    fn min_live_segment(&self) -> i64 {
        self.segment(self.observed - self.retention).max(0)
    }
}

/// Reusable buffers of a join's store operations (no allocation once warm).
#[derive(Debug, Default)]
pub struct WindowBuffers {
    /// A store key under construction.
    pub store_key: Vec<u8>,
    /// A changelog key under construction.
    pub changelog_key: Vec<u8>,
    /// The store keys of expired segments, back to back.
    pub expired: Vec<u8>,
    /// The lengths of the keys in `expired`.
    pub expired_lens: Vec<usize>,
}

fn store_key(out: &mut Vec<u8>, segment: i64, key: &[u8], timestamp: i64, seqnum: i32) {
    out.clear();
    out.extend_from_slice(&segment.to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&timestamp.to_be_bytes());
    out.extend_from_slice(&seqnum.to_be_bytes());
}

/// `key ‖ timestamp ‖ seqnum` of a changelog key, if it is long enough.
pub fn split_changelog_key(bytes: &[u8]) -> Option<(&[u8], i64, i32)> {
    let split = bytes.len().checked_sub(SUFFIX)?;
    let (key, rest) = bytes.split_at(split);
    let mut ts = [0u8; 8];
    ts.copy_from_slice(&rest[..8]);
    let mut seq = [0u8; 4];
    seq.copy_from_slice(&rest[8..]);
    Some((key, i64::from_be_bytes(ts), i32::from_be_bytes(seq)))
}

/// Stores one record of this side (and writes its changelog record unless `changelog` is
/// `None`, as during restore). Returns whether it was stored (a record in an expired segment is
/// not).
#[allow(clippy::too_many_arguments)]
pub fn put<B: StoreBackend, S: RecordSink>(
    store: &mut B,
    state: &mut WindowState,
    bufs: &mut WindowBuffers,
    key: &[u8],
    timestamp: i64,
    value: &[u8],
    changelog: Option<(&mut S, &'static str, i32)>,
) -> Result<bool, StoreError> {
    state.seqnum = (state.seqnum.wrapping_add(1)) & 0x7FFF_FFFF;
    let seqnum = state.seqnum;
    let stored = insert(store, state, bufs, key, timestamp, seqnum, value)?;
    if let Some((sink, topic, partition)) = changelog {
        bufs.changelog_key.clear();
        bufs.changelog_key.extend_from_slice(key);
        bufs.changelog_key
            .extend_from_slice(&timestamp.to_be_bytes());
        bufs.changelog_key.extend_from_slice(&seqnum.to_be_bytes());
        sink.send(OutgoingRecord::append_only_changelog(
            topic,
            partition,
            &bufs.changelog_key,
            Some(value),
            timestamp,
        ))?;
    }
    Ok(stored)
}

fn insert<B: StoreBackend>(
    store: &mut B,
    state: &mut WindowState,
    bufs: &mut WindowBuffers,
    key: &[u8],
    timestamp: i64,
    seqnum: i32,
    value: &[u8],
) -> Result<bool, StoreError> {
    if timestamp > state.observed {
        state.observed = timestamp;
    }
    let live = state.min_live_segment();
    if live > state.live_from {
        expire(store, live, bufs)?;
        state.live_from = live;
    }
    let segment = state.segment(timestamp);
    if segment < live {
        return Ok(false);
    }
    store_key(&mut bufs.store_key, segment, key, timestamp, seqnum);
    store.put(&bufs.store_key, value)?;
    Ok(true)
}

/// Deletes every entry of the segments below `live`: a scan of exactly those entries.
fn expire<B: StoreBackend>(
    store: &mut B,
    live: i64,
    bufs: &mut WindowBuffers,
) -> Result<(), StoreError> {
    let bound = live.to_be_bytes();
    bufs.expired.clear();
    bufs.expired_lens.clear();
    for entry in store.range(Bound::Unbounded, Bound::Excluded(&bound[..]))? {
        let (k, _) = entry?;
        bufs.expired.extend_from_slice(k);
        bufs.expired_lens.push(k.len());
    }
    let mut at = 0;
    for &len in &bufs.expired_lens {
        store.delete(&bufs.expired[at..at + len])?;
        at += len;
    }
    Ok(())
}

/// Applies one changelog record of a join window store (a tombstone changes nothing: Kafka
/// Streams never deletes single records of these stores).
pub fn restore<B: StoreBackend>(
    store: &mut B,
    state: &mut WindowState,
    bufs: &mut WindowBuffers,
    changelog_key: &[u8],
    value: Option<&[u8]>,
) -> Result<(), StoreError> {
    let Some(value) = value else { return Ok(()) };
    let Some((key, timestamp, seqnum)) = split_changelog_key(changelog_key) else {
        return Err(StoreError::Backend(format!(
            "a join window changelog key of {} bytes is shorter than its 12-byte timestamp and \
             sequence number: the changelog topic holds records another application wrote; \
             delete the application's internal topics (reset it) and restart",
            changelog_key.len()
        )));
    };
    if seqnum > state.seqnum {
        state.seqnum = seqnum;
    }
    insert(store, state, bufs, key, timestamp, seqnum, value)?;
    Ok(())
}

/// The records of `key` with timestamps in `[from, to]` (inclusive), in timestamp order, as
/// Kafka Streams' `WindowStore.fetch(key, from, to)` returns them: each as its timestamp and
/// its value's range in `values`.
#[allow(clippy::too_many_arguments)]
pub fn fetch<B: StoreBackend>(
    store: &B,
    state: &WindowState,
    bufs: &mut WindowBuffers,
    key: &[u8],
    from: i64,
    to: i64,
    values: &mut Vec<u8>,
    found: &mut Vec<(i64, usize, usize)>,
) -> Result<(), StoreError> {
    values.clear();
    found.clear();
    let from = from.max(state.observed - state.retention + 1).max(0);
    // Nothing lies after the newest record: no search of empty later segments.
    let to = to.min(state.observed);
    if to < from {
        return Ok(());
    }
    let (first, last) = (state.segment(from), state.segment(to));
    for segment in first.max(state.live_from)..=last {
        store_key(&mut bufs.store_key, segment, key, from, 0);
        let lo_len = bufs.store_key.len();
        store_key(&mut bufs.changelog_key, segment, key, to, i32::MAX);
        for entry in store.range(
            Bound::Included(&bufs.store_key[..lo_len]),
            Bound::Included(&bufs.changelog_key[..]),
        )? {
            let (k, v) = entry?;
            // A longer key whose bytes continue like a timestamp can sort inside the range:
            // only entries of exactly this key count.
            if k.len() != PREFIX + key.len() + SUFFIX || &k[PREFIX..PREFIX + key.len()] != key {
                continue;
            }
            let mut ts = [0u8; 8];
            ts.copy_from_slice(&k[PREFIX + key.len()..PREFIX + key.len() + 8]);
            let ts = i64::from_be_bytes(ts);
            if ts < from || ts > to {
                continue;
            }
            let start = values.len();
            values.extend_from_slice(v);
            found.push((ts, start, values.len()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    struct NoSink;
    impl RecordSink for NoSink {
        fn send(&mut self, _: OutgoingRecord<'_>) -> Result<(), crate::record::SinkError> {
            Ok(())
        }
    }

    fn put_at(
        store: &mut MemoryBackend,
        state: &mut WindowState,
        bufs: &mut WindowBuffers,
        key: &[u8],
        ts: i64,
    ) -> bool {
        put::<_, NoSink>(store, state, bufs, key, ts, b"v", None).unwrap()
    }

    fn fetched(
        store: &MemoryBackend,
        state: &WindowState,
        key: &[u8],
        from: i64,
        to: i64,
    ) -> Vec<i64> {
        let (mut bufs, mut values, mut found) = (WindowBuffers::default(), Vec::new(), Vec::new());
        fetch(
            store,
            state,
            &mut bufs,
            key,
            from,
            to,
            &mut values,
            &mut found,
        )
        .unwrap();
        found.iter().map(|f| f.0).collect()
    }

    #[test]
    fn fetch_is_inclusive_and_keeps_duplicates() {
        let (mut store, mut state, mut bufs) = (
            MemoryBackend::new(),
            WindowState::new(100),
            WindowBuffers::default(),
        );
        for ts in [5, 10, 10, 20, 21] {
            put_at(&mut store, &mut state, &mut bufs, b"a", ts);
        }
        put_at(&mut store, &mut state, &mut bufs, b"a\0", 10);
        assert_eq!(fetched(&store, &state, b"a", 10, 20), [10, 10, 20]);
    }

    #[test]
    fn expired_segments_are_dropped_by_a_bounded_scan() {
        // retention 100 → segments of 60 s.
        let (mut store, mut state, mut bufs) = (
            MemoryBackend::new(),
            WindowState::new(100),
            WindowBuffers::default(),
        );
        put_at(&mut store, &mut state, &mut bufs, b"a", 1_000);
        put_at(&mut store, &mut state, &mut bufs, b"b", 59_999);
        put_at(&mut store, &mut state, &mut bufs, b"a", 60_050);
        assert_eq!(store.len(), 3);
        // Observed 120 200: the oldest live segment is (120 200 - 100) / 60 000 = 2.
        put_at(&mut store, &mut state, &mut bufs, b"a", 120_200);
        assert_eq!(store.len(), 1);
        assert_eq!(
            bufs.expired_lens.len(),
            3,
            "only the expired entries were visited"
        );
        // A put into an expired segment is not stored.
        assert!(!put_at(&mut store, &mut state, &mut bufs, b"a", 100));
        // Fetch hides records older than observed - retention + 1.
        assert_eq!(fetched(&store, &state, b"a", 0, 200_000), [120_200]);
    }

    #[test]
    fn restore_uses_the_changelog_key() {
        let (mut store, mut state, mut bufs) = (
            MemoryBackend::new(),
            WindowState::new(100),
            WindowBuffers::default(),
        );
        let mut ck = b"k".to_vec();
        ck.extend_from_slice(&7i64.to_be_bytes());
        ck.extend_from_slice(&3i32.to_be_bytes());
        restore(&mut store, &mut state, &mut bufs, &ck, Some(b"x")).unwrap();
        assert_eq!(fetched(&store, &state, b"k", 0, 10), [7]);
        assert!(restore(&mut store, &mut state, &mut bufs, b"short", Some(b"x")).is_err());
        put_at(&mut store, &mut state, &mut bufs, b"k", 7);
        assert_eq!(
            fetched(&store, &state, b"k", 0, 10),
            [7, 7],
            "the seqnum continues after the restored one"
        );
    }
}
