//! The shared outer-join store of a left or outer stream-stream join (Kafka Streams'
//! `KSTREAM-OUTERSHARED-..-store`, KAFKA-10847): records that found no partner wait here until
//! their join window closes, so a left/outer result is emitted only once no partner can come.
//!
//! The bytes are Kafka Streams' (`TimestampedKeyAndJoinSideSerializer`,
//! `LeftOrRightValueSerializer`, `ListValueStore`), so the compacted changelog reads the same:
//!
//! - key = `timestamp (i64 BE) ‖ side (1 left, 0 right) ‖ key`: the store is ordered by time,
//!   so the records whose window closed are a prefix, found without a full scan;
//! - value = `0x01 ‖ i32 n ‖ n × (i32 len ‖ side ‖ value)`: the unmatched values of one key,
//!   side and timestamp, in arrival order.

use std::ops::Bound;

use crate::record::{OutgoingRecord, RecordSink};
use crate::store::{StoreBackend, StoreError};

/// The side byte of a left record.
pub const LEFT: u8 = 1;
/// The side byte of a right record.
pub const RIGHT: u8 = 0;

/// Where a join's changelog records go: sink, topic, partition.
pub struct Changelog<'s, S> {
    /// The task's sink.
    pub sink: &'s mut S,
    /// The changelog topic.
    pub topic: &'static str,
    /// The task's partition.
    pub partition: i32,
}

impl<S: RecordSink> Changelog<'_, S> {
    fn send(&mut self, key: &[u8], value: Option<&[u8]>, timestamp: i64) -> Result<(), StoreError> {
        self.sink.send(OutgoingRecord::changelog(
            self.topic,
            self.partition,
            key,
            value,
            timestamp,
        ))?;
        Ok(())
    }
}

/// Both sides' shared time: the largest timestamp either side has seen (Kafka Streams'
/// `TimeTracker`, not persisted: it restarts at -1 after a restart or rebalance), and the
/// smallest timestamp that may still wait in the outer store.
#[derive(Debug, Clone)]
pub struct TimeTracker {
    /// The largest timestamp seen by either side.
    pub stream_time: i64,
    /// No record older than this waits in the outer store.
    pub min_time: i64,
}

impl Default for TimeTracker {
    fn default() -> Self {
        TimeTracker {
            stream_time: -1,
            min_time: i64::MAX,
        }
    }
}

impl TimeTracker {
    /// Takes a record's timestamp into account.
    #[inline]
    pub fn advance(&mut self, timestamp: i64) {
        if timestamp > self.stream_time {
            self.stream_time = timestamp;
        }
    }
}

/// One record of the outer store whose window closed: its timestamp, side, and the ranges of
/// its key and value in [`OuterBuffers::bytes`].
#[derive(Debug, Clone, Copy)]
pub struct ExpiredRecord {
    /// The record's timestamp (the result's timestamp).
    pub timestamp: i64,
    /// [`LEFT`] or [`RIGHT`].
    pub side: u8,
    /// The key's range.
    pub key: (usize, usize),
    /// The value's range (without its side byte).
    pub value: (usize, usize),
}

/// Reusable buffers of the outer store (no allocation once warm).
#[derive(Debug, Default)]
pub struct OuterBuffers {
    /// A store key under construction.
    pub key: Vec<u8>,
    /// A store value under construction.
    pub value: Vec<u8>,
    /// The keys and values of expired records, back to back.
    pub bytes: Vec<u8>,
    /// The expired records, in (timestamp, side, key) order, then arrival order.
    pub records: Vec<ExpiredRecord>,
    /// The store keys to delete (ranges of `bytes`).
    pub deletes: Vec<(usize, usize)>,
}

fn outer_key(out: &mut Vec<u8>, timestamp: i64, side: u8, key: &[u8]) {
    out.clear();
    out.extend_from_slice(&timestamp.to_be_bytes());
    out.push(side);
    out.extend_from_slice(key);
}

