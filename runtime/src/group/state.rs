//! The membership state machine, without I/O: it builds heartbeat requests, digests responses
//! and the owner's releases, and says what to tell the owner. [`super::member`] drives it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kafka_protocol::ResponseError;

use super::connection::error_name;
use super::error::GroupError;
use super::events::{GroupStatus, MemberEvent, StatusCode};
use super::task::{self, Assignment, TaskOffsets, TaskSet};
use crate::protocol::Endpoint;
use crate::protocol::heartbeat::{
    StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse, Topology,
};
use crate::topology::TopologyInfo;

/// Epoch of a leave request.
pub(crate) const LEAVE_EPOCH: i32 = -1;
/// Epoch of a static member's leave request (KIP-1071, as `StreamsGroupHeartbeatRequest.
/// LEAVE_GROUP_STATIC_MEMBER_EPOCH`): the coordinator keeps the member and its tasks for the
/// session timeout, so an instance restarted with the same instance id gets them back.
pub(crate) const LEAVE_STATIC_EPOCH: i32 = -2;

/// What the driver does after a response.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Heartbeat again at the interval (or at once if [`Membership::wants_heartbeat_now`]).
    Continue,
    /// Retry after a backoff; `rediscover` asks for the coordinator to be found again.
    Retry {
        /// Find the coordinator again first.
        rediscover: bool,
        /// Why, for the log.
        reason: String,
    },
    /// Stop with this error.
    Fatal(GroupError),
}

/// The identity and settings of a member.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub group_id: String,
    pub member_id: String,
    pub process_id: String,
    /// The static member's instance id, if any.
    pub instance_id: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub user_endpoint: Option<Endpoint>,
    /// Set when the instance asks the whole application to shut down (Kafka Streams'
    /// `SHUTDOWN_APPLICATION`): every heartbeat sends `ShutdownApplication` while it is set,
    /// and the coordinator answers every member of the group with that status.
    pub shutdown_request: Option<Arc<AtomicBool>>,
}

/// The state of one member.
#[derive(Debug)]
pub(crate) struct Membership {
    topology: &'static TopologyInfo,
    wire_topology: Topology,
    id: Identity,
    epoch: i32,
    /// What the coordinator last said this member should own.
    target: Assignment,
    /// What the owner holds (and what heartbeats report).
    owned: Assignment,
    /// Revoked or lost tasks the owner has not released yet (a subset of the owner's tasks).
    awaiting_release: TaskSet,
    /// Fenced: rejoin once `awaiting_release` is empty.
    rejoin_after_release: bool,
    /// Send the next heartbeat at once (join, acknowledgement).
    ack_now: bool,
    heartbeat_interval: Duration,
    endpoint_epoch: i32,
    statuses: Option<Vec<GroupStatus>>,
    /// The owner's latest task offsets (standby state it holds).
    task_offsets: TaskOffsets,
    /// What the coordinator was last sent; `None` after a join or an error (send everything).
    sent_offsets: Option<TaskOffsets>,
    /// When task offsets were last sent.
    offsets_sent_at: Option<Instant>,
    /// How often task offsets are reported (the response's TaskOffsetIntervalMs; the broker's
    /// `group.streams.task.offset.interval.ms`, 60 s by default).
    task_offset_interval: Duration,
    /// A heartbeat's response was lost (the request failed after it may have reached the
    /// coordinator), and no response carrying the assignment came since: see
    /// [`response_lost`](Self::response_lost).
    assignment_unknown: bool,
}

impl Membership {
    pub(crate) fn new(
        topology: &'static TopologyInfo,
        wire_topology: Topology,
        id: Identity,
    ) -> Self {
        Membership {
            topology,
            wire_topology,
            id,
            epoch: 0,
            target: Assignment::default(),
            owned: Assignment::default(),
            awaiting_release: TaskSet::new(),
            rejoin_after_release: false,
            ack_now: true,
            heartbeat_interval: Duration::from_secs(5),
            endpoint_epoch: 0,
            statuses: None,
            task_offsets: TaskOffsets::default(),
            sent_offsets: None,
            offsets_sent_at: None,
            task_offset_interval: Duration::from_secs(60),
            assignment_unknown: false,
        }
    }

