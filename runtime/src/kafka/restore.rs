//! Reading changelog partitions back into stores.
//!
//! A task's stores are rebuilt before it processes anything: each changelog partition is read
//! from the store's checkpoint (or the beginning) to its end, and every record is handed to the
//! store. "The end" is where the consumer reports end-of-partition: under `read_committed` that is
//! the last stable offset, so records of transactions that were aborted, or are still open, are
//! never restored.

use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

/// Why a restore stopped.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The consumer failed.
    #[error("restoring {topic}[{partition}] failed: {source}")]
    Kafka {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// What librdkafka said.
        #[source]
        source: KafkaError,
    },
    /// The changelog did not reach its end in time.
    #[error(
        "restoring {pending} changelog partition(s) did not finish within {timeout:?}: check that \
         the broker is reachable and that no transaction on the changelog stays open"
    )]
    TimedOut {
        /// Partitions not finished.
        pending: usize,
        /// The limit.
        timeout: Duration,
    },
    /// The store refused a changelog record.
    #[error("applying a record of {topic}[{partition}]@{offset} to its store failed: {reason}")]
    Apply {
        /// The changelog topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The record's offset.
        offset: i64,
        /// Why.
        reason: String,
    },
}

/// One changelog partition to restore, from `from` (an offset, or the beginning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePartition {
    /// The changelog topic (or the source topic of a table).
    pub topic: String,
    /// The partition, equal to the task's partition.
    pub partition: i32,
    /// Where to start: the offset after the checkpoint, or `Offset::Beginning`.
    pub from: Offset,
}

/// What a restore read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RestoreSummary {
    /// Records applied.
    pub records: u64,
}

/// Reads every partition in `partitions` to its end with `consumer` (which must have
/// `enable.partition.eof=true`), calling `apply(topic, partition, offset, key, value)` for each
/// record. Partitions are read one after the other (librdkafka's end-of-partition event names
/// the partition but not the topic, and a task's changelog partitions share one number). The
/// consumer's assignment is replaced and left empty afterwards. `timeout` bounds the whole call.
pub fn restore<F>(
    consumer: &BaseConsumer,
    partitions: &[RestorePartition],
    timeout: Duration,
    mut apply: F,
) -> Result<RestoreSummary, RestoreError>
where
    F: FnMut(&str, i32, i64, Option<&[u8]>, Option<&[u8]>) -> Result<(), String>,
{
    let deadline = Instant::now() + timeout;
    let mut summary = RestoreSummary::default();
    for (done, p) in partitions.iter().enumerate() {
        let result = restore_one(consumer, p, deadline, &mut apply, &mut summary);
        let _ = consumer.unassign();
        match result {
            Ok(()) => {}
            Err(RestoreError::TimedOut { .. }) => {
                return Err(RestoreError::TimedOut {
                    pending: partitions.len() - done,
                    timeout,
                });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(summary)
}

fn restore_one<F>(
    consumer: &BaseConsumer,
    p: &RestorePartition,
    deadline: Instant,
    apply: &mut F,
    summary: &mut RestoreSummary,
) -> Result<(), RestoreError>
where
    F: FnMut(&str, i32, i64, Option<&[u8]>, Option<&[u8]>) -> Result<(), String>,
{
    let kafka_error = |source| RestoreError::Kafka {
        topic: p.topic.clone(),
        partition: p.partition,
        source,
    };
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(&p.topic, p.partition, p.from)
        .map_err(kafka_error)?;
    consumer.assign(&tpl).map_err(kafka_error)?;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(RestoreError::TimedOut {
                pending: 1,
                timeout: Duration::ZERO,
            });
        }
        match consumer.poll(left.min(Duration::from_millis(100))) {
            None => {}
            Some(Ok(m)) => {
                if let Err(reason) =
                    apply(m.topic(), m.partition(), m.offset(), m.key(), m.payload())
                {
                    return Err(RestoreError::Apply {
                        topic: m.topic().to_owned(),
                        partition: m.partition(),
                        offset: m.offset(),
                        reason,
                    });
                }
                summary.records += 1;
            }
            Some(Err(KafkaError::PartitionEOF(_))) => return Ok(()),
            Some(Err(e)) => return Err(kafka_error(e)),
        }
    }
}
