//! What a processing thread reports about once a second: how far each active task is in its
//! input (to the instance's lifecycle, whose
//! [`ThreadMetadata::task_offsets`](super::ThreadMetadata::task_offsets) the status page shows),
//! and the metrics measured over that second: each partition's lag, each task's record
//! lateness, the thread's polls.
//!
//! A task's position in a partition is the next offset it processes (past the last record it
//! processed, or the group's committed offset before it processed one, or the log's start when
//! the group committed none); the partition's end is the consumer's cached end from its last
//! fetch response, read without a request. The lag is their difference: what Kafka Streams'
//! consumer reports as `records-lag` (`consumer-fetch-manager-metrics`), here counted from what
//! the task processed rather than from what the consumer fetched, so records waiting in the
//! thread's queues count too.
//!
//! Averages and maxima (record lateness, poll latency) cover the second since the last report,
//! as Kafka Streams' `-avg` and `-max` cover their sample window; they are gauges, set at each
//! report. Record lateness is Kafka Streams' `record-lateness` (recorded there at the `DEBUG`
//! level only): how far behind the task's stream time a record's timestamp lay when the task
//! processed it.

use std::time::{Duration, Instant};

use super::context::ThreadContext;
use super::lifecycle::{PartitionOffsets, TaskOffsets, ThreadState};
use super::metrics::ThreadMetrics;
use super::tasks::{ActiveTasks, Lateness};
use crate::kafka::batch::BatchConsumer;
use crate::kafka::oauth::StreamsConsumerContext;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// How often a thread reports.
pub(super) const REPORT_INTERVAL: Duration = Duration::from_secs(1);

/// What a thread last reported, and what it gathers for its next report.
pub(crate) struct Reports {
    /// The state last told to the instance's lifecycle.
    pub(super) state: ThreadState,
    /// When the thread last reported its tasks' offsets and its metrics.
    pub(super) at: Instant,
    /// Its polls since that report.
    pub(super) polls: Polls,
}

impl Reports {
    /// Nothing reported yet: the thread is starting.
    pub(super) fn new() -> Self {
        Reports {
            state: ThreadState::Starting,
            at: Instant::now(),
            polls: Polls::default(),
        }
    }
}

/// A thread's polls of its consumer since the last report.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Polls {
    count: u64,
    total: Duration,
    max: Duration,
}

impl Reports {
    /// Takes the next batch of records of `consumer` (see
    /// [`crate::kafka::batch::BatchConsumer::fill`]), timing the poll.
    pub(super) fn poll(
        &mut self,
        consumer: &mut BatchConsumer<StreamsConsumerContext>,
        timeout: Duration,
    ) -> usize {
        let started = Instant::now();
        let n = consumer.fill(timeout);
        let took = started.elapsed();
        self.polls.count += 1;
        self.polls.total += took;
        self.polls.max = self.polls.max.max(took);
        n
    }

    /// Reports when the last report is [`REPORT_INTERVAL`] old: the positions of `tasks` in
    /// their partitions (ends from `consumer`'s last fetches) to the lifecycle of `ctx`, and the
    /// metrics of the thread whose metrics are `metrics`.
    pub(super) fn report_when_due<T: Topology, F: BackendFactory>(
        &mut self,
        tasks: &mut ActiveTasks<T, F>,
        consumer: &BatchConsumer<StreamsConsumerContext>,
        metrics: &ThreadMetrics,
        ctx: &ThreadContext,
    ) {
        let since = self.at.elapsed();
        if since < REPORT_INTERVAL {
            return;
        }
        self.at = Instant::now();
        self.report_polls(metrics.thread_id());
        let mut offsets = Vec::new();
        for active in tasks.iter_mut() {
            let lateness = std::mem::take(&mut active.lateness);
            report_lateness(metrics.thread_id(), &active.id.to_string(), lateness);
            let partitions = active
                .task
                .source_topics()
                .iter()
                .enumerate()
                .map(|(i, topic)| {
                    let partition = active.id.partition;
                    let watermarks = consumer.cached_watermarks(topic, partition);
                    // Nothing processed and nothing committed: the task starts at the log's
                    // start (`auto.offset.reset` is `earliest`, as in Kafka Streams).
                    let position = active.positions[i]
                        .or(active.committed[i])
                        .or(watermarks.map(|(low, _)| low).filter(|low| *low >= 0));
                    let end = watermarks.map(|(_, high)| high);
                    let offsets = PartitionOffsets {
                        topic: (*topic).to_owned(),
                        partition,
                        position,
                        end,
                    };
                    if let Some(lag) = offsets.lag() {
                        metrics::gauge!(
                            "kafka.consumer.consumer_fetch_manager_metrics.records_lag",
                            "thread_id" => metrics.thread_id().to_owned(),
                            "topic" => (*topic).to_owned(),
                            "partition" => partition.to_string(),
                        )
                        .set(lag as f64);
                    }
                    offsets
                })
                .collect();
            offsets.push(TaskOffsets {
                task: active.id.to_string(),
                partitions,
            });
        }
        ctx.lifecycle.thread_offsets(ctx.index, offsets);
    }

    /// The polls since the last report, as Kafka Streams' `poll-total` and
    /// `poll-latency-avg`/`-max` (seconds here, ms there).
    fn report_polls(&mut self, thread: &str) {
        let polls = std::mem::take(&mut self.polls);
        // Where a thread's time goes, for a look with `RUST_LOG=dekaf_streams::polls=debug`:
        // the time spent in polls (waiting for records) out of the report interval.
        tracing::debug!(
            target: "dekaf_streams::polls",
            thread,
            polls = polls.count,
            in_polls_ms = polls.total.as_secs_f64() * 1e3,
            max_ms = polls.max.as_secs_f64() * 1e3,
            "polls since the last report"
        );
        let thread = thread.to_owned();
        metrics::counter!("kafka.streams.stream_thread_metrics.poll_total", "thread_id" => thread.clone())
            .increment(polls.count);
        if polls.count > 0 {
            let average = polls.total.as_secs_f64() / polls.count as f64;
            metrics::gauge!("kafka.streams.stream_thread_metrics.poll_latency_avg_seconds", "thread_id" => thread.clone())
                .set(average);
            metrics::gauge!("kafka.streams.stream_thread_metrics.poll_latency_max_seconds", "thread_id" => thread)
                .set(polls.max.as_secs_f64());
        }
    }
}

/// A task's record lateness over the last report's interval, as Kafka Streams'
/// `record-lateness-avg`/`-max` (ms, as there). Nothing is set for a task that processed none.
fn report_lateness(thread: &str, task: &str, lateness: Lateness) {
    if lateness.count == 0 {
        return;
    }
    let labels = [
        ("thread_id", thread.to_owned()),
        ("task_id", task.to_owned()),
    ];
    metrics::gauge!(
        "kafka.streams.stream_task_metrics.record_lateness_avg",
        &labels
    )
    .set(lateness.sum as f64 / lateness.count as f64);
    metrics::gauge!(
        "kafka.streams.stream_task_metrics.record_lateness_max",
        &labels
    )
    .set(lateness.max as f64);
}
