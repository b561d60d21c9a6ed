//! An instance's lifecycle, as Kafka Streams 4.4 has it: its [`State`], a listener for changes,
//! what happens when a processing thread fails ([`ThreadErrorResponse`]), threads added and
//! removed while it runs, processing paused and resumed, and closing it.
//!
//! [`KafkaStreams::lifecycle`](super::KafkaStreams::lifecycle) hands out a [`Lifecycle`] before
//! [`run`](super::KafkaStreams::run) consumes the application; it stays usable from any thread
//! or task while the application runs and after it stopped:
//!
//! ```no_run
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::{KafkaStreams, State, ThreadErrorResponse};
//!
//! topology! {
//!     pub Shout = "lifecycle-shout" {
//!         stream("in", Utf8, Utf8).map_values(|v| v.to_uppercase()).to("out", Utf8, Utf8);
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let streams = KafkaStreams::builder(Shout)
//!     .bootstrap_servers("localhost:9092")
//!     .on_state_change(|old, new| tracing::info!(?old, ?new, "state changed"))
//!     // A failed thread is replaced; its uncommitted interval is aborted and redone.
//!     .on_thread_error(|_error| ThreadErrorResponse::ReplaceThread)
//!     .build()?;
//! let lifecycle = streams.lifecycle();
//! let running = tokio::spawn(streams.run(std::future::pending()));
//! lifecycle.wait_for(State::Running).await;
//! lifecycle.add_thread().await?;
//! lifecycle.close();
//! running.await??;
//! # Ok(())
//! # }
//! ```
//!
//! # States
//!
//! As Kafka Streams' `KafkaStreams.State`, with its transitions (anything else is ignored):
//!
//! ```text
//! Created ─► Rebalancing ◄─► Running
//!    │            │             │
//!    ▼            ▼             ▼
//! PendingShutdown ─► NotRunning       PendingError ─► Error
//!                       (from Rebalancing or Running on a fatal error)
//! ```
//!
//! The instance is `Rebalancing` while any processing thread takes on or gives up tasks
//! (restores included), and `Running` once every live thread runs its tasks and the global
//! tables are loaded. A thread without tasks runs, as in Kafka Streams.
//!
//! # A failing thread
//!
//! A processing thread fails on an error its topology's `on_error` did not absorb, an
//! unretriable Kafka error, or a panic. Before it ends it aborts its open transaction (under
//! exactly-once) and leaves the group. Then the instance asks the
//! [`on_thread_error`](super::Builder::on_thread_error) handler, as Kafka Streams asks its
//! `StreamsUncaughtExceptionHandler`:
//! - [`ReplaceThread`](ThreadErrorResponse::ReplaceThread): a new thread takes the failed one's
//!   place (same thread number and transactional id, a new member id); the failed interval is
//!   redone from the committed offsets, so under exactly-once each record counts once;
//! - [`ShutdownClient`](ThreadErrorResponse::ShutdownClient) (the default, as Kafka Streams'):
//!   this instance stops, its other threads committing what they did; `run` returns the error;
//! - [`ShutdownApplication`](ThreadErrorResponse::ShutdownApplication): every instance of the
//!   application stops. The instance's members send `ShutdownApplication` on their heartbeats
//!   (KIP-1071; if no thread is left, a new one joins to send it, as Kafka Streams adds one), and
//!   the group coordinator answers every member of the group with the `SHUTDOWN_APPLICATION`
//!   status until the group is empty. Any instance that sees it, Kafka Streams' as well as
//!   ours, stops in `Error`; its `run` returns [`StreamsError::ApplicationShutdown`].
//!
//! # Paused processing
//!
//! [`Lifecycle::pause`] stops processing, punctuation and standby updates (before or while the
//! application runs), as Kafka Streams' `pause()`: threads still commit what they processed,
//! heartbeat, and take on and give up tasks. [`Lifecycle::resume`] goes on where they stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use super::error::StreamsError;

/// The state of an instance, as Kafka Streams' `KafkaStreams.State`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Built, not running yet.
    Created,
    /// Threads are joining the group, taking on or giving up tasks, or restoring state.
    Rebalancing,
    /// Every thread runs its tasks.
    Running,
    /// Shutting down after a shutdown request or [`Lifecycle::close`].
    PendingShutdown,
    /// Stopped cleanly.
    NotRunning,
    /// Shutting down after a fatal error.
    PendingError,
    /// Stopped after a fatal error.
    Error,
}

