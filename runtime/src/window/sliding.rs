//! Sliding windows as Kafka Streams' `KStreamSlidingWindowAggregate` computes them (its
//! reverse-iterator path, which both of its built-in window stores take).
//!
//! A window is `[start, start + d]`, both ends inclusive, and exists only where records are: a
//! record at `t` updates every existing window of its key that contains it, creates its *left*
//! window `[t − d, t]` (holding the records of the previous window that fall in it), creates its
//! *right* window `[t + 1, t + 1 + d]` if a later record already lies there, and creates the
//! previous record's right window if `t` falls into it. Records before `d` share the window
//! `[0, d]`. A window whose end is before `stream time − grace` is not updated (the record is
//! counted late for it); a record with `t + d < stream time − grace` is dropped whole.
//!
//! [`sliding_plan`] reads the key's windows in `[t − 2d, t + 1]` once and lists the steps in
//! Kafka Streams' order; the generated code runs them (load, aggregate, store, forward), since
//! only it knows the user's types and downstream operators.

use std::ops::Bound;

use super::{WindowScratch, be_i64};
use crate::record::{OutgoingRecord, RecordSink};
use crate::record_error::{RecordError, store_error};
use crate::serdes::{Encoded, Serde};
use crate::store::{StoreBackend, StoreError, window_key};

/// Where a step's starting aggregate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The window's own stored aggregate.
    Stored,
    /// The aggregate of the record's previous window, as it was before this record (left window).
    Left,
    /// The aggregate of the window holding the next later records, as it was before this record
    /// (right window).
    Right,
    /// None: the initializer.
    Init,
}

/// One window a record creates or updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlidingStep {
    /// The window's start.
    pub start: i64,
    /// Its starting aggregate.
    pub base: Base,
    /// Whether the record is added (false: the window is created from `Right` as it is).
    pub apply: bool,
}

fn step(start: i64, base: Base) -> SlidingStep {
    SlidingStep {
        start,
        base,
        apply: true,
    }
}

/// Copies the stored value (timestamp ‖ aggregate) under `key ‖ start` into `out`.
fn copy_value<B: StoreBackend>(
    store: &B,
    key: &mut Vec<u8>,
    start: i64,
    out: &mut Vec<u8>,
    node: &'static str,
) -> Result<(), RecordError> {
    let len = key.len();
    window_key(key, start);
    let got = store.get(key).map_err(|e| store_error(node, e));
    key.truncate(len);
    out.clear();
    if let Some(bytes) = got? {
        out.extend_from_slice(bytes);
    }
    Ok(())
}

/// Lists in `scratch.steps` the windows a record of the key in `key` (its bytes) at `t` creates
/// or updates, windows `d` long, in Kafka Streams' order. Keeps the aggregates the new windows
/// start from in `scratch.left` and `scratch.right`. `key` holds the key bytes again on return.
/// Windows starting before `visible_from` are expired and not seen, as Kafka Streams' stores
/// hide what is older than their retention (largest window start stored − retention + 1).
pub fn sliding_plan<B: StoreBackend>(
    store: &B,
    key: &mut Vec<u8>,
    t: i64,
    d: i64,
    visible_from: i64,
    scratch: &mut WindowScratch,
    node: &'static str,
) -> Result<(), RecordError> {
    let WindowScratch {
        sessions: found,
        steps,
        left,
        right,
        lo,
        hi,
        ..
    } = scratch;
    steps.clear();
    found.clear();
    let early = t < d;
    lo.clear();
    lo.extend_from_slice(key);
    let from = if early {
        0
    } else {
        t.saturating_sub(2 * d).max(0)
    };
    window_key(lo, from.max(visible_from));
    hi.clear();
    hi.extend_from_slice(key);
    window_key(hi, t.saturating_add(1));
    // (start, largest record timestamp) of the key's windows in the range, by start.
    for entry in store
        .range(Bound::Included(lo), Bound::Included(hi))
        .map_err(|e| store_error(node, e))?
    {
        let (k, v) = entry.map_err(|e| store_error(node, e))?;
        if k.len() != key.len() + crate::store::WINDOW_SUFFIX || v.len() < 8 {
            continue;
        }
        found.push((be_i64(k, key.len()), be_i64(v, 0)));
    }
    if early {
        return plan_early(store, key, t, found, steps, right, node);
    }
    let mut right_ts = None;
    let mut previous = None;
    let mut left_created = false;
    let mut right_created = false;
    let mut seen = 0;
    for &(start, ts) in found.iter().rev() {
        seen += 1;
        let end = start + d;
        if start == t + 1 {
            right_created = true;
        } else if end > t {
            if right_ts.is_none() {
                copy_value(store, key, start, right, node)?;
                right_ts = Some(ts);
            }
            steps.push(step(start, Base::Stored));
        } else if end == t {
            left_created = true;
            steps.push(step(start, Base::Stored));
            if ts < t {
                previous = Some(ts);
            } else {
                // The record's previous window ends at it: every window exists already.
                return Ok(());
            }
        } else {
            copy_value(store, key, start, left, node)?;
            previous = Some(ts);
            break;
        }
    }
    let seen = &found[found.len() - seen..];
    let exists = |start: i64| seen.iter().any(|&(s, _)| s == start);
    if let Some(p) = previous {
        let start = p + 1;
        if !exists(start) && start + d >= t {
            steps.push(step(start, Base::Init));
        }
    }
    if !left_created {
        let base = match previous {
            Some(p) if t - d <= p => Base::Left,
            _ => Base::Init,
        };
        steps.push(step(t - d, base));
    }
    if !right_created && right_ts.is_some_and(|ts| ts > t) {
        steps.push(SlidingStep {
            start: t + 1,
            base: Base::Right,
            apply: false,
        });
    }
    Ok(())
}

