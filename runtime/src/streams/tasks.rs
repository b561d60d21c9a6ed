//! The active tasks of one processing thread, and the routing of consumed records to them.

use super::record_queues::RecordQueues;
pub(crate) use crate::group::TaskId;
use crate::kafka::watermarks::SourceView;
use crate::state_dir::TaskDir;
use crate::store::BackendFactory;
use crate::task::{Task, TaskError, Topology};

/// A task the thread runs, with its consumption progress.
pub(crate) struct ActiveTask<T: Topology, F: BackendFactory> {
    /// Which task.
    pub id: TaskId,
    /// The compiled task.
    pub task: T::Task<F::Backend>,
    /// Per source (indexed like `Task::source_topics`): the next offset to read.
    pub positions: Vec<Option<i64>>,
    /// Per source: the next offset as of the last commit (where a rebuild resumes).
    pub committed: Vec<Option<i64>>,
    /// Per source: where it started without a committed offset, when its offset reset is not
    /// `earliest` (see `offset_reset`); a rebuild before the first commit goes back there.
    pub starts: Vec<Option<i64>>,
    /// Per source: whether a record was consumed since the consumer was last assigned. Only
    /// then is the consumer's position (which steps over transaction markers) this task's.
    pub consumed: Vec<bool>,
    /// Stream time as of the last commit.
    pub committed_stream_time: i64,
    /// Records processed since the last commit.
    pub processed: u64,
    /// How late the records processed since the last report came (see
    /// [`super::periodic_report`]).
    pub lateness: Lateness,
    /// With several sources: their fetched records, waiting to be processed in timestamp order
    /// (see [`super::record_queues`]). `None` for a task with one source.
    pub queues: Option<RecordQueues>,
    /// The consumer's positions and cached watermarks of the task's source partitions, for the
    /// caught-up checks and the commit's step past transaction markers.
    pub sources: SourceView,
    /// The sources (bit `i`: source `i`, the first 64) whose topic has no partition of this
    /// task's number: a source of several topics with fewer partitions than another
    /// (`stream(["a", "b"], ..)`). Such a source never has records, and never holds the task's
    /// others back (see [`super::record_queues`]).
    pub absent: u64,
    /// The task's locked directory, when stores live on disk. Dropped after the task, so the
    /// stores close before the lock is released.
    pub dir: Option<TaskDir>,
}

/// How late records came to a task: by how much each one's timestamp lay behind the task's
/// stream time when it was processed (0 for one not behind), as Kafka Streams'
/// `record-lateness` sensor. Plain sums: nothing on the per-record path but two additions and
/// a comparison.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lateness {
    /// Their lateness summed, in ms.
    pub sum: i64,
    /// How many records.
    pub count: u64,
    /// The largest, in ms.
    pub max: i64,
}

impl Lateness {
    /// Counts a record of `timestamp` processed at `stream_time` (`i64::MIN`: none yet).
    pub(super) fn observe(&mut self, stream_time: i64, timestamp: i64) {
        let late = if stream_time > timestamp {
            stream_time.saturating_sub(timestamp)
        } else {
            0
        };
        self.sum = self.sum.saturating_add(late);
        self.count += 1;
        self.max = self.max.max(late);
    }
}

#[derive(Debug, Clone, Copy)]
struct Route {
    topic: &'static str,
    partition: i32,
    task: usize,
    source: usize,
}

/// The tasks of a thread.
pub(crate) struct ActiveTasks<T: Topology, F: BackendFactory> {
    tasks: Vec<ActiveTask<T, F>>,
    routes: Vec<Route>,
    last: usize,
    /// The record cache of the thread, shared evenly by its tasks.
    cache_max_bytes: usize,
}

impl<T: Topology, F: BackendFactory> Default for ActiveTasks<T, F> {
    fn default() -> Self {
        ActiveTasks {
            tasks: Vec::new(),
            routes: Vec::new(),
            last: 0,
            cache_max_bytes: 0,
        }
    }
}

impl<T: Topology, F: BackendFactory> ActiveTasks<T, F> {
    /// Creates the task `id` with stores opened by `stores` (in `dir`, when on disk). Its
    /// positions start unknown.
    pub(super) fn create(
        id: TaskId,
        stores: &mut F,
        dir: Option<TaskDir>,
    ) -> Result<ActiveTask<T, F>, TaskError> {
        let task = T::create_task(id.subtopology, id.partition, stores)?;
        Ok(Self::adopt(id, task, dir))
    }

