//! Session windows through the TestDriver, with the outputs Kafka Streams 4.4's
//! `KStreamSessionWindowAggregate` produces (caching off): merges with a tombstone per
//! merged-away session, late records, out-of-order records, expired sessions, the
//! `SessionWindowedSerializer` key layout, and bad input.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::{RawRecord, TestDriver};
use dekaf_streams_examples::sessions::Sessions;

/// A decoded output record: key, session start and end, value (`None`: tombstone), timestamp.
type Out<V> = (String, i64, i64, Option<V>, i64);

fn decode<V: Serde>(raw: RawRecord) -> Out<V::Value> {
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

fn read_all<V: Serde, K2, V2>(
    topic: &dekaf_streams::testing::TestOutputTopic<'_, Sessions, K2, V2>,
) -> Vec<Out<V::Value>> {
    std::iter::from_fn(|| topic.read_raw())
        .map(decode::<V>)
        .collect()
}

fn out<V>(key: &str, start: i64, end: i64, value: Option<V>, ts: i64) -> Out<V> {
    (key.to_owned(), start, end, value, ts)
}

#[test]
fn sessions_merge_with_a_tombstone_per_old_session_and_late_records_are_dropped() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let counts = driver.output_topic(Sessions::SESSION_CLICKS);
    // Gap 10, no grace: a session closes 10 ms after its end.
    clicks.pipe_input_at("a".into(), "p".into(), 0);
    clicks.pipe_input_at("a".into(), "p".into(), 5); // within the gap: merges [0,0]
    clicks.pipe_input_at("a".into(), "p".into(), 30); // beyond the gap: a new session
    clicks.pipe_input_at("a".into(), "p".into(), 18); // [18,18] ends before 30 − 10: late
    clicks.pipe_input_at("a".into(), "p".into(), 22); // out of order, merges [30,30]
    clicks.pipe_input_at("b".into(), "p".into(), 40);
    // Stream time 40: the store keeps sessions ending after 40 − 10, so [22,30] has expired
    // (Kafka Streams' stores hide it the same way) and this record starts a new session.
    clicks.pipe_input_at("a".into(), "p".into(), 31);
    assert_eq!(
        read_all::<I64, _, _>(&counts),
        vec![
            out("a", 0, 0, Some(1), 0),
            out("a", 0, 0, None, 0),
            out("a", 0, 5, Some(2), 5),
            out("a", 30, 30, Some(1), 30),
            out("a", 30, 30, None, 30),
            out("a", 22, 30, Some(2), 30),
            out("b", 40, 40, Some(1), 40),
            out("a", 31, 31, Some(1), 31),
        ]
    );
    // The late record is counted once per session aggregation that dropped it: count
    // (grace 0) drops it; the three with 5 ms of grace (close at 40 − 15) take it.
    assert_eq!(driver.late_records_dropped(), 1);
}

#[test]
fn a_record_between_two_sessions_merges_both_and_the_merger_combines_their_aggregates() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let pages = driver.output_topic(Sessions::SESSION_PAGES);
    let longest = driver.output_topic(Sessions::SESSION_LONGEST_PAGE);
    for (page, ts) in [
        ("x", 0),
        ("yy", 5),
        ("z", 12),
        ("w", 40),
        ("v", 26),
        ("u", 33),
    ] {
        clicks.pipe_input_at("a".into(), page.into(), ts);
    }
    // Gap 10, grace 5. At 26 stream time is 40: sessions close at 40 − 15 = 25, so [26,26]
    // is accepted; [0,12] ends before what the store keeps (40 − 15) and is not merged.
    // 33 lies within the gap of [26,26] and of [40,40]: it merges both, in store order.
    assert_eq!(
        read_all::<Utf8, _, _>(&pages),
        vec![
            out("a", 0, 0, Some("x".to_owned()), 0),
            out("a", 0, 0, None, 0),
            out("a", 0, 5, Some("xyy".to_owned()), 5),
            out("a", 0, 5, None, 5),
            out("a", 0, 12, Some("xyyz".to_owned()), 12),
            out("a", 40, 40, Some("w".to_owned()), 40),
            out("a", 26, 26, Some("v".to_owned()), 26),
            out("a", 26, 26, None, 26),
            out("a", 40, 40, None, 40),
            out("a", 26, 40, Some("vwu".to_owned()), 40),
        ]
    );
    let values: Vec<Option<String>> = read_all::<Utf8, _, _>(&longest)
        .into_iter()
        .map(|o| o.3)
        .collect();
    assert_eq!(
        values,
        [
            Some("x"),
            None,
            Some("yy"),
            None,
            Some("yy"),
            Some("w"),
            Some("v"),
            None,
            None,
            Some("v"),
        ]
        .map(|v| v.map(str::to_owned))
    );
}

