//! Feeds arbitrary bytes to every decoder of the streams-group codec: each must return an error
//! or a value, never panic, hang or allocate without bound. A value that decodes must encode back
//! to the same bytes' meaning (decode ∘ encode ∘ decode = decode).
//!
//! The classic APIs' responses (`responses`) have no encoder here: each must decode
//! to a value or an error, in every version it supports.
//!
//! It depends on the codec's own crate, `dekaf-streams-protocol`, so librdkafka is not built.
#![no_main]

use dekaf_streams_protocol::{
    StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
};
use dekaf_streams_protocol::responses::{
    ApiVersionsResponse, FindCoordinatorResponse, IncrementalAlterConfigsResponse,
    InitProducerIdResponse, OffsetCommitResponse, Response, SaslAuthenticateResponse,
    SaslHandshakeResponse,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    if selector & 0x80 != 0 {
        // A classic API's response, in a version from the selector's low bits.
        let version = i16::from(selector & 0x0f);
        let _ = match selector >> 4 & 7 {
            0 => ApiVersionsResponse::decode(bytes, version).is_ok(),
            1 => FindCoordinatorResponse::decode(bytes, version).is_ok(),
            2 => SaslHandshakeResponse::decode(bytes, version).is_ok(),
            3 => SaslAuthenticateResponse::decode(bytes, version).is_ok(),
            4 => OffsetCommitResponse::decode(bytes, version).is_ok(),
            5 => IncrementalAlterConfigsResponse::decode(bytes, version).is_ok(),
            _ => InitProducerIdResponse::decode(bytes, version).is_ok(),
        };
        return;
    }
    let version = i16::from(selector & 1);
    match selector >> 1 & 3 {
        0 => {
            if let Ok(v) = StreamsGroupHeartbeatResponse::decode(bytes, version) {
                let again = v.encode(version).expect("encode");
                assert_eq!(
                    StreamsGroupHeartbeatResponse::decode(&again, version),
                    Ok(v)
                );
            }
        }
        1 => {
            if let Ok(v) = StreamsGroupHeartbeatRequest::decode(bytes, version) {
                let again = v.encode(version).expect("encode");
                assert_eq!(StreamsGroupHeartbeatRequest::decode(&again, version), Ok(v));
            }
        }
        2 => {
            if let Ok(v) = StreamsGroupDescribeResponse::decode(bytes, 0) {
                let again = v.encode(0).expect("encode");
                assert_eq!(StreamsGroupDescribeResponse::decode(&again, 0), Ok(v));
            }
        }
        _ => {
            if let Ok(v) = StreamsGroupDescribeRequest::decode(bytes, 0) {
                let again = v.encode(0).expect("encode");
                assert_eq!(StreamsGroupDescribeRequest::decode(&again, 0), Ok(v));
            }
        }
    }
});
