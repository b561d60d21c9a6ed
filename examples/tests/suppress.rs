//! Suppression through the TestDriver: `suppress_until_time_limit(..)` of plain, windowed and
//! session-windowed aggregations and of a table read from a topic, its buffer restored from the changelog, and the buffer configs of both
//! suppressions (emit early, shut down when full), with the outputs Kafka Streams 4.4's
//! `KTableSuppressProcessor` gives (checked against it by `examples/parity`, cases
//! `limit_suppress_*`, `tumbling_limit_suppress_basic`, `tumbling_suppress_shut_down_basic`).

use dekaf_streams::prelude::*;
use dekaf_streams::task::TaskError;
use dekaf_streams::testing::{TestDriver, TestError};

topology! {
    /// Counts held 10 ms per key, and held 100 ms in a buffer of two keys that emits early.
    pub Limited = "suppress-limited" {
        let counts = stream("clicks", Utf8, Utf8).group_by_key().count("counts");
        counts
            .suppress_until_time_limit(Duration::from_millis(10), unbounded(), "settled")
            .to_stream()
            .to("counts-settled", Utf8, I64);
        counts
            .suppress_until_time_limit(Duration::from_millis(100), max_records(2), "early")
            .to_stream()
            .to("counts-early", Utf8, I64);
    }
}

topology! {
    /// Windowed counts held 5 ms per window and key.
    pub Windowed = "suppress-windowed" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_millis(10)).grace(Duration::from_millis(20)))
            .count("counts")
            .suppress_until_time_limit(Duration::from_millis(5))
            .to_stream()
            .to("window-counts", TimeWindowed::<Utf8>, I64);
    }
}

topology! {
    /// A buffer of one key that shuts down when full.
    pub Strict = "suppress-strict" {
        let clicks = stream("clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .count("counts")
            .suppress_until_time_limit(Duration::from_secs(60), max_records(1).shut_down_when_full(), "one-key")
            .to_stream()
            .to("one-key", Utf8, I64);
    }
}

topology! {
    /// Final window counts in a buffer of one window that shuts down when full.
    pub StrictFinal = "suppress-strict-final" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_millis(10)))
            .count("counts")
            .suppress_until_window_closes(max_records(1).shut_down_when_full())
            .to_stream()
            .to("finals", TimeWindowed::<Utf8>, I64);
    }
}

fn kv(k: &str, v: i64, ts: i64) -> (String, i64, i64) {
    (k.to_owned(), v, ts)
}

topology! {
    /// Session counts (gap 10 ms, grace 5 ms) held 5 ms per session.
    pub Sessions = "suppress-sessions" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_millis(10)).grace(Duration::from_millis(5)))
            .count("counts")
            .suppress_until_time_limit(Duration::from_millis(5))
            .to_stream()
            .to("session-counts", SessionWindowed::<Utf8>, I64);
    }
}

/// The raw records of `out`: `key@start/end` (session keys), the count or `null`, the
/// timestamp.
fn sessions<K, V>(
    out: &dekaf_streams::testing::TestOutputTopic<'_, Sessions, K, V>,
) -> Vec<String> {
    std::iter::from_fn(|| out.read_raw())
        .map(|r| {
            let k = r.key.unwrap_or_default();
            let n = k.len() - 16;
            let end = i64::from_be_bytes(k[n..n + 8].try_into().unwrap_or_default());
            let start = i64::from_be_bytes(k[n + 8..].try_into().unwrap_or_default());
            let v = r.value.map_or("null".to_owned(), |v| {
                i64::from_be_bytes(v[..].try_into().unwrap_or_default()).to_string()
            });
            format!(
                "{}@{start}/{end}={v}@{}",
                String::from_utf8_lossy(&k[..n]),
                r.timestamp
            )
        })
        .collect()
}

