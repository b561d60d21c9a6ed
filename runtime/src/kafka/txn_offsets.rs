//! Consumed offsets committed inside a producer's transaction, on behalf of a streams-group member.
//!
//! A streams group accepts a `TxnOffsetCommit` only with the committing member's id and current
//! epoch: that is what fences a member the coordinator has moved on from. librdkafka sends
//! whatever consumer-group metadata it is given, but `rdkafka`'s safe API only hands out the
//! metadata of a consumer that joined a classic or consumer group itself. This module builds the
//! metadata for an arbitrary member with `rd_kafka_consumer_group_metadata_new_with_genid` and
//! calls `rd_kafka_send_offsets_to_transaction`; librdkafka copies the metadata, so it is freed
//! right after the call. This file is the only place of the runtime that calls librdkafka's C API.

use std::ffi::{CStr, CString};
use std::ptr;
use std::time::Duration;

use rdkafka::TopicPartitionList;
use rdkafka::bindings as rd;
use rdkafka::producer::{Partitioner, Producer, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;

/// Who commits: the group (the application id) and the member with its current epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberIdentity {
    /// The group id, which is the application id.
    pub group_id: String,
    /// The member id the member joined with.
    pub member_id: String,
    /// The member's current epoch.
    pub member_epoch: i32,
}

/// Why adding offsets to a transaction failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("committing consumed offsets in the transaction failed: {message} ({code:?})")]
pub struct TxnOffsetsError {
    /// librdkafka's error code, e.g. `FencedMemberEpoch` or `UnknownMemberId` when the
    /// coordinator no longer accepts this member's epoch.
    pub code: RDKafkaErrorCode,
    /// librdkafka's description of the error.
    pub message: String,
    /// The producer is unusable and must be recreated (e.g. it was fenced by a newer producer).
    pub fatal: bool,
    /// The transaction must be aborted; the work since the last commit is redone.
    pub requires_abort: bool,
    /// The same call may succeed when tried again.
    pub retriable: bool,
}

impl TxnOffsetsError {
    fn invalid_argument(message: &str) -> Self {
        TxnOffsetsError {
            code: RDKafkaErrorCode::InvalidArgument,
            message: message.to_owned(),
            fatal: false,
            requires_abort: true,
            retriable: false,
        }
    }
}

/// Adds `offsets` (the next offset to read, per partition) to the producer's open transaction as
/// consumed by `member`. The offsets become visible when the transaction commits, and are
/// discarded when it aborts.
///
/// An empty list is a no-op.
pub fn send_offsets_to_transaction<C, P, Part>(
    producer: &P,
    offsets: &TopicPartitionList,
    member: &MemberIdentity,
    timeout: Duration,
) -> Result<(), TxnOffsetsError>
where
    Part: Partitioner,
    C: ProducerContext<Part> + 'static,
    P: Producer<C, Part>,
{
    if offsets.count() == 0 {
        return Ok(());
    }
    let group_id = CString::new(member.group_id.as_str())
        .map_err(|_| TxnOffsetsError::invalid_argument("the group id contains a NUL byte"))?;
    let member_id = CString::new(member.member_id.as_str())
        .map_err(|_| TxnOffsetsError::invalid_argument("the member id contains a NUL byte"))?;
    let timeout_ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: every pointer handed to librdkafka is valid for the duration of the calls: the
    // CStrings and `offsets` outlive them, and `native_ptr()` is the live handle of `producer`.
    // librdkafka copies the group metadata inside `send_offsets_to_transaction`, so it is
    // destroyed right after, exactly once. The returned error object is read, then destroyed
    // exactly once.
    unsafe {
        let metadata = rd::rd_kafka_consumer_group_metadata_new_with_genid(
            group_id.as_ptr(),
            member.member_epoch,
            member_id.as_ptr(),
            ptr::null(),
        );
        if metadata.is_null() {
            return Err(TxnOffsetsError::invalid_argument(
                "librdkafka could not create the group metadata",
            ));
        }
        let error = rd::rd_kafka_send_offsets_to_transaction(
            producer.client().native_ptr(),
            offsets.ptr(),
            metadata,
            timeout_ms,
        );
        rd::rd_kafka_consumer_group_metadata_destroy(metadata);
        if error.is_null() {
            return Ok(());
        }
        let result = TxnOffsetsError {
            code: RDKafkaErrorCode::from(rd::rd_kafka_error_code(error)),
            message: CStr::from_ptr(rd::rd_kafka_error_string(error))
                .to_string_lossy()
                .into_owned(),
            fatal: rd::rd_kafka_error_is_fatal(error) != 0,
            requires_abort: rd::rd_kafka_error_txn_requires_abort(error) != 0,
            retriable: rd::rd_kafka_error_is_retriable(error) != 0,
        };
        rd::rd_kafka_error_destroy(error);
        Err(result)
    }
}