#[test]
fn a_record_inside_a_session_replaces_it_and_one_at_the_same_time_overwrites_it() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let counts = driver.output_topic(Sessions::SESSION_CLICKS);
    clicks.pipe_input_at("a".into(), "p".into(), 10);
    clicks.pipe_input_at("a".into(), "p".into(), 10); // [10,10] again: overwritten, no tombstone
    clicks.pipe_input_at("a".into(), "p".into(), 20);
    clicks.pipe_input_at("a".into(), "p".into(), 15); // inside [10,20]: tombstone, then value
    assert_eq!(
        read_all::<I64, _, _>(&counts),
        vec![
            out("a", 10, 10, Some(1), 10),
            out("a", 10, 10, Some(2), 10),
            out("a", 10, 10, None, 10),
            out("a", 10, 20, Some(3), 20),
            out("a", 10, 20, None, 20),
            out("a", 10, 20, Some(4), 20),
        ]
    );
}

#[test]
fn session_keys_are_written_as_session_windowed_serializer_writes_them() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let counts = driver.output_topic(Sessions::SESSION_CLICKS);
    clicks.pipe_input_at("user".into(), "p".into(), 1_000);
    clicks.pipe_input_at("user".into(), "p".into(), 1_007);
    let raw: Vec<RawRecord> = std::iter::from_fn(|| counts.read_raw()).collect();
    let key = |start: i64, end: i64| {
        [b"user".as_slice(), &end.to_be_bytes(), &start.to_be_bytes()].concat()
    };
    assert_eq!(raw.len(), 3);
    assert_eq!(raw[2].key.as_deref(), Some(key(1_000, 1_007).as_slice()));
    assert_eq!(raw[2].value.as_deref(), Some(2i64.to_be_bytes().as_slice()));
    assert_eq!(raw[1].key.as_deref(), Some(key(1_000, 1_000).as_slice()));
    assert_eq!(raw[1].value, None);
    // The changelog carries the same keys: the deletion of [1000,1000] and the merged session.
    let changelog = driver.changelog("sessions-clicks-per-session-changelog");
    let keys: Vec<(Vec<u8>, bool)> = changelog
        .iter()
        .map(|r| (r.key.clone().unwrap_or_default(), r.value.is_some()))
        .collect();
    assert_eq!(
        keys,
        [
            (key(1_000, 1_000), true),
            (key(1_000, 1_000), false),
            (key(1_000, 1_007), true)
        ]
    );
}

#[test]
fn final_results_are_emitted_once_per_session_when_it_closes() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let finals = driver.output_topic(Sessions::SESSION_CLICKS_FINAL);
    for ts in [0, 5, 12, 40] {
        clicks.pipe_input_at("a".into(), "p".into(), ts);
    }
    // Stream time 40 passed [0,12]'s end + gap + grace (12 + 15): its one final result.
    assert_eq!(
        read_all::<I64, _, _>(&finals),
        vec![out("a", 0, 12, Some(3), 12)]
    );
    clicks.pipe_input_at("a".into(), "p".into(), 26);
    clicks.pipe_input_at("a".into(), "p".into(), 33); // merges [26,26] and [40,40]
    assert!(finals.is_empty(), "no session closed yet");
    clicks.pipe_input_at("b".into(), "p".into(), 55); // 55 − 15 = 40: [26,40] closes
    assert_eq!(
        read_all::<I64, _, _>(&finals),
        vec![out("a", 26, 40, Some(3), 40)]
    );
    // The merged-away sessions [26,26] and [40,40] never come out.
    clicks.pipe_input_at("b".into(), "p".into(), 200);
    assert_eq!(
        read_all::<I64, _, _>(&finals),
        vec![out("b", 55, 55, Some(1), 55)]
    );
}

#[test]
fn a_negative_timestamp_goes_to_on_error_as_an_invalid_timestamp() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    let result = clicks.try_pipe_record_at("a".into(), "p".into(), -5, Headers::default());
    let error = format!(
        "{:?}",
        result.expect_err("the default on_error fails the task")
    );
    assert!(error.contains("InvalidTimestamp"), "{error}");
    assert!(driver.output_topic(Sessions::SESSION_CLICKS).is_empty());
}

#[test]
fn expired_sessions_are_deleted_with_a_changelog_tombstone() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    clicks.pipe_input_at("a".into(), "p".into(), 0);
    clicks.pipe_input_at("a".into(), "p".into(), 5);
    // Retention gap + grace = 10: at stream time 1000 the session [0,5] is long expired.
    clicks.pipe_input_at("b".into(), "p".into(), 1_000);
    let key = [b"a".as_slice(), &5i64.to_be_bytes(), &0i64.to_be_bytes()].concat();
    let changelog = driver.changelog("sessions-clicks-per-session-changelog");
    let last = changelog
        .iter()
        .rev()
        .find(|r| r.key.as_deref() == Some(key.as_slice()))
        .expect("the session was logged");
    assert_eq!(
        last.value, None,
        "its expiry is logged, so a restore drops it"
    );
    assert_eq!(last.timestamp, 1_000);
    // What a restore rebuilds: only b's session is live in the changelog.
    let mut live = std::collections::BTreeMap::new();
    for r in &changelog {
        live.insert(r.key.clone(), r.value.is_some());
    }
    assert_eq!(live.values().filter(|v| **v).count(), 1);
    driver.clear_and_restore().expect("restore");
    clicks.pipe_input_at("b".into(), "p".into(), 1_005);
    let counts = driver.output_topic(Sessions::SESSION_CLICKS);
    let last = std::iter::from_fn(|| counts.read_raw())
        .last()
        .map(decode::<I64>)
        .expect("an output");
    assert_eq!(
        last,
        out("b", 1_000, 1_005, Some(2), 1_005),
        "restored from the changelog"
    );
}

