//! The end of a record's path: committing a thread's work (step 9 of
//! [`processing`](super::processing)).
//!
//! A commit makes everything the thread's tasks did since the last commit durable at once: the
//! records they produced (output, repartition, changelog), their state, and the input offsets
//! they consumed. In order:
//!
//! 1. **Positions.** Each source's next offset is the position its task reached (moved past
//!    transaction markers the consumer stepped over, so consumer-lag tools read 0 on a caught-up
//!    transactional input). Each offset carries its task's stream time in its metadata
//!    (`st=<ms>`), so windows close at the same point after a restart or a move.
//! 2. **Record caches.** Every task's record cache is flushed: each aggregation forwards the
//!    latest result of every key it changed in the interval (into the open transaction under
//!    exactly-once).
//! 3. **Changelogs.** The [`ChangelogBuffer`](super::changelog_buffer) produces the last
//!    changelog record of every key the interval changed.
//! 4. **Exactly-once:** the consumed offsets are added to the transaction with the member's id
//!    and current epoch ([`send_offsets_to_transaction`]) while the interval's records are still
//!    being acknowledged, the producer's outstanding records are drained, and the transaction
//!    commits. The coordinator refuses
//!    offsets from a member whose epoch it has moved past, so a fenced member cannot commit.
//!    **At-least-once:** the producer is flushed (a record not delivered redoes the interval),
//!    then the offsets are committed with the member's epoch over the runtime's own coordinator
//!    connection ([`offset_commit`](super::offset_commit): librdkafka cannot commit for a
//!    streams-group member it did not join itself).
//! 5. **After.** Positions become the committed positions, on-disk stores are flushed
//!    ([`state`](super::state)), and every 30 s repartition records below the committed offsets
//!    are purged.
//!
//! A commit that fails is undone ([`abort`](super::abort)): the transaction is aborted, the
//! tasks' state is dropped and restored from the changelogs, and input is read again from the
//! committed offsets. A coordinator that refuses the member's epoch
//! ([`refusal`](super::refusal)) has the interval redone (a stale epoch) or every task dropped
//! and the member rejoin (fenced). A record the broker refused for good stops the application.

use std::time::{Duration, Instant};

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::Producer;
use rdkafka::{Offset, TopicPartitionList};

use super::error::StreamsError;
use super::metrics::TaskCounts;
use super::offset_commit::OffsetCommitError;
use super::processing::StreamThread;
use super::record_path::ProducerSink;
use super::refusal::{MemberRefusal, member_refusal};
use crate::kafka::producer::{self, Resumed};
use crate::kafka::txn_offsets::{TxnOffsetsError, send_offsets_to_transaction};
use crate::store::BackendFactory;
use crate::task::{Task, TaskError, Topology};

/// How long a commit may take before it counts as failed.
pub(super) const COMMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an at-least-once offset commit is retried while the group coordinator cannot be
/// reached (Kafka Streams' `task.timeout.ms`, 5 minutes by default).
const OFFSET_COMMIT_PATIENCE: Duration = Duration::from_secs(300);

/// How often committed repartition records are purged (Kafka Streams'
/// `repartition.purge.interval.ms`).
const PURGE_INTERVAL: Duration = Duration::from_secs(30);

/// The offset metadata that carries a task's stream time.
pub(crate) fn stream_time_metadata(stream_time: i64) -> String {
    format!("st={stream_time}")
}

/// The stream time in committed offset metadata, if any.
pub(crate) fn parse_stream_time(metadata: &str) -> Option<i64> {
    metadata.strip_prefix("st=")?.parse().ok()
}

/// How an exactly-once commit failed.
enum Failure {
    /// The application is stopping and `commit_transaction` had not completed (the cluster
    /// is unreachable): whether the transaction committed is unknown.
    Interrupted,
    /// Adding the offsets to the transaction failed.
    Offsets(TxnOffsetsError),
    /// Committing the transaction failed.
    Commit(KafkaError),
}

