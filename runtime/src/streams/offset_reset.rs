//! Where a source starts without a committed offset: per source, Kafka Streams' `AutoOffsetReset`
//! (KIP-1106, `Consumed.withOffsetResetPolicy`), declared with `stream(.., offset_reset(..))`.
//!
//! Every other source starts at the partition's beginning (`auto.offset.reset=earliest`, as in
//! Kafka Streams). A source with its own policy gets a concrete start offset when its task is
//! created, before the consumer is assigned: the partition's end (`latest`: the last stable
//! offset, as the consumer reads `read_committed` under exactly-once), the first record at or
//! after a moment (`by_duration(d)`: now − d, by the records' timestamps; the end if none is that
//! recent), or an error (`none`). A committed offset always wins.

use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::{Offset, TopicPartitionList};

use rdkafka::error::KafkaError;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::punctuate::wall_clock_ms;
use super::tasks::ActiveTask;
use crate::kafka::batch::BatchConsumer;
use crate::kafka::oauth::StreamsConsumerContext;
use crate::store::BackendFactory;
use crate::task::{Task, Topology};
use crate::topology::OffsetReset;

/// How long one broker lookup may take before it is asked again.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Sets the start position of every source of `active` that has no committed offset and a
    /// policy of its own. Lookups that fail are asked again (with a warning every 30 s) until
    /// they answer or the instance stops; a stop returns `Ok(false)`.
    pub(super) fn apply_offset_resets(
        &mut self,
        active: &mut ActiveTask<T, F>,
    ) -> Result<bool, StreamsError> {
        if T::OFFSET_RESETS.is_empty() {
            return Ok(true);
        }
        let partition = active.id.partition;
        for (i, topic) in active.task.source_topics().iter().enumerate() {
            if active.committed[i].is_some() {
                continue;
            }
            let Some(reset) = T::OFFSET_RESETS.iter().find(|r| r.topic == *topic) else {
                continue;
            };
            let start = match reset.reset {
                OffsetReset::Earliest => continue,
                OffsetReset::None => {
                    return Err(StreamsError::NoCommittedOffset {
                        topic: (*topic).to_owned(),
                        partition,
                    });
                }
                OffsetReset::Latest => self.lookup(|c| end_offset(c, topic, partition))?,
                OffsetReset::ByDuration(back) => {
                    let since = wall_clock_ms()
                        .saturating_sub(i64::try_from(back.as_millis()).unwrap_or(i64::MAX));
                    self.lookup(|c| offset_since(c, topic, partition, since))?
                }
            };
            let Some(start) = start else {
                return Ok(false);
            };
            tracing::info!(task = %active.id, topic, partition, start, policy = ?reset.reset, "no committed offset: the source starts where its offset reset says");
            active.starts[i] = Some(start);
            active.positions[i] = Some(start);
        }
        Ok(true)
    }

    /// Runs `ask` on the thread's consumer until it answers; `None` if the instance stops first.
    fn lookup(
        &mut self,
        ask: impl Fn(&BatchConsumer<StreamsConsumerContext>) -> Result<i64, KafkaError>,
    ) -> Result<Option<i64>, StreamsError> {
        let started = Instant::now();
        let mut warned: Option<Instant> = None;
        loop {
            match ask(&self.clients.consumer) {
                Ok(offset) => return Ok(Some(offset)),
                Err(error) => {
                    if warned.is_none_or(|at| at.elapsed() >= Duration::from_secs(30)) {
                        warned = Some(Instant::now());
                        tracing::warn!(%error, waited = ?started.elapsed(), "looking up a source's start offset failed; asking again");
                    }
                }
            }
            if self.interrupted_by_stop() {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The partition's end as the consumer sees it (its isolation level decides: the last stable
/// offset under `read_committed`).
fn end_offset(
    consumer: &BatchConsumer<StreamsConsumerContext>,
    topic: &str,
    partition: i32,
) -> Result<i64, KafkaError> {
    consumer
        .fetch_watermarks(topic, partition, LOOKUP_TIMEOUT)
        .map(|(_, high)| high)
}

/// The offset of the partition's first record stamped `since` or later; its end if none is.
fn offset_since(
    consumer: &BatchConsumer<StreamsConsumerContext>,
    topic: &str,
    partition: i32,
    since: i64,
) -> Result<i64, KafkaError> {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, partition, Offset::Offset(since))?;
    let found = consumer.offsets_for_times(tpl, LOOKUP_TIMEOUT)?;
    match found
        .find_partition(topic, partition)
        .map(|e| (e.offset(), e.error()))
    {
        Some((Offset::Offset(o), Ok(()))) if o >= 0 => Ok(o),
        Some((_, Err(e))) => Err(e),
        _ => end_offset(consumer, topic, partition),
    }
}
