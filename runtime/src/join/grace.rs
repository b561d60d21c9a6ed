//! The buffer of a stream-table join with a grace period (`join(table, f, grace(..))`, Kafka
//! Streams' `Joined.withGracePeriod`, KIP-923): stream records wait in a changelogged store
//! until the buffer's stream time (the largest timestamp put into it) passes their timestamp
//! plus the grace, then are joined against the versioned table as of their timestamps.
//!
//! Store key = timestamp (8 bytes big-endian) ‖ the record's key bytes ‖ a sequence number (4
//! bytes big-endian), Kafka Streams' `TimeFirstWindowKeySchema`: the records leave in timestamp
//! order, then by key bytes, then in arrival order. Value = the record's value bytes. Every put
//! and eviction writes the changelog in the task's transaction, so a record is joined once under
//! exactly-once: either its eviction (output and buffer tombstone) commits or neither does.

use std::ops::Bound;

use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, store_error};
use crate::store::StoreBackend;

/// The bytes of the timestamp before the key in a buffer key.
const TIME_LEN: usize = 8;
/// The bytes of the sequence number after it.
const SEQ_LEN: usize = 4;

/// The state of one grace join's buffer in its task: the buffer's stream time and the last
/// sequence number, both read from the store again after the task restores or rolls back.
#[derive(Debug)]
pub struct GraceBuffer {
    time: i64,
    seq: u32,
    known: bool,
}

impl Default for GraceBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl GraceBuffer {
    /// A buffer state to be read from the store at the first record.
    pub const fn new() -> Self {
        GraceBuffer {
            time: i64::MIN,
            seq: 0,
            known: false,
        }
    }

    /// Forgets the state (the store was cleared, restored or rolled back).
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// The buffer's stream time: the largest timestamp put into it (`i64::MIN` before).
    pub fn stream_time(&self) -> i64 {
        self.time
    }

    /// Reads the stream time and last sequence number from what the store holds (the largest
    /// of each; Kafka Streams starts its sequence numbers again, which could overwrite a
    /// buffered record of the same key and timestamp).
    fn learn<B: StoreBackend>(&mut self, store: &B, node: &'static str) -> Result<(), RecordError> {
        if self.known {
            return Ok(());
        }
        let range = store
            .range(Bound::Unbounded, Bound::Unbounded)
            .map_err(|e| store_error(node, e))?;
        for entry in range {
            let (key, _) = entry.map_err(|e| store_error(node, e))?;
            if let Some((ts, _, seq)) = split(key) {
                self.time = self.time.max(ts);
                self.seq = self.seq.max(seq);
            }
        }
        self.known = true;
        Ok(())
    }

    /// Buffers the record (`key`, `value` bytes, `timestamp`) unless it is late (older than the
    /// buffer's stream time minus `grace_ms`): `false` means late, join it now. `scratch` holds
    /// the store key.
    #[allow(clippy::too_many_arguments)]
    pub fn put<B: StoreBackend, S: RecordSink>(
        &mut self,
        store: &mut B,
        key: &[u8],
        value: &[u8],
        timestamp: i64,
        grace_ms: i64,
        sink: &mut S,
        changelog: &'static str,
        partition: i32,
        scratch: &mut Vec<u8>,
        node: &'static str,
    ) -> Result<bool, RecordError> {
        self.learn(store, node)?;
        // A negative timestamp (only a processor can set one: sources drop them) would sort
        // after the positive ones in the buffer's big-endian keys: joined at once.
        if self.time.saturating_sub(grace_ms) > timestamp || timestamp < 0 {
            return Ok(false);
        }
        self.seq = (self.seq + 1) & 0x7FFF_FFFF;
        scratch.clear();
        scratch.extend_from_slice(&timestamp.to_be_bytes());
        scratch.extend_from_slice(key);
        scratch.extend_from_slice(&self.seq.to_be_bytes());
        store
            .put(scratch, value)
            .map_err(|e| store_error(node, e))?;
        sink.send(OutgoingRecord::changelog(
            changelog,
            partition,
            scratch,
            Some(value),
            timestamp,
        ))?;
        self.time = self.time.max(timestamp);
        Ok(true)
    }

