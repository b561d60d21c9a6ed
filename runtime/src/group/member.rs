//! The member: a tokio task that heartbeats and a handle its owner polls.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::connection::BrokerConnection;
use super::coordinator::{Backoff, CoordinatorConfig, connect_to_coordinator};
use super::describe::describe_streams_group;
use super::error::GroupError;
use super::events::MemberEvent;
use super::poll_watch::PollWatch;
use super::state::{Identity, Membership, Outcome};
use super::task::{Assignment, TaskId, TaskOffsets};
use super::topology::heartbeat_topology;
use super::topology_diff::topology_differences;
use crate::protocol::Endpoint;
use crate::protocol::heartbeat::{
    self, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse,
};
use crate::topology::TopologyInfo;

/// How a member reaches the cluster and presents itself.
#[derive(Debug, Clone)]
pub struct MemberConfig {
    /// Comma-separated `host:port` list.
    pub bootstrap_servers: String,
    /// Client id of the member's requests (default `dekaf-streams`).
    pub client_id: String,
    /// The instance's process id, shared by all members of one instance (default: a new UUID).
    pub process_id: String,
    /// The member id (default: a new UUID). Keep it for the member's lifetime.
    pub member_id: String,
    /// The static instance id (`group.instance.id`), or `None` for a dynamic member (the
    /// default). A static member leaves with epoch -2: the coordinator keeps its tasks for the
    /// session timeout, and a member joining with the same instance id takes them over without
    /// moving any other member's tasks. Unique per member of the group.
    pub instance_id: Option<String>,
    /// How long the coordinator waits for revoked tasks to be released before fencing the
    /// member ([`DEFAULT_REBALANCE_TIMEOUT`] by default).
    pub rebalance_timeout: Duration,
    /// How long to look for the coordinator before failing (default 30 s).
    pub connect_timeout: Duration,
    /// How long one request may take (default 30 s).
    pub request_timeout: Duration,
    /// Endpoint for interactive queries, if any.
    pub user_endpoint: Option<(String, u16)>,
    /// The newest StreamsGroupHeartbeat version to use (default 1, the newest this crate
    /// speaks; Kafka 4.2 and 4.3 serve only 0, which is chosen automatically).
    pub max_heartbeat_version: i16,
    /// TLS and SASL of the coordinator connection (plaintext by default); made from the
    /// application's properties by `ClientSettings::connection_security`.
    pub security: crate::security::ConnectionSecurity,
    /// Where the group's partitions by user endpoint go when a heartbeat response carries them
    /// (interactive queries), if anywhere.
    pub(crate) endpoints: Option<Arc<crate::query::registry::Registry>>,
    /// When the owner last came back to its loop, and the bound on it (Kafka's
    /// `max.poll.interval.ms`): when the owner has not polled for that long, the member leaves
    /// the group (epoch -1, or -2 for a static member) so its tasks move, marks the watch
    /// expired, and waits for the owner's [`MemberHandle::rejoin`]. `None` (the default): no
    /// bound.
    pub poll_watch: Option<PollWatch>,
    /// The instance's request that the whole application shut down: while it is set, every
    /// heartbeat carries `ShutdownApplication` (KIP-1071), and the coordinator answers every
    /// member of the group with the `SHUTDOWN_APPLICATION` status. `None` (the default): never.
    pub shutdown_request: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// What the member declares for the internal topics the coordinator creates (replication
    /// factor, configs); Kafka Streams' defaults by default.
    pub internal_topics: crate::topology::InternalTopicSettings,
}

/// The rebalance timeout a member declares when joining: 30 s.
///
/// Kafka Streams sends its `max.poll.interval.ms` (300 s by default) here. A member of ours
/// releases revoked tasks after one commit and close, which the transaction timeout (10 s by
/// default) already bounds, so a member that has not released them after 30 s is stuck, and the
/// coordinator should fence it and move its tasks rather than let the group wait five minutes.
pub const DEFAULT_REBALANCE_TIMEOUT: Duration = Duration::from_secs(30);

impl MemberConfig {
    /// Defaults for the given bootstrap servers.
    pub fn new(bootstrap_servers: impl Into<String>) -> Self {
        MemberConfig {
            bootstrap_servers: bootstrap_servers.into(),
            client_id: "dekaf-streams".into(),
            process_id: uuid::Uuid::new_v4().to_string(),
            member_id: uuid::Uuid::new_v4().to_string(),
            instance_id: None,
            rebalance_timeout: DEFAULT_REBALANCE_TIMEOUT,
            connect_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(30),
            user_endpoint: None,
            max_heartbeat_version: heartbeat::MAX_VERSION,
            security: crate::security::ConnectionSecurity::default(),
            endpoints: None,
            poll_watch: None,
            shutdown_request: None,
            internal_topics: crate::topology::InternalTopicSettings::default(),
        }
    }
}

