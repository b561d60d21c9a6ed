//! Windows, joins, dead letters, Fail, and a changed topology on a real broker.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::time::Duration;

use dekaf_streams::ClientSettings;
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, StreamsError, reset_application};
use dekaf_streams_harness::e2e::{
    BigRecords, DeadLetters, EvolveV1, EvolveV2, FailFast, InProcess, Join, PayloadTime, Reader,
    Repartitioned, StallOnce, UrgentCommit, Windows, fresh, wait_for_members_with_tasks,
    wait_until_caught_up,
};
use dekaf_streams_harness::kafka_io::{
    NewRecord, ReadRecord, bootstrap, off_workers, produce, produce_records,
};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

const EOS: ProcessingGuarantee = ProcessingGuarantee::ExactlyOnce;

fn utf8(bytes: &Option<Vec<u8>>) -> String {
    String::from_utf8_lossy(bytes.as_deref().unwrap_or_default()).into_owned()
}

fn i64_of(bytes: &Option<Vec<u8>>) -> i64 {
    i64::from_be_bytes(
        bytes
            .as_deref()
            .and_then(|b| b.try_into().ok())
            .expect("8-byte value"),
    )
}

fn kv(records: &[ReadRecord]) -> Vec<(String, String)> {
    let mut out: Vec<_> = records
        .iter()
        .map(|r| (utf8(&r.key), utf8(&r.value)))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tumbling_window_counts_close_after_grace_and_drop_late_records() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-tumbling",
        &[("e2e-tumbling-in", 1), ("e2e-tumbling-out", 1)],
    )
    .await;
    let record = |key: &'static str, ts: i64| NewRecord {
        key: Some(key.as_bytes()),
        value: Some(b"x"),
        timestamp: Some(ts),
        ..NewRecord::default()
    };
    // Windows of 10 s, no grace: a@1s, a@2s, b@5s, a@11s (stream time 11 s closes [0, 10 s)),
    // then a late a@3s, which is dropped.
    produce_records(
        &servers,
        "e2e-tumbling-in",
        [
            record("a", 1_000),
            record("a", 2_000),
            record("b", 5_000),
            record("a", 11_000),
            record("a", 3_000),
        ],
    )
    .await
    .expect("produce");
    let app = InProcess::start(Windows, &servers, EOS);
    let mut reader = Reader::new(&servers, "e2e-tumbling-out").await;
    let done = reader
        .read_until(Duration::from_secs(60), |r| r.len() >= 4)
        .await;
    reader.drain(Duration::from_secs(2)).await;
    app.stop().await.expect("clean stop");
    assert!(done, "window counts missing: {:?}", reader.records);
    let mut got: Vec<(String, i64, i64, i64)> = reader
        .records
        .iter()
        .map(|r| {
            let key = r.key.as_deref().expect("windowed key");
            let (k, start) = key.split_at(key.len() - 8);
            (
                String::from_utf8_lossy(k).into_owned(),
                i64::from_be_bytes(start.try_into().expect("8 bytes")),
                i64_of(&r.value),
                r.timestamp,
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("a".into(), 0, 1, 1_000),
            ("a".into(), 0, 2, 2_000),
            ("a".into(), 10_000, 1, 11_000),
            ("b".into(), 0, 1, 5_000),
        ],
        "(key, window start, count, timestamp of the latest update)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timestamp_extractor_stamps_the_output_and_skips_negative_timestamps() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-payload-time",
        &[("e2e-payload-time-in", 1), ("e2e-payload-time-out", 1)],
    )
    .await;
    let record = |value: &'static str| NewRecord {
        key: Some(b"k"),
        value: Some(value.as_bytes()),
        timestamp: Some(1_000_000),
        ..NewRecord::default()
    };
    produce_records(
        &servers,
        "e2e-payload-time-in",
        [
            record("5000|a"),
            record("no time"),
            record("3000|b"),
            record("7000|c"),
        ],
    )
    .await
    .expect("produce");
    let app = InProcess::start(PayloadTime, &servers, EOS);
    let mut reader = Reader::new(&servers, "e2e-payload-time-out").await;
    let done = reader
        .read_until(Duration::from_secs(60), |r| r.len() >= 3)
        .await;
    reader.drain(Duration::from_secs(2)).await;
    app.stop().await.expect("clean stop");
    assert!(done, "stamped records missing: {:?}", reader.records);
    let got: Vec<(String, i64)> = reader
        .records
        .iter()
        .map(|r| (utf8(&r.value), r.timestamp))
        .collect();
    assert_eq!(
        got,
        [
            ("5000|a".to_owned(), 5000),
            ("3000|b".to_owned(), 3000),
            ("7000|c".to_owned(), 7000)
        ],
        "(value, timestamp): the payload's time, not Kafka's; the record without one skipped"
    );
}

