//! Window and session stores in `process(..)` (Kafka Streams' `WindowStore` and
//! `SessionStore` added with `addStateStore`): writes, reads, retention, changelog and restore,
//! through the TestDriver.

use std::ops::Bound;

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Clicks counted per key in 10 ms windows by hand, with the counts of the two windows
    /// before; windows are kept 30 ms.
    pub Windowed = "process-window-store" {
        window_store("recent", Utf8, I64, size(Duration::from_millis(10)), retention(Duration::from_millis(30)));
        stream("clicks", Utf8, Utf8)
            .process(["recent"], |ctx, key: String, _v: String| {
                let start = ctx.timestamp() / 10 * 10;
                let n = ctx.recent().fetch(&key, start)?.unwrap_or(0) + 1;
                ctx.recent().put(&key, &n, start)?;
                let before: Vec<String> = ctx
                    .recent()
                    .fetch_range(&key, start.saturating_sub(20), start - 1)?
                    .into_iter()
                    .map(|(s, c)| format!("{s}:{c}"))
                    .collect();
                Ok(Some((key, format!("{n} [{}]", before.join(" ")))))
            })
            .to("window-counts", Utf8, Utf8);
    }
}

topology! {
    /// Every window of every key between two times, after each record (`fetch_all`), and the
    /// keys from "b" on (`fetch_keys`).
    pub Scans = "process-window-scans" {
        window_store("seen", Utf8, I64, size(Duration::from_millis(5)), retention(Duration::from_secs(600)));
        stream("marks", Utf8, I64)
            .process(["seen"], |ctx, key: String, start: i64| {
                let ts = ctx.timestamp();
                ctx.seen().put(&key, &ts, start)?;
                let all: Vec<String> = ctx
                    .seen()
                    .fetch_all(0, i64::MAX)?
                    .into_iter()
                    .map(|(w, v)| format!("{}@{}-{}={v}", w.key, w.window.start, w.window.end))
                    .collect();
                let from_b = ctx
                    .seen()
                    .fetch_keys(Bound::Included(&"b".to_owned()), Bound::Unbounded, 10, 20)?
                    .len();
                Ok(Some((key, format!("{} | {from_b}", all.join(" ")))))
            })
            .to("scans", Utf8, Utf8);
    }
}

topology! {
    /// Sessions by hand (gap 10 ms): a record merges the sessions of its key within the gap,
    /// removes them and puts the merged one, counting records; sessions are kept 50 ms.
    pub Sessions = "process-session-store" {
        session_store("visits", Utf8, I64, retention(Duration::from_millis(50)));
        stream("pages", Utf8, Utf8)
            .process(["visits"], |ctx, key: String, _v: String| {
                let t = ctx.timestamp();
                let (mut start, mut end, mut n) = (t, t, 1);
                for (w, count) in ctx.visits().find_sessions(&key, t - 10, t + 10)? {
                    start = start.min(w.start);
                    end = end.max(w.end);
                    n += count;
                    ctx.visits().remove(&key, w.start, w.end)?;
                }
                ctx.visits().put(&key, start, end, &n)?;
                let all = ctx.visits().fetch(&key)?.len();
                Ok(Some((key, format!("[{start},{end}]={n} of {all}"))))
            })
            .to("sessions", Utf8, Utf8);
    }
}

fn values(out: Vec<(String, String)>) -> Vec<String> {
    out.into_iter().map(|(k, v)| format!("{k} {v}")).collect()
}

#[test]
fn a_window_store_keeps_values_per_window_and_reads_them_back_by_time() {
    let driver = TestDriver::<Windowed>::new();
    let clicks = driver.input_topic(Windowed::CLICKS);
    let out = driver.output_topic(Windowed::WINDOW_COUNTS);
    for (k, t) in [
        ("a", 1),
        ("a", 5),
        ("a", 12),
        ("b", 13),
        ("a", 25),
        ("a", 29),
    ] {
        clicks.pipe_input_at(k.into(), "x".into(), t);
    }
    assert_eq!(
        values(out.read_key_values_to_list()),
        [
            "a 1 []",
            "a 2 []",
            "a 1 [0:2]",
            "b 1 []",
            "a 1 [0:2 10:1]",
            "a 2 [0:2 10:1]",
        ]
    );
    let store = driver.window_store(Windowed::RECENT);
    assert_eq!(store.fetch(&"a".to_owned(), 10), Some(1));
    assert_eq!(store.fetch(&"b".to_owned(), 10), Some(1));
}