/// What a commit came to.
enum Outcome {
    /// The interval committed: what follows a commit (5) follows.
    Committed,
    /// Nothing to commit, or the interval was redone or given up: nothing follows.
    NotCommitted,
}

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// The next offsets of every task's sources, with stream time as metadata.
    fn progress(&self) -> TopicPartitionList {
        let mut tpl = TopicPartitionList::new();
        for active in self.tasks.iter() {
            let metadata = stream_time_metadata(active.task.stream_time());
            for (i, topic) in active.task.source_topics().iter().enumerate() {
                if let Some(next) = active.positions[i]
                    && active.committed[i] != Some(next)
                {
                    let mut elem = tpl.add_partition(topic, active.id.partition);
                    if elem.set_offset(Offset::Offset(next)).is_ok() {
                        elem.set_metadata(metadata.as_str());
                    }
                }
            }
        }
        tpl
    }

    /// Moves each source's next offset past the transaction markers the consumer stepped over
    /// after the last record it handed out, as Kafka Streams commits `mainConsumer.position()`
    /// when the last consumed record was the last one fetched
    /// (`StreamTask.committableOffsetsAndMetadata`). A marker is never handed out, so the
    /// record's offset + 1 points at the marker, and lag tools would read 1 per partition
    /// forever on a caught-up transactional input. Only sources that consumed a record since
    /// the consumer was last assigned take its position: before that, it may still hold a
    /// position from before a rewind.
    fn advance_past_markers(&mut self) {
        for active in self.tasks.iter_mut() {
            if !active.consumed.contains(&true) {
                continue;
            }
            active.sources.refresh(&self.clients.consumer);
            for i in 0..active.positions.len() {
                // Records held back for timestamp order lie between the two.
                if !active.consumed[i] || active.queues.as_ref().is_some_and(|q| q.holds(i)) {
                    continue;
                }
                if let (Some(next), Some(position)) =
                    (active.positions[i], active.sources.position(i))
                    && position > next
                {
                    active.positions[i] = Some(position);
                }
            }
        }
    }

    /// Commits everything processed since the last commit: positions (1), then the
    /// transaction (2-4) or the at-least-once flush and offset commit (2-4), then what follows a
    /// commit (5).
    pub(crate) fn commit(&mut self) -> Result<(), StreamsError> {
        self.member.doing(crate::group::Phase::Committing);
        self.interval.commit_requested = false;
        let started = Instant::now();
        self.advance_past_markers();
        let offsets = self.progress();
        let outcome = if self.eos() {
            self.commit_transaction(&offsets, started)?
        } else {
            self.commit_at_least_once(&offsets)?
        };
        match outcome {
            Outcome::Committed => self.after_commit(started),
            Outcome::NotCommitted => Ok(()),
        }
    }

    /// Exactly-once (2-4): flushes the caches and the changelog buffer into the open
    /// transaction, adds the offsets to it, drains the producer and commits the transaction.
    fn commit_transaction(
        &mut self,
        offsets: &TopicPartitionList,
        started: Instant,
    ) -> Result<Outcome, StreamsError> {
        if !self.interval.txn_open && offsets.count() == 0 {
            self.interval.last_commit = Instant::now();
            return Ok(Outcome::NotCommitted);
        }
        if !self.interval.txn_open {
            // Nothing processed, but the consumer stepped over markers: commit the offsets
            // alone, so the group's lag reaches 0.
            self.clients
                .producer
                .begin_transaction()
                .map_err(StreamsError::kafka("beginning a transaction"))?;
            self.interval.txn_open = true;
        }
        // When each phase ended: caches, changelogs, offsets, drain (debug log below).
        let mut marks = [started; 4];
        self.flush_caches()?;
        marks[0] = Instant::now();
        if let Err(failure) = self.end_transaction(offsets, &mut marks) {
            return self.transaction_failed(failure);
        }
        self.interval.txn_open = false;
        tracing::debug!(
            target: "dekaf_streams::commit",
            caches_ms = ms(started, marks[0]),
            changelog_ms = ms(marks[0], marks[1]),
            offsets_ms = ms(marks[1], marks[2]),
            drain_ms = ms(marks[2], marks[3]),
            end_txn_ms = ms(marks[3], Instant::now()),
            since_last_ms = ms(self.interval.last_commit, started),
            "exactly-once commit phases"
        );
        Ok(Outcome::Committed)
    }

    /// Exactly-once (3-4): the changelog records, the offsets, the drain and the transaction's
    /// commit, noting in `marks` when each of the first three ended.
    fn end_transaction(
        &mut self,
        offsets: &TopicPartitionList,
        marks: &mut [Instant; 4],
    ) -> Result<(), Failure> {
        let identity = self.member.identity();
        // The offsets are added while the interval's records are still on their way, not
        // after: AddOffsetsToTxn goes to the transaction coordinator over its own connection,
        // and TxnOffsetCommit is queued right behind the last ProduceRequest, so neither waits
        // a round trip of its own after the drain. Records and offsets commit or abort together
        // whatever their order within the transaction. (Kafka Streams'
        // `StreamsProducer.commitTransaction` also sends the offsets first and lets
        // `commitTransaction` flush the records.)
        let producer = &self.clients.producer;
        self.interval
            .changelog
            .flush(producer)
            .map_err(Failure::Commit)?;
        marks[1] = Instant::now();
        send_offsets_to_transaction(&**producer, offsets, &identity, COMMIT_TIMEOUT)
            .map_err(Failure::Offsets)?;
        marks[2] = Instant::now();
        producer::drain(producer, COMMIT_TIMEOUT, &self.ctx.stop).map_err(Failure::Commit)?;
        marks[3] = Instant::now();
        // A commit that times out (the transaction coordinator unreachable) is resumed, never
        // aborted: it may have reached the coordinator, and an abort or a new producer would
        // then redo work that committed.
        let committed = producer::resume_until_done(
            "committing the transaction",
            &self.ctx.stop,
            None,
            |timeout| producer.commit_transaction(timeout),
        );
        match committed {
            Ok(Resumed::Done) => Ok(()),
            Ok(Resumed::Stopped) => Err(Failure::Interrupted),
            Err(e) => Err(Failure::Commit(e)),
        }
    }

    /// Exactly-once: what a failed commit means. Shutting down while the cluster is unreachable
    /// leaves the transaction's fate to the broker; a record refused for good stops the
    /// application; a member refused by the coordinator is handled as [`refusal`](super::refusal)
    /// says; anything else aborts and redoes the interval, replacing a producer that failed
    /// for good.
    fn transaction_failed(&mut self, failure: Failure) -> Result<Outcome, StreamsError> {
        if matches!(failure, Failure::Interrupted) {
            // Shutting down while the cluster is unreachable: the thread closes without
            // committing; the transaction's fate is the broker's.
            self.interval.txn_open = false;
            self.interval.interrupted = true;
            return Ok(Outcome::NotCommitted);
        }
        // A record the broker refused for good fails the transaction: that stops the
        // application rather than being redone forever. Its delivery report may still be on
        // its way; waiting for the outstanding records brings it.
        let producer = &self.clients.producer;
        let _ = producer::drain(producer, Duration::from_secs(5), &self.ctx.stop);
        if let Some(delivery) = self.clients.deliveries.take_checked(producer.client()) {
            if delivery.permanent {
                let _ = producer.abort_transaction(COMMIT_TIMEOUT);
                self.interval.txn_open = false;
                return Err(delivery.into());
            }
            tracing::warn!(error = %delivery.error, topic = delivery.topic, "a record was not delivered");
        }
        match failure {
            Failure::Offsets(e) if member_refusal(e.code).is_some() => {
                if e.fatal {
                    tracing::warn!(error = %e, "the producer failed for good with the refused offsets; replacing it");
                    self.replace_producer()?;
                }
                self.member_refused(member_refusal(e.code), e)?;
            }
            Failure::Offsets(e) if e.fatal => {
                tracing::warn!(error = %e, "the producer failed for good while adding the offsets; replacing it and redoing the interval");
                self.replace_producer()?;
                self.abort_and_rebuild()?;
            }
            Failure::Offsets(e) => {
                tracing::warn!(error = %e, "offset commit failed; aborting and redoing the interval");
                self.abort_and_rebuild()?;
            }
            Failure::Commit(KafkaError::Transaction(rd)) if rd.txn_requires_abort() => {
                tracing::warn!(error = %rd, "commit failed; aborting and redoing the interval");
                self.abort_and_rebuild()?;
            }
            Failure::Commit(KafkaError::Transaction(rd)) if rd.is_fatal() => {
                tracing::warn!(error = %rd, "the producer was fenced while committing; replacing it and redoing the interval");
                self.replace_producer()?;
                self.abort_and_rebuild()?;
            }
            // Sending the interval's records found the transaction already failed (an earlier
            // record timed out, "requires epoch bump"): abortable, like a commit that requires
            // an abort. Seen after a member was frozen past its timeouts.
            Failure::Commit(e @ KafkaError::MessageProduction(RDKafkaErrorCode::State)) => {
                tracing::warn!(error = %e, "the transaction had already failed; aborting and redoing the interval");
                self.abort_and_rebuild()?;
            }
            Failure::Commit(e @ KafkaError::Flush(_)) => {
                tracing::warn!(error = %e, "the interval's records were not acknowledged in time; aborting and redoing the interval");
                self.abort_and_rebuild()?;
            }
            Failure::Commit(e) => {
                return Err(StreamsError::kafka("committing the transaction")(e));
            }
            Failure::Interrupted => {}
        }
        Ok(Outcome::NotCommitted)
    }

    /// At-least-once (2-4): flushes the caches and the changelog buffer, waits until every
    /// record is acknowledged, then commits the offsets with the member's epoch. A record not
    /// delivered, or an offset commit refused for a stale epoch, redoes the interval; a fenced
    /// member drops its tasks and rejoins.
    fn commit_at_least_once(
        &mut self,
        offsets: &TopicPartitionList,
    ) -> Result<Outcome, StreamsError> {
        let started = Instant::now();
        self.flush_caches()?;
        self.interval
            .changelog
            .flush(&self.clients.producer)
            .map_err(StreamsError::kafka("producing changelog records"))?;
        let flushed = Instant::now();
        // A broker fault (a partition leader down until the controller moves it) holds the
        // records back: wait it out as the exactly-once commit does. Each record is delivered
        // or fails within `message.timeout.ms`; a failed one redoes the interval.
        if !self.drain_waiting_out_faults() {
            // Stopping while the cluster is unreachable: nothing is committed.
            self.interval.interrupted = true;
            return Ok(Outcome::NotCommitted);
        }
        if let Some(failure) = self
            .clients
            .deliveries
            .take_checked(self.clients.producer.client())
        {
            if failure.permanent {
                return Err(failure.into());
            }
            // Without a transaction, a record that was not delivered means the offsets must not
            // move: the interval is redone.
            tracing::warn!(error = %failure.error, topic = failure.topic, "a record was not delivered; redoing the interval");
            self.abort_and_rebuild()?;
            return Ok(Outcome::NotCommitted);
        }
        let drained = Instant::now();
        let Some(committed) = self.commit_offsets_waiting_out_faults(offsets) else {
            self.interval.interrupted = true;
            return Ok(Outcome::NotCommitted);
        };
        tracing::debug!(
            target: "dekaf_streams::commit",
            flush_ms = ms(started, flushed),
            drain_ms = ms(flushed, drained),
            offsets_ms = ms(drained, Instant::now()),
            since_last_ms = ms(self.interval.last_commit, started),
            "at-least-once commit phases"
        );
        let Err(e) = committed else {
            return Ok(Outcome::Committed);
        };
        match e.refusal() {
            Some(MemberRefusal::Fenced) => {
                tracing::warn!(error = %e, "the coordinator fenced this member; its offsets were not committed");
                self.lose_all_and_rejoin()?;
            }
            // Still stale after a second try: redo the interval from the committed offsets.
            Some(MemberRefusal::Stale) => {
                tracing::warn!(error = %e, "offset commit refused twice for a stale member epoch; redoing the interval");
                self.abort_and_rebuild()?;
            }
            None => return Err(e.into()),
        }
        Ok(Outcome::NotCommitted)
    }

    /// After a commit (5): what was processed becomes committed (and readable by queries), the
    /// stores are flushed, the metrics count it, and committed repartition records are purged
    /// when due.
    fn after_commit(&mut self, started: Instant) -> Result<(), StreamsError> {
        // The changelog buffer learns of every successful commit, queried or not: its flushed
        // records become clean, and a buffer grown past its bound empties itself, only here.
        // Told only when interactive queries were on, it kept every key the thread ever wrote
        // with its last value: 1.4 GiB of anonymous memory at 6.3 million keys of the
        // `largestate-uniform-10m` benchmark, growing with the state. The records go to the
        // published state when something queries it.
        let mut publisher = self.queried().then_some(&mut self.publisher);
        self.interval
            .changelog
            .committed(|topic, partition, key, value, timestamp| {
                if let Some(publisher) = publisher.as_mut() {
                    publisher.committed(topic, partition, key, value, timestamp);
                }
            });
        self.publish_committed()?;
        let mut processed = 0;
        let mut counts = std::mem::take(&mut self.counts_scratch);
        for active in self.tasks.iter_mut() {
            active.committed.clone_from(&active.positions);
            active.committed_stream_time = active.task.stream_time();
            let task_processed = std::mem::take(&mut active.processed);
            processed += task_processed;
            let task = &active.task;
            counts.push((
                active.id,
                TaskCounts {
                    processed: task_processed,
                    dropped: [
                        task.late_records_dropped(),
                        task.null_records_dropped(),
                        task.records_skipped(),
                        task.invalid_timestamps_dropped(),
                    ],
                },
            ));
        }
        metrics::counter!("dekaf.streams.records.processed").increment(processed);
        self.flush_stores()?;
        metrics::counter!("dekaf.streams.commits").increment(1);
        self.interval.failed_commits = 0;
        let seconds = started.elapsed().as_secs_f64();
        metrics::histogram!("dekaf.streams.commit.duration").record(seconds);
        self.metrics.committed(seconds, counts.drain(..));
        self.counts_scratch = counts;
        self.interval.last_commit = Instant::now();
        if self.purge_due() {
            self.purge_repartitions();
        }
        Ok(())
    }

    /// At-least-once: waits until every record sent is acknowledged or failed, however long a
    /// broker fault lasts (librdkafka bounds each record by `message.timeout.ms`), with a
    /// warning every [`COMMIT_TIMEOUT`]. `false` when the application stops meanwhile and the
    /// records are still not acknowledged after [`producer::STOPPING_GRACE`].
    fn drain_waiting_out_faults(&self) -> bool {
        let started = Instant::now();
        loop {
            match producer::drain(&self.clients.producer, COMMIT_TIMEOUT, &self.ctx.stop) {
                Ok(()) => return true,
                Err(_) if self.ctx.stop.load(std::sync::atomic::Ordering::Relaxed) => {
                    tracing::warn!(
                        "the interval's records were not acknowledged before the shutdown; their offsets are not committed"
                    );
                    return false;
                }
                Err(e) => {
                    tracing::warn!(error = %e, waited = ?started.elapsed(), in_flight = self.clients.producer.in_flight_count(), "the interval's records are not acknowledged yet (a broker down?); waiting")
                }
            }
        }
    }

    /// At-least-once: commits `offsets` for the member, committing again with the current
    /// epoch when the epoch moved on meanwhile, and again after a pause while the coordinator
    /// cannot be reached or is moving (a broker restarting), for up to [`OFFSET_COMMIT_PATIENCE`].
    /// A refusal of the member (fenced, or stale twice) or a permanent error is returned at
    /// once. `None` when the application stops while the coordinator is unreachable.
    fn commit_offsets_waiting_out_faults(
        &mut self,
        offsets: &TopicPartitionList,
    ) -> Option<Result<(), OffsetCommitError>> {
        let handle = self.ctx.handle.clone();
        let started = Instant::now();
        let mut stale_retried = false;
        loop {
            let committed = handle.block_on(self.member.commit_offsets(offsets));
            match &committed {
                Err(e) if e.refusal() == Some(MemberRefusal::Stale) && !stale_retried => {
                    // The epoch moved on (a new assignment) while the commit was under way;
                    // the tasks are still ours: commit again with the current epoch.
                    tracing::debug!(error = %e, "offset commit with a stale member epoch; committing again");
                    stale_retried = true;
                }
                Err(e) if e.is_transient() && started.elapsed() < OFFSET_COMMIT_PATIENCE => {
                    if self.ctx.stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return None;
                    }
                    tracing::warn!(error = %e, waited = ?started.elapsed(), "committing offsets failed (the group coordinator unreachable or moving); trying again");
                    std::thread::sleep(Duration::from_millis(500));
                }
                _ => return Some(committed),
            }
        }
    }

    /// Flushes every task's record cache into the producer: each aggregation forwards the
    /// latest result of every key it changed since the last flush.
    fn flush_caches(&mut self) -> Result<(), StreamsError> {
        let mut sink = ProducerSink::new(&self.clients.producer, &mut self.interval.changelog);
        for active in self.tasks.iter_mut() {
            if let Err(source) = active.task.flush_cache(&mut sink) {
                // A failed sink may mean the producer hit an unretriable error: report that.
                if matches!(source, TaskError::Sink(_))
                    && let Some(failure) = self
                        .clients
                        .deliveries
                        .take_checked(self.clients.producer.client())
                    && failure.permanent
                {
                    return Err(failure.into());
                }
                return Err(StreamsError::task(active.id, source));
            }
        }
        Ok(())
    }

    /// Whether repartition topics are due for a purge.
    fn purge_due(&self) -> bool {
        self.interval.last_purge.elapsed() >= PURGE_INTERVAL
    }

    /// Deletes repartition records below the committed offsets, in the background.
    fn purge_repartitions(&mut self) {
        self.interval.last_purge = Instant::now();
        let mut below = TopicPartitionList::new();
        for active in self.tasks.iter() {
            let user_sources = active.task.subtopology().source_topics.len();
            for (i, topic) in active
                .task
                .source_topics()
                .iter()
                .enumerate()
                .skip(user_sources)
            {
                if let Some(offset) = active.committed[i] {
                    let _ = below.add_partition_offset(
                        topic,
                        active.id.partition,
                        Offset::Offset(offset),
                    );
                }
            }
        }
        if below.count() == 0 {
            return;
        }
        let admin = self.clients.admin.clone();
        self.ctx.handle.spawn(async move {
            if let Err(e) = crate::kafka::admin::purge(&admin, &below, Duration::from_secs(30)).await {
                tracing::debug!(error = %e, "purging repartition records failed; the next purge retries");
            }
        });
    }
}

/// Milliseconds from `from` to `to`, for the commit phases' debug lines.
fn ms(from: Instant, to: Instant) -> f64 {
    to.duration_since(from).as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_time_round_trips_through_offset_metadata() {
        for t in [i64::MIN, -1, 0, 1_700_000_000_000] {
            assert_eq!(parse_stream_time(&stream_time_metadata(t)), Some(t));
        }
        assert_eq!(parse_stream_time(""), None);
        assert_eq!(parse_stream_time("st=x"), None);
    }
}
