//! Feeds arbitrary bytes to every decoder of the streams-group codec: each must return an error
//! or a value, never panic, hang or allocate without bound. A value that decodes must encode back
//! to the same bytes' meaning (decode ∘ encode ∘ decode = decode).
//!
//! It uses `dekaf-streams` without its `kafka` feature, so librdkafka is not built.
#![no_main]

use dekaf_streams::protocol::{
    StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
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
