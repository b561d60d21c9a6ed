//! The state machine against scripted coordinator answers.

use super::*;
use crate::group::task::TaskId;
use crate::protocol::TaskIds;
use crate::protocol::heartbeat::Status;
use crate::topology::SubtopologyInfo;

static SUBS: [SubtopologyInfo; 2] = [
    SubtopologyInfo {
        id: "0",
        source_topics: &["in"],
        repartition_source_topics: &[],
        repartition_sink_topics: &[],
        state_changelog_topics: &[],
        sink_topics: &[],
        copartition_groups: &[],
        stores: &[],
    },
    SubtopologyInfo {
        id: "1",
        source_topics: &["other"],
        repartition_source_topics: &[],
        repartition_sink_topics: &[],
        state_changelog_topics: &[],
        sink_topics: &[],
        copartition_groups: &[],
        stores: &[],
    },
];
static INFO: TopologyInfo = TopologyInfo {
    application_id: "app",
    subtopologies: &SUBS,
};

fn membership() -> Membership {
    membership_with_instance(None)
}

fn membership_with_instance(instance_id: Option<&str>) -> Membership {
    membership_with(instance_id, None)
}

fn membership_with(
    instance_id: Option<&str>,
    shutdown_request: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Membership {
    let wire =
        crate::group::topology::heartbeat_topology(&INFO, &Default::default()).expect("topology");
    Membership::new(
        &INFO,
        wire,
        Identity {
            group_id: "app".into(),
            member_id: "m".into(),
            process_id: "p".into(),
            instance_id: instance_id.map(str::to_owned),
            rebalance_timeout_ms: 1000,
            user_endpoint: None,
            shutdown_request,
        },
    )
}

fn ok(epoch: i32, active: Option<&[(&str, &[i32])]>) -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse {
        member_id: "m".into(),
        member_epoch: epoch,
        heartbeat_interval_ms: 500,
        active_tasks: active.map(|a| {
            a.iter()
                .map(|(s, p)| TaskIds {
                    subtopology_id: (*s).into(),
                    partitions: p.to_vec(),
                })
                .collect()
        }),
        standby_tasks: active.map(|_| Vec::new()),
        warmup_tasks: active.map(|_| Vec::new()),
        ..Default::default()
    }
}

fn error(code: i16, message: &str) -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse {
        error_code: code,
        error_message: Some(message.into()),
        ..Default::default()
    }
}

fn t(s: &'static str, p: i32) -> TaskId {
    TaskId::new(s, p)
}

#[test]
fn join_request_carries_the_topology_and_empty_tasks() {
    let m = membership();
    let r = m.request();
    assert_eq!(r.member_epoch, 0);
    assert!(r.topology.is_some());
    assert_eq!(r.rebalance_timeout_ms, 1000);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(r.process_id.as_deref(), Some("p"));
    assert!(m.wants_heartbeat_now());
}

#[test]
fn assignment_is_delivered_and_acknowledged() {
    let mut m = membership();
    let (events, _) = m.on_response(ok(1, None));
    assert!(events.is_empty());
    assert!(!m.wants_heartbeat_now());
    let (events, _) = m.on_response(ok(2, Some(&[("0", &[0, 1]), ("1", &[0])])));
    assert_eq!(
        events,
        vec![MemberEvent::Assigned {
            active: vec![t("0", 0), t("0", 1), t("1", 0)],
            standby: vec![],
            warmup: vec![],
        }]
    );
    assert!(
        m.wants_heartbeat_now(),
        "the new assignment is acknowledged at once"
    );
    let r = m.request();
    assert!(r.topology.is_none());
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        r.active_tasks,
        Some(vec![
            TaskIds {
                subtopology_id: "0".into(),
                partitions: vec![0, 1]
            },
            TaskIds {
                subtopology_id: "1".into(),
                partitions: vec![0]
            },
        ])
    );
}