impl State {
    /// `Running` or `Rebalancing`.
    pub fn is_running_or_rebalancing(self) -> bool {
        matches!(self, State::Running | State::Rebalancing)
    }

    /// `PendingShutdown` or `PendingError`.
    pub fn is_shutting_down(self) -> bool {
        matches!(self, State::PendingShutdown | State::PendingError)
    }

    /// `NotRunning` or `Error`.
    pub fn has_completed_shutdown(self) -> bool {
        matches!(self, State::NotRunning | State::Error)
    }

    /// Whether `self` may become `next` (Kafka Streams' `State.isValidTransition`).
    pub fn may_become(self, next: State) -> bool {
        use State::*;
        match self {
            Created => matches!(next, Rebalancing | PendingShutdown),
            Rebalancing => matches!(next, Running | PendingShutdown | PendingError),
            Running => matches!(next, Rebalancing | Running | PendingShutdown | PendingError),
            PendingShutdown => next == NotRunning,
            PendingError => next == Error,
            NotRunning | Error => false,
        }
    }
}

/// What the instance does when a processing thread fails (Kafka Streams'
/// `StreamThreadExceptionResponse`); see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ThreadErrorResponse {
    /// Start a new thread in the failed one's place.
    ReplaceThread,
    /// Stop this instance (the default, as in Kafka Streams).
    #[default]
    ShutdownClient,
    /// Stop every instance of the application, through the streams group.
    ShutdownApplication,
}

/// Why a [`Lifecycle`] call could not be carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// Threads are added and removed only while the instance runs or rebalances.
    #[error(
        "the instance is {0:?}: threads can be added or removed only while it is Running or \
         Rebalancing (call this after `run` started and before it stops)"
    )]
    NotRunning(State),
    /// No thread is left to remove.
    #[error("the instance has no processing thread left to remove")]
    NoThreadToRemove,
    /// The thread was asked to stop but did not within the timeout; it goes on stopping.
    #[error(
        "processing thread {index} did not stop within {timeout:?}; it goes on stopping in the \
         background (a commit or a leave waiting for an unreachable cluster)"
    )]
    RemoveTimedOut {
        /// The thread's number.
        index: usize,
        /// How long the call waited.
        timeout: Duration,
    },
}

/// A processing thread's state (Kafka Streams' `StreamThread.State`, folded: its
/// `PARTITIONS_REVOKED` and `PARTITIONS_ASSIGNED` are `Rebalancing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadState {
    /// Joining the group.
    Starting,
    /// Taking on or giving up tasks.
    Rebalancing,
    /// Running its tasks (or none).
    Running,
    /// Ended.
    Dead,
}

/// What a [`Lifecycle`] asks of the running instance.
pub(crate) enum Command {
    AddThread(oneshot::Sender<Result<usize, LifecycleError>>),
    RemoveThread(Duration, oneshot::Sender<Result<usize, LifecycleError>>),
    /// A member saw the group's `SHUTDOWN_APPLICATION` status (with its detail).
    GroupShutdown(String),
}

/// A state listener ([`Builder::on_state_change`](super::Builder::on_state_change)).
pub(crate) type StateListener = Box<dyn Fn(State, State) + Send + Sync>;
/// A thread-error handler ([`Builder::on_thread_error`](super::Builder::on_thread_error)).
pub(crate) type ThreadErrorHandler =
    Box<dyn Fn(&StreamsError) -> ThreadErrorResponse + Send + Sync>;

/// The instance's side of the lifecycle, shared by the [`Lifecycle`] handles, the supervisor in
/// [`KafkaStreams::run`](super::KafkaStreams::run) and the processing threads.
pub(crate) struct Shared {
    /// The application id (threads are named after it).
    application_id: &'static str,
    /// The instance's state; every change also goes to the listener, under `threads`' lock.
    state: watch::Sender<State>,
    /// The processing threads' states by thread number, and whether the global tables are
    /// loaded.
    threads: Mutex<Threads>,
    listener: Option<StateListener>,
    on_thread_error: Option<ThreadErrorHandler>,
    paused: AtomicBool,
    /// Members send `ShutdownApplication` while this is set.
    pub(crate) shutdown_application: Arc<AtomicBool>,
    /// [`Lifecycle::close`] was called.
    close: watch::Sender<bool>,
    /// The running instance's command queue (`None` before and after `run`).
    commands: Mutex<Option<mpsc::UnboundedSender<Command>>>,
}

