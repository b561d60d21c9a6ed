//! Round trips and corrupt input for the codec.

use super::describe::*;
use super::heartbeat::*;
use super::*;

fn tasks(s: &str, p: &[i32]) -> TaskIds {
    TaskIds {
        subtopology_id: s.into(),
        partitions: p.to_vec(),
    }
}

fn full_request() -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest {
        group_id: "app".into(),
        member_id: "m-1".into(),
        member_epoch: 0,
        endpoint_information_epoch: 3,
        instance_id: Some("i".into()),
        rack_id: Some("rack-a".into()),
        rebalance_timeout_ms: 30_000,
        topology: Some(Topology {
            epoch: 0,
            subtopologies: vec![
                Subtopology {
                    subtopology_id: "0".into(),
                    source_topics: vec!["in".into()],
                    source_topic_regex: vec![],
                    state_changelog_topics: vec![],
                    repartition_sink_topics: vec!["app-x-repartition".into()],
                    repartition_source_topics: vec![],
                    copartition_groups: vec![],
                },
                Subtopology {
                    subtopology_id: "1".into(),
                    source_topics: vec![],
                    source_topic_regex: vec![],
                    state_changelog_topics: vec![TopicInfo {
                        name: "app-counts-changelog".into(),
                        partitions: 0,
                        replication_factor: 0,
                        topic_configs: vec![KeyValue {
                            key: "cleanup.policy".into(),
                            value: "compact".into(),
                        }],
                    }],
                    repartition_sink_topics: vec![],
                    repartition_source_topics: vec![TopicInfo {
                        name: "app-x-repartition".into(),
                        partitions: 3,
                        replication_factor: -1,
                        topic_configs: vec![],
                    }],
                    copartition_groups: vec![CopartitionGroup {
                        source_topics: vec![],
                        source_topic_regex: vec![],
                        repartition_source_topics: vec![0],
                    }],
                },
            ],
        }),
        active_tasks: Some(vec![tasks("0", &[0, 1])]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![tasks("1", &[2])]),
        process_id: Some("p".into()),
        user_endpoint: Some(Endpoint {
            host: "h".into(),
            port: 65_535,
        }),
        client_tags: Some(vec![KeyValue {
            key: "zone".into(),
            value: "z1".into(),
        }]),
        task_offsets: Some(vec![TaskOffset {
            subtopology_id: "1".into(),
            partition: 2,
            offset: i64::MAX,
        }]),
        task_end_offsets: None,
        shutdown_application: true,
    }
}

fn full_response() -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse {
        throttle_time_ms: 1,
        error_code: 0,
        error_message: None,
        member_id: "m-1".into(),
        member_epoch: 7,
        heartbeat_interval_ms: 5000,
        acceptable_recovery_lag: 10_000,
        task_offset_interval_ms: 60_000,
        status: Some(vec![heartbeat::Status {
            status_code: 3,
            status_detail: "internal topics missing".into(),
        }]),
        active_tasks: Some(vec![tasks("0", &[0, 1, 2]), tasks("1", &[0])]),
        standby_tasks: Some(vec![]),
        warmup_tasks: None,
        topology_description_required: false,
        endpoint_information_epoch: 2,
        partitions_by_user_endpoint: Some(vec![EndpointToPartitions {
            user_endpoint: Endpoint {
                host: "localhost".into(),
                port: 8080,
            },
            active_partitions: vec![TopicPartitions {
                topic: "in".into(),
                partitions: vec![0, 1],
            }],
            standby_partitions: vec![],
        }]),
    }
}

#[test]
fn heartbeat_request_round_trips_in_both_versions() {
    for version in [0, 1] {
        let req = full_request();
        let bytes = req.encode(version).expect("encode");
        assert_eq!(
            StreamsGroupHeartbeatRequest::decode(&bytes, version),
            Ok(req)
        );
        let empty = StreamsGroupHeartbeatRequest::default();
        let bytes = empty.encode(version).expect("encode");
        assert_eq!(
            StreamsGroupHeartbeatRequest::decode(&bytes, version),
            Ok(empty)
        );
    }
}

#[test]
fn heartbeat_response_round_trips_in_both_versions() {
    for version in [0, 1] {
        let mut resp = full_response();
        resp.topology_description_required = version == 1;
        let bytes = resp.encode(version).expect("encode");
        assert_eq!(
            StreamsGroupHeartbeatResponse::decode(&bytes, version),
            Ok(resp)
        );
    }
}

#[test]
fn heartbeat_response_versions_differ_on_the_wire() {
    let resp = full_response();
    let v0 = resp.encode(0).expect("encode");
    let v1 = resp.encode(1).expect("encode");
    // v1: the lag grows from 4 to 8 bytes and TopologyDescriptionRequired adds one.
    assert_eq!(v1.len(), v0.len() + 5);
    assert!(StreamsGroupHeartbeatResponse::decode(&v0, 1).is_err());
}

