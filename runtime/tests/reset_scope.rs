//! The reset deletes the internal topics of its application and of no other: resetting
//! `orders` leaves `orders-v2`'s topics alone, whether `orders`'s group describes its topics or
//! the group is gone and its topics are found by their names; `--dry-run` deletes nothing. Needs
//! a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092).

mod group_support;

use std::collections::BTreeSet;
use std::process::Command;
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, describe_streams_group_if_exists};
use dekaf_streams::topology::{DerivedConfig, InternalTopicInfo, SubtopologyInfo, TopologyInfo};
use dekaf_streams::{ClientSettings, reset_application};
use group_support::*;

fn slice<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn internal(
    name: &'static str,
    configs: &'static [(&'static str, &'static str)],
) -> InternalTopicInfo {
    InternalTopicInfo {
        name,
        partitions: 0,
        configs,
        store_configs: &[],
        derived: DerivedConfig::None,
    }
}

/// `input` → subtopology 0 → a repartition topic and a foreign-key join's numbered subscription
/// topic → subtopology 1 with the changelog `<app>-counts-changelog`.
fn orders_topology(app: &'static str, input: &'static str) -> &'static TopologyInfo {
    let by_customer = leak(format!("{app}-by-customer-repartition"));
    let subscription = leak(format!(
        "{app}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
    ));
    let changelog = leak(format!("{app}-counts-changelog"));
    Box::leak(Box::new(TopologyInfo {
        application_id: app,
        subtopologies: slice(vec![
            SubtopologyInfo {
                id: "0",
                source_topics: slice(vec![input]),
                repartition_source_topics: &[],
                repartition_sink_topics: slice(vec![by_customer, subscription]),
                state_changelog_topics: &[],
                sink_topics: &[],
                copartition_groups: &[],
                stores: &[],
            },
            SubtopologyInfo {
                id: "1",
                source_topics: &[],
                repartition_source_topics: slice(vec![
                    internal(by_customer, REPARTITION_CONFIGS),
                    internal(subscription, REPARTITION_CONFIGS),
                ]),
                repartition_sink_topics: &[],
                state_changelog_topics: slice(vec![internal(changelog, CHANGELOG_CONFIGS)]),
                sink_topics: &[],
                copartition_groups: &[],
                stores: &[],
            },
        ]),
    }))
}

