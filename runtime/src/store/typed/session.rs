//! The typed view of a session store (`session_store(..)`) inside a `process(..)` closure:
//! Kafka Streams' `SessionStore`, as its persistent store behaves.
//!
//! A session is a value under (key, start, end), both times inclusive. The store keeps a key's
//! sessions by end, then start (the layout of the session aggregations' stores, and Kafka
//! Streams' `SessionKeySchema`).
//!
//! # Retention
//!
//! The store remembers the latest session end ever put (its *observed stream time*; a restore
//! rebuilds it). A session ending `retention` or more before it is expired: a put of it is
//! dropped, reads do not see it, and the store deletes it (with a changelog tombstone) within
//! half a retention period.

use std::marker::PhantomData;
use std::ops::Bound;

use super::{WindowRetention, WindowedPairs, Writes, check_time, for_each_in_key_range};
use crate::record::RecordSink;
use crate::serdes::{Encoded, Serde, Window, Windowed};
use crate::store::{StoreBackend, StoreError, encode};
use crate::window::{session_key, split_session_key};

/// The bytes after the key in a session store key: end, then start.
const SESSION_SUFFIX: usize = 16;

/// Sessions of one key: (the session's window, its value).
pub type Sessions<V> = Vec<(Window, V)>;

/// The typed view of a session store inside a `process(..)` closure. Every write goes to the
/// store and, as one changelog record, to the task's changelog partition.
///
/// `KS` and `VS` are the serdes the store was declared with
/// (`session_store("visits", Utf8, I64, retention(..))`).
///
/// | Kafka Streams `SessionStore` | here |
/// |---|---|
/// | `put(Windowed<K>, agg)` (`null` removes) | [`put`](Self::put) |
/// | `remove(Windowed<K>)` | [`remove`](Self::remove) |
/// | `fetchSession(key, start, end)` | [`fetch_session`](Self::fetch_session) |
/// | `findSessions(key, earliestSessionEndTime, latestSessionStartTime)` | [`find_sessions`](Self::find_sessions) |
/// | `findSessions(keyFrom, keyTo, ..)` | [`find_sessions_range`](Self::find_sessions_range) |
/// | `fetch(key)` / `fetch(keyFrom, keyTo)` | [`fetch`](Self::fetch) / [`fetch_range`](Self::fetch_range) |
/// | the `backward` variants | the `backward_` methods |
///
/// A key's sessions come oldest first (by end, then start); a key range comes key after key
/// (serialized-key order), as Kafka Streams' session stores return them.
pub struct SessionStore<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> {
    backend: &'a mut B,
    retention: WindowRetention<'a>,
    writes: Writes<'a, S>,
    serdes: PhantomData<fn() -> (KS, VS)>,
}