    /// The owner's latest task offsets, reported at the next heartbeat that reports offsets.
    pub(crate) fn set_task_offsets(&mut self, offsets: TaskOffsets) {
        self.task_offsets = offsets;
    }

    /// The next heartbeat, with the task offsets filled in as Kafka Streams 4.4 does
    /// (`StreamsGroupHeartbeatRequestManager`): all of them on a join; afterwards, when the
    /// reported tasks changed or the task-offset interval passed, each list only if it differs
    /// from what was last sent (null = unchanged). Marks them sent; a failed send calls
    /// [`offsets_lost`](Self::offsets_lost).
    pub(crate) fn request_at(&mut self, now: Instant) -> StreamsGroupHeartbeatRequest {
        let mut request = self.request();
        let joining = self.epoch == 0;
        let due = joining
            || self.sent_offsets.is_none()
            || self.ack_now
            || self
                .offsets_sent_at
                .is_none_or(|at| now.duration_since(at) >= self.task_offset_interval);
        if !due {
            return request;
        }
        let sent = self.sent_offsets.clone().unwrap_or_else(|| TaskOffsets {
            offsets: vec![(task::TaskId::new("", -1), 0)],
            end_offsets: vec![(task::TaskId::new("", -1), 0)],
        });
        let current = &self.task_offsets;
        if joining || sent.offsets != current.offsets {
            request.task_offsets = Some(task::offsets_to_wire(&current.offsets));
        }
        if joining || sent.end_offsets != current.end_offsets {
            request.task_end_offsets = Some(task::offsets_to_wire(&current.end_offsets));
        }
        if request.task_offsets.is_some() || request.task_end_offsets.is_some() {
            self.offsets_sent_at = Some(now);
        }
        self.sent_offsets = Some(current.clone());
        request
    }

    /// The last heartbeat did not arrive: send the task offsets in full next time.
    pub(crate) fn offsets_lost(&mut self) {
        self.sent_offsets = None;
    }

    pub(crate) fn epoch(&self) -> i32 {
        self.epoch
    }

    pub(crate) fn member_id(&self) -> &str {
        &self.id.member_id
    }

    pub(crate) fn group_id(&self) -> &str {
        &self.id.group_id
    }

    pub(crate) fn owned(&self) -> &Assignment {
        &self.owned
    }

    pub(crate) fn heartbeat_interval(&self) -> Duration {
        self.heartbeat_interval
    }

    /// False while a fenced member waits for its owner to drop the lost tasks.
    pub(crate) fn may_heartbeat(&self) -> bool {
        !self.rejoin_after_release
    }

    /// True when the next heartbeat should go out without waiting for the interval.
    pub(crate) fn wants_heartbeat_now(&self) -> bool {
        self.may_heartbeat() && (self.epoch == 0 || self.ack_now)
    }

    /// The next heartbeat: a join at epoch 0, else the owned tasks at the current epoch.
    pub(crate) fn request(&self) -> StreamsGroupHeartbeatRequest {
        let joining = self.epoch == 0;
        let tasks = |set: &TaskSet| {
            Some(if joining {
                Vec::new()
            } else {
                task::to_wire(set)
            })
        };
        StreamsGroupHeartbeatRequest {
            group_id: self.id.group_id.clone(),
            member_id: self.id.member_id.clone(),
            member_epoch: self.epoch,
            // Sent on the join only, as the Java client does: it does not change afterwards.
            instance_id: joining.then(|| self.id.instance_id.clone()).flatten(),
            endpoint_information_epoch: self.endpoint_epoch,
            rebalance_timeout_ms: self.id.rebalance_timeout_ms,
            topology: joining.then(|| self.wire_topology.clone()),
            active_tasks: tasks(&self.owned.active),
            standby_tasks: tasks(&self.owned.standby),
            warmup_tasks: tasks(&self.owned.warmup),
            process_id: Some(self.id.process_id.clone()),
            user_endpoint: self.id.user_endpoint.clone(),
            shutdown_application: self
                .id
                .shutdown_request
                .as_ref()
                .is_some_and(|asked| asked.load(Ordering::Relaxed)),
            ..Default::default()
        }
    }

