//! A thread's side of on-disk state: flushing stores after commits, restoring from a
//! checkpoint, and writing the checkpoint when a task closes cleanly.
//!
//! With stores in memory all of this reduces to nothing: the memory backend's flush and sync
//! do nothing and a task has no directory.

use std::time::Duration;

use rdkafka::Offset;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::tasks::ActiveTask;
use crate::kafka::restore::{RestorePartition, watermarks};
use crate::state_dir::{Checkpoint, TaskDir};
use crate::store::{BackendFactory, StoreBackend};
use crate::task::{Task, Topology};

/// How long a new task waits for its directory while another thread of this instance still
/// closes it.
pub(super) const TASK_LOCK_WAIT: Duration = Duration::from_secs(60);
/// How long a watermark lookup may take.
const WATERMARKS_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a checkpoint past the changelog's last stable offset waits for that offset to catch
/// up (the markers of the transaction that wrote the last records may still be on their way)
/// before it counts as not fitting.
const MARKERS_WAIT: Duration = Duration::from_secs(10);

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

    /// Writes every task's stores through to their backend, after a commit.
    pub(super) fn flush_stores(&mut self) -> Result<(), StreamsError> {
        for active in self.tasks.iter_mut() {
            let id = active.id;
            active
                .task
                .for_each_store(|_, store| store.flush())
                .map_err(|e| StreamsError::store(id, e))?;
        }
        Ok(())
    }

    /// Where each changelog partition of `active` restores from: after the task directory's
    /// checkpoint when it has one that fits the changelogs, else from the beginning. A
    /// checkpoint that does not fit (an offset past a changelog's end or before its start, or
    /// a store it does not name) empties the stores first. The checkpoint is used once: a later
    /// rebuild restores from the beginning.
    pub(super) fn restore_start(
        &self,
        active: &mut ActiveTask<T, F>,
        partitions: &mut [RestorePartition],
    ) -> Result<(), StreamsError> {
        let Some(checkpoint) = active.dir.as_mut().and_then(|d| {
            let c = d.checkpoint().cloned();
            d.discard_checkpoint();
            c
        }) else {
            return Ok(());
        };
        let mut starts = Vec::with_capacity(partitions.len());
        for p in partitions.iter() {
            let Some(offset) = checkpoint.offset(&p.topic, p.partition) else {
                tracing::info!(task = %active.id, topic = p.topic, "the checkpoint names no offset for this changelog; rebuilding the task's stores");
                starts.clear();
                break;
            };
            let (low, high) = self
                .end_reaching(&p.topic, p.partition, offset)
                .map_err(StreamsError::kafka("reading changelog offsets"))?;
            if offset < low || offset > high {
                tracing::warn!(task = %active.id, topic = p.topic, offset, low, high, "the checkpoint does not fit the changelog; rebuilding the task's stores");
                starts.clear();
                break;
            }
            starts.push(offset);
        }
        if starts.len() < partitions.len() {
            let id = active.id;
            return active
                .task
                .clear()
                .map_err(|source| StreamsError::task(id, source));
        }
        for (p, offset) in partitions.iter_mut().zip(starts) {
            p.from = Offset::Offset(offset);
        }
        Ok(())
    }

    /// The watermarks of a changelog partition, waiting up to [`MARKERS_WAIT`] for the high one
    /// (the last stable offset: the restore consumer reads committed records only) to reach
    /// `offset`. A checkpoint holds the offset just past the last record its task wrote; right
    /// after the commit, that transaction's markers can still be on their way, holding the last
    /// stable offset below it for a moment.
    fn end_reaching(
        &self,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Result<(i64, i64), rdkafka::error::KafkaError> {
        let deadline = std::time::Instant::now() + MARKERS_WAIT;
        let mut backoff = Duration::from_millis(20);
        loop {
            let (low, high) =
                watermarks(&self.restore_consumer, topic, partition, WATERMARKS_TIMEOUT)?;
            if high >= offset || std::time::Instant::now() + backoff >= deadline {
                return Ok((low, high));
            }
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_millis(500));
        }
    }

    /// Closes a task whose work is committed: syncs its stores to disk and writes the
    /// checkpoint that lets the next start skip what they hold. A failure only costs the next
    /// start a full restore, so it is logged, not returned.
    pub(super) fn close_committed(&self, mut active: ActiveTask<T, F>) {
        let Some(dir) = active.dir.take() else {
            return;
        };
        let id = active.id;
        let result = active
            .task
            .for_each_store(|_, store| store.sync())
            .map_err(|e| e.to_string())
            .and_then(|()| self.checkpoint_of(&active).map_err(|e| e.to_string()))
            .and_then(|checkpoint| dir.write_checkpoint(&checkpoint).map_err(|e| e.to_string()));
        // The stores close before the directory is unlocked.
        drop(active);
        match result {
            Ok(()) => tracing::debug!(task = %id, "checkpoint written"),
            Err(error) => {
                tracing::warn!(task = %id, error, "no checkpoint written; the next start restores the task's stores in full");
            }
        }
        drop(dir);
    }

    /// The changelog offsets `active`'s stores hold right after a commit. For a changelog:
    /// the offset just past the last record the producer delivered to it, as the broker
    /// answered (what Kafka Streams checkpoints), or, when the task wrote nothing to it since
    /// this thread last checkpointed it, its end offset (a lower bound of what the store holds:
    /// a restart then at worst replays records the store already has). For a table read from
    /// its source topic: the committed offset of that topic.
    fn checkpoint_of(&self, active: &ActiveTask<T, F>) -> Result<Checkpoint, StreamsError> {
        let mut checkpoint = Checkpoint::default();
        for store in active.task.subtopology().stores {
            let topic = store.changelog_topic;
            let partition = active.id.partition;
            let offset = match active.task.source_index(topic) {
                Some(i) => active.committed[i].unwrap_or(0),
                None => match self.deliveries.delivered().take_end(topic, partition) {
                    Some(end) => end,
                    None => {
                        watermarks(&self.restore_consumer, topic, partition, WATERMARKS_TIMEOUT)
                            .map_err(StreamsError::kafka("reading changelog offsets"))?
                            .1
                    }
                },
            };
            checkpoint.set(topic, partition, offset);
        }
        Ok(checkpoint)
    }
}

/// Flushes every store of `task` (after a restore).
pub(super) fn flush_task<K: Task>(task: &mut K) -> Result<(), crate::store::StoreError> {
    task.for_each_store(|_, store| StoreBackend::flush(store))
}
