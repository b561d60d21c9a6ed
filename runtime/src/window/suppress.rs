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
use crate::record_error::{RecordError, store_error};
use crate::store::StoreBackend;

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
    scratch: &mut WindowScratch,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<(), RecordError> {
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
            if buffer.delete(key).map_err(|e| store_error(node, e))? {
                sink.send(OutgoingRecord::changelog(
                    changelog, partition, key, None, timestamp,
                ))?;
            }
        }
    }
    Ok(())
}

/// Takes the buffered result of the earliest-ending window if it ends at or before `limit`
/// (stream time minus the window's grace): deletes it (writing the changelog tombstone) and
/// returns its timestamp, with its window-store key in `scratch.hi[8..]` and its bytes in
/// `scratch.value[8..]`. `None` when no window closed.
#[inline]
pub fn buffer_evict_next<B: StoreBackend, S: RecordSink>(
    buffer: &mut B,
    limit: i64,
    scratch: &mut WindowScratch,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<Option<i64>, RecordError> {
    {
        let mut range = buffer
            .range(Bound::Unbounded, Bound::Unbounded)
            .map_err(|e| store_error(node, e))?;
        let Some(entry) = range.next() else {
            return Ok(None);
        };
        let (k, v) = entry.map_err(|e| store_error(node, e))?;
        if k.len() < 8 || v.len() < 8 || be_i64(k, 0) > limit {
            return Ok(None);
        }
        scratch.hi.clear();
        scratch.hi.extend_from_slice(k);
        scratch.value.clear();
        scratch.value.extend_from_slice(v);
    }
    let timestamp = be_i64(&scratch.value, 0);
    buffer
        .delete(&scratch.hi)
        .map_err(|e| store_error(node, e))?;
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        &scratch.hi,
        None,
        timestamp,
    ))?;
    Ok(Some(timestamp))
}
