//! Small Kafka helpers for the demo and the end-to-end tests: create topics, produce records,
//! and read a topic back the way a downstream application would (read_committed).
//!
//! The librdkafka clients block (a flush, a poll, a metadata request, even dropping a client
//! joins its threads). Every `async` helper here runs that work on tokio's blocking pool
//! ([`off_workers`]), so a test's tokio workers stay free for what they drive: the heartbeats
//! and admin calls of the applications the test runs in process.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dekaf_streams::ClientSettings;
use dekaf_streams::reset_application;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{Header, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

/// A recent event time for a test's records, to the minute and `minutes_back` minutes before
/// the current minute. Tests stamp records recently on purpose: the broker deletes records by
/// their timestamps (inputs: 7 days; window changelogs: the store's retention and a day), and
/// a retention check (30 s after the broker starts, then every 5 minutes) between a produce and
/// the application's first fetch deleted the input of a test stamped in 2023 (its windows never
/// came).
pub fn recent_minute(minutes_back: i64) -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    now - now % 60_000 - minutes_back * 60_000
}

/// The bootstrap servers from `DEKAF_BOOTSTRAP` (default `127.0.0.1:9092`).
pub fn bootstrap() -> String {
    std::env::var("DEKAF_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// Runs blocking client work on tokio's blocking pool, off the tokio workers; a panic in it
/// resumes in the caller.
pub async fn off_workers<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> R {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("blocking client work was cancelled: {e}"),
        },
    }
}

/// Drops a librdkafka client (which joins its threads) on the blocking pool when called on a
/// tokio runtime, else right here.
pub fn drop_off_workers<T: Send + 'static>(client: T) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(move || drop(client))),
        Err(_) => drop(client),
    }
}

/// An admin client.
fn admin(bootstrap: &str) -> Result<AdminClient<DefaultClientContext>, KafkaError> {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
}

/// Creates `topics` (name, partitions); existing topics are left as they are.
pub async fn create_topics(bootstrap: &str, topics: &[(&str, i32)]) -> Result<(), KafkaError> {
    let admin = admin(bootstrap)?;
    let new: Vec<NewTopic<'_>> = topics
        .iter()
        .map(|(name, partitions)| NewTopic::new(name, *partitions, TopicReplication::Fixed(1)))
        .collect();
    let results = admin.create_topics(&new, &AdminOptions::new()).await;
    drop_off_workers(admin);
    for result in results? {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((topic, code)) => {
                eprintln!("creating topic {topic} failed: {code}");
                return Err(KafkaError::AdminOp(code));
            }
        }
    }
    Ok(())
}

/// Whether `topic` exists (a metadata request that does not create it).
pub async fn topic_exists(bootstrap: &str, topic: &str) -> Result<bool, KafkaError> {
    let (bootstrap, topic) = (bootstrap.to_owned(), topic.to_owned());
    off_workers(move || {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .set("allow.auto.create.topics", "false")
            .create()?;
        let metadata = consumer.fetch_metadata(Some(&topic), Duration::from_secs(10))?;
        Ok(metadata
            .topics()
            .iter()
            .any(|t| t.name() == topic && t.error().is_none()))
    })
    .await
}

/// The configs of `topic` that are set on the topic itself (not broker defaults), by name.
pub async fn topic_configs(
    bootstrap: &str,
    topic: &str,
) -> Result<HashMap<String, String>, KafkaError> {
    use rdkafka::admin::{ConfigSource, ResourceSpecifier};
    let admin = admin(bootstrap)?;
    let results = admin
        .describe_configs(&[ResourceSpecifier::Topic(topic)], &AdminOptions::new())
        .await;
    drop_off_workers(admin);
    let resource = results?
        .into_iter()
        .next()
        .ok_or(KafkaError::AdminOpCreation("no answer".into()))?
        .map_err(KafkaError::AdminOp)?;
    Ok(resource
        .entries
        .into_iter()
        .filter(|e| matches!(e.source, ConfigSource::DynamicTopic))
        .filter_map(|e| Some((e.name, e.value?)))
        .collect())
}

/// A plain (idempotent) producer.
pub fn producer(bootstrap: &str) -> Result<ThreadedProducer<DefaultProducerContext>, KafkaError> {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("enable.idempotence", "true")
        .set("partitioner", "murmur2_random")
        .set("linger.ms", "5")
        .create()
}

