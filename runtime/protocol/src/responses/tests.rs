//! Each decoder against the `kafka-protocol` crate's encoder of the same message (an
//! independent reading of Kafka's schemas), in every version the runtime may ask for; and
//! against lengths that claim more than the bytes hold.

use bytes::BytesMut;
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Encodable, StrBytes};

use super::*;

fn encode<M: Encodable>(message: &M, version: i16) -> Vec<u8> {
    let mut buf = BytesMut::new();
    message.encode(&mut buf, version).expect("encodes");
    buf.to_vec()
}

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_owned())
}

#[test]
fn api_versions_decode_as_kafka_protocol_encodes_them() {
    let theirs = kp::ApiVersionsResponse::default()
        .with_error_code(35)
        .with_throttle_time_ms(7)
        .with_api_keys(vec![
            kp::api_versions_response::ApiVersion::default()
                .with_api_key(88)
                .with_min_version(0)
                .with_max_version(1),
            kp::api_versions_response::ApiVersion::default()
                .with_api_key(8)
                .with_min_version(2)
                .with_max_version(10),
        ])
        .with_supported_features(vec![
            kp::api_versions_response::SupportedFeatureKey::default()
                .with_name(s("metadata.version"))
                .with_min_version(1)
                .with_max_version(27),
        ]);
    for version in 0..=4 {
        let ours = ApiVersionsResponse::decode(&encode(&theirs, version), version)
            .unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(ours.error_code, 35);
        assert_eq!(
            ours.api_keys,
            vec![
                ApiVersion {
                    api_key: 88,
                    min_version: 0,
                    max_version: 1
                },
                ApiVersion {
                    api_key: 8,
                    min_version: 2,
                    max_version: 10
                }
            ],
            "v{version}"
        );
    }
}

#[test]
fn find_coordinator_decodes_both_shapes() {
    // kafka-protocol refuses to encode a field the version does not have.
    let theirs = |version: i16| {
        let response = kp::FindCoordinatorResponse::default();
        if version >= 4 {
            return response.with_coordinators(vec![
                kp::find_coordinator_response::Coordinator::default()
                    .with_key(s("app"))
                    .with_node_id(kp::BrokerId(3))
                    .with_host(s("broker-3"))
                    .with_port(9096)
                    .with_error_code(0)
                    .with_error_message(None),
            ]);
        }
        let response = response
            .with_error_code(15)
            .with_node_id(kp::BrokerId(2))
            .with_host(s("broker-2"))
            .with_port(9094);
        if version >= 1 {
            response
                .with_throttle_time_ms(3)
                .with_error_message(Some(s("loading")))
        } else {
            response
        }
    };
    for version in 0..=6 {
        let ours = FindCoordinatorResponse::decode(&encode(&theirs(version), version), version)
            .unwrap_or_else(|e| panic!("v{version}: {e}"));
        let c = ours.first().expect("a coordinator");
        if version < 4 {
            let message = (version >= 1).then(|| "loading".to_owned());
            assert_eq!(
                (
                    c.error_code,
                    c.error_message.clone(),
                    c.node_id,
                    c.host.as_str(),
                    c.port
                ),
                (15, message, 2, "broker-2", 9094),
                "v{version}"
            );
        } else {
            assert_eq!(
                (
                    c.error_code,
                    c.error_message.clone(),
                    c.node_id,
                    c.host.as_str(),
                    c.port
                ),
                (0, None, 3, "broker-3", 9096),
                "v{version}"
            );
        }
    }
}

