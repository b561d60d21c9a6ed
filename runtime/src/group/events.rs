//! What a member tells its owner.

use std::fmt;

use super::task::TaskId;

/// An event for the owner of a member (a processing thread of the runtime).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberEvent {
    /// New tasks for this member. Active tasks are to be restored and processed. Standby and
    /// warm-up tasks are acknowledged to the coordinator by the member as they come and go
    /// (removals come without an event): follow them through
    /// [`super::MemberHandle::assignment`].
    Assigned {
        /// Newly assigned active tasks.
        active: Vec<TaskId>,
        /// Newly assigned standby tasks.
        standby: Vec<TaskId>,
        /// Newly assigned warm-up tasks.
        warmup: Vec<TaskId>,
    },
    /// The coordinator moves these active tasks to another member. The owner commits their work,
    /// closes them, then calls [`super::MemberHandle::release`]; only then does the member tell
    /// the coordinator, which then hands them on. Not releasing within the rebalance timeout gets
    /// the member fenced.
    Revoked(Vec<TaskId>),
    /// The member was fenced (FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID): another member may own
    /// these tasks already. The owner drops them **without committing** (a commit would be
    /// refused anyway), then calls [`super::MemberHandle::release`]; the member then rejoins with
    /// epoch 0 and the same member id.
    Lost(Vec<TaskId>),
    /// The group's statuses changed (empty: all clear). These are conditions, not failures: the
    /// member keeps heartbeating and the assignment follows once they clear.
    Status(Vec<GroupStatus>),
}

/// A status the coordinator reports for the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupStatus {
    /// Which condition.
    pub code: StatusCode,
    /// The coordinator's words, e.g. the missing topics.
    pub detail: String,
}

/// The status codes of StreamsGroupHeartbeat responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusCode {
    /// 0: the member's topology epoch is older than the group's.
    StaleTopology,
    /// 1: source topics are missing; nothing is assigned until they exist.
    MissingSourceTopics,
    /// 2: topics are not co-partitioned as required, or a changelog has the wrong partition count.
    IncorrectlyPartitionedTopics,
    /// 3: internal topics are missing; the coordinator is creating them.
    MissingInternalTopics,
    /// 4: a member asked the whole application to shut down.
    ShutdownApplication,
    /// 5: the coordinator delays the assignment (initial rebalance delay).
    AssignmentDelayed,
    /// 6: client tags required for rack-aware assignment are missing.
    MissingClientTags,
    /// A code this version does not know.
    Unknown(i8),
}

impl StatusCode {
    /// From the wire code.
    pub fn from_code(code: i8) -> Self {
        match code {
            0 => StatusCode::StaleTopology,
            1 => StatusCode::MissingSourceTopics,
            2 => StatusCode::IncorrectlyPartitionedTopics,
            3 => StatusCode::MissingInternalTopics,
            4 => StatusCode::ShutdownApplication,
            5 => StatusCode::AssignmentDelayed,
            6 => StatusCode::MissingClientTags,
            other => StatusCode::Unknown(other),
        }
    }
}

impl fmt::Display for GroupStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.code, self.detail)
    }
}
