//! Committing a thread's work, and undoing it.
//!
//! Exactly-once: the records produced since the last commit (output, repartition, changelog)
//! and the consumed offsets, sent with the member's id and current epoch, commit in one
//! transaction. The coordinator refuses offsets from a member whose epoch it has moved past, so
//! a fenced member cannot commit. An aborted commit drops the tasks' state, restores it from the
//! changelogs and re-reads input from the committed offsets.
//!
//! At-least-once: the producer is flushed, then the offsets are committed with the member's
//! epoch.
//!
//! Every commit starts by flushing the tasks' record caches (inside the open transaction under
//! exactly-once), so the latest result of every key an aggregation changed in the interval is
//! part of what commits. An aborted interval drops the caches with the rest of the tasks'
//! uncommitted state (`Task::clear` in the rebuild).
//!
//! Each consumed offset carries the task's stream time in its metadata, so windows close at the
//! same point after a restart or a move.

use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::producer::Producer;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

use super::error::StreamsError;
use super::sink::ProducerSink;
use super::tasks::TaskId;
use super::thread::StreamThread;
use crate::kafka::producer::{self, Resumed};
use crate::kafka::txn_offsets::{TxnOffsetsError, send_offsets_to_transaction};
use crate::store::BackendFactory;
use crate::task::{Task, TaskError, Topology};

/// How long a commit may take before it counts as failed.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// Commits in a row that may fail and be redone before the application gives up.
const MAX_FAILED_COMMITS: u32 = 10;

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

/// How the group coordinator refused the offsets of a commit because of the member's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberRefusal {
    /// The coordinator knows the member but holds another epoch: the epoch moved on between
    /// reading it and the commit (a heartbeat brought a new assignment). Kafka 4.4's streams
    /// group answers `STALE_MEMBER_EPOCH` to any epoch mismatch of a known member
    /// (`StreamsGroup.validateOffsetCommit`), and a TxnOffsetCommit gets it as
    /// `ILLEGAL_GENERATION` (checked on the broker: `runtime/tests/streams_group.rs`). The member
    /// still owns its tasks: redo the interval and commit with the current epoch.
    Stale,
    /// `UNKNOWN_MEMBER_ID`, `FENCED_MEMBER_EPOCH`: the coordinator no longer counts this member
    /// as the owner of its tasks. Drop them all and rejoin, as Kafka Streams does after a
    /// `TaskMigratedException` (`handleLostAll`, then rejoin).
    Fenced,
}