#[test]
fn sasl_responses_decode_as_kafka_protocol_encodes_them() {
    let handshake = kp::SaslHandshakeResponse::default()
        .with_error_code(33)
        .with_mechanisms(vec![s("SCRAM-SHA-512"), s("PLAIN")]);
    for version in 0..=1 {
        let ours = SaslHandshakeResponse::decode(&encode(&handshake, version), version).unwrap();
        assert_eq!(ours.error_code, 33);
        assert_eq!(ours.mechanisms, ["SCRAM-SHA-512", "PLAIN"]);
    }
    let authenticate = kp::SaslAuthenticateResponse::default()
        .with_error_code(58)
        .with_error_message(Some(s("bad password")))
        .with_auth_bytes(bytes::Bytes::from_static(b"r=abc,s=c2FsdA==,i=4096"))
        .with_session_lifetime_ms(3_600_000);
    for version in 0..=2 {
        let ours =
            SaslAuthenticateResponse::decode(&encode(&authenticate, version), version).unwrap();
        assert_eq!(
            (
                ours.error_code,
                ours.error_message.as_deref(),
                ours.auth_bytes.as_slice(),
                ours.session_lifetime_ms
            ),
            (
                58,
                Some("bad password"),
                &b"r=abc,s=c2FsdA==,i=4096"[..],
                if version >= 1 { 3_600_000 } else { 0 }
            ),
            "v{version}"
        );
    }
}

#[test]
fn offset_commit_decodes_as_kafka_protocol_encodes_it() {
    let theirs = kp::OffsetCommitResponse::default()
        .with_throttle_time_ms(1)
        .with_topics(vec![
            kp::offset_commit_response::OffsetCommitResponseTopic::default()
                .with_name(kp::TopicName(s("words")))
                .with_partitions(vec![
                    kp::offset_commit_response::OffsetCommitResponsePartition::default()
                        .with_partition_index(4)
                        .with_error_code(113),
                ]),
        ]);
    for version in 8..=9 {
        let ours = OffsetCommitResponse::decode(&encode(&theirs, version), version).unwrap();
        assert_eq!(
            ours.topics,
            vec![OffsetCommitTopic {
                name: "words".into(),
                partitions: vec![OffsetCommitPartition {
                    partition_index: 4,
                    error_code: 113
                }]
            }]
        );
    }
    assert!(matches!(
        OffsetCommitResponse::decode(&encode(&theirs, 7), 7),
        Err(DecodeError::UnsupportedVersion { .. })
    ));
}

#[test]
fn alter_configs_and_init_producer_id_decode_as_kafka_protocol_encodes_them() {
    let configs = kp::IncrementalAlterConfigsResponse::default().with_responses(vec![
        kp::incremental_alter_configs_response::AlterConfigsResourceResponse::default()
            .with_error_code(42)
            .with_error_message(Some(s("no such config")))
            .with_resource_type(16)
            .with_resource_name(s("my-app")),
    ]);
    for version in 0..=1 {
        let ours =
            IncrementalAlterConfigsResponse::decode(&encode(&configs, version), version).unwrap();
        assert_eq!(
            ours.responses,
            vec![AlterConfigsResult {
                error_code: 42,
                error_message: Some("no such config".into()),
                resource_type: 16,
                resource_name: "my-app".into()
            }]
        );
    }
    let init = kp::InitProducerIdResponse::default()
        .with_error_code(51)
        .with_producer_id(kp::ProducerId(9_000))
        .with_producer_epoch(4);
    for version in 0..=5 {
        let ours = InitProducerIdResponse::decode(&encode(&init, version), version).unwrap();
        assert_eq!(
            (ours.error_code, ours.producer_id, ours.producer_epoch),
            (51, 9_000, 4)
        );
    }
}

