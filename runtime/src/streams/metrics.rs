//! Kafka Streams' own metrics, under their names, through the `metrics` facade.
//!
//! Kafka Streams publishes its metrics over JMX as `kafka.streams:type=<group>,<tags>` with
//! attributes such as `process-total` and `commit-latency-avg`; a Prometheus JMX exporter turns
//! them into `kafka_streams_<group>_<attribute>{<tags>}`. The instruments below carry those
//! names (`kafka.streams.<group>.<attribute>`, which a Prometheus recorder writes with
//! underscores), so a dashboard built on the JMX exporter's names finds them:
//!
//! | instrument | kind | labels | Kafka Streams (JMX) |
//! |---|---|---|---|
//! | `kafka.streams.stream_thread_metrics.process_total` | counter | `thread_id` | `stream-thread-metrics` `process-total` (`process-rate`: its rate) |
//! | `kafka.streams.stream_thread_metrics.commit_total` | counter | `thread_id` | `commit-total` (`commit-rate`) |
//! | `kafka.streams.stream_thread_metrics.commit_latency_seconds` | histogram | `thread_id` | `commit-latency-avg`, `-max` (in ms there) |
//! | `kafka.streams.stream_thread_metrics.task_created_total` | counter | `thread_id` | `task-created-total` |
//! | `kafka.streams.stream_thread_metrics.task_closed_total` | counter | `thread_id` | `task-closed-total` |
//! | `kafka.streams.stream_thread_metrics.poll_total` | counter | `thread_id` | `poll-total` (`poll-rate`) |
//! | `kafka.streams.stream_thread_metrics.poll_latency_avg_seconds`, `_max_seconds` | gauges | `thread_id` | `poll-latency-avg`, `-max` (ms there), over the last second |
//! | `kafka.streams.stream_task_metrics.record_lateness_avg`, `_max` | gauges | `thread_id`, `task_id` | `record-lateness-avg`, `-max` (ms; Kafka Streams records them at `DEBUG` level only), over the last second |
//! | `kafka.streams.stream_task_metrics.process_total` | counter | `thread_id`, `task_id` | `stream-task-metrics` `process-total` |
//! | `kafka.streams.stream_task_metrics.dropped_records_total` | counter | `thread_id`, `task_id`, `reason` | `dropped-records-total` (ours says why: `late`, `null`, `skipped` by `on_error`, `invalid_timestamp`) |
//! | `kafka.streams.stream_metrics.alive_stream_threads` | gauge | | `stream-metrics` `alive-stream-threads` |
//! | `kafka.streams.stream_metrics.failed_stream_threads` | counter | | `failed-stream-threads` |
//! | `kafka.consumer.consumer_fetch_manager_metrics.records_lag` | gauge | `thread_id`, `topic`, `partition` | the consumer's `consumer-fetch-manager-metrics` `records-lag` (ours: records of the partition the task has not processed, about once a second; see `task_offsets`) |
//!
//! Rates are not published: Prometheus computes them (`rate(…_total[1m])`), as it does for any
//! counter. `thread_id` is the processing thread's name (`<application id>-<number>`), `task_id`
//! Kafka Streams' (`<subtopology>_<partition>`).
//!
//! They are recorded when a thread commits, or in its report of about once a second (polls,
//! lateness, lag: see `periodic_report`), from counts the tasks keep anyway: nothing on the
//! per-record path but plain additions.
//!
//! Not published: Kafka Streams' processor-node and state-store metrics (recorded there at the
//! `DEBUG` level only: per-record timings of every node and store operation, which would put a
//! clock read on the per-record path), and its producer and consumer client metrics other than
//! the lag (librdkafka's statistics cover them: `statistics.interval.ms`).

use std::collections::BTreeMap;

use metrics::{Counter, Histogram};

use super::tasks::TaskId;

/// A processing thread's instruments, and those of its tasks.
pub(crate) struct ThreadMetrics {
    thread_id: String,
    process_total: Counter,
    commit_total: Counter,
    commit_latency: Histogram,
    task_created: Counter,
    task_closed: Counter,
    tasks: BTreeMap<TaskId, TaskMetrics>,
}

/// A task's instruments, and the dropped-record totals it reported so far.
struct TaskMetrics {
    process_total: Counter,
    dropped: [(Counter, u64); 4],
}

/// What a task counted until now.
pub(crate) struct TaskCounts {
    /// Records processed since the last commit.
    pub processed: u64,
    /// Records dropped since the task started: late, null key or value, skipped by `on_error`,
    /// skipped for a negative extracted timestamp.
    pub dropped: [u64; 4],
}

const DROP_REASONS: [&str; 4] = ["late", "null", "skipped", "invalid_timestamp"];

impl ThreadMetrics {
    /// The thread's name, as its instruments' `thread_id` label carries it.
    pub(crate) fn thread_id(&self) -> &str {
        &self.thread_id
    }

