//! Task ids and task sets.

use std::collections::BTreeSet;
use std::fmt;

use crate::protocol::TaskIds;
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
    /// Standby tasks: acknowledged, not maintained (see [`crate::group`]).
    pub standby: TaskSet,
    /// Warm-up tasks: acknowledged, not maintained.
    pub warmup: TaskSet,
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

/// Formats a task set as `[0_0, 0_1]` for logs.
pub(crate) fn display(tasks: &TaskSet) -> String {
    let items: Vec<String> = tasks.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}