#[test]
fn a_window_store_forgets_windows_its_retention_passed() {
    let driver = TestDriver::<Windowed>::new();
    let clicks = driver.input_topic(Windowed::CLICKS);
    let out = driver.output_topic(Windowed::WINDOW_COUNTS);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    clicks.pipe_input_at("a".into(), "x".into(), 10);
    // Window 40 makes the store's stream time 40: windows from 11 on are visible (40 − 30 +
    // 1), so window 10 is gone, window 20 would be seen.
    clicks.pipe_input_at("b".into(), "x".into(), 40);
    clicks.pipe_input_at("a".into(), "x".into(), 30);
    // A put into an expired window (start 10 ≤ 40 − 30) is dropped: the count starts over.
    clicks.pipe_input_at("a".into(), "x".into(), 15);
    clicks.pipe_input_at("a".into(), "x".into(), 16);
    assert_eq!(
        values(out.read_key_values_to_list()),
        [
            "a 1 []",
            "a 1 [0:1]",
            "b 1 []",
            "a 1 []",
            "a 1 []",
            "a 1 []"
        ]
    );
    // Expired windows are deleted, with a tombstone in the changelog.
    let windows: Vec<(String, i64)> = driver
        .window_store(Windowed::RECENT)
        .all()
        .into_iter()
        .map(|(w, _)| (w.key, w.window.start))
        .collect();
    assert_eq!(windows, [("a".to_owned(), 30), ("b".to_owned(), 40)]);
    let log = driver.changelog("process-window-store-recent-changelog");
    let tombstones = log.iter().filter(|r| r.value.is_none()).count();
    assert_eq!(tombstones, 2, "{log:?}");
}

#[test]
fn a_window_store_changelog_is_kafka_streams_window_key_schema_and_restores() {
    let driver = TestDriver::<Windowed>::new();
    let clicks = driver.input_topic(Windowed::CLICKS);
    let out = driver.output_topic(Windowed::WINDOW_COUNTS);
    clicks.pipe_input_at("a".into(), "x".into(), 1_000);
    let log = driver.changelog("process-window-store-recent-changelog");
    assert_eq!(log.len(), 1);
    // WindowKeySchema.toStoreKeyBinary("a", 1000, 0): key, start, sequence number.
    assert_eq!(
        log[0].key.as_deref(),
        Some(&[b'a', 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 0][..])
    );
    assert_eq!(log[0].value.as_deref(), Some(&1i64.to_be_bytes()[..]));
    assert_eq!(log[0].timestamp, 1_000);
    driver.clear_and_restore().expect("restore");
    clicks.pipe_input_at("a".into(), "x".into(), 1_002);
    clicks.pipe_input_at("a".into(), "x".into(), 1_011);
    assert_eq!(
        values(out.read_key_values_to_list()),
        ["a 1 []", "a 2 []", "a 1 [1000:2]"]
    );
}

#[test]
fn the_restored_window_store_keeps_its_retention() {
    let driver = TestDriver::<Windowed>::new();
    let clicks = driver.input_topic(Windowed::CLICKS);
    let out = driver.output_topic(Windowed::WINDOW_COUNTS);
    clicks.pipe_input_at("a".into(), "x".into(), 0);
    clicks.pipe_input_at("b".into(), "x".into(), 40);
    driver.clear_and_restore().expect("restore");
    // The restored store's stream time is 40 again: window 0 stays expired.
    clicks.pipe_input_at("a".into(), "x".into(), 5);
    assert_eq!(
        values(out.read_key_values_to_list()),
        ["a 1 []", "b 1 []", "a 1 []"]
    );
}

#[test]
fn window_scans_come_as_kafka_streams_persistent_store_returns_them() {
    let driver = TestDriver::<Scans>::new();
    let marks = driver.input_topic(Scans::MARKS);
    let out = driver.output_topic(Scans::SCANS);
    marks.pipe_input_at("c".into(), 10, 1);
    marks.pipe_input_at("a".into(), 20, 2);
    marks.pipe_input_at("b".into(), 10, 3);
    // "bb" extends "b"'s bytes: it sorts among "b"'s windows in the store, but is its own key.
    marks.pipe_input_at("bb".into(), 0, 4);
    // The retention is 10 minutes, so Kafka Streams' segments are 5 minutes: a window from
    // 300 000 on is in the next segment, after every key of the first.
    marks.pipe_input_at("a".into(), 300_000, 5);
    marks.pipe_input_at("c".into(), 299_999, 6);
    let got = values(out.read_key_values_to_list());
    assert_eq!(
        got,
        [
            "c c@10-15=1 | 1",
            "a a@20-25=2 c@10-15=1 | 1",
            "b a@20-25=2 b@10-15=3 c@10-15=1 | 2",
            "bb a@20-25=2 b@10-15=3 bb@0-5=4 c@10-15=1 | 2",
            "a a@20-25=2 b@10-15=3 bb@0-5=4 c@10-15=1 a@300000-300005=5 | 2",
            "c a@20-25=2 b@10-15=3 bb@0-5=4 c@10-15=1 c@299999-300004=6 a@300000-300005=5 | 2",
        ]
    );
}