    /// The instruments of thread `thread_id`.
    pub(crate) fn new(thread_id: String) -> Self {
        let label = || ("thread_id", thread_id.clone());
        ThreadMetrics {
            process_total: metrics::counter!(
                "kafka.streams.stream_thread_metrics.process_total",
                &[label()]
            ),
            commit_total: metrics::counter!(
                "kafka.streams.stream_thread_metrics.commit_total",
                &[label()]
            ),
            commit_latency: metrics::histogram!(
                "kafka.streams.stream_thread_metrics.commit_latency_seconds",
                &[label()]
            ),
            task_created: metrics::counter!(
                "kafka.streams.stream_thread_metrics.task_created_total",
                &[label()]
            ),
            task_closed: metrics::counter!(
                "kafka.streams.stream_thread_metrics.task_closed_total",
                &[label()]
            ),
            tasks: BTreeMap::new(),
            thread_id,
        }
    }

    /// `n` tasks were created.
    pub(crate) fn tasks_created(&self, n: usize) {
        self.task_created.increment(n as u64);
    }

    /// Task `id` was closed (committed, or dropped).
    pub(crate) fn task_closed(&mut self, id: TaskId) {
        self.task_closed.increment(1);
        self.tasks.remove(&id);
    }

    /// A commit of `seconds` ended; `tasks` say what each task counted.
    pub(crate) fn committed(
        &mut self,
        seconds: f64,
        tasks: impl Iterator<Item = (TaskId, TaskCounts)>,
    ) {
        self.commit_total.increment(1);
        self.commit_latency.record(seconds);
        for (id, counts) in tasks {
            self.process_total.increment(counts.processed);
            let thread_id = &self.thread_id;
            let task = self
                .tasks
                .entry(id)
                .or_insert_with(|| TaskMetrics::new(thread_id, id));
            task.process_total.increment(counts.processed);
            for ((counter, reported), now) in task.dropped.iter_mut().zip(counts.dropped) {
                if now > *reported {
                    counter.increment(now - *reported);
                    *reported = now;
                }
            }
        }
    }
}

impl TaskMetrics {
    fn new(thread_id: &str, id: TaskId) -> Self {
        let labels = |reason: Option<&'static str>| {
            let mut labels = vec![
                ("thread_id", thread_id.to_owned()),
                ("task_id", id.to_string()),
            ];
            if let Some(reason) = reason {
                labels.push(("reason", reason.to_owned()));
            }
            labels
        };
        let dropped = |reason| {
            (
                metrics::counter!(
                    "kafka.streams.stream_task_metrics.dropped_records_total",
                    &labels(Some(reason))
                ),
                0,
            )
        };
        TaskMetrics {
            process_total: metrics::counter!(
                "kafka.streams.stream_task_metrics.process_total",
                &labels(None)
            ),
            dropped: DROP_REASONS.map(dropped),
        }
    }
}

/// The instance's threads: alive now, and failed.
pub(crate) fn thread_started() {
    metrics::gauge!("kafka.streams.stream_metrics.alive_stream_threads").increment(1.0);
}

/// A thread ended; `failed` when with an error.
pub(crate) fn thread_ended(failed: bool) {
    metrics::gauge!("kafka.streams.stream_metrics.alive_stream_threads").decrement(1.0);
    if failed {
        metrics::counter!("kafka.streams.stream_metrics.failed_stream_threads").increment(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    /// Each counter's value by name and labels.
    fn recorded(recorder: &DebuggingRecorder) -> Vec<(String, Vec<String>, u64)> {
        let mut out: Vec<_> = recorder
            .snapshotter()
            .snapshot()
            .into_vec()
            .into_iter()
            .filter_map(|(key, _, _, value)| match value {
                DebugValue::Counter(c) => Some((
                    key.key().name().to_owned(),
                    key.key()
                        .labels()
                        .map(|l| format!("{}={}", l.key(), l.value()))
                        .collect(),
                    c,
                )),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn dropped_records_are_counted_once_per_reason_from_the_tasks_totals() {
        let recorder = DebuggingRecorder::new();
        metrics::with_local_recorder(&recorder, || {
            let mut thread = ThreadMetrics::new("app-0".into());
            let id = TaskId::new("0", 1);
            let counts = |processed, dropped| (id, TaskCounts { processed, dropped });
            thread.committed(0.01, [counts(5, [1, 0, 0, 0])].into_iter());
            // Totals since the task started: only what is new is added.
            thread.committed(0.01, [counts(3, [1, 2, 1, 3])].into_iter());
        });
        // A snapshot hands out what changed since the last one: read it once.
        let all = recorded(&recorder);
        let dropped: Vec<(Vec<String>, u64)> = all
            .iter()
            .filter(|(name, ..)| name.ends_with("dropped_records_total"))
            .map(|(_, labels, n)| (labels.clone(), *n))
            .collect();
        let labels = |reason: &str| {
            vec![
                "thread_id=app-0".to_owned(),
                "task_id=0_1".to_owned(),
                format!("reason={reason}"),
            ]
        };
        assert_eq!(
            dropped,
            vec![
                (labels("invalid_timestamp"), 3),
                (labels("late"), 1),
                (labels("null"), 2),
                (labels("skipped"), 1)
            ]
        );
        let processed: Vec<u64> = all
            .into_iter()
            .filter(|(name, ..)| name.ends_with("process_total"))
            .map(|(.., n)| n)
            .collect();
        assert_eq!(processed, vec![8, 8], "per task and per thread");
    }
}
