//! The typed view of a window store (`window_store(..)`) inside a `process(..)` closure: Kafka
//! Streams' `WindowStore`, as its persistent store behaves.
//!
//! # Retention
//!
//! The store remembers the latest window start ever put (its *observed stream time*, as Kafka
//! Streams' window stores keep it; a restore rebuilds it). A window whose start is `retention`
//! or more before it is expired: a put of it is not stored, reads do not see it (both as in
//! Kafka Streams 4.4), and the store deletes it (with a changelog tombstone) within half a
//! retention period.

use std::marker::PhantomData;
use std::ops::Bound;

use super::{WindowedPairs, as_slice_bound, check_time, encode_bound, key_within, store_range};
use crate::record::{OutgoingRecord, RecordSink};
use crate::serdes::{Encoded, Serde, Windowed};
use crate::store::{StoreBackend, StoreError, WINDOW_SUFFIX, encode, split_window_key, window_key};
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

    pub(super) fn index(&mut self) -> &mut TimeIndex {
        self.index
    }

    /// Deletes what the retention passed (every half retention period).
    pub(super) fn purge<B: StoreBackend, S: RecordSink>(
        &mut self,
        backend: &mut B,
        sink: &mut S,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
    ) -> Result<(), StoreError> {
        if *self.observed < *self.purge {
            return Ok(());
        }
        let cutoff = self.visible_from();
        self.index
            .expire_stored(backend, cutoff, None, sink, changelog, partition, timestamp)?;
        *self.purge = self.observed.saturating_add((self.retention_ms / 2).max(1));
        Ok(())
    }
}

/// Where a view's writes go: the changelog partition, the record's timestamp, the buffers.
pub(super) struct Writes<'a, S> {
    pub changelog: &'static str,
    pub partition: i32,
    pub timestamp: i64,
    pub key_buf: &'a mut Vec<u8>,
    pub value_buf: &'a mut Vec<u8>,
    pub sink: &'a mut S,
}

impl<S: RecordSink> Writes<'_, S> {
    /// Writes the changelog record of store key `key_buf` (`value_buf` or, `None`, a
    /// tombstone).
    pub(super) fn log(&mut self, value: bool) -> Result<(), StoreError> {
        self.sink.send(OutgoingRecord::changelog(
            self.changelog,
            self.partition,
            self.key_buf,
            value.then_some(&self.value_buf[..]),
            self.timestamp,
        ))?;
        Ok(())
    }
}

/// The typed view of a window store inside a `process(..)` closure: values under (key, window
/// start), each window `size` long. Every write goes to the store and, as one changelog
/// record, to the task's changelog partition.
///
/// `KS` and `VS` are the serdes the store was declared with
/// (`window_store("recent", Utf8, I64, size(..), retention(..))`).
///
/// | Kafka Streams `WindowStore` | here |
/// |---|---|
/// | `put(key, value, windowStart)` (`null` deletes) | [`put`](Self::put), [`delete`](Self::delete) |
/// | `fetch(key, time)` | [`fetch`](Self::fetch) |
/// | `fetch(key, timeFrom, timeTo)` / `backwardFetch` | [`fetch_range`](Self::fetch_range) / [`backward_fetch_range`](Self::backward_fetch_range) |
/// | `fetch(keyFrom, keyTo, timeFrom, timeTo)` | [`fetch_keys`](Self::fetch_keys) |
/// | `fetchAll(timeFrom, timeTo)` | [`fetch_all`](Self::fetch_all) |
/// | `all()` | [`all`](Self::all) |
///
/// Time bounds are inclusive, as Kafka Streams'. Results of several keys come as Kafka
/// Streams' persistent window store returns them: by segment (half the retention, at least a
/// minute, of window starts), then serialized key bytes, then window start; within one
/// segment that is key after key.
///
/// A put of a window the retention passed is not stored; it counts as a dropped record when
/// its whole segment has expired, as Kafka Streams counts it.
pub struct WindowStore<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> {
    backend: &'a mut B,
    retention: WindowRetention<'a>,
    size_ms: i64,
    writes: Writes<'a, S>,
    serdes: PhantomData<fn() -> (KS, VS)>,
}

