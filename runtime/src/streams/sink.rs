//! The record sink of a processing thread: every record a task writes goes to the thread's
//! producer (inside the open transaction under exactly-once).

use rdkafka::message::{Header, OwnedHeaders};

use super::changelog_buffer::ChangelogBuffer;
use crate::kafka::producer::{self, StreamsProducer};
use crate::task::{Headers, OutgoingRecord, Partitioning, RecordSink, SinkError, TopicKind};

/// Produces a task's output with the thread's producer; changelog records wait for the commit
/// in the thread's [`ChangelogBuffer`], one per key.
///
/// Keys are partitioned by librdkafka's `murmur2_random` partitioner, which for a non-null key is
/// Kafka's default partitioner, so `Partitioning::ByKey` leaves the choice to it. Changelog
/// records carry an exact partition.
pub struct ProducerSink<'a> {
    producer: &'a StreamsProducer,
    changelog: &'a mut ChangelogBuffer,
}

impl<'a> ProducerSink<'a> {
    /// A sink over `producer`; changelog records wait in `changelog` for the commit.
    pub(crate) fn new(producer: &'a StreamsProducer, changelog: &'a mut ChangelogBuffer) -> Self {
        ProducerSink {
            producer,
            changelog,
        }
    }
}

/// librdkafka's copy of the headers; only made for records that have some.
fn owned_headers(headers: &Headers) -> Option<OwnedHeaders> {
    if headers.is_empty() {
        return None;
    }
    let mut owned = OwnedHeaders::new_with_capacity(headers.len());
    for (key, value) in headers.iter() {
        owned = owned.insert(Header { key, value });
    }
    Some(owned)
}

impl RecordSink for ProducerSink<'_> {
    #[inline]
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if let (TopicKind::Changelog, Partitioning::Exact(partition), Some(key)) =
            (record.kind, record.partitioning, record.key)
        {
            self.changelog
                .put(record.topic, partition, key, record.value, record.timestamp);
            return Ok(());
        }
        let partition = match record.partitioning {
            Partitioning::ByKey => None,
            Partitioning::Exact(p) => Some(p),
        };
        producer::send(
            self.producer,
            record.topic,
            partition,
            record.key,
            record.value,
            Some(record.timestamp),
            owned_headers(record.headers),
        )
        .map_err(|e| SinkError::msg(format_args!("producing to {} failed: {e}", record.topic)))
    }
}
