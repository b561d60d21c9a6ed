//! The buffer of `suppress_until_window_closes()`: the latest result of every open window, kept
//! in a changelogged store until stream time passes the window's end plus its grace (Kafka
//! Streams' `KTableSuppressProcessor` with `untilWindowCloses`), then forwarded once and deleted.
//!
//! Key = window end (8 bytes big-endian) ‖ the window store's key, so the closed windows are
//! the buffer's first entries (no scan of the rest); value = the result's timestamp (8 bytes) ‖
//! its bytes. Every put and eviction writes the changelog in the task's transaction, so under
//! exactly-once a result is emitted once even across a crash: either the eviction (output and
//! buffer tombstone) commits, or neither does and the restored buffer emits it again.

use std::ops::Bound;

use super::{WindowScratch, be_i64};
use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, buffer_full, store_error};
use crate::store::StoreBackend;

/// Kafka Streams' size estimate of a buffered record's context (`ProcessorRecordContext`:
/// timestamp, offset, partition), counted in every entry's bytes. Its topic name and headers,
/// which Kafka Streams adds too, are not counted here.
const CONTEXT_BYTES: u64 = 8 + 8 + 4;

/// The bytes an entry counts against `max_bytes`, as Kafka Streams'
/// `InMemoryTimeOrderedKeyValueChangeBuffer` counts them: 8 (the buffer time) + the serialized
/// key + the serialized value + the record context's fixed part.
#[inline]
pub(crate) fn entry_bytes(key: usize, value: usize) -> u64 {
    8 + key as u64 + value as u64 + CONTEXT_BYTES
}

/// The bounds of a suppression's buffer (Kafka Streams' `BufferConfig`): at most `max_records`
/// entries and `max_bytes` bytes (see [`SuppressState`]); when a put exceeds them, either the
/// earliest entries are emitted early (`emit_early`, `emitEarlyWhenFull()`) or the task stops
/// with an error (`shutDownWhenFull()`). `unbounded()` is `u64::MAX` for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferLimits {
    /// `maxRecords`.
    pub max_records: u64,
    /// `maxBytes`.
    pub max_bytes: u64,
    /// `emitEarlyWhenFull()` (else `shutDownWhenFull()`).
    pub emit_early: bool,
    /// The buffer config as the user wrote it, for the error of a full buffer.
    pub config: &'static str,
}

impl BufferLimits {
    /// `unbounded()`.
    pub const UNBOUNDED: BufferLimits = BufferLimits {
        max_records: u64::MAX,
        max_bytes: u64::MAX,
        emit_early: false,
        config: "unbounded()",
    };
}

/// The task-local state of one suppression: its observed stream time (Kafka Streams'
/// processor-local `observedStreamTime`, which restarts at -1 with the task) and the size of
/// its buffer, counted from the store at the first record after the task starts or restores.
#[derive(Debug)]
pub struct SuppressState {
    /// The largest timestamp that reached the suppression.
    pub time: i64,
    known: bool,
    records: u64,
    bytes: u64,
}

impl Default for SuppressState {
    fn default() -> Self {
        Self::new()
    }
}

impl SuppressState {
    /// A new suppression's state: no time observed, buffer size not counted yet.
    pub const fn new() -> Self {
        SuppressState {
            time: -1,
            known: false,
            records: 0,
            bytes: 0,
        }
    }

    /// Forgets the counted size (the store was restored or rolled back): the next record
    /// counts it again.
    pub fn forget(&mut self) {
        self.known = false;
    }

    /// Entries and bytes in the buffer.
    pub fn size(&self) -> (u64, u64) {
        (self.records, self.bytes)
    }

    fn over(&self, limits: &BufferLimits) -> bool {
        self.records > limits.max_records || self.bytes > limits.max_bytes
    }

    pub(crate) fn add(&mut self, bytes: u64) {
        self.records += 1;
        self.bytes += bytes;
    }