impl<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> WindowStore<'a, KS, VS, B, S> {
    /// A view of `backend` (used by generated code).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        backend: &'a mut B,
        retention: WindowRetention<'a>,
        size_ms: i64,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        key_buf: &'a mut Vec<u8>,
        value_buf: &'a mut Vec<u8>,
        sink: &'a mut S,
    ) -> Self {
        WindowStore {
            backend,
            retention,
            size_ms,
            writes: Writes {
                changelog,
                partition,
                timestamp,
                key_buf,
                value_buf,
                sink,
            },
            serdes: PhantomData,
        }
    }

    /// The window length: a window starting at `s` ends at `s + size`.
    pub fn size_ms(&self) -> i64 {
        self.size_ms
    }

    /// Stores `value` in the window of `key` starting at `window_start`, replacing what was
    /// there, and writes the changelog record. A window the retention passed is not stored
    /// (Kafka Streams skips it too); a value that serializes to null deletes the window.
    pub fn put(
        &mut self,
        key: &KS::Value,
        value: &VS::Value,
        window_start: i64,
    ) -> Result<(), StoreError> {
        check_time("window start", window_start)?;
        if self.retention.observe(window_start) {
            return Ok(());
        }
        encode::<KS>(key, self.writes.key_buf)?;
        window_key(self.writes.key_buf, window_start);
        if encode::<VS>(value, self.writes.value_buf)? == Encoded::Null {
            self.delete_encoded()?;
        } else {
            self.backend
                .put(self.writes.key_buf, self.writes.value_buf)?;
            self.retention.index().insert(self.writes.key_buf);
            self.writes.log(true)?;
        }
        self.purge()
    }

    /// Deletes the window of `key` starting at `window_start` (Kafka Streams' `put(key, null,
    /// windowStart)`), writing a changelog tombstone if it was there.
    pub fn delete(&mut self, key: &KS::Value, window_start: i64) -> Result<(), StoreError> {
        check_time("window start", window_start)?;
        if self.retention.observe(window_start) {
            return Ok(());
        }
        encode::<KS>(key, self.writes.key_buf)?;
        window_key(self.writes.key_buf, window_start);
        self.delete_encoded()?;
        self.purge()
    }

    fn delete_encoded(&mut self) -> Result<(), StoreError> {
        if self.backend.delete(self.writes.key_buf)? {
            self.retention.index().remove(self.writes.key_buf);
            self.writes.log(false)?;
        }
        Ok(())
    }

    fn purge(&mut self) -> Result<(), StoreError> {
        let w = &mut self.writes;
        self.retention
            .purge(self.backend, w.sink, w.changelog, w.partition, w.timestamp)
    }

    /// The value of `key` in the window starting at `window_start`, if the store has it and
    /// the retention has not passed it.
    pub fn fetch(
        &mut self,
        key: &KS::Value,
        window_start: i64,
    ) -> Result<Option<VS::Value>, StoreError> {
        if window_start < self.retention.visible_from() {
            return Ok(None);
        }
        encode::<KS>(key, self.writes.key_buf)?;
        window_key(self.writes.key_buf, window_start);
        match self.backend.get(self.writes.key_buf)? {
            Some(bytes) => Ok(Some(VS::deserialize(Some(bytes))?)),
            None => Ok(None),
        }
    }

    /// The windows of `key` starting from `time_from` to `time_to` (both inclusive), oldest
    /// first: (window start, value).
    pub fn fetch_range(
        &mut self,
        key: &KS::Value,
        time_from: i64,
        time_to: i64,
    ) -> Result<Vec<(i64, VS::Value)>, StoreError> {
        let from = time_from.max(self.retention.visible_from()).max(0);
        let mut out = Vec::new();
        if time_to < from {
            return Ok(out);
        }
        encode::<KS>(key, self.writes.key_buf)?;
        let key_len = self.writes.key_buf.len();
        self.writes.value_buf.clear();
        self.writes
            .value_buf
            .extend_from_slice(self.writes.key_buf.as_slice());
        window_key(self.writes.key_buf, from);
        self.writes
            .value_buf
            .extend_from_slice(&time_to.to_be_bytes());
        self.writes.value_buf.extend_from_slice(&[0xFF; 4]);
        let range = self.backend.range(
            Bound::Included(self.writes.key_buf),
            Bound::Included(self.writes.value_buf),
        )?;
        for entry in range {
            let (k, v) = entry?;
            // Keys that extend this key's bytes sort among its windows: skip them.
            if k.len() != key_len + WINDOW_SUFFIX {
                continue;
            }
            if let Some((_, start)) = split_window_key(k) {
                out.push((start, VS::deserialize(Some(v))?));
            }
        }
        Ok(out)
    }

    /// [`fetch_range`](Self::fetch_range), newest first (Kafka Streams' `backwardFetch`).
    pub fn backward_fetch_range(
        &mut self,
        key: &KS::Value,
        time_from: i64,
        time_to: i64,
    ) -> Result<Vec<(i64, VS::Value)>, StoreError> {
        let mut out = self.fetch_range(key, time_from, time_to)?;
        out.reverse();
        Ok(out)
    }

    /// The windows of the keys between the bounds (serialized-key order) starting from
    /// `time_from` to `time_to` (both inclusive), in the store's order (see [`WindowStore`]).
    pub fn fetch_keys(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
        time_from: i64,
        time_to: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let lo = encode_bound::<KS>(from, self.writes.key_buf)?;
        let hi = encode_bound::<KS>(to, self.writes.value_buf)?;
        let key_lo = as_slice_bound(&lo, self.writes.key_buf);
        let key_hi = as_slice_bound(&hi, self.writes.value_buf);
        let mut out = Vec::new();
        let from_time = time_from.max(self.retention.visible_from()).max(0);
        if time_to < from_time {
            return Ok(out);
        }
        // The scan starts at the lower key's bytes (its windows follow them) and ends after
        // every window of the upper key.
        let scan_lo = match lo {
            Bound::Unbounded => Bound::Unbounded,
            _ => Bound::Included(&self.writes.key_buf[..]),
        };
        let mut upper = self.writes.value_buf.clone();
        let scan_hi = store_range(&hi, &mut upper, WINDOW_SUFFIX);
        let scan_hi = as_slice_bound(&scan_hi, &upper);
        for entry in self.backend.range(scan_lo, scan_hi)? {
            let (k, v) = entry?;
            let Some((key, start)) = split_window_key(k) else {
                continue;
            };
            if start < from_time || start > time_to || !key_within(key, key_lo, key_hi) {
                continue;
            }
            let key = KS::deserialize(Some(key))?;
            let window = Windowed::new(key, start, start.saturating_add(self.size_ms));
            out.push((window, VS::deserialize(Some(v))?));
        }
        // Store order is key, then start: a stable sort by segment gives Kafka Streams'
        // (segment, key, start).
        out.sort_by_key(|(w, _)| self.retention.segment(w.window.start));
        Ok(out)
    }

    /// [`fetch_keys`](Self::fetch_keys), in the opposite order.
    pub fn backward_fetch_keys(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
        time_from: i64,
        time_to: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let mut out = self.fetch_keys(from, to, time_from, time_to)?;
        out.reverse();
        Ok(out)
    }

    /// The windows of every key starting from `time_from` to `time_to` (both inclusive), in
    /// the store's order.
    pub fn fetch_all(
        &mut self,
        time_from: i64,
        time_to: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        self.fetch_keys(Bound::Unbounded, Bound::Unbounded, time_from, time_to)
    }

    /// [`fetch_all`](Self::fetch_all), in the opposite order.
    pub fn backward_fetch_all(
        &mut self,
        time_from: i64,
        time_to: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let mut out = self.fetch_all(time_from, time_to)?;
        out.reverse();
        Ok(out)
    }

    /// Every window the retention has not passed, in the store's order.
    pub fn all(&mut self) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        self.fetch_all(0, i64::MAX)
    }

    /// [`all`](Self::all), in the opposite order.
    pub fn backward_all(&mut self) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let mut out = self.all()?;
        out.reverse();
        Ok(out)
    }
}
