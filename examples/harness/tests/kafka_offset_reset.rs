//! Per-source offset reset (`stream(.., offset_reset(..))`, Kafka Streams' `AutoOffsetReset`,
//! KIP-1106) on a real broker: where each source starts when its group has no committed offset.
//! `latest` reads only what is written after its task started, `by_duration(1 h)` skips the
//! records stamped more than an hour before the start, a source without a policy reads from the
//! beginning, and `none` stops the application with an error that says what to do. A table's
//! `offset_reset(latest)` (Kafka Streams' `builder.table(topic, Consumed..withOffsetResetPolicy)`)
//! starts it empty, at the topic's end.
//! (Kafka Streams 4.4 on a broker, the same input and `Consumed.withOffsetResetPolicy(
//! AutoOffsetReset.latest())` / `byDuration(Duration.ofHours(1))`: the same outputs.)
//!
//! Needs a broker (`DEKAF_BOOTSTRAP`, see `scripts/kafka.sh`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dekaf_streams::prelude::*;
use dekaf_streams::{ProcessingGuarantee, StreamsError};
use dekaf_streams_harness::e2e::{InProcess, fresh, read_values};
use dekaf_streams_harness::kafka_io::{NewRecord, bootstrap, produce_records};

const EOS: ProcessingGuarantee = ProcessingGuarantee::ExactlyOnce;

topology! {
    /// Three pass-through streams, one per policy.
    pub Resets = "e2e-offset-reset" {
        stream("or-latest-in", Utf8, Utf8, offset_reset(latest)).to("or-latest-out", Utf8, Utf8);
        stream("or-recent-in", Utf8, Utf8, offset_reset(by_duration(Duration::from_secs(3600))))
            .to("or-recent-out", Utf8, Utf8);
        stream("or-earliest-in", Utf8, Utf8, offset_reset(earliest))
            .to("or-earliest-out", Utf8, Utf8);
        stream("or-default-in", Utf8, Utf8).to("or-default-out", Utf8, Utf8);
        table("or-table-in", Utf8, Utf8, "or-table-store", offset_reset(latest))
            .to_stream()
            .to("or-table-out", Utf8, dekaf_streams::serdes::Nullable::<Utf8>);
    }
}

topology! {
    /// A source that must not start without a committed offset.
    pub NoReset = "e2e-offset-reset-none" {
        stream("or-none-in", Utf8, Utf8, offset_reset(none)).to("or-none-out", Utf8, Utf8);
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

async fn send(topic: &str, values: &[String], timestamp: i64) {
    let records: Vec<NewRecord<'_>> = values
        .iter()
        .map(|v| NewRecord {
            key: Some(b"k"),
            value: Some(v.as_bytes()),
            timestamp: Some(timestamp),
            ..NewRecord::default()
        })
        .collect();
    let n = produce_records(&bootstrap(), topic, records)
        .await
        .expect("produce");
    assert_eq!(n as usize, values.len());
}

fn values(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_source_starts_where_its_offset_reset_says() {
    let servers = bootstrap();
    let topics: Vec<(&str, i32)> = [
        "or-latest-in",
        "or-latest-out",
        "or-recent-in",
        "or-recent-out",
        "or-earliest-in",
        "or-earliest-out",
        "or-default-in",
        "or-default-out",
        "or-table-in",
        "or-table-out",
    ]
    .into_iter()
    .map(|t| (t, 1))
    .collect();
    fresh(&servers, "e2e-offset-reset", &topics).await;
    let now = now_ms();
    send("or-latest-in", &values("before", 5), now).await;
    send(
        "or-recent-in",
        &values("two-hours-ago", 4),
        now - 2 * 3_600_000,
    )
    .await;
    send("or-recent-in", &values("ten-minutes-ago", 3), now - 600_000).await;
    send("or-earliest-in", &values("old", 4), now - 5 * 3_600_000).await;
    send("or-default-in", &values("old", 2), now - 5 * 3_600_000).await;
    send("or-table-in", &values("before", 2), now).await;

    let app = InProcess::start(Resets, &servers, EOS);
    // Once the sources that start at the beginning have produced, every task has its start.
    assert_eq!(read_values("or-earliest-out", 4).await, values("old", 4));
    assert_eq!(read_values("or-default-out", 2).await, values("old", 2));
    send("or-latest-in", &values("after", 3), now_ms()).await;
    // One key: the table's latest value is what it forwards (through its record cache).
    send("or-table-in", &values("after", 1), now_ms()).await;
    let latest = read_values("or-latest-out", 3).await;
    let table = read_values("or-table-out", 1).await;
    let recent = read_values("or-recent-out", 3).await;
    app.stop().await.expect("clean stop");
    assert_eq!(
        latest,
        values("after", 3),
        "latest: only what came after the start"
    );
    assert_eq!(
        recent,
        values("ten-minutes-ago", 3),
        "by_duration(1 h): the records of the last hour only"
    );
    assert_eq!(
        table,
        values("after", 1),
        "a table with offset_reset(latest) never saw what came before its start"
    );

    // Committed offsets win over the policy: a restart reads the rest, not from the end.
    send("or-latest-in", &values("while-stopped", 2), now_ms()).await;
    let app = InProcess::start(Resets, &servers, EOS);
    let latest = read_values("or-latest-out", 5).await;
    app.stop().await.expect("clean stop");
    let mut want = values("after", 3);
    want.extend(values("while-stopped", 2));
    assert_eq!(
        latest, want,
        "after a restart the committed offset is where it resumes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offset_reset_none_without_a_committed_offset_stops_the_application() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-offset-reset-none",
        &[("or-none-in", 1), ("or-none-out", 1)],
    )
    .await;
    send("or-none-in", &values("x", 2), now_ms()).await;
    let app = InProcess::start(NoReset, &servers, EOS);
    let result = app
        .finished(Duration::from_secs(60))
        .await
        .expect("run() returns by itself");
    let error = result.expect_err("run() returns the failure");
    assert!(
        matches!(&error, StreamsError::NoCommittedOffset { topic, partition: 0 } if topic == "or-none-in"),
        "{error}"
    );
    assert!(error.to_string().contains("offset_reset(none)"), "{error}");
}