/// A count far beyond the bytes that follow it: refused before anything is reserved.
#[test]
fn a_length_claiming_more_than_the_bytes_hold_is_an_error_not_an_allocation() {
    // ApiVersions v3: error code, then a compact array of u32::MAX - 1 elements.
    let mut flexible = vec![0, 0];
    flexible.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    flexible.extend_from_slice(&[0; 16]);
    assert!(matches!(
        ApiVersionsResponse::decode(&flexible, 3),
        Err(DecodeError::InvalidLength { .. })
    ));
    // v0: a classic array of i32::MAX elements.
    let mut classic = vec![0, 0];
    classic.extend_from_slice(&i32::MAX.to_be_bytes());
    classic.extend_from_slice(&[0; 16]);
    assert!(matches!(
        ApiVersionsResponse::decode(&classic, 0),
        Err(DecodeError::InvalidLength { .. })
    ));
    // SaslHandshake: a mechanism name of i16::MAX bytes in a 10-byte body.
    let mut handshake = vec![0, 0, 0, 0, 0, 1];
    handshake.extend_from_slice(&i16::MAX.to_be_bytes());
    handshake.extend_from_slice(b"SC");
    assert!(matches!(
        SaslHandshakeResponse::decode(&handshake, 1),
        Err(DecodeError::InvalidLength { .. })
    ));
    // SaslAuthenticate v1: auth bytes of i32::MAX.
    let mut authenticate = vec![0, 0, 0xff, 0xff];
    authenticate.extend_from_slice(&i32::MAX.to_be_bytes());
    assert!(matches!(
        SaslAuthenticateResponse::decode(&authenticate, 1),
        Err(DecodeError::InvalidLength { .. })
    ));
}

/// Every prefix and every single-byte corruption of valid responses decodes to a value or an
/// error, never a panic.
#[test]
fn truncated_and_corrupted_responses_never_panic() {
    /// Whether bytes decode (as one response type, in one version).
    type Decodes = fn(&[u8], i16) -> bool;
    let samples: Vec<(Vec<u8>, i16, Decodes)> = vec![
        (
            encode(
                &kp::ApiVersionsResponse::default().with_api_keys(vec![
                    kp::api_versions_response::ApiVersion::default().with_api_key(18),
                ]),
                3,
            ),
            3,
            |b, v| ApiVersionsResponse::decode(b, v).is_ok(),
        ),
        (
            encode(
                &kp::FindCoordinatorResponse::default().with_coordinators(vec![
                    kp::find_coordinator_response::Coordinator::default().with_host(s("h")),
                ]),
                4,
            ),
            4,
            |b, v| FindCoordinatorResponse::decode(b, v).is_ok(),
        ),
        (
            encode(
                &kp::OffsetCommitResponse::default().with_topics(vec![
                    kp::offset_commit_response::OffsetCommitResponseTopic::default()
                        .with_name(kp::TopicName(s("t")))
                        .with_partitions(vec![Default::default()]),
                ]),
                9,
            ),
            9,
            |b, v| OffsetCommitResponse::decode(b, v).is_ok(),
        ),
        (
            encode(
                &kp::SaslHandshakeResponse::default().with_mechanisms(vec![s("PLAIN")]),
                1,
            ),
            1,
            |b, v| SaslHandshakeResponse::decode(b, v).is_ok(),
        ),
    ];
    for (bytes, version, decodes) in samples {
        assert!(decodes(&bytes, version));
        for end in 0..bytes.len() {
            assert!(!decodes(&bytes[..end], version), "a prefix of {end} bytes");
        }
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] ^= flip;
                let _ = decodes(&corrupt, version);
            }
        }
    }
}

#[test]
fn delete_groups_decode_as_kafka_protocol_encodes_them() {
    for version in 0..=2 {
        let theirs = kp::DeleteGroupsResponse::default()
            .with_throttle_time_ms(3)
            .with_results(vec![
                kp::delete_groups_response::DeletableGroupResult::default()
                    .with_group_id(kp::GroupId(s("app")))
                    .with_error_code(68),
                kp::delete_groups_response::DeletableGroupResult::default()
                    .with_group_id(kp::GroupId(s("other")))
                    .with_error_code(0),
            ]);
        let ours =
            DeleteGroupsResponse::decode(&encode(&theirs, version), version).expect("decodes");
        assert_eq!(
            ours.results,
            [
                DeletableGroupResult {
                    group_id: "app".into(),
                    error_code: 68
                },
                DeletableGroupResult {
                    group_id: "other".into(),
                    error_code: 0
                },
            ],
            "version {version}"
        );
    }
}