#[test]
fn revoked_tasks_stay_reported_until_released() {
    let mut m = membership();
    m.on_response(ok(1, Some(&[("0", &[0, 1])])));
    m.on_response(ok(1, None));
    let (events, _) = m.on_response(ok(1, Some(&[("0", &[0])])));
    assert_eq!(events, vec![MemberEvent::Revoked(vec![t("0", 1)])]);
    // Still owned (reported) until the owner releases it.
    assert_eq!(
        m.request().active_tasks.map(|v| v[0].partitions.clone()),
        Some(vec![0, 1])
    );
    assert!(!m.wants_heartbeat_now());
    let events = m.release(&[t("0", 1)]);
    assert!(events.is_empty());
    assert!(m.wants_heartbeat_now());
    assert_eq!(
        m.request().active_tasks.map(|v| v[0].partitions.clone()),
        Some(vec![0])
    );
}

#[test]
fn fenced_member_reports_lost_tasks_and_rejoins_after_release() {
    let mut m = membership();
    m.on_response(ok(3, Some(&[("0", &[0])])));
    let (events, outcome) = m.on_response(error(110, "fenced"));
    assert!(matches!(outcome, Outcome::Continue));
    assert_eq!(events, vec![MemberEvent::Lost(vec![t("0", 0)])]);
    assert!(
        !m.may_heartbeat(),
        "no heartbeat until the owner dropped the tasks"
    );
    m.release(&[t("0", 0)]);
    assert!(m.may_heartbeat());
    let r = m.request();
    assert_eq!(r.member_epoch, 0);
    assert_eq!(r.member_id, "m");
    assert_eq!(r.active_tasks, Some(vec![]));
    assert!(r.topology.is_some());
}

#[test]
fn unknown_member_without_tasks_rejoins_at_once() {
    let mut m = membership();
    m.on_response(ok(3, None));
    let (events, _) = m.on_response(error(25, "unknown member"));
    assert!(events.is_empty());
    assert_eq!(m.request().member_epoch, 0);
    assert!(m.wants_heartbeat_now());
}

#[test]
fn changed_topology_is_a_typed_error() {
    let mut m = membership();
    let (_, outcome) = m.on_response(error(42, "Topology updates are not supported yet."));
    match outcome {
        Outcome::Fatal(e @ GroupError::TopologyChanged { .. }) => {
            let text = e.to_string();
            assert!(text.contains("new application id"), "{text}");
            assert!(text.contains("delete the streams group"), "{text}");
        }
        other => panic!("expected TopologyChanged, got {other:?}"),
    }
}

#[test]
fn coordinator_moves_are_retried() {
    let mut m = membership();
    assert!(matches!(
        m.on_response(error(16, "")).1,
        Outcome::Retry {
            rediscover: true,
            ..
        }
    ));
    assert!(matches!(
        m.on_response(error(15, "")).1,
        Outcome::Retry {
            rediscover: true,
            ..
        }
    ));
    assert!(matches!(
        m.on_response(error(14, "")).1,
        Outcome::Retry {
            rediscover: false,
            ..
        }
    ));
    assert!(matches!(
        m.on_response(error(69, "Group app is not a streams group."))
            .1,
        Outcome::Fatal(GroupError::GroupIdInUse { .. })
    ));
}

#[test]
fn other_retriable_codes_are_retried_and_the_rest_stop_the_member() {
    let mut m = membership();
    // NOT_ENOUGH_REPLICAS (19) and REQUEST_TIMED_OUT (7): Kafka marks them retriable.
    for code in [19, 7] {
        assert!(
            matches!(
                m.on_response(error(code, "")).1,
                Outcome::Retry {
                    rediscover: false,
                    ..
                }
            ),
            "code {code}"
        );
    }
    // UNKNOWN_SERVER_ERROR (-1) is not: the member stops with the broker's message.
    assert!(matches!(
        m.on_response(error(-1, "boom")).1,
        Outcome::Fatal(GroupError::Rejected { .. })
    ));
}

