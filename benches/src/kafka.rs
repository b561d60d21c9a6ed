//! Broker plumbing: topic creation and clean-up, and writing input records.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::util::Timeout;

use crate::workload::InputRecord;

/// The broker address from `DEKAF_KAFKA_PORT` (as `scripts/kafka.sh` uses it), default 9092.
pub fn bootstrap_from_env() -> String {
    let port = std::env::var("DEKAF_KAFKA_PORT").unwrap_or_else(|_| "9092".into());
    format!("127.0.0.1:{port}")
}

/// A client configuration for `bootstrap` with quiet logging.
pub fn client_config(bootstrap: &str) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", bootstrap).set("log_level", "3");
    c
}

/// Blocks on a future without an async runtime (the admin client's futures are driven by
/// librdkafka's own threads).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::pin::pin;
    use std::task::{Context as TaskContext, Poll, Waker};
    struct ThreadWaker(std::thread::Thread);
    impl std::task::Wake for ThreadWaker {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = TaskContext::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(Duration::from_millis(50));
    }
}

/// Topic and group administration on one broker.
pub struct Admin {
    client: AdminClient<DefaultClientContext>,
    bootstrap: String,
}

impl Admin {
    /// Connects to `bootstrap`.
    pub fn new(bootstrap: &str) -> Result<Self> {
        let client = client_config(bootstrap)
            .create()
            .with_context(|| format!("cannot create an admin client for {bootstrap}"))?;
        Ok(Self {
            client,
            bootstrap: bootstrap.to_owned(),
        })
    }

    fn options() -> AdminOptions {
        AdminOptions::new().operation_timeout(Some(Timeout::After(Duration::from_secs(30))))
    }