/// A record to produce.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewRecord<'a> {
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes.
    pub value: Option<&'a [u8]>,
    /// Timestamp (now, when `None`).
    pub timestamp: Option<i64>,
    /// Headers.
    pub headers: Vec<(&'a str, &'a [u8])>,
}

/// A [`NewRecord`] with its bytes copied, to move to the blocking pool.
struct OwnedRecord {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp: Option<i64>,
    headers: Vec<(String, Vec<u8>)>,
}

impl From<NewRecord<'_>> for OwnedRecord {
    fn from(r: NewRecord<'_>) -> Self {
        OwnedRecord {
            key: r.key.map(<[u8]>::to_vec),
            value: r.value.map(<[u8]>::to_vec),
            timestamp: r.timestamp,
            headers: r
                .headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.to_vec()))
                .collect(),
        }
    }
}

/// Produces `records` (key, value) to `topic` and waits until all are acknowledged (on the
/// blocking pool).
pub async fn produce<'a>(
    bootstrap: &str,
    topic: &str,
    records: impl IntoIterator<Item = (Option<&'a [u8]>, Option<&'a [u8]>)>,
) -> Result<u64, KafkaError> {
    produce_records(
        bootstrap,
        topic,
        records.into_iter().map(|(key, value)| NewRecord {
            key,
            value,
            ..NewRecord::default()
        }),
    )
    .await
}

/// Produces `records` to `topic` and waits until all are acknowledged (on the blocking pool).
pub async fn produce_records<'a>(
    bootstrap: &str,
    topic: &str,
    records: impl IntoIterator<Item = NewRecord<'a>>,
) -> Result<u64, KafkaError> {
    let records: Vec<OwnedRecord> = records.into_iter().map(OwnedRecord::from).collect();
    let (bootstrap, topic) = (bootstrap.to_owned(), topic.to_owned());
    off_workers(move || produce_blocking(&bootstrap, &topic, &records)).await
}

/// Produces `records` to `topic` and waits until all are acknowledged, blocking the caller.
fn produce_blocking(
    bootstrap: &str,
    topic: &str,
    records: &[OwnedRecord],
) -> Result<u64, KafkaError> {
    let producer = producer(bootstrap)?;
    let mut n = 0;
    for r in records {
        let headers = (!r.headers.is_empty()).then(|| {
            r.headers
                .iter()
                .fold(OwnedHeaders::new(), |headers, (key, value)| {
                    headers.insert(Header {
                        key,
                        value: Some(value),
                    })
                })
        });
        send(&producer, topic, r, headers)?;
        n += 1;
    }
    producer.flush(Duration::from_secs(60))?;
    Ok(n)
}