/// Adds an unmatched record (`value` = its serialized value) to the outer store, appending to
/// the list of its key, side and timestamp, and writes the changelog record.
#[allow(clippy::too_many_arguments)]
pub fn put<B: StoreBackend, S: RecordSink>(
    store: &mut B,
    tracker: &mut TimeTracker,
    bufs: &mut OuterBuffers,
    side: u8,
    key: &[u8],
    timestamp: i64,
    value: &[u8],
    changelog: &mut Changelog<'_, S>,
) -> Result<(), StoreError> {
    if timestamp < tracker.min_time {
        tracker.min_time = timestamp;
    }
    outer_key(&mut bufs.key, timestamp, side, key);
    let element_len = i32::try_from(value.len() + 1).map_err(|_| too_long(value.len()))?;
    let appended: Result<(), StoreError> =
        store.update(&bufs.key, &mut bufs.value, |old, buf| {
            buf.clear();
            match old {
                Some(list) if list.len() >= 5 => {
                    let mut n = [0u8; 4];
                    n.copy_from_slice(&list[1..5]);
                    let n = i32::from_be_bytes(n).saturating_add(1);
                    buf.push(list[0]);
                    buf.extend_from_slice(&n.to_be_bytes());
                    buf.extend_from_slice(&list[5..]);
                }
                _ => {
                    buf.push(1);
                    buf.extend_from_slice(&1i32.to_be_bytes());
                }
            }
            buf.extend_from_slice(&element_len.to_be_bytes());
            buf.push(side);
            buf.extend_from_slice(value);
            Ok(true)
        })?;
    appended?;
    changelog.send(&bufs.key, Some(&bufs.value), timestamp)
}

#[cold]
fn too_long(len: usize) -> StoreError {
    StoreError::Backend(format!(
        "a join value of {len} bytes is longer than Kafka Streams' list store allows (2 GiB)"
    ))
}

/// A match found the partner record at `timestamp` on `side`: it will never be an outer
/// result, so its entry is deleted (Kafka Streams' `putIfAbsent(key, null)`).
pub fn matched<B: StoreBackend, S: RecordSink>(
    store: &mut B,
    bufs: &mut OuterBuffers,
    side: u8,
    key: &[u8],
    timestamp: i64,
    record_timestamp: i64,
    changelog: &mut Changelog<'_, S>,
) -> Result<(), StoreError> {
    outer_key(&mut bufs.key, timestamp, side, key);
    if store.delete(&bufs.key)? {
        changelog.send(&bufs.key, None, record_timestamp)?;
    }
    Ok(())
}

