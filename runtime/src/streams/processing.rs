//! One record's path through a processing thread, from poll to commit.
//!
//! Every processing thread ([`KafkaStreams::run`](super::KafkaStreams::run) starts
//! `threads(n)` OS threads) is one member of the application's streams group. It owns a
//! consumer, a producer and the tasks the group coordinator assigned to it, and runs the loop in
//! this file. Together with [`commit`](super::commit), which ends every commit interval, this
//! file is the whole path of a record:
//!
//! 1. **Assignment.** At the top of every turn the thread takes its member's events
//!    ([`membership`](super::membership)): new tasks are created, their stores restored from
//!    the changelogs and their partitions assigned to the consumer at the committed offsets;
//!    revoked tasks are committed and closed first ([`assignment`](super::assignment)).
//! 2. **Poll.** [`BatchConsumer::fill`](crate::kafka::batch::BatchConsumer::fill) takes up to [`BATCH`] fetched records from librdkafka
//!    in one call ([`crate::kafka::batch`]), borrowed from librdkafka's buffers: the key and
//!    value bytes are not copied. Steps 3-8 run for each record of the batch; assignment
//!    changes, commits and wall-clock punctuation come between batches.
//! 3. **Route.** [`ActiveTasks::route`](super::tasks::ActiveTasks::route) finds the task of the
//!    record's topic and partition, and the record's source index within that task.
//! 4. **Transaction.** Under exactly-once the first record of a commit interval begins the
//!    producer's transaction: everything up to the commit is in it.
//! 5. **Process.** The record becomes an [`InputRecord`](crate::task::InputRecord) (headers are copied only when it has
//!    some, into a list the thread reuses) and goes to [`Task::process`](crate::task::Task::process): the code `topology!` generated for the task
//!    deserializes key and value with the source's serdes and runs the operators, statically
//!    dispatched, reading and writing the task's stores.
//! 6. **Sink.** Whatever the task writes goes to the thread's
//!    [`ProducerSink`](super::record_path::ProducerSink) ([`record_path`](super::record_path),
//!    where steps 3-7 are): output
//!    and repartition records are produced at once (into the open transaction); changelog
//!    records wait in a [`ChangelogBuffer`](super::changelog_buffer::ChangelogBuffer), only the latest per key, until the commit.
//! 7. **Progress.** A processed record moves its task's position past it (`offset + 1`): that
//!    is the offset the next commit stores for the partition.
//! 8. **Punctuate.** After each record its task runs the stream-time punctuations now due;
//!    at every look at the clock (below) every task runs its wall-clock punctuations due, also
//!    when no record came ([`punctuate`](super::punctuate)). Their output joins the interval.
//! 9. **Commit.** Every commit interval (the clock is read once per 64 records, or whenever a
//!    poll comes back empty), or, when the thread has processed everything it fetched and is
//!    not busy (at most 1,000 records per commit interval, pro rata, since the last commit),
//!    once the idle commit interval (10 ms) has passed since the last commit,
//!    [`commit`](super::commit) flushes the record caches and the
//!    changelog buffer, then commits the output and the consumed offsets together: in the
//!    transaction under exactly-once, or after a producer flush with an OffsetCommit under
//!    at-least-once.
//!
//! A record whose task fails (its `on_error` chose `Fail`) ends the thread: nothing of its
//! interval is committed. A failed commit is undone and redone ([`abort`](super::abort)). When
//! the application stops, the thread commits once more, closes its tasks (syncing their
//! stores) and leaves the group.
//!
//! Helpers, each in its own module: [`clients`](super::clients) (creating the librdkafka
//! clients), [`tasks`](super::tasks) (the active tasks and the routing table),
//! [`changelog_buffer`](super::changelog_buffer), [`consumer_errors`](super::consumer_errors)
//! (which consumer errors are retried), [`state`](super::state) (on-disk stores).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::clients::ThreadClients;
use super::config::{ProcessingGuarantee, StreamsConfig};
use super::consumer_errors::ConsumerErrors;
use super::context::ThreadContext;
use super::error::StreamsError;
use super::interval::Interval;
use super::lifecycle::ThreadState;
use super::membership::Membership;
use super::metrics::ThreadMetrics;
use super::periodic_report::Reports;
use super::record_path::{Processed, process};
use super::tasks::ActiveTasks;
use crate::group::{GroupStatus, MemberEvent, Phase, StatusCode};
use crate::kafka::batch::{BATCH, Entry};
use crate::query::registry::Publisher;
use crate::standby::Standbys;
use crate::store::BackendFactory;
use crate::task::{Headers, Topology};