    /// Creates `topics` with `partitions` partitions each (replication factor 1).
    pub fn create_topics(&self, topics: &[String], partitions: i32) -> Result<()> {
        let new: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(1)))
            .collect();
        let results =
            block_on(self.client.create_topics(&new, &Self::options())).with_context(|| {
                format!(
                    "creating topics on {} failed; is the broker up? (scripts/kafka.sh start)",
                    self.bootstrap
                )
            })?;
        for r in results {
            if let Err((topic, code)) = r
                && code != RDKafkaErrorCode::TopicAlreadyExists
            {
                bail!("creating topic {topic} failed: {code}");
            }
        }
        Ok(())
    }

    /// Names of all topics whose name starts with `prefix`.
    pub fn topics_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        let consumer: BaseConsumer = client_config(&self.bootstrap).create()?;
        let md = consumer
            .fetch_metadata(None, Duration::from_secs(10))
            .context("fetching topic metadata failed")?;
        Ok(md
            .topics()
            .iter()
            .map(|t| t.name().to_owned())
            .filter(|n| n.starts_with(prefix))
            .collect())
    }

    /// Deletes every topic whose name starts with `prefix` (inputs, outputs, internal topics)
    /// and the groups `groups`; failures are returned as warnings, not errors.
    pub fn clean_up(&self, prefix: &str, groups: &[String]) -> Vec<String> {
        let mut warnings = Vec::new();
        match self.topics_with_prefix(prefix) {
            Ok(topics) if !topics.is_empty() => {
                let names: Vec<&str> = topics.iter().map(String::as_str).collect();
                match block_on(self.client.delete_topics(&names, &Self::options())) {
                    Ok(rs) => warnings
                        .extend(rs.into_iter().filter_map(|r| {
                            r.err().map(|(t, c)| format!("delete topic {t}: {c}"))
                        })),
                    Err(e) => warnings.push(format!("delete topics {prefix}*: {e}")),
                }
            }
            Ok(_) => {}
            Err(e) => warnings.push(format!("list topics {prefix}*: {e}")),
        }
        if !groups.is_empty() {
            let names: Vec<&str> = groups.iter().map(String::as_str).collect();
            match block_on(self.client.delete_groups(&names, &Self::options())) {
                Ok(rs) => warnings.extend(rs.into_iter().filter_map(|r| {
                    r.err()
                        .filter(|(_, c)| *c != RDKafkaErrorCode::GroupIdNotFound)
                        .map(|(g, c)| format!("delete group {g}: {c}"))
                })),
                Err(e) => warnings.push(format!("delete groups: {e}")),
            }
        }
        warnings
    }

    /// Waits until every topic in `topics` has `partitions` partitions with leaders.
    pub fn wait_for_topics(&self, topics: &[String], partitions: usize) -> Result<()> {
        let consumer: BaseConsumer = client_config(&self.bootstrap).create()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        for t in topics {
            loop {
                let md = consumer.fetch_metadata(Some(t), Duration::from_secs(5))?;
                let ready = md.topics().first().is_some_and(|m| {
                    m.error().is_none()
                        && m.partitions().len() == partitions
                        && m.partitions().iter().all(|p| p.leader() >= 0)
                });
                if ready {
                    break;
                }
                if Instant::now() > deadline {
                    bail!(
                        "topic {t} has no leader after 30 s; check the broker (scripts/kafka.sh log)"
                    );
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(())
    }
}

/// A producer for input records: idempotent, Java-compatible partitioning (murmur2, as Kafka
/// Streams' default partitioner, so that co-partitioned topics line up).
pub struct InputWriter {
    producer: ThreadedProducer<DefaultProducerContext>,
    prefix: String,
    /// The schema id that frames every value as an Avro `Sentence` (the Avro word count).
    avro_sentences: Option<u32>,
}

impl InputWriter {
    /// A writer to the topics `<prefix>-<suffix>` on `bootstrap`.
    pub fn new(bootstrap: &str, prefix: &str) -> Result<Self> {
        let producer = client_config(bootstrap)
            .set("enable.idempotence", "true")
            .set("partitioner", "murmur2_random")
            .set("linger.ms", "5")
            .set("batch.size", "1000000")
            .set("queue.buffering.max.messages", "1000000")
            .set("compression.type", "none")
            .create()
            .context("cannot create the input producer")?;
        Ok(Self {
            producer,
            prefix: prefix.to_owned(),
            avro_sentences: None,
        })
    }

    /// Writes every value as an Avro `Sentence` of that text in the Confluent wire format with
    /// schema id `id` (see [`crate::avro`]); the records' other parts stay as they are.
    pub fn avro_sentences(mut self, id: u32) -> Self {
        self.avro_sentences = Some(id);
        self
    }

    /// Queues one record, waiting while the local queue is full.
    pub fn send(&self, r: &InputRecord) -> Result<()> {
        let topic = format!("{}-{}", self.prefix, r.topic_suffix);
        let framed = self
            .avro_sentences
            .map(|id| crate::avro::frame_sentence(id, &r.value));
        let mut rec: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(&topic)
            .payload(framed.as_deref().unwrap_or(&r.value[..]))
            .timestamp(r.timestamp_ms);
        if let Some(k) = &r.key {
            rec = rec.key(&k[..]);
        }
        let mut rec = rec;
        for _ in 0..10_000 {
            match self.producer.send(rec) {
                Ok(()) => return Ok(()),
                Err((e, back)) if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull) => {
                    rec = back;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err((e, _)) => bail!("producing to {topic} failed: {e}"),
            }
        }
        bail!("producing to {topic}: the local queue stayed full for 10 s")
    }

    /// Waits until everything queued is acknowledged.
    pub fn flush(&self) -> Result<()> {
        self.producer
            .flush(Duration::from_secs(60))
            .context("input records were not acknowledged within 60 s")
    }
}

/// How a streams group looked when [`wait_for_stable_group`] stopped waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSettled {
    /// The group's state as the coordinator named it (`Stable` when the wait succeeded).
    pub state: String,
    /// Its members.
    pub members: usize,
    /// Whether it became stable with at least the expected members in time.
    pub stable: bool,
}

/// Waits (at most `timeout`, describing the group every 100 ms) until the streams group
/// `group` is `Stable` with at least `members` members: every member runs the group's target
/// assignment, so no task is still moving between members (Kafka 4.4's `StreamsGroup` calls a
/// group stable only when every member is at the target assignment epoch and reconciled).
///
/// Both systems are members of a streams group (Kafka Streams 4.4 with
/// `group.protocol=streams`, one member per stream thread, as dekaf-streams), so the same check
/// serves both: the live phase starts once the startup rebalance is over, whichever system
/// finished its backlog first. Never fails: an unreachable coordinator or a group that does not
/// settle in time is reported in the returned value.
pub fn wait_for_stable_group(
    bootstrap: &str,
    group: &str,
    members: usize,
    timeout: Duration,
) -> GroupSettled {
    let config = dekaf_streams::group::CoordinatorConfig::new(bootstrap, "bench-driver");
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return GroupSettled {
                state: format!("no runtime to describe the group: {e}"),
                members: 0,
                stable: false,
            };
        }
    };
    let deadline = Instant::now() + timeout;
    let mut last = GroupSettled {
        state: "not described".into(),
        members: 0,
        stable: false,
    };
    loop {
        match runtime.block_on(dekaf_streams::group::describe_streams_group(&config, group)) {
            Ok(g) => {
                last = GroupSettled {
                    stable: g.group_state.eq_ignore_ascii_case("stable")
                        && g.members.len() >= members,
                    state: g.group_state,
                    members: g.members.len(),
                };
                if last.stable {
                    return last;
                }
            }
            Err(e) => last.state = format!("describe failed: {e}"),
        }
        if Instant::now() >= deadline {
            return last;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
