//! State stores: a byte-ordered backend abstraction, its two backends (in memory, and LMDB on
//! disk), and the typed view that `process(...)` closures use.
//!
//! # Layout
//!
//! Every store keeps **serialized** keys and values, ordered by the key bytes, as Kafka Streams
//! does. That makes range scans return the same order on every backend (memory and LMDB),
//! lets restore apply changelog records without deserializing them, and lets a task
//! write the changelog record from the very bytes it stored.
//!
//! - Key-value stores: key = the serialized key.
//! - Window stores: key = the serialized key followed by the window start as 8 bytes
//!   big-endian, so all windows of one key are one ordered scan
//!   ([`window_key`]).
//!
//! # Why bytes and not typed maps in memory
//!
//! A typed `HashMap<K, V>` would save the key serialization on a lookup, but every store write
//! must be serialized anyway for the changelog, so the key bytes exist already; a range over
//! typed keys would have to be re-sorted by their bytes to agree with Kafka Streams and LMDB;
//! and restore would have to deserialize every changelog record. So stores keep bytes.
//!
//! Which map holds the bytes was measured (`cargo bench -p dekaf-streams-benches --bench
//! word_count`, group `store`: one count update — get, add one, put — on 500 warm keys, on a
//! busy 2-core machine): a bytes `BTreeMap<Vec<u8>, Vec<u8>>` took about 230–430 ns per
//! update (two ordered lookups, each a chain of `memcmp` calls), a typed `BTreeMap<String,
//! i64>` 130–240 ns, the [`MemoryBackend`] below (bytes in a `HashMap` plus an ordered key
//! index) 80–90 ns with get + put and one lookup with [`StoreBackend::update`], and a typed
//! `HashMap<String, i64>` 30–60 ns. The memory backend is therefore a hash map for point
//! operations (what aggregations, joins and most processors do per record) plus a `BTreeSet`
//! of the same keys (shared `Arc<[u8]>`, so a key is stored once) for ordered range scans. An
//! update of an existing key reuses the stored value's buffer, so a steady-state update
//! allocates nothing.
//!
//! # Backends
//!
//! A backend is chosen per application through a [`BackendFactory`]: [`MemoryStores`] opens
//! [`MemoryBackend`]s (the default), [`LmdbStores`] opens [`LmdbBackend`]s in a state
//! directory (`KafkaStreams::builder(..).state_dir(..)`), and [`MemoryBackend`]s for the stores
//! the topology keeps in memory (`in_memory()`), each as a [`MixedBackend`]. The generated tasks are generic over
//! the backend, so there is no dispatch on the hot path.
//!
//! Either way the changelog topic is the truth: a memory store is rebuilt from it whenever a
//! task starts, an LMDB store only from the changelog offset it recorded with its last
//! committed flush on (see [`StoreBackend::flush_at`] and [`crate::state_dir`]).

mod key_order;
mod lmdb;
mod memory;
mod mixed;
mod typed;

use std::ops::Bound;

pub use lmdb::{LmdbBackend, LmdbRange, LmdbStores, open_raw_env};
pub use memory::{MemoryBackend, MemoryRange, MemoryStores};
pub use mixed::{MixedBackend, MixedRange};
pub use typed::{
    KeyValueStore, Pairs, SessionStore, Sessions, WindowRetention, WindowStore, WindowedPairs,
};

use crate::record::SinkError;
use crate::serdes::{Encoded, Serde, SerdeError};
use crate::topology::StoreInfo;

