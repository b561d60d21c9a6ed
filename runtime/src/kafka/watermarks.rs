//! What a consumer knows of a partition's end, and of its own position in it, without asking
//! the broker or librdkafka's main thread.
//!
//! Every fetch response carries the partition's high watermark, and librdkafka keeps the last
//! one it saw (`rd_kafka_get_watermark_offsets`, no network round trip). Together with the
//! consumer's position (which librdkafka moves past transaction markers as it hands records
//! out), it says whether a partition with nothing buffered is caught up or may still have
//! records on their way: what Kafka Streams reads from its consumer's fetched lag to decide
//! whether a task may process before all its partitions have data
//! (`PartitionGroup.readyToProcess`).
//!
//! [`SourceView`] reads both for a task's source partitions. `Consumer::position` would do too,
//! but it first asks librdkafka's main thread for the assignment (`rd_kafka_assignment`, an
//! operation queued to that thread and waited for): a thread switch each way, on a path taken
//! every 64 records while a task waits for one of its sources (a tenth of the foreign-key join's
//! processing thread went to it). `rd_kafka_position` on a list of known partitions only reads
//! each partition's position under its lock.

use std::ffi::CString;

use rdkafka::TopicPartitionList;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};

/// The low and high watermarks of `topic`/`partition` as of the consumer's last fetch response
/// for it; `None` before its first one (or for a partition it does not consume).
pub fn cached_watermarks<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    topic: &str,
    partition: i32,
) -> Option<(i64, i64)> {
    let topic = CString::new(topic).ok()?;
    watermarks_of(consumer, &topic, partition)
}

/// [`cached_watermarks`] with the topic's name already NUL-terminated.
///
/// One of the crate's small `unsafe` calls into librdkafka (see `kafka::oauth`'s
/// `set_token`): `rd_kafka_get_watermark_offsets` with a live client handle, a NUL-terminated
/// topic name and two writable integers; it only reads librdkafka's cached values.
fn watermarks_of<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    topic: &CString,
    partition: i32,
) -> Option<(i64, i64)> {
    let (mut low, mut high) = (-1i64, -1i64);
    // SAFETY: `consumer.client().native_ptr()` is the live `rd_kafka_t` owned by `consumer`,
    // borrowed for the whole call; `topic` is NUL-terminated and outlives the call; `low` and
    // `high` are valid for writes.
    let code = unsafe {
        rdkafka::bindings::rd_kafka_get_watermark_offsets(
            consumer.client().native_ptr(),
            topic.as_ptr(),
            partition,
            &mut low,
            &mut high,
        )
    };
    let ok = code == rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR;
    (ok && high >= 0).then_some((low, high))
}

/// The consumer's positions and cached watermarks of a fixed list of partitions (a task's
/// sources, in their order), read without a thread switch and without allocating.
#[derive(Debug)]
pub struct SourceView {
    /// The partitions, in the caller's order; `refresh` writes the positions into it.
    list: TopicPartitionList,
    /// Each partition's topic, NUL-terminated once for the watermark lookups.
    topics: Vec<CString>,
    /// The partition of every topic.
    partition: i32,
}

impl SourceView {
    /// A view of `topic`'s `partition` for every topic of `topics`, in that order (a topic name
    /// with a NUL byte, which Kafka refuses anyway, is kept as an empty name: never found).
    pub fn new<'a>(topics: impl IntoIterator<Item = &'a str>, partition: i32) -> Self {
        let mut list = TopicPartitionList::new();
        let mut names = Vec::new();
        for topic in topics {
            list.add_partition(topic, partition);
            names.push(CString::new(topic).unwrap_or_default());
        }
        Self {
            list,
            topics: names,
            partition,
        }
    }

    /// Reads the consumer's current position of every partition of the view (what
    /// [`position`](Self::position) then returns); a partition the consumer is not assigned
    /// reads as unknown.
    pub fn refresh<C: ConsumerContext>(&mut self, consumer: &BaseConsumer<C>) {
        // SAFETY: the client handle is live for the call; `self.list` is a valid list owned by
        // this view, borrowed mutably for the call, whose `offset` (and `err`) fields
        // `rd_kafka_position` overwrites; it neither keeps nor frees it. A partition not
        // assigned gets `RD_KAFKA_OFFSET_INVALID` and an error in its own element.
        unsafe {
            rdkafka::bindings::rd_kafka_position(consumer.client().native_ptr(), self.list.ptr());
        }
    }

    /// The consumer's next offset of partition `i` as of the last [`refresh`](Self::refresh):
    /// `None` before it handed out a record of it (or stepped over a transaction marker), or
    /// when it is not assigned.
    pub fn position(&self, i: usize) -> Option<i64> {
        if i >= self.topics.len() {
            return None;
        }
        // SAFETY: `self.list` holds exactly `self.topics.len()` elements (added in `new`, never
        // removed), so element `i` is in bounds; it is only read, while `&self` keeps the list
        // alive and unchanged.
        let offset = unsafe { (*(*self.list.ptr()).elems.add(i)).offset };
        (offset >= 0).then_some(offset)
    }

    /// The cached watermarks of partition `i` ([`cached_watermarks`]).
    pub fn watermarks<C: ConsumerContext>(
        &self,
        consumer: &BaseConsumer<C>,
        i: usize,
    ) -> Option<(i64, i64)> {
        watermarks_of(consumer, self.topics.get(i)?, self.partition)
    }
}
