//! The standby tasks of one processing thread and the consumer that keeps them up to date.

use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use crate::group::{TaskId, TaskOffsets, TaskSet};
use crate::kafka::assignment::rewind;
use crate::kafka::restore::{RestoreConsumer, record_timestamp, watermarks};
use crate::state_dir::TaskDir;
use crate::task::{Task, TaskError};

/// How long one watermark lookup of the lag refresh may take: it runs on the processing thread.
const END_LOOKUP_TIMEOUT: Duration = Duration::from_millis(500);
/// How long the lag refresh pauses after a failed lookup (a leader change, an unreachable
/// broker), so the processing thread does not wait on lookups every round.
const END_LOOKUP_BACKOFF: Duration = Duration::from_secs(10);
/// How long moving the standby consumer to new positions may take (local, no broker round trip).
const ASSIGN_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a standby is in one of its changelog partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangelogPosition {
    /// The changelog topic (or the source topic of a table read from a topic).
    pub topic: &'static str,
    /// The partition (the task's).
    pub partition: i32,
    /// The next offset to apply: the store holds every committed record before it. `None`:
    /// nothing applied yet (from the beginning).
    pub next: Option<i64>,
    /// The changelog's end offset (the last stable offset under read_committed) when last
    /// looked up.
    pub end: Option<i64>,
}

/// One standby task: the task, with its stores, and its changelog positions.
pub(crate) struct StandbyTask<K: Task> {
    /// Which task.
    pub id: TaskId,
    /// The task; only changelog records ever reach its stores.
    pub task: K,
    /// Its changelog partitions, in the order of the subtopology's stores.
    pub changelogs: Vec<ChangelogPosition>,
    /// Its locked directory, when stores live on disk. Dropped after the task.
    pub dir: Option<TaskDir>,
    /// Records applied since its stores were last flushed.
    unflushed: u64,
}

impl<K: Task> StandbyTask<K> {
    /// A standby of `task`, its changelogs starting at `start(topic)` (`None`: the beginning).
    pub(crate) fn new(
        id: TaskId,
        task: K,
        dir: Option<TaskDir>,
        start: impl Fn(&str) -> Option<i64>,
    ) -> Self {
        let changelogs = task
            .subtopology()
            .stores
            .iter()
            .filter(|s| s.logged)
            .map(|s| ChangelogPosition {
                topic: s.changelog_topic,
                partition: id.partition,
                next: start(s.changelog_topic),
                end: None,
            })
            .collect();
        StandbyTask {
            id,
            task,
            changelogs,
            dir,
            unflushed: 0,
        }
    }

    /// Changelog records the standby has not applied yet, as of the last end lookup (`None`
    /// before one).
    pub(crate) fn lag(&self) -> Option<i64> {
        self.changelogs.iter().try_fold(0i64, |sum, c| {
            c.end
                .map(|end| sum.saturating_add((end - c.next.unwrap_or(0)).max(0)))
        })
    }

    /// The sum of its changelog positions (Kafka Streams' "task offset sum").
    pub(crate) fn offset_sum(&self) -> i64 {
        self.changelogs
            .iter()
            .fold(0i64, |sum, c| sum.saturating_add(c.next.unwrap_or(0)))
    }

    /// The sum of its changelogs' end offsets, if all are known.
    pub(crate) fn end_offset_sum(&self) -> Option<i64> {
        self.changelogs
            .iter()
            .try_fold(0i64, |sum, c| c.end.map(|e| sum.saturating_add(e)))
    }

    /// Writes its stores through to their backend, each with its changelog position (the
    /// offset of the first record it does not hold) in the same transaction, as an active
    /// task's commit does: a standby applies committed changelog records only, so its stores
    /// are trusted up to that position after a crash too, and a later standby or active task
    /// of the directory replays only what follows.
    pub(crate) fn flush(&mut self) -> Result<(), TaskError> {
        self.unflushed = 0;
        let changelogs = &self.changelogs;
        self.task
            .for_each_store(|info, store| {
                match changelogs
                    .iter()
                    .find(|c| c.topic == info.changelog_topic)
                    .and_then(|c| c.next)
                {
                    Some(next) => crate::store::StoreBackend::flush_at(store, next),
                    None => crate::store::StoreBackend::flush(store),
                }
            })
            .map_err(TaskError::from)
    }
}

