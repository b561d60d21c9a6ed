//! A thread's side of on-disk state: flushing stores with their changelog offsets after
//! commits, deciding where a task's restore starts, and marking a clean close.
//!
//! Every commit ends with each store writing its pending changes together with the changelog
//! offset they bring it to ([`StoreBackend::flush_at`]), after Kafka committed them: an LMDB
//! store thus always holds committed state and says which. Kafka Streams 4.4 writes its
//! `.checkpoint` file during processing only under at-least-once, and only once the changelogs
//! moved more than 10 000 records past the last one (`LegacyCheckpointingStateStore.commit`,
//! `StateManagerUtil.checkpointNeeded`, `OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT`: a checkpoint
//! costs a file write and a RocksDB flush); under exactly-once only when a store closes, so a
//! crash wipes the state. Here the offset rides in the flush every commit makes anyway, so it
//! is current after every commit, under either guarantee.
//!
//! With stores in memory all of this reduces to nothing: the memory backend's flush and sync
//! do nothing, records no offset, and a task has no directory.

use std::time::Duration;

use rdkafka::Offset;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::tasks::ActiveTask;
use crate::kafka::restore::{RestorePartition, bounds_until_stopped};
use crate::kafka::transient::RetryError;
use crate::state_dir::TaskDir;
use crate::store::{BackendFactory, StoreBackend};
use crate::task::{Task, Topology};

