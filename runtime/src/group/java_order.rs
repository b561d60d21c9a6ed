//! The iteration order of a Java `HashSet`, for the lists Kafka Streams declares in set order.
//!
//! The coordinator stores the topology of the first member to join and refuses a later member
//! whose topology differs in any field, lists compared in order ("Topology updates are not
//! supported yet"). Kafka Streams 4.4 fills a subtopology's copartition groups from
//! `HashSet`s (`InternalTopologyBuilder#copartitionGroups` and
//! `StreamsGroupHeartbeatRequestManager#getCopartitionGroupFromStreams`): the groups in the
//! order of a `HashSet<Set<String>>`, and each group's topic indices in the order of a
//! `HashSet<String>` of topic names. To take over a running Kafka Streams application (or hand
//! one back), a member must declare them in the same order, so this module reproduces
//! `java.util.HashMap`'s iteration order: by bucket (`(h ^ (h >>> 16)) & (table - 1)`), then by
//! insertion order within a bucket.
//!
//! The insertion order of Kafka Streams' sets is not observable from the topology alone; two
//! names in one bucket keep the order they are given here (sorted), which can differ from Kafka
//! Streams' for such a collision.

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code units, wrapping.
pub(crate) fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// Java's `AbstractSet.hashCode()` of a set of strings: the sum of their hash codes, wrapping.
pub(crate) fn string_set_hash<'a>(names: impl IntoIterator<Item = &'a str>) -> i32 {
    names
        .into_iter()
        .fold(0i32, |sum, name| sum.wrapping_add(string_hash(name)))
}

/// The table size of a `HashMap` that grew from 16 buckets to hold `len` entries (load factor
/// 0.75), as `new HashSet<>()` followed by adds, or `new HashSet<>(collection)` for up to 12.
fn table_size(len: usize) -> usize {
    let mut table = 16;
    while len * 4 > table * 3 {
        table *= 2;
    }
    table
}

/// `items` in the order a Java `HashSet` holding them iterates, given each item's Java
/// `hashCode()`; items in one bucket keep their order in `items`.
pub(crate) fn hash_set_order<T>(items: Vec<T>, hash: impl Fn(&T) -> i32) -> Vec<T> {
    let mask = table_size(items.len()) - 1;
    let mut keyed: Vec<(usize, usize, T)> = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let h = hash(&item) as u32;
            ((h ^ (h >> 16)) as usize & mask, i, item)
        })
        .collect();
    keyed.sort_by_key(|&(bucket, i, _)| (bucket, i));
    keyed.into_iter().map(|(_, _, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_is_javas() {
        // Values of "…".hashCode() in Java.
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash("dkb-join-users"), 594_127_863);
    }

    #[test]
    fn order_is_by_bucket_then_insertion() {
        // "Aa" and "BB" share a hash code (2112), so they share a bucket and keep their order.
        let order = hash_set_order(vec!["b", "BB", "a", "Aa"], |s| string_hash(s));
        assert_eq!(order, ["BB", "Aa", "a", "b"]);
    }

    #[test]
    fn the_table_grows_past_twelve_entries() {
        assert_eq!(table_size(0), 16);
        assert_eq!(table_size(12), 16);
        assert_eq!(table_size(13), 32);
        assert_eq!(table_size(25), 64);
    }
}
