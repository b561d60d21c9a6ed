//! Task ids and task sets.

use std::collections::BTreeSet;
use std::fmt;

use crate::protocol::{TaskIds, TaskOffset};
use crate::topology::TopologyInfo;

/// A task: one partition of one subtopology (`0_2` is partition 2 of subtopology `0`). The task
/// reads partition `partition` of every source and repartition-source topic of its subtopology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    /// The subtopology id, as in [`TopologyInfo`].
    pub subtopology: &'static str,
    /// The partition.
    pub partition: i32,
}

impl TaskId {
    /// A task id.
    pub const fn new(subtopology: &'static str, partition: i32) -> Self {
        TaskId {
            subtopology,
            partition,
        }
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.subtopology, self.partition)
    }
}

/// A sorted set of tasks.
pub type TaskSet = BTreeSet<TaskId>;

/// The tasks a member owns, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Active tasks: processed by this member.
    pub active: TaskSet,
    /// Standby tasks: their stores are kept up to date from the changelogs (see
    /// the runtime's `standby` module).
    pub standby: TaskSet,
    /// Warm-up tasks: acknowledged, not maintained (Kafka 4.4 assigns none, see
    /// the runtime's `standby` module).
    pub warmup: TaskSet,
}

/// What a member reports about the state it holds (the heartbeat's `TaskOffsets` and
/// `TaskEndOffsets`, KIP-1071): per task, the sum of the changelog offsets its stores reflect,
/// and the sum of those changelogs' end offsets. As Kafka Streams 4.4 reports them
/// (`TaskManager.maybeUpdateTaskOffsetSumSnapshot`), running active tasks are left out: they
/// are caught up by definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskOffsets {
    /// Offset sums of the tasks whose state this member holds (standbys).
    pub offsets: Vec<(TaskId, i64)>,
    /// End-offset sums of the same tasks' changelogs.
    pub end_offsets: Vec<(TaskId, i64)>,
}

/// Converts the wire form into tasks of `topology`; subtopology ids the topology does not have
/// are returned as errors.
pub(crate) fn from_wire(
    topology: &'static TopologyInfo,
    wire: &[TaskIds],
) -> Result<TaskSet, String> {
    let mut out = TaskSet::new();
    for t in wire {
        let Some(sub) = topology.subtopology(&t.subtopology_id) else {
            return Err(format!(
                "the coordinator assigned tasks of subtopology `{}`, which topology `{}` does not have",
                t.subtopology_id, topology.application_id
            ));
        };
        out.extend(t.partitions.iter().map(|&p| TaskId::new(sub.id, p)));
    }
    Ok(out)
}

/// Converts tasks into the wire form, grouped by subtopology, sorted.
pub(crate) fn to_wire(tasks: &TaskSet) -> Vec<TaskIds> {
    let mut out: Vec<TaskIds> = Vec::new();
    for t in tasks {
        match out.last_mut() {
            Some(last) if last.subtopology_id == t.subtopology => last.partitions.push(t.partition),
            _ => out.push(TaskIds {
                subtopology_id: t.subtopology.to_owned(),
                partitions: vec![t.partition],
            }),
        }
    }
    out
}

/// Converts per-task offset sums into the wire form, sorted by task.
pub(crate) fn offsets_to_wire(offsets: &[(TaskId, i64)]) -> Vec<TaskOffset> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.dedup_by_key(|(t, _)| *t);
    sorted
        .into_iter()
        .map(|(t, offset)| TaskOffset {
            subtopology_id: t.subtopology.to_owned(),
            partition: t.partition,
            offset,
        })
        .collect()
}

/// Formats a task set as `[0_0, 0_1]` for logs.
pub(crate) fn display(tasks: &TaskSet) -> String {
    let items: Vec<String> = tasks.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}
