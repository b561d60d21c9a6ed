//! How far each active task is in its input: reported to the instance's lifecycle (its
//! [`ThreadMetadata::task_offsets`](super::ThreadMetadata::task_offsets), which the status page
//! shows) and published as the consumer's per-partition lag, about once a second.
//!
//! A task's position in a partition is the next offset it processes (past the last record it
//! processed, or the group's committed offset before it processed one, or the log's start when
//! the group committed none); the partition's end is
//! the consumer's cached end from its last fetch response, read without a request. The lag is
//! their difference: what Kafka Streams' consumer reports as `records-lag`
//! (`consumer-fetch-manager-metrics`), here counted from what the task processed rather than
//! from what the consumer fetched, so records waiting in the thread's queues count too.

use std::time::{Duration, Instant};

use super::lifecycle::{PartitionOffsets, TaskOffsets};
use super::processing::StreamThread;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// How often a thread reports its tasks' offsets.
pub(super) const REPORT_INTERVAL: Duration = Duration::from_secs(1);

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Reports the active tasks' offsets when the last report is [`REPORT_INTERVAL`] old.
    pub(super) fn report_offsets_when_due(&mut self) {
        if self.offsets_reported.elapsed() < REPORT_INTERVAL {
            return;
        }
        self.offsets_reported = Instant::now();
        let mut offsets = Vec::new();
        for active in self.tasks.iter() {
            let partitions = active
                .task
                .source_topics()
                .iter()
                .enumerate()
                .map(|(i, topic)| {
                    let partition = active.id.partition;
                    let watermarks = self.consumer.cached_watermarks(topic, partition);
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
                            "thread_id" => self.metrics.thread_id().to_owned(),
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
        self.ctx.lifecycle.thread_offsets(self.ctx.index, offsets);
    }
}
