//! Standby tasks: replicas of other members' task state, kept up to date from the changelogs,
//! so a failover restores only what the replica lags behind.
//!
//! # What Kafka 4.4's broker does
//!
//! Read off the 4.4 branch of Apache Kafka (`GC` =
//! `group-coordinator/src/main/java/org/apache/kafka/coordinator/group`):
//!
//! - **Standby tasks are assigned** when the group's `streams.num.standby.replicas` is above 0
//!   (`GC/GroupConfig.java`; the broker default is `group.streams.num.standby.replicas` = 0 and a
//!   group may ask for at most `group.streams.max.standby.replicas` = 2). It is a dynamic group
//!   config, set with IncrementalAlterConfigs on the GROUP resource
//!   ([`crate::group::set_standby_replicas`], or `kafka-configs.sh --entity-type groups`).
//!   `GC/streams/assignor/StickyTaskAssignor.java` gives each *stateful* task (a subtopology with
//!   state changelog topics) that many standbys, never on a process that holds the task already
//!   (as active or standby), preferring members that were its standby before. When an active
//!   task has to move (its member left or was fenced), the assignor gives it first to its
//!   previous owner, then to **a member that was its standby** ("re-assigning tasks to clients
//!   that previously have seen the same task (as standby task)"): that is the failover this
//!   module makes cheap.
//! - **Task offsets are used**, for standbys only: the heartbeat's `TaskOffsets` (per task, the
//!   sum of the changelog offsets its local state reflects) are kept in memory by the
//!   coordinator (`GC/streams/MemberTaskOffsets.java`, updated in
//!   `GroupMetadataManager.streamsGroupHeartbeat`), and the assignor ranks standby candidates
//!   by them: previous standbys first, then members that only report offsets for the task
//!   (state left on disk), each group most caught-up first. `TaskEndOffsets` are stored too but
//!   the 4.4 assignor reads only `TaskOffsets`. The response's `TaskOffsetIntervalMs`
//!   (`group.streams.task.offset.interval.ms`, 60 s) says how often to report them; like
//!   Kafka Streams (`StreamsGroupHeartbeatRequestManager`), a member reports them in full when
//!   it joins, then a list only when it changed and the interval passed or its tasks changed.
//!   Running active tasks are left out (`TaskManager.maybeUpdateTaskOffsetSumSnapshot`).
//! - **Warm-up tasks are not assigned.** 4.4 has the configs (`streams.num.warmup.replicas`,
//!   internal, default 2; `group.streams.acceptable.recovery.lag`, 10000) and the heartbeat
//!   fields, but `GC/streams/AssignmentRefiner.refine` returns the target assignment unchanged
//!   ("No warm-up tasks are inserted yet"). Warm-up tasks that a later broker assigns are
//!   acknowledged by [`crate::group`] but not maintained.
//!
//! # What a member does
//!
//! Each processing thread (one group member) keeps its standby tasks in a [`StandbyTasks`]: the
//! task (the same code `topology!` generated, over the same store backend, memory or LMDB) and,
//! per changelog partition, the next offset to apply. A dedicated standby consumer of the thread
//! (a restore consumer: `read_committed` under exactly-once, so only committed records are ever
//! applied, and no group) reads the changelogs between records of the processing loop, in short
//! bounded polls. A standby's stores are written only by those changelog records, never by
//! processing.
//!
//! When a standby becomes active on the same member, the runtime takes its task and stores as
//! they are and restores only from the standby's positions to the changelogs' ends (see
//! `streams::assignment`), instead of from the beginning. On disk, a standby flushes its stores
//! (about once a second and when it closes) together with its positions, in one LMDB
//! transaction, as an active task's commit does: a later standby or active task of that
//! directory, after a clean close or a crash, replays only what follows those positions.
//!
//! Metrics: `dekaf.streams.standby.lag` (gauge, label `task`: changelog end offsets minus the
//! standby's positions, summed over its changelogs), `dekaf.streams.standby.records` (counter of
//! changelog records applied to standbys), `dekaf.streams.tasks.standby` (gauge) and
//! `dekaf.streams.standby.promotions` (counter).

use std::time::Instant;

use crate::kafka::restore::RestoreConsumer;
use crate::task::Task;

mod tasks;

pub(crate) use tasks::{ChangelogPosition, StandbyError, StandbyTask, StandbyTasks};

/// A processing thread's standby tasks and what keeps them up to date (changed by the thread's
/// `streams::standbys`).
pub(crate) struct Standbys<K: Task> {
    /// The standby tasks (see the runtime's `standby` module).
    pub(crate) tasks: StandbyTasks<K>,
    /// Their consumer, created when the first standby comes.
    pub(crate) consumer: Option<RestoreConsumer>,
    /// When the standbys were last matched with the member's assignment.
    pub(crate) synced: Instant,
}

impl<K: Task> Standbys<K> {
    /// No standby yet.
    pub(crate) fn new() -> Self {
        Standbys {
            tasks: StandbyTasks::default(),
            consumer: None,
            synced: Instant::now(),
        }
    }
}
