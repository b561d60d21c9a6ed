//! The processing thread's side of its streams-group member: events, releases, its identity for
//! transactional commits, and at-least-once offset commits.

use std::sync::atomic::Ordering;

use rdkafka::TopicPartitionList;

use super::context::ThreadContext;
use super::error::StreamsError;
use super::offset_commit::{OffsetCommitError, OffsetCommitter};
use crate::group::coordinator::CoordinatorConfig;
use crate::group::{
    Assignment, GroupError, MemberConfig, MemberEvent, MemberHandle, Phase, PollWatch, TaskId,
    TaskOffsets,
};
use crate::kafka::txn_offsets::MemberIdentity;
use crate::task::Topology;

/// A joined member and its offset committer.
pub(crate) struct Membership {
    /// When the thread last came back to its loop (see [`crate::group::PollWatch`]).
    poll_watch: PollWatch,
    handle: Option<MemberHandle>,
    committer: OffsetCommitter,
}

impl Membership {
    /// Joins the group of topology `T` as thread `ctx.index` of process `ctx.process_id`.
    pub(crate) async fn join<T: Topology>(ctx: &ThreadContext) -> Result<Membership, StreamsError> {
        let servers = ctx.config.settings.bootstrap_servers().to_owned();
        let mut config = MemberConfig::new(servers.clone());
        config.process_id = ctx.process_id.to_string();
        // A dynamic member's id is the same every time this thread of this instance starts (the
        // process id persists in the state directory), so a restart after a crash rejoins as the
        // member the coordinator still holds: epoch 0 from a known member id is a rejoin, and the
        // coordinator answers at once with that member's tasks instead of waiting out its session
        // timeout before moving them (see `thread_member_id`). A static member keeps a fresh id:
        // its instance id already identifies it across restarts.
        if ctx.config.group_instance_id.is_none() {
            config.member_id = thread_member_id(&ctx.process_id, ctx.index, ctx.generation);
        }
        config.client_id = format!("{}-{}", T::APPLICATION_ID, ctx.index);
        config.rebalance_timeout = ctx.config.rebalance_timeout;
        config.internal_topics = ctx.config.internal_topics.clone();
        // Checked by `build()`; the TLS files are read again here.
        config.security = ctx.config.settings.connection_security()?;
        let config_security = config.security.clone();
        // Interactive queries: the instance's endpoint, and where the group's endpoints go.
        config.user_endpoint = ctx
            .config
            .application_server
            .as_deref()
            .and_then(crate::query::HostInfo::parse)
            .map(|h| (h.host, h.port));
        config.endpoints = Some(std::sync::Arc::clone(&ctx.queries));
        let poll_watch = PollWatch::new(ctx.config.max_poll_interval);
        config.poll_watch = Some(poll_watch.clone());
        config.shutdown_request = Some(std::sync::Arc::clone(&ctx.lifecycle.shutdown_application));
        config.instance_id = ctx
            .config
            .group_instance_id
            .as_ref()
            .map(|id| thread_instance_id(id, ctx.index));
        // Brokers can all be down between the instance's start and this thread's join: keep
        // trying (logging) until they are back or the application stops.
        let handle = loop {
            match MemberHandle::join(T::INFO, config.clone()).await {
                Err(GroupError::NoBroker {
                    bootstrap,
                    waited,
                    last_error,
                }) if !ctx.stop.load(Ordering::Relaxed) => {
                    tracing::warn!(
                        ?waited,
                        "joining the streams group: no broker at {bootstrap} answered ({last_error}); \
                         waiting for the cluster"
                    );
                }
                joined => break joined?,
            }
        };
        tracing::info!(member_id = handle.member_id(), "joined the streams group");
        Ok(Membership {
            poll_watch,
            handle: Some(handle),
            committer: OffsetCommitter::new(
                CoordinatorConfig {
                    security: config_security,
                    ..CoordinatorConfig::new(&servers, T::APPLICATION_ID)
                },
                T::APPLICATION_ID,
            ),
        })
    }

    /// The thread came back to its loop (it polls): one atomic store. Also makes the watch the
    /// one the runtime's long waits on this thread touch.
    #[inline]
    pub(crate) fn polled(&self) {
        self.poll_watch.touch();
        self.poll_watch.set_phase(Phase::Processing);
    }

    /// The thread now does `phase` (named if it stays away from its loop): one atomic store.
    #[inline]
    pub(crate) fn doing(&self, phase: Phase) {
        self.poll_watch.set_phase(phase);
    }

    /// Makes this member's watch the one touched by the runtime's own long waits on the calling
    /// thread (restores, lookups retried while a broker restarts).
    pub(crate) fn install_poll_watch(&self) {
        self.poll_watch.install();
    }

    /// Whether the member left the group because the thread stayed away from its loop too long
    /// (`max_poll_interval`): its tasks belong to others now, so nothing may be committed.
    pub(crate) fn poll_expired(&self) -> bool {
        self.poll_watch.expired()
    }

    /// Takes note of [`poll_expired`](Self::poll_expired), clearing it.
    pub(crate) fn take_poll_expired(&self) -> bool {
        self.poll_watch.take_expired()
    }

