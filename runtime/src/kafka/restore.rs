//! Reading changelog partitions back into stores.
//!
//! A task's stores are rebuilt before it processes anything: each changelog partition is read
//! from the changelog offset the store recorded (or the beginning) to its end, and every record
//! is handed to the store. Under exactly-once the restore consumer reads `read_committed`, so
//! records of aborted transactions are never restored.
//!
//! "The end" is the partition's log end offset (its high watermark), looked up
//! `read_uncommitted` with [`LogEnds`]: not the last stable offset. A transaction still open on
//! the changelog (a previous owner's, which the broker aborts or its producer commits in a moment)
//! holds the last stable offset below records that other transactions committed after it began;
//! a restore that stopped there would miss them while the input offsets committed with them say
//! they were processed, and the task would go on from a state without them. The restore instead
//! waits, reading `read_committed`, until its position passes the log end it looked up, that is
//! until every transaction open below it has ended. Kafka Streams does the same
//! (`StoreChangelogReader#endOffsetForChangelogs` lists offsets `READ_UNCOMMITTED`, KAFKA-10167,
//! and a changelog is restored when the restore consumer's position reaches that offset).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, ClientContext};
use rdkafka::{Offset, TopicPartitionList};

use crate::store::StoreBackend;

/// How long one watermark lookup of a restore may take before a stop request is checked.
const STEP: Duration = Duration::from_secs(5);

/// How often a long restore logs its progress.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

/// A long restore records its progress ([`RestoreTarget::checkpoint`]) after this many records of
/// a partition, and after [`CHECKPOINT_INTERVAL`]: a restart (a crash, a move, a shutdown)
/// resumes there, so a restore of tens of millions of records finishes even if it is interrupted
/// now and then. Kafka Streams checkpoints restoring tasks every commit interval
/// (`DefaultStateUpdater#maybeCheckpointTasks`).
pub const CHECKPOINT_RECORDS: u64 = 10_000;

/// See [`CHECKPOINT_RECORDS`].
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(10);

/// Where a restore's records go, and where its progress is recorded.
///
/// [`each`] makes one of a closure, recording nothing; a task's restore records its progress in
/// its stores.
pub trait RestoreTarget {
    /// Applies one changelog record (`value: None`: a tombstone) of `topic[partition]` at
    /// `offset`, written at `timestamp`.
    fn apply(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<(), String>;

    /// Every record of `topic[partition]` before `next` has been applied: a store that keeps
    /// its state on disk records `next` with what it holds, so that a restart resumes the
    /// restore there instead of from the start. Called every [`CHECKPOINT_RECORDS`] records or
    /// [`CHECKPOINT_INTERVAL`], and when the partition is done.
    fn checkpoint(&mut self, topic: &str, partition: i32, next: i64) -> Result<(), String> {
        let _ = (topic, partition, next);
        Ok(())
    }
}

/// A target that hands each record to `apply(topic, partition, offset, key, value, timestamp)`
/// and records no progress.
pub fn each<F>(apply: F) -> Each<F>
where
    F: FnMut(&str, i32, i64, Option<&[u8]>, Option<&[u8]>, i64) -> Result<(), String>,
{
    Each(apply)
}

/// See [`each`].
#[derive(Debug)]
pub struct Each<F>(F);

impl<F> RestoreTarget for Each<F>
where
    F: FnMut(&str, i32, i64, Option<&[u8]>, Option<&[u8]>, i64) -> Result<(), String>,
{
    fn apply(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<(), String> {
        (self.0)(topic, partition, offset, key, value, timestamp)
    }
}

/// Why a restore stopped.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The consumer failed.
    #[error("restoring {topic}[{partition}] failed: {source}")]
    Kafka {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// What librdkafka said.
        #[source]
        source: KafkaError,
    },
    /// The restore made no progress (no record applied, no partition finished) for `timeout`.
    #[error(
        "restoring {pending} changelog partition(s) made no progress for {timeout:?}: check that \
         the broker is reachable and that no transaction on the changelog stays open"
    )]
    TimedOut {
        /// Partitions not finished.
        pending: usize,
        /// The limit without progress.
        timeout: Duration,
    },
    /// Recording the restore's progress in a store failed.
    #[error("recording the restore's progress at {topic}[{partition}]@{next} failed: {reason}")]
    Checkpoint {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The offset it was to record.
        next: i64,
        /// Why.
        reason: String,
    },
    /// The application is stopping: the restore gave up (the task's stores are incomplete).
    #[error("restoring was interrupted by the application's shutdown")]
    Stopped,
    /// The store refused a changelog record.
    #[error("applying a record of {topic}[{partition}]@{offset} to its store failed: {reason}")]
    Apply {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The record's offset.
        offset: i64,
        /// Why.
        reason: String,
    },
}