#[test]
fn statuses_are_events_once_per_change() {
    let mut m = membership();
    let mut r = ok(1, None);
    r.status = Some(vec![Status {
        status_code: 1,
        status_detail: "Source topics in are missing.".into(),
    }]);
    let (events, outcome) = m.on_response(r.clone());
    assert!(matches!(outcome, Outcome::Continue));
    assert!(
        matches!(&events[..], [MemberEvent::Status(s)] if s[0].code == StatusCode::MissingSourceTopics)
    );
    let (events, _) = m.on_response(r);
    assert!(events.is_empty(), "unchanged statuses are not repeated");
    let mut r = ok(1, None);
    r.status = Some(vec![]);
    let (events, _) = m.on_response(r);
    assert_eq!(events, vec![MemberEvent::Status(vec![])]);
}

#[test]
fn unknown_subtopology_is_an_error_not_a_panic() {
    let mut m = membership();
    let (_, outcome) = m.on_response(ok(1, Some(&[("9", &[0])])));
    assert!(matches!(
        outcome,
        Outcome::Fatal(GroupError::InvalidTopologyInfo(_))
    ));
}

#[test]
fn standby_tasks_are_acknowledged() {
    let mut m = membership();
    let mut r = ok(1, Some(&[]));
    r.standby_tasks = Some(vec![TaskIds {
        subtopology_id: "1".into(),
        partitions: vec![2],
    }]);
    let (events, _) = m.on_response(r);
    assert_eq!(
        events,
        vec![MemberEvent::Assigned {
            active: vec![],
            standby: vec![t("1", 2)],
            warmup: vec![]
        }]
    );
    assert_eq!(m.request().standby_tasks.map(|v| v.len()), Some(1));
}

#[test]
fn a_member_fenced_at_commit_rejoins_and_gets_its_tasks_back_as_new() {
    let mut m = membership();
    m.on_response(ok(4, Some(&[("0", &[0, 1]), ("1", &[0])])));
    // A revocation is pending when the owner's commit is fenced and it drops everything.
    let (events, _) = m.on_response(ok(4, Some(&[("0", &[0]), ("1", &[0])])));
    assert_eq!(events, vec![MemberEvent::Revoked(vec![t("0", 1)])]);
    m.abandon();
    assert!(m.may_heartbeat() && m.wants_heartbeat_now());
    let r = m.request();
    assert_eq!((r.member_epoch, r.member_id.as_str()), (0, "m"));
    assert_eq!(r.active_tasks, Some(vec![]), "nothing is reported as owned");
    // The late release of the revoked task changes nothing.
    assert!(m.release(&[t("0", 1)]).is_empty());
    // The coordinator answers the rejoin with the member's assignment: every task is new again.
    let (events, _) = m.on_response(ok(5, Some(&[("0", &[0]), ("1", &[0])])));
    assert_eq!(
        events,
        vec![MemberEvent::Assigned {
            active: vec![t("0", 0), t("1", 0)],
            standby: vec![],
            warmup: vec![],
        }]
    );
    assert_eq!(m.request().member_epoch, 5);
}

#[test]
fn group_and_request_errors_are_told_apart_by_code_and_epoch_not_by_message() {
    // A member whose group vanished (deleted) rejoins, whatever the broker's words.
    let mut m = membership();
    m.on_response(ok(3, Some(&[("0", &[0])])));
    let (events, outcome) = m.on_response(error(69, "Group app is not a streams group."));
    assert!(matches!(outcome, Outcome::Continue));
    assert_eq!(events, vec![MemberEvent::Lost(vec![t("0", 0)])]);
    // While joining, the same code means the id belongs to a group of another type.
    let mut joining = membership();
    assert!(matches!(
        joining.on_response(error(69, "")).1,
        Outcome::Fatal(GroupError::GroupIdInUse { .. })
    ));
    // INVALID_REQUEST after the join is not a topology change.
    let mut member = membership();
    member.on_response(ok(2, None));
    assert!(matches!(
        member
            .on_response(error(
                42,
                "Topology can only be provided when (re-)joining."
            ))
            .1,
        Outcome::Fatal(GroupError::Rejected { .. })
    ));
}

