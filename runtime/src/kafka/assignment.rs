//! Changing what a consumer fetches without stopping a partition's fetcher twice.
//!
//! librdkafka 2.12 (the version `rdkafka-sys` bundles) aborts the process with
//! `rd_kafka_assignment_partition_stopped: Assertion 'rktp->rktp_started' failed` when a
//! partition whose fetcher is still stopping is removed from the assignment again: the first
//! removal sends the fetcher a stop and marks the partition stopped only when the reply is
//! served, so a second removal within that round trip sends a second stop, and the second
//! reply finds the partition already stopped (librdkafka issue #5573, fixed after 2.15). A full
//! [`assign`](rdkafka::consumer::Consumer::assign) removes every partition, kept ones included,
//! so two assignment changes in quick succession (an interval redone, then a fence noticed by
//! the next heartbeat 30 ms later) were enough on a loaded machine.
//!
//! [`reassign`] changes only what changes: partitions that leave are removed once, new ones are
//! added at their start offset, and kept ones go on fetching. [`rewind`] moves kept partitions
//! back with seeks, which stop nothing.

use std::time::Duration;

use rdkafka::TopicPartitionList;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::{KafkaError, KafkaResult, RDKafkaErrorCode};

/// Makes the consumer's assignment exactly the partitions of `wanted`: those it lacks are added
/// at the offset `wanted` gives, those not in `wanted` are removed, and the others are left as
/// they are (their offsets in `wanted` are ignored; see [`rewind`]).
pub fn reassign<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    wanted: &TopicPartitionList,
) -> KafkaResult<()> {
    let current = consumer.assignment()?;
    let mut added = TopicPartitionList::new();
    for elem in wanted.elements() {
        if current
            .find_partition(elem.topic(), elem.partition())
            .is_none()
        {
            added.add_partition_offset(elem.topic(), elem.partition(), elem.offset())?;
        }
    }
    let mut removed = TopicPartitionList::new();
    for elem in current.elements() {
        if wanted
            .find_partition(elem.topic(), elem.partition())
            .is_none()
        {
            removed.add_partition(elem.topic(), elem.partition());
        }
    }
    if removed.count() > 0 {
        consumer.incremental_unassign(&removed)?;
    }
    if added.count() > 0 {
        consumer.incremental_assign(&added)?;
    }
    Ok(())
}

/// Makes the consumer's assignment the partitions of `positions` ([`reassign`]) and moves each
/// to the offset `positions` gives, with seeks. Records fetched before the seek are not handed
/// out. A partition whose fetcher has not started yet refuses the seek (`State`): it has
/// handed out nothing, so it starts at the offset it was assigned with; the caller must only
/// rewind partitions to where they were assigned or to what they handed out since.
pub fn rewind<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    positions: &TopicPartitionList,
    timeout: Duration,
) -> KafkaResult<()> {
    reassign(consumer, positions)?;
    if positions.count() == 0 {
        return Ok(());
    }
    let sought = consumer.seek_partitions(positions.clone(), timeout)?;
    for elem in sought.elements() {
        match elem.error() {
            // librdkafka reports each partition's seek error as an `OffsetFetch` error.
            Ok(()) | Err(KafkaError::OffsetFetch(RDKafkaErrorCode::State)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