/// A record before `d`: its left window would start before 0, so such records share `[0, d]`.
fn plan_early<B: StoreBackend>(
    store: &B,
    key: &mut Vec<u8>,
    t: i64,
    found: &[(i64, i64)],
    steps: &mut Vec<SlidingStep>,
    right: &mut Vec<u8>,
    node: &'static str,
) -> Result<(), RecordError> {
    let mut combined = None;
    let mut right_ts = None;
    let mut previous = None;
    let mut right_created = false;
    for &(start, ts) in found {
        if start == 0 {
            combined = Some(ts);
            if ts < t {
                previous = Some(ts);
            }
        } else if start <= t {
            copy_value(store, key, start, right, node)?;
            right_ts = Some(ts);
            steps.push(step(start, Base::Stored));
        } else if start == t + 1 {
            right_created = true;
        }
    }
    if right_ts.is_none()
        && let Some(ts) = combined
        && ts > t
    {
        copy_value(store, key, 0, right, node)?;
        right_ts = Some(ts);
    }
    if !right_created && right_ts.is_some_and(|ts| ts > t) {
        steps.push(SlidingStep {
            start: t + 1,
            base: Base::Right,
            apply: false,
        });
    }
    if let Some(p) = previous
        && !found.iter().any(|&(s, _)| s == p + 1)
    {
        steps.push(step(p + 1, Base::Init));
    }
    steps.push(step(
        0,
        if combined.is_some() {
            Base::Stored
        } else {
            Base::Init
        },
    ));
    Ok(())
}

/// The starting aggregate of `step` and its timestamp: the stored window's (its largest record
/// timestamp), a copied one's, or none (`Init`, timestamp `t`). `key` holds the key bytes.
#[inline]
pub fn sliding_load<VS: Serde, B: StoreBackend>(
    store: &B,
    key: &mut Vec<u8>,
    scratch: &WindowScratch,
    step: SlidingStep,
    t: i64,
    node: &'static str,
) -> Result<(Option<VS::Value>, i64), RecordError> {
    let decode = |bytes: &[u8]| -> Result<(Option<VS::Value>, i64), RecordError> {
        if bytes.len() < 8 {
            return Err(store_error(
                node,
                StoreError::Backend(format!(
                    "a sliding window's stored value has {} bytes, less than its 8-byte timestamp",
                    bytes.len()
                )),
            ));
        }
        let value = VS::deserialize(Some(&bytes[8..]))
            .map_err(|e| store_error(node, StoreError::Serde(e)))?;
        Ok((Some(value), be_i64(bytes, 0)))
    };
    match step.base {
        Base::Init => Ok((None, t)),
        // The left window's aggregate starts stamped with the record's time.
        Base::Left => decode(&scratch.left).map(|(v, _)| (v, t)),
        Base::Right => decode(&scratch.right),
        Base::Stored => {
            let len = key.len();
            window_key(key, step.start);
            let got = store.get(key);
            key.truncate(len);
            match got.map_err(|e| store_error(node, e))? {
                Some(bytes) => decode(bytes),
                None => Ok((None, t)),
            }
        }
    }
}

/// Stores `value` with its timestamp `ts` as window `start` of the key in `key` and writes the
/// changelog record (stamped `ts`). On return `key` holds the store key (key ‖ start) and
/// `value_buf` the aggregate's bytes after the timestamp; returns whether it is stored (a value
/// that encodes as null deletes the window).
#[inline]
pub fn sliding_store<VS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &mut Vec<u8>,
    value_buf: &mut Vec<u8>,
    start: i64,
    ts: i64,
    value: &VS::Value,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    node: &'static str,
) -> Result<bool, RecordError> {
    window_key(key, start);
    value_buf.clear();
    value_buf.extend_from_slice(&ts.to_be_bytes());
    let encoded =
        VS::serialize(value, value_buf).map_err(|e| store_error(node, StoreError::Serde(e)))?;
    let present = encoded == Encoded::Present;
    if present {
        store
            .put(key, value_buf)
            .map_err(|e| store_error(node, e))?;
    } else {
        store.delete(key).map_err(|e| store_error(node, e))?;
    }
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        key,
        present.then_some(value_buf.as_slice()),
        ts,
    ))?;
    Ok(present)
}