/// Collects (into `bufs.records`) and deletes the records whose join window closed: a left
/// record at `t` once `t + after + grace < stream time`, a right one once `t + before + grace <
/// stream time`, in (timestamp, side, key) order, as Kafka Streams emits them. Scans only the
/// entries old enough to be closed on one side, plus one.
#[allow(clippy::too_many_arguments)]
pub fn take_expired<B: StoreBackend, S: RecordSink>(
    store: &mut B,
    tracker: &mut TimeTracker,
    bufs: &mut OuterBuffers,
    before: i64,
    after: i64,
    grace: i64,
    record_timestamp: i64,
    changelog: &mut Changelog<'_, S>,
) -> Result<(), StoreError> {
    bufs.bytes.clear();
    bufs.records.clear();
    bufs.deletes.clear();
    let now = tracker.stream_time;
    let closes = |side: u8| if side == LEFT { after } else { before };
    // Nothing can close before the oldest waiting record does.
    if tracker.min_time != i64::MAX
        && tracker
            .min_time
            .saturating_add(before.min(after))
            .saturating_add(grace)
            >= now
    {
        return Ok(());
    }
    // Entries at or after this timestamp are open on both sides.
    let bound = now
        .saturating_sub(before.min(after))
        .saturating_sub(grace)
        .max(0);
    let bound_key = bound.to_be_bytes();
    let mut oldest_open = i64::MAX;
    for entry in store.range(Bound::Unbounded, Bound::Excluded(&bound_key[..]))? {
        let (k, v) = entry?;
        if k.len() < 9 {
            continue;
        }
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&k[..8]);
        let ts = i64::from_be_bytes(ts);
        let side = k[8];
        if ts.saturating_add(closes(side)).saturating_add(grace) >= now {
            oldest_open = oldest_open.min(ts);
            continue;
        }
        let key_start = bufs.bytes.len();
        bufs.bytes.extend_from_slice(k);
        let key_end = bufs.bytes.len();
        bufs.deletes.push((key_start, key_end));
        // The list: 0x01 ‖ i32 n ‖ n × (i32 len ‖ side ‖ value).
        let mut at = 5;
        while at + 4 <= v.len() {
            let mut len = [0u8; 4];
            len.copy_from_slice(&v[at..at + 4]);
            let len = usize::try_from(i32::from_be_bytes(len)).unwrap_or(0);
            let end = (at + 4 + len).min(v.len());
            if len >= 1 {
                let start = bufs.bytes.len();
                bufs.bytes.extend_from_slice(&v[at + 5..end]);
                bufs.records.push(ExpiredRecord {
                    timestamp: ts,
                    side,
                    key: (key_start + 9, key_end),
                    value: (start, bufs.bytes.len()),
                });
            }
            at = end;
        }
    }
    if oldest_open == i64::MAX {
        // The oldest record left is the first one at or after the bound.
        if let Some(entry) = store
            .range(Bound::Included(&bound_key[..]), Bound::Unbounded)?
            .next()
        {
            let (k, _) = entry?;
            if k.len() >= 8 {
                let mut ts = [0u8; 8];
                ts.copy_from_slice(&k[..8]);
                oldest_open = i64::from_be_bytes(ts);
            }
        }
    }
    tracker.min_time = oldest_open;
    for &(start, end) in &bufs.deletes {
        store.delete(&bufs.bytes[start..end])?;
        changelog.send(&bufs.bytes[start..end], None, record_timestamp)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    #[derive(Default)]
    struct Log(Vec<(Vec<u8>, Option<Vec<u8>>)>);
    impl RecordSink for Log {
        fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), crate::record::SinkError> {
            self.0
                .push((r.key.unwrap().to_vec(), r.value.map(<[u8]>::to_vec)));
            Ok(())
        }
    }

    #[test]
    fn list_bytes_are_kafka_streams_and_expiry_is_per_side() {
        let (mut store, mut tracker, mut bufs, mut log) = (
            MemoryBackend::new(),
            TimeTracker::default(),
            OuterBuffers::default(),
            Log::default(),
        );
        let mut cl = Changelog {
            sink: &mut log,
            topic: "t",
            partition: 0,
        };
        put(
            &mut store,
            &mut tracker,
            &mut bufs,
            LEFT,
            b"k",
            5,
            b"a",
            &mut cl,
        )
        .unwrap();
        put(
            &mut store,
            &mut tracker,
            &mut bufs,
            LEFT,
            b"k",
            5,
            b"bc",
            &mut cl,
        )
        .unwrap();
        put(
            &mut store,
            &mut tracker,
            &mut bufs,
            RIGHT,
            b"k",
            5,
            b"r",
            &mut cl,
        )
        .unwrap();
        let mut key = 5i64.to_be_bytes().to_vec();
        key.extend_from_slice(&[1, b'k']);
        assert_eq!(
            store.get(&key).unwrap().unwrap(),
            [&[
                1u8, 0, 0, 0, 2, 0, 0, 0, 2, 1, b'a', 0, 0, 0, 3, 1, b'b', b'c'
            ][..]]
            .concat()
        );
        // before 10, after 2, grace 0: left closes after 5 + 2, right after 5 + 10.
        tracker.stream_time = 8;
        take_expired(&mut store, &mut tracker, &mut bufs, 10, 2, 0, 8, &mut cl).unwrap();
        let got: Vec<(u8, &[u8])> = bufs
            .records
            .iter()
            .map(|r| (r.side, &bufs.bytes[r.value.0..r.value.1]))
            .collect();
        assert_eq!(got, [(LEFT, &b"a"[..]), (LEFT, &b"bc"[..])]);
        assert_eq!(
            &bufs.bytes[bufs.records[0].key.0..bufs.records[0].key.1],
            b"k"
        );
        assert_eq!(store.len(), 1);
        assert_eq!(tracker.min_time, 5);
        tracker.stream_time = 16;
        take_expired(&mut store, &mut tracker, &mut bufs, 10, 2, 0, 16, &mut cl).unwrap();
        assert_eq!(bufs.records.len(), 1);
        assert_eq!(bufs.records[0].side, RIGHT);
        assert!(store.is_empty());
        assert_eq!(
            log.0.iter().filter(|r| r.1.is_none()).count(),
            2,
            "one tombstone per emptied key"
        );
    }
}
