//! What the application commits, read back by independent clients: committed offsets point
//! past transaction markers, so a caught-up application has no lag.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::time::{Duration, Instant};

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams_harness::e2e::{
    InProcess, MissingSink, Reader, WcLag, committed_and_end_offsets, counts_reached,
    expected_counts, fresh, sentences,
};
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseRecord, Producer, ThreadedProducer};

/// Writes `sentences` to `topic` in transactions of `per_transaction` records, as an upstream
/// exactly-once application would: every transaction ends with a commit marker in each
/// partition it wrote.
fn produce_transactionally(
    servers: &str,
    topic: &str,
    sentences: &[String],
    per_transaction: usize,
) {
    let producer: ThreadedProducer<_> = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("transactional.id", format!("{topic}-writer"))
        .set("partitioner", "murmur2_random")
        .create()
        .expect("transactional producer");
    producer
        .init_transactions(Duration::from_secs(30))
        .expect("init transactions");
    for (n, chunk) in sentences.chunks(per_transaction).enumerate() {
        producer.begin_transaction().expect("begin");
        for (i, sentence) in chunk.iter().enumerate() {
            let key = format!("s{}", n * per_transaction + i);
            let mut record = BaseRecord::to(topic)
                .key(key.as_bytes())
                .payload(sentence.as_bytes());
            loop {
                match producer.send(record) {
                    Ok(()) => break,
                    Err((_, back)) => {
                        record = back;
                        producer.poll(Duration::from_millis(10));
                    }
                }
            }
        }
        producer
            .commit_transaction(Duration::from_secs(30))
            .expect("commit");
    }
}

/// The repartition topics of `application_id`.
fn repartition_topics(servers: &str, application_id: &str) -> Vec<String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .create()
        .expect("consumer");
    let metadata = consumer
        .fetch_metadata(None, Duration::from_secs(10))
        .expect("metadata");
    metadata
        .topics()
        .iter()
        .map(|t| t.name().to_owned())
        .filter(|n| n.starts_with(&format!("{application_id}-")) && n.ends_with("-repartition"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caught_up_application_commits_past_the_transaction_markers_so_its_lag_is_zero() {
    let servers = bootstrap();
    let app_id = "e2e-wc-lag";
    fresh(
        &servers,
        app_id,
        &[("e2e-wc-lag-in", 4), ("e2e-wc-lag-out", 4)],
    )
    .await;
    let input = sentences(3_000, 200, 11);
    let expected = expected_counts(&input);
    {
        let (servers, input) = (servers.clone(), input.clone());
        off_workers(move || produce_transactionally(&servers, "e2e-wc-lag-in", &input, 500)).await;
    }
    let app = InProcess::start(WcLag, &servers, ProcessingGuarantee::ExactlyOnce);
    let mut reader = Reader::new(&servers, "e2e-wc-lag-out").await;
    let reached = reader
        .read_until(Duration::from_secs(120), |r| counts_reached(r, &expected))
        .await;
    assert!(reached, "counts not reached");
    // Caught up: every partition of the input and of the repartition topic (which the
    // application itself writes in transactions) must reach a committed offset equal to its
    // log end offset, which lies past the last commit marker.
    let repartitions = {
        let servers = servers.clone();
        off_workers(move || repartition_topics(&servers, app_id)).await
    };
    let mut topics = vec!["e2e-wc-lag-in".to_owned()];
    topics.extend(repartitions.iter().cloned());
    let deadline = Instant::now() + Duration::from_secs(60);
    let lagging = loop {
        let lagging: Vec<_> = committed_and_end_offsets(&servers, app_id, &topics)
            .await
            .expect("committed and end offsets")
            .into_iter()
            .filter(|p| !p.caught_up())
            .collect();
        if lagging.is_empty() || Instant::now() > deadline {
            break lagging;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    app.stop().await.expect("clean stop");
    assert_eq!(
        repartitions.len(),
        1,
        "word count has one repartition topic: {repartitions:?}"
    );
    assert!(
        lagging.is_empty(),
        "partitions whose committed offset is not their log end offset: {lagging:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sink_topic_that_never_appears_stops_the_application_with_an_error_naming_it() {
    let servers = bootstrap();
    fresh(&servers, "e2e-missing-sink", &[("e2e-missing-sink-in", 1)]).await;
    dekaf_streams_harness::kafka_io::produce(
        &servers,
        "e2e-missing-sink-in",
        [(Some(&b"k"[..]), Some(&b"v"[..]))],
    )
    .await
    .expect("produce");
    let app = InProcess::start(MissingSink, &servers, ProcessingGuarantee::ExactlyOnce);
    let error = app
        .finished(Duration::from_secs(180))
        .await
        .expect("the application stops by itself instead of retrying forever")
        .expect_err("run() returns the failure");
    let text = error.to_string();
    eprintln!("the error: {text}");
    assert!(
        text.contains("e2e-missing-sink-never-created"),
        "the error names the topic: {text}"
    );
}