/// `ctx.commit()`: with a commit interval (and an idle commit interval) of two minutes, the
/// output of records in front of one that asks for a commit becomes readable under
/// exactly-once well before that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_asked_for_makes_the_output_readable_before_the_commit_interval() {
    let servers = bootstrap();
    let (app_id, input, output) = (
        "e2e-urgent-commit",
        "e2e-urgent-commit-in",
        "e2e-urgent-commit-out",
    );
    fresh(&servers, app_id, &[(input, 1), (output, 1)]).await;
    let interval = Duration::from_secs(120);
    let streams = KafkaStreams::builder(UrgentCommit)
        .bootstrap_servers(&servers)
        .processing_guarantee(EOS)
        .commit_interval(interval)
        .idle_commit_interval(interval)
        // Longer than the interval, as the builder requires.
        .transaction_timeout(3 * interval)
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    assert!(
        wait_for_members_with_tasks(&servers, app_id, 1, Duration::from_secs(60)).await,
        "the instance did not get its task"
    );
    let mut reader = Reader::new(&servers, output).await;
    let started = std::time::Instant::now();
    let record = |value: &'static str| NewRecord {
        key: Some(b"k"),
        value: Some(value.as_bytes()),
        ..NewRecord::default()
    };
    produce_records(&servers, input, [record("a"), record("b"), record("now!")])
        .await
        .expect("produce");
    // Bounded well below the commit interval: only the asked-for commit can make them readable.
    let done = reader
        .read_until(Duration::from_secs(60), |r| r.len() >= 3)
        .await;
    let waited = started.elapsed();
    app.stop().await.expect("clean stop");
    assert!(
        done,
        "nothing readable {waited:?} after a record asked for a commit (commit interval \
         {interval:?}): {:?}",
        reader.records
    );
    let values: Vec<String> = reader.records.iter().map(|r| utf8(&r.value)).collect();
    assert_eq!(values, ["a", "b", "now!"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_table_join_and_left_join() {
    let servers = bootstrap();
    let topics = [
        ("e2e-tablejoin-customers", 2),
        ("e2e-tablejoin-orders", 2),
        ("e2e-tablejoin-out", 2),
        ("e2e-tablejoin-left-out", 2),
    ];
    fresh(&servers, "e2e-tablejoin", &topics).await;
    produce(
        &servers,
        "e2e-tablejoin-customers",
        [
            (Some(&b"c1"[..]), Some(&b"Ann"[..])),
            (Some(b"c3"), Some(b"Cy")),
        ],
    )
    .await
    .expect("customers");
    let app = InProcess::start(Join, &servers, EOS);
    // The table is loaded (and committed) before the orders arrive.
    let loaded = wait_until_caught_up(
        &servers,
        "e2e-tablejoin",
        &["e2e-tablejoin-customers".to_owned()],
        Duration::from_secs(120),
    )
    .await;
    assert!(loaded, "the customers table was not loaded");
    produce(
        &servers,
        "e2e-tablejoin-orders",
        [
            (Some(&b"c1"[..]), Some(&b"book"[..])),
            (Some(b"c2"), Some(b"pen")),
            (Some(b"c3"), Some(b"cup")),
        ],
    )
    .await
    .expect("orders");
    let mut joined = Reader::new(&servers, "e2e-tablejoin-out").await;
    let mut left = Reader::new(&servers, "e2e-tablejoin-left-out").await;
    assert!(
        joined
            .read_until(Duration::from_secs(60), |r| r.len() >= 2)
            .await,
        "join output missing"
    );
    assert!(
        left.read_until(Duration::from_secs(60), |r| r.len() >= 3)
            .await,
        "left join output missing"
    );
    joined.drain(Duration::from_secs(1)).await;
    app.stop().await.expect("clean stop");
    assert_eq!(
        kv(&joined.records),
        vec![
            ("c1".into(), "book for Ann".into()),
            ("c3".into(), "cup for Cy".into())
        ]
    );
    assert_eq!(
        kv(&left.records),
        vec![
            ("c1".into(), "book for Ann".into()),
            ("c2".into(), "pen for ?".into()),
            ("c3".into(), "cup for Cy".into())
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repartition_with_a_partition_count_creates_the_topic_with_it() {
    let servers = bootstrap();
    let topics = [
        ("e2e-repartition-count-in", 2),
        ("e2e-repartition-count-out", 2),
    ];
    fresh(&servers, "e2e-repartition-count", &topics).await;
    produce(
        &servers,
        "e2e-repartition-count-in",
        [
            (Some(&b"k1"[..]), Some(&b"x"[..])),
            (Some(b"k2"), Some(b"y")),
            (Some(b"k3"), Some(b"x")),
        ],
    )
    .await
    .expect("input");
    let app = InProcess::start(Repartitioned, &servers, EOS);
    let mut out = Reader::new(&servers, "e2e-repartition-count-out").await;
    assert!(
        out.read_until(Duration::from_secs(60), |r| r.len() >= 3)
            .await,
        "counts missing"
    );
    app.stop().await.expect("clean stop");
    let mut counts: Vec<(String, i64)> = out
        .records
        .iter()
        .map(|r| (utf8(&r.key), i64_of(&r.value)))
        .collect();
    counts.sort();
    assert_eq!(
        counts,
        [
            ("x".to_owned(), 1),
            ("x".to_owned(), 2),
            ("y".to_owned(), 1)
        ]
    );
    // The coordinator created the repartition topic with the declared count, not the input's.
    let topic = "e2e-repartition-count-by-value-repartition";
    let partitions = off_workers(move || {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", bootstrap())
            .create()
            .expect("consumer");
        let metadata = consumer
            .fetch_metadata(Some(topic), Duration::from_secs(10))
            .expect("metadata");
        metadata.topics()[0].partitions().len()
    })
    .await;
    assert_eq!(partitions, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poison_record_goes_to_the_dead_letter_topic_with_its_bytes_and_headers() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-dlq",
        &[("e2e-dlq-in", 1), ("e2e-dlq-out", 1), ("e2e-dlq-dead", 1)],
    )
    .await;
    let one = 1i64.to_be_bytes();
    let three = 3i64.to_be_bytes();
    produce_records(
        &servers,
        "e2e-dlq-in",
        [
            NewRecord {
                key: Some(b"k1"),
                value: Some(&one),
                ..NewRecord::default()
            },
            NewRecord {
                key: Some(b"k2"),
                value: Some(b"bad"),
                timestamp: Some(1_234),
                headers: vec![("trace", b"t-1")],
            },
            NewRecord {
                key: Some(b"k3"),
                value: Some(&three),
                ..NewRecord::default()
            },
        ],
    )
    .await
    .expect("produce");
    let app = InProcess::start(DeadLetters, &servers, EOS);
    let mut out = Reader::new(&servers, "e2e-dlq-out").await;
    let mut dead = Reader::new(&servers, "e2e-dlq-dead").await;
    assert!(
        out.read_until(Duration::from_secs(60), |r| r.len() >= 2)
            .await,
        "processing did not go on after the poison record"
    );
    assert!(
        dead.read_until(Duration::from_secs(30), |r| !r.is_empty())
            .await,
        "no dead letter"
    );
    app.stop().await.expect("clean stop");
    let values: Vec<(String, i64)> = out
        .records
        .iter()
        .map(|r| (utf8(&r.key), i64_of(&r.value)))
        .collect();
    assert_eq!(values, vec![("k1".into(), 2), ("k3".into(), 6)]);
    let letter = &dead.records[0];
    assert_eq!(letter.key.as_deref(), Some(&b"k2"[..]));
    assert_eq!(letter.value.as_deref(), Some(&b"bad"[..]));
    assert_eq!(letter.timestamp, 1_234);
    assert!(
        letter
            .headers
            .contains(&("trace".into(), Some(b"t-1".to_vec()))),
        "original headers kept: {:?}",
        letter.headers
    );
    let names: Vec<&str> = letter.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.len() > 1,
        "headers naming the error and its source are added: {names:?}"
    );
}

/// The committed offset of `group` on partition 0 of `topic`. Blocking.
fn committed_offset(servers: &str, group: &str, topic: &str) -> Option<i64> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("group.id", group)
        .set("group.protocol", "classic")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition(topic, 0);
    let committed = consumer
        .committed_offsets(tpl, Duration::from_secs(10))
        .expect("committed offsets");
    match committed.find_partition(topic, 0).map(|e| e.offset()) {
        Some(Offset::Offset(o)) => Some(o),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_the_broker_aborts_for_timeout_is_redone_with_a_new_producer() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-stall",
        &[("e2e-stall-in", 1), ("e2e-stall-out", 1)],
    )
    .await;
    let values: Vec<String> = (0..300)
        .map(|i| {
            if i == 150 {
                "stall".to_owned()
            } else {
                format!("v{i}")
            }
        })
        .collect();
    produce(
        &servers,
        "e2e-stall-in",
        values.iter().map(|v| (Some(&b"k"[..]), Some(v.as_bytes()))),
    )
    .await
    .expect("produce");
    let streams = KafkaStreams::builder(StallOnce)
        .bootstrap_servers(&servers)
        .transaction_timeout(Duration::from_secs(2))
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    let mut out = Reader::new(&servers, "e2e-stall-out").await;
    let done = out
        .read_until(Duration::from_secs(90), |r| r.len() >= values.len())
        .await;
    out.drain(Duration::from_secs(2)).await;
    app.stop()
        .await
        .expect("the application survives the fenced producer");
    assert!(done, "output stopped after the stall");
    assert!(dekaf_streams_harness::e2e::STALLED.load(std::sync::atomic::Ordering::SeqCst));
    let got: Vec<String> = out
        .records
        .iter()
        .map(|r| String::from_utf8(r.value.clone().unwrap_or_default()).expect("utf-8"))
        .collect();
    assert_eq!(got, values, "every value exactly once, in order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_stops_the_application_and_commits_nothing_of_the_failing_interval() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-fail",
        &[("e2e-fail-in", 1), ("e2e-fail-out", 1)],
    )
    .await;
    let good: Vec<[u8; 8]> = (0..5i64).map(i64::to_be_bytes).collect();
    let mut records: Vec<NewRecord<'_>> = good
        .iter()
        .map(|v| NewRecord {
            key: Some(b"k"),
            value: Some(v),
            ..NewRecord::default()
        })
        .collect();
    records.push(NewRecord {
        key: Some(b"k"),
        value: Some(b"poison"),
        ..NewRecord::default()
    });
    records.push(NewRecord {
        key: Some(b"k"),
        value: Some(&good[1]),
        ..NewRecord::default()
    });
    produce_records(&servers, "e2e-fail-in", records)
        .await
        .expect("produce");
    let poison_offset = 5;
    let app = InProcess::start(FailFast, &servers, EOS);
    let result = app
        .finished(Duration::from_secs(60))
        .await
        .expect("run() returns by itself");
    let error = result.expect_err("run() returns the failure");
    assert!(matches!(error, StreamsError::Task { .. }), "{error}");
    assert!(error.to_string().contains("on_error chose Fail"), "{error}");
    let committed = {
        let servers = servers.clone();
        off_workers(move || committed_offset(&servers, "e2e-fail", "e2e-fail-in"))
            .await
            .unwrap_or(0)
    };
    assert!(
        committed <= poison_offset,
        "the poison record's offset was committed: {committed}"
    );
    let mut out = Reader::new(&servers, "e2e-fail-out").await;
    out.drain(Duration::from_secs(2)).await;
    assert_eq!(
        out.records.len() as i64,
        committed,
        "exactly the output of the committed input is visible"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_topology_is_refused_until_the_application_is_reset() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-evolve",
        &[
            ("e2e-evolve-in", 2),
            ("e2e-evolve-out", 2),
            ("e2e-evolve-counts", 2),
        ],
    )
    .await;
    produce(
        &servers,
        "e2e-evolve-in",
        [(Some(&b"k"[..]), Some(&b"v"[..]))],
    )
    .await
    .expect("produce");
    let v1 = InProcess::start(EvolveV1, &servers, EOS);
    let mut out = Reader::new(&servers, "e2e-evolve-out").await;
    assert!(
        out.read_until(Duration::from_secs(60), |r| !r.is_empty())
            .await,
        "v1 did not run"
    );
    v1.stop().await.expect("v1 stops cleanly");

    let v2 = InProcess::start(EvolveV2, &servers, EOS);
    let error = v2
        .finished(Duration::from_secs(60))
        .await
        .expect("v2 fails")
        .expect_err("v2 is refused");
    let message = error.to_string();
    assert!(matches!(error, StreamsError::Group(_)), "{message}");
    assert!(
        message.contains("new application id") && message.contains("delete"),
        "the message says what to do: {message}"
    );

    let report = reset_application(&ClientSettings::new(servers.clone()), "e2e-evolve")
        .await
        .expect("reset");
    assert!(report.group_deleted, "{report:?}");
    let v2 = InProcess::start(EvolveV2, &servers, EOS);
    let mut counts = Reader::new(&servers, "e2e-evolve-counts").await;
    assert!(
        counts
            .read_until(Duration::from_secs(60), |r| !r.is_empty())
            .await,
        "v2 did not run after the reset"
    );
    v2.stop().await.expect("v2 stops cleanly");
    assert_eq!(
        counts
            .records
            .iter()
            .map(|r| i64_of(&r.value))
            .collect::<Vec<_>>(),
        vec![1],
        "input is read again from the beginning"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_broker_refuses_as_too_large_stops_the_application() {
    use rdkafka::admin::{AdminClient, AdminOptions, AlterConfig, ResourceSpecifier};
    use rdkafka::client::DefaultClientContext;
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-big",
        &[("e2e-big-in", 1), ("e2e-big-out", 1)],
    )
    .await;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", &servers)
        .create()
        .expect("admin");
    let alter =
        AlterConfig::new(ResourceSpecifier::Topic("e2e-big-out")).set("max.message.bytes", "4096");
    for r in admin
        .alter_configs(&[alter], &AdminOptions::new())
        .await
        .expect("alter configs")
    {
        r.expect("max.message.bytes set");
    }
    produce(
        &servers,
        "e2e-big-in",
        [(Some(&b"k"[..]), Some(&b"0123456789"[..]))],
    )
    .await
    .expect("produce");
    let app = InProcess::start(BigRecords, &servers, EOS);
    let error = app
        .finished(Duration::from_secs(60))
        .await
        .expect("run() returns by itself")
        .expect_err("the app stops");
    let message = error.to_string();
    assert!(matches!(error, StreamsError::Delivery(_)), "{message}");
    assert!(
        message.contains("e2e-big-out") && message.contains("max.message.bytes"),
        "{message}"
    );
    let mut out = Reader::new(&servers, "e2e-big-out").await;
    out.drain(Duration::from_secs(1)).await;
    assert!(out.records.is_empty());
}