/// A failure of a store operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A key or value could not be (de)serialized.
    #[error("store serde: {0}")]
    Serde(#[from] SerdeError),
    /// The changelog record could not be sent.
    #[error("changelog: {0}")]
    Sink(#[from] SinkError),
    /// The backend failed (for example a disk error).
    #[error("store backend: {0}")]
    Backend(String),
    /// A store on disk is damaged: LMDB refuses its file as corrupt, not of its format, or of
    /// another version. The store is a cache of its changelog, so the runtime deletes it and
    /// restores it from the changelog; every other failure to open a store (permissions, open
    /// files, a full disk) is [`StoreError::Backend`], which the runtime reports and never
    /// answers by deleting anything.
    #[error(
        "the store at {path} is damaged ({reason}); it is a cache of its changelog: delete it \
         and it is restored from there"
    )]
    Damaged {
        /// The store's directory.
        path: String,
        /// What LMDB said.
        reason: String,
    },
    /// A key is longer than the backend can hold.
    #[error(
        "a store key of {len} bytes is longer than the {max} bytes LMDB stores allow: shorten the \
         key, or keep this application's state in memory (no state_dir)"
    )]
    KeyTooLong {
        /// The key's length in bytes.
        len: usize,
        /// The longest key the backend takes.
        max: usize,
    },
    /// A `process(..)` closure gave a window or session store a negative time.
    #[error(
        "a {what} of {time} ms is negative: window and session stores keep times from 0 on          (Unix milliseconds); check the time the closure computes"
    )]
    NegativeTime {
        /// Which time: a window start, a session start or end.
        what: &'static str,
        /// The time given.
        time: i64,
    },
}

/// One entry of a range scan: key bytes and value bytes.
pub type Entry<'a> = Result<(&'a [u8], &'a [u8]), StoreError>;

/// The bytes-level storage under one state store of one task.
///
/// Keys are ordered by their bytes (lexicographically, as `[u8]` compares). Implementations:
/// [`MemoryBackend`]; an LMDB backend follows the same contract.
pub trait StoreBackend {
    /// The iterator of [`StoreBackend::range`].
    type Range<'a>: Iterator<Item = Entry<'a>>
    where
        Self: 'a;

    /// The value stored under `key`.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend cannot read (for example a disk error).
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError>;
    /// Stores `value` under `key`, replacing what was there.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError>;
    /// Removes `key`; says whether it was there.
    fn delete(&mut self, key: &[u8]) -> Result<bool, StoreError>;
    /// The entries whose keys lie between the bounds, in key-byte order. A range whose start
    /// lies after its end is empty.
    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<Self::Range<'a>, StoreError>;
    /// Replaces the value under `key` by what `update` writes into `buf` given the current
    /// value; `update` returns whether it wrote a value (`false` deletes the key). The memory
    /// backend does this with one lookup; the default is `get` then `put` or `delete`. The
    /// outer error is the backend's, the inner one `update`'s.
    fn update<E>(
        &mut self,
        key: &[u8],
        buf: &mut Vec<u8>,
        update: impl FnOnce(Option<&[u8]>, &mut Vec<u8>) -> Result<bool, E>,
    ) -> Result<Result<(), E>, StoreError> {
        let present = match update(self.get(key)?, buf) {
            Ok(present) => present,
            Err(e) => return Ok(Err(e)),
        };
        if present {
            self.put(key, buf)?;
        } else {
            self.delete(key)?;
        }
        Ok(Ok(()))
    }
    /// Removes every entry (a task dropping uncommitted state before it restores).
    fn clear(&mut self) -> Result<(), StoreError>;
    /// Writes what changed since the last flush through to the backend's storage. The memory
    /// backend has nothing to do; the LMDB backend writes its pending changes in one write
    /// transaction. The runtime flushes after every commit; a backend may also flush on its
    /// own when its pending changes grow large.
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Flushes and makes the storage durable (fsync), before the task closes.
    fn sync(&mut self) -> Result<(), StoreError> {
        self.flush()
    }
    /// Writes what changed since the last flush through to storage together with
    /// `changelog_offset`, the offset of the first changelog record the store does not reflect
    /// yet, atomically. The runtime calls it only once a commit made these writes durable in
    /// Kafka (and after a restore, with where the restore ended); a restart then replays only
    /// the changelog from [`StoreBackend::changelog_offset`] on. Backends that do not outlive
    /// their task (memory) just flush.
    fn flush_at(&mut self, changelog_offset: i64) -> Result<(), StoreError> {
        let _ = changelog_offset;
        self.flush()
    }
    /// The changelog offset the stored contents reflect, as the last [`StoreBackend::flush_at`]
    /// recorded it; `None` when unknown, or when storage may hold writes no commit confirmed
    /// (the store flushed on its own, or was cleared, since): then it must be cleared and
    /// restored from the changelog's start.
    fn changelog_offset(&self) -> Option<i64> {
        None
    }
    /// Drops the writes made since the last flush (an aborted commit interval). Says whether
    /// the store is now exactly as of its [`StoreBackend::changelog_offset`]; `false` (the
    /// default, and whenever writes of the interval already reached storage) means the caller
    /// must clear it and restore it from the changelog.
    fn discard_pending(&mut self) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// The number of entries.
    fn len(&self) -> usize;
    /// Whether the store is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Opens the backend of one store of one task.
pub trait BackendFactory {
    /// The backend it opens.
    type Backend: StoreBackend;
    /// Opens (or creates) the backend of `store` for the task of `subtopology` on `partition`.
    fn open(
        &mut self,
        application_id: &str,
        subtopology: &str,
        partition: i32,
        store: &StoreInfo,
    ) -> Result<Self::Backend, StoreError>;
}

fn bound_value<'a>(bound: &Bound<&'a [u8]>) -> Option<&'a [u8]> {
    match bound {
        Bound::Included(b) | Bound::Excluded(b) => Some(b),
        Bound::Unbounded => None,
    }
}

