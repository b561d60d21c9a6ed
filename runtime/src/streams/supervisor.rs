//! The processing threads of a running instance, and what happens to them: started, replaced
//! after a failure, added and removed on request, stopped at shutdown.
//!
//! [`KafkaStreams::run`](super::KafkaStreams::run) sets the instance up (state directory,
//! cluster, global tables, shared clients) and hands over to [`Supervisor::run`], which starts
//! `threads(n)` processing threads and then waits for what comes: the shutdown future (or
//! [`Lifecycle::close`](super::Lifecycle::close)), a thread ending, a
//! [`Lifecycle`](super::Lifecycle) command, the global thread failing. What a failed thread
//! leads to is the [`on_thread_error`](super::Builder::on_thread_error) handler's choice (see
//! [`lifecycle`](super::lifecycle)).
//!
//! Each thread has its own stop flag, so one can be removed while the others go on; a shutdown
//! sets them all. A thread started in a failed one's place gets its number (so its
//! transactional id, whose `InitProducerId` fences the failed producer and aborts its open
//! transaction) and a member id of its own (`<process id>-<number>-<generation>`): the failed
//! thread's member may still be leaving in the background, and a join under its id would be
//! taken for that member rejoining.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::context::ThreadContext;
use super::error::StreamsError;
use super::lifecycle::{Command, LifecycleError, Shared, State, ThreadErrorResponse, ThreadState};
use super::processing::StreamThread;
use crate::store::{LmdbStores, MemoryStores};
use crate::task::Topology;

/// How long an instance whose thread asked the application to shut down waits for the
/// coordinator's `SHUTDOWN_APPLICATION` status before stopping by itself.
const SHUTDOWN_REQUEST_WAIT: Duration = Duration::from_secs(60);

/// A thread's end: its number, its generation, and how it ended.
type Ended = (usize, u32, Result<(), StreamsError>);

/// A replaced thread that runs this long before it fails again counts as a fresh failure
/// (replaced at once); one that fails sooner is replaced after a growing backoff.
const STABLE_RUN: Duration = Duration::from_secs(60);
/// The backoff after the second failure in a row; it doubles with each one after.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest backoff.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How long to wait before replacing a thread on its `quick`-th failure in a row (`0`: it had
/// run [`STABLE_RUN`]): at once for the first, as Kafka Streams' `REPLACE_THREAD` does, then
/// 0.5 s, 1 s, 2 s, ... up to 30 s.
fn replacement_delay(quick: u32) -> Duration {
    match quick {
        0 | 1 => Duration::ZERO,
        n => FIRST_BACKOFF
            .saturating_mul(1 << (n - 2).min(16))
            .min(MAX_BACKOFF),
    }
}

/// What every thread is started with, but its number, generation and stop flag.
pub(crate) struct ThreadTemplate {
    /// A context to copy; its `index`, `generation` and `stop` are replaced per thread.
    pub(crate) ctx: ThreadContext,
    /// Where LMDB stores live, if on disk.
    pub(crate) state_root: Option<std::path::PathBuf>,
}

/// One processing thread the supervisor started.
struct Slot {
    generation: u32,
    /// When it was started: a thread that ran [`STABLE_RUN`] before failing is replaced at once.
    started: Instant,
    stop: Arc<AtomicBool>,
    /// A [`Lifecycle::remove_thread`](super::Lifecycle::remove_thread) waits for it to end.
    removal: Option<Removal>,
    /// Asked to stop by a removal (it is not replaced, whatever becomes of it).
    removing: bool,
}

/// A [`Lifecycle::remove_thread`](super::Lifecycle::remove_thread) call waiting for its thread.
struct Removal {
    deadline: Instant,
    timeout: Duration,
    reply: oneshot::Sender<Result<usize, LifecycleError>>,
}

/// The running instance's threads.
pub(crate) struct Supervisor<T: Topology> {
    template: ThreadTemplate,
    lifecycle: Arc<Shared>,
    slots: BTreeMap<usize, Slot>,
    /// The next generation per thread number.
    generations: BTreeMap<usize, u32>,
    /// Failed threads waiting to be replaced, by number: when, and how many times in a row
    /// that thread failed soon after it started.
    replacements: BTreeMap<usize, Instant>,
    /// Per thread number, its failures in a row, each within [`STABLE_RUN`] of its start.
    quick_failures: BTreeMap<usize, u32>,
    done_tx: mpsc::UnboundedSender<Ended>,
    done_rx: mpsc::UnboundedReceiver<Ended>,
    /// How long a shutdown waits for the threads.
    close_timeout: Duration,
    shutting_down: bool,
    first_error: Option<StreamsError>,
    topology: PhantomData<fn() -> T>,
}

