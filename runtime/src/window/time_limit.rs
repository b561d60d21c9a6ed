//! The buffer of `suppress_until_time_limit(..)` (Kafka Streams'
//! `suppress(Suppressed.untilTimeLimit(..))`): the latest update of every key, held until the
//! suppression's stream time reaches the time the key was *first* buffered plus the limit, then
//! forwarded once (with the latest update's timestamp) and deleted. A later update of a buffered
//! key replaces its value but keeps its place ("non-resetting", as Kafka Streams'
//! `InMemoryTimeOrderedKeyValueChangeBuffer#cleanPut`).
//!
//! One store holds two kinds of entries, both written to the changelog in the task's
//! transaction, so a restore rebuilds both and under exactly-once an update is emitted once:
//!
//! - `0x00 ‖ buffer time (8 bytes big-endian) ‖ key` → timestamp (8 bytes) ‖ `1` ‖ value bytes,
//!   or timestamp ‖ `0` for a delete (a table's delete is buffered and forwarded too): the
//!   entries in the order they expire;
//! - `0x01 ‖ key` → buffer time (8 bytes): where a key's entry is.

use std::ops::Bound;

use super::suppress::{BufferLimits, SuppressState, entry_bytes, take_earliest};
use super::{WindowScratch, be_i64};
use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, store_error};
use crate::store::StoreBackend;

const ENTRY: u8 = 0;
const INDEX: u8 = 1;

/// A buffered record's bytes (`None` for an index entry).
fn entry_size(k: &[u8], v: &[u8]) -> Option<u64> {
    (k.first() == Some(&ENTRY))
        .then(|| entry_bytes(k.len().saturating_sub(9), v.len().saturating_sub(9)))
}

fn send<S: RecordSink>(
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
) -> Result<(), RecordError> {
    sink.send(OutgoingRecord::changelog(
        changelog, partition, key, value, timestamp,
    ))?;
    Ok(())
}

/// Buffers the update of `key` (its bytes): `value` its new value's bytes, `None` a delete,
/// stamped `timestamp`. A key buffered for the first time takes `timestamp` as its buffer time.
/// `scratch.lo`, `scratch.hi` and `scratch.value` are used as buffers.
#[inline]
pub fn limit_put<B: StoreBackend, S: RecordSink>(
    buffer: &mut B,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    state: &mut SuppressState,
    scratch: &mut WindowScratch,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<(), RecordError> {
    state.count(buffer, node, entry_size)?;
    state.time = state.time.max(timestamp);
    let index = &mut scratch.hi;
    index.clear();
    index.push(INDEX);
    index.extend_from_slice(key);
    let first = match buffer.get(index).map_err(|e| store_error(node, e))? {
        Some(t) if t.len() == 8 => Some(be_i64(t, 0)),
        _ => None,
    };
    let time = first.unwrap_or(timestamp);
    let entry = &mut scratch.lo;
    entry.clear();
    entry.push(ENTRY);
    entry.extend_from_slice(&time.to_be_bytes());
    entry.extend_from_slice(key);
    match first {
        Some(_) => {
            if let Some(old) = buffer.get(entry).map_err(|e| store_error(node, e))? {
                state.remove(entry_bytes(key.len(), old.len().saturating_sub(9)));
            }
        }
        None => {
            let t = time.to_be_bytes();
            buffer.put(index, &t).map_err(|e| store_error(node, e))?;
            send(sink, changelog, partition, index, Some(&t), timestamp)?;
        }
    }
    let v = &mut scratch.value;
    v.clear();
    v.extend_from_slice(&timestamp.to_be_bytes());
    v.push(u8::from(value.is_some()));
    v.extend_from_slice(value.unwrap_or_default());
    state.add(entry_bytes(key.len(), value.map_or(0, <[u8]>::len)));
    buffer.put(entry, v).map_err(|e| store_error(node, e))?;
    send(sink, changelog, partition, entry, Some(v), timestamp)
}

/// Takes the earliest-buffered update if its buffer time is at or before `limit` (the
/// suppression's stream time minus the time limit), or if the buffer is over `limits` and they
/// say `emit_early` (over them without, the task fails: `shutDownWhenFull()`): deletes it
/// (writing the changelog tombstones) and returns its timestamp, with the key's bytes in
/// `scratch.hi[9..]` and in `scratch.value[8]` `1` and the value's bytes after it (`0`: a delete).
/// `None` when nothing is due.
#[inline]
pub fn limit_evict_next<B: StoreBackend, S: RecordSink>(
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
    state.count(buffer, node, entry_size)?;
    // Time-ordered entries (`0x00 ‖ time ‖ key`) come before the key index (`0x01 ‖ key`).
    let Some(timestamp) = take_earliest(
        buffer,
        Bound::Excluded(&[INDEX][..]),
        9,
        limit,
        limits,
        state,
        scratch,
        node,
    )?
    else {
        return Ok(None);
    };
    send(sink, changelog, partition, &scratch.hi, None, timestamp)?;
    let index = &mut scratch.lo;
    index.clear();
    index.push(INDEX);
    index.extend_from_slice(&scratch.hi[9..]);
    buffer.delete(index).map_err(|e| store_error(node, e))?;
    send(sink, changelog, partition, index, None, timestamp)?;
    Ok(Some(timestamp))
}

/// Appends one value of a table's change to the bytes `suppress_until_time_limit(..)` buffers
/// for a table that forwards changes (its new value, then its old one): `1 ‖ length (4 bytes
/// big-endian) ‖ bytes`, or `0` for no value.
#[inline]
pub fn push_change_part(out: &mut Vec<u8>, part: Option<&[u8]>) {
    match part {
        Some(bytes) => {
            out.push(1);
            out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            out.extend_from_slice(bytes);
        }
        None => out.push(0),
    }
}

/// One value of a buffered change and what follows it.
fn change_part(bytes: &[u8]) -> Option<(Option<&[u8]>, &[u8])> {
    match bytes.split_first()? {
        (0, rest) => Some((None, rest)),
        (1, rest) if rest.len() >= 4 => {
            let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let rest = &rest[4..];
            (rest.len() >= len).then(|| (Some(&rest[..len]), &rest[len..]))
        }
        _ => None,
    }
}

/// The new and the old value of a buffered change, as bytes.
pub type ChangeParts<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// Splits the bytes of a buffered change ([`push_change_part`] twice) into its new and old
/// values; `None` if they are not such bytes.
#[inline]
pub fn split_change(bytes: &[u8]) -> Option<ChangeParts<'_>> {
    let (new, rest) = change_part(bytes)?;
    let (old, rest) = change_part(rest)?;
    rest.is_empty().then_some((new, old))
}

#[cfg(test)]
mod change_tests {
    use super::*;

    #[test]
    fn a_buffered_change_splits_into_what_was_pushed() {
        for (new, old) in [
            (Some(&b"new"[..]), Some(&b"old"[..])),
            (None, Some(&b""[..])),
            (Some(&b""[..]), None),
            (None, None),
        ] {
            let mut out = Vec::new();
            push_change_part(&mut out, new);
            push_change_part(&mut out, old);
            assert_eq!(split_change(&out), Some((new, old)));
        }
        assert_eq!(split_change(&[1, 0, 0, 0, 9, b'x']), None);
        assert_eq!(split_change(&[0, 0, 7]), None);
    }
}