/// How long a poll waits for a record.
const POLL: Duration = Duration::from_millis(20);
/// Records processed between two looks at the clock (is a commit due?): one full batch.
const RECORDS_PER_CLOCK_CHECK: u32 = BATCH as u32;
/// How long standbys may apply changelog records at each look at the clock.
const STANDBY_BUDGET: Duration = Duration::from_millis(5);
/// How long standbys may apply changelog records per turn when there is nothing to process.
const STANDBY_IDLE_BUDGET: Duration = Duration::from_millis(50);
/// The most records per commit interval a thread may process, pro rata of the time since its
/// last commit, and still commit early once its fetched queue runs dry
/// ([`idle_commit_interval`](super::Builder::idle_commit_interval)): a thread that processes
/// more is busy, and commits every commit interval.
const IDLE_COMMIT_MAX_RECORDS: u32 = 1000;

/// Whether `records` processed over `span` (since the last commit began) is a quiet rate: at
/// most [`IDLE_COMMIT_MAX_RECORDS`] per `commit_interval`, pro rata.
///
/// A rate, not a count: under a loaded machine one commit can take hundreds of milliseconds,
/// and a steady 1 000 records/s input (a word count's 6 000 records/s with its repartition
/// topic) then gathered more than 1 000 records per interval. Counted, that made the thread
/// "busy", so it waited out the commit interval after every slow commit: the opposite of what a
/// slow input needs.
///
/// The rate of this interval only, not of the one before: when a backlog ends the interval
/// after it is judged by its own input. Judged by the backlog's interval too, the first two
/// intervals of a live input after a backlog waited out the whole commit interval (100 ms)
/// where every later one committed after 10 ms: the window benchmark's p99 at 1 000 records/s
/// was 77 ms against a p50 of 11 ms, all of it those intervals. Early in an interval the rate
/// is taken over at least the idle commit interval, the earliest an idle commit comes: a
/// backlog's thousand records in its first millisecond are busy, a live input's ten are not.
fn quiet_interval(records: u32, span: Duration, commit_interval: Duration) -> bool {
    u128::from(records) * commit_interval.as_micros()
        <= u128::from(IDLE_COMMIT_MAX_RECORDS) * span.as_micros()
}

/// The loop's count of what it processed, which decides when it looks at the clock and when a
/// quiet interval commits early.
struct Pace {
    /// Records processed since the last look at the clock.
    since_clock_check: u32,
    /// Records processed since the last commit of this loop: once the fetched queue runs dry,
    /// the thread commits after `idle_commit_interval` rather than `commit_interval`.
    uncommitted: bool,
    /// How many, and when that commit began.
    since_commit: u32,
    interval_start: Instant,
    /// The interval before this one ended busy (not [`quiet_interval`]).
    busy_before: bool,
    /// The thread's commit interval and idle commit interval (at most the commit interval).
    commit_interval: Duration,
    idle_commit: Duration,
}

impl Pace {
    fn new(config: &StreamsConfig) -> Self {
        Pace {
            since_clock_check: 0,
            uncommitted: false,
            since_commit: 0,
            interval_start: Instant::now(),
            busy_before: false,
            commit_interval: config.commit_interval,
            idle_commit: config.idle_commit_interval.min(config.commit_interval),
        }
    }