/// How long a new task waits for its directory while another thread of this instance still
/// closes it.
pub(super) const TASK_LOCK_WAIT: Duration = Duration::from_secs(60);
/// How long one attempt of a watermark lookup may take; transient failures are retried (see
/// [`crate::kafka::transient::retry`]) until the lookup succeeds or the application stops.
const WATERMARKS_TIMEOUT: Duration = Duration::from_secs(5);

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Locks the directory of the task about to be created, when stores live on disk.
    pub(super) fn lock_task_dir(
        &self,
        subtopology: &str,
        partition: i32,
    ) -> Result<Option<TaskDir>, StreamsError> {
        match &self.ctx.state {
            Some(state) => Ok(Some(state.lock_task(
                subtopology,
                partition,
                TASK_LOCK_WAIT,
            )?)),
            None => Ok(None),
        }
    }

    /// Writes every task's stores through to their backend after a commit, each with the
    /// changelog offset it now reflects: for a changelog, the offset just past the last record
    /// the producer delivered to it (the broker's answer, what Kafka Streams checkpoints); for
    /// a table read from its source topic, the committed offset of that topic. A store whose
    /// changelog got nothing this interval keeps the offset it has.
    pub(super) fn flush_stores(&mut self) -> Result<(), StreamsError> {
        let delivered = self.clients.deliveries.delivered().clone();
        for active in self.tasks.iter_mut() {
            let id = active.id;
            let sources = active.task.source_topics();
            let committed = &active.committed;
            active
                .task
                .for_each_store(|info, store| {
                    let topic = info.changelog_topic;
                    let offset = match sources.iter().position(|t| *t == topic) {
                        Some(i) => committed[i],
                        None => delivered.take_end(topic, id.partition),
                    };
                    match offset {
                        Some(offset) => store.flush_at(offset),
                        None => store.flush(),
                    }
                })
                .map_err(|e| StreamsError::store(id, e))?;
        }
        Ok(())
    }

    /// Where each changelog partition of `active` restores from, and why: after the offsets
    /// its stores recorded with their last committed flush, when every store has one and each
    /// fits its changelog; else from the beginning, after emptying the stores (a store without
    /// an offset, an offset past a changelog's end or before its start). `after_abort`: the
    /// task's uncommitted work was just dropped.
    pub(super) fn restore_start(
        &self,
        active: &mut ActiveTask<T, F>,
        partitions: &mut [RestorePartition],
        after_abort: bool,
    ) -> Result<RestoreReason, StreamsError> {
        let closed_cleanly = active.dir.as_mut().is_some_and(|d| {
            let closed = d.closed_cleanly();
            d.forget_clean_close();
            closed
        });
        let mut recorded: Vec<(&'static str, Option<i64>)> = Vec::with_capacity(partitions.len());
        // The changelogs of the stores kept in memory (`in_memory()`) beside stores on disk:
        // restored from their start every time, without a rebuild of the others.
        let mut in_memory: Vec<&'static str> = Vec::new();
        let _ = active.task.for_each_store(|info, store| {
            recorded.push((info.changelog_topic, store.changelog_offset()));
            if info.in_memory {
                in_memory.push(info.changelog_topic);
            }
            Ok::<(), ()>(())
        });
        let mut starts = Vec::with_capacity(partitions.len());
        let mut rebuild = active.task.needs_full_restore().then_some(
            "the task keeps state in memory that only a restore from the start rebuilds (a \
             stream-stream join's windows, a versioned table's history)",
        );
        for p in partitions.iter().filter(|_| rebuild.is_none()) {
            if active.dir.is_some() && in_memory.iter().any(|t| *t == p.topic) {
                starts.push(None);
                continue;
            }
            let offset = recorded
                .iter()
                .find(|(t, _)| *t == p.topic)
                .and_then(|(_, o)| *o);
            let Some(offset) = offset else {
                rebuild = Some(if active.dir.is_some() {
                    "a store holds no committed changelog offset (a first start, a restore that did not finish, or writes of an uncommitted interval reached it)"
                } else {
                    "stores in memory"
                });
                break;
            };
            // The log end, not the last stable offset: right after the commit that wrote the
            // checkpoint's last records, that transaction's markers can still be on their way,
            // holding the last stable offset below the checkpoint.
            // A broker restarting or a leader moving is waited out (with warnings), not failed
            // on; a stop request ends the wait.
            let looked_up = bounds_until_stopped(
                &self.clients.restore_consumer,
                self.ctx.log_ends.as_deref(),
                &p.topic,
                p.partition,
                WATERMARKS_TIMEOUT,
                &self.ctx.stop,
            );
            let (low, high) = match looked_up {
                Ok(bounds) => bounds,
                // The restore that follows sees the stop too, and gives up without touching
                // the stores.
                Err(RetryError::Stopped) => return Ok(RestoreReason::Stopping),
                Err(RetryError::Failed(e, _)) => {
                    return Err(StreamsError::kafka("reading changelog offsets")(e));
                }
            };
            if offset < low || offset > high {
                tracing::warn!(task = %active.id, topic = p.topic, offset, low, high, "a store's changelog offset does not fit the changelog");
                rebuild = Some("a store's changelog offset does not fit the changelog");
                break;
            }
            starts.push(Some(offset));
        }
        if let Some(cause) = rebuild {
            let id = active.id;
            active
                .task
                .clear()
                .map_err(|source| StreamsError::task(id, source))?;
            return Ok(RestoreReason::Rebuild(cause));
        }
        if !in_memory.is_empty() {
            let id = active.id;
            active
                .task
                .for_each_store(|info, store| {
                    if info.in_memory {
                        store.clear()
                    } else {
                        Ok(())
                    }
                })
                .map_err(|e| StreamsError::store(id, e))?;
        }
        for (p, start) in partitions.iter_mut().zip(starts) {
            p.from = start.map_or(Offset::Beginning, Offset::Offset);
        }
        Ok(if closed_cleanly {
            RestoreReason::Checkpoint
        } else if after_abort {
            RestoreReason::AbortedInterval
        } else {
            RestoreReason::CrashTail
        })
    }

    /// Empties the stores of `active` that have no changelog (`with_logging_disabled()`) when
    /// they may hold what no committed offset accounts for: under exactly-once, on disk, unless
    /// the task closed cleanly last time or only its uncommitted interval was just dropped
    /// (`after_abort`: the stores' pending writes went with it). Kafka Streams wipes the state of
    /// a task closed dirty under exactly-once for the same reason. In memory such a store starts
    /// empty anyway; under at-least-once it keeps what it holds, as Kafka Streams' does.
    pub(super) fn empty_unlogged_stores(
        &self,
        active: &mut ActiveTask<T, F>,
        after_abort: bool,
    ) -> Result<(), StreamsError> {
        let unlogged = active.task.subtopology().stores.iter().any(|s| !s.logged);
        let at_risk = unlogged
            && !after_abort
            && self.ctx.config.guarantee == crate::streams::ProcessingGuarantee::ExactlyOnce
            && active.dir.as_ref().is_some_and(|d| !d.closed_cleanly());
        if !at_risk {
            return Ok(());
        }
        tracing::info!(task = %active.id, "emptying the task's stores without a changelog: it did not close cleanly under exactly-once, so they may hold uncommitted work");
        let id = active.id;
        active
            .task
            .for_each_store(
                |info, store| {
                    if info.logged { Ok(()) } else { store.clear() }
                },
            )
            .map_err(|e| StreamsError::store(id, e))
    }

    /// Closes a task whose work is committed (its stores flushed with their offsets by that
    /// commit): syncs its stores to disk and marks the close as clean. A failure only costs the
    /// next start a longer restore, so it is logged, not returned.
    pub(super) fn close_committed(&self, mut active: ActiveTask<T, F>) {
        let Some(dir) = active.dir.take() else {
            return;
        };
        let id = active.id;
        let result = active
            .task
            .for_each_store(|_, store| store.sync())
            .map_err(|e| e.to_string())
            .and_then(|()| dir.mark_closed().map_err(|e| e.to_string()));
        // The stores close before the directory is unlocked.
        drop(active);
        match result {
            Ok(()) => tracing::debug!(task = %id, "task closed cleanly"),
            Err(error) => {
                tracing::warn!(task = %id, error, "closing the task's stores failed; the next start checks what they hold");
            }
        }
        drop(dir);
    }
}