    /// The leave request: epoch -1, or -2 with the instance id for a static member (which the
    /// coordinator keeps, tasks and all, until its session times out).
    pub(crate) fn leave_request(&self) -> StreamsGroupHeartbeatRequest {
        StreamsGroupHeartbeatRequest {
            group_id: self.id.group_id.clone(),
            member_id: self.id.member_id.clone(),
            member_epoch: if self.id.instance_id.is_some() {
                LEAVE_STATIC_EPOCH
            } else {
                LEAVE_EPOCH
            },
            instance_id: self.id.instance_id.clone(),
            endpoint_information_epoch: self.endpoint_epoch,
            ..Default::default()
        }
    }

    /// Marks the member as gone.
    pub(crate) fn left(&mut self) {
        self.epoch = LEAVE_EPOCH;
        self.owned = Assignment::default();
        self.target = Assignment::default();
    }

    /// The owner dropped every task (it was fenced at commit time): forget them, and everything
    /// the coordinator asked for, and rejoin at epoch 0 with the same member id. Kafka's
    /// coordinator takes epoch 0 from a known member as a rejoin and answers with its whole
    /// assignment, which the owner then takes on afresh from the committed offsets.
    pub(crate) fn abandon(&mut self) {
        tracing::info!(
            group = %self.id.group_id, member = %self.id.member_id, epoch = self.epoch,
            tasks = %task::display(&self.owned.active), "tasks dropped after a fenced commit; rejoining with epoch 0"
        );
        self.owned = Assignment::default();
        self.target = Assignment::default();
        self.awaiting_release = TaskSet::new();
        self.rejoin_after_release = false;
        self.epoch = 0;
        self.ack_now = true;
    }

    /// A heartbeat failed after it was sent, or was answered with a retriable error: the
    /// coordinator may have processed it and changed the assignment this member never saw. A streams group's coordinator
    /// sends the assignment only in the response to the heartbeat that changed it (or to a
    /// join): unlike a consumer group's, it does not send it again when asked with the
    /// previous epoch (`GroupMetadataManager.streamsGroupHeartbeat`, Kafka 4.4), so the member
    /// would keep heartbeating with tasks it was told to revoke, or without tasks it was given,
    /// until the next rebalance. Until a response carries the assignment again, the member asks
    /// for it with StreamsGroupDescribe ([`on_described`](Self::on_described)).
    pub(crate) fn response_lost(&mut self) {
        if self.epoch > 0 {
            self.assignment_unknown = true;
        }
    }

    /// Whether the member must learn its assignment by describing the group (see
    /// [`response_lost`](Self::response_lost)).
    pub(crate) fn assignment_unknown(&self) -> bool {
        self.assignment_unknown && self.epoch > 0
    }

    /// The assignment cannot be learned (the group may not be described): the member goes on
    /// with what it knows until a response carries tasks again.
    pub(crate) fn assignment_given_up(&mut self) {
        self.assignment_unknown = false;
    }

