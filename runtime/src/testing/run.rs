//! The [`TestDriver`](super::TestDriver)'s engine: its tasks (one per subtopology and
//! partition), the routing of records to them by Kafka's default partitioner, and the queue of
//! records written to topics the topology reads.

use std::collections::{HashMap, VecDeque};

use super::{RawRecord, TestError};
use crate::store::{MemoryBackend, MemoryStores};
use crate::task::{
    GlobalStores, InputRecord, OutgoingRecord, Partitioning, RecordSink, SinkError, Task,
    TaskError, TopicKind, Topology,
};

/// A record waiting to be processed: topic, partition, record.
pub(super) type Queued = (&'static str, i32, RawRecord);

pub(super) struct Inner<T: Topology> {
    /// Partitions of every topic (and so tasks per subtopology).
    pub partitions: i32,
    /// Task of subtopology `s`, partition `p`: `tasks[s * partitions + p]`.
    pub tasks: Vec<T::Task<MemoryBackend>>,
    /// topic → (subtopology index, source index)
    pub routes: HashMap<&'static str, (usize, usize)>,
    /// Output records per topic, with their partitions.
    pub outputs: HashMap<String, VecDeque<(i32, RawRecord)>>,
    /// Changelog records per topic, with their partitions.
    pub changelogs: HashMap<String, Vec<(i32, RawRecord)>>,
    /// Next offset per topic and partition.
    pub offsets: HashMap<(&'static str, i32), i64>,
    /// The next partition of a null-keyed record sent without one, per topic.
    pub round_robin: HashMap<String, i32>,
    /// The mocked wall clock, in milliseconds since the epoch.
    pub wall_clock: i64,
    /// The global tables' stores, shared by the tasks.
    pub globals: GlobalStores,
    /// Commits the tasks asked for (`ctx.commit()` of a processor), each served by flushing
    /// the record caches once the record that asked is through.
    pub commits_requested: u64,
    /// A task asked for a commit while the queue ran.
    commit_pending: bool,
    /// The changelog names of stores without a changelog (`with_logging_disabled()`): their
    /// records are dropped, as the runtime never produces them.
    unlogged: Vec<&'static str>,
}

impl<T: Topology> Inner<T> {
    pub(super) fn new(partitions: i32, cache_max_bytes: usize, wall_clock: i64) -> Self {
        let partitions = partitions.max(1);
        let mut tasks = Vec::new();
        let mut routes = HashMap::new();
        let globals = GlobalStores::new(T::GLOBAL_TABLES);
        for (s, sub) in T::INFO.subtopologies.iter().enumerate() {
            for p in 0..partitions {
                let mut task = match T::create_task(sub.id, p, &mut MemoryStores) {
                    Ok(task) => task,
                    Err(e) => panic!(
                        "creating the task of subtopology {} partition {p}: {e}",
                        sub.id
                    ),
                };
                task.set_cache_max_bytes(cache_max_bytes);
                task.attach_global_stores(&globals);
                // The task starts: its wall-clock schedules count from now.
                task.wall_clock_due(wall_clock);
                if p == 0 {
                    for (i, topic) in task.source_topics().iter().enumerate() {
                        routes.insert(*topic, (s, i));
                    }
                }
                tasks.push(task);
            }
        }
        Inner {
            partitions,
            tasks,
            routes,
            outputs: HashMap::new(),
            changelogs: HashMap::new(),
            offsets: HashMap::new(),
            round_robin: HashMap::new(),
            wall_clock,
            globals,
            commits_requested: 0,
            unlogged: T::INFO
                .subtopologies
                .iter()
                .flat_map(|s| s.stores)
                .filter(|s| !s.logged)
                .map(|s| s.changelog_topic)
                .collect(),
            commit_pending: false,
        }
    }

    /// The partition a producer with Kafka's default partitioner picks for `key` on `topic`:
    /// murmur2 of the key bytes, or round robin for a null key.
    pub(super) fn partition_of(&mut self, topic: &str, key: Option<&[u8]>) -> i32 {
        partition_of(self.partitions, &mut self.round_robin, topic, key)
    }

    /// Processes `queue` and whatever its records write to topics the topology reads; after
    /// each record, the stream-time punctuations of its task that are due.
    pub(super) fn run_queue(&mut self, mut queue: VecDeque<Queued>) -> Result<(), TestError> {
        while let Some((topic, partition, record)) = queue.pop_front() {
            // Output written to a global table's topic updates the table.
            self.globals
                .apply(topic, record.key.as_deref(), record.value.as_deref());
            let Some(&(sub, source)) = self.routes.get(topic) else {
                continue;
            };
            if !(0..self.partitions).contains(&partition) {
                return Err(TestError::Partition {
                    topic: topic.to_owned(),
                    partition,
                    partitions: self.partitions,
                });
            }
            let offset = self.offsets.entry((topic, partition)).or_insert(0);
            let input = InputRecord {
                source,
                partition,
                offset: *offset,
                key: record.key.as_deref(),
                value: record.value.as_deref(),
                timestamp: record.timestamp,
                headers: &record.headers,
            };
            *offset += 1;
            let task = &mut self.tasks[sub * self.partitions as usize + partition as usize];
            // A table's source topic is its store's changelog: a restore reads it back, as the
            // runtime restores a table source's store from its topic.
            if task
                .subtopology()
                .stores
                .iter()
                .any(|s| s.changelog_topic == topic)
            {
                self.changelogs
                    .entry(topic.to_owned())
                    .or_default()
                    .push((partition, record.clone()));
            }
            let mut sink = Collect {
                partitions: self.partitions,
                queue: &mut queue,
                outputs: &mut self.outputs,
                changelogs: &mut self.changelogs,
                unlogged: &self.unlogged,
                round_robin: &mut self.round_robin,
                commit_requested: &mut self.commit_pending,
            };
            task.process(&input, &mut sink)?;
            task.punctuate_stream_time(&mut sink)?;
        }
        // A commit a task asked for: the caches flush, as the runtime's commit flushes them.
        if std::mem::take(&mut self.commit_pending) {
            self.commits_requested += 1;
            while self.for_each_task(|task, sink| task.flush_cache(sink))? {}
        }
        Ok(())
    }

    /// Calls `f` on every task with a sink, then processes what they wrote to topics the
    /// topology reads (flushing caches, punctuating on the wall clock).
    pub(super) fn for_each_task(
        &mut self,
        mut f: impl FnMut(&mut T::Task<MemoryBackend>, &mut Collect<'_>) -> Result<(), TaskError>,
    ) -> Result<bool, TestError> {
        let mut queue = VecDeque::new();
        for task in self.tasks.iter_mut() {
            let mut sink = Collect {
                partitions: self.partitions,
                queue: &mut queue,
                outputs: &mut self.outputs,
                changelogs: &mut self.changelogs,
                unlogged: &self.unlogged,
                round_robin: &mut self.round_robin,
                commit_requested: &mut self.commit_pending,
            };
            f(task, &mut sink)?;
        }
        let wrote = !queue.is_empty();
        self.run_queue(queue)?;
        Ok(wrote)
    }
}

fn partition_of(
    partitions: i32,
    round_robin: &mut HashMap<String, i32>,
    topic: &str,
    key: Option<&[u8]>,
) -> i32 {
    match Partitioning::ByKey.partition(key, partitions) {
        Some(p) => p,
        None => {
            let next = round_robin.entry(topic.to_owned()).or_insert(0);
            let p = *next;
            *next = (p + 1) % partitions;
            p
        }
    }
}

/// The driver's sink: output records are kept per topic with their partitions (and queued, for
/// a topology that reads its own output), repartition records queued, changelog records kept.
pub(super) struct Collect<'a> {
    partitions: i32,
    queue: &'a mut VecDeque<Queued>,
    outputs: &'a mut HashMap<String, VecDeque<(i32, RawRecord)>>,
    changelogs: &'a mut HashMap<String, Vec<(i32, RawRecord)>>,
    unlogged: &'a [&'static str],
    round_robin: &'a mut HashMap<String, i32>,
    commit_requested: &'a mut bool,
}

impl RecordSink for Collect<'_> {
    fn request_commit(&mut self) {
        *self.commit_requested = true;
    }

    fn partition_count(&mut self, _topic: &'static str) -> Result<u32, SinkError> {
        Ok(self.partitions.unsigned_abs())
    }

    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        let partition = match r.partitioning {
            Partitioning::Exact(p) => p,
            Partitioning::ByKey => partition_of(self.partitions, self.round_robin, r.topic, r.key),
        };
        let raw = RawRecord {
            key: r.key.map(<[u8]>::to_vec),
            value: r.value.map(<[u8]>::to_vec),
            timestamp: r.timestamp,
            headers: r.headers.clone(),
        };
        match r.kind {
            TopicKind::Changelog | TopicKind::AppendOnlyChangelog
                if self.unlogged.contains(&r.topic) => {}
            TopicKind::Changelog | TopicKind::AppendOnlyChangelog => self
                .changelogs
                .entry(r.topic.to_owned())
                .or_default()
                .push((partition, raw)),
            TopicKind::Repartition => self.queue.push_back((r.topic, partition, raw)),
            TopicKind::Sink | TopicKind::DeadLetter => {
                self.outputs
                    .entry(r.topic.to_owned())
                    .or_default()
                    .push_back((partition, raw.clone()));
                self.queue.push_back((r.topic, partition, raw));
            }
        }
        Ok(())
    }
}