/// Whether `code` is the coordinator refusing the member's epoch, and how.
pub(crate) fn member_refusal(code: RDKafkaErrorCode) -> Option<MemberRefusal> {
    match code {
        RDKafkaErrorCode::StaleMemberEpoch | RDKafkaErrorCode::IllegalGeneration => {
            Some(MemberRefusal::Stale)
        }
        RDKafkaErrorCode::FencedMemberEpoch | RDKafkaErrorCode::UnknownMemberId => {
            Some(MemberRefusal::Fenced)
        }
        _ => None,
    }
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
        if !self.tasks.iter().any(|t| t.consumed.contains(&true)) {
            return;
        }
        let Ok(positions) = self.consumer.position() else {
            return;
        };
        for active in self.tasks.iter_mut() {
            for (i, topic) in active.task.source_topics().iter().enumerate() {
                if !active.consumed[i] {
                    continue;
                }
                if let (Some(next), Some(elem)) = (
                    active.positions[i],
                    positions.find_partition(topic, active.id.partition),
                ) && let Offset::Offset(position) = elem.offset()
                    && position > next
                {
                    active.positions[i] = Some(position);
                }
            }
        }
    }

    /// Commits everything processed since the last commit.
    pub(crate) fn commit(&mut self) -> Result<(), StreamsError> {
        let started = Instant::now();
        self.advance_past_markers();
        let offsets = self.progress();
        if self.eos() {
            if !self.txn_open && offsets.count() == 0 {
                self.last_commit = Instant::now();
                return Ok(());
            }
            if !self.txn_open {
                // Nothing processed, but the consumer stepped over markers: commit the offsets
                // alone, so the group's lag reaches 0.
                self.producer
                    .begin_transaction()
                    .map_err(StreamsError::kafka("beginning a transaction"))?;
                self.txn_open = true;
            }
            self.flush_caches()?;
            let identity = self.member.identity();
            let result = self
                .changelog
                .flush(&self.producer)
                .and_then(|_| producer::drain(&self.producer, COMMIT_TIMEOUT, &self.ctx.stop))
                .map_err(Failure::Commit)
                .and_then(|()| {
                    send_offsets_to_transaction(&self.producer, &offsets, &identity, COMMIT_TIMEOUT)
                        .map_err(Failure::Offsets)
                })
                .and_then(|()| {
                    // A commit that times out (the transaction coordinator unreachable) is
                    // resumed, never aborted: it may have reached the coordinator, and an
                    // abort or a new producer would then redo work that committed.
                    let committed = producer::resume_until_done(
                        "committing the transaction",
                        &self.ctx.stop,
                        None,
                        |timeout| self.producer.commit_transaction(timeout),
                    );
                    match committed {
                        Ok(Resumed::Done) => Ok(()),
                        Ok(Resumed::Stopped) => Err(Failure::Interrupted),
                        Err(e) => Err(Failure::Commit(e)),
                    }
                });
            if let Err(failure) = result {
                if matches!(failure, Failure::Interrupted) {
                    // Shutting down while the cluster is unreachable: the thread closes without
                    // committing; the transaction's fate is the broker's.
                    self.txn_open = false;
                    self.interrupted = true;
                    return Ok(());
                }
                // A record the broker refused for good fails the transaction: that stops the
                // application rather than being redone forever. Its delivery report may still
                // be on its way; waiting for the outstanding records brings it.
                let _ = producer::drain(&self.producer, Duration::from_secs(5), &self.ctx.stop);
                if let Some(delivery) = self.deliveries.take()
                    && delivery.permanent
                {
                    let _ = self.producer.abort_transaction(COMMIT_TIMEOUT);
                    self.txn_open = false;
                    return Err(delivery.into());
                }
                return match failure {
                    Failure::Offsets(e) if member_refusal(e.code).is_some() => {
                        if e.fatal {
                            tracing::warn!(error = %e, "the producer failed for good with the refused offsets; replacing it");
                            self.replace_producer()?;
                        }
                        self.member_refused(member_refusal(e.code), e)
                    }
                    Failure::Offsets(e) if e.fatal => {
                        tracing::warn!(error = %e, "the producer failed for good while adding the offsets; replacing it and redoing the interval");
                        self.replace_producer()?;
                        self.abort_and_rebuild()
                    }
                    Failure::Offsets(e) => {
                        tracing::warn!(error = %e, "offset commit failed; aborting and redoing the interval");
                        self.abort_and_rebuild()
                    }
                    Failure::Commit(KafkaError::Transaction(rd)) if rd.txn_requires_abort() => {
                        tracing::warn!(error = %rd, "commit failed; aborting and redoing the interval");
                        self.abort_and_rebuild()
                    }
                    Failure::Commit(KafkaError::Transaction(rd)) if rd.is_fatal() => {
                        tracing::warn!(error = %rd, "the producer was fenced while committing; replacing it and redoing the interval");
                        self.replace_producer()?;
                        self.abort_and_rebuild()
                    }
                    Failure::Commit(e @ KafkaError::Flush(_)) => {
                        tracing::warn!(error = %e, "the interval's records were not acknowledged in time; aborting and redoing the interval");
                        self.abort_and_rebuild()
                    }
                    Failure::Commit(e) => Err(StreamsError::kafka("committing the transaction")(e)),
                    Failure::Interrupted => Ok(()),
                };
            }
            self.txn_open = false;
        } else {
            self.flush_caches()?;
            self.changelog
                .flush(&self.producer)
                .map_err(StreamsError::kafka("producing changelog records"))?;
            producer::drain(&self.producer, COMMIT_TIMEOUT, &self.ctx.stop)
                .map_err(StreamsError::kafka("flushing the producer"))?;
            if let Some(failure) = self.deliveries.take() {
                if failure.permanent {
                    return Err(failure.into());
                }
                // Without a transaction, a record that was not delivered means the offsets
                // must not move: the interval is redone.
                tracing::warn!(error = %failure.error, topic = failure.topic, "a record was not delivered; redoing the interval");
                return self.abort_and_rebuild();
            }
            let handle = self.ctx.handle.clone();
            let mut committed = handle.block_on(self.member.commit_offsets(&offsets));
            if let Err(e) = &committed
                && e.refusal() == Some(MemberRefusal::Stale)
            {
                // The epoch moved on (a new assignment) while the commit was under way; the
                // tasks are still ours: commit again with the current epoch.
                tracing::debug!(error = %e, "offset commit with a stale member epoch; committing again");
                committed = handle.block_on(self.member.commit_offsets(&offsets));
            }
            if let Err(e) = committed {
                return match e.refusal() {
                    Some(MemberRefusal::Fenced) => {
                        tracing::warn!(error = %e, "the coordinator fenced this member; its offsets were not committed");
                        self.lose_all_and_rejoin()
                    }
                    // Still stale after a second try: redo the interval from the committed offsets.
                    Some(MemberRefusal::Stale) => {
                        tracing::warn!(error = %e, "offset commit refused twice for a stale member epoch; redoing the interval");
                        self.abort_and_rebuild()
                    }
                    None => Err(e.into()),
                };
            }
        }
        let mut processed = 0;
        for active in self.tasks.iter_mut() {
            active.committed.clone_from(&active.positions);
            active.committed_stream_time = active.task.stream_time();
            processed += std::mem::take(&mut active.processed);
        }
        metrics::counter!("dekaf.streams.records.processed").increment(processed);
        self.flush_stores()?;
        metrics::counter!("dekaf.streams.commits").increment(1);
        self.failed_commits = 0;
        metrics::histogram!("dekaf.streams.commit.duration")
            .record(started.elapsed().as_secs_f64());
        self.last_commit = Instant::now();
        if self.purge_due() {
            self.purge_repartitions();
        }
        Ok(())
    }

    /// Flushes every task's record cache into the producer: each aggregation forwards the
    /// latest result of every key it changed since the last flush.
    fn flush_caches(&mut self) -> Result<(), StreamsError> {
        let mut sink = ProducerSink::new(&self.producer, &mut self.changelog);
        for active in self.tasks.iter_mut() {
            if let Err(source) = active.task.flush_cache(&mut sink) {
                // A failed sink may mean the producer hit an unretriable error: report that.
                if matches!(source, TaskError::Sink(_))
                    && let Some(failure) = self.deliveries.take()
                    && failure.permanent
                {
                    return Err(failure.into());
                }
                return Err(StreamsError::task(active.id, source));
            }
        }
        Ok(())
    }

    /// Aborts the open transaction, drops every task's state, restores it and rewinds the
    /// input to the committed offsets.
    pub(crate) fn abort_and_rebuild(&mut self) -> Result<(), StreamsError> {
        metrics::counter!("dekaf.streams.commits.aborted").increment(1);
        self.failed_commits += 1;
        if self.failed_commits > MAX_FAILED_COMMITS {
            return Err(StreamsError::CommitsKeepFailing(self.failed_commits));
        }
        self.abort_open_transaction()?;
        let _ = self.deliveries.take();
        self.changelog.discard();
        if self.interrupted {
            // Stopping while the cluster is unreachable: no restore, the thread closes.
            return Ok(());
        }
        self.rebuild()
    }

    /// Aborts the open transaction, if any; says whether there was one. A producer that cannot
    /// abort (fenced: the broker aborted its transaction after the timeout, or another producer
    /// took its transactional id; or the abort timed out) is replaced: the new producer's
    /// `init_transactions` aborts whatever the old one left open.
    ///
    /// An abort that times out (every broker down) is resumed for up to [`COMMIT_TIMEOUT`], as
    /// librdkafka allows; then the producer is replaced, and the new one's
    /// `init_transactions` waits for the cluster however long it takes. A shutdown meanwhile
    /// ends the wait within [`producer::STOPPING_GRACE`] and marks the thread interrupted.
    fn abort_open_transaction(&mut self) -> Result<bool, StreamsError> {
        if !self.txn_open {
            return Ok(false);
        }
        let aborted = producer::resume_until_done(
            "aborting the transaction",
            &self.ctx.stop,
            Some(COMMIT_TIMEOUT),
            |timeout| self.producer.abort_transaction(timeout),
        );
        match aborted {
            Ok(Resumed::Done) => self.txn_open = false,
            Ok(Resumed::Stopped) => {
                self.txn_open = false;
                self.interrupted = true;
            }
            Err(KafkaError::Transaction(rd)) if rd.is_fatal() => {
                tracing::warn!(error = %rd, "the producer was fenced (the broker aborted its transaction, or another producer took its transactional id); replacing it");
                self.replace_producer()?;
            }
            Err(e) => {
                tracing::warn!(error = %e, "aborting the transaction failed; replacing the producer, which aborts it");
                self.replace_producer()?;
            }
        }
        Ok(true)
    }

    /// The coordinator refused the interval's offsets because of the member's epoch (the
    /// transaction is aborted here): `Stale` redoes the interval with the tasks kept, `Fenced`
    /// drops every task and rejoins.
    fn member_refused(
        &mut self,
        refusal: Option<MemberRefusal>,
        error: impl std::fmt::Display,
    ) -> Result<(), StreamsError> {
        match refusal {
            Some(MemberRefusal::Stale) => {
                tracing::info!(%error, "the member epoch moved on during the commit; redoing the interval with the current epoch");
                self.abort_and_rebuild()
            }
            _ => {
                tracing::warn!(%error, "the coordinator fenced this member at commit; dropping its tasks and rejoining");
                self.lose_all_and_rejoin()
            }
        }
    }

    /// Drops every task without committing and has the member rejoin (it was fenced at commit
    /// time, so the heartbeat may not learn it): the coordinator then assigns tasks afresh.
    pub(crate) fn lose_all_and_rejoin(&mut self) -> Result<(), StreamsError> {
        self.lose(None)?;
        self.member.rejoin();
        Ok(())
    }

    /// Drops every task's state, restores it and rewinds the input to the committed offsets.
    fn rebuild(&mut self) -> Result<(), StreamsError> {
        let mut tasks = self.tasks.drain();
        for active in &mut tasks {
            active
                .task
                .clear()
                .map_err(|source| StreamsError::task(active.id, source))?;
            active.positions.clone_from(&active.committed);
            active.processed = 0;
            self.restore_task(active)?;
            active.task.set_stream_time(active.committed_stream_time);
        }
        for active in tasks {
            self.tasks.insert(active);
        }
        self.assign_consumer()?;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// Drops tasks without committing: those in `lost`, or all of them (the member was fenced
    /// and another member may own them already), then tells the member they are released.
    pub(crate) fn lose(&mut self, lost: Option<&[TaskId]>) -> Result<(), StreamsError> {
        let aborted = self.abort_open_transaction()?;
        if aborted {
            metrics::counter!("dekaf.streams.commits.aborted").increment(1);
        }
        let _ = self.deliveries.take();
        if aborted {
            self.changelog.discard();
        }
        let ids = lost.map_or_else(|| self.tasks.ids(), <[TaskId]>::to_vec);
        // Tasks kept are rebuilt from committed state: the aborted transaction held their work too.
        let mut dropped = 0;
        for id in &ids {
            if self.tasks.remove(*id).is_some() {
                dropped += 1;
            }
        }
        metrics::gauge!("dekaf.streams.tasks.active").decrement(f64::from(dropped));
        if !ids.is_empty() {
            tracing::info!(tasks = ?ids.iter().map(ToString::to_string).collect::<Vec<_>>(), "tasks lost; uncommitted work dropped");
        }
        self.member.release(&ids);
        if aborted && !self.tasks.is_empty() && !self.interrupted {
            self.rebuild()
        } else {
            self.assign_consumer()
        }
    }

    /// Ends the thread: commits (after a clean stop) or aborts (after a failure), closes the
    /// tasks and leaves the group.
    pub(crate) fn close(&mut self, clean: bool) -> Result<(), StreamsError> {
        // A thread interrupted while the cluster was unreachable does not know what committed.
        let clean = clean && !self.interrupted;
        let committed = if clean {
            self.commit()
        } else {
            if self.txn_open {
                // Bounded: a failed thread must not wait for an unreachable cluster.
                let _ = self.producer.abort_transaction(producer::STOPPING_GRACE);
                self.txn_open = false;
            }
            self.changelog.discard();
            Ok(())
        };
        let tasks = self.tasks.drain();
        let n = tasks.len();
        for active in tasks {
            // Only a clean, committed close may name the stores complete in a checkpoint.
            if clean && committed.is_ok() && !self.interrupted {
                self.close_committed(active);
            }
        }
        metrics::gauge!("dekaf.streams.tasks.active").decrement(n as f64);
        let handle = self.ctx.handle.clone();
        handle.block_on(self.member.leave());
        committed
    }

    /// Deletes repartition records below the committed offsets, in the background.
    fn purge_repartitions(&mut self) {
        self.last_purge = Instant::now();
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
        let admin = self.admin.clone();
        self.ctx.handle.spawn(async move {
            if let Err(e) = crate::kafka::admin::purge(&admin, &below, Duration::from_secs(30)).await {
                tracing::debug!(error = %e, "purging repartition records failed; the next purge retries");
            }
        });
    }
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

    #[test]
    fn a_stale_epoch_is_redone_and_a_fenced_member_rejoins() {
        for code in [
            RDKafkaErrorCode::StaleMemberEpoch,
            RDKafkaErrorCode::IllegalGeneration,
        ] {
            assert_eq!(member_refusal(code), Some(MemberRefusal::Stale), "{code:?}");
        }
        for code in [
            RDKafkaErrorCode::FencedMemberEpoch,
            RDKafkaErrorCode::UnknownMemberId,
        ] {
            assert_eq!(
                member_refusal(code),
                Some(MemberRefusal::Fenced),
                "{code:?}"
            );
        }
        for code in [
            RDKafkaErrorCode::NotCoordinator,
            RDKafkaErrorCode::GroupAuthorizationFailed,
            RDKafkaErrorCode::ConcurrentTransactions,
        ] {
            assert_eq!(member_refusal(code), None, "{code:?}");
        }
    }
}