    /// Makes `task` (a promoted standby's, stores and all) an active task. Its positions start
    /// unknown.
    pub(super) fn adopt(
        id: TaskId,
        task: T::Task<F::Backend>,
        dir: Option<TaskDir>,
    ) -> ActiveTask<T, F> {
        let n = task.source_topics().len();
        let sources = SourceView::new(task.source_topics().iter().copied(), id.partition);
        ActiveTask {
            id,
            task,
            positions: vec![None; n],
            committed: vec![None; n],
            starts: vec![None; n],
            consumed: vec![false; n],
            committed_stream_time: i64::MIN,
            processed: 0,
            lateness: Lateness::default(),
            queues: (n > 1).then(|| RecordQueues::new(n)),
            sources,
            absent: 0,
            dir,
        }
    }

    /// Adds a task.
    pub(super) fn insert(&mut self, task: ActiveTask<T, F>) {
        self.tasks.push(task);
        self.reroute();
    }

    /// Removes and returns the task `id`.
    pub(super) fn remove(&mut self, id: TaskId) -> Option<ActiveTask<T, F>> {
        let i = self.tasks.iter().position(|t| t.id == id)?;
        let task = self.tasks.swap_remove(i);
        self.reroute();
        Some(task)
    }

    /// Removes every task.
    pub(super) fn drain(&mut self) -> Vec<ActiveTask<T, F>> {
        self.routes.clear();
        self.last = 0;
        std::mem::take(&mut self.tasks)
    }

    /// Sets the thread's record cache budget (0: none), shared evenly by its tasks now and
    /// whenever tasks are added or removed.
    pub(super) fn set_cache_max_bytes(&mut self, bytes: usize) {
        self.cache_max_bytes = bytes;
        self.share_cache();
    }

    fn share_cache(&mut self) {
        let share = match self.cache_max_bytes {
            0 => 0,
            // At least one byte each, so a tiny budget does not turn caching off.
            total => (total / self.tasks.len().max(1)).max(1),
        };
        for t in &mut self.tasks {
            t.task.set_cache_max_bytes(share);
        }
    }

    fn reroute(&mut self) {
        self.share_cache();
        self.routes.clear();
        self.last = 0;
        for (ti, t) in self.tasks.iter().enumerate() {
            for (si, topic) in t.task.source_topics().iter().enumerate() {
                self.routes.push(Route {
                    topic,
                    partition: t.id.partition,
                    task: ti,
                    source: si,
                });
            }
        }
    }

    /// The task and source index of a record of `topic`/`partition`.
    #[inline]
    pub(super) fn route(
        &mut self,
        topic: &str,
        partition: i32,
    ) -> Option<(&mut ActiveTask<T, F>, usize)> {
        let hit = |r: &Route| r.partition == partition && r.topic == topic;
        let i = match self.routes.get(self.last) {
            Some(r) if hit(r) => self.last,
            _ => {
                let i = self.routes.iter().position(hit)?;
                self.last = i;
                i
            }
        };
        let r = self.routes[i];
        Some((&mut self.tasks[r.task], r.source))
    }

    /// The ids of the tasks.
    pub(super) fn ids(&self) -> Vec<TaskId> {
        self.tasks.iter().map(|t| t.id).collect()
    }

    /// The tasks.
    pub(super) fn iter(&self) -> impl Iterator<Item = &ActiveTask<T, F>> {
        self.tasks.iter()
    }

    /// The tasks, mutably.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut ActiveTask<T, F>> {
        self.tasks.iter_mut()
    }

    /// Whether there are none.
    pub(super) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

#[cfg(test)]
mod lateness_tests {
    use super::Lateness;

    #[test]
    fn lateness_is_how_far_behind_stream_time_a_record_came() {
        let mut l = Lateness::default();
        l.observe(i64::MIN, 100); // the first record: nothing to be late against
        l.observe(100, 150); // ahead
        l.observe(150, 120); // 30 ms late
        l.observe(150, 140); // 10 ms late
        assert_eq!(
            l,
            Lateness {
                sum: 40,
                count: 4,
                max: 30
            }
        );
    }
}