/// One changelog partition to restore, from `from` (an offset, or the beginning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePartition {
    /// The changelog topic (or the source topic of a table).
    pub topic: String,
    /// The partition, equal to the task's partition.
    pub partition: i32,
    /// Where to start: the offset the store recorded with its last committed flush, or `Offset::Beginning`.
    pub from: Offset,
    /// Where to stop (exclusive), if before the end: a table read from a user topic is restored
    /// up to the committed offset, since processing resumes from there.
    pub until: Option<i64>,
}

/// What a restore read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RestoreSummary {
    /// Records applied.
    pub records: u64,
    /// Per partition (in the order given): the offset the store reflects once the restore is
    /// done, the end it read to (a lower bound when records arrived meanwhile), or where it
    /// started when there was nothing to read.
    pub ends: Vec<i64>,
}

/// The context of a restore consumer: end-of-partition is how a restore knows it is done, not an
/// error worth logging, and a broker restarting or unreachable (which librdkafka reports once per
/// connection attempt, and the restore waits out) is logged at debug level.
#[derive(Debug, Default, Clone)]
pub struct RestoreContext {
    oauth: super::oauth::OAuthRefresh,
}

impl ClientContext for RestoreContext {
    const ENABLE_REFRESH_OAUTH_TOKEN: bool = true;

    fn generate_oauth_token(
        &self,
        _: Option<&str>,
    ) -> Result<rdkafka::client::OAuthToken, Box<dyn std::error::Error>> {
        self.oauth.token()
    }

    fn error(&self, error: KafkaError, reason: &str) {
        if matches!(
            error,
            KafkaError::PartitionEOF(_) | KafkaError::Global(RDKafkaErrorCode::PartitionEOF)
        ) {
            return;
        }
        if is_transient(&error) {
            tracing::debug!(%error, reason, "restore consumer: broker unreachable or restarting");
        } else {
            tracing::error!(%error, reason, "restore consumer error");
        }
    }
}

impl ConsumerContext for RestoreContext {}

/// The consumer restores read with.
pub type RestoreConsumer = BaseConsumer<RestoreContext>;

