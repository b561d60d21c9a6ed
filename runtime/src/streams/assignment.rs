//! Taking on and giving up tasks as the coordinator assigns them.
//!
//! Tasks the coordinator takes away are committed and closed first, and only then reported as
//! released, so the coordinator hands them to another member with everything committed. New tasks are created,
//! their stores restored from the changelogs, their stream time and input positions taken from
//! the committed offsets, and only then are their partitions consumed.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::{Offset, TopicPartitionList};

use super::commit::parse_stream_time;
use super::error::StreamsError;
use super::processing::StreamThread;
use super::standbys::{resume_from_standby, standby_lag};
use super::state::{RestoreReason, checkpoint_restored, flush_restored};
use super::tasks::{ActiveTask, ActiveTasks, TaskId};
use crate::kafka::assignment::{reassign, rewind};
use crate::kafka::restore::{RestoreError, RestorePartition, RestoreTarget, restore};
use crate::standby::ChangelogPosition;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// How long restoring one task may go without progress (no record applied, no changelog
/// partition finished): a restore as such takes what it takes (see [`restore`]).
const RESTORE_NO_PROGRESS: Duration = Duration::from_secs(600);
/// How long fetching committed offsets may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// A task's stores as a restore's target: each changelog record goes to its store, and the
/// restore's progress is recorded with what the stores hold ([`checkpoint_restored`]), so an
/// interrupted restore resumes there.
struct TaskRestore<'a, K>(&'a mut K);

