//! The coordinator connection and the streams-group membership state machine (KIP-1071).
//!
//! Each processing thread of the runtime is one member of the application's streams group. A
//! member is joined with [`MemberHandle::join`], which finds the group coordinator (ApiVersions,
//! FindCoordinator for the application id, following NOT_COORDINATOR and
//! COORDINATOR_NOT_AVAILABLE with backoff), sends the topology, and spawns a tokio task that
//! heartbeats at the interval the coordinator asks for. The owner learns about its tasks through
//! [`MemberEvent`]s:
//!
//! - [`MemberEvent::Assigned`]: start (restore, then process) these tasks.
//! - [`MemberEvent::Revoked`]: commit and close these tasks, then [`MemberHandle::release`] them;
//!   the coordinator hands them on only after that.
//! - [`MemberEvent::Lost`]: the member was fenced; drop these tasks without committing, then
//!   release them; the member rejoins (epoch 0, same member id).
//! - [`MemberEvent::Status`]: missing source topics, internal topics being created, incorrectly
//!   partitioned topics, assignment delayed: conditions reported by the coordinator, not failures.
//!
//! **A lost response.** A streams group's coordinator sends a member its tasks only in the
//! response to the heartbeat that changed them (or to a join): asked again with the previous
//! epoch, it accepts the member and answers without tasks (Kafka 4.4,
//! `GroupMetadataManager.streamsGroupHeartbeat`; a consumer group's coordinator resends them to
//! a "full" request, a streams group's does not). A response lost with its connection (the
//! coordinator's broker killed right after it stored the new assignment) would leave the member
//! holding revoked tasks until its rebalance timeout, or leave tasks given to it unprocessed
//! until the next rebalance. So after a heartbeat that failed once sent, the member describes
//! the group (StreamsGroupDescribe, on its coordinator connection) and reconciles with the
//! assignment described for it, as if the response had arrived.
//!
//! A fatal answer (a changed topology, authorization, an unsupported broker…) ends the member
//! with a [`GroupError`] whose message says what to do. [`MemberHandle::close`] leaves the group
//! (epoch -1) so the tasks move at once.
//!
//! **Standby tasks** (assigned when the group's `streams.num.standby.replicas`, set with
//! [`set_standby_replicas`], is above 0) are acknowledged as they come and go, without events for
//! removals: the owner reads [`MemberHandle::assignment`] to follow them, keeps their state (the
//! runtime's `standby` module explains what Kafka 4.4's broker does with them) and reports their
//! changelog offsets with [`MemberHandle::report_task_offsets`]; the heartbeats carry them as
//! `TaskOffsets`/`TaskEndOffsets` the way Kafka Streams 4.4 sends them. **Warm-up tasks** are
//! acknowledged, not maintained: Kafka 4.4 assigns none.
//!
//! ```no_run
//! # use dekaf_streams::group::{MemberConfig, MemberEvent, MemberHandle};
//! # async fn demo(topology: &'static dekaf_streams::topology::TopologyInfo) -> Result<(), dekaf_streams::group::GroupError> {
//! let mut member = MemberHandle::join(topology, MemberConfig::new("127.0.0.1:9092")).await?;
//! loop {
//!     while let Some(event) = member.try_next_event()? {
//!         match event {
//!             MemberEvent::Assigned { active, .. } => { /* open `active` */ }
//!             MemberEvent::Revoked(tasks) => { /* commit, close */ member.release(tasks) }
//!             MemberEvent::Lost(tasks) => { /* drop, no commit */ member.release(tasks) }
//!             MemberEvent::Status(_) => {}
//!         }
//!     }
//!     // … process records, commit with member.member_id() and member.member_epoch() …
//! #   break;
//! }
//! member.close().await
//! # }
//! ```

// Without the `kafka` feature nothing runs a member (the module still compiles, so the codec and
// the membership state machine are unit-tested without librdkafka).
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

mod authenticate;
mod configs;
pub(crate) mod connection;
pub(crate) mod coordinator;
mod delete;
mod describe;
mod error;
mod events;
mod java_order;
mod member;
mod poll_watch;
mod state;
mod task;
mod topology;
mod topology_diff;

#[cfg(feature = "kafka")]
pub(crate) use authenticate::check_credentials;
pub use configs::{STANDBY_REPLICAS_CONFIG, alter_group_configs, set_standby_replicas};
pub use connection::BrokerConnection;
pub use coordinator::{CoordinatorConfig, connect_to_coordinator};
pub use delete::{Deletion, delete_group};
pub use describe::{describe_streams_group, describe_streams_group_if_exists};
pub use error::GroupError;
pub use events::{GroupStatus, MemberEvent, StatusCode};
pub use member::{DEFAULT_REBALANCE_TIMEOUT, MemberConfig, MemberHandle};
#[cfg(feature = "kafka")]
pub(crate) use poll_watch::touch_current as touch_poll_watch;
pub use poll_watch::{DEFAULT_MAX_POLL_INTERVAL, Phase, PollWatch};
pub use task::{Assignment, TaskId, TaskOffsets, TaskSet};