#[derive(Default)]
struct Threads {
    states: std::collections::BTreeMap<usize, ThreadState>,
    /// Each thread's active and standby tasks, as it last reported them.
    tasks: std::collections::BTreeMap<usize, (Vec<String>, Vec<String>)>,
    /// Each thread's active tasks' input offsets, as it last reported them (about once a
    /// second).
    offsets: std::collections::BTreeMap<usize, Vec<TaskOffsets>>,
    globals_running: bool,
}

/// A processing thread of this instance, as [`Lifecycle::local_threads`] describes it (Kafka
/// Streams' `ThreadMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadMetadata {
    /// Its number in the instance (from 0).
    pub index: usize,
    /// Its name: `<application id>-<number>`, as its OS thread, logs and metrics name it.
    pub name: String,
    /// What it does now.
    pub state: ThreadState,
    /// The active tasks it runs (`<subtopology>_<partition>`).
    pub active_tasks: Vec<String>,
    /// The standby tasks it keeps up to date.
    pub standby_tasks: Vec<String>,
    /// Its active tasks' input partitions with how far the task got and where they end (Kafka
    /// Streams' `TaskMetadata.committedOffsets` and `endOffsets`), as the thread last reported
    /// them (about once a second; empty before the first report).
    pub task_offsets: Vec<TaskOffsets>,
}

/// An active task's input partitions with their offsets (Kafka Streams' `TaskMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskOffsets {
    /// The task (`<subtopology>_<partition>`).
    pub task: String,
    /// Each input partition of the task.
    pub partitions: Vec<PartitionOffsets>,
}

/// One input partition of a task: where the task is and where the partition ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOffsets {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The next offset the task processes: past what it processed, or the group's committed
    /// offset before it processed anything, or the log's start when the group committed none
    /// (`None`: not known yet).
    pub position: Option<i64>,
    /// The partition's end as the consumer last saw it in a fetch response (the last stable
    /// offset: the task reads committed records only); `None` before the first fetch.
    pub end: Option<i64>,
}

impl PartitionOffsets {
    /// Records of the partition the task has not processed yet (`None` when either offset is
    /// not known yet).
    pub fn lag(&self) -> Option<i64> {
        Some((self.end? - self.position?).max(0))
    }
}