/// Why updating the standbys failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StandbyError {
    /// The standby consumer failed.
    #[error("reading the changelogs of standby tasks failed: {0}")]
    Kafka(#[from] KafkaError),
    /// A store refused a changelog record.
    #[error("applying {topic}[{partition}]@{offset} to standby task {task} failed: {source}")]
    Apply {
        /// The task.
        task: TaskId,
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The record's offset.
        offset: i64,
        /// What the store said.
        #[source]
        source: Box<TaskError>,
    },
    /// A store could not write the applied records through to its backend.
    #[error("writing the stores of standby task {task} through to disk failed: {source}")]
    Flush {
        /// The task.
        task: TaskId,
        /// What the store said.
        #[source]
        source: Box<TaskError>,
    },
}

/// The standby tasks of a thread and their consumer.
pub(crate) struct StandbyTasks<K: Task> {
    tasks: Vec<StandbyTask<K>>,
    /// Whether the consumer's assignment matches the tasks' positions.
    assigned: bool,
    /// When the changelogs' end offsets were last looked up.
    ends_refreshed: Option<Instant>,
    /// When the stores were last flushed.
    flushed: Instant,
}

impl<K: Task> Default for StandbyTasks<K> {
    fn default() -> Self {
        StandbyTasks {
            tasks: Vec::new(),
            assigned: false,
            ends_refreshed: None,
            flushed: Instant::now(),
        }
    }
}

impl<K: Task> StandbyTasks<K> {
    /// The ids of the standby tasks.
    pub(crate) fn ids(&self) -> TaskSet {
        self.tasks.iter().map(|t| t.id).collect()
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Adds a standby task.
    pub(crate) fn insert(&mut self, task: StandbyTask<K>) {
        self.tasks.push(task);
        self.assigned = false;
        self.ends_refreshed = None;
    }

    /// Removes and returns the standby task `id` (it is closed, or promoted to active).
    pub(crate) fn take(&mut self, id: TaskId) -> Option<StandbyTask<K>> {
        let i = self.tasks.iter().position(|t| t.id == id)?;
        self.assigned = false;
        // No longer a standby here: its lag gauge stops meaning anything.
        metrics::gauge!("dekaf.streams.standby.lag", "task" => id.to_string()).set(0.0);
        Some(self.tasks.swap_remove(i))
    }

    /// Removes every standby task.
    pub(crate) fn drain(&mut self) -> Vec<StandbyTask<K>> {
        self.assigned = false;
        for t in &self.tasks {
            metrics::gauge!("dekaf.streams.standby.lag", "task" => t.id.to_string()).set(0.0);
        }
        std::mem::take(&mut self.tasks)
    }

    /// Each standby's task and lag (see [`StandbyTask::lag`]).
    pub(crate) fn lags(&self) -> impl Iterator<Item = (TaskId, Option<i64>)> + '_ {
        self.tasks.iter().map(|t| (t.id, t.lag()))
    }

    /// Per task: offset sums and end-offset sums, for the heartbeat.
    pub(crate) fn task_offsets(&self) -> TaskOffsets {
        TaskOffsets {
            offsets: self.tasks.iter().map(|t| (t.id, t.offset_sum())).collect(),
            end_offsets: self
                .tasks
                .iter()
                .filter_map(|t| t.end_offset_sum().map(|e| (t.id, e)))
                .collect(),
        }
    }

