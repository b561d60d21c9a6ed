//! Kafka requests the runtime encodes itself: StreamsGroupHeartbeat (api key 88, v0 and v1) and
//! StreamsGroupDescribe (api key 89, v0).
//!
//! The `kafka-protocol` crate (0.18) does not carry these two APIs, so their bodies are encoded
//! and decoded here, from the JSON schemas of Apache Kafka 4.4. Both use Kafka's flexible
//! encoding (compact strings and arrays, tagged fields; request header v2, response header v1).
//! Decoding never panics: truncated or corrupt bytes give a [`DecodeError`] (the `fuzz/` crate
//! checks this).
//!
//! The responses of the classic APIs the runtime's own connections send ([`responses`]:
//! ApiVersions, FindCoordinator, SASL, OffsetCommit, IncrementalAlterConfigs, InitProducerId)
//! are decoded here too, not by `kafka-protocol`, whose decoders reserve memory for whatever
//! count a length field claims.

mod common;
pub mod describe;
pub mod heartbeat;
pub mod responses;
pub(crate) mod wire;

pub use common::{Endpoint, KeyValue, TaskIds, TaskOffset, TopicInfo};
pub use describe::{StreamsGroupDescribeRequest, StreamsGroupDescribeResponse};
pub use heartbeat::{StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};
pub use wire::DecodeError;

/// A response header: its correlation id, and its length in bytes (header v1 has tagged fields
/// after the id).
pub fn response_header(buf: &[u8], version: i16) -> Result<(i32, usize), DecodeError> {
    let mut r = wire::Reader::new(buf);
    let correlation_id = r.i32()?;
    if version >= 1 {
        r.tagged_fields()?;
    }
    Ok((correlation_id, buf.len() - r.remaining()))
}

#[cfg(test)]
mod tests;