    /// The coordinator described this member at `member_epoch` with `assignment` (what a lost
    /// heartbeat response carried): reconciles with it as with a response's tasks. Ignored
    /// unless the epoch is this member's (the description raced a change the next heartbeat
    /// response reports).
    pub(crate) fn on_described(
        &mut self,
        member_epoch: i32,
        assignment: &crate::protocol::describe::Assignment,
    ) -> Result<Vec<MemberEvent>, GroupError> {
        let mut events = Vec::new();
        if !self.assignment_unknown || member_epoch != self.epoch {
            return Ok(events);
        }
        let target = Assignment {
            active: task::from_wire(self.topology, &assignment.active_tasks)
                .map_err(GroupError::InvalidTopologyInfo)?,
            standby: task::from_wire(self.topology, &assignment.standby_tasks)
                .map_err(GroupError::InvalidTopologyInfo)?,
            warmup: task::from_wire(self.topology, &assignment.warmup_tasks)
                .map_err(GroupError::InvalidTopologyInfo)?,
        };
        self.assignment_unknown = false;
        if target != self.target {
            tracing::info!(
                group = %self.id.group_id, member = %self.id.member_id, epoch = self.epoch,
                active = %task::display(&target.active),
                "a lost heartbeat response changed this member's tasks; taking the assignment the coordinator describes"
            );
            self.target = target;
            self.reconcile(&mut events);
        }
        Ok(events)
    }

    /// Digests a heartbeat response.
    pub(crate) fn on_response(
        &mut self,
        resp: StreamsGroupHeartbeatResponse,
    ) -> (Vec<MemberEvent>, Outcome) {
        let mut events = Vec::new();
        if resp.error_code != 0 {
            self.sent_offsets = None;
            let outcome = self.on_error(resp.error_code, resp.error_message, &mut events);
            if matches!(outcome, Outcome::Retry { .. }) {
                // An error does not say that the coordinator ignored the heartbeat: when its
                // write of a new assignment times out (Kafka 4.4's `CoordinatorRuntime` fails
                // the write event after 5 s; the member gets COORDINATOR_NOT_AVAILABLE), it keeps
                // the assignment and commits it once the replicas catch up, and never sends it
                // again. As after a lost response, the member describes the group to learn it.
                self.response_lost();
            }
            return (events, outcome);
        }
        self.ack_now = false;
        if resp.member_epoch != self.epoch {
            tracing::debug!(
                group = %self.id.group_id, member = %self.id.member_id,
                from = self.epoch, to = resp.member_epoch, "member epoch changed"
            );
        }
        self.epoch = resp.member_epoch;
        if resp.heartbeat_interval_ms > 0 {
            self.heartbeat_interval = Duration::from_millis(resp.heartbeat_interval_ms as u64);
        }
        if resp.task_offset_interval_ms > 0 {
            self.task_offset_interval = Duration::from_millis(resp.task_offset_interval_ms as u64);
        }
        self.endpoint_epoch = resp.endpoint_information_epoch;
        if let Some(statuses) = resp.status {
            self.on_statuses(statuses, &mut events);
        }
        if resp.active_tasks.is_some()
            || resp.standby_tasks.is_some()
            || resp.warmup_tasks.is_some()
        {
            let convert =
                |wire: &Option<Vec<crate::protocol::TaskIds>>, current: &TaskSet| match wire {
                    Some(w) => task::from_wire(self.topology, w),
                    None => Ok(current.clone()),
                };
            let target = (|| -> Result<Assignment, String> {
                Ok(Assignment {
                    active: convert(&resp.active_tasks, &self.target.active)?,
                    standby: convert(&resp.standby_tasks, &self.target.standby)?,
                    warmup: convert(&resp.warmup_tasks, &self.target.warmup)?,
                })
            })();
            match target {
                Ok(target) => self.target = target,
                Err(e) => return (events, Outcome::Fatal(GroupError::InvalidTopologyInfo(e))),
            }
            // The coordinator sends all three lists together: the assignment is known again.
            self.assignment_unknown = false;
            self.reconcile(&mut events);
        }
        (events, Outcome::Continue)
    }

    /// The owner released these tasks (after a revocation or a loss).
    pub(crate) fn release(&mut self, tasks: &[task::TaskId]) -> Vec<MemberEvent> {
        let mut events = Vec::new();
        let mut released = false;
        for t in tasks {
            if self.awaiting_release.remove(t) {
                self.owned.active.remove(t);
                released = true;
            }
        }
        if !released || !self.awaiting_release.is_empty() {
            return events;
        }
        if self.rejoin_after_release {
            tracing::info!(group = %self.id.group_id, member = %self.id.member_id, "lost tasks dropped; rejoining with epoch 0");
            self.rejoin_after_release = false;
            self.epoch = 0;
            self.ack_now = true;
        } else {
            self.ack_now = true;
            self.reconcile(&mut events);
        }
        events
    }

