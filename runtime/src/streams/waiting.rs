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

use super::error::StreamsError;
use super::processing::StreamThread;
use super::record_path::{Processed, Sink, process_buffered};
use crate::store::BackendFactory;
use crate::task::Topology;

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
