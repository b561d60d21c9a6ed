//! The record cache of session and sliding-window aggregations through the TestDriver, as
//! Kafka Streams 4.4 caches them (`CachingSessionStore`, `CachingWindowStore`): a commit
//! forwards each changed session or window once, with its latest value; a session created and
//! merged away between two commits is never forwarded, one that was forwarded before and is
//! merged away is forwarded as a tombstone; session results are stamped with the session's end
//! (`SessionCacheFlushListener`), sliding-window results with the window's largest record
//! timestamp (`TimestampedCacheFlushListener`). A commit after every record gives exactly the
//! uncached output.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::{RawRecord, TestDriver, TestOutputTopic};
use dekaf_streams_examples::sessions::Sessions;
use dekaf_streams_examples::sliding::Sliding;

const MIB: usize = 1024 * 1024;

/// A decoded session output: key, session start and end, value (`None`: tombstone), timestamp.
type SessionOut<V> = (String, i64, i64, Option<V>, i64);

fn decode<V: Serde>(raw: RawRecord) -> SessionOut<V::Value> {
    let key = SessionWindowed::<Utf8>::deserialize(raw.key.as_deref()).expect("session key");
    let value = raw.value.map(|v| V::deserialize(Some(&v)).expect("value"));
    (
        key.key,
        key.window.start,
        key.window.end,
        value,
        raw.timestamp,
    )
}

fn sessions<V: Serde, K2, V2>(
    topic: &TestOutputTopic<'_, Sessions, K2, V2>,
) -> Vec<SessionOut<V::Value>> {
    std::iter::from_fn(|| topic.read_raw())
        .map(decode::<V>)
        .collect()
}

fn s<V>(key: &str, start: i64, end: i64, value: Option<V>, ts: i64) -> SessionOut<V> {
    (key.to_owned(), start, end, value, ts)
}

/// Out-of-order records, merges of one and of two sessions, a late record, an expiry.
const CLICKS: &[(&str, &str, i64)] = &[
    ("a", "x", 0),
    ("a", "yy", 5),
    ("a", "z", 30),
    ("a", "w", 18),
    ("a", "v", 22),
    ("b", "u", 40),
    ("a", "t", 31),
    ("a", "s", 45),
    ("a", "r", 38),
    ("b", "q", 52),
];

/// Every output of the session topology, in order, per topic.
type AllSessions = (
    Vec<SessionOut<i64>>,
    Vec<SessionOut<String>>,
    Vec<SessionOut<String>>,
    Vec<SessionOut<i64>>,
);

fn run_sessions(cache: usize, commit_every_record: bool) -> AllSessions {
    let driver = TestDriver::<Sessions>::with_cache_max_bytes(cache);
    let clicks = driver.input_topic(Sessions::CLICKS);
    for (key, page, ts) in CLICKS {
        clicks.pipe_input_at((*key).into(), (*page).into(), *ts);
        if commit_every_record {
            driver.commit();
        }
    }
    driver.commit();
    (
        sessions::<I64, _, _>(&driver.output_topic(Sessions::SESSION_CLICKS)),
        sessions::<Utf8, _, _>(&driver.output_topic(Sessions::SESSION_PAGES)),
        sessions::<Utf8, _, _>(&driver.output_topic(Sessions::SESSION_LONGEST_PAGE)),
        sessions::<I64, _, _>(&driver.output_topic(Sessions::SESSION_CLICKS_FINAL)),
    )
}

#[test]
fn a_commit_after_every_record_forwards_what_the_uncached_sessions_forward() {
    let uncached = run_sessions(0, false);
    assert!(
        uncached.0.iter().any(|o| o.3.is_none()),
        "the input merges sessions: {uncached:?}"
    );
    assert_eq!(run_sessions(10 * MIB, true), uncached);
}

