//! Sources with a timestamp extractor (`stream(.., timestamp(..))`, Kafka Streams'
//! `Consumed.withTimestampExtractor`): the extracted timestamp is the record's for every
//! operator after the source (output timestamps, windows, stream time); a negative one skips
//! the record and counts it as dropped, as Kafka Streams' `RecordQueue` does; the built-in
//! extractors treat a negative record timestamp as their Kafka Streams namesakes.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::task::{ErrorKind, TaskError};
use dekaf_streams::testing::{TestDriver, TestError};

/// `"<millis>|<payload>"` → millis; anything else → -1 (skipped).
fn payload_time(value: &str) -> i64 {
    value
        .split('|')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(-1)
}

topology! {
    /// The payload's time stamps the record; "pt" takes the partition time, "ts" Kafka's.
    pub Payload = "sources-payload" {
        let events = stream(
            "events",
            Utf8,
            Utf8,
            timestamp(|_key: &String, value: &String, record_ts: i64, partition_time: i64| match value.as_str() {
                "pt" => partition_time,
                "ts" => record_ts,
                other => payload_time(other),
            }),
        );
        events.to("stamped", Utf8, Utf8);
        events
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(10)))
            .count("per-10s")
            .to_stream()
            .to("counts", TimeWindowed::<Utf8>, I64);
    }
}

#[test]
fn the_extracted_timestamp_stamps_the_output_places_the_window_and_moves_stream_time() {
    let driver = TestDriver::<Payload>::new();
    let input = driver.input_topic(Payload::EVENTS);
    input.pipe_input_at("a".into(), "15000|x".into(), 1);
    input.pipe_input_at("a".into(), "3000|y".into(), 2);
    let stamped: Vec<_> = driver
        .output_topic(Payload::STAMPED)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.value, r.timestamp))
        .collect();
    assert_eq!(
        stamped,
        [("15000|x".to_owned(), 15000), ("3000|y".to_owned(), 3000)]
    );
    let windows: Vec<_> = driver
        .output_topic(Payload::COUNTS)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key.window.start, r.value, r.timestamp))
        .collect();
    // Stream time is the extracted 15000: window [0, 10000) has closed, the second record is
    // late, although Kafka's timestamps (1, 2) would have put both in one open window.
    assert_eq!(windows, [(10_000, 1, 15000)]);
    assert_eq!(driver.late_records_dropped(), 1);
    assert_eq!(driver.stream_time(0), Some(15000));
}

#[test]
fn a_negative_extracted_timestamp_skips_the_record_and_counts_it_dropped() {
    let driver = TestDriver::<Payload>::new();
    let input = driver.input_topic(Payload::EVENTS);
    input.pipe_input_at("a".into(), "not a time".into(), 50_000);
    input.pipe_input_at("a".into(), "-7|x".into(), 50_000);
    assert!(driver.output_topic(Payload::STAMPED).is_empty());
    assert!(driver.output_topic(Payload::COUNTS).is_empty());
    assert_eq!(driver.records_dropped(), 2);
    // A skipped record does not move stream time.
    assert_eq!(driver.stream_time(0), Some(i64::MIN));
}

#[test]
fn the_closure_sees_kafka_s_timestamp_and_the_partition_time() {
    let driver = TestDriver::<Payload>::new();
    let input = driver.input_topic(Payload::EVENTS);
    // No record yet: the partition time is -1, so the record is skipped.
    input.pipe_input_at("a".into(), "pt".into(), 10);
    input.pipe_input_at("a".into(), "ts".into(), 700);
    input.pipe_input_at("a".into(), "900|x".into(), 20);
    input.pipe_input_at("a".into(), "pt".into(), 30);
    input.pipe_input_at("a".into(), "100|y".into(), 40);
    input.pipe_input_at("a".into(), "pt".into(), 50);
    let stamped: Vec<_> = driver
        .output_topic(Payload::STAMPED)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.value, r.timestamp))
        .collect();
    assert_eq!(
        stamped,
        [
            ("ts".to_owned(), 700),
            ("900|x".to_owned(), 900),
            ("pt".to_owned(), 900),
            ("100|y".to_owned(), 100),
            ("pt".to_owned(), 900),
        ]
    );
    assert_eq!(driver.records_dropped(), 1);
}

topology! {
    /// The built-in extractors, one topic each.
    pub Builtins = "sources-builtins" {
        stream("fail", Utf8, Utf8, timestamp(FailOnInvalid)).to("fail-out", Utf8, Utf8);
        stream("skip", Utf8, Utf8, timestamp(LogAndSkipOnInvalid)).to("skip-out", Utf8, Utf8);
        stream("partition-time", Utf8, Utf8, timestamp(UsePartitionTimeOnInvalid))
            .to("partition-time-out", Utf8, Utf8);
        stream("wall", Utf8, Nullable::<Utf8>, timestamp(WallClock)).to("wall-out", Utf8, Nullable::<Utf8>);
    }
}

fn stamps(driver: &TestDriver<Builtins>, topic: TopicRef<String, String>) -> Vec<(String, i64)> {
    driver
        .output_topic(topic)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.value, r.timestamp))
        .collect()
}

#[test]
fn fail_on_invalid_fails_a_record_with_a_negative_timestamp() {
    let driver = TestDriver::<Builtins>::new();
    let input = driver.input_topic(Builtins::FAIL);
    input.pipe_input_at("a".into(), "ok".into(), 5);
    let failed = input.try_pipe_record_at("a".into(), "bad".into(), -1, Headers::new());
    let Err(TestError::Task(TaskError::Failed(error))) = failed else {
        panic!("a negative timestamp must fail the record: {failed:?}");
    };
    assert_eq!(error.kind, ErrorKind::InvalidTimestamp);
    assert!(
        error.message.contains("-1 is negative"),
        "{}",
        error.message
    );
    assert_eq!(stamps(&driver, Builtins::FAIL_OUT), [("ok".to_owned(), 5)]);
}