    fn reconcile(&mut self, events: &mut Vec<MemberEvent>) {
        let revoked: TaskSet = self
            .owned
            .active
            .difference(&self.target.active)
            .filter(|t| !self.awaiting_release.contains(t))
            .copied()
            .collect();
        if !revoked.is_empty() {
            tracing::info!(group = %self.id.group_id, member = %self.id.member_id, tasks = %task::display(&revoked), "tasks revoked; waiting for the owner to release them");
            self.awaiting_release.extend(revoked.iter().copied());
            events.push(MemberEvent::Revoked(revoked.into_iter().collect()));
        }
        let added = |target: &TaskSet, owned: &TaskSet, awaiting: &TaskSet| -> Vec<task::TaskId> {
            target
                .difference(owned)
                .filter(|t| !awaiting.contains(t))
                .copied()
                .collect()
        };
        let active = added(
            &self.target.active,
            &self.owned.active,
            &self.awaiting_release,
        );
        let standby = added(&self.target.standby, &self.owned.standby, &TaskSet::new());
        let warmup = added(&self.target.warmup, &self.owned.warmup, &TaskSet::new());
        let standby_changed = self.owned.standby != self.target.standby;
        let warmup_changed = self.owned.warmup != self.target.warmup;
        // Standby tasks are taken on (and dropped) by the owner as it sees the owned set change;
        // nothing waits for it (the coordinator hands standbys out without revocations), so they
        // are acknowledged as they come and go. Warm-up tasks (none in Kafka 4.4) likewise.
        self.owned.standby = self.target.standby.clone();
        self.owned.warmup = self.target.warmup.clone();
        if !active.is_empty() || !standby.is_empty() || !warmup.is_empty() {
            self.owned.active.extend(active.iter().copied());
            tracing::info!(
                group = %self.id.group_id, member = %self.id.member_id, epoch = self.epoch,
                active = %task::display(&active.iter().copied().collect()),
                standby = standby.len(), warmup = warmup.len(), "tasks assigned"
            );
            events.push(MemberEvent::Assigned {
                active,
                standby,
                warmup,
            });
            self.ack_now = true;
        } else if standby_changed || warmup_changed {
            self.ack_now = true;
        }
    }

    fn on_statuses(
        &mut self,
        wire: Vec<crate::protocol::heartbeat::Status>,
        events: &mut Vec<MemberEvent>,
    ) {
        let statuses: Vec<GroupStatus> = wire
            .into_iter()
            .map(|s| GroupStatus {
                code: StatusCode::from_code(s.status_code),
                detail: s.status_detail,
            })
            .collect();
        if self.statuses.as_ref() == Some(&statuses) {
            return;
        }
        for s in &statuses {
            let (group, member) = (&self.id.group_id, &self.id.member_id);
            match s.code {
                StatusCode::MissingSourceTopics
                | StatusCode::IncorrectlyPartitionedTopics
                | StatusCode::ShutdownApplication
                | StatusCode::StaleTopology
                | StatusCode::MissingClientTags => {
                    tracing::warn!(%group, %member, "streams group status {:?}: {}", s.code, s.detail)
                }
                StatusCode::MissingInternalTopics
                | StatusCode::AssignmentDelayed
                | StatusCode::Unknown(_) => {
                    tracing::info!(%group, %member, "streams group status {:?}: {}", s.code, s.detail)
                }
            }
        }
        if statuses.is_empty() && self.statuses.is_some() {
            tracing::info!(group = %self.id.group_id, member = %self.id.member_id, "streams group statuses cleared");
        }
        self.statuses = Some(statuses.clone());
        events.push(MemberEvent::Status(statuses));
    }

