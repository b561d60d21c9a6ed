//! The streams-group member against a real Apache Kafka 4.4 broker (`DEKAF_BOOTSTRAP`, default
//! `127.0.0.1:9092`; start one with `scripts/kafka.sh start`). Each test uses its own
//! application id. No test passes without a broker: they fail and say how to start one.

mod group_support;

use std::collections::BTreeSet;
use std::time::Duration;

use dekaf_streams::group::{
    CoordinatorConfig, GroupError, MemberConfig, MemberHandle, StatusCode, describe_streams_group,
};
use group_support::*;

const WAIT: Duration = Duration::from_secs(30);

/// Must show 1: two subtopologies; the broker creates the repartition and changelog topics with
/// 3 partitions and the configs the member sent; the member gets tasks 0_0..0_2 and 1_0..1_2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_creates_internal_topics_and_assigns_every_task() {
    let t = TestApp::new("join", Some(3)).await;
    let (admin, app) = (&t.admin, t.app);
    let topology = two_subtopologies(app, t.input, "counts");

    let mut owner = t.join("a", topology).await;
    assert!(owner.member.member_epoch() > 0);
    let expected = all_tasks(&["0", "1"], 3);
    hold(&mut owner, &expected).await;
    assert_eq!(owner.member.assignment().active, expected);

    let repartition = format!("{app}-grouped-repartition");
    let changelog = format!("{app}-counts-changelog");
    assert_eq!(
        admin.partitions(&repartition).await,
        Some(3),
        "{repartition}"
    );
    assert_eq!(admin.partitions(&changelog).await, Some(3), "{changelog}");
    let configs = admin.configs(&changelog).await;
    for (k, v) in CHANGELOG_CONFIGS {
        assert_eq!(
            configs.get(*k).map(String::as_str),
            Some(*v),
            "{changelog}: {k}"
        );
    }
    let configs = admin.configs(&repartition).await;
    for (k, v) in REPARTITION_CONFIGS {
        assert_eq!(
            configs.get(*k).map(String::as_str),
            Some(*v),
            "{repartition}: {k}"
        );
    }

    // The coordinator's own view, through StreamsGroupDescribe.
    let group = describe_streams_group(&CoordinatorConfig::new(&t.bootstrap, "dekaf-it"), app)
        .await
        .expect("describe");
    assert_eq!(group.members.len(), 1);
    assert_eq!(group.members[0].member_id, owner.member.member_id());
    let subs = group
        .topology
        .and_then(|t| t.subtopologies)
        .expect("stored topology");
    assert_eq!(subs.len(), 2);
    assert_eq!(subs[1].repartition_source_topics[0].name, repartition);
    assert_eq!(subs[1].repartition_source_topics[0].partitions, 3);

    owner.member.close().await.expect("close");
}

/// Must show 2: a second member joins; tasks move only after the first member released them;
/// the final assignment is disjoint and complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_move_to_a_second_member_only_after_release() {
    let t = TestApp::new("second", Some(3)).await;
    let topology = two_subtopologies(t.app, t.input, "counts");
    let expected = all_tasks(&["0", "1"], 3);

    let mut a = t.join("a", topology).await;
    hold(&mut a, &expected).await;

    // a takes its time to commit and close what it must give up.
    a.release_delay = Duration::from_secs(2);
    let mut b = t.join("b", topology).await;
    let disjoint = |o: &[&mut Owner]| {
        let both: Vec<_> = o[0].held.intersection(&o[1].held).collect();
        assert!(
            both.is_empty(),
            "tasks held by both members at once: {both:?}"
        );
    };
    drive(
        &mut [&mut a, &mut b],
        WAIT,
        "a disjoint, complete split",
        disjoint,
        |o| {
            !o[0].held.is_empty()
                && !o[1].held.is_empty()
                && !o[0].has_pending_releases()
                && o[0]
                    .held
                    .union(&o[1].held)
                    .copied()
                    .collect::<BTreeSet<_>>()
                    == expected
        },
    )
    .await;
    assert!(!a.revoked_total.is_empty(), "a was asked to give up tasks");
    assert!(
        a.revoked_total.is_subset(&b.held),
        "b holds what a released"
    );
    // The split is stable: nothing moves for a few heartbeats.
    let before = (a.held.clone(), b.held.clone());
    pump_for(&mut [&mut a, &mut b], Duration::from_secs(2), disjoint).await;
    assert_eq!((a.held.clone(), b.held.clone()), before);
    assert_eq!(a.member.assignment().active, a.held);
    assert_eq!(b.member.assignment().active, b.held);

    a.member.close().await.expect("close a");
    b.member.close().await.expect("close b");
}

