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

use super::{WindowRetention, WindowedPairs, Writes, check_time, for_each_in_key_range};
use crate::record::RecordSink;
use crate::serdes::{Encoded, Serde, Windowed};
use crate::store::{StoreBackend, StoreError, WINDOW_SUFFIX, encode, split_window_key, window_key};

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
            writes: Writes::new(changelog, partition, timestamp, key_buf, value_buf, sink),
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
        let null = encode::<VS>(value, self.writes.value_buf)? == Encoded::Null;
        self.retention.write(self.backend, &mut self.writes, null)
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
        self.retention.remove(self.backend, &mut self.writes)?;
        self.retention.purge(self.backend, &mut self.writes)
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
        self.writes.get::<VS, B>(self.backend)
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
        let mut out = Vec::new();
        let from_time = time_from.max(self.retention.visible_from()).max(0);
        if time_to < from_time {
            return Ok(out);
        }
        let size = self.size_ms;
        for_each_in_key_range::<KS, _, _>(
            self.backend,
            self.writes.key_buf,
            self.writes.value_buf,
            from,
            to,
            WINDOW_SUFFIX,
            split_window_key,
            |key, start, v| {
                if (from_time..=time_to).contains(&start) {
                    let window = Windowed::new(
                        KS::deserialize(Some(key))?,
                        start,
                        start.saturating_add(size),
                    );
                    out.push((window, VS::deserialize(Some(v))?));
                }
                Ok(())
            },
        )?;
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