    fn on_error(
        &mut self,
        code: i16,
        message: Option<String>,
        events: &mut Vec<MemberEvent>,
    ) -> Outcome {
        let message = message.unwrap_or_default();
        let group = self.id.group_id.clone();
        let name = error_name(code);
        let Some(error) = ResponseError::try_from_code(code) else {
            return Outcome::Continue;
        };
        match error {
            ResponseError::FencedMemberEpoch | ResponseError::UnknownMemberId => {
                self.fenced(&name, &message, events);
                Outcome::Continue
            }
            // A group that vanished (deleted while this member was away) is rejoined. Joining
            // (epoch 0) creates a missing streams group, so the code while joining means the id
            // belongs to a group of another type (Kafka's "Group … is not a streams group.").
            ResponseError::GroupIdNotFound if self.epoch != 0 => {
                self.fenced(&name, &message, events);
                Outcome::Continue
            }
            ResponseError::GroupIdNotFound => {
                Outcome::Fatal(GroupError::GroupIdInUse { group, message })
            }
            ResponseError::NotCoordinator | ResponseError::CoordinatorNotAvailable => {
                Outcome::Retry {
                    rediscover: true,
                    reason: name,
                }
            }
            ResponseError::CoordinatorLoadInProgress | ResponseError::RequestTimedOut => {
                Outcome::Retry {
                    rediscover: false,
                    reason: name,
                }
            }
            // The only request field a correct member can get wrong is the topology of its
            // join: Kafka 4.4 refuses a changed topology with INVALID_REQUEST ("Topology updates
            // are not supported yet."); the broker's message goes with the error.
            ResponseError::InvalidRequest if self.epoch == 0 => {
                Outcome::Fatal(GroupError::TopologyChanged {
                    application_id: group,
                    broker_message: message,
                    differences: String::new(),
                })
            }
            ResponseError::StreamsInvalidTopology
            | ResponseError::StreamsInvalidTopologyEpoch
            | ResponseError::StreamsTopologyFenced => Outcome::Fatal(GroupError::InvalidTopology {
                application_id: group,
                message: format!("{name}: {message}"),
            }),
            ResponseError::GroupAuthorizationFailed
            | ResponseError::TopicAuthorizationFailed
            | ResponseError::ClusterAuthorizationFailed => {
                Outcome::Fatal(GroupError::NotAuthorized {
                    group,
                    code: name,
                    message,
                })
            }
            ResponseError::GroupMaxSizeReached => {
                Outcome::Fatal(GroupError::GroupFull { group, message })
            }
            // Any other code Kafka marks retriable (a request timing out on the broker, not
            // enough replicas for the group's record while brokers restart) is retried. Kafka
            // Streams 4.4 stops on every code its heartbeat manager does not list; a cluster
            // coming back from a full outage can answer such codes for a moment.
            other if other.is_retriable() => Outcome::Retry {
                rediscover: false,
                reason: name,
            },
            _ => Outcome::Fatal(GroupError::Rejected {
                api: "StreamsGroupHeartbeat",
                group,
                code: name,
                message,
            }),
        }
    }

    fn fenced(&mut self, name: &str, message: &str, events: &mut Vec<MemberEvent>) {
        let lost: TaskSet = self
            .owned
            .active
            .union(&self.awaiting_release)
            .copied()
            .collect();
        tracing::warn!(
            group = %self.id.group_id, member = %self.id.member_id, epoch = self.epoch,
            lost = %task::display(&lost), "fenced by the coordinator ({name}: {message}); dropping tasks and rejoining"
        );
        self.owned = Assignment::default();
        self.target = Assignment::default();
        if lost.is_empty() {
            self.epoch = 0;
            self.ack_now = true;
        } else {
            // Keep the lost tasks as owned until the owner dropped them: nothing is reported
            // while fenced, and the rejoin waits for the release.
            self.owned.active = lost.clone();
            self.awaiting_release = lost.clone();
            self.rejoin_after_release = true;
            events.push(MemberEvent::Lost(lost.into_iter().collect()));
        }
    }
}

#[cfg(test)]
mod tests;
