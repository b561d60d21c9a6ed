//! A sink that chooses each record's topic (`to([..], chooser, ..)`, Kafka Streams'
//! `TopicNameExtractor`) on a real broker: records reach the topics their values name, and an
//! application whose list names a topic that does not exist stops before it processes
//! anything, naming the topic. A sink's and a repartition's `partitioner(..)` place records on
//! the partitions it chooses, with the partition counts the cluster has.
//!
//! Needs a broker (`DEKAF_BOOTSTRAP`, see `scripts/kafka.sh`).

use std::time::Duration;

use dekaf_streams::prelude::*;
use dekaf_streams::{ProcessingGuarantee, StreamsError};
use dekaf_streams_harness::e2e::{InProcess, Reader, fresh, read_values};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};

const EOS: ProcessingGuarantee = ProcessingGuarantee::ExactlyOnce;

topology! {
    /// Each order to its region's topic.
    pub Routing = "e2e-routing" {
        stream("rt-orders", Utf8, Utf8).to(
            ["rt-orders-eu", "rt-orders-us"],
            |_id: &String, order: &String| format!("rt-orders-{}", &order[..2]),
            Utf8,
            Utf8,
        );
    }
}

topology! {
    /// The same, with a topic that nobody created in its list.
    pub RoutingMissing = "e2e-routing-missing" {
        stream("rtm-orders", Utf8, Utf8).to(
            ["rtm-orders-eu", "rtm-orders-jp"],
            |_id: &String, order: &String| format!("rtm-orders-{}", &order[..2]),
            Utf8,
            Utf8,
        );
    }
}

topology! {
    /// Orders to the partition their value names (a multicast for `all`), and through a
    /// repartition whose partitioner puts every order on its last partition, then counted.
    pub Partitioned = "e2e-partitioned" {
        let orders = stream("pt-orders", Utf8, Utf8);
        orders.to("pt-placed", Utf8, Utf8, partitioner(|_id: &String, order: &String, partitions: u32| {
            match order.split(':').next() {
                Some("all") => Some((0..partitions).collect::<Vec<u32>>()),
                Some(n) => n.parse::<u32>().ok().map(|p| vec![p]),
                None => None,
            }
        }));
        orders
            .repartition("placed", Utf8, Utf8, partitions(3), partitioner(|_id: &String, _order: &String, partitions: u32| partitions - 1))
            .group_by_key()
            .count("placed-counts")
            .to_stream()
            .to("pt-counted", Utf8, I64);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioner_places_records_on_the_partitions_it_chooses() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-partitioned",
        &[("pt-orders", 2), ("pt-placed", 4), ("pt-counted", 2)],
    )
    .await;
    let orders = [("o1", "0:a"), ("o2", "3:b"), ("o3", "all:c"), ("o4", "2:d")];
    produce(
        &servers,
        "pt-orders",
        orders
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
    )
    .await
    .expect("produce");
    let app = InProcess::start(Partitioned, &servers, EOS);
    let mut placed = Reader::new(&servers, "pt-placed").await;
    placed
        .read_until(Duration::from_secs(60), |r| r.len() >= 7)
        .await;
    placed.drain(Duration::from_secs(2)).await;
    let mut counted = Reader::new(&servers, "pt-counted").await;
    counted
        .read_until(Duration::from_secs(60), |r| r.len() >= 4)
        .await;
    app.stop().await.expect("clean stop");
    let mut got: Vec<(String, i32)> = placed
        .records
        .iter()
        .map(|r| {
            (
                String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned(),
                r.partition,
            )
        })
        .collect();
    got.sort();
    let want: Vec<(String, i32)> = [
        ("0:a", 0),
        ("2:d", 2),
        ("3:b", 3),
        ("all:c", 0),
        ("all:c", 1),
        ("all:c", 2),
        ("all:c", 3),
    ]
    .into_iter()
    .map(|(v, p)| (v.to_owned(), p))
    .collect();
    assert_eq!(got, want);
    // Every order went through partition 2 of the repartition topic, so the task of partition
    // 2 counted them all: the store's changelog records are on that partition (the repartition
    // topic itself is purged once committed, so it is not read).
    let mut changelog = Reader::new(&servers, "e2e-partitioned-placed-counts-changelog").await;
    changelog
        .read_until(Duration::from_secs(30), |r| r.len() >= 4)
        .await;
    let partitions: Vec<i32> = changelog.records.iter().map(|r| r.partition).collect();
    assert!(partitions.iter().all(|p| *p == 2), "{partitions:?}");
    assert_eq!(counted.records.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_record_reaches_the_topic_its_chooser_names() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-routing",
        &[("rt-orders", 2), ("rt-orders-eu", 2), ("rt-orders-us", 1)],
    )
    .await;
    let orders = [
        ("o1", "eu:book"),
        ("o2", "us:pen"),
        ("o3", "eu:ink"),
        ("o4", "us:cup"),
        ("o5", "eu:map"),
    ];
    produce(
        &servers,
        "rt-orders",
        orders
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
    )
    .await
    .expect("produce");
    let app = InProcess::start(Routing, &servers, EOS);
    let mut eu = read_values("rt-orders-eu", 3).await;
    let mut us = read_values("rt-orders-us", 2).await;
    app.stop().await.expect("clean stop");
    eu.sort();
    us.sort();
    assert_eq!(eu, ["eu:book", "eu:ink", "eu:map"]);
    assert_eq!(us, ["us:cup", "us:pen"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_topic_that_does_not_exist_stops_the_application_at_start() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-routing-missing",
        &[("rtm-orders", 1), ("rtm-orders-eu", 1)],
    )
    .await;
    let app = InProcess::start(RoutingMissing, &servers, EOS);
    let result = app
        .finished(Duration::from_secs(60))
        .await
        .expect("run() returns by itself");
    let error = result.expect_err("run() returns the failure");
    assert!(
        matches!(&error, StreamsError::MissingChosenTopics { topics } if topics == &["rtm-orders-jp".to_owned()]),
        "{error}"
    );
    assert!(error.to_string().contains("create them"), "{error}");
}