    /// Applies the committed changelog records `consumer` has ready, for at most `budget`
    /// (then the processing loop goes on), and returns how many it applied. Points `consumer`
    /// at the standbys' positions first when they changed. `applied` sees each record once its
    /// store took it (topic, partition, key, value, timestamp): how queries of stale stores
    /// learn of it.
    pub(crate) fn poll(
        &mut self,
        consumer: &RestoreConsumer,
        budget: Duration,
        mut applied_to: impl FnMut(&str, i32, &[u8], Option<&[u8]>, i64),
    ) -> Result<u64, StandbyError> {
        if !self.assigned {
            let mut tpl = TopicPartitionList::new();
            for t in &self.tasks {
                for c in &t.changelogs {
                    let from = c.next.map_or(Offset::Beginning, Offset::Offset);
                    tpl.add_partition_offset(c.topic, c.partition, from)?;
                }
            }
            // Incremental, with seeks: a full `assign` right after another can make librdkafka
            // stop a fetcher twice and abort (see `kafka::assignment`).
            rewind(consumer, &tpl, ASSIGN_TIMEOUT)?;
            self.assigned = true;
        }
        if self.tasks.is_empty() {
            return Ok(0);
        }
        let started = Instant::now();
        let mut applied = 0u64;
        while started.elapsed() < budget {
            let Some(polled) = consumer.poll(Duration::ZERO) else {
                break;
            };
            let m = match polled {
                Ok(m) => m,
                // The end of a partition: what the standby waits at.
                Err(KafkaError::PartitionEOF(_)) => continue,
                Err(e) => {
                    tracing::debug!(error = %e, "standby consumer error; librdkafka retries");
                    break;
                }
            };
            let (topic, partition, offset) = (m.topic(), m.partition(), m.offset());
            let found = self.tasks.iter_mut().find_map(|t| {
                let i = t
                    .changelogs
                    .iter()
                    .position(|c| c.partition == partition && c.topic == topic)?;
                Some((t, i))
            });
            let Some((task, i)) = found else {
                continue;
            };
            // A record before the position (fetched before a reassignment) is already in.
            if task.changelogs[i].next.is_some_and(|next| offset < next) {
                continue;
            }
            let (key, value, timestamp) = (
                m.key().unwrap_or_default(),
                m.payload(),
                record_timestamp(&m),
            );
            task.task
                .restore(topic, key, value, timestamp)
                .map_err(|source| StandbyError::Apply {
                    task: task.id,
                    topic: topic.to_owned(),
                    partition,
                    offset,
                    source: Box::new(source),
                })?;
            applied_to(topic, partition, key, value, timestamp);
            task.changelogs[i].next = Some(offset + 1);
            task.unflushed += 1;
            applied += 1;
        }
        if applied > 0 {
            metrics::counter!("dekaf.streams.standby.records").increment(applied);
        }
        Ok(applied)
    }

    /// Flushes the stores of standbys that applied records, at most every `interval`.
    pub(crate) fn flush_due(&mut self, interval: Duration) -> Result<(), StandbyError> {
        if self.flushed.elapsed() < interval {
            return Ok(());
        }
        self.flushed = Instant::now();
        for t in &mut self.tasks {
            if t.unflushed > 0 {
                let id = t.id;
                t.flush().map_err(|source| StandbyError::Flush {
                    task: id,
                    source: Box::new(source),
                })?;
            }
        }
        Ok(())
    }

    /// Looks up the changelogs' end offsets, at most every `interval`, and publishes every
    /// standby's lag. Returns whether it looked them up. A failed lookup keeps the old ends.
    pub(crate) fn refresh_ends(&mut self, consumer: &RestoreConsumer, interval: Duration) -> bool {
        if self
            .ends_refreshed
            .is_some_and(|at| at.elapsed() < interval)
        {
            return false;
        }
        self.ends_refreshed = Some(Instant::now());
        let mut failed = false;
        // Under read_committed the consumer's position steps over transaction markers and
        // aborted records, which are never handed out: without it a standby that applied every
        // committed record would still lag by the last commit's marker.
        let positions = if self.assigned {
            consumer.position().ok()
        } else {
            None
        };
        for t in &mut self.tasks {
            for c in &mut t.changelogs {
                let position = positions
                    .as_ref()
                    .and_then(|p| p.find_partition(c.topic, c.partition))
                    .and_then(|e| match e.offset() {
                        Offset::Offset(o) => Some(o),
                        _ => None,
                    });
                if let Some(o) = position
                    && o > c.next.unwrap_or(0)
                {
                    c.next = Some(o);
                }
                if failed {
                    continue;
                }
                match watermarks(consumer, c.topic, c.partition, END_LOOKUP_TIMEOUT) {
                    Ok((_, high)) => c.end = Some(high),
                    Err(e) => {
                        failed = true;
                        tracing::debug!(topic = c.topic, partition = c.partition, error = %e, "standby lag not known: changelog end offset lookup failed; retrying in {END_LOOKUP_BACKOFF:?}")
                    }
                }
            }
            if let Some(lag) = t.lag() {
                metrics::gauge!("dekaf.streams.standby.lag", "task" => t.id.to_string())
                    .set(lag as f64);
                tracing::debug!(task = %t.id, lag, "standby lag");
            }
        }
        if failed {
            self.ends_refreshed = Some(Instant::now() + END_LOOKUP_BACKOFF);
        }
        true
    }
}