/// Must show 3: a member leaves; its tasks reach the other member within a few seconds, not
/// after a session timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_of_a_leaving_member_move_at_once() {
    let t = TestApp::new("leave", Some(3)).await;
    let topology = two_subtopologies(t.app, t.input, "counts");
    let expected = all_tasks(&["0", "1"], 3);

    let mut a = t.join("a", topology).await;
    hold(&mut a, &expected).await;
    let mut b = t.join("b", topology).await;
    drive(
        &mut [&mut a, &mut b],
        WAIT,
        "a split",
        |_| {},
        |o| {
            !o[1].held.is_empty()
                && o[0].held.union(&o[1].held).count() == expected.len()
                && !o[0].has_pending_releases()
        },
    )
    .await;

    a.member.close().await.expect("close a");
    let took = drive(
        &mut [&mut b],
        WAIT,
        "b holds every task",
        |_| {},
        |o| o[0].held == expected,
    )
    .await;
    eprintln!("tasks reached the remaining member {took:?} after the other left");
    // scripts/kafka.sh's broker: heartbeat 500 ms, session timeout 10 s (a broker with Kafka's
    // defaults: 5 s and 45 s). Within 8 s, the leave was seen, not a session timeout.
    assert!(
        took < Duration::from_secs(8),
        "took {took:?}: the leave was not seen"
    );
    b.member.close().await.expect("close b");
}

/// Must show 4: joining with a changed topology under the same application id fails with the
/// typed error, whose message names what differs from the group's topology and says what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_topology_is_refused_with_advice() {
    let t = TestApp::new("changed", Some(3)).await;
    let (app, input) = (t.app, t.input);
    let mut a = t.join("a", two_subtopologies(app, input, "counts")).await;
    drive(
        &mut [&mut a],
        WAIT,
        "an assignment",
        |_| {},
        |o| !o[0].held.is_empty(),
    )
    .await;

    let changed = two_subtopologies(app, input, "totals");
    let err = MemberHandle::join(changed, member_config(&t.bootstrap))
        .await
        .expect_err("a changed topology must be refused");
    let text = err.to_string();
    eprintln!("{text}");
    assert!(matches!(err, GroupError::TopologyChanged { .. }), "{err:?}");
    assert!(text.contains("new application id"), "{text}");
    assert!(text.contains("delete the streams group"), "{text}");
    assert!(text.contains(app), "{text}");
    // The member described the group and names what differs: the renamed store's changelog.
    assert!(
        text.contains(&format!(
            "subtopology 1, changelog topics: the group has [{app}-counts-changelog], this \
             program declares [{app}-totals-changelog]"
        )),
        "{text}"
    );
    assert!(text.contains("describe()"), "{text}");
    a.member.close().await.expect("close a");
}

/// Must show 5: a missing source topic is reported as such; once it exists, the assignment
/// follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_source_topic_is_reported_then_assigned() {
    let t = TestApp::new("missing", None).await;
    let (admin, input) = (&t.admin, t.input);
    let mut a = t.join("a", one_subtopology(t.app, input)).await;
    drive(
        &mut [&mut a],
        WAIT,
        "a MISSING_SOURCE_TOPICS status",
        |_| {},
        |o| {
            o[0].statuses
                .iter()
                .flatten()
                .any(|s| s.code == StatusCode::MissingSourceTopics && s.detail.contains(input))
        },
    )
    .await;
    assert!(a.held.is_empty(), "no task without the source topic");

    admin.create_topic(input, 3).await;
    let expected = all_tasks(&["0"], 3);
    let took = drive(
        &mut [&mut a],
        WAIT,
        "tasks once the topic exists",
        |_| {},
        |o| o[0].held == expected,
    )
    .await;
    eprintln!("assignment followed {took:?} after the topic was created");
    assert!(
        a.statuses
            .last()
            .is_some_and(|s| s.iter().all(|s| s.code != StatusCode::MissingSourceTopics)),
        "the status cleared: {:?}",
        a.statuses.last()
    );
    a.member.close().await.expect("close");
}

/// A member that does not release revoked tasks within its rebalance timeout is fenced by the
/// coordinator: its owner is told the tasks are lost, drops them, and the member rejoins (epoch
/// 0, same member id) and gets tasks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_that_holds_on_is_fenced_loses_its_tasks_and_rejoins() {
    let t = TestApp::new("fenced", Some(3)).await;
    let topology = two_subtopologies(t.app, t.input, "counts");
    let expected = all_tasks(&["0", "1"], 3);

    let mut config = member_config(&t.bootstrap);
    config.rebalance_timeout = Duration::from_secs(2);
    let mut a = t.join_with("a", topology, config).await;
    let member_id = a.member.member_id().to_owned();
    hold(&mut a, &expected).await;

    // a never gives up what is revoked.
    a.release_delay = Duration::from_secs(3600);
    let mut b = t.join("b", topology).await;
    drive(
        &mut [&mut a, &mut b],
        WAIT,
        "a fenced",
        |_| {},
        |o| !o[0].lost_total.is_empty(),
    )
    .await;
    assert!(
        a.lost_total.is_superset(&a.revoked_total),
        "the unreleased tasks were lost"
    );

    // After dropping its tasks, a rejoins under the same member id and the group settles.
    drive(
        &mut [&mut a, &mut b],
        WAIT,
        "a complete split after the rejoin",
        |_| {},
        |o| {
            !o[0].held.is_empty()
                && o[0].held.is_disjoint(&o[1].held)
                && o[0]
                    .held
                    .union(&o[1].held)
                    .copied()
                    .collect::<BTreeSet<_>>()
                    == expected
        },
    )
    .await;
    assert_eq!(a.member.member_id(), member_id);
    assert!(a.member.member_epoch() > 0);
    a.member.close().await.expect("close a");
    b.member.close().await.expect("close b");
}