/// How long [`MemberHandle::close`] waits for the member to leave the group.
pub(super) const LEAVE_WAIT: Duration = Duration::from_secs(5);

enum Command {
    Release(Vec<TaskId>),
    Rejoin,
    TaskOffsets(TaskOffsets),
    Close(oneshot::Sender<()>),
}

/// GROUP_AUTHORIZATION_FAILED: the principal may not describe the group.
const GROUP_AUTHORIZATION_FAILED: i16 = 30;

#[derive(Debug, Default)]
struct Shared {
    epoch: AtomicI32,
    assignment: Mutex<Assignment>,
}

/// The owner's side of a streams-group member. The member heartbeats in a tokio task; the owner
/// polls events without blocking ([`try_next_event`](Self::try_next_event)) or awaits them
/// ([`next_event`](Self::next_event)), releases revoked and lost tasks, and closes the member
/// (leaving the group) when done. Dropping the handle leaves the group too, in the background.
#[derive(Debug)]
pub struct MemberHandle {
    member_id: String,
    group_id: String,
    shared: Arc<Shared>,
    events: mpsc::UnboundedReceiver<Result<MemberEvent, GroupError>>,
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Release(t) => f.debug_tuple("Release").field(t).finish(),
            Command::Rejoin => f.write_str("Rejoin"),
            Command::TaskOffsets(o) => f.debug_tuple("TaskOffsets").field(o).finish(),
            Command::Close(_) => f.write_str("Close"),
        }
    }
}

/// A refused changed topology with what differs from the group's stored one: the coordinator
/// only says "Topology updates are not supported yet", so the group is described and compared
/// (best effort: if that fails too, the error goes on without the differences).
async fn with_differences(
    error: GroupError,
    coordinator: &CoordinatorConfig,
    declared: &heartbeat::Topology,
) -> GroupError {
    let GroupError::TopologyChanged {
        application_id,
        broker_message,
        differences,
    } = error
    else {
        return error;
    };
    let described = tokio::time::timeout(
        coordinator.request_timeout,
        describe_streams_group(coordinator, &application_id),
    )
    .await;
    let differences = match described {
        Ok(Ok(group)) => match group.topology {
            Some(stored) => {
                let found = topology_differences(declared, &stored);
                if found.is_empty() {
                    differences
                } else {
                    format!("Differences: {}. ", found.join("; "))
                }
            }
            None => differences,
        },
        Ok(Err(e)) => {
            tracing::debug!(group = %application_id, "describing the group to name the topology differences failed: {e}");
            differences
        }
        Err(_) => differences,
    };
    GroupError::TopologyChanged {
        application_id,
        broker_message,
        differences,
    }
}

impl MemberHandle {
    /// Joins the streams group of `topology.application_id` with `topology`: finds the
    /// coordinator, sends the join heartbeat, and returns once the coordinator accepted the
    /// member (the assignment then arrives as events). Fails with the typed error when no broker
    /// answers within `config.connect_timeout` or the coordinator refuses the member (for
    /// example [`GroupError::TopologyChanged`]).
    pub async fn join(
        topology: &'static TopologyInfo,
        config: MemberConfig,
    ) -> Result<MemberHandle, GroupError> {
        let wire = heartbeat_topology(topology, &config.internal_topics)?;
        let identity = Identity {
            group_id: topology.application_id.to_owned(),
            member_id: config.member_id.clone(),
            process_id: config.process_id.clone(),
            instance_id: config.instance_id.clone(),
            rebalance_timeout_ms: i32::try_from(config.rebalance_timeout.as_millis())
                .unwrap_or(i32::MAX),
            user_endpoint: config.user_endpoint.as_ref().map(|(host, port)| Endpoint {
                host: host.clone(),
                port: *port,
            }),
            shutdown_request: config.shutdown_request.clone(),
        };
        let mut coordinator = CoordinatorConfig::new(&config.bootstrap_servers, &config.client_id);
        coordinator.connect_timeout = config.connect_timeout;
        coordinator.request_timeout = config.request_timeout;
        coordinator.security = config.security.clone();
        let shared = Arc::new(Shared::default());
        let (event_tx, event_rx) = mpsc::unbounded_channel();
        let (command_tx, command_rx) = mpsc::unbounded_channel();
        let declared = wire.clone();
        let mut driver = Driver {
            membership: Membership::new(topology, wire, identity),
            conn: None,
            version: heartbeat::MIN_VERSION,
            max_version: config
                .max_heartbeat_version
                .clamp(heartbeat::MIN_VERSION, heartbeat::MAX_VERSION),
            coordinator,
            shared: Arc::clone(&shared),
            events: event_tx,
            backoff: Backoff::new(),
            not_before: Instant::now(),
            next_beat: Instant::now(),
            endpoints: config.endpoints.clone(),
            poll: config.poll_watch.clone(),
            left_for_poll: false,
            warned_for_poll: None,
            owner: config.client_id.clone(),
        };
        match driver.join(config.connect_timeout).await {
            Ok(()) => {}
            Err(e) => return Err(with_differences(e, &driver.coordinator, &declared).await),
        }
        let task = tokio::spawn(driver.run(command_rx));
        Ok(MemberHandle {
            member_id: config.member_id,
            group_id: topology.application_id.to_owned(),
            shared,
            events: event_rx,
            commands: command_tx,
            task: Some(task),
        })
    }