#[test]
fn merged_away_sessions_are_suppressed_deletes_and_survive_a_restore() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let out = driver.output_topic(Sessions::SESSION_COUNTS);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    // a@5 merges [0,0] away: its delete replaces its buffered count (buffered at its end, 0)
    // and is due at 5.
    clicks.pipe_input_at("a".into(), "x".into(), 5);
    assert_eq!(sessions(&out), ["a@0/0=null@0"]);
    clicks.pipe_input_at("b".into(), "x".into(), 30);
    clicks.pipe_input_at("b".into(), "x".into(), 28);
    // b@28 merges [30,30] away; the suppression's time is 30, so nothing of b is due (30 > 25)
    // and [0,5] (buffered at 5) was.
    assert_eq!(sessions(&out), ["a@0/5=2@5"]);
    driver.clear_and_restore().expect("restore");
    // The restored buffer holds the delete of [30,30] and the count of [28,30].
    clicks.pipe_input_at("x".into(), "x".into(), 40);
    assert_eq!(sessions(&out), ["b@28/30=2@30", "b@30/30=null@30"]);
}

topology! {
    /// A table read from a topic, each key's latest change held 10 ms, then filtered.
    pub Prices = "suppress-prices" {
        table("prices", Utf8, Utf8, "prices")
            .suppress_until_time_limit(Duration::from_millis(10), unbounded(), "settled")
            .filter(|_k, v| v != "0")
            .to_stream()
            .to("settled-prices", Utf8, Nullable::<Utf8>);
    }
}

#[test]
fn a_tables_changes_are_held_per_key_with_their_old_values_and_survive_a_restore() {
    let driver = TestDriver::<Prices>::new();
    let prices = driver.input_topic(Prices::PRICES);
    let out = driver.output_topic(Prices::SETTLED_PRICES);
    prices.pipe_input_at("a".into(), "1".into(), 0);
    prices.pipe_input_at("b".into(), "5".into(), 4);
    prices.pipe_input_at("a".into(), "2".into(), 5);
    driver.clear_and_restore().expect("restore");
    // The restored buffer holds a (buffered at 0, now 2) and b; 12 makes a due, not b.
    prices.pipe_input_at("c".into(), "7".into(), 12);
    assert_eq!(
        out.read_records_to_list()
            .into_iter()
            .map(|r| (r.key, r.value, r.timestamp))
            .collect::<Vec<_>>(),
        [("a".to_owned(), Some("2".to_owned()), 5)]
    );
    // a goes to 0 and then away: the filter after the suppression gets (new 0 → none, old 2):
    // a delete, since 2 was forwarded.
    prices.pipe_input_at("a".into(), "0".into(), 13);
    prices.pipe_input_at("x".into(), "9".into(), 30);
    assert_eq!(
        out.read_records_to_list()
            .into_iter()
            .map(|r| (r.key, r.value, r.timestamp))
            .collect::<Vec<_>>(),
        [
            ("b".to_owned(), Some("5".to_owned()), 4),
            ("c".to_owned(), Some("7".to_owned()), 12),
            ("a".to_owned(), None, 13),
        ]
    );
}