/// Kafka 4.2 and 4.3 serve StreamsGroupHeartbeat v0 only (an `int32` recovery lag, no
/// TopologyDescriptionRequired): a member limited to v0 joins and gets its tasks from 4.4 too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeat_version_0_works_too() {
    let t = TestApp::new("v0", Some(3)).await;
    let mut config = member_config(&t.bootstrap);
    config.max_heartbeat_version = 0;
    let mut a = t
        .join_with("a", one_subtopology(t.app, t.input), config)
        .await;
    let expected = all_tasks(&["0"], 3);
    drive(
        &mut [&mut a],
        WAIT,
        "three tasks over v0",
        |_| {},
        |o| o[0].held == expected,
    )
    .await;
    a.member.close().await.expect("close");
}

/// No broker at the address: a typed error after the connect timeout, not a hang or a panic.
#[tokio::test]
async fn no_broker_is_a_clear_error() {
    let mut config = MemberConfig::new("127.0.0.1:1");
    config.connect_timeout = Duration::from_secs(1);
    let topology = one_subtopology(app_id("nobroker"), "t");
    let err = MemberHandle::join(topology, config)
        .await
        .expect_err("nothing listens on port 1");
    assert!(matches!(err, GroupError::NoBroker { .. }), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1:1"), "{err}");
}

/// Issue 10 points 6 and 7: Kafka 4.4's group coordinator answers a transactional offset commit
/// of a known member with an epoch it does not hold (a heartbeat moved the epoch on during the
/// commit) with ILLEGAL_GENERATION, and one from a member it does not know with
/// UNKNOWN_MEMBER_ID; librdkafka hands both codes through unchanged, as an abortable error. The
/// runtime tells them apart by these codes: the first redoes the interval with the tasks kept
/// (it used to drop the tasks while the member kept reporting them: the handover stall), the
/// second drops its tasks and rejoins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactional_offset_commits_with_a_wrong_epoch_or_member_get_codes_the_runtime_tells_apart()
 {
    use dekaf_streams::kafka::{MemberIdentity, send_offsets_to_transaction};
    use rdkafka::producer::{BaseProducer, Producer};
    use rdkafka::types::RDKafkaErrorCode;
    use rdkafka::{ClientConfig, Offset, TopicPartitionList};

    let t = TestApp::new("commit-epochs", Some(1)).await;
    let (app, input) = (t.app, t.input);
    let topology = one_subtopology(app, input);
    let mut a = t.join("a", topology).await;
    drive(
        &mut [&mut a],
        WAIT,
        "a holds its task",
        |_| {},
        |o| !o[0].held.is_empty(),
    )
    .await;
    let epoch = a.member.member_epoch();
    let member_id = a.member.member_id().to_owned();
    let transactional_id = format!("{app}-txn");
    let bootstrap = t.bootstrap.clone();
    let outcomes = tokio::task::spawn_blocking(move || {
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .set("transactional.id", &transactional_id)
            .create()
            .expect("producer");
        producer
            .init_transactions(Duration::from_secs(30))
            .expect("init transactions");
        let mut offsets = TopicPartitionList::new();
        offsets
            .add_partition_offset(input, 0, Offset::Offset(0))
            .expect("offset");
        let attempt = |member_id: &str, member_epoch: i32| {
            producer.begin_transaction().expect("begin");
            let identity = MemberIdentity {
                group_id: app.to_owned(),
                member_id: member_id.to_owned(),
                member_epoch,
            };
            let result = send_offsets_to_transaction(
                &producer,
                &offsets,
                &identity,
                Duration::from_secs(30),
            );
            match &result {
                Ok(()) => producer
                    .commit_transaction(Duration::from_secs(30))
                    .expect("commit"),
                Err(_) => producer
                    .abort_transaction(Duration::from_secs(30))
                    .expect("abort"),
            }
            result.map_err(|e| (e.code, e.requires_abort, e.fatal))
        };
        [
            attempt(&member_id, epoch - 1),
            attempt("not-a-member-of-the-group", epoch),
            attempt(&member_id, epoch),
        ]
    })
    .await
    .expect("producer task");
    assert_eq!(
        outcomes,
        [
            Err((RDKafkaErrorCode::IllegalGeneration, true, false)),
            Err((RDKafkaErrorCode::UnknownMemberId, true, false)),
            Ok(()),
        ]
    );
    a.member.close().await.expect("close a");
}