    /// Whether the thread, caught up with what it fetched, may commit after the idle commit
    /// interval: this interval is quiet, or the one before it was.
    ///
    /// A thread is busy (and commits once per commit interval) only when **two intervals in a
    /// row** went over the quiet rate. One busy interval after a quiet one is a catch-up, not a
    /// backlog: a commit slowed by the broker (a 100-300 ms garbage-collection pause of a busy
    /// broker) leaves the records that came meanwhile, and the repartition records its
    /// transaction made readable, to be processed at once. Judged alone, that burst made the
    /// thread wait for the commit interval to bring its rate down (records / 10 ms: 73, 46,
    /// 24 ms in the intervals after a 137 ms commit; 146, 83, 89, 56, 30 ms after a 330 ms one), so
    /// every stall of the broker came back as a second one, as long, in the latency tail: word
    /// count's p99 at 1 000 sentences/s was 130-287 ms in four runs of five against a p50 of 35
    /// ms. A real backlog stays busy interval after interval and still commits once per commit
    /// interval, from its second interval on.
    fn may_commit_early(&self) -> bool {
        !self.busy_before || self.quiet()
    }

    /// Whether this interval's own rate so far is quiet ([`quiet_interval`]), taken over at
    /// least the idle commit interval.
    fn quiet(&self) -> bool {
        quiet_interval(
            self.since_commit,
            self.interval_start.elapsed().max(self.idle_commit),
            self.commit_interval,
        )
    }

    /// A commit begins: the next interval starts now, and remembers whether this one was busy.
    fn committing(&mut self) {
        self.busy_before = !self.quiet();
        self.uncommitted = false;
        self.since_commit = 0;
        self.interval_start = Instant::now();
    }
}