impl<K: Task> RestoreTarget for TaskRestore<'_, K> {
    fn apply(
        &mut self,
        topic: &str,
        _: i32,
        _: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<(), String> {
        self.0
            .restore(topic, key.unwrap_or_default(), value, timestamp)
            .map_err(|e| e.to_string())
    }

    fn checkpoint(&mut self, topic: &str, _: i32, next: i64) -> Result<(), String> {
        checkpoint_restored(self.0, topic, next).map_err(|e| e.to_string())
    }
}

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Commits and closes `revoked`, then tells the member they are released.
    pub(crate) fn revoke(&mut self, revoked: &[TaskId]) -> Result<(), StreamsError> {
        self.commit()?;
        let mut closed = 0;
        for id in revoked {
            if let Some(active) = self.tasks.remove(*id) {
                self.publish_closed(*id);
                self.metrics.task_closed(*id);
                self.close_committed(active);
                closed += 1;
            }
        }
        metrics::gauge!("dekaf.streams.tasks.active").decrement(f64::from(closed));
        self.assign_consumer()?;
        tracing::info!(tasks = ?revoked.iter().map(ToString::to_string).collect::<Vec<_>>(), "tasks committed and closed");
        self.member.release(revoked);
        Ok(())
    }

    /// Creates the tasks `added`, restores their stores and starts consuming their partitions.
    pub(crate) fn add(&mut self, added: &[TaskId]) -> Result<(), StreamsError> {
        let owned = self.tasks.ids();
        let added: Vec<TaskId> = added
            .iter()
            .filter(|id| !owned.contains(id))
            .copied()
            .collect();
        if added.is_empty() {
            return Ok(());
        }
        self.learn_partition_counts();
        self.publish_restoring(&added);
        let Some(committed) = self.fetch_committed(&added)? else {
            return Ok(());
        };
        for id in &added {
            let _span = tracing::info_span!("task", task = %id).entered();
            // A standby of the task on this thread becomes the active task, stores and all.
            let (mut active, standby) = match self.take_standby(*id) {
                Some(mut standby) => {
                    let dir = standby.dir.take();
                    let positions = std::mem::take(&mut standby.changelogs);
                    let lag = standby_lag(&positions);
                    tracing::info!(task = %id, lag, "standby promoted to active: restoring only its lag");
                    (ActiveTasks::adopt(*id, standby.task, dir), Some(positions))
                }
                None => {
                    let dir = self.lock_task_dir(id.subtopology, id.partition)?;
                    let active = ActiveTasks::<T, F>::create(*id, &mut self.stores, dir)
                        .map_err(|source| StreamsError::task(id, source))?;
                    (active, None)
                }
            };
            active.task.attach_global_stores(&self.ctx.globals);
            active.absent = self.absent_sources(&active);
            take_committed(&mut active, &committed);
            if !self.apply_offset_resets(&mut active)? {
                return Ok(());
            }
            self.restore_task(&mut active, false, standby.as_deref())?;
            active.task.set_stream_time(active.committed_stream_time);
            self.publish_restored(&active)?;
            self.tasks.insert(active);
        }
        metrics::gauge!("dekaf.streams.tasks.active").increment(added.len() as f64);
        self.metrics.tasks_created(added.len());
        self.learn_leaders(&added);
        self.assign_consumer()?;
        tracing::info!(tasks = ?added.iter().map(ToString::to_string).collect::<Vec<_>>(), "tasks restored and running");
        Ok(())
    }

    /// The sources of `active` whose topic has no partition of the task's number (bit `i`:
    /// source `i`): with several source topics of different partition counts, the coordinator
    /// makes as many tasks as the largest has partitions, and the others' partitions past their
    /// count do not exist. A count that cannot be looked up counts as present (the task then
    /// waits for that partition, as before).
    fn absent_sources(&mut self, active: &ActiveTask<T, F>) -> u64 {
        let topics = active.task.source_topics();
        if topics.len() < 2 {
            return 0;
        }
        let mut absent = 0;
        for (i, topic) in topics.iter().enumerate().take(64) {
            let count = match self.partition_counts.get(topic) {
                Some(n) => Some(*n),
                None => {
                    let looked_up = crate::kafka::metadata::partition_count(
                        self.clients.consumer.client(),
                        topic,
                        FETCH_TIMEOUT,
                    )
                    .ok()
                    .flatten()
                    .and_then(|n| i32::try_from(n).ok());
                    if let Some(n) = looked_up {
                        self.partition_counts.insert(topic, n);
                    }
                    looked_up
                }
            };
            if count.is_some_and(|n| active.id.partition >= n) {
                absent |= 1 << i;
            }
        }
        if absent != 0 {
            tracing::info!(task = %active.id, absent = ?topics.iter().enumerate().filter(|(i, _)| absent & (1 << i) != 0).map(|(_, t)| *t).collect::<Vec<_>>(), "sources without a partition of this task's number: the task reads the others");
        }
        absent
    }

    /// The group's committed offsets (and their metadata) for the sources of `tasks`, as the
    /// broker holds them: asked with `require_stable` (the consumer reads `read_committed`), so
    /// offsets of a transaction still completing are waited for, never read half-way.
    ///
    /// A lookup that fails, or fails for one partition (the coordinator moving or loading, a
    /// broker restarting), is asked again until it answers, with a warning every 30 s: a
    /// partition's offset that could not be read is never taken for "nothing committed", which
    /// would start the task from the partition's beginning. A shutdown meanwhile returns
    /// `None` and marks the thread interrupted.
    pub(super) fn fetch_committed(
        &mut self,
        tasks: &[TaskId],
    ) -> Result<Option<TopicPartitionList>, StreamsError> {
        let mut tpl = TopicPartitionList::new();
        for id in tasks {
            let Some(sub) = T::INFO.subtopology(id.subtopology) else {
                continue;
            };
            for topic in sub
                .source_topics
                .iter()
                .copied()
                .chain(sub.repartition_source_topics.iter().map(|t| t.name))
            {
                tpl.add_partition(topic, id.partition);
            }
        }
        let started = Instant::now();
        let mut warned: Option<Instant> = None;
        loop {
            // Whether the thread's consumer got no answer at all (a partition's error, such as
            // offsets of a transaction still pending, is an answer: asked again shortly).
            let (error, unanswered) = match self
                .clients
                .consumer
                .committed_offsets(tpl.clone(), FETCH_TIMEOUT)
            {
                Ok(committed) => match partition_error(&committed) {
                    None => return Ok(Some(committed)),
                    Some(e) => (e, false),
                },
                Err(e) => (e.to_string(), true),
            };
            if self.interrupted_by_stop() {
                return Ok(None);
            }
            if warned.is_none_or(|at| at.elapsed() >= Duration::from_secs(30)) {
                warned = Some(Instant::now());
                tracing::warn!(%error, waited = ?started.elapsed(), "reading the committed offsets failed; asking again (is the group coordinator reachable?)");
            }
            // librdkafka's consumer can keep a group coordinator it found before an outage of
            // every broker and never look it up again (CI, `every_broker_down_for_30s..`: both
            // remaining instances waited here for four minutes with the cluster back). A consumer
            // made for this one read looks the coordinator up afresh; same group, same isolation.
            if unanswered {
                match self.committed_by_new_consumer(&tpl) {
                    Ok(committed) if partition_error(&committed).is_none() => {
                        tracing::info!(waited = ?started.elapsed(), "committed offsets read through a new consumer after the thread's own failed");
                        return Ok(Some(committed));
                    }
                    Ok(committed) => {
                        tracing::debug!(error = ?partition_error(&committed), "a new consumer could not read the committed offsets either")
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "a new consumer could not read the committed offsets either")
                    }
                }
                if self.interrupted_by_stop() {
                    return Ok(None);
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Whether the instance is stopping; if so the thread is marked interrupted, for the
    /// lookups that wait on the cluster (committed offsets, a source's start) to give up.
    pub(super) fn interrupted_by_stop(&mut self) -> bool {
        let stopping = self.ctx.stop.load(Ordering::Relaxed);
        if stopping {
            self.interval.interrupted = true;
        }
        stopping
    }

    /// The committed offsets of `tpl`, read by a consumer made for this call from the thread's
    /// consumer settings (same group, same isolation, so the same answer), which looks the group
    /// coordinator up afresh.
    fn committed_by_new_consumer(
        &self,
        tpl: &TopicPartitionList,
    ) -> Result<TopicPartitionList, rdkafka::error::KafkaError> {
        let settings = &self.ctx.config.settings;
        let consumer: rdkafka::consumer::BaseConsumer<crate::kafka::oauth::StreamsConsumerContext> =
            settings
                .consumer(T::APPLICATION_ID, self.eos())
                .create_with_context(crate::kafka::oauth::StreamsConsumerContext::new(
                    settings.oauth_refresh(),
                ))?;
        crate::kafka::oauth::fetch_first_token(&consumer, &settings.oauth_refresh());
        consumer.committed_offsets(tpl.clone(), FETCH_TIMEOUT)
    }

    /// Restores every store of `active` from its changelog: after the offsets its stores
    /// recorded with their last committed flush, or from the beginning (see
    /// [`super::state`]). A table read from a user topic is restored only up to the committed
    /// offset of that topic: processing resumes there. `after_abort`: the task's uncommitted
    /// work was just dropped (only the log's reason depends on it).
    ///
    /// Logs one line per restore (records, seconds, reason) and counts
    /// `dekaf.streams.records.restored` and `dekaf.streams.restore.duration` with the task and
    /// reason as labels.
    ///
    /// A promoted standby passes its `standby` positions: its stores already hold everything
    /// before them, so the restore starts there.
    pub(crate) fn restore_task(
        &mut self,
        active: &mut ActiveTask<T, F>,
        after_abort: bool,
        standby: Option<&[ChangelogPosition]>,
    ) -> Result<(), StreamsError> {
        let sub = active.task.subtopology();
        let mut partitions = Vec::new();
        self.empty_unlogged_stores(active, after_abort)?;
        for store in sub.stores.iter().filter(|s| s.logged) {
            let source = active.task.source_index(store.changelog_topic);
            let until = source.map(|i| active.committed[i].unwrap_or(0));
            if until == Some(0) {
                continue;
            }
            partitions.push(RestorePartition {
                topic: store.changelog_topic.to_owned(),
                partition: active.id.partition,
                from: Offset::Beginning,
                until,
            });
        }
        if partitions.is_empty() {
            if let Some(dir) = active.dir.as_mut() {
                dir.forget_clean_close();
            }
            return Ok(());
        }
        let started = Instant::now();
        let reason = match standby {
            Some(positions) => {
                resume_from_standby(active, &mut partitions, positions)?;
                RestoreReason::Standby
            }
            None => self.restore_start(active, &mut partitions, after_abort)?,
        };
        let summary = match restore(
            &self.clients.restore_consumer,
            self.ctx.log_ends.as_deref(),
            &partitions,
            RESTORE_NO_PROGRESS,
            &self.ctx.stop,
            TaskRestore(&mut active.task),
        ) {
            Ok(summary) => summary,
            // Shutting down mid-restore (the cluster may be unreachable): the stores are
            // incomplete, so the thread closes without committing.
            Err(RestoreError::Stopped) => {
                self.interval.interrupted = true;
                return Ok(());
            }
            Err(source) => return Err(StreamsError::restore(active.id, source)),
        };
        let ends: Vec<(&str, i64)> = partitions
            .iter()
            .zip(&summary.ends)
            .map(|(p, end)| (p.topic.as_str(), *end))
            .collect();
        flush_restored(&mut active.task, &ends).map_err(|e| StreamsError::store(active.id, e))?;
        let seconds = started.elapsed().as_secs_f64();
        let labels = [
            ("task", active.id.to_string()),
            ("reason", reason.name().to_owned()),
        ];
        metrics::counter!("dekaf.streams.records.restored", &labels).increment(summary.records);
        metrics::histogram!("dekaf.streams.restore.duration", &labels).record(seconds);
        let from: Vec<String> = partitions
            .iter()
            .map(|p| match p.from {
                Offset::Offset(o) => format!("{}[{}]@{o}", p.topic, p.partition),
                _ => format!("{}[{}]@start", p.topic, p.partition),
            })
            .collect();
        match reason {
            super::state::RestoreReason::Rebuild(cause) => tracing::info!(
                task = %active.id,
                records = summary.records,
                seconds,
                reason = reason.name(),
                cause,
                "task restored: stores rebuilt from the changelogs' start"
            ),
            _ => tracing::info!(
                task = %active.id,
                records = summary.records,
                seconds,
                reason = reason.name(),
                from = ?from,
                from_standby = standby.is_some(),
                "task restored: kept its stores and replayed the changelog after their offsets"
            ),
        }
        Ok(())
    }

    /// Makes the consumer look up the partition leaders of the new tasks' sources before they are
    /// assigned. A partition whose leader librdkafka does not know yet waits for its offset-query
    /// timer (500 ms) before it fetches anything, which delayed every new task's first record by
    /// half a second. A failed lookup only costs that delay.
    fn learn_leaders(&self, added: &[TaskId]) {
        let mut topics: Vec<&str> = Vec::new();
        for id in added {
            if let Some(sub) = T::INFO.subtopology(id.subtopology) {
                let sources = sub.source_topics.iter().copied();
                let repartitions = sub.repartition_source_topics.iter().map(|t| t.name);
                for topic in sources.chain(repartitions) {
                    if !topics.contains(&topic) {
                        topics.push(topic);
                    }
                }
            }
        }
        for topic in topics {
            if let Err(e) = self
                .clients
                .consumer
                .fetch_metadata(Some(topic), FETCH_TIMEOUT)
            {
                tracing::debug!(topic, error = %e, "metadata lookup failed; the first fetch may wait");
            }
        }
    }

    /// Points the consumer at the sources of every task: the sources of new tasks are added at
    /// their next offset, those of tasks gone are removed, and the others go on fetching where
    /// they are (incremental on purpose: see [`crate::kafka::assignment`]).
    pub(crate) fn assign_consumer(&mut self) -> Result<(), StreamsError> {
        let wanted = self.task_positions()?;
        reassign(&self.clients.consumer, &wanted)
            .map_err(StreamsError::kafka("assigning partitions"))?;
        self.resume_unpaused()
    }

    /// Resumes every partition of the tasks that their record queues do not hold paused: a
    /// partition paused for a task that is gone (revoked, or rewound) fetches again when it
    /// comes back. Resuming a partition that is not paused does nothing.
    fn resume_unpaused(&mut self) -> Result<(), StreamsError> {
        let mut tpl = TopicPartitionList::new();
        for active in self.tasks.iter() {
            for (source, topic) in active.task.source_topics().iter().enumerate() {
                if !active.queues.as_ref().is_some_and(|q| q.is_paused(source)) {
                    tpl.add_partition(topic, active.id.partition);
                }
            }
        }
        self.clients
            .consumer
            .resume(&tpl)
            .map_err(StreamsError::kafka("resuming partitions"))
    }

    /// Moves the consumer back to every task's next offset after a rebuild dropped the
    /// interval's work, with seeks: see [`crate::kafka::assignment::rewind`].
    pub(crate) fn rewind_consumer(&mut self) -> Result<(), StreamsError> {
        for active in self.tasks.iter_mut() {
            active.consumed.fill(false);
            // Fetched again from the positions.
            if let Some(queues) = active.queues.as_mut() {
                queues.clear();
            }
        }
        let positions = self.task_positions()?;
        rewind(&self.clients.consumer, &positions, FETCH_TIMEOUT)
            .map_err(StreamsError::kafka("rewinding the consumer"))?;
        self.resume_unpaused()
    }

    /// Every task's sources, each at its next offset.
    fn task_positions(&self) -> Result<TopicPartitionList, StreamsError> {
        let mut tpl = TopicPartitionList::new();
        for active in self.tasks.iter() {
            for (i, topic) in active.task.source_topics().iter().enumerate() {
                let offset = active.positions[i].map_or(Offset::Beginning, Offset::Offset);
                tpl.add_partition_offset(topic, active.id.partition, offset)
                    .map_err(StreamsError::kafka("assigning partitions"))?;
            }
        }
        Ok(tpl)
    }

    /// Drops tasks without committing: those in `lost`, or all of them (the member was fenced
    /// and another member may own them already), then tells the member they are released.
    pub(super) fn lose(&mut self, lost: Option<&[TaskId]>) -> Result<(), StreamsError> {
        let aborted = self.abort_open_transaction()?;
        if aborted {
            metrics::counter!("dekaf.streams.commits.aborted").increment(1);
        }
        let _ = self.clients.deliveries.take();
        if aborted {
            self.interval.changelog.discard();
        }
        let ids = lost.map_or_else(|| self.tasks.ids(), <[TaskId]>::to_vec);
        // Tasks kept are rebuilt from committed state: the aborted transaction held their work too.
        let mut dropped = 0;
        for id in &ids {
            if self.tasks.remove(*id).is_some() {
                self.publish_closed(*id);
                self.metrics.task_closed(*id);
                dropped += 1;
            }
        }
        metrics::gauge!("dekaf.streams.tasks.active").decrement(f64::from(dropped));
        if !ids.is_empty() {
            tracing::info!(tasks = ?ids.iter().map(ToString::to_string).collect::<Vec<_>>(), "tasks lost; uncommitted work dropped");
        }
        self.member.release(&ids);
        if aborted && !self.tasks.is_empty() && !self.interval.interrupted {
            self.rebuild()
        } else {
            self.assign_consumer()
        }
    }
}

/// The first per-partition error of a committed-offsets answer, if any.
fn partition_error(committed: &TopicPartitionList) -> Option<String> {
    committed.elements().iter().find_map(|elem| {
        elem.error()
            .err()
            .map(|e| format!("{}[{}]: {e}", elem.topic(), elem.partition()))
    })
}

/// Sets `active`'s committed offsets, positions and committed stream time from the broker's
/// answer `committed`: a source without a committed offset starts at its beginning.
pub(super) fn take_committed<T: Topology, F: BackendFactory>(
    active: &mut ActiveTask<T, F>,
    committed: &TopicPartitionList,
) {
    let partition = active.id.partition;
    for (i, topic) in active.task.source_topics().iter().enumerate() {
        let elem = committed.find_partition(topic, partition);
        let offset = match elem.as_ref().map(|e| e.offset()) {
            Some(Offset::Offset(o)) => Some(o),
            _ => None,
        };
        active.committed[i] = offset;
        active.positions[i] = offset.or(active.starts[i]);
        if let Some(st) = elem.as_ref().and_then(|e| parse_stream_time(e.metadata())) {
            active.committed_stream_time = active.committed_stream_time.max(st);
        }
    }
}
