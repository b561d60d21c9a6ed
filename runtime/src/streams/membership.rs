//! The processing thread's side of its streams-group member: events, releases, its identity for
//! transactional commits, and at-least-once offset commits.

use rdkafka::TopicPartitionList;

use super::error::StreamsError;
use super::offset_commit::{OffsetCommitError, OffsetCommitter};
use super::thread::ThreadContext;
use crate::group::coordinator::CoordinatorConfig;
use crate::group::{MemberConfig, MemberEvent, MemberHandle, TaskId};
use crate::kafka::txn_offsets::MemberIdentity;
use crate::task::Topology;

/// A joined member and its offset committer.
pub(crate) struct Membership {
    handle: Option<MemberHandle>,
    committer: OffsetCommitter,
}

impl Membership {
    /// Joins the group of topology `T` as thread `ctx.index` of process `ctx.process_id`.
    pub(crate) async fn join<T: Topology>(ctx: &ThreadContext) -> Result<Membership, StreamsError> {
        let servers = ctx.config.settings.bootstrap_servers().to_owned();
        let mut config = MemberConfig::new(servers.clone());
        config.process_id = ctx.process_id.to_string();
        config.client_id = format!("{}-{}", T::APPLICATION_ID, ctx.index);
        config.rebalance_timeout = ctx.config.rebalance_timeout;
        // Checked by `build()`; the TLS files are read again here.
        config.security = ctx.config.settings.connection_security()?;
        let config_security = config.security.clone();
        let handle = MemberHandle::join(T::INFO, config).await?;
        tracing::info!(member_id = handle.member_id(), "joined the streams group");
        Ok(Membership {
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

    /// Leaves the group (epoch -1), so the tasks move at once.
    pub(crate) async fn leave(&mut self) {
        if let Some(handle) = self.handle.take()
            && let Err(e) = handle.close().await
        {
            tracing::warn!(error = %e, "leaving the group failed; the coordinator frees the tasks after the session timeout");
        }
    }
}