dekaf_streams::topology! {
    /// Sessions whose bad input goes to a dead-letter topic.
    pub Guarded = "guarded" {
        on_error(|_| ErrorResponse::DeadLetter("guarded-dead-letters"));
        stream("guarded-in", Utf8, I64)
            .group_by_key()
            .windowed_by(session(10))
            .count("guarded-sessions")
            .to_stream()
            .to("guarded-out", SessionWindowed::<Utf8>, I64);
    }
}

#[test]
fn bad_input_goes_to_on_error_with_its_kind_and_nothing_is_lost_silently() {
    let driver = TestDriver::<Guarded>::new();
    let raw = |key: Option<&[u8]>, value: Option<&[u8]>, timestamp: i64| RawRecord {
        key: key.map(<[u8]>::to_vec),
        value: value.map(<[u8]>::to_vec),
        timestamp,
        headers: Headers::default(),
    };
    let one = 1i64.to_be_bytes();
    for record in [
        raw(None, Some(&one), 0),                // null key: dropped and counted
        raw(Some(b"a"), Some(b"not a long"), 0), // the value serde rejects it
        raw(Some(b"a"), Some(&one), -1),         // no valid timestamp
        raw(Some(b"a"), Some(&one), 3),          // fine
    ] {
        driver
            .try_pipe_raw("guarded-in", record)
            .expect("on_error continues");
    }
    let dead = driver.output_topic(TopicRef::new::<Nullable<Bytes>, Bytes>(
        "guarded-dead-letters",
    ));
    let kinds: Vec<String> = dead
        .read_records_to_list()
        .into_iter()
        .map(|r| {
            let kind = r
                .headers
                .iter()
                .find(|(k, _)| *k == "__streams.errors.exception")
                .and_then(|(_, v)| v.map(|v| String::from_utf8_lossy(v).into_owned()));
            kind.expect("the error kind header")
        })
        .collect();
    assert_eq!(kinds, ["value deserialization failed", "invalid timestamp"]);
    assert_eq!(driver.records_skipped(), 2);
    // Kafka Streams' `KStreamSessionWindowAggregate` drops a null key (`dropped-records`).
    assert_eq!(driver.records_dropped(), 3);
    let out = driver
        .output_topic(Guarded::GUARDED_OUT)
        .read_key_values_to_list();
    assert_eq!(out, vec![(Windowed::new("a".to_owned(), 3, 3), 1)]);
}

/// The typed handle of a session store reads each key's sessions: a merge leaves only the
/// merged session, `fetch_session` finds exactly `[start, end]`, and the values are the last
/// results the output shows for the live sessions.
#[test]
fn the_session_store_handle_reads_each_keys_sessions() {
    let driver = TestDriver::<Sessions>::new();
    let clicks = driver.input_topic(Sessions::CLICKS);
    for (user, page, ts) in [
        ("a", "x", 0),
        ("a", "yy", 5),
        ("b", "q", 3),
        ("a", "z", 18), // 13 after [0,5]: a new session
        ("a", "m", 12), // within the gap of both: merges [0,5] and [18,18]
    ] {
        clicks.pipe_input_at(user.into(), page.into(), ts);
    }
    let store = driver.session_store(Sessions::PAGES_PER_SESSION);
    let a = "a".to_owned();
    let merged = (Windowed::new(a.clone(), 0, 18), "xyyzm".to_owned());
    assert_eq!(store.fetch(&a), vec![merged.clone()]);
    assert_eq!(store.fetch_session(&a, 0, 18), Some("xyyzm".to_owned()));
    assert_eq!(store.fetch_session(&a, 0, 5), None, "merged away");
    assert_eq!(store.fetch_session(&a, 18, 18), None, "merged away");
    let b = (Windowed::new("b".to_owned(), 3, 3), "q".to_owned());
    assert_eq!(store.all(), vec![merged.clone(), b]);
    assert_eq!(store.len(), 2);
    // What the output shows last for the merged session.
    let last = read_all::<Utf8, _, _>(&driver.output_topic(Sessions::SESSION_PAGES))
        .into_iter()
        .rfind(|o| o.0 == "a")
        .expect("an output of a");
    assert_eq!(last, out("a", 0, 18, Some("xyyzm".to_owned()), 18));
    // The count has no grace: its store retains 10 ms, so at stream time 18 it no longer
    // holds [0,5] (ended before 18 − 10), and 12 merged with [18,18] only.
    let counts = driver.session_store(Sessions::CLICKS_PER_SESSION);
    assert_eq!(
        counts.fetch(&a),
        vec![(Windowed::new(a.clone(), 12, 18), 2)]
    );
}