/// Why a restore replays what it does; the log line of every restore names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RestoreReason {
    /// The task closed cleanly last time: only what its changelogs gained since.
    Checkpoint,
    /// The process ended without closing the task (a crash): the changelog tail after the
    /// offsets the stores recorded with their last committed flush.
    CrashTail,
    /// An aborted commit interval: its writes were dropped, the stores kept as of their
    /// offsets, and the changelog tail after them replayed.
    AbortedInterval,
    /// A standby became active: only what its changelogs gained since the standby's
    /// positions.
    Standby,
    /// The stores were emptied and restored from the changelogs' start, for this cause.
    Rebuild(&'static str),
    /// The application stops before the restore could start: the stores are left as they are,
    /// and the restore gives up at once.
    Stopping,
}

impl RestoreReason {
    /// A short name (the `reason` of the log line and of the restore metrics).
    pub(super) fn name(self) -> &'static str {
        match self {
            RestoreReason::Checkpoint => "checkpoint",
            RestoreReason::CrashTail => "crash tail",
            RestoreReason::AbortedInterval => "aborted interval",
            RestoreReason::Standby => "standby",
            RestoreReason::Rebuild(_) => "rebuild",
            RestoreReason::Stopping => "stopping",
        }
    }
}

/// Records in every store of `task` the changelog offsets `ends` (per changelog topic) after a
/// restore, flushing what it applied in the same LMDB transaction; stores not named just flush.
pub(super) fn flush_restored<K: Task>(
    task: &mut K,
    ends: &[(&str, i64)],
) -> Result<(), crate::store::StoreError> {
    task.for_each_store(
        |info, store| match ends.iter().find(|(t, _)| *t == info.changelog_topic) {
            Some((_, end)) => store.flush_at(*end),
            None => StoreBackend::flush(store),
        },
    )
}

/// Records in the stores of `task` whose changelog is `topic` that they hold every record of it
/// before `next`, flushing what the restore applied in the same LMDB transaction: an
/// interrupted restore (a crash, a shutdown, the task moving) resumes there. The other stores
/// are left alone: their own changelogs are at other offsets.
pub(super) fn checkpoint_restored<K: Task>(
    task: &mut K,
    topic: &str,
    next: i64,
) -> Result<(), crate::store::StoreError> {
    task.for_each_store(|info, store| {
        if info.changelog_topic == topic {
            store.flush_at(next)
        } else {
            Ok(())
        }
    })
}
