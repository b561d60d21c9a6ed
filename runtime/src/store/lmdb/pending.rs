//! The writes an LMDB store has taken since its last flush.

use std::ops::Bound;

use crate::fast_hash::FastHashMap;

/// How many emptied buffers are kept for reuse.
const SPARE_BUFFERS: usize = 65_536;
/// Buffers larger than this are not kept for reuse.
const SPARE_CAPACITY: usize = 4_096;

/// Pending writes: for each key written since the last flush, its new value (`None`: deleted).
///
/// Point reads look here first, then in LMDB. The buffers of flushed entries are kept and
/// reused, so a store whose pending set refills to a similar size every commit interval
/// allocates nothing in steady state.
#[derive(Debug, Default)]
pub(super) struct Pending {
    map: FastHashMap<Vec<u8>, Option<Vec<u8>>>,
    spare: Vec<Vec<u8>>,
    bytes: usize,
}

impl Pending {
    /// `Some(Some(value))`: written; `Some(None)`: deleted; `None`: not touched since the flush.
    #[inline]
    pub(super) fn get(&self, key: &[u8]) -> Option<Option<&[u8]>> {
        self.map.get(key).map(Option::as_deref)
    }

    /// Records `key` → `value` (`None`: deleted).
    #[inline]
    pub(super) fn set(&mut self, key: &[u8], value: Option<&[u8]>) {
        if let Some(slot) = self.map.get_mut(key) {
            match (slot.as_mut(), value) {
                (Some(stored), Some(value)) => {
                    self.bytes = self.bytes + value.len() - stored.len();
                    stored.clear();
                    stored.extend_from_slice(value);
                }
                (Some(_), None) => {
                    if let Some(old) = slot.take() {
                        self.bytes -= old.len();
                        Self::keep(&mut self.spare, old);
                    }
                }
                (None, Some(value)) => {
                    self.bytes += value.len();
                    *slot = Some(Self::copy(&mut self.spare, value));
                }
                (None, None) => {}
            }
            return;
        }
        let key = Self::copy(&mut self.spare, key);
        self.bytes += key.len() + value.map_or(0, <[u8]>::len);
        let value = value.map(|v| Self::copy(&mut self.spare, v));
        self.map.insert(key, value);
    }

    fn copy(spare: &mut Vec<Vec<u8>>, bytes: &[u8]) -> Vec<u8> {
        match spare.pop() {
            Some(mut buf) => {
                buf.clear();
                buf.extend_from_slice(bytes);
                buf
            }
            None => bytes.to_vec(),
        }
    }

    fn keep(spare: &mut Vec<Vec<u8>>, buf: Vec<u8>) {
        if spare.len() < SPARE_BUFFERS && buf.capacity() <= SPARE_CAPACITY {
            spare.push(buf);
        }
    }

    /// The number of keys written since the flush.
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    /// About how many bytes of keys and values are pending.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The pending entries, in key order (what a flush writes, and what a range merges in).
    pub(super) fn sorted(
        &self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Vec<(&[u8], Option<&[u8]>)> {
        let mut entries: Vec<(&[u8], Option<&[u8]>)> = self
            .map
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_deref()))
            .filter(|(k, _)| (from, to).contains(k))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        entries
    }

    /// Forgets every pending write, keeping the buffers for reuse.
    pub(super) fn clear(&mut self) {
        let Pending { map, spare, bytes } = self;
        for (key, value) in map.drain() {
            Self::keep(spare, key);
            if let Some(value) = value {
                Self::keep(spare, value);
            }
        }
        *bytes = 0;
    }
}

/// `RangeBounds` over byte slices by their contents.
trait Contains {
    fn contains(&self, key: &[u8]) -> bool;
}

impl Contains for (Bound<&[u8]>, Bound<&[u8]>) {
    fn contains(&self, key: &[u8]) -> bool {
        let after_start = match self.0 {
            Bound::Included(s) => key >= s,
            Bound::Excluded(s) => key > s,
            Bound::Unbounded => true,
        };
        let before_end = match self.1 {
            Bound::Included(e) => key <= e,
            Bound::Excluded(e) => key < e,
            Bound::Unbounded => true,
        };
        after_start && before_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_tracks_writes_deletes_and_bytes_and_reuses_buffers() {
        let mut p = Pending::default();
        p.set(b"b", Some(b"1"));
        p.set(b"a", Some(b"22"));
        p.set(b"b", None);
        p.set(b"c", Some(b"333"));
        p.set(b"b", Some(b"4444"));
        assert_eq!(p.get(b"a"), Some(Some(&b"22"[..])));
        assert_eq!(p.get(b"z"), None);
        assert_eq!(p.len(), 3);
        assert_eq!(p.bytes(), 3 + 2 + 3 + 4);
        let keys: Vec<&[u8]> = p
            .sorted(Bound::Excluded(b"a"), Bound::Unbounded)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, [&b"b"[..], b"c"]);
        p.set(b"c", None);
        assert_eq!(p.get(b"c"), Some(None));
        p.clear();
        assert_eq!((p.len(), p.bytes()), (0, 0));
        assert!(p.spare.len() >= 5);
    }
}