    /// The next event, if one is waiting; a fatal group error ends the thread. After
    /// [`leave`](Self::leave) there are none.
    pub(crate) fn try_event(&mut self) -> Result<Option<MemberEvent>, StreamsError> {
        match self.handle.as_mut() {
            Some(handle) => Ok(handle.try_next_event()?),
            None => Ok(None),
        }
    }

    /// Tells the member these tasks are closed (revoked) or dropped (lost).
    pub(crate) fn release(&mut self, tasks: &[TaskId]) {
        if let Some(handle) = self.handle.as_mut() {
            handle.release(tasks.iter().copied());
        }
    }

    /// The tasks the member owns (reports to the coordinator), by kind.
    pub(crate) fn assignment(&self) -> Assignment {
        self.handle
            .as_ref()
            .map(MemberHandle::assignment)
            .unwrap_or_default()
    }

    /// Hands the standbys' offsets to the member, for its heartbeats.
    pub(crate) fn report_task_offsets(&self, offsets: TaskOffsets) {
        if let Some(handle) = self.handle.as_ref() {
            handle.report_task_offsets(offsets);
        }
    }

    /// Has the member forget its tasks and rejoin: the owner dropped them all after the
    /// coordinator fenced a commit.
    pub(crate) fn rejoin(&mut self) {
        if let Some(handle) = self.handle.as_mut() {
            handle.rejoin();
        }
    }

    /// Who commits offsets in a transaction: the group, this member and its current epoch
    /// (epoch -1 after [`leave`](Self::leave), which no coordinator accepts).
    pub(crate) fn identity(&self) -> MemberIdentity {
        match self.handle.as_ref() {
            Some(handle) => MemberIdentity {
                group_id: handle.group_id().to_owned(),
                member_id: handle.member_id().to_owned(),
                member_epoch: handle.member_epoch(),
            },
            None => MemberIdentity {
                group_id: String::new(),
                member_id: String::new(),
                member_epoch: -1,
            },
        }
    }

    /// Commits offsets without a transaction (at-least-once), with the member's epoch.
    pub(crate) async fn commit_offsets(
        &mut self,
        offsets: &TopicPartitionList,
    ) -> Result<(), OffsetCommitError> {
        let identity = self.identity();
        self.committer
            .commit(&identity.member_id, identity.member_epoch, offsets)
            .await
    }

    /// Leaves the group: epoch -1, so the tasks move at once, or epoch -2 for a static member,
    /// whose tasks wait for it for the session timeout.
    pub(crate) async fn leave(&mut self) {
        if let Some(handle) = self.handle.take()
            && let Err(e) = handle.close().await
        {
            tracing::warn!(error = %e, "leaving the group failed; the coordinator frees the tasks after the session timeout");
        }
    }
}

/// The member id of thread `index` (from 0) of process `process_id`: `<process id>-<index>`, like
/// the thread's transactional id, so it is unique in the group and the same across restarts on
/// one state directory.
///
/// Kafka Streams 4.4 draws a new member id per start (`StreamsMembershipManager`:
/// `Uuid.randomUuid()`), so a member restarted after a SIGKILL is a stranger to the coordinator:
/// the dead member keeps its tasks until its session times out (`streams.session.timeout.ms`,
/// 45 s by default) and only then are they assigned again. Kafka's coordinator takes a heartbeat
/// at epoch 0 from a member id it knows as that member rejoining (KIP-848; `GroupMetadataManager`
/// keeps the member and answers with its current assignment), so a restart with the same id
/// gets the tasks back in its first heartbeat. Two processes never share the id: the process id
/// comes from the state directory, which one process locks at a time, or is new per start.
///
/// A thread started again under the same number in one run of the instance (replacing a failed
/// one, or added after a removal) is `<process id>-<index>-<generation>`: the earlier thread's
/// member may still be leaving, and must not be taken for this one.
pub(crate) fn thread_member_id(process_id: &uuid::Uuid, index: usize, generation: u32) -> String {
    match generation {
        0 => format!("{process_id}-{index}"),
        g => format!("{process_id}-{index}-{g}"),
    }
}

/// The instance id of thread `index` (from 0) of a static instance: `<id>-<index + 1>`, as Kafka
/// Streams' `StreamsConfig` suffixes each thread's `group.instance.id` with its thread index.
pub(crate) fn thread_instance_id(id: &str, index: usize) -> String {
    format!("{id}-{}", index + 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_thread_keeps_its_member_id_across_starts_and_threads_differ() {
        let process = uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        let first = super::thread_member_id(&process, 0, 0);
        assert_eq!(first, "01234567-89ab-cdef-0123-456789abcdef-0");
        assert_eq!(first, super::thread_member_id(&process, 0, 0));
        assert_ne!(first, super::thread_member_id(&process, 1, 0));
        assert_eq!(
            super::thread_member_id(&process, 0, 2),
            "01234567-89ab-cdef-0123-456789abcdef-0-2",
            "a replacement is another member"
        );
    }

    #[test]
    fn threads_of_a_static_instance_get_numbered_instance_ids_from_one() {
        assert_eq!(super::thread_instance_id("billing-a", 0), "billing-a-1");
        assert_eq!(super::thread_instance_id("billing-a", 2), "billing-a-3");
    }
}