/// Runs `dekaf-streams-reset` with `args`; its stdout, after checking it succeeded.
async fn reset_cli(args: Vec<String>) -> String {
    let mut reset = Command::new(env!("CARGO_BIN_EXE_dekaf-streams-reset"));
    reset.args(args);
    let output = tokio::task::spawn_blocking(move || reset.output())
        .await
        .expect("reset task")
        .expect("run dekaf-streams-reset");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Which of `topics` exist.
async fn existing(admin: &Admin, topics: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for topic in topics {
        if admin.partitions(topic).await.is_some() {
            out.insert((*topic).to_owned());
        }
    }
    out
}

/// Waits until the coordinator created every one of `topics`.
async fn wait_for(admin: &Admin, topics: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = existing(admin, topics).await;
        if found.len() == topics.len() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the coordinator did not create {topics:?}: only {found:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn set(topics: &[&str]) -> BTreeSet<String> {
    topics.iter().map(|t| (*t).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resetting_orders_leaves_orders_v2_alone() {
    let t = TestApp::new("reset-orders", Some(2)).await;
    let admin = &t.admin;
    // `orders` and `orders-v2`, with a random suffix in between: `<orders>-v2`.
    let orders = t.app;
    let v2 = leak(format!("{orders}-v2"));
    let v2_input = leak(format!("{v2}-input"));
    admin.create_topic(v2_input, 2).await;

    let orders_topics = [
        leak(format!("{orders}-by-customer-repartition")),
        leak(format!(
            "{orders}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
        )),
        leak(format!("{orders}-counts-changelog")),
    ];
    // Named like internal topics of `orders` too (`v2-grouped`, `v2-counts`).
    let v2_topics = [
        leak(format!("{v2}-grouped-repartition")),
        leak(format!("{v2}-counts-changelog")),
    ];
    let user_topics = [t.input, v2_input];

    let a = t.join("orders", orders_topology(orders, t.input)).await;
    let b = t
        .join("orders-v2", two_subtopologies(v2, v2_input, "counts"))
        .await;
    wait_for(admin, &orders_topics).await;
    wait_for(admin, &v2_topics).await;
    a.member.close().await.expect("orders leaves");
    b.member.close().await.expect("orders-v2 leaves");

    let bootstrap = t.bootstrap.clone();
    let args = |app: &str, dry_run: bool| {
        let mut args = vec![
            "--bootstrap-server".to_owned(),
            bootstrap.clone(),
            "--application-id".to_owned(),
            app.to_owned(),
        ];
        if dry_run {
            args.push("--dry-run".to_owned());
        }
        args
    };
    let all: Vec<&str> = orders_topics
        .iter()
        .chain(&v2_topics)
        .chain(&user_topics)
        .copied()
        .collect();

    // 1. The group `orders` describes its topics. The dry run names them and deletes nothing.
    let out = reset_cli(args(orders, true)).await;
    for topic in orders_topics {
        assert!(
            out.contains(&format!("would delete topic {topic}\n")),
            "{out}"
        );
    }
    assert!(out.contains("described topology"), "{out}");
    assert!(out.contains("dry run: nothing deleted"), "{out}");
    for topic in v2_topics.iter().chain(&user_topics) {
        assert!(!out.contains(topic), "{topic} is not `orders`'s: {out}");
    }
    assert_eq!(
        existing(admin, &all).await,
        set(&all),
        "the dry run deleted"
    );

    let out = reset_cli(args(orders, false)).await;
    assert!(out.contains("group deleted"), "{out}");
    let left = existing(admin, &all).await;
    assert_eq!(
        left,
        v2_topics
            .iter()
            .chain(&user_topics)
            .map(|t| t.to_string())
            .collect(),
        "exactly `orders`'s internal topics are deleted\n{out}"
    );

    // 2. No group `orders` any more: topics named like its internal topics are found by their
    // names, except `orders-v2`'s, whose group is on the cluster.
    let coordinator = CoordinatorConfig::new(&t.bootstrap, "dekaf-it");
    assert!(
        describe_streams_group_if_exists(&coordinator, orders)
            .await
            .expect("describe orders")
            .is_none()
    );
    let leftovers = [
        leak(format!("{orders}-counts-changelog")),
        leak(format!(
            "{orders}-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic"
        )),
        leak(format!(
            "{orders}-by-customer-subscription-registration-topic"
        )),
    ];
    for topic in leftovers {
        admin.create_topic(topic, 1).await;
    }
    let all: Vec<&str> = v2_topics
        .iter()
        .chain(&user_topics)
        .copied()
        .chain(leftovers)
        .collect();
    let out = reset_cli(args(orders, true)).await;
    assert!(out.contains("no streams group"), "{out}");
    for topic in leftovers {
        assert!(
            out.contains(&format!("would delete topic {topic}\n")),
            "{out}"
        );
    }
    for topic in v2_topics {
        assert!(
            out.contains(&format!(
                "would keep topic {topic}: it is an internal topic of the streams group `{v2}`"
            )),
            "{out}"
        );
    }
    assert_eq!(
        existing(admin, &all).await,
        set(&all),
        "the dry run deleted"
    );

    let out = reset_cli(args(orders, false)).await;
    assert!(out.contains("group did not exist"), "{out}");
    assert!(out.contains("kept topic"), "{out}");
    let left = existing(admin, &all).await;
    assert_eq!(
        left,
        v2_topics
            .iter()
            .chain(&user_topics)
            .map(|t| t.to_string())
            .collect(),
        "only `orders`'s topics are deleted\n{out}"
    );

    // `orders-v2` resets its own.
    let settings = ClientSettings::new(&t.bootstrap);
    let report = reset_application(&settings, v2)
        .await
        .expect("reset orders-v2");
    assert!(report.group_deleted);
    assert_eq!(
        report.topics_deleted.iter().collect::<BTreeSet<_>>(),
        v2_topics
            .iter()
            .map(|t| t.to_string())
            .collect::<BTreeSet<_>>()
            .iter()
            .collect()
    );
    assert_eq!(existing(admin, &all).await, set(&user_topics));
    let names: Vec<&str> = user_topics.to_vec();
    admin.delete_topics(&names).await;
}
