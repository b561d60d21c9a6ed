//! What a consumer knows of a partition's end without asking the broker.
//!
//! Every fetch response carries the partition's high watermark, and librdkafka keeps the last
//! one it saw (`rd_kafka_get_watermark_offsets`, no network round trip). Together with the
//! consumer's position (which librdkafka moves past transaction markers as it hands records
//! out), it says whether a partition with nothing buffered is caught up or may still have
//! records on their way: what Kafka Streams reads from its consumer's fetched lag to decide
//! whether a task may process before all its partitions have data
//! (`PartitionGroup.readyToProcess`).

use std::ffi::CString;

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};

/// The low and high watermarks of `topic`/`partition` as of the consumer's last fetch response
/// for it; `None` before its first one (or for a partition it does not consume).
///
/// One of the crate's small `unsafe` calls into librdkafka (see `kafka::oauth`'s
/// `set_token`): `rd_kafka_get_watermark_offsets` with a live client handle, a NUL-terminated
/// topic name and two writable integers; it only reads librdkafka's cached values.
pub fn cached_watermarks<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    topic: &str,
    partition: i32,
) -> Option<(i64, i64)> {
    let topic = CString::new(topic).ok()?;
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