#[test]
fn a_session_store_finds_merges_and_removes_sessions() {
    let driver = TestDriver::<Sessions>::new();
    let pages = driver.input_topic(Sessions::PAGES);
    let out = driver.output_topic(Sessions::SESSIONS);
    for (k, t) in [
        ("a", 0),
        ("a", 5),
        ("a", 24),
        ("b", 31),
        ("a", 14),
        ("a", 45),
    ] {
        pages.pipe_input_at(k.into(), "p".into(), t);
    }
    assert_eq!(
        values(out.read_key_values_to_list()),
        [
            "a [0,0]=1 of 1",
            "a [0,5]=2 of 1",
            "a [24,24]=1 of 2",
            "b [31,31]=1 of 1",
            // 14 is within 10 of 5 (session [0,5]) and of 24: all three merge.
            "a [0,24]=4 of 1",
            "a [45,45]=1 of 2",
        ]
    );
    let store = driver.session_store(Sessions::VISITS);
    assert_eq!(store.fetch_session(&"a".to_owned(), 0, 24), Some(4));
    assert_eq!(store.fetch_session(&"a".to_owned(), 0, 5), None);
    // The changelog key is Kafka Streams' SessionKeySchema: key, end, start.
    let log = driver.changelog("process-session-store-visits-changelog");
    let mut first = b"a".to_vec();
    first.extend_from_slice(&0i64.to_be_bytes());
    first.extend_from_slice(&0i64.to_be_bytes());
    assert_eq!(log[0].key.as_deref(), Some(&first[..]));
}

#[test]
fn a_session_store_forgets_sessions_its_retention_passed_and_survives_a_restore() {
    let driver = TestDriver::<Sessions>::new();
    let pages = driver.input_topic(Sessions::PAGES);
    let out = driver.output_topic(Sessions::SESSIONS);
    pages.pipe_input_at("a".into(), "p".into(), 0);
    pages.pipe_input_at("a".into(), "p".into(), 22);
    driver.clear_and_restore().expect("restore");
    // Session end 70 makes the stream time 70: sessions ending before 21 (70 − 50 + 1) are
    // gone, so [22,22] is still found and [0,0] is not.
    pages.pipe_input_at("b".into(), "p".into(), 70);
    pages.pipe_input_at("a".into(), "p".into(), 25);
    // A session ending at 20 or before is expired: its put is dropped.
    pages.pipe_input_at("c".into(), "p".into(), 20);
    assert_eq!(
        values(out.read_key_values_to_list()),
        [
            "a [0,0]=1 of 1",
            "a [22,22]=1 of 2",
            "b [70,70]=1 of 1",
            "a [22,25]=2 of 1",
            "c [20,20]=1 of 0",
        ]
    );
}

#[test]
fn the_stores_are_described_and_declared_as_kafka_streams_declares_them() {
    let text = Windowed::describe();
    println!("{text}");
    assert!(text.contains(
        "Store: recent (window, size 10 ms, retention 30 ms; changelog: process-window-store-recent-changelog)"
    ));
    assert!(text.contains("Stores.persistentWindowStore(\"recent\", Duration.ofMillis(30), Duration.ofMillis(10), false)"));
    let text = Sessions::describe();
    assert!(text.contains(
        "Store: visits (session, retention 50 ms; changelog: process-session-store-visits-changelog)"
    ));
    assert!(text.contains("Stores.persistentSessionStore(\"visits\", Duration.ofMillis(50))"));
}

#[test]
fn an_expired_window_put_is_not_stored_and_counts_as_dropped_when_its_segment_expired() {
    let driver = TestDriver::<Scans>::new();
    let marks = driver.input_topic(Scans::MARKS);
    let out = driver.output_topic(Scans::SCANS);
    marks.pipe_input_at("a".into(), 900_001, 1);
    // Visible from 300 002 on (900 001 − 600 000 + 1). Window 300 000 is expired but in the
    // segment [300 000, 600 000) that Kafka Streams still keeps: not stored, not counted.
    marks.pipe_input_at("b".into(), 300_000, 2);
    assert_eq!(driver.records_dropped(), 0);
    // Window 0's segment has expired: not stored, counted as Kafka Streams counts it.
    marks.pipe_input_at("c".into(), 0, 3);
    assert_eq!(driver.records_dropped(), 1);
    let got = values(out.read_key_values_to_list());
    assert_eq!(
        got,
        [
            "a a@900001-900006=1 | 0",
            "b a@900001-900006=1 | 0",
            "c a@900001-900006=1 | 0",
        ]
    );
}