impl<T: Topology> Supervisor<T> {
    pub(crate) fn new(
        template: ThreadTemplate,
        lifecycle: Arc<Shared>,
        close_timeout: Duration,
    ) -> Self {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Supervisor {
            template,
            lifecycle,
            slots: BTreeMap::new(),
            generations: BTreeMap::new(),
            replacements: BTreeMap::new(),
            quick_failures: BTreeMap::new(),
            done_tx,
            done_rx,
            close_timeout,
            shutting_down: false,
            first_error: None,
            topology: PhantomData,
        }
    }

    /// Starts `threads` threads, then supervises them until they have all ended after a
    /// shutdown (the future, [`Lifecycle::close`](super::Lifecycle::close), a fatal error, or
    /// the group's shutdown request). `global_failed` completes if the global thread fails.
    /// Returns the first error that stopped the instance.
    pub(crate) async fn run<S: std::future::Future<Output = ()>>(
        mut self,
        threads: usize,
        shutdown: S,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut global_failed: oneshot::Receiver<()>,
    ) -> Option<StreamsError> {
        for index in 0..threads {
            self.spawn(index, threads);
        }
        tokio::pin!(shutdown);
        let far = Duration::from_secs(u32::MAX.into());
        // When a shutdown gives up on threads still running.
        let abandon_at = tokio::time::sleep(far);
        tokio::pin!(abandon_at);
        // When an instance that asked the application to shut down stops by itself.
        let mut asked_at: Option<Instant> = None;
        let mut global_gone = false;
        while !(self.shutting_down && self.slots.is_empty()) {
            let removal_due = self.next_removal_deadline();
            let request_due = asked_at.map(|at| at + SHUTDOWN_REQUEST_WAIT);
            let replacement_due = self.replacements.values().min().copied();
            let wake = [removal_due, request_due, replacement_due]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or_else(|| Instant::now() + far);
            let began = self.shutting_down;
            tokio::select! {
                () = &mut shutdown, if !self.shutting_down => {
                    tracing::info!("shutdown requested: committing, closing tasks, leaving the group");
                    self.begin_shutdown(State::PendingShutdown);
                }
                () = &mut abandon_at, if self.shutting_down => {
                    // A thread blocked in a call that does not see its stop flag (librdkafka
                    // waiting for a cluster that is down): shutting down must not wait for it.
                    // It committed nothing since; the broker aborts its open transaction after
                    // `transaction.timeout.ms`, and the tasks' next owner redoes the interval.
                    tracing::warn!(
                        threads = self.slots.len(),
                        timeout = ?self.close_timeout,
                        "processing threads did not stop in time after the shutdown request; abandoning them"
                    );
                    break;
                }
                failed = &mut global_failed, if !global_gone => {
                    global_gone = true;
                    if failed.is_ok() && !self.shutting_down {
                        tracing::error!("the global thread failed; stopping the instance");
                        self.begin_shutdown(State::PendingError);
                    }
                }
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command),
                    None => std::future::pending::<()>().await,
                },
                ended = self.done_rx.recv() => {
                    // The supervisor holds a sender: the channel never closes.
                    if let Some((index, generation, result)) = ended
                        && self.on_ended(index, generation, result)
                        && asked_at.is_none()
                    {
                        asked_at = Some(Instant::now());
                    }
                }
                () = tokio::time::sleep_until(wake) => {
                    self.expire_removals();
                    self.start_due_replacements();
                    if asked_at.is_some_and(|at| at.elapsed() >= SHUTDOWN_REQUEST_WAIT)
                        && !self.shutting_down
                    {
                        tracing::error!(
                            waited = ?SHUTDOWN_REQUEST_WAIT,
                            "the group coordinator did not answer the application shutdown request; stopping this instance"
                        );
                        self.begin_shutdown(State::PendingError);
                    }
                }
            }
            if self.shutting_down && !began {
                abandon_at
                    .as_mut()
                    .reset(Instant::now() + self.close_timeout);
            }
        }
        // Removals still waiting get their answer.
        for (index, slot) in &mut self.slots {
            if let Some(removal) = slot.removal.take() {
                let _ = removal.reply.send(Err(LifecycleError::RemoveTimedOut {
                    index: *index,
                    timeout: removal.timeout,
                }));
            }
        }
        self.first_error
    }

    /// Starts thread `index` in its next generation, one of `live` threads.
    fn spawn(&mut self, index: usize, live: usize) {
        let generation = {
            let next = self.generations.entry(index).or_insert(0);
            let this = *next;
            *next += 1;
            this
        };
        let stop = Arc::new(AtomicBool::new(false));
        let ctx = ThreadContext {
            index,
            generation,
            stop: Arc::clone(&stop),
            live_threads: live,
            ..self.template.ctx.clone()
        };
        self.lifecycle.thread_state(index, ThreadState::Starting);
        super::metrics::thread_started();
        let state_root = self.template.state_root.clone();
        let serdes = ctx.config.serde_states.clone();
        let done = self.done_tx.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("{}-{index}", T::APPLICATION_ID))
            .spawn(move || {
                let span =
                    tracing::info_span!("stream_thread", app = T::APPLICATION_ID, thread = index);
                let _entered = span.enter();
                // This thread runs for this instance: its serdes see its state.
                let _serdes = serdes.enter();
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match state_root {
                        Some(root) => {
                            StreamThread::<T, LmdbStores>::start(ctx, LmdbStores::new(root))
                                .and_then(StreamThread::run)
                        }
                        None => StreamThread::<T, MemoryStores>::start(ctx, MemoryStores)
                            .and_then(StreamThread::run),
                    }))
                    .unwrap_or(Err(StreamsError::ThreadPanicked(index)));
                let _ = done.send((index, generation, result));
            });
        if let Err(e) = spawned {
            tracing::error!(thread = index, error = %e, "could not start a processing thread");
            let _ =
                self.done_tx
                    .send((index, generation, Err(StreamsError::ThreadPanicked(index))));
        }
        self.slots.insert(
            index,
            Slot {
                generation,
                started: Instant::now(),
                stop,
                removal: None,
                removing: false,
            },
        );
    }

    /// Sets every thread's stop flag and moves the instance to `state` (`PendingShutdown` or
    /// `PendingError`).
    fn begin_shutdown(&mut self, state: State) {
        self.shutting_down = true;
        self.lifecycle.set_state(state);
        // Threads waiting to be replaced are not started any more.
        for index in std::mem::take(&mut self.replacements).into_keys() {
            self.lifecycle.thread_state(index, ThreadState::Dead);
        }
        for slot in self.slots.values() {
            slot.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Carries out a [`Lifecycle`](super::Lifecycle) command or a member's report.
    fn on_command(&mut self, command: Command) {
        match command {
            Command::AddThread(reply) => {
                let answer = if self.shutting_down {
                    Err(LifecycleError::NotRunning(self.lifecycle.state()))
                } else {
                    let index = (0..)
                        .find(|i| !self.slots.contains_key(i) && !self.replacements.contains_key(i))
                        .unwrap_or(0);
                    tracing::info!(
                        thread = index,
                        threads = self.slots.len() + 1,
                        "adding a processing thread"
                    );
                    self.spawn(index, self.slots.len() + 1);
                    Ok(index)
                };
                let _ = reply.send(answer);
            }
            Command::RemoveThread(_, reply)
                if !self.shutting_down && !self.replacements.is_empty() =>
            {
                // A failed thread waiting to be replaced is the one removed: it is not started.
                if let Some((index, _)) = self.replacements.pop_last() {
                    tracing::info!(
                        thread = index,
                        "removing a processing thread that was waiting to be replaced"
                    );
                    self.lifecycle.forget_thread(index);
                    let _ = reply.send(Ok(index));
                }
            }
            Command::RemoveThread(timeout, reply) => {
                let candidate = self.slots.iter_mut().rev().find(|(_, slot)| !slot.removing);
                match candidate {
                    _ if self.shutting_down => {
                        let _ = reply.send(Err(LifecycleError::NotRunning(self.lifecycle.state())));
                    }
                    None => {
                        let _ = reply.send(Err(LifecycleError::NoThreadToRemove));
                    }
                    Some((index, slot)) => {
                        tracing::info!(
                            thread = *index,
                            "removing a processing thread: it commits, closes its tasks and leaves the group"
                        );
                        slot.removing = true;
                        slot.stop.store(true, Ordering::Relaxed);
                        slot.removal = Some(Removal {
                            deadline: Instant::now() + timeout,
                            timeout,
                            reply,
                        });
                    }
                }
            }
            Command::GroupShutdown(detail) => {
                if !self.shutting_down {
                    tracing::error!(%detail, "the group coordinator says the application is to shut down; stopping this instance");
                    self.first_error
                        .get_or_insert(StreamsError::ApplicationShutdown { detail });
                    self.begin_shutdown(State::PendingError);
                }
            }
        }
    }

    /// Thread `index` (of `generation`) ended with `result`. Whether this instance just asked
    /// the whole application to shut down.
    fn on_ended(
        &mut self,
        index: usize,
        generation: u32,
        result: Result<(), StreamsError>,
    ) -> bool {
        let Some(slot) = self
            .slots
            .get(&index)
            .filter(|s| s.generation == generation)
        else {
            return false;
        };
        let removing = slot.removing;
        let Some(mut slot) = self.slots.remove(&index) else {
            return false;
        };
        super::metrics::thread_ended(result.is_err());
        if removing {
            if let Err(e) = &result {
                tracing::warn!(thread = index, error = %e, "a processing thread being removed failed while stopping");
            }
            if let Some(removal) = slot.removal.take() {
                let _ = removal.reply.send(Ok(index));
            }
            self.lifecycle.forget_thread(index);
            return false;
        }
        let error = match result {
            Ok(()) => {
                self.lifecycle.thread_state(index, ThreadState::Dead);
                return false;
            }
            Err(e) => e,
        };
        if self.shutting_down {
            tracing::error!(thread = index, error = %error, "processing thread failed while the instance shut down");
            self.lifecycle.thread_state(index, ThreadState::Dead);
            self.first_error.get_or_insert(error);
            return false;
        }
        match self.lifecycle.on_thread_error(&error) {
            ThreadErrorResponse::ReplaceThread => {
                let quick = if slot.started.elapsed() >= STABLE_RUN {
                    0
                } else {
                    self.quick_failures.get(&index).map_or(1, |n| n + 1)
                };
                self.quick_failures.insert(index, quick);
                let delay = replacement_delay(quick);
                tracing::error!(thread = index, error = %error, ?delay, failures_in_a_row = quick, "processing thread failed; replacing it (its open transaction is aborted and its interval redone)");
                metrics::counter!("dekaf.streams.threads.replaced").increment(1);
                if delay.is_zero() {
                    self.spawn(index, self.slots.len() + 1);
                } else {
                    // Failing again right after its start (a record that fails every time, a
                    // cluster refusing it): replaced after a backoff, not in a hot loop.
                    self.lifecycle.thread_state(index, ThreadState::Starting);
                    self.replacements.insert(index, Instant::now() + delay);
                }
                false
            }
            ThreadErrorResponse::ShutdownClient => {
                tracing::error!(thread = index, error = %error, "processing thread failed; stopping the instance");
                self.lifecycle.thread_state(index, ThreadState::Dead);
                self.first_error.get_or_insert(error);
                self.begin_shutdown(State::PendingError);
                false
            }
            ThreadErrorResponse::ShutdownApplication => {
                tracing::error!(thread = index, error = %error, "processing thread failed; asking every instance of the application to shut down");
                self.lifecycle.thread_state(index, ThreadState::Dead);
                self.first_error.get_or_insert(error);
                self.lifecycle
                    .shutdown_application
                    .store(true, Ordering::Relaxed);
                if self.slots.is_empty() {
                    // Only a member can ask: one joins to ask (Kafka Streams adds a thread).
                    tracing::warn!(
                        "no processing thread is left to ask the application to shut down; starting one to ask"
                    );
                    self.spawn(index, self.slots.len() + 1);
                }
                true
            }
        }
    }

    /// Starts the failed threads whose replacement is due.
    fn start_due_replacements(&mut self) {
        let now = Instant::now();
        let due: Vec<usize> = self
            .replacements
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(index, _)| *index)
            .collect();
        for index in due {
            self.replacements.remove(&index);
            if !self.shutting_down {
                self.spawn(index, self.slots.len() + 1);
            }
        }
    }

    /// The earliest deadline of a removal still waiting.
    fn next_removal_deadline(&self) -> Option<Instant> {
        self.slots
            .values()
            .filter_map(|s| s.removal.as_ref().map(|r| r.deadline))
            .min()
    }

    /// Answers the removals whose deadline passed; their threads go on stopping.
    fn expire_removals(&mut self) {
        let now = Instant::now();
        for (index, slot) in &mut self.slots {
            if slot.removal.as_ref().is_some_and(|r| r.deadline <= now)
                && let Some(removal) = slot.removal.take()
            {
                tracing::warn!(
                    thread = *index,
                    "a removed processing thread did not stop in time; it goes on stopping"
                );
                let _ = removal.reply.send(Err(LifecycleError::RemoveTimedOut {
                    index: *index,
                    timeout: removal.timeout,
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_failing_right_after_its_start_is_replaced_after_a_growing_backoff() {
        let delays: Vec<Duration> = (0..9).map(replacement_delay).collect();
        let ms = |n| Duration::from_millis(n);
        assert_eq!(
            delays,
            [
                ms(0),
                ms(0),
                ms(500),
                ms(1000),
                ms(2000),
                ms(4000),
                ms(8000),
                ms(16_000),
                ms(30_000)
            ]
        );
        assert_eq!(replacement_delay(u32::MAX), MAX_BACKOFF);
    }
}