    /// Takes the oldest record whose time has come (its timestamp at most the buffer's stream
    /// time minus `grace_ms`) out of the buffer: its key bytes into `key`, its value bytes into
    /// `value`, the changelog told; returns its timestamp, or `None` when no record is due.
    #[allow(clippy::too_many_arguments)]
    pub fn evict_next<B: StoreBackend, S: RecordSink>(
        &mut self,
        store: &mut B,
        grace_ms: i64,
        sink: &mut S,
        changelog: &'static str,
        partition: i32,
        key: &mut Vec<u8>,
        value: &mut Vec<u8>,
        node: &'static str,
    ) -> Result<Option<i64>, RecordError> {
        let deadline = self.time.saturating_sub(grace_ms);
        if deadline < 0 {
            return Ok(None);
        }
        let end = deadline.saturating_add(1).to_be_bytes();
        let bound = if deadline == i64::MAX {
            Bound::Unbounded
        } else {
            Bound::Excluded(&end[..])
        };
        key.clear();
        value.clear();
        let timestamp = {
            let mut range = store
                .range(Bound::Unbounded, bound)
                .map_err(|e| store_error(node, e))?;
            let Some(entry) = range.next() else {
                return Ok(None);
            };
            let (k, v) = entry.map_err(|e| store_error(node, e))?;
            let Some((ts, _, _)) = split(k) else {
                return Err(store_error(
                    node,
                    crate::store::StoreError::Backend(format!(
                        "a grace join buffer's key has {} bytes, fewer than its timestamp and sequence number: the store holds data of another layout; delete the application's state directory so it is restored from the changelog",
                        k.len()
                    )),
                ));
            };
            key.extend_from_slice(k);
            value.extend_from_slice(v);
            ts
        };
        store.delete(key).map_err(|e| store_error(node, e))?;
        sink.send(OutgoingRecord::changelog(
            changelog, partition, key, None, timestamp,
        ))?;
        key.truncate(key.len() - SEQ_LEN);
        key.drain(..TIME_LEN);
        Ok(Some(timestamp))
    }
}

/// A buffer key's timestamp, record key bytes and sequence number.
fn split(key: &[u8]) -> Option<(i64, &[u8], u32)> {
    let (ts, rest) = key.split_first_chunk::<TIME_LEN>()?;
    let (rest, seq) = rest.split_last_chunk::<SEQ_LEN>()?;
    Some((i64::from_be_bytes(*ts), rest, u32::from_be_bytes(*seq)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    /// Counts the changelog records.
    #[derive(Default)]
    struct CollectingSink(usize);
    impl RecordSink for CollectingSink {
        fn send(&mut self, _: OutgoingRecord<'_>) -> Result<(), crate::record::SinkError> {
            self.0 += 1;
            Ok(())
        }
    }

    #[test]
    fn records_leave_in_timestamp_then_key_order_once_the_grace_passed() {
        let mut store = MemoryBackend::default();
        let mut sink = CollectingSink::default();
        let mut g = GraceBuffer::new();
        let mut scratch = Vec::new();
        let mut put = |g: &mut GraceBuffer,
                       store: &mut MemoryBackend,
                       sink: &mut CollectingSink,
                       k: &str,
                       ts| {
            g.put(
                store,
                k.as_bytes(),
                b"v",
                ts,
                100,
                sink,
                "c",
                0,
                &mut scratch,
                "n",
            )
            .unwrap()
        };
        assert!(put(&mut g, &mut store, &mut sink, "k", 30));
        assert!(put(&mut g, &mut store, &mut sink, "j", 30));
        assert!(put(&mut g, &mut store, &mut sink, "k", 12));
        let (mut k, mut v) = (Vec::new(), Vec::new());
        let mut evict =
            |g: &mut GraceBuffer, store: &mut MemoryBackend, sink: &mut CollectingSink| {
                g.evict_next(store, 100, sink, "c", 0, &mut k, &mut v, "n")
                    .unwrap()
                    .map(|ts| (String::from_utf8(k.clone()).unwrap(), ts))
            };
        assert_eq!(evict(&mut g, &mut store, &mut sink), None, "stream time 30");
        assert!(put(&mut g, &mut store, &mut sink, "k", 130));
        assert_eq!(evict(&mut g, &mut store, &mut sink), Some(("k".into(), 12)));
        assert_eq!(evict(&mut g, &mut store, &mut sink), Some(("j".into(), 30)));
        assert_eq!(evict(&mut g, &mut store, &mut sink), Some(("k".into(), 30)));
        assert_eq!(evict(&mut g, &mut store, &mut sink), None);
        // Late: older than 130 - 100.
        assert!(!put(&mut g, &mut store, &mut sink, "k", 29));
        assert!(
            put(&mut g, &mut store, &mut sink, "k", 30),
            "at the deadline: buffered"
        );
        assert_eq!(evict(&mut g, &mut store, &mut sink), Some(("k".into(), 30)));
        // After a restore the state is read from the store again.
        assert!(put(&mut g, &mut store, &mut sink, "x", 200));
        let mut restored = GraceBuffer::new();
        assert!(
            !put(&mut restored, &mut store, &mut sink, "y", 99),
            "late after the restore too"
        );
        assert_eq!(restored.stream_time(), 200);
        assert!(
            restored.seq > 1,
            "sequence numbers go on from the stored ones"
        );
    }
}
