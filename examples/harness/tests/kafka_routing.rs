//! A sink that chooses each record's topic (`to([..], chooser, ..)`, Kafka Streams'
//! `TopicNameExtractor`) on a real broker: records reach the topics their values name, and an
//! application whose list names a topic that does not exist stops before it processes
//! anything, naming the topic.
//!
//! Needs a broker (`DEKAF_BOOTSTRAP`, see `scripts/kafka.sh`).

use std::time::Duration;

use dekaf_streams::prelude::*;
use dekaf_streams::{ProcessingGuarantee, StreamsError};
use dekaf_streams_harness::e2e::{InProcess, fresh, read_values};
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
