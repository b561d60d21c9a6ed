//! Session windows as Kafka Streams' `KStreamSessionWindowAggregate` computes them.
//!
//! A record of key `k` at time `t` opens the session `[t, t]`, or merges with every session of
//! `k` that ends at or after `t − gap` and starts at or before `t + gap` (bounds inclusive): the
//! merged session spans from the smallest start to the largest end, its aggregate is the
//! initializer merged (`merger`) with each found session's aggregate in store order, then the
//! record added (`aggregator`). The found sessions are deleted (a changelog tombstone each) and,
//! downstream, replaced by a tombstone under their old session key, unless the merged session is
//! `[t, t]` itself (then it is overwritten in place). A record whose merged session ends before
//! `stream time − grace − gap` is late: dropped and counted.

use std::ops::Bound;

use super::be_i64;
use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, store_error};
use crate::serdes::Serde;
use crate::store::{StoreBackend, StoreError};

/// A session's bounds, both inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionSpan {
    /// The first record's timestamp.
    pub start: i64,
    /// The last record's timestamp.
    pub end: i64,
}

/// Appends a session's end and start (8 bytes big-endian each) to the key bytes in `out`: the
/// store key, which is also what `SessionWindowedSerializer` writes.
#[inline]
pub fn session_key(out: &mut Vec<u8>, start: i64, end: i64) {
    out.extend_from_slice(&end.to_be_bytes());
    out.extend_from_slice(&start.to_be_bytes());
}

/// Splits a session key into key bytes, start and end.
#[inline]
pub fn split_session_key(bytes: &[u8]) -> Option<(&[u8], i64, i64)> {
    let split = bytes.len().checked_sub(16)?;
    Some((
        &bytes[..split],
        be_i64(bytes, split + 8),
        be_i64(bytes, split),
    ))
}

/// Finds the sessions of the key in `key` (its bytes) that a record at `t` merges with, into
/// `found` as `(start, end)` in store order, and returns the merged session (`[t, t]` if none).
/// One range scan from `key ‖ t − gap`: sessions of the key sort by end, and since they never
/// overlap, by start too, so the scan stops at the first session starting after `t + gap`.
/// `lo` and `hi` are scratch buffers for the bounds. Sessions ending before `visible_from` are
/// expired and not found, as Kafka Streams' stores hide what is older than their retention
/// (largest session end stored − retention + 1).
#[inline]
pub fn session_find<B: StoreBackend>(
    store: &B,
    key: &[u8],
    t: i64,
    gap: i64,
    visible_from: i64,
    found: &mut Vec<(i64, i64)>,
    lo: &mut Vec<u8>,
    hi: &mut Vec<u8>,
    node: &'static str,
) -> Result<SessionSpan, RecordError> {
    found.clear();
    lo.clear();
    lo.extend_from_slice(key);
    session_key(lo, 0, t.saturating_sub(gap).max(visible_from).max(0));
    hi.clear();
    hi.extend_from_slice(key);
    session_key(hi, i64::MAX, i64::MAX);
    let latest_start = t.saturating_add(gap);
    let mut merged = SessionSpan { start: t, end: t };
    let range = store
        .range(Bound::Included(lo), Bound::Included(hi))
        .map_err(|e| store_error(node, e))?;
    for entry in range {
        let (k, _) = entry.map_err(|e| store_error(node, e))?;
        // Keys that extend this key's bytes sort among its sessions: skip them.
        if k.len() != key.len() + 16 {
            continue;
        }
        let (start, end) = (be_i64(k, key.len() + 8), be_i64(k, key.len()));
        if start > latest_start {
            break;
        }
        found.push((start, end));
        merged.start = merged.start.min(start);
        merged.end = merged.end.max(end);
    }
    Ok(merged)
}

/// Merges the aggregates of the `found` sessions of the key in `key` (store order) with
/// `merge(aggregate so far, session aggregate)` and returns the result (`None` if none was
/// found). With `remove`, deletes each found session and writes its changelog tombstone
/// (stamped `timestamp`) and drops it from `index`. `key` holds the key bytes again on return.
#[inline]
pub fn session_merge<VS: Serde, B: StoreBackend, S: RecordSink, F>(
    store: &mut B,
    index: &mut super::TimeIndex,
    key: &mut Vec<u8>,
    found: &[(i64, i64)],
    remove: bool,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    mut merge: F,
) -> Result<Option<VS::Value>, RecordError>
where
    F: FnMut(Option<VS::Value>, VS::Value) -> VS::Value,
{
    let key_len = key.len();
    let mut aggregate = None;
    for &(start, end) in found {
        session_key(key, start, end);
        let value = match store.get(key) {
            Ok(Some(bytes)) => {
                VS::deserialize(Some(bytes)).map_err(|e| store_error(node, StoreError::Serde(e)))
            }
            Ok(None) => Err(store_error(
                node,
                StoreError::Backend(format!(
                    "session [{start}, {end}] vanished from the store while being merged"
                )),
            )),
            Err(e) => Err(store_error(node, e)),
        };
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                key.truncate(key_len);
                return Err(e);
            }
        };
        aggregate = Some(merge(aggregate, value));
        if remove {
            index.remove(key);
            let deleted = store.delete(key).map_err(|e| store_error(node, e));
            let sent = deleted.and_then(|_| {
                sink.send(OutgoingRecord::changelog(
                    changelog, partition, key, None, timestamp,
                ))
                .map_err(RecordError::from)
            });
            if let Err(e) = sent {
                key.truncate(key_len);
                return Err(e);
            }
        }
        key.truncate(key_len);
    }
    Ok(aggregate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    fn put(store: &mut MemoryBackend, key: &[u8], start: i64, end: i64) {
        let mut k = key.to_vec();
        session_key(&mut k, start, end);
        store.put(&k, b"v").expect("put");
    }

    #[test]
    fn finds_the_sessions_within_the_gap_and_skips_longer_keys() {
        let mut store = MemoryBackend::default();
        put(&mut store, b"a", 0, 5);
        put(&mut store, b"a", 20, 30);
        put(&mut store, b"a", 60, 70);
        // A key extending "a" whose bytes sort among a's sessions.
        put(&mut store, b"a\x00", 0, 0);
        let (mut found, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new());
        let span = session_find(
            &store,
            b"a",
            17,
            10,
            i64::MIN,
            &mut found,
            &mut lo,
            &mut hi,
            "n",
        )
        .expect("find");
        assert_eq!(found, [(20, 30)]);
        assert_eq!(span, SessionSpan { start: 17, end: 30 });
        let span = session_find(
            &store,
            b"a",
            15,
            10,
            i64::MIN,
            &mut found,
            &mut lo,
            &mut hi,
            "n",
        )
        .expect("find");
        assert_eq!(found, [(0, 5), (20, 30)]);
        assert_eq!(span, SessionSpan { start: 0, end: 30 });
        session_find(
            &store,
            b"a",
            45,
            10,
            i64::MIN,
            &mut found,
            &mut lo,
            &mut hi,
            "n",
        )
        .expect("find");
        assert!(found.is_empty());
        // Expired sessions (ending before what the store still shows) are not found.
        session_find(&store, b"a", 15, 10, 6, &mut found, &mut lo, &mut hi, "n").expect("find");
        assert_eq!(found, [(20, 30)]);
        let mut k = b"key".to_vec();
        session_key(&mut k, 3, 9);
        assert_eq!(split_session_key(&k), Some((&b"key"[..], 3, 9)));
    }
}