#[test]
fn a_key_is_emitted_once_stream_time_passes_its_first_buffered_time_plus_the_limit() {
    let driver = TestDriver::<Limited>::new();
    let clicks = driver.input_topic(Limited::CLICKS);
    let settled = driver.output_topic(Limited::COUNTS_SETTLED);
    for (k, ts) in [("a", 0), ("b", 5), ("a", 8)] {
        clicks.pipe_input_at(k.into(), "x".into(), ts);
    }
    assert!(settled.is_empty(), "nothing is due before time 10");
    // Time 10: a was first buffered at 0, so its latest count (2, stamped 8) goes now; the
    // update at 8 did not move its place.
    clicks.pipe_input_at("a".into(), "x".into(), 10);
    let got: Vec<_> = std::iter::from_fn(|| settled.read_record())
        .map(|r| kv(&r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(got, [kv("a", 3, 10)]);
    clicks.pipe_input_at("c".into(), "x".into(), 15);
    let got: Vec<_> = std::iter::from_fn(|| settled.read_record())
        .map(|r| kv(&r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(got, [kv("b", 1, 5)]);
}

#[test]
fn emit_early_sends_the_earliest_buffered_keys_when_the_buffer_is_full() {
    let driver = TestDriver::<Limited>::new();
    let clicks = driver.input_topic(Limited::CLICKS);
    let early = driver.output_topic(Limited::COUNTS_EARLY);
    for (k, ts) in [("a", 0), ("b", 1), ("a", 2), ("c", 3), ("d", 4), ("c", 5)] {
        clicks.pipe_input_at(k.into(), "x".into(), ts);
    }
    let got: Vec<_> = std::iter::from_fn(|| early.read_record())
        .map(|r| kv(&r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(got, [kv("a", 2, 2), kv("b", 1, 1)]);
}

#[test]
fn the_buffer_is_restored_from_its_changelog_and_keeps_each_keys_place() {
    let driver = TestDriver::<Limited>::new();
    let clicks = driver.input_topic(Limited::CLICKS);
    let settled = driver.output_topic(Limited::COUNTS_SETTLED);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    clicks.pipe_input_at("b".into(), "x".into(), 5);
    clicks.pipe_input_at("a".into(), "x".into(), 8);
    assert!(
        !driver
            .changelog("suppress-limited-settled-store-changelog")
            .is_empty(),
        "the buffer is changelogged"
    );
    driver.clear_and_restore().expect("restore");
    // The restored buffer still holds a at 0 and b at 5; the suppression's own stream time
    // starts again (as Kafka Streams' processor-local time does) and the next record sets it.
    clicks.pipe_input_at("c".into(), "x".into(), 15);
    let got: Vec<_> = std::iter::from_fn(|| settled.read_record())
        .map(|r| kv(&r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(got, [kv("a", 2, 8), kv("b", 1, 5)]);
}

#[test]
fn a_windowed_count_is_suppressed_per_window_and_key() {
    let driver = TestDriver::<Windowed>::new();
    let clicks = driver.input_topic(Windowed::CLICKS);
    let out = driver.output_topic(Windowed::WINDOW_COUNTS);
    for (k, ts) in [("a", 0), ("a", 3), ("b", 6), ("a", 8), ("x", 20)] {
        clicks.pipe_input_at(k.into(), "x".into(), ts);
    }
    let got: Vec<_> = std::iter::from_fn(|| out.read_record())
        .map(|r| (r.key.key, r.key.window.start, r.value, r.timestamp))
        .collect();
    assert_eq!(
        got,
        [
            ("a".to_owned(), 0, 2, 3),
            ("b".to_owned(), 0, 1, 6),
            ("a".to_owned(), 0, 3, 8)
        ]
    );
}

fn buffer_full(result: Result<(), TestError>) -> String {
    match result {
        Err(TestError::Task(TaskError::BufferFull { node, message })) => {
            format!("{node}: {message}")
        }
        other => panic!("expected a full buffer, got {other:?}"),
    }
}

#[test]
fn shut_down_when_full_fails_the_task_naming_the_buffer_config() {
    let driver = TestDriver::<Strict>::new();
    let clicks = driver.input_topic(Strict::CLICKS);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    clicks.pipe_input_at("a".into(), "x".into(), 1);
    let message = buffer_full(clicks.try_pipe_record_at("b".into(), "x".into(), 2, Headers::new()));
    assert!(message.starts_with("one-key-suppress: "), "{message}");
    assert!(message.contains("[2/1] records"), "{message}");
    assert!(
        message.contains("max_records(1).shut_down_when_full()"),
        "{message}"
    );
}

#[test]
fn a_strict_final_buffer_counts_open_windows_after_closed_ones_leave() {
    let driver = TestDriver::<StrictFinal>::new();
    let clicks = driver.input_topic(StrictFinal::CLICKS);
    let finals = driver.output_topic(StrictFinal::FINALS);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    clicks.pipe_input_at("a".into(), "x".into(), 5);
    // [10, 20) joins [0, 10) in the buffer, but [0, 10) closes and leaves first: not full.
    clicks.pipe_input_at("a".into(), "x".into(), 12);
    let got: Vec<_> = std::iter::from_fn(|| finals.read_record())
        .map(|r| (r.key.key, r.key.window.start, r.value))
        .collect();
    assert_eq!(got, [("a".to_owned(), 0, 2)]);
    let message =
        buffer_full(clicks.try_pipe_record_at("b".into(), "x".into(), 13, Headers::new()));
    assert!(message.contains("[2/1] records"), "{message}");
}
