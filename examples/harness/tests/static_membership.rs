//! Static membership (KIP-1071 `group.instance.id`) on a real broker: an instance that stops
//! and comes back with the same instance id within the session timeout gets exactly its tasks
//! back, and the other instance's tasks never move. Output is checked exactly-once by an
//! independent read_committed reader.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, GroupError, describe_streams_group};
use dekaf_streams::prelude::*;
use dekaf_streams::{KafkaStreams, ProcessingGuarantee};
use dekaf_streams_harness::e2e::{
    InProcess, Reader, assert_exactly_once, counts_reached, expected_counts, fresh, sentences,
};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};
use dekaf_streams_protocol::describe::DescribedGroup;

topology! {
    /// Word count for the static membership test.
    pub StaticWc = "e2e-static" {
        stream("e2e-static-in", Utf8, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("e2e-static-out", Utf8, I64);
    }
}

/// (member id, member epoch, active tasks as "subtopology:partition") of the member with
/// `instance_id`, if the group has it.
type Seen = (String, i32, BTreeSet<String>);

fn member(group: &DescribedGroup, instance_id: &str) -> Option<Seen> {
    group
        .members
        .iter()
        .find(|m| m.instance_id.as_deref() == Some(instance_id))
        .map(|m| {
            let tasks = m
                .assignment
                .active_tasks
                .iter()
                .flat_map(|t| {
                    t.partitions
                        .iter()
                        .map(move |p| format!("{}:{p}", t.subtopology_id))
                })
                .collect();
            (m.member_id.clone(), m.member_epoch, tasks)
        })
}

/// The group as its coordinator describes it; no members before the first one joined.
async fn describe() -> DescribedGroup {
    match describe_streams_group(
        &CoordinatorConfig::new(&bootstrap(), "static-membership-test"),
        "e2e-static",
    )
    .await
    {
        Ok(group) => group,
        Err(GroupError::Rejected { code, .. }) if code.starts_with("GroupIdNotFound") => {
            DescribedGroup::default()
        }
        Err(e) => panic!("describing the streams group: {e}"),
    }
}

/// Polls the group until `done` holds for the instances' states, at most `timeout`; every
/// state seen goes through `each` too.
async fn wait_for(
    timeout: Duration,
    mut each: impl FnMut(&Option<Seen>, &Option<Seen>),
    mut done: impl FnMut(&Option<Seen>, &Option<Seen>) -> bool,
) -> (Option<Seen>, Option<Seen>) {
    let started = Instant::now();
    loop {
        let group = describe().await;
        let (a, b) = (member(&group, "a-1"), member(&group, "b-1"));
        each(&a, &b);
        if done(&a, &b) {
            return (a, b);
        }
        assert!(
            started.elapsed() < timeout,
            "condition not reached in {timeout:?}: a {a:?}, b {b:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn start(instance_id: &str) -> InProcess {
    let streams = KafkaStreams::builder(StaticWc)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .group_instance_id(instance_id)
        .build()
        .expect("valid settings");
    InProcess::run(streams)
}

async fn produce_sentences(batch: Vec<String>, first_key: usize) {
    let keys: Vec<String> = (first_key..first_key + batch.len())
        .map(|i| format!("s{i}"))
        .collect();
    produce(
        &bootstrap(),
        "e2e-static-in",
        keys.iter()
            .zip(&batch)
            .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce sentences");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_static_member_restarted_within_the_session_timeout_gets_exactly_its_tasks_back() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-static",
        &[("e2e-static-in", 4), ("e2e-static-out", 4)],
    )
    .await;
    let input = sentences(6_000, 200, 7);
    let expected = expected_counts(&input);
    let (first, rest) = input.split_at(2_000);
    let (second, third) = rest.split_at(2_000);
    produce_sentences(first.to_vec(), 0).await;

    let a = start("a");
    let b = start("b");
    // Both members own tasks and the assignment is settled (8 tasks: 2 subtopologies x 4).
    let (a_before, b_before) = wait_for(
        Duration::from_secs(120),
        |_, _| {},
        |a, b| match (a, b) {
            (Some((_, ea, ta)), Some((_, eb, tb))) => {
                *ea > 0 && *eb > 0 && !ta.is_empty() && !tb.is_empty() && ta.len() + tb.len() == 8
            }
            _ => false,
        },
    )
    .await;
    let (a_member, _, a_tasks) = a_before.expect("a");
    let (b_member, _, b_tasks) = b_before.expect("b");

    // a stops cleanly: a static leave (epoch -2). The coordinator keeps it with its tasks.
    a.stop().await.expect("a stops cleanly");
    produce_sentences(second.to_vec(), 2_000).await;
    let b_never_moves = |_: &Option<Seen>, b: &Option<Seen>| {
        let (id, _, tasks) = b.as_ref().expect("b stays in the group");
        assert_eq!(id, &b_member, "b is the same member throughout");
        assert_eq!(tasks, &b_tasks, "b's tasks never move");
    };
    let (a_left, _) = wait_for(Duration::from_secs(5), b_never_moves, |a, _| {
        a.as_ref().is_some_and(|(_, epoch, _)| *epoch == -2)
    })
    .await;
    assert_eq!(
        a_left.expect("a is kept").2,
        a_tasks,
        "the coordinator keeps a's tasks for it while it is away"
    );

    // a comes back with the same instance id (a new member id) within the 10 s session timeout.
    let a = start("a");
    let (a_after, _) = wait_for(Duration::from_secs(60), b_never_moves, |a, _| {
        a.as_ref()
            .is_some_and(|(id, epoch, tasks)| *id != a_member && *epoch > 0 && *tasks == a_tasks)
    })
    .await;
    assert_eq!(
        a_after.expect("a is back").2,
        a_tasks,
        "a gets exactly its tasks back"
    );
    produce_sentences(third.to_vec(), 4_000).await;

    let mut reader = Reader::new(&servers, "e2e-static-out").await;
    let done = reader
        .read_until(Duration::from_secs(120), |r| counts_reached(r, &expected))
        .await;
    reader.drain(Duration::from_secs(2)).await;
    // b's tasks still never moved.
    let group = describe().await;
    b_never_moves(&None, &member(&group, "b-1"));
    a.stop().await.expect("a stops cleanly");
    b.stop().await.expect("b stops cleanly");
    assert!(done, "counts not reached after a came back");
    assert_exactly_once(&reader.records, &expected);
}