    /// The member id (constant for the member's lifetime).
    pub fn member_id(&self) -> &str {
        &self.member_id
    }

    /// The group id (the application id).
    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    /// The current member epoch, as transactional offset commits must carry it (0 while
    /// joining, -1 after leaving).
    pub fn member_epoch(&self) -> i32 {
        self.shared.epoch.load(Ordering::Acquire)
    }

    /// The tasks the member currently reports as owned.
    pub fn assignment(&self) -> Assignment {
        self.shared
            .assignment
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The next event if one is ready, without waiting. `Err` when the member failed (the error
    /// comes once) or has stopped ([`GroupError::Stopped`]).
    pub fn try_next_event(&mut self) -> Result<Option<MemberEvent>, GroupError> {
        match self.events.try_recv() {
            Ok(event) => event.map(Some),
            Err(mpsc::error::TryRecvError::Empty) => Ok(None),
            Err(mpsc::error::TryRecvError::Disconnected) => Err(GroupError::Stopped),
        }
    }

    /// Waits for the next event. Cancel-safe.
    pub async fn next_event(&mut self) -> Result<MemberEvent, GroupError> {
        match self.events.recv().await {
            Some(event) => event,
            None => Err(GroupError::Stopped),
        }
    }

    /// Tells the member that the owner has committed and closed (after [`MemberEvent::Revoked`])
    /// or dropped (after [`MemberEvent::Lost`]) these tasks. Once every revoked task is released
    /// the member reports it to the coordinator at once.
    pub fn release(&self, tasks: impl IntoIterator<Item = TaskId>) {
        let tasks: Vec<TaskId> = tasks.into_iter().collect();
        // A closed channel means the member has stopped: nothing to release to.
        let _ = self.commands.send(Command::Release(tasks));
    }

    /// Tells the member what state its owner holds for tasks it does not run (standbys): the
    /// heartbeat reports these offset sums to the coordinator, whose assignor ranks standby
    /// candidates by them (see the runtime's `standby` module).
    pub fn report_task_offsets(&self, offsets: TaskOffsets) {
        // A closed channel means the member has stopped: nothing to report to.
        let _ = self.commands.send(Command::TaskOffsets(offsets));
    }

    /// Tells the member that the owner dropped every task because the coordinator fenced it at
    /// commit time (a transactional or plain offset commit answered `UNKNOWN_MEMBER_ID` or
    /// `FENCED_MEMBER_EPOCH`). The member forgets its tasks and rejoins
    /// with epoch 0 and the same member id, so the coordinator hands it a fresh assignment, as
    /// Kafka Streams rejoins after a `TaskMigratedException`. Without this the member would go
    /// on reporting tasks its owner no longer runs, and nobody would process them.
    pub fn rejoin(&self) {
        // A closed channel means the member has stopped: nothing to rejoin.
        let _ = self.commands.send(Command::Rejoin);
    }

    /// Leaves the group (epoch -1) and stops the member. Call it after the owner committed and
    /// closed its tasks: the coordinator hands them to other members at once.
    ///
    /// Leaving is best effort and takes at most 5 s: while the cluster is unreachable
    /// the heartbeat loop may be inside a coordinator lookup of up to `connect_timeout` (30 s),
    /// and a shutdown must not wait for it. The member is then stopped without leaving; the
    /// coordinator removes it after the session timeout.
    pub async fn close(mut self) -> Result<(), GroupError> {
        let (tx, rx) = oneshot::channel();
        let left = if self.commands.send(Command::Close(tx)).is_ok() {
            tokio::time::timeout(LEAVE_WAIT, rx).await.is_ok()
        } else {
            true
        };
        if let Some(task) = self.task.take() {
            if left {
                let _ = task.await;
            } else {
                tracing::warn!(group = %self.group_id, member = %self.member_id, "could not leave the group within {LEAVE_WAIT:?} (is the cluster reachable?); stopping without leaving: the coordinator frees the tasks after the session timeout");
                task.abort();
            }
        }
        Ok(())
    }
}

/// The heartbeat loop's state.
struct Driver {
    membership: Membership,
    conn: Option<BrokerConnection>,
    version: i16,
    max_version: i16,
    coordinator: CoordinatorConfig,
    shared: Arc<Shared>,
    events: mpsc::UnboundedSender<Result<MemberEvent, GroupError>>,
    backoff: Backoff,
    /// No request before this instant (backoff after errors).
    not_before: Instant,
    /// The next regular heartbeat.
    next_beat: Instant,
    /// Where partitions by user endpoint go (interactive queries).
    endpoints: Option<Arc<crate::query::registry::Registry>>,
    /// When the owner last polled, and the bound on it.
    poll: Option<PollWatch>,
    /// The member left because the owner did not poll in time: no heartbeats until the owner
    /// asks to rejoin.
    left_for_poll: bool,
    /// The owner's last poll the member warned about (an absence past a fifth of the bound).
    warned_for_poll: Option<std::time::Instant>,
    /// The owner's name for the log (its client id: the processing thread's name).
    owner: String,
}

impl Driver {
    fn group(&self) -> &str {
        self.membership.group_id()
    }

    async fn ensure_connected(&mut self) -> Result<(), GroupError> {
        if self.conn.is_some() {
            return Ok(());
        }
        let conn = connect_to_coordinator(&self.coordinator, self.membership.group_id()).await?;
        self.version = conn
            .pick_version(
                heartbeat::API_KEY,
                (heartbeat::MIN_VERSION, self.max_version),
            )
            .unwrap_or(heartbeat::MIN_VERSION);
        tracing::debug!(group = %self.group(), coordinator = conn.addr(), version = self.version, "connected to the group coordinator");
        self.conn = Some(conn);
        Ok(())
    }

    async fn send(
        &mut self,
        request: &StreamsGroupHeartbeatRequest,
    ) -> Result<StreamsGroupHeartbeatResponse, GroupError> {
        self.ensure_connected().await?;
        let version = self.version;
        let Some(conn) = self.conn.as_mut() else {
            return Err(GroupError::Stopped);
        };
        let body = request
            .encode(version)
            .map_err(|e| conn.decode_error("StreamsGroupHeartbeat", e))?;
        let result = conn
            .send_flexible(heartbeat::API_KEY, version, &body, "StreamsGroupHeartbeat")
            .await
            .and_then(|bytes| {
                StreamsGroupHeartbeatResponse::decode(&bytes, version)
                    .map_err(|e| conn.decode_error("StreamsGroupHeartbeat", e))
            });
        match result {
            Ok(mut response) => {
                if let Some(endpoints) = &self.endpoints
                    && response.error_code == 0
                    && let Some(partitions) = response.partitions_by_user_endpoint.take()
                {
                    endpoints.set_endpoints(response.endpoint_information_epoch, partitions);
                }
                Ok(response)
            }
            Err(e) => {
                self.conn = None;
                Err(e)
            }
        }
    }

    fn publish(&mut self, events: Vec<MemberEvent>) {
        self.shared
            .epoch
            .store(self.membership.epoch(), Ordering::Release);
        *self
            .shared
            .assignment
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = self.membership.owned().clone();
        for e in events {
            let _ = self.events.send(Ok(e));
        }
    }

    /// One heartbeat and its consequences. `Err` only for fatal errors.
    async fn beat(&mut self) -> Result<(), GroupError> {
        let now = Instant::now();
        // For operators and tests that watch the heartbeats' spacing (the query server's load
        // test does): one event per heartbeat sent.
        tracing::trace!(target: "dekaf_streams::heartbeat", group = %self.group(), member = %self.membership.member_id(), "heartbeat sent");
        let request = self.membership.request_at(now.into_std());
        let sent = self.send(&request).await;
        if sent.is_err() {
            self.membership.offsets_lost();
            self.membership.response_lost();
        }
        match sent {
            Ok(response) => {
                let (events, outcome) = self.membership.on_response(response);
                self.publish(events);
                match outcome {
                    Outcome::Continue => {
                        if self.membership.assignment_unknown() {
                            self.learn_assignment().await?;
                        }
                        self.backoff.reset();
                        self.not_before = Instant::now();
                        self.next_beat = now + self.membership.heartbeat_interval();
                        Ok(())
                    }
                    Outcome::Retry { rediscover, reason } => {
                        tracing::debug!(group = %self.group(), "heartbeat to retry: {reason}");
                        if rediscover {
                            self.conn = None;
                        }
                        self.retry_later();
                        Ok(())
                    }
                    Outcome::Fatal(e) => Err(e),
                }
            }
            Err(e) if e.is_transient() || matches!(e, GroupError::NoBroker { .. }) => {
                tracing::warn!(group = %self.group(), member = %self.membership.member_id(), "heartbeat failed, will retry: {e}");
                self.retry_later();
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// After a lost heartbeat response, asks the coordinator (StreamsGroupDescribe on the
    /// member's connection) what this member's assignment is, and reconciles with it (see
    /// `Membership::response_lost`). A description that fails is asked again after the next
    /// heartbeat; only an invalid assignment is an error.
    async fn learn_assignment(&mut self) -> Result<(), GroupError> {
        let Some(conn) = self.conn.as_mut() else {
            return Ok(());
        };
        let group_id = self.membership.group_id().to_owned();
        let described = match super::describe::describe_on(conn, &group_id).await {
            Ok(group) if group.error_code == 0 => group,
            Ok(group) if group.error_code == GROUP_AUTHORIZATION_FAILED => {
                tracing::warn!(group = %group_id, "a heartbeat response was lost and the group may not be described (GROUP_AUTHORIZATION_FAILED): tasks it changed stay unknown until the next rebalance; allow DESCRIBE on the group to the application's principal");
                self.membership.assignment_given_up();
                return Ok(());
            }
            Ok(group) => {
                tracing::debug!(group = %group_id, "describing the group after a lost heartbeat response: {}; asking again after the next heartbeat", super::connection::error_name(group.error_code));
                return Ok(());
            }
            Err(e) => {
                tracing::debug!(group = %group_id, "describing the group after a lost heartbeat response failed: {e}; asking again after the next heartbeat");
                if e.is_transient() {
                    self.conn = None;
                }
                return Ok(());
            }
        };
        let member_id = self.membership.member_id().to_owned();
        let Some(me) = described.members.iter().find(|m| m.member_id == member_id) else {
            return Ok(());
        };
        let events = self
            .membership
            .on_described(me.member_epoch, &me.assignment)?;
        self.publish(events);
        Ok(())
    }

    fn retry_later(&mut self) {
        let delay = self.backoff.next_delay();
        self.not_before = Instant::now() + delay;
        self.next_beat = self.not_before;
    }

    fn wake_at(&self) -> Option<Instant> {
        if self.left_for_poll || !self.membership.may_heartbeat() {
            return None;
        }
        let due = if self.membership.wants_heartbeat_now() {
            Instant::now()
        } else {
            self.next_beat
        };
        Some(due.max(self.not_before))
    }

    /// Sends join heartbeats until the coordinator accepts the member.
    async fn join(&mut self, timeout: Duration) -> Result<(), GroupError> {
        let started = Instant::now();
        self.ensure_connected().await?;
        loop {
            self.beat().await?;
            if self.membership.epoch() > 0 {
                return Ok(());
            }
            if started.elapsed() > timeout {
                return Err(GroupError::NoBroker {
                    bootstrap: self.coordinator.bootstrap.join(","),
                    waited: started.elapsed(),
                    last_error: "the coordinator did not accept the join heartbeat".into(),
                });
            }
            if let Some(at) = self.wake_at() {
                tokio::time::sleep_until(at).await;
            }
        }
    }

    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let wake = self.wake_at();
            tokio::select! {
                biased;
                command = commands.recv() => match command {
                    Some(Command::Release(tasks)) => {
                        let events = self.membership.release(&tasks);
                        self.publish(events);
                        continue;
                    }
                    Some(Command::TaskOffsets(offsets)) => {
                        self.membership.set_task_offsets(offsets);
                        continue;
                    }
                    Some(Command::Rejoin) => {
                        if self.left_for_poll {
                            tracing::info!(group = %self.group(), member = %self.membership.member_id(), thread = %self.owner, "the processing thread is back and dropped its tasks; rejoining the group");
                            self.left_for_poll = false;
                        }
                        self.membership.abandon();
                        self.publish(Vec::new());
                        continue;
                    }
                    Some(Command::Close(done)) => {
                        self.leave().await;
                        let _ = done.send(());
                        return;
                    }
                    None => {
                        self.leave().await;
                        return;
                    }
                },
                () = sleep_until(self.poll_deadline()) => {
                    self.leave_if_owner_stuck().await;
                    continue;
                }
                () = sleep_until(wake) => {}
            }
            if let Err(e) = self.beat().await {
                tracing::error!(group = %self.group(), member = %self.membership.member_id(), "streams-group member stops: {e}");
                let _ = self.events.send(Err(e));
                self.membership.left();
                self.publish(Vec::new());
                return;
            }
        }
    }

    /// When the owner's bound on polling passes, while the member is in the group; or, before
    /// that, when the member warns about the owner's absence (once per absence).
    fn poll_deadline(&self) -> Option<Instant> {
        let poll = self.poll.as_ref().filter(|_| !self.left_for_poll)?;
        let last = poll.last_poll();
        if self.warned_for_poll != Some(last) {
            return Some(Instant::from_std(last + poll.warn_after()));
        }
        Some(Instant::from_std(last + poll.max()))
    }

    /// Leaves the group when the owner has not polled within the bound (Kafka's
    /// `max.poll.interval.ms`), as Kafka's consumer does: the coordinator gives its tasks to
    /// other members at once. The owner, once back, drops its tasks and asks to rejoin.
    async fn leave_if_owner_stuck(&mut self) {
        let Some(poll) = self.poll.clone() else {
            return;
        };
        let stuck = poll.since_poll();
        if self.left_for_poll {
            return;
        }
        if stuck < poll.max() {
            let last = poll.last_poll();
            if stuck >= poll.warn_after() && self.warned_for_poll != Some(last) {
                self.warned_for_poll = Some(last);
                metrics::counter!("dekaf.streams.poll.absence.warnings", "thread" => self.owner.clone())
                    .increment(1);
                tracing::warn!(
                    group = %self.group(),
                    member = %self.membership.member_id(),
                    thread = %self.owner,
                    away_for = ?stuck,
                    doing = poll.phase().describe(),
                    max_poll_interval = ?poll.max(),
                    tasks = %super::task::display(&self.membership.owned().active),
                    "the processing thread has not come back to its loop for a while; its tasks \
                     make no progress meanwhile. Past max_poll_interval the member leaves the \
                     group so they move to other members"
                );
            }
            return;
        }
        tracing::error!(
            group = %self.group(),
            member = %self.membership.member_id(),
            thread = %self.owner,
            stuck_for = ?stuck,
            max_poll_interval = ?poll.max(),
            tasks = %super::task::display(&self.membership.owned().active),
            "the processing thread has not come back to its loop within max_poll_interval (stuck in \
             user code?); leaving the group so its tasks move to other members. It drops them \
             without committing and rejoins when it comes back; raise max_poll_interval if \
             processing a batch legitimately takes this long"
        );
        metrics::counter!("dekaf.streams.poll.interval.exceeded", "thread" => self.owner.clone())
            .increment(1);
        poll.expire();
        self.left_for_poll = true;
        self.leave().await;
    }

    async fn leave(&mut self) {
        if self.membership.epoch() > 0 || !self.membership.owned().active.is_empty() {
            let request = self.membership.leave_request();
            // Leaving is best effort: a member that cannot reach the coordinator is removed after
            // the session timeout anyway.
            self.coordinator.connect_timeout =
                self.coordinator.connect_timeout.min(Duration::from_secs(5));
            match self.send(&request).await {
                Ok(r) if r.error_code == 0 => match &request.instance_id {
                    Some(instance) => {
                        tracing::info!(group = %self.group(), member = %self.membership.member_id(), %instance, "left the streams group as a static member: the coordinator keeps its tasks for the session timeout")
                    }
                    None => {
                        tracing::info!(group = %self.group(), member = %self.membership.member_id(), "left the streams group")
                    }
                },
                Ok(r) => {
                    tracing::warn!(group = %self.group(), "leaving the group: {}", super::connection::error_name(r.error_code))
                }
                Err(e) => tracing::warn!(group = %self.group(), "could not leave the group: {e}"),
            }
        }
        self.membership.left();
        self.publish(Vec::new());
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
