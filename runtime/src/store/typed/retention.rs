//! The retention of the window and session stores of `process(..)`: what Kafka Streams'
//! persistent (segmented) stores keep, see, drop and count, shared by both views.

use super::Writes;
use crate::record::RecordSink;
use crate::store::{StoreBackend, StoreError};
use crate::window::TimeIndex;

/// The retention state of a window or session store of `process(..)`, which lives in the task
/// and is lent to the store's view: the store's time index, the latest time it holds (window
/// start, session end), the next time to purge, the retention.
#[derive(Debug)]
pub struct WindowRetention<'a> {
    index: &'a mut TimeIndex,
    observed: &'a mut i64,
    purge: &'a mut i64,
    retention_ms: i64,
    /// The task's count of records dropped as late (`dropped-records`).
    dropped: &'a mut u64,
}

/// The shortest segment of Kafka Streams' persistent window and session stores.
const MIN_SEGMENT_INTERVAL_MS: i64 = 60_000;

impl<'a> WindowRetention<'a> {
    /// The task's retention state of one store (used by generated code).
    #[doc(hidden)]
    pub fn new(
        index: &'a mut TimeIndex,
        observed: &'a mut i64,
        purge: &'a mut i64,
        retention_ms: i64,
        dropped: &'a mut u64,
    ) -> Self {
        WindowRetention {
            index,
            observed,
            purge,
            retention_ms,
            dropped,
        }
    }

    /// The segment of Kafka Streams' persistent (RocksDB) store that holds `time`: its
    /// segments span half the retention, at least a minute. Results of several keys come in
    /// segment order, as that store returns them.
    pub(super) fn segment(&self, time: i64) -> i64 {
        time / (self.retention_ms / 2).max(MIN_SEGMENT_INTERVAL_MS)
    }

    /// The earliest time still visible: the observed stream time − retention + 1.
    pub(super) fn visible_from(&self) -> i64 {
        self.observed
            .saturating_sub(self.retention_ms)
            .saturating_add(1)
    }

    /// Observes a write at `time`; whether it is expired already (then it is not stored: no
    /// read could see it). It is counted as dropped when Kafka Streams' persistent store
    /// counts it: when its whole segment has expired (a write to a segment still live is kept
    /// there but never read).
    pub(super) fn observe(&mut self, time: i64) -> bool {
        *self.observed = (*self.observed).max(time);
        let expired = time < self.visible_from();
        if expired
            && self.segment(time) < self.segment(self.observed.saturating_sub(self.retention_ms))
        {
            *self.dropped += 1;
        }
        expired
    }

    /// Stores the entry encoded in `writes`' buffers (or, `null`, deletes its key), keeps the
    /// time index and the changelog in step, then purges what the retention passed.
    pub(super) fn write<B: StoreBackend, S: RecordSink>(
        &mut self,
        backend: &mut B,
        writes: &mut Writes<'_, S>,
        null: bool,
    ) -> Result<(), StoreError> {
        if null {
            self.remove(backend, writes)?;
        } else {
            writes.put(backend)?;
            self.index.insert(writes.key_buf);
        }
        self.purge(backend, writes)
    }

    /// Deletes the key encoded in `writes`' key buffer, if stored, from the store, its time
    /// index and (a tombstone) the changelog.
    pub(super) fn remove<B: StoreBackend, S: RecordSink>(
        &mut self,
        backend: &mut B,
        writes: &mut Writes<'_, S>,
    ) -> Result<(), StoreError> {
        if writes.delete(backend)? {
            self.index.remove(writes.key_buf);
        }
        Ok(())
    }

    /// Deletes what the retention passed (every half retention period).
    pub(super) fn purge<B: StoreBackend, S: RecordSink>(
        &mut self,
        backend: &mut B,
        writes: &mut Writes<'_, S>,
    ) -> Result<(), StoreError> {
        if *self.observed < *self.purge {
            return Ok(());
        }
        let cutoff = self.visible_from();
        let w = writes;
        self.index.expire_stored(
            backend,
            cutoff,
            None,
            w.sink,
            w.changelog,
            w.partition,
            w.timestamp,
        )?;
        *self.purge = self.observed.saturating_add((self.retention_ms / 2).max(1));
        Ok(())
    }
}
