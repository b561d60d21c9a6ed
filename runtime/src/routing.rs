//! Choosing the partitions of a record: the `partitioner(..)` of `to` and `repartition` (Kafka
//! Streams' `StreamPartitioner`, with KIP-837's multicast).
//!
//! The closure takes the key, the value and the topic's partition count, and returns a
//! [`PartitionChoice`]:
//!
//! | it returns | the record goes to |
//! |---|---|
//! | `u32` | that partition |
//! | `Option<u32>` | that partition; `None`: the default partitioner's (murmur2 of the key), as Kafka Streams' `Optional.empty()` |
//! | `Vec<u32>` | each of those partitions (multicast); an empty list drops the record, as Kafka Streams' empty set |
//! | `Option<Vec<u32>>` | each of those; `None`: the default partitioner's |
//!
//! A partition at or past the count fails the record (`on_error`, `ErrorKind::Processing`), the
//! count in the message. The count is the topic's when the task first writes to it (one metadata
//! request, off the per-record path); a topic that gains partitions later is seen after the
//! application restarts.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     /// Orders of a region to the region's partition, the rest by key.
//!     pub Regions = "regions" {
//!         stream("orders", Utf8, Utf8)
//!             .to("orders-by-region", Utf8, Utf8, partitioner(|_key: &String, value: &String, _partitions: u32| {
//!                 value.starts_with("eu:").then_some(0)
//!             }));
//!     }
//! }
//! ```

/// What a `partitioner(..)` closure may return; see the [module docs](self).
pub trait PartitionChoice {
    /// The choice, in one form.
    fn into_chosen(self) -> ChosenPartitions;
}

/// The partitions a `partitioner(..)` chose for a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChosenPartitions {
    /// The default partitioner's (murmur2 of the serialized key).
    Default,
    /// This partition.
    One(u32),
    /// Each of these (none: the record is dropped).
    Many(Vec<u32>),
}

impl PartitionChoice for u32 {
    #[inline]
    fn into_chosen(self) -> ChosenPartitions {
        ChosenPartitions::One(self)
    }
}

impl PartitionChoice for Option<u32> {
    #[inline]
    fn into_chosen(self) -> ChosenPartitions {
        self.map_or(ChosenPartitions::Default, ChosenPartitions::One)
    }
}

impl PartitionChoice for Vec<u32> {
    #[inline]
    fn into_chosen(self) -> ChosenPartitions {
        ChosenPartitions::Many(self)
    }
}

impl PartitionChoice for Option<Vec<u32>> {
    #[inline]
    fn into_chosen(self) -> ChosenPartitions {
        self.map_or(ChosenPartitions::Default, ChosenPartitions::Many)
    }
}

impl ChosenPartitions {
    /// The first partition of the choice at or past `partitions`, if any.
    pub fn out_of_range(&self, partitions: u32) -> Option<u32> {
        match self {
            ChosenPartitions::Default => None,
            ChosenPartitions::One(p) => (*p >= partitions).then_some(*p),
            ChosenPartitions::Many(ps) => ps.iter().copied().find(|p| *p >= partitions),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_one_choice() {
        assert_eq!(3u32.into_chosen(), ChosenPartitions::One(3));
        assert_eq!(None::<u32>.into_chosen(), ChosenPartitions::Default);
        assert_eq!(vec![0, 2].into_chosen(), ChosenPartitions::Many(vec![0, 2]));
        assert_eq!(None::<Vec<u32>>.into_chosen(), ChosenPartitions::Default);
        assert_eq!(ChosenPartitions::Many(vec![1, 4]).out_of_range(4), Some(4));
        assert_eq!(ChosenPartitions::One(3).out_of_range(4), None);
    }
}