impl<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> SessionStore<'a, KS, VS, B, S> {
    /// A view of `backend` (used by generated code).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        backend: &'a mut B,
        retention: WindowRetention<'a>,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        key_buf: &'a mut Vec<u8>,
        value_buf: &'a mut Vec<u8>,
        sink: &'a mut S,
    ) -> Self {
        SessionStore {
            backend,
            retention,
            writes: Writes::new(changelog, partition, timestamp, key_buf, value_buf, sink),
            serdes: PhantomData,
        }
    }

    /// Stores `value` as the session `[start, end]` of `key`, replacing what was there, and
    /// writes the changelog record. A session the retention passed is not stored (Kafka
    /// Streams skips it too); a value that serializes to null removes the session.
    pub fn put(
        &mut self,
        key: &KS::Value,
        start: i64,
        end: i64,
        value: &VS::Value,
    ) -> Result<(), StoreError> {
        self.session(key, start, end)?;
        if self.retention.observe(end) {
            return Ok(());
        }
        let null = encode::<VS>(value, self.writes.value_buf)? == Encoded::Null;
        self.retention.write(self.backend, &mut self.writes, null)
    }

    /// Removes the session `[start, end]` of `key`, writing a changelog tombstone if it was
    /// there.
    pub fn remove(&mut self, key: &KS::Value, start: i64, end: i64) -> Result<(), StoreError> {
        self.session(key, start, end)?;
        if self.retention.observe(end) {
            return Ok(());
        }
        self.retention.remove(self.backend, &mut self.writes)?;
        self.retention.purge(self.backend, &mut self.writes)
    }

    /// Encodes the store key of a session into the key buffer.
    fn session(&mut self, key: &KS::Value, start: i64, end: i64) -> Result<(), StoreError> {
        check_time("session start", start)?;
        check_time("session end", end)?;
        encode::<KS>(key, self.writes.key_buf)?;
        session_key(self.writes.key_buf, start, end);
        Ok(())
    }

    /// The value of the session `[start, end]` of `key`: only a session with exactly these
    /// bounds.
    pub fn fetch_session(
        &mut self,
        key: &KS::Value,
        start: i64,
        end: i64,
    ) -> Result<Option<VS::Value>, StoreError> {
        if end < self.retention.visible_from() || start < 0 || end < 0 {
            return Ok(None);
        }
        encode::<KS>(key, self.writes.key_buf)?;
        session_key(self.writes.key_buf, start, end);
        self.writes.get::<VS, B>(self.backend)
    }

    /// The sessions of `key` that end at or after `earliest_session_end` and start at or
    /// before `latest_session_start` (both inclusive: the sessions overlapping that span),
    /// oldest first.
    pub fn find_sessions(
        &mut self,
        key: &KS::Value,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<Sessions<VS::Value>, StoreError> {
        let earliest_end = earliest_session_end
            .max(self.retention.visible_from())
            .max(0);
        encode::<KS>(key, self.writes.key_buf)?;
        let key_len = self.writes.key_buf.len();
        self.writes.value_buf.clear();
        self.writes
            .value_buf
            .extend_from_slice(self.writes.key_buf.as_slice());
        session_key(self.writes.key_buf, 0, earliest_end);
        session_key(self.writes.value_buf, i64::MAX, i64::MAX);
        let mut out = Vec::new();
        let range = self.backend.range(
            Bound::Included(self.writes.key_buf),
            Bound::Included(self.writes.value_buf),
        )?;
        for entry in range {
            let (k, v) = entry?;
            // Keys that extend this key's bytes sort among its sessions: skip them.
            if k.len() != key_len + SESSION_SUFFIX {
                continue;
            }
            let Some((_, start, end)) = split_session_key(k) else {
                continue;
            };
            if start <= latest_session_start {
                out.push((Window { start, end }, VS::deserialize(Some(v))?));
            }
        }
        Ok(out)
    }

    /// [`find_sessions`](Self::find_sessions), newest first.
    pub fn backward_find_sessions(
        &mut self,
        key: &KS::Value,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<Sessions<VS::Value>, StoreError> {
        let mut out = self.find_sessions(key, earliest_session_end, latest_session_start)?;
        out.reverse();
        Ok(out)
    }

    /// Every session of `key`, oldest first.
    pub fn fetch(&mut self, key: &KS::Value) -> Result<Sessions<VS::Value>, StoreError> {
        self.find_sessions(key, 0, i64::MAX)
    }

    /// Every session of `key`, newest first.
    pub fn backward_fetch(&mut self, key: &KS::Value) -> Result<Sessions<VS::Value>, StoreError> {
        self.backward_find_sessions(key, 0, i64::MAX)
    }

    /// The sessions of the keys between the bounds (serialized-key order) that end at or
    /// after `earliest_session_end` and start at or before `latest_session_start`: key after
    /// key, each key's oldest first.
    pub fn find_sessions_range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let earliest_end = earliest_session_end.max(self.retention.visible_from());
        let mut out = Vec::new();
        for_each_in_key_range::<KS, _, _>(
            self.backend,
            self.writes.key_buf,
            self.writes.value_buf,
            from,
            to,
            SESSION_SUFFIX,
            |k| split_session_key(k).map(|(key, start, end)| (key, (start, end))),
            |key, (start, end), v| {
                if end >= earliest_end && start <= latest_session_start {
                    let key = KS::deserialize(Some(key))?;
                    out.push((Windowed::new(key, start, end), VS::deserialize(Some(v))?));
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// [`find_sessions_range`](Self::find_sessions_range), in the opposite order.
    pub fn backward_find_sessions_range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
        earliest_session_end: i64,
        latest_session_start: i64,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        let mut out =
            self.find_sessions_range(from, to, earliest_session_end, latest_session_start)?;
        out.reverse();
        Ok(out)
    }

    /// Every session of the keys between the bounds: key after key, each key's oldest first.
    pub fn fetch_range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        self.find_sessions_range(from, to, 0, i64::MAX)
    }

    /// [`fetch_range`](Self::fetch_range), in the opposite order.
    pub fn backward_fetch_range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
    ) -> Result<WindowedPairs<KS::Value, VS::Value>, StoreError> {
        self.backward_find_sessions_range(from, to, 0, i64::MAX)
    }
}