/// The state of one processing thread, in parts each changed by its own module: the clients
/// ([`clients`](super::clients)), the member ([`membership`](super::membership)), the active
/// tasks ([`tasks`](super::tasks), changed by [`assignment`](super::assignment)), the commit
/// interval ([`commit`](super::commit) and [`abort`](super::abort)), the standbys
/// ([`standbys`](super::standbys)) and the reports ([`periodic_report`](super::periodic_report)).
pub(crate) struct StreamThread<T: Topology, F: BackendFactory> {
    pub(super) ctx: ThreadContext,
    pub(super) stores: F,
    pub(super) member: Membership,
    pub(super) clients: ThreadClients,
    pub(super) tasks: ActiveTasks<T, F>,
    pub(super) interval: Interval,
    /// The consumer errors seen, to tell those to retry from those that stop the application.
    pub(super) consumer_errors: ConsumerErrors,
    /// Publishes the tasks' committed state for interactive queries.
    pub(super) publisher: Publisher,
    pub(super) standby: Standbys<T::Task<F::Backend>>,
    /// Kafka Streams' thread and task metrics (see [`super::metrics`]).
    pub(super) metrics: ThreadMetrics,
    pub(super) reports: Reports,
    /// The headers of the record being processed, refilled per record that has headers.
    pub(super) header_scratch: Headers,
    /// Which sources of a task holding records back are caught up, refilled per task at each
    /// look at the clock (`process_waiting`): no allocation once it has grown.
    pub(super) caught_up_scratch: Vec<bool>,
    /// Partition counts of source topics looked up when a task of several source topics is
    /// created (see `absent_sources`).
    pub(super) partition_counts: std::collections::HashMap<&'static str, i32>,
    /// What each task counted, gathered at a commit: no allocation once it has grown.
    pub(super) counts_scratch: Vec<(super::tasks::TaskId, super::metrics::TaskCounts)>,
}

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Creates the clients and joins the group.
    pub(crate) fn start(ctx: ThreadContext, stores: F) -> Result<Self, StreamsError> {
        let clients = ThreadClients::create::<T>(&ctx)?;
        let member = ctx.handle.block_on(Membership::join::<T>(&ctx))?;
        member.install_poll_watch();
        let mut tasks = ActiveTasks::default();
        tasks.set_cache_max_bytes(ctx.config.cache_max_bytes / ctx.live_threads.max(1));
        Ok(StreamThread {
            stores,
            member,
            clients,
            tasks,
            interval: Interval::new(T::INFO),
            consumer_errors: ConsumerErrors::default(),
            publisher: Publisher::new(Arc::clone(&ctx.queries), ctx.index),
            standby: Standbys::new(),
            metrics: ThreadMetrics::new(format!("{}-{}", T::APPLICATION_ID, ctx.index)),
            reports: Reports::new(),
            header_scratch: Headers::new(),
            caught_up_scratch: Vec::new(),
            partition_counts: std::collections::HashMap::new(),
            counts_scratch: Vec::new(),
            ctx,
        })
    }

    /// Whether the thread runs under exactly-once.
    pub(super) fn eos(&self) -> bool {
        self.ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce
    }

    /// Runs until the application stops or fails, then commits (when it stopped cleanly),
    /// closes the tasks and leaves the group.
    pub(crate) fn run(mut self) -> Result<(), StreamsError> {
        let result = self.run_loop();
        let closed = self.close(result.is_ok());
        result.and(closed)
    }

    /// The loop: assignment changes (1), poll (2), the batch's records through their tasks
    /// (3-7), then at each look at the clock wall-clock punctuation (8) and commit when due (9).
    fn run_loop(&mut self) -> Result<(), StreamsError> {
        let mut pace = Pace::new(&self.ctx.config);
        while !self.ctx.stop.load(Ordering::Relaxed) {
            // Back in the loop: the member's bound on this (`max_poll_interval`) starts again.
            self.member.polled();
            if self.member.take_poll_expired() {
                // The member left the group while the thread was away (stuck in user code):
                // its tasks belong to others now. Nothing of the interval may be committed.
                tracing::warn!(
                    "back in the loop after the member left the group (max_poll_interval passed); \
                     dropping the tasks without committing and rejoining"
                );
                self.lose_all_and_rejoin()?;
                pace = Pace::new(&self.ctx.config);
                continue;
            }
            let assignment_changed = self.take_member_events()?;
            // Tasks taken on are restored: the thread runs them (or none).
            self.report(ThreadState::Running);
            if self.ctx.lifecycle.paused() {
                // Paused (`Lifecycle::pause`): no processing, punctuation or standby updates;
                // what was processed before still commits, and the member goes on.
                if pace.uncommitted {
                    pace.committing();
                    self.commit()?;
                }
                self.serve_main_queue()?;
                std::thread::sleep(POLL);
                continue;
            }
            if self.tasks.is_empty() {
                // Nothing to process: the standbys may take their time. The main queue's
                // events (logs, global errors, token refreshes) are served all the same: a
                // thread without tasks left them queued until it had some again.
                self.serve_main_queue()?;
                if self.maintain_standbys(assignment_changed, STANDBY_IDLE_BUDGET)? == 0 {
                    std::thread::sleep(POLL);
                }
                continue;
            }
            if assignment_changed {
                self.maintain_standbys(true, STANDBY_BUDGET)?;
            }
            let Some(n) = self.poll_or_commit(&mut pace)? else {
                continue;
            };
            let Some(errors) = self.process_batch(n, &mut pace)? else {
                continue;
            };
            // A task that asked for a commit (`ctx.commit()`) has it at this clock check,
            // between batches, where the consumer's positions match what the tasks were handed.
            if n > 0
                && !errors
                && pace.since_clock_check < RECORDS_PER_CLOCK_CHECK
                && !self.interval.commit_requested
            {
                continue;
            }
            self.at_clock_check(&mut pace)?;
        }
        Ok(())
    }

    /// Takes the member's events (1): statuses, and assignment changes (tasks added, revoked
    /// or lost). Whether the assignment changed.
    fn take_member_events(&mut self) -> Result<bool, StreamsError> {
        let mut assignment_changed = false;
        while let Some(event) = self.member.try_event()? {
            if let MemberEvent::Status(statuses) = &event {
                self.on_statuses(statuses);
                continue;
            }
            assignment_changed = true;
            self.report(ThreadState::Rebalancing);
            match event {
                MemberEvent::Assigned { active, .. } => {
                    self.member.doing(Phase::Assigning);
                    self.add(&active)?
                }
                MemberEvent::Revoked(tasks) => {
                    self.member.doing(Phase::Revoking);
                    self.revoke(&tasks)?
                }
                MemberEvent::Lost(tasks) => self.lose(Some(&tasks))?,
                MemberEvent::Status(_) => {}
            }
        }
        if assignment_changed {
            self.report_tasks();
        }
        Ok(assignment_changed)
    }

    /// Polls the next batch (2), or commits a quiet interval once caught up. `None` when the
    /// turn ends here (committed, or out of the group).
    ///
    /// With uncommitted work the batch call does not wait: an empty queue means the thread has
    /// caught up with what it fetched. It commits then if `idle_commit` has passed since the
    /// last commit and the thread is not busy: since that commit it processed at most
    /// IDLE_COMMIT_MAX_RECORDS records per commit interval (`quiet_interval`). Under a backlog
    /// more commits would only cost more records (each cache flush and changelog writes one per
    /// changed key), so a busy thread commits every commit interval. The clock is read around
    /// each poll (a batch of up to 64 records, for the poll metrics) and when the queue is
    /// empty, never per record.
    fn poll_or_commit(&mut self, pace: &mut Pace) -> Result<Option<usize>, StreamsError> {
        let idle_commit = pace.idle_commit;
        let consumer = &mut self.clients.consumer;
        let n = match self.reports.poll(
            consumer,
            if pace.uncommitted {
                Duration::ZERO
            } else {
                POLL
            },
        ) {
            0 if pace.uncommitted && pace.may_commit_early() => {
                // Caught up with what was fetched: held-back records whose wait is over go
                // into this commit, not the next one.
                self.process_waiting()?;
                if self.member.poll_expired() {
                    // Stuck meanwhile, and no longer in the group: no commit.
                    return Ok(None);
                }
                let elapsed = self.interval.last_commit.elapsed();
                if elapsed >= idle_commit {
                    pace.since_clock_check = 0;
                    pace.committing();
                    self.commit()?;
                    return Ok(None);
                }
                let wait = (idle_commit - elapsed).min(POLL);
                self.reports.poll(&mut self.clients.consumer, wait)
            }
            0 if pace.uncommitted => self.reports.poll(consumer, POLL),
            n => n,
        };
        Ok(Some(n))
    }

    /// Takes the `n` entries of the batch through their tasks (3-7). Whether the consumer
    /// reported errors among them; `None` when the turn ends here (out of the group).
    ///
    /// The whole batch is routed before anything else happens, and none of it outlives this
    /// turn. What a batch changes against one record per poll (see `kafka::batch`):
    /// - librdkafka moves the consumer's positions past the whole batch when it hands it over,
    ///   and the commit (`advance_past_markers`) and the held-back records (`process_waiting`)
    ///   read those positions as "handed out to the tasks": a commit or a caught-up check in
    ///   the middle of a batch would commit past, or order records before, records still in
    ///   it. Both come only between batches.
    /// - librdkafka drops records fetched before a seek or an unassignment when it hands them
    ///   out, so a batch taken before a rewind still holds them: a rewind in the middle (an
    ///   aborted interval) drops the rest of the batch.
    /// - assignment changes (revoked partitions included), the stop flag, commits and
    ///   punctuation come between batches, as they came between records; a batch holds at most
    ///   RECORDS_PER_CLOCK_CHECK records, so the clock is still looked at after at most that
    ///   many, and a record of a task gone meanwhile finds no route.
    /// - the batch call serves no events: the main queue's errors, logs and token refreshes are
    ///   served below (`serve_main_queue`), once per batch.
    fn process_batch(&mut self, n: usize, pace: &mut Pace) -> Result<Option<bool>, StreamsError> {
        let mut errors = false;
        let mut transaction_failed = false;
        for i in 0..n {
            match self.clients.consumer.entry(i) {
                Some(Entry::Record(record)) => {
                    pace.uncommitted = true;
                    pace.since_commit = pace.since_commit.saturating_add(1);
                    pace.since_clock_check += 1;
                    let eos = self.eos();
                    let processed = process(
                        &mut self.tasks,
                        &self.clients.producer,
                        &mut self.interval.changelog,
                        &self.clients.deliveries,
                        eos.then_some(&mut self.interval.txn_open),
                        record,
                        &mut self.header_scratch,
                        &mut self.interval.commit_requested,
                    )?;
                    if processed == Processed::TransactionFailed {
                        transaction_failed = true;
                        break;
                    }
                }
                Some(Entry::Error(e)) => {
                    errors = true;
                    self.consumer_errors
                        .on_error(e, &self.clients.consumer, T::APPLICATION_ID)?;
                }
                None => {}
            }
        }
        // Nothing of a batch outlives it: the next assignment change, rewind or commit finds
        // no record of it left to process.
        self.clients.consumer.discard();
        self.pace_partitions()?;
        if self.member.poll_expired() {
            // A record kept the thread away past `max_poll_interval` and the member left the
            // group: the top of the loop drops the tasks; nothing is committed.
            return Ok(None);
        }
        if transaction_failed {
            // The open transaction failed under the sink (a record timed out while the cluster
            // or this member stalled): abortable, as at a commit. The rebuild rewinds the
            // consumer to the committed offsets, so the rest of the batch (fetched before the
            // rewind) is dropped, not processed: librdkafka's filter of records from before a
            // seek applied when the batch was taken.
            tracing::warn!(
                "the transaction failed while a record was sent; aborting and redoing the interval"
            );
            self.abort_and_rebuild()?;
        }
        // Errors on the main queue (authentication, all brokers down), as poll returned them.
        errors |= self.serve_main_queue()?;
        Ok(Some(errors))
    }

    /// A look at the clock: held-back records, standbys, wall-clock punctuation (8), the
    /// periodic report, and the commit when the commit interval has passed or a task asked for
    /// one (9).
    fn at_clock_check(&mut self, pace: &mut Pace) -> Result<(), StreamsError> {
        pace.since_clock_check = 0;
        self.process_waiting()?;
        self.pace_partitions()?;
        self.maintain_standbys(false, STANDBY_BUDGET)?;
        self.member.doing(Phase::Punctuating);
        self.punctuate_wall_clock()?;
        self.reports.report_when_due(
            &mut self.tasks,
            &self.clients.consumer,
            &self.metrics,
            &self.ctx,
        );
        if (self.interval.commit_requested
            || self.interval.last_commit.elapsed() >= self.ctx.config.commit_interval)
            && !self.member.poll_expired()
        {
            pace.committing();
            self.commit()?;
        }
        Ok(())
    }

    /// Tells the instance this thread's state, when it changed.
    fn report(&mut self, state: ThreadState) {
        if self.reports.state != state {
            self.reports.state = state;
            self.ctx.lifecycle.thread_state(self.ctx.index, state);
        }
    }

    /// Tells the instance which tasks this thread runs and keeps as standbys.
    pub(super) fn report_tasks(&self) {
        let active = self.tasks.ids().iter().map(ToString::to_string).collect();
        let standby = self
            .standby
            .tasks
            .ids()
            .iter()
            .map(ToString::to_string)
            .collect();
        self.ctx
            .lifecycle
            .thread_tasks(self.ctx.index, active, standby);
    }

    /// The group's statuses changed: a `SHUTDOWN_APPLICATION` (an instance asked every instance
    /// to stop) goes to the instance, which stops its threads.
    fn on_statuses(&self, statuses: &[GroupStatus]) {
        if let Some(shutdown) = statuses
            .iter()
            .find(|s| s.code == StatusCode::ShutdownApplication)
        {
            self.ctx.lifecycle.group_shutdown(shutdown.detail.clone());
        }
    }

    /// Serves the consumer's main queue: logs and statistics to the context, token refreshes,
    /// and global errors (authentication, all brokers down) to the error policy. Whether there
    /// was an error.
    fn serve_main_queue(&mut self) -> Result<bool, StreamsError> {
        let mut errors = false;
        while let Some(e) = self.clients.consumer.next_error() {
            errors = true;
            self.consumer_errors
                .on_error(e, &self.clients.consumer, T::APPLICATION_ID)?;
        }
        Ok(errors)
    }

    /// Ends the thread: commits (after a clean stop) or aborts (after a failure), closes the
    /// tasks and leaves the group.
    fn close(&mut self, clean: bool) -> Result<(), StreamsError> {
        // A thread interrupted while the cluster was unreachable does not know what committed.
        let clean = clean && !self.interval.interrupted;
        let committed = if clean {
            self.commit()
        } else {
            self.abort_on_failure();
            Ok(())
        };
        let tasks = self.tasks.drain();
        let n = tasks.len();
        for active in tasks {
            self.publish_closed(active.id);
            self.metrics.task_closed(active.id);
            // Only a clean, committed close marks the task closed cleanly.
            if clean && committed.is_ok() && !self.interval.interrupted {
                self.close_committed(active);
            }
        }
        metrics::gauge!("dekaf.streams.tasks.active").decrement(n as f64);
        // A standby's stores hold committed changelog records only: checkpointing them is
        // right whatever became of the active tasks' last interval.
        self.close_standbys(!self.interval.interrupted);
        self.publisher.forget_standbys();
        let handle = self.ctx.handle.clone();
        handle.block_on(self.member.leave());
        committed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERVAL: Duration = Duration::from_millis(100);

    #[test]
    fn a_slow_input_is_quiet_even_when_a_slow_commit_gathered_many_records() {
        // 6 000 records/s (word count's input and repartition records at 1 000 sentences/s)
        // over an interval stretched to 250 ms by a slow commit.
        assert!(quiet_interval(1500, Duration::from_millis(250), INTERVAL));
        assert!(quiet_interval(0, Duration::ZERO, INTERVAL));
    }

    #[test]
    fn a_backlog_is_busy() {
        // 50 000 records/s: a backlog.
        assert!(!quiet_interval(5000, Duration::from_millis(100), INTERVAL));
        assert!(!quiet_interval(1001, Duration::from_millis(50), INTERVAL));
        assert!(quiet_interval(1001, Duration::from_millis(101), INTERVAL));
        // A thousand records in the first 10 ms after a commit: a backlog, not a live input.
        assert!(!quiet_interval(1000, Duration::from_millis(10), INTERVAL));
    }

    fn pace(records: u32, busy_before: bool) -> Pace {
        let mut pace = Pace::new(&StreamsConfig::new("127.0.0.1:9092"));
        pace.since_commit = records;
        pace.busy_before = busy_before;
        pace
    }

    #[test]
    fn a_burst_after_a_quiet_interval_commits_early() {
        // The catch-up after a slow commit: 3 000 records within 10 ms of the commit that
        // ended a quiet interval.
        assert!(pace(3000, false).may_commit_early());
        // The same burst after a busy interval: a backlog, it waits for the commit interval.
        assert!(!pace(3000, true).may_commit_early());
        // A quiet rate commits early whatever came before.
        assert!(pace(50, true).may_commit_early());
    }

    #[test]
    fn a_busy_interval_makes_the_next_one_wait() {
        let mut pace = pace(3000, false);
        pace.committing();
        assert!(pace.busy_before, "3 000 records in 10 ms were busy");
        pace.since_commit = 3000;
        assert!(
            !pace.may_commit_early(),
            "the second busy interval in a row waits"
        );
        pace.since_commit = 20;
        pace.committing();
        assert!(!pace.busy_before, "20 records were quiet");
    }

    #[test]
    fn the_interval_after_a_backlog_is_judged_by_its_own_rate() {
        // 7 000 records/s (word count at 1 000 sentences/s), 10 ms after the commit that ended
        // a backlog: quiet, whatever the backlog's interval held.
        assert!(quiet_interval(70, Duration::from_millis(10), INTERVAL));
    }
}
