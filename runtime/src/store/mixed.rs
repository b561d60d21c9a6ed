//! The backend of an application whose stores live on disk ([`LmdbStores`](super::LmdbStores))
//! but some of which are kept in memory (`in_memory()` in the topology, Kafka Streams'
//! `Materialized.as(Stores.inMemoryKeyValueStore(..))`): one of the two, chosen per store when
//! the task opens it. Each operation is one match on the variant before the backend's own code.
//!
//! A store in memory holds no changelog offset: each time its task starts (and after an
//! aborted interval) it alone is emptied and restored from its changelog's start, while the
//! task's stores on disk replay only the changelog after their offsets.

use std::ops::Bound;

use super::{Entry, LmdbBackend, LmdbRange, MemoryBackend, MemoryRange, StoreBackend, StoreError};

/// A store on disk or in memory, chosen per store when its task opens it: a store the topology
/// keeps in memory (`in_memory()`) holds no changelog offset, so each start (and an aborted
/// interval) empties it alone and restores it from its changelog's start, while the task's
/// stores on disk replay only the changelog after their offsets.
#[derive(Debug)]
pub enum MixedBackend {
    /// On disk.
    Lmdb(LmdbBackend),
    /// In memory.
    Memory(MemoryBackend),
}

/// The range scan of a [`MixedBackend`].
pub enum MixedRange<'a> {
    /// On disk.
    Lmdb(LmdbRange<'a>),
    /// In memory.
    Memory(MemoryRange<'a>),
}

impl<'a> Iterator for MixedRange<'a> {
    type Item = Entry<'a>;

    #[inline]
    fn next(&mut self) -> Option<Entry<'a>> {
        match self {
            MixedRange::Lmdb(r) => r.next(),
            MixedRange::Memory(r) => r.next(),
        }
    }
}

impl StoreBackend for MixedBackend {
    type Range<'a> = MixedRange<'a>;

    #[inline]
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.get(key),
            MixedBackend::Memory(b) => b.get(key),
        }
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.put(key, value),
            MixedBackend::Memory(b) => b.put(key, value),
        }
    }

    #[inline]
    fn delete(&mut self, key: &[u8]) -> Result<bool, StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.delete(key),
            MixedBackend::Memory(b) => b.delete(key),
        }
    }

    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<MixedRange<'a>, StoreError> {
        Ok(match self {
            MixedBackend::Lmdb(b) => MixedRange::Lmdb(b.range(from, to)?),
            MixedBackend::Memory(b) => MixedRange::Memory(b.range(from, to)?),
        })
    }

    #[inline]
    fn update<E>(
        &mut self,
        key: &[u8],
        buf: &mut Vec<u8>,
        update: impl FnOnce(Option<&[u8]>, &mut Vec<u8>) -> Result<bool, E>,
    ) -> Result<Result<(), E>, StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.update(key, buf, update),
            MixedBackend::Memory(b) => b.update(key, buf, update),
        }
    }

    fn clear(&mut self) -> Result<(), StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.clear(),
            MixedBackend::Memory(b) => b.clear(),
        }
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.flush(),
            MixedBackend::Memory(b) => b.flush(),
        }
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.sync(),
            MixedBackend::Memory(b) => b.sync(),
        }
    }

    fn flush_at(&mut self, changelog_offset: i64) -> Result<(), StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.flush_at(changelog_offset),
            MixedBackend::Memory(b) => b.flush_at(changelog_offset),
        }
    }

    fn changelog_offset(&self) -> Option<i64> {
        match self {
            MixedBackend::Lmdb(b) => b.changelog_offset(),
            MixedBackend::Memory(b) => b.changelog_offset(),
        }
    }

    /// A store in memory cannot take back the interval's writes: it empties itself, and the
    /// restore that follows the abort fills it from its changelog's start (as at every start),
    /// so the task's stores on disk keep theirs.
    fn discard_pending(&mut self) -> Result<bool, StoreError> {
        match self {
            MixedBackend::Lmdb(b) => b.discard_pending(),
            MixedBackend::Memory(b) => {
                b.clear()?;
                Ok(true)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            MixedBackend::Lmdb(b) => b.len(),
            MixedBackend::Memory(b) => b.len(),
        }
    }
}
