//! Undoing a commit interval: aborting its transaction, dropping the tasks' uncommitted state
//! and restoring it, replacing a producer that failed for good.
//!
//! An aborted interval leaves nothing behind: its output was never committed (exactly-once) or
//! its offsets never moved (at-least-once), so the tasks drop the interval's writes (or, when
//! some reached disk, are rebuilt from the changelogs) and read their input again from the
//! committed offsets. Commits that keep failing stop the application
//! after [`MAX_FAILED_COMMITS`] in a row.

use std::time::Instant;

use rdkafka::error::KafkaError;
use rdkafka::producer::Producer;

use super::clients::new_producer;
use super::commit::COMMIT_TIMEOUT;
use super::error::StreamsError;
use super::processing::StreamThread;
use super::refusal::MemberRefusal;
use crate::kafka::producer::{self, Resumed};
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// Commits in a row that may fail and be redone before the application gives up.
const MAX_FAILED_COMMITS: u32 = 10;

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Aborts the open transaction, drops every task's state, restores it and rewinds the
    /// input to the committed offsets.
    pub(super) fn abort_and_rebuild(&mut self) -> Result<(), StreamsError> {
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
    pub(super) fn abort_open_transaction(&mut self) -> Result<bool, StreamsError> {
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
    pub(super) fn member_refused(
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
    pub(super) fn lose_all_and_rejoin(&mut self) -> Result<(), StreamsError> {
        self.lose(None)?;
        self.member.rejoin();
        Ok(())
    }

    /// Drops every task's uncommitted work, restores what is missing and rewinds the input to
    /// the committed offsets. A task whose stores took none of the interval's writes (on disk:
    /// the interval did not spill) drops just its pending writes and record cache and replays
    /// the changelog after its stores' offsets (usually nothing); the others are emptied and
    /// restored from the changelogs' start.
    pub(super) fn rebuild(&mut self) -> Result<(), StreamsError> {
        let mut tasks = self.tasks.drain();
        for active in &mut tasks {
            let kept = active
                .task
                .discard_uncommitted()
                .map_err(|source| StreamsError::task(active.id, source))?;
            if !kept {
                active
                    .task
                    .clear()
                    .map_err(|source| StreamsError::task(active.id, source))?;
            }
            active.positions.clone_from(&active.committed);
            active.processed = 0;
            self.restore_task(active, true, None)?;
            active.task.set_stream_time(active.committed_stream_time);
        }
        for active in tasks {
            self.tasks.insert(active);
        }
        self.rewind_consumer()?;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// Replaces a producer that failed for good (fenced: the broker aborted its transaction
    /// after the transaction timeout and bumped its epoch) by a new one with the same
    /// transactional id. The caller rebuilds the tasks: their uncommitted work is gone.
    ///
    /// While the cluster is unreachable the new producer's `init_transactions` is retried until
    /// it answers; a shutdown meanwhile marks the thread interrupted.
    pub(super) fn replace_producer(&mut self) -> Result<(), StreamsError> {
        let (producer, deliveries, ready) =
            new_producer::<T>(&self.ctx, self.deliveries.delivered().clone())?;
        self.producer = producer;
        self.deliveries = deliveries;
        self.txn_open = false;
        if !ready {
            self.interrupted = true;
        }
        Ok(())
    }

    /// Drops the open transaction and the waiting changelog records of a thread that failed.
    pub(super) fn abort_on_failure(&mut self) {
        if self.txn_open {
            // Bounded: a failed or interrupted thread must not wait for an unreachable cluster.
            let _ = self.producer.abort_transaction(producer::STOPPING_GRACE);
            self.txn_open = false;
        }
        self.changelog.discard();
    }
}