/// The low and high watermarks of `topic[partition]`, retried through the errors of a leader
/// change or an unreachable broker (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, timeouts,
/// transport failures) until `timeout` has passed: on a replicated cluster a broker failure moves
/// the changelog's leader, which a restore must wait out rather than fail on.
pub fn watermarks<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    topic: &str,
    partition: i32,
    timeout: Duration,
) -> Result<(i64, i64), KafkaError> {
    let deadline = Instant::now() + timeout;
    let mut backoff = Duration::from_millis(100);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match consumer.fetch_watermarks(topic, partition, left.max(Duration::from_millis(100))) {
            Ok(marks) => return Ok(marks),
            Err(e) if is_transient(&e) && Instant::now() + backoff < deadline => {
                tracing::debug!(topic, partition, error = %e, "changelog offsets not readable yet (leader change?); retrying");
                if needs_metadata_refresh(&e) {
                    // librdkafka's watermark query takes the leader from its metadata cache, and
                    // a cached partition whose leader was -1 (an election under way when the
                    // cache was filled) counts as a permanent error there: it answers
                    // UNKNOWN_PARTITION without asking the cluster again
                    // (`rd_kafka_topic_partition_list_get_leaders`), so the cache stays stale
                    // until `topic.metadata.refresh.interval.ms` (5 min) refreshes it. After a
                    // broker SIGKILL that stalled a restore for those 5 minutes. A metadata
                    // request for the topic refreshes the cache.
                    let _ = consumer.fetch_metadata(Some(topic), left.min(Duration::from_secs(5)));
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Errors librdkafka answers from a stale metadata cache (a partition cached without a leader),
/// which it does not refresh by itself.
fn needs_metadata_refresh(e: &KafkaError) -> bool {
    matches!(
        e.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::UnknownPartition
                | RDKafkaErrorCode::LeaderNotAvailable
                | RDKafkaErrorCode::NotLeaderForPartition
        )
    )
}

/// Errors a leader election or a broker restart causes, which go away by themselves, and an
/// unknown partition (librdkafka's metadata cache, stale while leaders move, does not list it
/// yet): see [`super::transient`].
fn is_transient(e: &KafkaError) -> bool {
    super::transient::may_pass(e)
}

/// The client a restore looks its changelogs' ends up with: a consumer that never fetches, set to
/// `read_uncommitted` so its offset lookups answer the log end offset (librdkafka's watermark
/// query asks with the client's isolation level, and a `read_committed` one answers the last
/// stable offset). One per application instance, shared by its threads like the admin client.
pub struct LogEnds {
    consumer: RestoreConsumer,
}

impl LogEnds {
    /// Makes the client from `config` (a consumer configuration of the application).
    pub fn new(
        config: &ClientConfig,
        oauth: super::oauth::OAuthRefresh,
    ) -> Result<Self, KafkaError> {
        let mut config = config.clone();
        config.set("isolation.level", "read_uncommitted");
        let consumer = config.create_with_context(RestoreContext {
            oauth: oauth.clone(),
        })?;
        super::oauth::fetch_first_token(&consumer, &oauth);
        Ok(LogEnds { consumer })
    }

    /// The log end offset of `topic[partition]`, records of open transactions included, retried
    /// like [`watermarks`].
    pub fn log_end(
        &self,
        topic: &str,
        partition: i32,
        timeout: Duration,
    ) -> Result<i64, KafkaError> {
        // This client never fetches: serve its token refreshes (and drop its queued errors,
        // which the lookup reports itself) here, on the calling processing thread.
        let _ = self.consumer.poll(Duration::ZERO);
        watermarks(&self.consumer, topic, partition, timeout).map(|(_, high)| high)
    }
}

/// Makes a restore consumer from `config` (a consumer configuration of the application): it
/// reports end-of-partition and does not wait long for data at the end. OAUTHBEARER tokens come
/// from `oauth`.
pub fn restore_consumer(
    config: &ClientConfig,
    oauth: super::oauth::OAuthRefresh,
) -> Result<RestoreConsumer, KafkaError> {
    let mut config = config.clone();
    config
        .set("enable.partition.eof", "true")
        .set("fetch.wait.max.ms", "10");
    let consumer = config.create_with_context(RestoreContext {
        oauth: oauth.clone(),
    })?;
    super::oauth::fetch_first_token(&consumer, &oauth);
    Ok(consumer)
}

/// A changelog record's timestamp in milliseconds; -1 (Kafka's `NO_TIMESTAMP`) for a record
/// without one, as Kafka Streams' restore sees it.
pub(crate) fn record_timestamp<M: Message>(m: &M) -> i64 {
    m.timestamp().to_millis().unwrap_or(-1)
}

/// Reads every partition in `partitions` to its end with `consumer`, handing each record to
/// `target` ([`RestoreTarget::apply`]) and recording progress as it goes
/// ([`RestoreTarget::checkpoint`]). The end is the log end offset when the restore starts: `ends`
/// looks it up when `consumer` reads `read_committed` (exactly-once), and `None` takes the
/// consumer's own high watermark (it reads `read_uncommitted`). A partition is done once the
/// consumer's position passes its end, which under `read_committed` waits for the transactions
/// open below it to end (see the module docs). Partitions with nothing to read are skipped. The
/// others are read in waves of distinct partition numbers, since librdkafka's end-of-partition
/// event names the partition but not the topic. The consumer's assignment is left empty
/// afterwards.
///
/// `no_progress` bounds how long the restore may go without applying a record or finishing a
/// partition, not how long it may take: a restore of tens of millions of records takes what it
/// takes, while a broker that stays unreachable or a transaction that never ends fails it with
/// [`RestoreError::TimedOut`]. Once `stop` is set it gives up with [`RestoreError::Stopped`] (a
/// shutdown while the cluster is unreachable must not wait for it).
pub fn restore<T: RestoreTarget>(
    consumer: &RestoreConsumer,
    ends: Option<&LogEnds>,
    partitions: &[RestorePartition],
    no_progress: Duration,
    stop: &AtomicBool,
    mut target: T,
) -> Result<RestoreSummary, RestoreError> {
    let mut progress = Progress::new(no_progress);
    let mut summary = RestoreSummary::default();
    let mut waves: Vec<Vec<Pending<'_>>> = Vec::new();
    for p in partitions {
        // In steps, to see a stop request while the changelog's leader is unreachable; said
        // every STEP, so a lookup that keeps failing is seen in the log (in one fault-loop run
        // a restore went minutes without a line, most likely here).
        let mut last_warning: Option<Instant> = None;
        let (low, high) = loop {
            if stop.load(Ordering::Relaxed) {
                return Err(RestoreError::Stopped);
            }
            let left = progress.left();
            match bounds(consumer, ends, &p.topic, p.partition, left.min(STEP)) {
                Ok(marks) => break marks,
                Err(e) if is_transient(&e) && !left.is_zero() => {
                    if last_warning.is_none_or(|at| at.elapsed() >= STEP) {
                        last_warning = Some(Instant::now());
                        tracing::warn!(
                            topic = p.topic,
                            partition = p.partition,
                            error = %e,
                            left = ?left,
                            "looking up a changelog's offsets for its restore failed; trying again"
                        );
                    }
                    // A lookup refused at once must not spin.
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(source) => {
                    return Err(RestoreError::Kafka {
                        topic: p.topic.clone(),
                        partition: p.partition,
                        source,
                    });
                }
            }
        };
        progress.made();
        let start = match p.from {
            Offset::Offset(o) => o.max(low),
            _ => low,
        };
        let end = p.until.map_or(high, |u| u.min(high));
        tracing::debug!(
            topic = p.topic,
            partition = p.partition,
            start,
            end,
            "restoring a changelog partition"
        );
        summary.ends.push(start.max(end));
        if start >= end {
            continue;
        }
        let pending = Pending {
            partition: p,
            end,
            waiting: false,
            next: start,
            checkpointed: start,
        };
        match waves
            .iter_mut()
            .find(|w| w.iter().all(|q| q.partition.partition != p.partition))
        {
            Some(wave) => wave.push(pending),
            None => waves.push(vec![pending]),
        }
    }
    for wave in waves {
        let result = restore_wave(
            consumer,
            wave,
            &mut progress,
            stop,
            &mut target,
            &mut summary,
        );
        let _ = consumer.unassign();
        result?;
    }
    Ok(summary)
}

/// A store as a restore's target, as a task's stores are: each record is put (a tombstone
/// deleted), and the restore's progress is recorded with [`StoreBackend::flush_at`], so an LMDB
/// store restarts from its last checkpoint.
#[derive(Debug)]
pub struct StoreTarget<'a, B>(pub &'a mut B);

impl<B: StoreBackend> RestoreTarget for StoreTarget<'_, B> {
    fn apply(
        &mut self,
        _: &str,
        _: i32,
        _: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        _: i64,
    ) -> Result<(), String> {
        let key = key.unwrap_or_default();
        let result = match value {
            Some(v) => self.0.put(key, v),
            None => self.0.delete(key).map(|_| ()),
        };
        result.map_err(|e| e.to_string())
    }

    fn checkpoint(&mut self, _: &str, _: i32, next: i64) -> Result<(), String> {
        self.0.flush_at(next).map_err(|e| e.to_string())
    }
}

/// When a restore last made progress, and how long it may go without.
struct Progress {
    limit: Duration,
    last: Instant,
}

impl Progress {
    fn new(limit: Duration) -> Self {
        Progress {
            limit,
            last: Instant::now(),
        }
    }

    /// A record was applied, or a partition looked up or finished.
    fn made(&mut self) {
        self.last = Instant::now();
    }

    /// How long the restore may still go without progress.
    fn left(&self) -> Duration {
        self.limit.saturating_sub(self.last.elapsed())
    }
}

/// The low watermark and the log end offset of `topic[partition]`: `ends` looks the end up when
/// `consumer` reads `read_committed`; without it, the consumer's own high watermark is the end.
pub fn bounds(
    consumer: &RestoreConsumer,
    ends: Option<&LogEnds>,
    topic: &str,
    partition: i32,
    timeout: Duration,
) -> Result<(i64, i64), KafkaError> {
    let (low, high) = watermarks(consumer, topic, partition, timeout)?;
    match ends {
        // The last stable offset is never above the log end; `max` only guards a lookup that
        // raced records written in between.
        Some(ends) => Ok((low, ends.log_end(topic, partition, timeout)?.max(high))),
        None => Ok((low, high)),
    }
}

/// [`bounds`], each attempt bounded by `step`, retried through transient errors (a broker
/// restarting, a leader moving: see [`super::transient`]) with backoff and a warning until it
/// succeeds or `stop` is set: what a task's restore and a standby look their changelogs up with,
/// so a broker restart is waited out rather than stopping the application.
pub fn bounds_until_stopped(
    consumer: &RestoreConsumer,
    ends: Option<&LogEnds>,
    topic: &str,
    partition: i32,
    step: Duration,
    stop: &AtomicBool,
) -> Result<(i64, i64), super::transient::RetryError> {
    super::transient::retry("reading changelog offsets", stop, || {
        bounds(consumer, ends, topic, partition, step)
    })
}

/// A partition of a wave still being read.
struct Pending<'a> {
    partition: &'a RestorePartition,
    /// The offset the consumer's position must reach.
    end: i64,
    /// Reached the last stable offset below `end` (logged once).
    waiting: bool,
    /// The offset after the last record applied (where a restart would resume).
    next: i64,
    /// The last offset given to [`RestoreTarget::checkpoint`].
    checkpointed: i64,
}

impl Pending<'_> {
    /// Records the partition's progress in `target` if it moved since the last checkpoint.
    fn checkpoint<T: RestoreTarget>(&mut self, target: &mut T) -> Result<(), RestoreError> {
        if self.next <= self.checkpointed {
            return Ok(());
        }
        let p = self.partition;
        target
            .checkpoint(&p.topic, p.partition, self.next)
            .map_err(|reason| RestoreError::Checkpoint {
                topic: p.topic.clone(),
                partition: p.partition,
                next: self.next,
                reason,
            })?;
        self.checkpointed = self.next;
        Ok(())
    }

    /// Whether the consumer's `position` (the offset after the last record or transaction
    /// marker it handed out) reached the end. A table read from its source topic ends at the
    /// committed offset, which a `read_committed` reader had already reached: its
    /// end-of-partition is the end.
    fn done_at_eof(&self, position: Option<i64>) -> bool {
        self.partition.until.is_some() || position.is_some_and(|o| o >= self.end)
    }
}

