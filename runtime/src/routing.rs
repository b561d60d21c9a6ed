//! Choosing the partitions of a record: the `partitioner(..)` of `to` and `repartition` (Kafka
//! Streams' `StreamPartitioner`, with KIP-837's multicast).
//!
//! The closure takes the key, the value and the topic's partition count (or, as Kafka Streams'
//! `partitions(topic, key, value, numPartitions)`, the topic first: useful after a sink that
//! chooses its topic per record), and returns a [`PartitionChoice`]:
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

/// The record a topic chooser of `to([..], |key, value, ctx| .., ..)` is asked about (Kafka
/// Streams' `RecordContext` of `TopicNameExtractor#extract`): where the record the stream
/// carries was read, its timestamp and its headers.
#[derive(Debug, Clone, Copy)]
pub struct RecordContext<'a> {
    topic: Option<&'static str>,
    partition: i32,
    offset: i64,
    timestamp: i64,
    headers: &'a crate::record::Headers,
}

impl<'a> RecordContext<'a> {
    /// The context of `record`, read from `topics[record.source]` (used by generated code).
    #[doc(hidden)]
    pub fn of(topics: &[&'static str], record: &crate::record::InputRecord<'a>) -> Self {
        RecordContext {
            topic: topics.get(record.source).copied(),
            partition: record.partition,
            offset: record.offset,
            timestamp: record.timestamp,
            headers: record.headers,
        }
    }

    /// The topic the record was read from; `None` for one a punctuation forwarded.
    pub fn topic(&self) -> Option<&'static str> {
        self.topic
    }

    /// The partition it was read from (the task's).
    pub fn partition(&self) -> i32 {
        self.partition
    }

    /// Its offset in that partition; `None` for one a punctuation forwarded.
    pub fn offset(&self) -> Option<i64> {
        (self.offset >= 0).then_some(self.offset)
    }

    /// Its timestamp (as the operators before the sink left it).
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// Its headers.
    pub fn headers(&self) -> &'a crate::record::Headers {
        self.headers
    }
}

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
