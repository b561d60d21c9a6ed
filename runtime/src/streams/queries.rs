//! A processing thread's part in interactive queries (see [`crate::query`]): it publishes the
//! committed state of its tasks' stores, and learns the partition counts that map a key to its
//! task. Nothing here runs per record: only when tasks come and go and after each commit. And
//! nothing at all in an application without a query handle (`KafkaStreams::queries`, taken
//! before it runs): there the stores are never copied into snapshots.

use std::time::Duration;

use rdkafka::consumer::Consumer;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::tasks::{ActiveTask, TaskId};
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// How long looking up a topic's partition count may take.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Whether the application has a query handle: without one nothing is published.
    pub(super) fn queried(&self) -> bool {
        self.publisher.registry().is_queried()
    }

    /// The stores of `added` are restoring: queries of their keys answer "restoring" (not
    /// "hosted elsewhere") until [`Self::publish_restored`].
    pub(super) fn publish_restoring(&self, added: &[TaskId]) {
        if !self.queried() {
            return;
        }
        for id in added {
            if let Some(sub) = T::INFO.subtopology(id.subtopology) {
                self.publisher.restoring(sub, id.partition);
            }
        }
    }

    /// `active` finished restoring: its stores' state is the committed state.
    pub(super) fn publish_restored(&self, active: &ActiveTask<T, F>) -> Result<(), StreamsError> {
        if !self.queried() {
            return Ok(());
        }
        for store in active.task.subtopology().stores {
            if let Some(backend) = active.task.store(store.name) {
                let history = active.task.history(store.name);
                self.publisher
                    .publish_whole(store, active.id.partition, backend, history)
                    .map_err(|e| StreamsError::store(active.id, e))?;
            }
        }
        // A promoted standby's copy answered stale queries while the task restored; the
        // active task's state replaces it.
        self.publisher
            .standby_closed(active.task.subtopology(), active.id.partition);
        Ok(())
    }

    /// The task `id` is no longer hosted here as active task; nor the copy of its standby if
    /// this thread promoted it (a promoted standby's copy answers stale reads until its task is
    /// restored; a task closing before that leaves none behind). Another thread's standby of
    /// the task is left alone.
    pub(super) fn publish_closed(&self, id: TaskId) {
        if let Some(sub) = T::INFO.subtopology(id.subtopology) {
            self.publisher.closed(sub, id.partition);
            self.publisher.standby_closed(sub, id.partition);
        }
    }

    /// The standby `standby` opened: its stores' state (what its directory kept, or nothing)
    /// becomes its published copy, read by queries that enable stale stores.
    pub(super) fn publish_standby_opened<K: Task>(
        &self,
        standby: &crate::standby::StandbyTask<K>,
    ) -> Result<(), StreamsError> {
        if !self.queried() {
            return Ok(());
        }
        for store in standby.task.subtopology().stores {
            if let Some(backend) = standby.task.store(store.name) {
                self.publisher
                    .publish_standby_all(store, standby.id.partition, backend, standby.lag())
                    .map_err(|e| StreamsError::store(standby.id, e))?;
            }
        }
        Ok(())
    }

    /// The standby `id` closed: stale queries no longer read it.
    pub(super) fn publish_standby_closed(&self, id: TaskId) {
        if let Some(sub) = T::INFO.subtopology(id.subtopology) {
            self.publisher.standby_closed(sub, id.partition);
        }
    }

    /// A commit succeeded: its changelog records (handed over by the changelog buffer as it
    /// learned of the commit, see `commit::after_commit`) become the stores' published state; a
    /// table read from its source topic (whose updates write no changelog records) is
    /// republished whole when its task processed records, and so is a versioned table (with its
    /// past versions). Call before the tasks' `processed` counts reset.
    pub(super) fn publish_committed(&mut self) -> Result<(), StreamsError> {
        if !self.queried() {
            return Ok(());
        }
        self.publisher.publish();
        for active in self.tasks.iter() {
            if active.processed == 0 {
                continue;
            }
            for store in active.task.subtopology().stores {
                let history = active.task.history(store.name);
                // A versioned table's changelog holds out-of-order puts too, so its latest
                // values are republished whole, with its versions.
                if (active.task.source_index(store.changelog_topic).is_some() || history.is_some())
                    && let Some(backend) = active.task.store(store.name)
                {
                    self.publisher
                        .publish_whole(store, active.id.partition, backend, history)
                        .map_err(|e| StreamsError::store(active.id, e))?;
                }
            }
        }
        Ok(())
    }

    /// Looks up the partition count of every subtopology's input not known yet (the number of
    /// its tasks, which maps a key to its task). A failed lookup is retried at the next
    /// assignment; until then queries of that store answer "not running yet".
    pub(super) fn learn_partition_counts(&self) {
        if !self.queried() {
            return;
        }
        let registry = self.publisher.registry();
        for sub in T::INFO.subtopologies {
            if registry.knows_partitions(sub.id) {
                continue;
            }
            // The subtopology has as many tasks as its input topic with the most partitions
            // (its source topics can differ: `stream(["a", "b"], ..)`).
            let mut tasks = 0usize;
            let inputs = sub
                .source_topics
                .iter()
                .copied()
                .chain(sub.repartition_source_topics.iter().map(|t| t.name));
            for topic in inputs {
                match crate::kafka::metadata::partition_count(
                    self.clients.consumer.client(),
                    topic,
                    METADATA_TIMEOUT,
                ) {
                    Ok(partitions) => {
                        tasks = tasks.max(partitions.map_or(0, |n| n as usize));
                    }
                    Err(e) => {
                        tracing::debug!(topic, error = %e, "partition count lookup for queries failed; retried at the next assignment");
                        tasks = 0;
                        break;
                    }
                }
            }
            if let Ok(n @ 1..) = i32::try_from(tasks) {
                registry.set_partitions(sub.id, n);
            }
        }
    }
}