/// Whether a range with these bounds is empty by construction (`BTreeSet::range` panics on
/// such bounds; we answer with an empty range instead).
pub(crate) fn inverted(from: &Bound<&[u8]>, to: &Bound<&[u8]>) -> bool {
    match (bound_value(from), bound_value(to)) {
        (Some(f), Some(t)) => {
            f > t
                || (f == t
                    && !(matches!(from, Bound::Included(_)) && matches!(to, Bound::Included(_))))
        }
        _ => false,
    }
}

/// The bytes [`window_key`] appends after the key bytes: the window start (8) and a sequence
/// number (4). The start is this many bytes before the end of a window-store key.
pub const WINDOW_SUFFIX: usize = 12;

/// Appends the window-store key of (`key bytes`, `window start`) to `out`: the key bytes, then
/// the start as 8 bytes big-endian (so the windows of one key sort by start), then a 4-byte
/// sequence number, always 0. This is Kafka Streams' `WindowKeySchema` store key, which it also
/// writes to a window store's changelog; keeping the same layout lets either side restore the
/// other's changelog (taking over a running application in place).
#[inline]
pub fn window_key(out: &mut Vec<u8>, start: i64) {
    out.extend_from_slice(&start.to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
}

/// Splits a window-store key into the key bytes and the window start.
pub fn split_window_key(bytes: &[u8]) -> Option<(&[u8], i64)> {
    let split = bytes.len().checked_sub(WINDOW_SUFFIX)?;
    let (key, suffix) = bytes.split_at(split);
    let mut start = [0u8; 8];
    start.copy_from_slice(&suffix[..8]);
    Some((key, i64::from_be_bytes(start)))
}

/// The `TimeWindowed` serialization of a window-store key (key bytes, then the start): the store
/// key without its sequence number, as Kafka Streams' `TimeWindowedSerializer` writes it.
#[inline]
pub fn time_windowed_bytes(store_key: &[u8]) -> &[u8] {
    &store_key[..store_key.len().saturating_sub(WINDOW_SUFFIX - 8)]
}

/// Serializes with `S` into `out` (cleared first); `None` for a null encoding.
#[inline]
pub(crate) fn encode<S: Serde>(value: &S::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
    out.clear();
    S::serialize(value, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_keys_sort_by_key_then_start() {
        let mut a = b"k".to_vec();
        window_key(&mut a, 1_000);
        let mut b = b"k".to_vec();
        window_key(&mut b, 60_000);
        assert!(a < b);
        assert_eq!(split_window_key(&b), Some((&b"k"[..], 60_000)));
    }

    #[test]
    fn window_keys_are_kafka_streams_window_key_schema() {
        // WindowKeySchema.toStoreKeyBinary("k", 1000, seqnum 0): key, timestamp, sequence number.
        let mut k = b"k".to_vec();
        window_key(&mut k, 1_000);
        assert_eq!(k, [b'k', 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 0]);
        assert_eq!(split_window_key(&k[..11]), None);
        assert_eq!(time_windowed_bytes(&k), &k[..9]);
    }
}