#[test]
fn a_dynamic_member_leaves_with_epoch_minus_one_and_no_instance_id() {
    let mut m = membership();
    assert_eq!(m.request().instance_id, None);
    let _ = m.on_response(ok(1, Some(&[("0", &[0])])));
    let leave = m.leave_request();
    assert_eq!(leave.member_epoch, -1);
    assert_eq!(leave.instance_id, None);
}

#[test]
fn a_static_member_joins_with_its_instance_id_and_leaves_with_epoch_minus_two() {
    let mut m = membership_with_instance(Some("orders-a-1"));
    let join = m.request();
    assert_eq!(join.member_epoch, 0);
    assert_eq!(join.instance_id.as_deref(), Some("orders-a-1"));
    let _ = m.on_response(ok(1, Some(&[("0", &[0])])));
    // Regular heartbeats leave it out, as the Java client does once it was sent.
    assert_eq!(m.request().instance_id, None);
    let leave = m.leave_request();
    assert_eq!(leave.member_epoch, -2);
    assert_eq!(leave.instance_id.as_deref(), Some("orders-a-1"));
}

fn offsets(o: &[(&'static str, i32, i64)]) -> Vec<(TaskId, i64)> {
    o.iter().map(|&(s, p, v)| (t(s, p), v)).collect()
}

#[test]
fn task_offsets_go_in_full_on_the_join_then_only_when_changed_and_due() {
    let mut m = membership();
    m.set_task_offsets(TaskOffsets {
        offsets: offsets(&[("1", 2, 40)]),
        end_offsets: offsets(&[("1", 2, 50)]),
    });
    let start = Instant::now();
    let join = m.request_at(start);
    let wire = |v: Option<Vec<crate::protocol::TaskOffset>>| {
        v.map(|v| {
            v.into_iter()
                .map(|o| (o.subtopology_id, o.partition, o.offset))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(wire(join.task_offsets), Some(vec![("1".into(), 2, 40)]));
    assert_eq!(wire(join.task_end_offsets), Some(vec![("1".into(), 2, 50)]));
    let mut r = ok(1, Some(&[]));
    r.task_offset_interval_ms = 10_000;
    m.on_response(r);
    // Unchanged: nothing (null = unchanged), however long it has been.
    let later = m.request_at(start + Duration::from_secs(5));
    assert_eq!((later.task_offsets, later.task_end_offsets), (None, None));
    // Changed but the interval has not passed since the last report: not yet.
    m.set_task_offsets(TaskOffsets {
        offsets: offsets(&[("1", 2, 45)]),
        end_offsets: offsets(&[("1", 2, 50)]),
    });
    let r = m.request_at(start + Duration::from_millis(5500));
    assert_eq!(r.task_offsets, None);
    // Due: only the list that changed goes.
    let r = m.request_at(start + Duration::from_secs(11));
    assert_eq!(wire(r.task_offsets), Some(vec![("1".into(), 2, 45)]));
    assert_eq!(r.task_end_offsets, None);
    // A lost heartbeat sends everything again.
    m.offsets_lost();
    let r = m.request_at(start + Duration::from_millis(11_100));
    assert_eq!(wire(r.task_offsets), Some(vec![("1".into(), 2, 45)]));
    assert_eq!(wire(r.task_end_offsets), Some(vec![("1".into(), 2, 50)]));
}

fn described(active: &[(&str, &[i32])]) -> crate::protocol::describe::Assignment {
    crate::protocol::describe::Assignment {
        active_tasks: active
            .iter()
            .map(|(s, p)| TaskIds {
                subtopology_id: (*s).into(),
                partitions: p.to_vec(),
            })
            .collect(),
        standby_tasks: Vec::new(),
        warmup_tasks: Vec::new(),
    }
}

/// A lost response that revoked a task: the coordinator never says it again (the next
/// response, to a heartbeat with the same epoch, carries no tasks), so the member takes the
/// revocation from the group's description.
#[test]
fn a_revocation_in_a_lost_response_is_learned_from_the_description() {
    let mut m = membership();
    m.on_response(ok(1, Some(&[("0", &[0, 1])])));
    m.on_response(ok(1, None));
    assert!(!m.assignment_unknown());
    // The heartbeat whose response revoked 0_1 failed after it was sent.
    m.response_lost();
    let (events, _) = m.on_response(ok(1, None));
    assert!(events.is_empty());
    assert!(
        m.assignment_unknown(),
        "the assignment is unknown after a lost response"
    );
    // A description at another epoch raced a change: ignored, still unknown.
    assert!(
        m.on_described(2, &described(&[("0", &[0])]))
            .unwrap()
            .is_empty()
    );
    assert!(m.assignment_unknown());
    let events = m.on_described(1, &described(&[("0", &[0])])).unwrap();
    assert_eq!(events, vec![MemberEvent::Revoked(vec![t("0", 1)])]);
    assert!(!m.assignment_unknown());
    m.release(&[t("0", 1)]);
    assert_eq!(
        m.request().active_tasks.map(|v| v[0].partitions.clone()),
        Some(vec![0])
    );
}

/// A lost response that gave tasks (with an epoch bump): the next response has the new epoch
/// and no tasks; the description hands them over.
#[test]
fn tasks_given_in_a_lost_response_are_learned_from_the_description() {
    let mut m = membership();
    m.on_response(ok(1, Some(&[("0", &[0])])));
    m.response_lost();
    m.on_response(ok(2, None));
    assert!(m.assignment_unknown());
    let events = m
        .on_described(2, &described(&[("0", &[0]), ("1", &[3])]))
        .unwrap();
    assert_eq!(
        events,
        vec![MemberEvent::Assigned {
            active: vec![t("1", 3)],
            standby: Vec::new(),
            warmup: Vec::new(),
        }]
    );
    // A response that carries the tasks makes the description unnecessary.
    m.response_lost();
    m.on_response(ok(2, Some(&[("0", &[0]), ("1", &[3])])));
    assert!(!m.assignment_unknown());
}

/// A heartbeat answered with a retriable error may still have changed the assignment (the
/// coordinator's write of it timed out: it keeps it and answers COORDINATOR_NOT_AVAILABLE),
/// so the member learns its tasks from the description, as after a lost response.
#[test]
fn tasks_given_by_a_heartbeat_answered_with_an_error_are_learned_from_the_description() {
    let mut m = membership();
    m.on_response(ok(1, Some(&[("0", &[0])])));
    assert!(!m.assignment_unknown());
    for code in [15, 16, 14, 7] {
        // COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
        // REQUEST_TIMED_OUT: all retried, and each leaves the assignment unknown.
        let (_, outcome) = m.on_response(error(code, "the write timed out"));
        assert!(matches!(outcome, Outcome::Retry { .. }), "{code}");
        assert!(m.assignment_unknown(), "{code}");
    }
    m.on_response(ok(2, None));
    assert!(m.assignment_unknown());
    let events = m
        .on_described(2, &described(&[("0", &[0]), ("1", &[5])]))
        .unwrap();
    assert_eq!(
        events,
        vec![MemberEvent::Assigned {
            active: vec![t("1", 5)],
            standby: Vec::new(),
            warmup: Vec::new(),
        }]
    );
}

#[test]
fn every_heartbeat_asks_for_the_application_shutdown_once_the_instance_requested_it() {
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut m = membership_with(None, Some(std::sync::Arc::clone(&asked)));
    assert!(!m.request().shutdown_application, "not before it is asked");
    asked.store(true, std::sync::atomic::Ordering::Relaxed);
    // The join carries it too: an instance whose last thread died joins a member to ask.
    assert!(m.request().shutdown_application);
    let _ = m.on_response(ok(1, Some(&[])));
    assert!(m.request_at(Instant::now()).shutdown_application);
}
