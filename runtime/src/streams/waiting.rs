//! Records held back for timestamp order (see [`super::record_queues`]), processed once the
//! sources their task waits for are known to be caught up.
//!
//! A task with several sources processes a buffered record right away only while every source
//! has one. When a source is empty, the thread asks at its next look at the clock (every 64
//! records, or after a poll that came back empty) whether that source is caught up: the
//! consumer's position, or the task's own next offset before the consumer handed out anything
//! of it, at or past the high watermark of the partition's last fetch response
//! ([`crate::kafka::watermarks`]). A partition not fetched yet is not caught up: its records may
//! be earlier than those waiting.

use rdkafka::Offset;
use rdkafka::TopicPartitionList;
use rdkafka::consumer::Consumer;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::record_path::{Processed, Sink, process_buffered};
use crate::kafka::watermarks::cached_watermarks;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Processes the records tasks hold back whose wait is over.
    pub(super) fn process_waiting(&mut self) -> Result<(), StreamsError> {
        if !self
            .tasks
            .iter()
            .any(|t| t.queues.as_ref().is_some_and(|q| !q.is_empty()))
        {
            return Ok(());
        }
        // One look at every position (local, no network round trip).
        let positions = self.clients.consumer.position().unwrap_or_default();
        let eos = self.eos();
        let mut transaction_failed = false;
        for active in self.tasks.iter_mut() {
            let Some(queues) = active.queues.as_ref() else {
                continue;
            };
            if queues.is_empty() {
                continue;
            }
            let caught_up = &mut self.caught_up_scratch;
            caught_up.clear();
            caught_up.extend(
                active
                    .task
                    .source_topics()
                    .iter()
                    .enumerate()
                    .map(|(i, topic)| {
                        let next = next_offset(&positions, topic, active.id.partition)
                            .or(active.positions[i]);
                        cached_watermarks(&self.clients.consumer, topic, active.id.partition)
                            .is_some_and(|(low, high)| next.unwrap_or(low) >= high)
                    }),
            );
            let mut sink = Sink {
                producer: &self.clients.producer,
                changelog: &mut self.interval.changelog,
                deliveries: &self.clients.deliveries,
                commit_requested: &mut self.interval.commit_requested,
            };
            let txn_open = eos.then_some(&mut self.interval.txn_open);
            if process_buffered(active, &mut sink, txn_open, |source| caught_up[source])?
                == Processed::TransactionFailed
            {
                transaction_failed = true;
                break;
            }
        }
        if transaction_failed {
            tracing::warn!(
                "the transaction failed while a held-back record was sent; aborting and redoing the interval"
            );
            self.abort_and_rebuild()?;
        }
        Ok(())
    }
}

/// The consumer's next offset of `topic`/`partition`, once it handed out a record or stepped
/// over a transaction marker of it.
fn next_offset(positions: &TopicPartitionList, topic: &str, partition: i32) -> Option<i64> {
    match positions.find_partition(topic, partition)?.offset() {
        Offset::Offset(o) => Some(o),
        _ => None,
    }
}