impl TaskOffsets {
    /// Records of all its partitions the task has not processed yet (`None` when any is not
    /// known yet).
    pub fn lag(&self) -> Option<i64> {
        self.partitions.iter().map(PartitionOffsets::lag).sum()
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lifecycle")
            .field("state", &*self.state.borrow())
            .field("paused", &self.paused.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn new(
        application_id: &'static str,
        listener: Option<StateListener>,
        on_thread_error: Option<ThreadErrorHandler>,
    ) -> Self {
        Shared {
            application_id,
            state: watch::channel(State::Created).0,
            threads: Mutex::new(Threads::default()),
            listener,
            on_thread_error,
            paused: AtomicBool::new(false),
            shutdown_application: Arc::new(AtomicBool::new(false)),
            close: watch::channel(false).0,
            commands: Mutex::new(None),
        }
    }

    fn threads(&self) -> std::sync::MutexGuard<'_, Threads> {
        self.threads.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn state(&self) -> State {
        *self.state.borrow()
    }

    /// Moves the instance to `next` if that is a valid transition (else nothing happens, as in
    /// Kafka Streams' `setState`), telling the listener. Whether it moved.
    pub(crate) fn set_state(&self, next: State) -> bool {
        let _threads = self.threads();
        self.set_state_locked(next)
    }

    fn set_state_locked(&self, next: State) -> bool {
        let old = self.state();
        if !old.may_become(next) || old == next {
            return false;
        }
        self.state.send_replace(next);
        tracing::info!(from = ?old, to = ?next, "instance state changed");
        if let Some(listener) = &self.listener {
            listener(old, next);
        }
        true
    }

    /// Thread `index` is now in `state` (Kafka Streams' `StreamStateListener.onChange`).
    pub(crate) fn thread_state(&self, index: usize, state: ThreadState) {
        let mut threads = self.threads();
        if threads.states.insert(index, state) == Some(state) {
            return;
        }
        match state {
            ThreadState::Rebalancing => {
                self.set_state_locked(State::Rebalancing);
            }
            ThreadState::Running | ThreadState::Dead => self.maybe_running(&threads),
            ThreadState::Starting => {}
        }
    }

    /// The thread is gone for good (removed, or replaced under another entry).
    pub(crate) fn forget_thread(&self, index: usize) {
        let mut threads = self.threads();
        threads.states.remove(&index);
        threads.tasks.remove(&index);
        threads.offsets.remove(&index);
        self.maybe_running(&threads);
    }

    /// Thread `index` now runs `active` and keeps `standby` (reported when they change).
    pub(crate) fn thread_tasks(&self, index: usize, active: Vec<String>, standby: Vec<String>) {
        self.threads().tasks.insert(index, (active, standby));
    }

    /// A thread's active tasks' offsets.
    pub(crate) fn thread_offsets(&self, index: usize, offsets: Vec<TaskOffsets>) {
        self.threads().offsets.insert(index, offsets);
    }

    /// Every thread's state and tasks.
    pub(crate) fn local_threads(&self) -> Vec<ThreadMetadata> {
        let threads = self.threads();
        threads
            .states
            .iter()
            .map(|(index, state)| {
                let (active, standby) = match state {
                    ThreadState::Dead => Default::default(),
                    _ => threads.tasks.get(index).cloned().unwrap_or_default(),
                };
                // Only the tasks it still runs: a report older than a revocation may name more.
                let task_offsets = threads
                    .offsets
                    .get(index)
                    .map(|all| {
                        all.iter()
                            .filter(|t| active.contains(&t.task))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                ThreadMetadata {
                    index: *index,
                    name: format!("{}-{index}", self.application_id),
                    state: *state,
                    active_tasks: active,
                    standby_tasks: standby,
                    task_offsets,
                }
            })
            .collect()
    }

    /// The global tables are loaded (or there are none).
    pub(crate) fn globals_running(&self) {
        let mut threads = self.threads();
        threads.globals_running = true;
        self.maybe_running(&threads);
    }

    /// `Running` once every thread runs (or is dead) and the global tables are loaded.
    fn maybe_running(&self, threads: &Threads) {
        let all = threads
            .states
            .values()
            .all(|s| matches!(s, ThreadState::Running | ThreadState::Dead));
        let any_running = threads.states.values().any(|s| *s == ThreadState::Running);
        if all && any_running && threads.globals_running {
            self.set_state_locked(State::Running);
        }
    }

    /// What the handler says of `error` (the default: shut down this instance).
    pub(crate) fn on_thread_error(&self, error: &StreamsError) -> ThreadErrorResponse {
        self.on_thread_error
            .as_ref()
            .map_or(ThreadErrorResponse::ShutdownClient, |handle| handle(error))
    }

    pub(crate) fn paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// A member saw the group's `SHUTDOWN_APPLICATION` status: tells the supervisor.
    pub(crate) fn group_shutdown(&self, detail: String) {
        if let Some(commands) = self
            .commands
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            let _ = commands.send(Command::GroupShutdown(detail));
        }
    }

    /// The supervisor's command queue, for the duration of `run`.
    pub(crate) fn open_commands(&self) -> mpsc::UnboundedReceiver<Command> {
        let (tx, rx) = mpsc::unbounded_channel();
        *self.commands.lock().unwrap_or_else(PoisonError::into_inner) = Some(tx);
        rx
    }

    /// `run` ended: no more commands.
    pub(crate) fn close_commands(&self) {
        *self.commands.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Completes when [`Lifecycle::close`] is called (at once if it was already).
    pub(crate) async fn closed(&self) {
        let mut close = self.close.subscribe();
        let _ = close.wait_for(|asked| *asked).await;
    }

    fn send(&self, command: Command) -> Result<(), LifecycleError> {
        let commands = self.commands.lock().unwrap_or_else(PoisonError::into_inner);
        match commands.as_ref() {
            Some(tx) if self.state().is_running_or_rebalancing() => tx
                .send(command)
                .map_err(|_| LifecycleError::NotRunning(self.state())),
            _ => Err(LifecycleError::NotRunning(self.state())),
        }
    }
}

/// A handle on an instance's lifecycle: its state, its threads, pausing and closing it. Made by
/// [`KafkaStreams::lifecycle`](super::KafkaStreams::lifecycle); cheap to clone, usable from any
/// thread. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Lifecycle {
    shared: Arc<Shared>,
}

impl Lifecycle {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Lifecycle { shared }
    }

    /// The instance's state now.
    pub fn state(&self) -> State {
        self.shared.state()
    }

    /// A receiver of every state the instance takes (the latest one when read late), for
    /// `async` code: `changed().await`, `borrow()`.
    pub fn state_changes(&self) -> watch::Receiver<State> {
        self.shared.state.subscribe()
    }

    /// Waits until the instance is in `state`, or has stopped. Returns the state it found.
    pub async fn wait_for(&self, state: State) -> State {
        let mut changes = self.state_changes();
        let found = changes
            .wait_for(|now| *now == state || now.has_completed_shutdown())
            .await
            .map(|now| *now);
        found.unwrap_or_else(|_| self.state())
    }

    /// Starts one more processing thread (one more member of the group), numbered with the
    /// lowest free thread number, as Kafka Streams' `addStreamThread`. Returns its number.
    ///
    /// # Errors
    ///
    /// [`LifecycleError::NotRunning`] unless the instance is `Running` or `Rebalancing`.
    pub async fn add_thread(&self) -> Result<usize, LifecycleError> {
        let (tx, rx) = oneshot::channel();
        self.shared.send(Command::AddThread(tx))?;
        rx.await
            .unwrap_or_else(|_| Err(LifecycleError::NotRunning(self.state())))
    }

    /// Stops the highest-numbered processing thread: it commits, closes its tasks and leaves
    /// the group, and its tasks move to the other members (Kafka Streams'
    /// `removeStreamThread(timeout)`). Returns its number once it has stopped.
    ///
    /// # Errors
    ///
    /// [`LifecycleError::NotRunning`] unless the instance is `Running` or `Rebalancing`;
    /// [`LifecycleError::NoThreadToRemove`]; [`LifecycleError::RemoveTimedOut`] when it did
    /// not stop within `timeout`.
    pub async fn remove_thread(&self, timeout: Duration) -> Result<usize, LifecycleError> {
        let (tx, rx) = oneshot::channel();
        self.shared.send(Command::RemoveThread(timeout, tx))?;
        rx.await
            .unwrap_or_else(|_| Err(LifecycleError::NotRunning(self.state())))
    }

    /// Stops processing, punctuation and standby updates until [`resume`](Self::resume); see
    /// the [module docs](self).
    pub fn pause(&self) {
        self.shared.paused.store(true, Ordering::Relaxed);
    }

    /// Goes on processing after [`pause`](Self::pause).
    pub fn resume(&self) {
        self.shared.paused.store(false, Ordering::Relaxed);
    }

    /// Whether processing is paused.
    pub fn is_paused(&self) -> bool {
        self.shared.paused()
    }

    /// This instance's processing threads: state, active and standby tasks (Kafka Streams'
    /// `metadataForLocalThreads`).
    pub fn local_threads(&self) -> Vec<ThreadMetadata> {
        self.shared.local_threads()
    }

    /// Asks the instance to shut down, as its shutdown future completing would: `run` commits,
    /// closes the tasks, leaves the group and returns (within
    /// [`close_timeout`](super::Builder::close_timeout)). Called before `run`, `run` returns at
    /// once.
    pub fn close(&self) {
        self.shared.close.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_are_kafka_streams_ones() {
        use State::*;
        let all = [
            Created,
            Rebalancing,
            Running,
            PendingShutdown,
            NotRunning,
            PendingError,
            Error,
        ];
        let allowed: Vec<(State, State)> = all
            .iter()
            .flat_map(|a| all.iter().map(move |b| (*a, *b)))
            .filter(|(a, b)| a.may_become(*b))
            .collect();
        // KafkaStreams.State: CREATED(1, 3), REBALANCING(2, 3, 5), RUNNING(1, 2, 3, 5),
        // PENDING_SHUTDOWN(4), NOT_RUNNING, PENDING_ERROR(6), ERROR.
        assert_eq!(
            allowed,
            vec![
                (Created, Rebalancing),
                (Created, PendingShutdown),
                (Rebalancing, Running),
                (Rebalancing, PendingShutdown),
                (Rebalancing, PendingError),
                (Running, Rebalancing),
                (Running, Running),
                (Running, PendingShutdown),
                (Running, PendingError),
                (PendingShutdown, NotRunning),
                (PendingError, Error),
            ]
        );
    }

    type Seen = Arc<Mutex<Vec<(State, State)>>>;

    fn recording() -> (Arc<Shared>, Seen) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let shared = Shared::new(
            "app",
            Some(Box::new(move |old, new| {
                log.lock().unwrap().push((old, new));
            })),
            None,
        );
        (Arc::new(shared), seen)
    }

    #[test]
    fn the_instance_runs_once_every_thread_and_the_global_tables_do() {
        let (shared, seen) = recording();
        shared.set_state(State::Rebalancing);
        shared.thread_state(0, ThreadState::Starting);
        shared.thread_state(1, ThreadState::Starting);
        shared.thread_state(0, ThreadState::Running);
        shared.globals_running();
        assert_eq!(shared.state(), State::Rebalancing, "thread 1 still starts");
        shared.thread_state(1, ThreadState::Running);
        assert_eq!(shared.state(), State::Running);
        shared.thread_state(1, ThreadState::Rebalancing);
        assert_eq!(shared.state(), State::Rebalancing);
        // A dead thread does not hold the others back.
        shared.thread_state(1, ThreadState::Dead);
        assert_eq!(shared.state(), State::Running);
        shared.set_state(State::PendingShutdown);
        shared.thread_state(0, ThreadState::Rebalancing);
        assert_eq!(shared.state(), State::PendingShutdown, "no way back");
        shared.set_state(State::NotRunning);
        use State::*;
        assert_eq!(
            *seen.lock().unwrap(),
            vec![
                (Created, Rebalancing),
                (Rebalancing, Running),
                (Running, Rebalancing),
                (Rebalancing, Running),
                (Running, PendingShutdown),
                (PendingShutdown, NotRunning),
            ]
        );
    }

    #[test]
    fn local_threads_show_their_state_and_tasks_and_a_dead_thread_none() {
        let (shared, _) = recording();
        shared.thread_state(0, ThreadState::Running);
        shared.thread_tasks(0, vec!["0_0".into()], vec!["1_0".into()]);
        let offsets = |task: &str, position, end| TaskOffsets {
            task: task.into(),
            partitions: vec![PartitionOffsets {
                topic: "in".into(),
                partition: 0,
                position,
                end,
            }],
        };
        // The report named a task revoked since: it is left out.
        shared.thread_offsets(
            0,
            vec![
                offsets("0_0", Some(7), Some(10)),
                offsets("0_9", None, None),
            ],
        );
        shared.thread_state(1, ThreadState::Running);
        shared.thread_tasks(1, vec!["0_1".into()], vec![]);
        shared.thread_state(1, ThreadState::Dead);
        let threads = Lifecycle::new(Arc::clone(&shared)).local_threads();
        assert_eq!(
            threads,
            vec![
                ThreadMetadata {
                    index: 0,
                    name: "app-0".into(),
                    state: ThreadState::Running,
                    active_tasks: vec!["0_0".into()],
                    standby_tasks: vec!["1_0".into()],
                    task_offsets: vec![offsets("0_0", Some(7), Some(10))],
                },
                ThreadMetadata {
                    index: 1,
                    name: "app-1".into(),
                    state: ThreadState::Dead,
                    active_tasks: vec![],
                    standby_tasks: vec![],
                    task_offsets: vec![],
                },
            ]
        );
        assert_eq!(threads[0].task_offsets[0].lag(), Some(3));
        assert_eq!(offsets("0_0", None, Some(10)).lag(), None);
        assert_eq!(offsets("0_0", Some(12), Some(10)).lag(), Some(0));
    }

    #[test]
    fn the_default_answer_to_a_failed_thread_is_to_shut_the_instance_down() {
        let shared = Shared::new("app", None, None);
        let error = StreamsError::ThreadPanicked(0);
        assert_eq!(
            shared.on_thread_error(&error),
            ThreadErrorResponse::ShutdownClient
        );
    }

    #[test]
    fn threads_cannot_be_added_before_the_instance_runs() {
        let shared = Arc::new(Shared::new("app", None, None));
        let lifecycle = Lifecycle::new(Arc::clone(&shared));
        let added = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(lifecycle.add_thread());
        assert_eq!(added, Err(LifecycleError::NotRunning(State::Created)));
    }
}
