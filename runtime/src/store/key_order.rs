//! The byte order of store keys, compared eight bytes at a time.
//!
//! The memory backend's ordered key index (a `BTreeSet`) compares keys at every step of a
//! lookup: a new key's insert and a delete walk four or five nodes of up to eleven keys each.
//! `<[u8] as Ord>::cmp` calls `memcmp` for each comparison, and in the foreign-key join's
//! subscription store (keys `[fk length][fk][left key]`, two index updates per changed row)
//! those calls were the processing thread's largest single cost: 12% of its samples
//! (`perf record` of the `fkjoin` bench). [`compare`] gives the same order but compares whole
//! 8-byte words as big-endian integers first, so two keys that differ early (most keys next to
//! each other in a tree node do) are ordered by one integer comparison, without a call.
//!
//! The index stores [`IndexKey`]s and is searched with [`KeyBytes`] (a `[u8]` whose `Ord` is
//! [`compare`]), the pair that `Borrow` needs so that a lookup by a borrowed `&[u8]` uses the
//! same order as the stored keys.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::sync::Arc;

/// Lexicographic byte order (`a.cmp(b)` on slices), comparing eight bytes at a time.
#[inline]
pub(crate) fn compare(mut a: &[u8], mut b: &[u8]) -> Ordering {
    while let (Some((x, rest_a)), Some((y, rest_b))) =
        (a.split_first_chunk::<8>(), b.split_first_chunk::<8>())
    {
        let (x, y) = (u64::from_be_bytes(*x), u64::from_be_bytes(*y));
        if x != y {
            return x.cmp(&y);
        }
        a = rest_a;
        b = rest_b;
    }
    a.cmp(b)
}

/// Key bytes ordered by [`compare`]: what the ordered index is searched with.
#[derive(Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct KeyBytes([u8]);

impl KeyBytes {
    /// `bytes` seen as a key of the index.
    #[inline]
    pub(crate) fn new(bytes: &[u8]) -> &KeyBytes {
        // SAFETY: `KeyBytes` is `repr(transparent)` over `[u8]`, so both have the same layout
        // and pointer metadata (the length); the returned reference borrows `bytes` for the
        // same lifetime.
        unsafe { &*(bytes as *const [u8] as *const KeyBytes) }
    }
}

impl Ord for KeyBytes {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

impl PartialOrd for KeyBytes {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A key of the ordered index: the key shared with the hash map, ordered by [`compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexKey(pub(crate) Arc<[u8]>);

impl Ord for IndexKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

impl PartialOrd for IndexKey {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Borrow<KeyBytes> for IndexKey {
    #[inline]
    fn borrow(&self) -> &KeyBytes {
        KeyBytes::new(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of every length around the word size, with shared prefixes, zero bytes and 0xff.
    fn keys() -> Vec<Vec<u8>> {
        let mut keys = vec![Vec::new()];
        let alphabet = [0u8, 1, 0x7f, 0x80, 0xff];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for len in 1..=20 {
            for _ in 0..40 {
                let mut key = Vec::with_capacity(len);
                for _ in 0..len {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    key.push(alphabet[(state % alphabet.len() as u64) as usize]);
                }
                keys.push(key);
            }
        }
        // Prefixes of each other, and keys equal but for their last byte.
        let base: Vec<u8> = (0..20).collect();
        for len in 0..=20 {
            keys.push(base[..len].to_vec());
            let mut zero_tail = base[..len].to_vec();
            zero_tail.push(0);
            keys.push(zero_tail);
        }
        keys
    }

    #[test]
    fn compare_is_the_byte_order_of_slices() {
        let keys = keys();
        for a in &keys {
            for b in &keys {
                assert_eq!(
                    compare(a, b),
                    a.as_slice().cmp(b.as_slice()),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn an_index_of_keys_iterates_in_byte_order_and_finds_borrowed_keys() {
        let keys = keys();
        let index: std::collections::BTreeSet<IndexKey> = keys
            .iter()
            .map(|k| IndexKey(Arc::from(k.as_slice())))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        let walked: Vec<Vec<u8>> = index.iter().map(|k| k.0.to_vec()).collect();
        assert_eq!(walked, sorted);
        for key in &keys {
            assert!(index.contains(KeyBytes::new(key)));
        }
        assert!(!index.contains(KeyBytes::new(&[9, 9, 9, 9, 9, 9, 9, 9, 9])));
    }
}