#[test]
fn log_and_skip_on_invalid_skips_and_counts() {
    let driver = TestDriver::<Builtins>::new();
    let input = driver.input_topic(Builtins::SKIP);
    input.pipe_input_at("a".into(), "bad".into(), -1);
    input.pipe_input_at("a".into(), "ok".into(), 5);
    assert_eq!(stamps(&driver, Builtins::SKIP_OUT), [("ok".to_owned(), 5)]);
    assert_eq!(driver.records_dropped(), 1);
}

#[test]
fn use_partition_time_on_invalid_replaces_a_negative_timestamp_once_known() {
    let driver = TestDriver::<Builtins>::new();
    let input = driver.input_topic(Builtins::PARTITION_TIME);
    let first = input.try_pipe_record_at("a".into(), "first".into(), -1, Headers::new());
    let Err(TestError::Task(TaskError::Failed(error))) = first else {
        panic!("no partition time yet: the record must fail: {first:?}");
    };
    assert_eq!(error.kind, ErrorKind::InvalidTimestamp);
    input.pipe_input_at("a".into(), "late".into(), 300);
    input.pipe_input_at("a".into(), "early".into(), 100);
    input.pipe_input_at("a".into(), "none".into(), -1);
    assert_eq!(
        stamps(&driver, Builtins::PARTITION_TIME_OUT),
        [
            ("late".to_owned(), 300),
            ("early".to_owned(), 100),
            ("none".to_owned(), 300)
        ]
    );
    assert_eq!(driver.records_dropped(), 0);
}

#[test]
fn wall_clock_stamps_records_with_the_system_time_also_null_values() {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or_default()
    };
    let driver = TestDriver::<Builtins>::new();
    let input = driver.input_topic(Builtins::WALL);
    let before = now();
    input.pipe_input_at("a".into(), Some("x".into()), 5);
    input.pipe_input_at("a".into(), None, -1);
    let after = now();
    let out = driver
        .output_topic(Builtins::WALL_OUT)
        .read_records_to_list();
    assert_eq!(out.len(), 2);
    for r in out {
        assert!(
            (before..=after).contains(&r.timestamp),
            "{} not in {before}..={after}",
            r.timestamp
        );
    }
}

topology! {
    /// One source of two topics (`stream([..])`, Kafka Streams' `builder.stream(List)`): both
    /// feed one count; the process step sees each record's own topic.
    pub TwoTopics = "two-topic-source" {
        let both = stream(["tt-web", "tt-app"], Utf8, Utf8);
        both.group_by_key().count("tt-counts").to_stream().to("tt-out", Utf8, I64);
        both.process_values([], |ctx, _k: &String, v: String| {
            Ok(Some(format!("{v}@{}", ctx.topic().unwrap_or("?"))))
        })
        .to("tt-topics", Utf8, Utf8);
    }
}

#[test]
fn a_source_of_two_topics_reads_both_into_one_stream() {
    let driver = TestDriver::<TwoTopics>::new();
    driver
        .input_topic(TwoTopics::TT_WEB)
        .pipe_input_at("u".into(), "a".into(), 10);
    driver
        .input_topic(TwoTopics::TT_APP)
        .pipe_input_at("u".into(), "b".into(), 11);
    driver
        .input_topic(TwoTopics::TT_APP)
        .pipe_input_at("v".into(), "c".into(), 12);
    assert_eq!(
        driver
            .output_topic(TwoTopics::TT_OUT)
            .read_key_values_to_list(),
        [
            ("u".to_owned(), 1),
            ("u".to_owned(), 2),
            ("v".to_owned(), 1)
        ]
    );
    assert_eq!(
        driver
            .output_topic(TwoTopics::TT_TOPICS)
            .read_values_to_list(),
        ["a@tt-web", "b@tt-app", "c@tt-app"]
    );
}

topology! {
    /// Each order to its region's topic (`to([..], chooser, ..)`, Kafka Streams'
    /// `TopicNameExtractor`).
    pub Routed = "routed-orders" {
        stream("ro-orders", Utf8, Utf8)
            .to(
                ["ro-orders-eu", "ro-orders-us"],
                |_key: &String, order: &String| format!("ro-orders-{}", &order[..2]),
                Utf8,
                Utf8,
            );
    }
}

#[test]
fn a_chooser_sends_each_record_to_its_topic_and_fails_an_undeclared_one() {
    let driver = TestDriver::<Routed>::new();
    let orders = driver.input_topic(Routed::RO_ORDERS);
    orders.pipe_input_at("o1".into(), "eu:book".into(), 1);
    orders.pipe_input_at("o2".into(), "us:pen".into(), 2);
    orders.pipe_input_at("o3".into(), "eu:ink".into(), 3);
    assert_eq!(
        driver
            .output_topic(Routed::RO_ORDERS_EU)
            .read_values_to_list(),
        ["eu:book", "eu:ink"]
    );
    assert_eq!(
        driver
            .output_topic(Routed::RO_ORDERS_US)
            .read_values_to_list(),
        ["us:pen"]
    );
    // A topic the list does not declare: the record fails (on_error's default is Fail).
    let failed = orders
        .try_pipe_record_at("o4".into(), "jp:cup".into(), 4, Headers::new())
        .expect_err("an undeclared topic");
    let message = failed.to_string();
    assert!(
        message.contains("ro-orders-jp") && message.contains("ro-orders-eu"),
        "{message}"
    );
}