/// Bytes of a v0 request written out by hand from the schema, to pin the layout.
#[test]
fn heartbeat_leave_request_matches_the_schema_byte_for_byte() {
    let req = StreamsGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "m".into(),
        member_epoch: -1,
        ..Default::default()
    };
    let expected: Vec<u8> = [
        &[2, b'g'][..],            // GroupId
        &[2, b'm'],                // MemberId
        &[0xff, 0xff, 0xff, 0xff], // MemberEpoch -1
        &[0, 0, 0, 0],             // EndpointInformationEpoch
        &[0, 0],                   // InstanceId, RackId: null
        &[0xff, 0xff, 0xff, 0xff], // RebalanceTimeoutMs -1
        &[0xff],                   // Topology: null
        &[0, 0, 0],                // Active/Standby/Warmup: null
        &[0],                      // ProcessId: null
        &[0xff],                   // UserEndpoint: null
        &[0, 0, 0],                // ClientTags, TaskOffsets, TaskEndOffsets: null
        &[0],                      // ShutdownApplication
        &[0],                      // tagged fields
    ]
    .concat();
    assert_eq!(req.encode(0).expect("encode"), expected);
}

#[test]
fn unknown_versions_are_errors() {
    assert!(matches!(
        StreamsGroupHeartbeatRequest::default().encode(2),
        Err(DecodeError::UnsupportedVersion { .. })
    ));
    assert!(StreamsGroupHeartbeatResponse::decode(&[], -1).is_err());
    assert!(StreamsGroupDescribeResponse::decode(&[], 1).is_err());
}

fn describe_response() -> StreamsGroupDescribeResponse {
    let assignment = Assignment {
        active_tasks: vec![tasks("0", &[0])],
        standby_tasks: vec![],
        warmup_tasks: vec![],
    };
    StreamsGroupDescribeResponse {
        throttle_time_ms: 0,
        groups: vec![DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: "app".into(),
            group_state: "Stable".into(),
            group_epoch: 4,
            assignment_epoch: 4,
            topology: Some(DescribedTopology {
                epoch: 0,
                subtopologies: Some(vec![DescribedSubtopology {
                    subtopology_id: "0".into(),
                    source_topics: vec!["in".into()],
                    repartition_sink_topics: vec![],
                    state_changelog_topics: vec![TopicInfo {
                        name: "app-s-changelog".into(),
                        partitions: 3,
                        replication_factor: 1,
                        topic_configs: vec![],
                    }],
                    repartition_source_topics: vec![],
                }]),
            }),
            members: vec![describe::Member {
                member_id: "m".into(),
                member_epoch: 4,
                instance_id: None,
                rack_id: None,
                client_id: "c".into(),
                client_host: "/127.0.0.1".into(),
                topology_epoch: 0,
                process_id: "p".into(),
                user_endpoint: None,
                client_tags: vec![],
                task_offsets: vec![],
                task_end_offsets: vec![],
                assignment: assignment.clone(),
                target_assignment: assignment,
                is_classic: false,
            }],
            authorized_operations: i32::MIN,
        }],
    }
}

#[test]
fn describe_round_trips() {
    let req = StreamsGroupDescribeRequest {
        group_ids: vec!["a".into(), "b".into()],
        include_authorized_operations: true,
    };
    let bytes = req.encode(0).expect("encode");
    assert_eq!(StreamsGroupDescribeRequest::decode(&bytes, 0), Ok(req));
    let resp = describe_response();
    let bytes = resp.encode(0).expect("encode");
    assert_eq!(StreamsGroupDescribeResponse::decode(&bytes, 0), Ok(resp));
}

/// Every strict prefix of a valid message is an error, never a panic, and so is every message
/// with one byte changed (which may also decode to something else: it only must not panic).
#[test]
fn truncated_and_corrupted_bytes_never_panic() {
    type Decodes = fn(&[u8]) -> bool;
    let samples: Vec<(Vec<u8>, Decodes)> = vec![
        (full_request().encode(1).expect("encode"), |b| {
            StreamsGroupHeartbeatRequest::decode(b, 1).is_ok()
        }),
        (full_response().encode(0).expect("encode"), |b| {
            StreamsGroupHeartbeatResponse::decode(b, 0).is_ok()
        }),
        (full_response().encode(1).expect("encode"), |b| {
            StreamsGroupHeartbeatResponse::decode(b, 1).is_ok()
        }),
        (describe_response().encode(0).expect("encode"), |b| {
            StreamsGroupDescribeResponse::decode(b, 0).is_ok()
        }),
    ];
    for (bytes, decodes) in samples {
        assert!(decodes(&bytes));
        for cut in 0..bytes.len() {
            assert!(!decodes(&bytes[..cut]), "prefix of {cut} bytes decoded");
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[i] ^= flip;
                let _ = decodes(&corrupt);
            }
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!decodes(&longer), "trailing byte accepted");
    }
}
