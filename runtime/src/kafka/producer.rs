//! The producer of a processing thread, and the first delivery failure it saw.
//!
//! librdkafka reports a record's fate asynchronously. A failure that no retry fixes (for example
//! a record larger than the broker accepts) must stop the application; the context below keeps
//! the first such failure so the processing loop can check it at every commit.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::ClientContext;
use rdkafka::client::Client;
use rdkafka::error::KafkaError;
use rdkafka::message::{DeliveryResult, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, Partitioner, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;

use super::oauth::OAuthRefresh;
use super::partitioner::SinkPartitioner;
use super::topic_handles::TopicHandles;
use crate::topology::WindowedSink;

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

/// The offset of the last record the broker acknowledged, per topic and partition: what a
/// commit records in each store (plus one) as the changelog offset it reflects, as Kafka
/// Streams' record collector feeds its checkpoints.
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
/// Its producer partitions records with a [`SinkPartitioner`].
#[derive(Debug, Default, Clone)]
pub struct DeliveryWatch {
    first_failure: Arc<Mutex<Option<DeliveryFailure>>>,
    delivered: DeliveredOffsets,
    oauth: OAuthRefresh,
    partitioner: Arc<SinkPartitioner>,
}

impl DeliveryWatch {
    /// A watch whose producer gets OAUTHBEARER tokens from `oauth`, notes its delivered
    /// offsets in `delivered` and partitions the windowed keys of `windowed` by their inner key.
    pub fn new(
        oauth: OAuthRefresh,
        delivered: DeliveredOffsets,
        windowed: &'static [WindowedSink],
    ) -> Self {
        DeliveryWatch {
            first_failure: Arc::default(),
            delivered,
            oauth,
            partitioner: Arc::new(SinkPartitioner::new(windowed)),
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

    /// [`take`](Self::take), and when the record timed out in librdkafka's queue or was failed
    /// as an unknown topic or partition, asks the cluster (through `client`) whether its topic
    /// exists: a missing topic is permanent, an existing one is retried.
    ///
    /// librdkafka fails records for a topic it does not know with `UnknownTopic` only once
    /// `topic.metadata.propagation.max.ms` (30 s) passed since the producer first saw the topic;
    /// a transactional producer's records time out before that (`message.timeout.ms` is at most
    /// `transaction.timeout.ms`, 10 s by default), and a redone interval that replaces the
    /// producer starts that wait again. Without this check a sink topic that was never created
    /// was retried until the failed commits in a row gave up, without naming the topic.
    pub fn take_checked<C: ClientContext>(&self, client: &Client<C>) -> Option<DeliveryFailure> {
        self.take().map(|failure| failure.confirm_topic(client))
    }
}

/// How long [`DeliveryFailure::confirm_topic`] waits for the cluster's metadata.
const METADATA_TIMEOUT: Duration = Duration::from_secs(5);

impl DeliveryFailure {
    /// Asks the cluster whether the failed record's topic and partition exist when the failure
    /// may mean either "missing" or "unreachable": a record that timed out, or one librdkafka
    /// failed as an unknown topic or partition from its metadata cache (a broker just restarted
    /// can answer from a partial view). Missing for the cluster: permanent, named as such.
    /// Present, or the cluster did not answer: redone like any transient failure (the failed
    /// commits in a row bound the retries).
    fn confirm_topic<C: ClientContext>(mut self, client: &Client<C>) -> Self {
        let KafkaError::MessageProduction(code) = &self.error else {
            return self;
        };
        let code = *code;
        if !matches!(
            code,
            RDKafkaErrorCode::MessageTimedOut
                | RDKafkaErrorCode::UnknownTopic
                | RDKafkaErrorCode::UnknownPartition
        ) {
            return self;
        }
        self.permanent = false;
        let Ok(metadata) = client.fetch_metadata(Some(&self.topic), METADATA_TIMEOUT) else {
            return self;
        };
        let Some(topic) = metadata.topics().iter().find(|t| t.name() == self.topic) else {
            return self;
        };
        match topic.error().map(RDKafkaErrorCode::from) {
            Some(RDKafkaErrorCode::UnknownTopicOrPartition) => {
                self.error = KafkaError::MessageProduction(RDKafkaErrorCode::UnknownTopic);
                self.permanent = true;
            }
            None if code == RDKafkaErrorCode::UnknownPartition
                && self.partition >= 0
                && !topic.partitions().is_empty()
                && topic.partitions().len() <= self.partition as usize =>
            {
                self.permanent = true;
            }
            _ => {}
        }
        self
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

impl ProducerContext<SinkPartitioner> for DeliveryWatch {
    type DeliveryOpaque = ();

    fn get_custom_partitioner(&self) -> Option<&SinkPartitioner> {
        Some(&self.partitioner)
    }

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

/// The producer of one processing thread: rdkafka's `ThreadedProducer` (which it derefs to)
/// and the topic handles its records are sent through (see [`send`]).
pub struct StreamsProducer {
    // Declared (so dropped) first: each handle holds a reference on a topic of the client.
    topics: TopicHandles,
    /// The partition counts looked up for partitioners, by topic.
    partition_counts: std::cell::RefCell<Vec<(&'static str, u32)>>,
    inner: ThreadedProducer<DeliveryWatch, SinkPartitioner>,
}

/// How long a partition count lookup may take.
const PARTITION_COUNT_TIMEOUT: Duration = Duration::from_secs(30);

impl StreamsProducer {
    /// Wraps the producer made for a processing thread.
    pub fn new(inner: ThreadedProducer<DeliveryWatch, SinkPartitioner>) -> Self {
        StreamsProducer {
            topics: TopicHandles::default(),
            partition_counts: std::cell::RefCell::default(),
            inner,
        }
    }

    /// The partition count of `topic`: asked of the cluster the first time (a blocking metadata
    /// request, on the processing thread that writes to it), then remembered.
    pub fn partition_count(&self, topic: &'static str) -> Result<u32, String> {
        if let Some((_, n)) = self
            .partition_counts
            .borrow()
            .iter()
            .find(|(t, _)| *t == topic)
        {
            return Ok(*n);
        }
        let n = super::metadata::partition_count(self.client(), topic, PARTITION_COUNT_TIMEOUT)
            .map_err(|e| format!("looking up the partitions of {topic} failed: {e}"))?
            .ok_or_else(|| {
                format!(
                    "{topic} has no partitions the cluster knows of (does it exist?), so its partitioner cannot choose one"
                )
            })?;
        self.partition_counts.borrow_mut().push((topic, n));
        Ok(n)
    }
}

impl std::ops::Deref for StreamsProducer {
    type Target = ThreadedProducer<DeliveryWatch, SinkPartitioner>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl StreamsProducer {
    /// Sends one record, waiting while librdkafka's queue is full. `partition` `None` lets the
    /// configured partitioner choose from the key; `timestamp` `None` stamps it now.
    ///
    /// A record without headers (nearly all) goes through the producer's handle of `topic`
    /// (one made per topic): no allocation of ours, no lookup of the topic by name. librdkafka copies
    /// key and value (`RD_KAFKA_MSG_F_COPY`).
    #[allow(clippy::too_many_arguments)]
    pub fn produce(
        &self,
        topic: &'static str,
        partition: Option<i32>,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp: Option<i64>,
        headers: Option<OwnedHeaders>,
    ) -> Result<(), KafkaError> {
        use rdkafka::bindings::rd_kafka_vtype_t::*;
        let rk = self.client().native_ptr();
        // rdkafka keeps its headers' pointer to itself: a record with headers goes by name.
        let handle = match headers {
            None => self.topics.get(rk, topic),
            Some(_) => None,
        };
        let Some(rkt) = handle else {
            return send(
                &self.inner,
                topic,
                partition,
                key,
                value,
                timestamp,
                headers,
            );
        };
        let bytes = |b: Option<&[u8]>| {
            b.map_or((std::ptr::null_mut(), 0), |b| {
                (b.as_ptr() as *mut std::ffi::c_void, b.len())
            })
        };
        let (value_ptr, value_len) = bytes(value);
        let (key_ptr, key_len) = bytes(key);
        loop {
            // SAFETY: `rk` and `rkt` are live (the producer and its handle outlive the call); key
            // and value are valid for their lengths during the call and copied by librdkafka
            // (`RD_KAFKA_MSG_F_COPY`). The argument list is what `BaseProducer::send` passes for a
            // record without headers, with the topic handle for the topic's name, ended by
            // `RD_KAFKA_VTYPE_END`.
            let error = unsafe {
                rdkafka::bindings::rd_kafka_producev(
                    rk,
                    RD_KAFKA_VTYPE_RKT,
                    rkt,
                    RD_KAFKA_VTYPE_PARTITION,
                    partition.unwrap_or(-1),
                    RD_KAFKA_VTYPE_MSGFLAGS,
                    rdkafka::bindings::RD_KAFKA_MSG_F_COPY,
                    RD_KAFKA_VTYPE_VALUE,
                    value_ptr,
                    value_len,
                    RD_KAFKA_VTYPE_KEY,
                    key_ptr,
                    key_len,
                    RD_KAFKA_VTYPE_OPAQUE,
                    std::ptr::null_mut::<std::ffi::c_void>(),
                    RD_KAFKA_VTYPE_TIMESTAMP,
                    timestamp.unwrap_or(0),
                    RD_KAFKA_VTYPE_END,
                )
            };
            match RDKafkaErrorCode::from(error) {
                RDKafkaErrorCode::NoError => return Ok(()),
                RDKafkaErrorCode::QueueFull => {
                    self.poll(Duration::from_millis(5));
                }
                code => return Err(KafkaError::MessageProduction(code)),
            }
        }
    }
}

/// Sends one record through rdkafka's `BaseProducer::send` (the topic named by a C string),
/// waiting while librdkafka's queue is full. `partition` `None` lets the configured partitioner
/// choose from the key; `timestamp` `None` stamps it now. A processing thread's producer sends
/// with [`StreamsProducer::produce`] instead.
#[allow(clippy::too_many_arguments)]
pub fn send<P, C>(
    producer: &ThreadedProducer<C, P>,
    topic: &str,
    partition: Option<i32>,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    timestamp: Option<i64>,
    headers: Option<OwnedHeaders>,
) -> Result<(), KafkaError>
where
    P: Partitioner + Send + Sync + 'static,
    C: ProducerContext<P, DeliveryOpaque = ()> + 'static,
{
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

/// How long one attempt of a resumable transactional call blocks before the stop flag is checked
/// again.
const TXN_ATTEMPT: Duration = Duration::from_secs(5);

/// How long a wait goes on after the application was asked to stop: a shutdown while the
/// cluster is unreachable must not wait for it (the broker aborts an open transaction after
/// `transaction.timeout.ms`, and the next producer with the same transactional id aborts it at
/// once).
pub const STOPPING_GRACE: Duration = Duration::from_secs(10);

/// How a resumable transactional call ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Resumed {
    /// It completed.
    Done,
    /// The application is stopping and the call still had not completed after
    /// [`STOPPING_GRACE`]: its outcome is unknown.
    Stopped,
}

/// Calls `call` (librdkafka's `init_transactions`, `commit_transaction` or `abort_transaction`,
/// given a timeout) again and again while it fails with a retriable error, the way librdkafka
/// documents these calls: "This call is resumable when a retriable timeout error is returned.
/// Calling the function again will resume the operation that is progressing in the background"
/// (rdkafka.h). While every broker is down they time out attempt after attempt; they complete
/// once the transaction coordinator answers again.
///
/// Each attempt blocks at most 5 s, so a stop request is seen within seconds; after
/// `stop` is set, attempts go on for [`STOPPING_GRACE`], then it gives up with
/// [`Resumed::Stopped`]. `give_up_after` bounds the whole retry (the last error is returned
/// then); a non-retriable error (fatal, or one that requires an abort) is returned at once.
pub fn resume_until_done(
    what: &str,
    stop: &AtomicBool,
    give_up_after: Option<Duration>,
    mut call: impl FnMut(Duration) -> Result<(), KafkaError>,
) -> Result<Resumed, KafkaError> {
    let started = Instant::now();
    let mut stop_seen: Option<Instant> = None;
    let mut last_warning: Option<Instant> = None;
    loop {
        let error = match call(TXN_ATTEMPT) {
            Ok(()) => {
                if last_warning.is_some() {
                    tracing::info!(waited = ?started.elapsed(), "{what} completed");
                }
                return Ok(Resumed::Done);
            }
            Err(KafkaError::Transaction(rd))
                if rd.is_retriable() && !rd.is_fatal() && !rd.txn_requires_abort() =>
            {
                KafkaError::Transaction(rd)
            }
            Err(e) => return Err(e),
        };
        if give_up_after.is_some_and(|limit| started.elapsed() >= limit) {
            return Err(error);
        }
        if stop.load(Ordering::Relaxed)
            && stop_seen.get_or_insert_with(Instant::now).elapsed() >= STOPPING_GRACE
        {
            tracing::warn!(error = %error, "{what} did not complete before the shutdown; giving up on it");
            return Ok(Resumed::Stopped);
        }
        if last_warning.is_none_or(|at| at.elapsed() >= Duration::from_secs(30)) {
            last_warning = Some(Instant::now());
            tracing::warn!(error = %error, waited = ?started.elapsed(), "{what} did not complete yet (is the cluster reachable?); trying again");
        }
    }
}

/// Waits until every record sent is acknowledged (or failed), in steps of at most 2 ms.
///
/// rdkafka's `flush` (which `commit_transaction` calls first) polls in steps of 100 ms and each
/// step blocks for all of it, so any record still in flight made every commit take at least
/// 100 ms. Draining here first leaves nothing for that flush to wait for.
///
/// Each step is librdkafka's own `rd_kafka_flush` (`flush_step`): while it runs, records
/// still lingering (`linger.ms`) are sent at once, as Kafka's Java producer does on
/// `flush()`/`commitTransaction()`. Merely waiting for the in-flight count to drop left every
/// commit waiting out the linger (5 ms in the benchmarks: most of a commit's time at low
/// rates).
///
/// Once `stop` is set it waits at most [`STOPPING_GRACE`] more.
pub fn drain(
    producer: &StreamsProducer,
    timeout: Duration,
    stop: &AtomicBool,
) -> Result<(), KafkaError> {
    let mut deadline = Instant::now() + timeout;
    let mut stop_seen = false;
    while producer.in_flight_count() > 0 {
        if !stop_seen && stop.load(Ordering::Relaxed) {
            stop_seen = true;
            deadline = deadline.min(Instant::now() + STOPPING_GRACE);
        }
        if Instant::now() >= deadline {
            return Err(KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut));
        }
        flush_step(producer, Duration::from_millis(2));
    }
    Ok(())
}

/// One `rd_kafka_flush` of at most `timeout`: sends lingering records now and serves delivery
/// reports until nothing is in flight or the time is up (which of the two, the caller checks).
fn flush_step(producer: &StreamsProducer, timeout: Duration) {
    let timeout_ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: `native_ptr()` is the live handle of `producer`, which outlives the call.
    // `rd_kafka_flush` is thread-safe: serving delivery reports here, besides the producer's own
    // polling thread, runs the same thread-safe `DeliveryWatch` callbacks.
    let _ =
        unsafe { rdkafka::bindings::rd_kafka_flush(producer.client().native_ptr(), timeout_ms) };
}
