//! Records held back for timestamp order (see [`super::record_queues`]), processed once the
//! sources their task waits for are known to be caught up.
//!
//! A task with several sources processes a buffered record right away only while every source
//! has one; a source whose queue fills up is paused meanwhile
//! ([`StreamThread::pace_partitions`]). When a source is empty, the thread asks at its next look
//! at the clock (every 64 records, or after a poll that came back empty) whether that source is
//! caught up: the consumer's position, or the task's own next offset before the consumer handed
//! out anything of it, at or past the high watermark of the partition's last fetch response
//! ([`crate::kafka::watermarks`]). A partition not fetched yet is not caught up: its records may
//! be earlier than those waiting.

use rdkafka::TopicPartitionList;
use rdkafka::consumer::Consumer;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::record_path::{Processed, Sink, process_buffered};
use crate::store::BackendFactory;
use crate::task::Task;
use crate::task::Topology;

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Pauses the partitions whose record queue is full and resumes those whose queue drained
    /// to half, as Kafka Streams pauses a partition holding `buffered.records.per.partition`
    /// records: the queues stay bounded while a task waits for a lagging source, and no record
    /// jumps ahead of one that may be earlier. Nothing is built unless a partition changes.
    pub(super) fn pace_partitions(&mut self) -> Result<(), StreamsError> {
        let changes = self.tasks.iter().any(|t| {
            t.queues
                .as_ref()
                .is_some_and(|q| q.to_pause().next().is_some() || q.to_resume().next().is_some())
        });
        if !changes {
            return Ok(());
        }
        let (mut pause, mut resume) = (TopicPartitionList::new(), TopicPartitionList::new());
        for active in self.tasks.iter_mut() {
            let topics = active.task.source_topics();
            let partition = active.id.partition;
            let Some(queues) = active.queues.as_mut() else {
                continue;
            };
            let (full, drained): (Vec<usize>, Vec<usize>) =
                (queues.to_pause().collect(), queues.to_resume().collect());
            for source in full {
                pause.add_partition(topics[source], partition);
                queues.set_paused(source, true);
            }
            for source in drained {
                resume.add_partition(topics[source], partition);
                queues.set_paused(source, false);
            }
        }
        if pause.count() > 0 {
            tracing::debug!(partitions = ?pause, "paused: their records wait for a lagging source of the same task");
            self.clients
                .consumer
                .pause(&pause)
                .map_err(StreamsError::kafka("pausing partitions whose records wait"))?;
        }
        if resume.count() > 0 {
            self.clients
                .consumer
                .resume(&resume)
                .map_err(StreamsError::kafka("resuming partitions"))?;
        }
        Ok(())
    }

    /// Processes the records tasks hold back whose wait is over.
    pub(super) fn process_waiting(&mut self) -> Result<(), StreamsError> {
        if !self
            .tasks
            .iter()
            .any(|t| t.queues.as_ref().is_some_and(|q| !q.is_empty()))
        {
            return Ok(());
        }
        let eos = self.eos();
        let mut transaction_failed = false;
        for active in self.tasks.iter_mut() {
            let Some(queues) = active.queues.as_ref() else {
                continue;
            };
            if queues.is_empty() {
                continue;
            }
            // One look at the positions of the task's sources (no thread switch, no request).
            active.sources.refresh(&self.clients.consumer);
            let caught_up = &mut self.caught_up_scratch;
            caught_up.clear();
            caught_up.extend((0..active.positions.len()).map(|i| {
                if i < 64 && active.absent & (1 << i) != 0 {
                    // No such partition: nothing to wait for.
                    return true;
                }
                let next = active.sources.position(i).or(active.positions[i]);
                active
                    .sources
                    .watermarks(&self.clients.consumer, i)
                    .is_some_and(|(low, high)| next.unwrap_or(low) >= high)
            }));
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
