//! The producer of a processing thread, and the first delivery failure it saw.
//!
//! librdkafka reports a record's fate asynchronously. A failure that no retry fixes (for example
//! a record larger than the broker accepts) must stop the application; the context below keeps
//! the first such failure so the processing loop can check it at every commit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::ClientContext;
use rdkafka::error::KafkaError;
use rdkafka::message::{DeliveryResult, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;

use super::oauth::OAuthRefresh;

/// The first record the producer could not deliver.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "a record for {topic}[{partition}] could not be delivered: {error}; the application stops \
     because no retry fixes this (for a record too large, raise the topic's max.message.bytes \
     or make the record smaller; for a missing topic or authorization, create the topic or \
     grant the principal WRITE on it)"
)]
pub struct DeliveryFailure {
    /// The topic of the failed record.
    pub topic: String,
    /// Its partition (-1 when none was chosen).
    pub partition: i32,
    /// What the broker or librdkafka said.
    pub error: KafkaError,
    /// No retry fixes it (a record too large, a missing topic, no authorization): the
    /// application stops. Otherwise (a timeout, a broker that moved) the commit is redone.
    pub permanent: bool,
}

/// The offset of the last record the broker acknowledged, per topic and partition: what a clean
/// close writes into a task's checkpoint (plus one), as Kafka Streams' record collector does.
///
/// The broker's answer is exact, where a read_committed end offset (the last stable offset) can
/// still lag the log while the last transaction's markers are being written. Shared by the
/// producers a thread has in turn, so a replaced producer loses nothing.
#[derive(Debug, Default, Clone)]
pub struct DeliveredOffsets {
    last: Arc<Mutex<HashMap<String, HashMap<i32, i64>>>>,
}

impl DeliveredOffsets {
    /// Notes `offset` as delivered to `topic[partition]`. Allocates only the first time a
    /// partition is seen.
    fn record(&self, topic: &str, partition: i32, offset: i64) {
        if offset < 0 {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        let partitions = match last.get_mut(topic) {
            Some(partitions) => partitions,
            None => last.entry(topic.to_owned()).or_default(),
        };
        let slot = partitions.entry(partition).or_insert(offset);
        *slot = (*slot).max(offset);
    }

    /// Takes the offset just past the last record delivered to `topic[partition]`, if one was
    /// delivered since the last take: where a store fed by that changelog is complete once the
    /// records are committed.
    pub fn take_end(&self, topic: &str, partition: i32) -> Option<i64> {
        let mut last = self.last.lock().ok()?;
        last.get_mut(topic)?.remove(&partition).map(|o| o + 1)
    }
}

/// A producer context that remembers the first failed delivery and the offset of the last
/// delivered record of every partition (and answers OAUTHBEARER token refreshes).
#[derive(Debug, Default, Clone)]
pub struct DeliveryWatch {
    first_failure: Arc<Mutex<Option<DeliveryFailure>>>,
    delivered: DeliveredOffsets,
    oauth: OAuthRefresh,
}

impl DeliveryWatch {
    /// A watch whose producer gets OAUTHBEARER tokens from `oauth` and notes its delivered
    /// offsets in `delivered`.
    pub fn new(oauth: OAuthRefresh, delivered: DeliveredOffsets) -> Self {
        DeliveryWatch {
            first_failure: Arc::default(),
            delivered,
            oauth,
        }
    }

    /// The offsets this watch's producer had delivered.
    pub fn delivered(&self) -> &DeliveredOffsets {
        &self.delivered
    }

    /// The first failure since the last [`take`](Self::take), if any.
    pub fn take(&self) -> Option<DeliveryFailure> {
        self.first_failure.lock().ok().and_then(|mut f| f.take())
    }
}

impl ClientContext for DeliveryWatch {
    const ENABLE_REFRESH_OAUTH_TOKEN: bool = true;

    fn generate_oauth_token(
        &self,
        _: Option<&str>,
    ) -> Result<rdkafka::client::OAuthToken, Box<dyn std::error::Error>> {
        self.oauth.token()
    }
}

impl ProducerContext for DeliveryWatch {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Ok(message) = result {
            self.delivered
                .record(message.topic(), message.partition(), message.offset());
        }
        if let Err((error, message)) = result {
            // Records purged by an abort are expected: they are redone.
            if matches!(
                error,
                KafkaError::MessageProduction(
                    RDKafkaErrorCode::PurgeQueue | RDKafkaErrorCode::PurgeInflight
                )
            ) {
                return;
            }
            if let Ok(mut slot) = self.first_failure.lock()
                && slot.is_none()
            {
                *slot = Some(DeliveryFailure {
                    topic: message.topic().to_owned(),
                    partition: message.partition(),
                    error: error.clone(),
                    permanent: is_permanent(error),
                });
            }
        }
    }
}

/// Whether a delivery failure is one that no retry can fix.
fn is_permanent(error: &KafkaError) -> bool {
    let KafkaError::MessageProduction(code) = error else {
        return false;
    };
    matches!(
        code,
        RDKafkaErrorCode::MessageSizeTooLarge
            | RDKafkaErrorCode::InvalidMessageSize
            | RDKafkaErrorCode::MessageBatchTooLarge
            | RDKafkaErrorCode::UnknownPartition
            | RDKafkaErrorCode::InvalidRecord
            | RDKafkaErrorCode::InvalidMessage
            | RDKafkaErrorCode::InvalidTopic
            | RDKafkaErrorCode::UnknownTopic
            | RDKafkaErrorCode::TopicAuthorizationFailed
            | RDKafkaErrorCode::ClusterAuthorizationFailed
            | RDKafkaErrorCode::TransactionalIdAuthorizationFailed
    )
}

/// The producer of one processing thread.
pub type StreamsProducer = ThreadedProducer<DeliveryWatch>;

/// Sends one record, waiting while librdkafka's queue is full. `partition` `None` lets the
/// configured partitioner choose from the key; `timestamp` `None` stamps it now.
#[allow(clippy::too_many_arguments)]
pub fn send<C: ProducerContext<DeliveryOpaque = ()> + 'static>(
    producer: &ThreadedProducer<C>,
    topic: &str,
    partition: Option<i32>,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    timestamp: Option<i64>,
    headers: Option<OwnedHeaders>,
) -> Result<(), KafkaError> {
    let mut record: BaseRecord<'_, [u8], [u8], ()> = BaseRecord::to(topic);
    if let Some(t) = timestamp {
        record = record.timestamp(t);
    }
    if let Some(p) = partition {
        record = record.partition(p);
    }
    if let Some(k) = key {
        record = record.key(k);
    }
    if let Some(v) = value {
        record = record.payload(v);
    }
    if let Some(h) = headers {
        record = record.headers(h);
    }
    loop {
        match producer.send(record) {
            Ok(()) => return Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                record = back;
                producer.poll(Duration::from_millis(5));
            }
            Err((e, _)) => return Err(e),
        }
    }
}

/// Waits until every record sent is acknowledged (or failed), checking every 200 µs.
///
/// rdkafka's `flush` (which `commit_transaction` calls first) polls in steps of 100 ms and each
/// step blocks for all of it, so any record still in flight made every commit take at least
/// 100 ms. The producer's own thread serves delivery reports; draining here first leaves
/// nothing for that flush to wait for.
pub fn drain(producer: &StreamsProducer, timeout: Duration) -> Result<(), KafkaError> {
    let deadline = std::time::Instant::now() + timeout;
    while producer.in_flight_count() > 0 {
        if std::time::Instant::now() >= deadline {
            return Err(KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    Ok(())
}