/// The consumer's position in `topic[partition]`, if it handed out anything since it was
/// assigned.
fn position(consumer: &RestoreConsumer, topic: &str, partition: i32) -> Option<i64> {
    let positions = consumer.position().ok()?;
    match positions.find_partition(topic, partition)?.offset() {
        Offset::Offset(o) => Some(o),
        _ => None,
    }
}

fn restore_wave<T: RestoreTarget>(
    consumer: &RestoreConsumer,
    mut pending: Vec<Pending<'_>>,
    progress: &mut Progress,
    stop: &AtomicBool,
    target: &mut T,
    summary: &mut RestoreSummary,
) -> Result<(), RestoreError> {
    let kafka_error = |p: &RestorePartition, source| RestoreError::Kafka {
        topic: p.topic.clone(),
        partition: p.partition,
        source,
    };
    let mut tpl = TopicPartitionList::new();
    for q in &pending {
        let p = q.partition;
        tpl.add_partition_offset(&p.topic, p.partition, p.from)
            .map_err(|e| kafka_error(p, e))?;
    }
    consumer
        .assign(&tpl)
        .map_err(|e| kafka_error(pending[0].partition, e))?;
    let mut last_report = Instant::now();
    let mut last_checkpoint = Instant::now();
    // A finished partition records where it ended, then leaves the wave.
    let finish = |pending: &mut Vec<Pending<'_>>, i: usize, target: &mut T| {
        let mut done = pending.swap_remove(i);
        done.checkpoint(target)
    };
    while !pending.is_empty() {
        if stop.load(Ordering::Relaxed) {
            return Err(RestoreError::Stopped);
        }
        // A restore is the runtime's work, not user code stuck: it counts as polling.
        crate::group::touch_poll_watch();
        if last_report.elapsed() >= PROGRESS_INTERVAL {
            last_report = Instant::now();
            tracing::info!(
                restored = summary.records,
                partitions_left = pending.len(),
                waiting_for_transactions = pending.iter().filter(|q| q.waiting).count(),
                "restoring changelogs"
            );
        }
        if last_checkpoint.elapsed() >= CHECKPOINT_INTERVAL {
            last_checkpoint = Instant::now();
            for q in &mut pending {
                q.checkpoint(target)?;
            }
        }
        let left = progress.left();
        if left.is_zero() {
            return Err(RestoreError::TimedOut {
                pending: pending.len(),
                timeout: progress.limit,
            });
        }
        match consumer.poll(left.min(Duration::from_millis(100))) {
            None => {}
            Some(Ok(m)) => {
                let Some(i) = pending.iter().position(|q| {
                    q.partition.partition == m.partition() && q.partition.topic == m.topic()
                }) else {
                    continue;
                };
                let q = &mut pending[i];
                if q.partition.until.is_some_and(|until| m.offset() >= until) {
                    progress.made();
                    finish(&mut pending, i, target)?;
                    continue;
                }
                if let Err(reason) = target.apply(
                    m.topic(),
                    m.partition(),
                    m.offset(),
                    m.key(),
                    m.payload(),
                    record_timestamp(&m),
                ) {
                    return Err(RestoreError::Apply {
                        topic: m.topic().to_owned(),
                        partition: m.partition(),
                        offset: m.offset(),
                        reason,
                    });
                }
                progress.made();
                summary.records += 1;
                q.next = m.offset() + 1;
                if q.next >= q.end {
                    finish(&mut pending, i, target)?;
                } else if q.next - q.checkpointed >= CHECKPOINT_RECORDS as i64 {
                    q.checkpoint(target)?;
                }
            }
            Some(Err(KafkaError::PartitionEOF(partition))) => {
                let Some(i) = pending
                    .iter()
                    .position(|q| q.partition.partition == partition)
                else {
                    continue;
                };
                let q = &mut pending[i];
                let at = position(consumer, &q.partition.topic, partition);
                if q.done_at_eof(at) {
                    progress.made();
                    finish(&mut pending, i, target)?;
                } else if !q.waiting {
                    q.waiting = true;
                    tracing::info!(
                        topic = q.partition.topic,
                        partition,
                        position = ?at,
                        end = q.end,
                        "a transaction open on the changelog holds its committed records back; \
                         waiting for it to end before the restore completes"
                    );
                }
            }
            // librdkafka refetches from the new leader by itself; `no_progress` bounds the wait.
            Some(Err(e)) if is_transient(&e) => {
                tracing::debug!(error = %e, "restore consumer: transient error; waiting for the changelog's leader");
            }
            Some(Err(e)) => return Err(kafka_error(pending[0].partition, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::kafka::transient::RetryError;

    /// A restore consumer of a cluster nobody answers for.
    fn unreachable() -> RestoreConsumer {
        let mut config = ClientConfig::new();
        config
            .set("bootstrap.servers", "127.0.0.1:1")
            .set("group.id", "transient-test")
            .set("log_level", "0");
        restore_consumer(&config, super::super::oauth::OAuthRefresh::default()).expect("a consumer")
    }

    #[test]
    fn a_changelog_lookup_while_the_cluster_is_unreachable_fails_when_not_retried() {
        // What a task's restore did before: one bounded lookup, whose transient error stopped
        // the application.
        let consumer = unreachable();
        let e = bounds(
            &consumer,
            None,
            "app-store-changelog",
            0,
            Duration::from_millis(300),
        )
        .expect_err("nobody answers");
        assert!(crate::kafka::transient::is_transient(&e), "{e:?}");
    }

    #[test]
    fn a_changelog_lookup_while_the_cluster_is_unreachable_waits_until_the_stop() {
        let consumer = unreachable();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let stopper = std::thread::spawn(move || {
            // Several attempts of 300 ms each fail meanwhile.
            std::thread::sleep(Duration::from_millis(1500));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let got = bounds_until_stopped(
            &consumer,
            None,
            "app-store-changelog",
            0,
            Duration::from_millis(300),
            &stop,
        );
        let returned = Instant::now();
        let stopped_at = stopper.join().expect("the stopper");
        assert!(matches!(got, Err(RetryError::Stopped)), "{got:?}");
        // Within one attempt and one look at the stop flag.
        assert!(returned.duration_since(stopped_at) < Duration::from_millis(700));
    }
}