    pub(crate) fn remove(&mut self, bytes: u64) {
        self.records = self.records.saturating_sub(1);
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    /// Counts the buffer once per task life: `size` gives an entry's bytes (`None`: an entry
    /// that is not a buffered record, such as an index entry).
    pub(crate) fn count<B: StoreBackend>(
        &mut self,
        buffer: &B,
        node: &'static str,
        size: fn(&[u8], &[u8]) -> Option<u64>,
    ) -> Result<(), RecordError> {
        if self.known {
            return Ok(());
        }
        let (mut records, mut bytes) = (0, 0);
        for entry in buffer
            .range(Bound::Unbounded, Bound::Unbounded)
            .map_err(|e| store_error(node, e))?
        {
            let (k, v) = entry.map_err(|e| store_error(node, e))?;
            if let Some(b) = size(k, v) {
                records += 1;
                bytes += b;
            }
        }
        (self.records, self.bytes, self.known) = (records, bytes, true);
        Ok(())
    }

    /// After the expired entries left: whether the buffer must emit its earliest entry early
    /// (over its limits with `emit_early`); an error if it is over them without.
    pub(crate) fn check(
        &self,
        limits: &BufferLimits,
        node: &'static str,
    ) -> Result<bool, RecordError> {
        if !self.over(limits) {
            return Ok(false);
        }
        if limits.emit_early {
            return Ok(true);
        }
        Err(buffer_full(
            node,
            self.records,
            limits.max_records,
            self.bytes,
            limits.max_bytes,
            limits.config,
        ))
    }
}

/// An emit-final buffer entry's bytes: end ‖ store key, timestamp ‖ value.
fn window_entry(k: &[u8], v: &[u8]) -> Option<u64> {
    Some(entry_bytes(
        k.len().saturating_sub(8),
        v.len().saturating_sub(8),
    ))
}

/// Buffers the result `value` (`None`: a tombstone, which drops the window's buffered result)
/// of the window ending at `end` whose window-store key is `store_key`, stamped `timestamp`.
/// `scratch.lo` and `scratch.value` are used as buffers.
#[inline]
pub fn buffer_put<B: StoreBackend, S: RecordSink>(
    buffer: &mut B,
    store_key: &[u8],
    end: i64,
    value: Option<&[u8]>,
    timestamp: i64,
    state: &mut SuppressState,
    scratch: &mut WindowScratch,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<(), RecordError> {
    state.count(buffer, node, window_entry)?;
    let key = &mut scratch.lo;
    key.clear();
    key.extend_from_slice(&end.to_be_bytes());
    key.extend_from_slice(store_key);
    match value {
        Some(bytes) => {
            let v = &mut scratch.value;
            v.clear();
            v.extend_from_slice(&timestamp.to_be_bytes());
            v.extend_from_slice(bytes);
            if let Some(old) = buffer.get(key).map_err(|e| store_error(node, e))? {
                state.remove(entry_bytes(key.len() - 8, old.len().saturating_sub(8)));
            }
            state.add(entry_bytes(key.len() - 8, bytes.len()));
            buffer.put(key, v).map_err(|e| store_error(node, e))?;
            sink.send(OutgoingRecord::changelog(
                changelog,
                partition,
                key,
                Some(v),
                timestamp,
            ))?;
        }
        None => {
            if let Some(old) = buffer.get(key).map_err(|e| store_error(node, e))? {
                state.remove(entry_bytes(key.len() - 8, old.len().saturating_sub(8)));
            }
            if buffer.delete(key).map_err(|e| store_error(node, e))? {
                sink.send(OutgoingRecord::changelog(
                    changelog, partition, key, None, timestamp,
                ))?;
            }
        }
    }
    Ok(())
}

/// The step both suppressions' evictions share: the first entry of `buffer` below `upper`,
/// whose key and value start with `header` bytes (the buffer time as the key's last eight of
/// them, the record's timestamp as the value's first eight), is taken if its time is at or
/// before `limit` or the buffer is over `limits` and they say emit early: copied to
/// `scratch.hi` (key) and `scratch.value` (value), deleted from the store (not from the
/// changelog: the caller writes its tombstones) and from the buffer's size. Its timestamp, or
/// `None` when nothing is due.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn take_earliest<B: StoreBackend>(
    buffer: &mut B,
    upper: Bound<&[u8]>,
    header: usize,
    limit: i64,
    limits: &BufferLimits,
    state: &mut SuppressState,
    scratch: &mut WindowScratch,
    node: &'static str,
) -> Result<Option<i64>, RecordError> {
    {
        let mut range = buffer
            .range(Bound::Unbounded, upper)
            .map_err(|e| store_error(node, e))?;
        let Some(entry) = range.next() else {
            return Ok(None);
        };
        let (k, v) = entry.map_err(|e| store_error(node, e))?;
        if k.len() < header || v.len() < header {
            return Ok(None);
        }
        if be_i64(k, header - 8) > limit && !state.check(limits, node)? {
            return Ok(None);
        }
        scratch.hi.clear();
        scratch.hi.extend_from_slice(k);
        scratch.value.clear();
        scratch.value.extend_from_slice(v);
    }
    state.remove(entry_bytes(
        scratch.hi.len() - header,
        scratch.value.len() - header,
    ));
    buffer
        .delete(&scratch.hi)
        .map_err(|e| store_error(node, e))?;
    Ok(Some(be_i64(&scratch.value, 0)))
}

/// Takes the buffered result of the earliest-ending window if it ends at or before `limit`
/// (stream time minus the window's grace), or if the buffer is over `limits` (only when they
/// say `emit_early`: `shutDownWhenFull()` fails the task instead): deletes it (writing the
/// changelog tombstone) and returns its timestamp, with its window-store key in
/// `scratch.hi[8..]` and its bytes in `scratch.value[8..]`. `None` when no window closed.
#[inline]
pub fn buffer_evict_next<B: StoreBackend, S: RecordSink>(
    buffer: &mut B,
    limit: i64,
    limits: &BufferLimits,
    state: &mut SuppressState,
    scratch: &mut WindowScratch,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<Option<i64>, RecordError> {
    state.count(buffer, node, window_entry)?;
    let Some(timestamp) = take_earliest(
        buffer,
        Bound::Unbounded,
        8,
        limit,
        limits,
        state,
        scratch,
        node,
    )?
    else {
        return Ok(None);
    };
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        &scratch.hi,
        None,
        timestamp,
    ))?;
    Ok(Some(timestamp))
}
