//! The record sink of a processing thread: every record a task writes goes to the thread's
//! producer (inside the open transaction under exactly-once).

use rdkafka::message::{Header, OwnedHeaders};

use crate::kafka::producer::{self, StreamsProducer};
use crate::task::{Headers, OutgoingRecord, Partitioning, RecordSink, SinkError};

/// Produces a task's output with the thread's producer.
///
/// Keys are partitioned by librdkafka's `murmur2_random` partitioner, which for a non-null key is
/// Kafka's default partitioner, so `Partitioning::ByKey` leaves the choice to it. Changelog
/// records carry an exact partition.
pub struct ProducerSink<'a> {
    producer: &'a StreamsProducer,
    /// Records sent through this sink.
    pub sent: u64,
}

impl<'a> ProducerSink<'a> {
    /// A sink over `producer`.
    pub fn new(producer: &'a StreamsProducer) -> Self {
        ProducerSink { producer, sent: 0 }
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
            record.timestamp,
            owned_headers(record.headers),
        )
        .map_err(|e| SinkError::msg(format_args!("producing to {} failed: {e}", record.topic)))?;
        self.sent += 1;
        Ok(())
    }
}