/// Sends one record, waiting while librdkafka's queue is full.
fn send(
    producer: &ThreadedProducer<DefaultProducerContext>,
    topic: &str,
    r: &OwnedRecord,
    headers: Option<OwnedHeaders>,
) -> Result<(), KafkaError> {
    let mut record: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(topic);
    if let Some(t) = r.timestamp {
        record = record.timestamp(t);
    }
    if let Some(k) = &r.key {
        record = record.key(k.as_slice());
    }
    if let Some(v) = &r.value {
        record = record.payload(v.as_slice());
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

/// One record read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes.
    pub value: Option<Vec<u8>>,
    /// Timestamp.
    pub timestamp: i64,
    /// Headers (name, value).
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Reads every committed record of `topic` from the beginning, until no new record arrived for
/// `quiet` or `limit` passed (on the blocking pool). Uses read_committed and no consumer group.
pub async fn read_all(
    bootstrap: &str,
    topic: &str,
    quiet: Duration,
    limit: Duration,
) -> Result<Vec<ReadRecord>, KafkaError> {
    let (bootstrap, topic) = (bootstrap.to_owned(), topic.to_owned());
    off_workers(move || read_all_blocking(&bootstrap, &topic, quiet, limit)).await
}

fn read_all_blocking(
    bootstrap: &str,
    topic: &str,
    quiet: Duration,
    limit: Duration,
) -> Result<Vec<ReadRecord>, KafkaError> {
    let consumer = committed_reader(bootstrap, topic)?;
    let started = Instant::now();
    let mut last = Instant::now();
    let mut out = Vec::new();
    while last.elapsed() < quiet && started.elapsed() < limit {
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(m)) => {
                last = Instant::now();
                out.push(ReadRecord::from_message(&m));
            }
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    Ok(out)
}

/// A consumer that reads every partition of `topic` from the beginning, `read_committed`, in no
/// consumer group (as an independent downstream application would). Blocking (a metadata
/// request): call it off the tokio workers.
pub fn committed_reader(bootstrap: &str, topic: &str) -> Result<BaseConsumer, KafkaError> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", format!("dekaf-reader-{}", uuid::Uuid::new_v4()))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()?;
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let mut tpl = TopicPartitionList::new();
    for t in metadata.topics() {
        for p in t.partitions() {
            tpl.add_partition_offset(topic, p.id(), Offset::Beginning)?;
        }
    }
    consumer.assign(&tpl)?;
    Ok(consumer)
}

impl ReadRecord {
    /// A copy of a consumed record.
    pub fn from_message(m: &impl Message) -> ReadRecord {
        use rdkafka::message::Headers as _;
        ReadRecord {
            partition: m.partition(),
            offset: m.offset(),
            key: m.key().map(<[u8]>::to_vec),
            value: m.payload().map(<[u8]>::to_vec),
            timestamp: m.timestamp().to_millis().unwrap_or(-1),
            headers: m
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// The last value per key of UTF-8 keys and big-endian i64 values (a count topic).
pub fn last_counts(records: &[ReadRecord]) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for r in records {
        if let (Some(k), Some(v)) = (&r.key, &r.value)
            && let Ok(bytes) = <[u8; 8]>::try_from(v.as_slice())
        {
            counts.insert(
                String::from_utf8_lossy(k).into_owned(),
                i64::from_be_bytes(bytes),
            );
        }
    }
    counts
}

/// Deletes what an earlier run of `application_id` left (its streams group, its internal topics
/// and `topics`) and creates `topics` (name, partitions) afresh. Waits up to a minute for members
/// of an earlier run to leave the group.
pub async fn recreate(
    bootstrap: &str,
    application_id: &str,
    topics: &[(&str, i32)],
) -> Result<(), String> {
    let settings = ClientSettings::new(bootstrap);
    let started = Instant::now();
    loop {
        match reset_application(&settings, application_id).await {
            Ok(_) => break,
            Err(e) if started.elapsed() < Duration::from_secs(60) => {
                eprintln!("reset of {application_id} not possible yet: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => return Err(format!("cannot reset {application_id}: {e}")),
        }
    }
    let admin = admin(bootstrap).map_err(|e| format!("admin client: {e}"))?;
    let names: Vec<&str> = topics.iter().map(|(n, _)| *n).collect();
    let _ = admin.delete_topics(&names, &AdminOptions::new()).await;
    drop_off_workers(admin);
    // Deleted topics may take a moment to disappear.
    let started = Instant::now();
    let wanted: Vec<(String, i32)> = topics.iter().map(|(n, p)| ((*n).to_owned(), *p)).collect();
    loop {
        let created = create_topics(bootstrap, topics).await;
        let ready = created.is_ok() && {
            let (bootstrap, wanted) = (bootstrap.to_owned(), wanted.clone());
            off_workers(move || topics_ready(&bootstrap, &wanted)).await
        };
        match created {
            Ok(()) if ready => return Ok(()),
            _ if started.elapsed() > Duration::from_secs(60) => {
                return Err(format!("cannot create {names:?}"));
            }
            _ => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    }
}

/// Whether every topic exists with its partition count. Blocking.
fn topics_ready(bootstrap: &str, topics: &[(String, i32)]) -> bool {
    let Ok(consumer) = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create::<BaseConsumer>()
    else {
        return false;
    };
    topics.iter().all(|(name, partitions)| {
        consumer
            .fetch_metadata(Some(name), Duration::from_secs(5))
            .is_ok_and(|m| {
                m.topics().first().is_some_and(|t| {
                    t.error().is_none() && t.partitions().len() == *partitions as usize
                })
            })
    })
}
