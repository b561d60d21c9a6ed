//! Wall-clock punctuation on a processing thread (step 8 of [`processing`](super::processing)).
//!
//! At every look at the clock (every 64 records, or after a poll that came back empty, so at
//! least every 20 ms while the thread has tasks) each task runs the wall-clock punctuations
//! that are due, as Kafka Streams' `TaskManager#punctuate` does once per loop. Under
//! exactly-once the transaction is begun first, so that what a punctuation writes (output,
//! repartition and changelog records) commits with the task's interval. Stream-time
//! punctuations run right after each record, in [`processing`](super::processing).

use std::time::{SystemTime, UNIX_EPOCH};

use rdkafka::producer::Producer;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::record_path::{Processed, ProducerSink, task_failure};
use crate::store::BackendFactory;
use crate::task::{Task, Topology};

/// Milliseconds since the epoch, as Kafka Streams' `Time#milliseconds`.
pub(super) fn wall_clock_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Runs every task's wall-clock punctuations that are due now.
    pub(super) fn punctuate_wall_clock(&mut self) -> Result<(), StreamsError> {
        let now = wall_clock_ms();
        let eos = self.eos();
        let mut transaction_failed = false;
        for active in self.tasks.iter_mut() {
            if !active.task.wall_clock_due(now) {
                continue;
            }
            if eos && !self.interval.txn_open {
                self.clients
                    .producer
                    .begin_transaction()
                    .map_err(StreamsError::kafka("beginning a transaction"))?;
                self.interval.txn_open = true;
            }
            let mut sink = ProducerSink::new(&self.clients.producer, &mut self.interval.changelog);
            let punctuated = active.task.punctuate_wall_clock(now, &mut sink);
            self.interval.commit_requested |= sink.commit_requested;
            if let Err(source) = punctuated {
                match task_failure(active.id, source, &sink, &self.clients.deliveries, eos)? {
                    Processed::TransactionFailed => {
                        transaction_failed = true;
                        break;
                    }
                    Processed::Done => {}
                }
            }
        }
        if transaction_failed {
            tracing::warn!(
                "the transaction failed while a punctuation sent a record; aborting and redoing the interval"
            );
            self.abort_and_rebuild()?;
        }
        Ok(())
    }
}
