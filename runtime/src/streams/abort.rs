//! Undoing a commit interval: aborting its transaction, dropping the tasks' uncommitted state
//! and restoring it, replacing a producer that failed for good.
//!
//! An aborted interval leaves nothing behind: its output was never committed (exactly-once) or
//! its offsets never moved (at-least-once), so the tasks drop the interval's writes (or, when
//! some reached disk, are rebuilt from the changelogs) and read their input again from the
//! committed offsets. Commits that keep failing stop the application
//! after [`MAX_FAILED_COMMITS`] in a row.

use std::time::Instant;

use rdkafka::producer::Producer;

use super::assignment::take_committed;
use super::clients::new_producer;
use super::error::StreamsError;
use super::processing::StreamThread;
use super::refusal::MemberRefusal;
use crate::kafka::producer;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// Commits in a row that may fail and be redone before the application gives up.
const MAX_FAILED_COMMITS: u32 = 10;

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Aborts the open transaction, drops every task's state, restores it and rewinds the
    /// input to the committed offsets.
    pub(super) fn abort_and_rebuild(&mut self) -> Result<(), StreamsError> {
        self.member.doing(crate::group::Phase::Rewinding);
        metrics::counter!("dekaf.streams.commits.aborted").increment(1);
        self.interval.failed_commits += 1;
        if self.interval.failed_commits > MAX_FAILED_COMMITS {
            return Err(StreamsError::CommitsKeepFailing(
                self.interval.failed_commits,
            ));
        }
        self.abort_open_transaction()?;
        let _ = self.clients.deliveries.take();
        self.interval.changelog.discard();
        // A commit asked for in the aborted interval is asked for again when it is redone.
        self.interval.commit_requested = false;
        if self.interval.interrupted {
            // Stopping while the cluster is unreachable: no restore, the thread closes.
            return Ok(());
        }
        self.rebuild()
    }

    /// Aborts the open transaction, if any, by fencing it: says whether there was one.
    ///
    /// **An aborted interval ends its producer epoch.** The transaction is not aborted with
    /// `abort_transaction` and the producer kept: a new producer with the same transactional id
    /// takes its place, and its `init_transactions` makes the transaction coordinator abort the
    /// open transaction and bump the epoch. librdkafka speaks transaction version 1 (EndTxn v1),
    /// where an abort keeps the epoch, so a request of the aborted interval still on its way
    /// (a `TxnOffsetCommit` held by a stalled or restarting group coordinator, retried by
    /// librdkafka after the application's call had failed) would otherwise be accepted into the
    /// *next* transaction of the same epoch: its offsets, past the aborted records, then commit
    /// with the redone interval, and the aborted records are never processed again. After the
    /// bump the broker refuses every request of the old epoch. Kafka's transaction version 2
    /// (KIP-890), which Kafka Streams' Java producer uses on a 4.x cluster, bumps the epoch at
    /// every transaction end for the same reason.
    ///
    /// While the cluster is unreachable the new producer's `init_transactions` waits for it;
    /// a shutdown meanwhile ends the wait within [`producer::STOPPING_GRACE`] and marks the
    /// thread interrupted.
    pub(super) fn abort_open_transaction(&mut self) -> Result<bool, StreamsError> {
        if !self.interval.txn_open {
            return Ok(false);
        }
        tracing::info!(
            "aborting the interval's transaction: a new producer fences the old epoch, so nothing \
             of the interval can commit later"
        );
        self.replace_producer()?;
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
    ///
    /// **The rewind invariant: after any aborted or failed commit, positions and stores go back
    /// to what the broker committed.** The offsets are read from the group coordinator here
    /// (after the abort fenced the old producer epoch, so nothing of the interval can still
    /// commit), not taken from what this thread remembers of its last commit; the stores are
    /// rebuilt from the changelogs as `read_committed` readers see them up to their log end;
    /// and the consumer is moved to those offsets. Every path that drops an interval's work
    /// (a failed commit, a transaction that failed under the sink, a refused epoch, tasks lost
    /// while a transaction was open) comes through here. A difference between the broker's
    /// offsets and the remembered ones is logged as a warning: it means a commit's outcome was
    /// not what the thread was told.
    pub(super) fn rebuild(&mut self) -> Result<(), StreamsError> {
        let ids = self.tasks.ids();
        let Some(committed) = self.fetch_committed(&ids)? else {
            // Shutting down while the coordinator is unreachable: the thread closes.
            return Ok(());
        };
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
            let remembered = active.committed.clone();
            let remembered_stream_time = active.committed_stream_time;
            active.committed_stream_time = i64::MIN;
            take_committed(active, &committed);
            if active.committed_stream_time == i64::MIN {
                active.committed_stream_time = remembered_stream_time;
            }
            if active.committed != remembered {
                tracing::warn!(task = %active.id, broker = ?active.committed, remembered = ?remembered, "the broker's committed offsets differ from the last commit this thread made; rewinding to the broker's");
            }
            active.processed = 0;
            self.restore_task(active, true, None)?;
            active.task.set_stream_time(active.committed_stream_time);
        }
        for active in tasks {
            self.tasks.insert(active);
        }
        if self.interval.interrupted {
            return Ok(());
        }
        self.rewind_consumer()?;
        self.interval.last_commit = Instant::now();
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
            new_producer::<T>(&self.ctx, self.clients.deliveries.delivered().clone())?;
        self.clients.producer = producer;
        self.clients.deliveries = deliveries;
        self.interval.txn_open = false;
        if !ready {
            self.interval.interrupted = true;
        }
        Ok(())
    }

    /// Drops the open transaction and the waiting changelog records of a thread that failed.
    pub(super) fn abort_on_failure(&mut self) {
        if self.interval.txn_open {
            // Bounded: a failed or interrupted thread must not wait for an unreachable cluster.
            let _ = self
                .clients
                .producer
                .abort_transaction(producer::STOPPING_GRACE);
            self.interval.txn_open = false;
        }
        self.interval.changelog.discard();
    }
}