#[test]
fn a_cached_session_is_forwarded_once_per_commit_and_merged_away_ones_only_if_forwarded_before() {
    let driver = TestDriver::<Sessions>::with_cache_max_bytes(10 * MIB);
    let clicks = driver.input_topic(Sessions::CLICKS);
    let counts = driver.output_topic(Sessions::SESSION_CLICKS);
    let pages = driver.output_topic(Sessions::SESSION_PAGES);
    // Gap 10, no grace for the count (the uncached outputs of these records are in
    // session_windows.rs: [0,0], its tombstone, [0,5], [30,30], its tombstone, [22,30], [40,40],
    // [31,31]).
    for (page, ts) in [("x", 0), ("yy", 5), ("z", 30), ("w", 18), ("v", 22)] {
        clicks.pipe_input_at("a".into(), page.into(), ts);
    }
    clicks.pipe_input_at("b".into(), "u".into(), 40);
    clicks.pipe_input_at("a".into(), "t".into(), 31);
    assert!(counts.is_empty(), "nothing is forwarded before the commit");
    driver.commit();
    // [0,0] and [30,30] were created and merged away before the commit: never forwarded.
    // Each result is stamped with its session's end.
    assert_eq!(
        sessions::<I64, _, _>(&counts),
        vec![
            s("a", 0, 5, Some(2), 5),
            s("a", 22, 30, Some(2), 30),
            s("b", 40, 40, Some(1), 40),
            s("a", 31, 31, Some(1), 31),
        ]
    );
    // Grace 5 for the pages: 18 is not late there and starts [18,18] (beyond the gap of [0,5]
    // and of [30,30]); 22 merges [18,18] and [30,30] into [18,30] ("w" + "z", then "v"); 31
    // merges that into [18,31]. Of the five sessions of key a only two were still in the store
    // at the commit.
    assert_eq!(
        sessions::<Utf8, _, _>(&pages),
        vec![
            s("a", 0, 5, Some("xyy".to_owned()), 5),
            s("b", 40, 40, Some("u".to_owned()), 40),
            s("a", 18, 31, Some("wzvt".to_owned()), 31),
        ]
    );
    // [31,31] was forwarded at the last commit: merging it away forwards its tombstone (stamped
    // with its end), then the merged session.
    clicks.pipe_input_at("a".into(), "s".into(), 35);
    driver.commit();
    assert_eq!(
        sessions::<I64, _, _>(&counts),
        vec![s("a", 31, 31, None, 31), s("a", 31, 35, Some(2), 35)]
    );
    driver.commit();
    assert!(
        counts.is_empty(),
        "a commit with nothing changed forwards nothing"
    );
}

/// (key, window start, window end, value, timestamp)
type SlidingOut<V> = (String, i64, i64, V, i64);

fn windows<V>(topic: &TestOutputTopic<'_, Sliding, Windowed<String>, V>) -> Vec<SlidingOut<V>> {
    topic
        .read_records_to_list()
        .into_iter()
        .map(|r| {
            (
                r.key.key,
                r.key.window.start,
                r.key.window.end,
                r.value,
                r.timestamp,
            )
        })
        .collect()
}

fn w<V>(key: &str, start: i64, end: i64, value: V, ts: i64) -> SlidingOut<V> {
    (key.to_owned(), start, end, value, ts)
}

/// The input of sliding_windows.rs' first test: left and right windows, an out-of-order record.
const EVENTS: &[(&str, &str, i64)] = &[
    ("a", "a", 10),
    ("a", "b", 15),
    ("a", "c", 30),
    ("a", "d", 22),
    ("a", "e", 31),
];

type AllSliding = (
    Vec<SlidingOut<i64>>,
    Vec<SlidingOut<String>>,
    Vec<SlidingOut<i64>>,
);

fn run_sliding(cache: usize, commit_every_record: bool, extra: &[(&str, &str, i64)]) -> AllSliding {
    let driver = TestDriver::<Sliding>::with_cache_max_bytes(cache);
    let events = driver.input_topic(Sliding::EVENTS);
    for (key, value, ts) in EVENTS.iter().chain(extra) {
        events.pipe_input_at((*key).into(), (*value).into(), *ts);
        if commit_every_record {
            driver.commit();
        }
    }
    driver.commit();
    (
        windows(&driver.output_topic(Sliding::SLIDING_COUNT)),
        windows(&driver.output_topic(Sliding::SLIDING_CONCAT)),
        windows(&driver.output_topic(Sliding::SLIDING_FINAL)),
    )
}

#[test]
fn a_commit_after_every_record_forwards_what_the_uncached_sliding_windows_forward() {
    // The later records close every window of the first ones, so emit-final has output too.
    let later = [("a", "f", 60), ("b", "g", 100)];
    let uncached = run_sliding(0, false, &later);
    assert!(!uncached.2.is_empty(), "emit-final closed windows");
    assert_eq!(run_sliding(10 * MIB, true, &later), uncached);
}

#[test]
fn cached_sliding_windows_are_forwarded_once_per_commit_with_their_largest_record_timestamp() {
    let (counts, concat, _) = run_sliding(10 * MIB, false, &[]);
    // The uncached outputs are in sliding_windows.rs; here each window once, latest value, in
    // the order the windows first changed.
    assert_eq!(
        counts,
        vec![
            w("a", 0, 10, 1, 10),
            w("a", 11, 21, 1, 15),
            w("a", 5, 15, 2, 15),
            w("a", 20, 30, 2, 30),
            w("a", 23, 33, 2, 31),
            w("a", 31, 41, 1, 31),
            w("a", 21, 31, 3, 31),
        ]
    );
    assert_eq!(
        concat,
        vec![
            w("a", 0, 10, "a".to_owned(), 10),
            w("a", 11, 21, "b".to_owned(), 15),
            w("a", 5, 15, "ab".to_owned(), 15),
            w("a", 20, 30, "cd".to_owned(), 30),
            w("a", 16, 26, "d".to_owned(), 22),
            w("a", 23, 33, "ce".to_owned(), 31),
            w("a", 31, 41, "e".to_owned(), 31),
            w("a", 21, 31, "cde".to_owned(), 31),
        ]
    );
}
