//! Keys of counts and reduces, through the TestDriver. A key that reaches a count or reduce
//! unchanged is stored as the record's own bytes when its serde round-trips them (Utf8, I64,
//! ...), decoded only where typed code needs it; a hopping window encodes the key once per
//! record. These tests pin what a user sees of that: bad keys still fail as key
//! deserialization errors, a JSON key is still stored in one encoding, and every window of a
//! hopping count gets its own key even when the downstream serializes keys in between.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use serde::{Deserialize, Serialize};

/// A structured key: its JSON text can be written in many ways.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Account {
    id: u32,
    region: String,
}

topology! {
    /// Counts and a reduce over keys read straight from their sources.
    pub Keys = "aggregation-keys" {
        on_error(|error| match error.kind {
            ErrorKind::KeyDeserialization => ErrorResponse::DeadLetter("keys-dead-letter"),
            _ => ErrorResponse::Fail,
        });
        // Utf8 keys straight from the source: stored as their bytes.
        stream("words", Utf8, Utf8)
            .group_by_key()
            .count("word-counts")
            .to_stream()
            .to("word-counts-out", Utf8, I64);
        // The same, with typed code after the count: the key is decoded for it.
        stream("visits", Utf8, Utf8)
            .group_by_key()
            .count("visit-counts")
            .to_stream()
            .map(|page, count| (page.to_uppercase(), count * 10))
            .to("visit-counts-out", Utf8, I64);
        // JSON keys straight from the source: decoded and encoded again (one store key per
        // account, whatever spelling the producer used).
        stream("accounts", Json::<Account>, I64)
            .group_by_key()
            .reduce("account-totals", |total, amount| total + amount)
            .to_stream()
            .to("account-totals-out", Json::<Account>, I64);
        // Hopping windows whose downstream writes other keys (a map to a new key and value,
        // then a sink) between two windows of one record.
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .windowed_by(hopping(Duration::from_secs(60), Duration::from_secs(20)))
            .count("click-windows")
            .to_stream()
            .map(|window, count| (format!("clicks of {} from {}", window.key, window.window.start), count.to_string()))
            .to("click-windows-out", Utf8, Utf8);
    }
}

#[test]
fn a_utf8_key_is_counted_by_its_bytes_and_a_bad_one_is_a_key_error() {
    let driver = TestDriver::<Keys>::new();
    let words = driver.input_topic(Keys::WORDS);
    let out = driver.output_topic(Keys::WORD_COUNTS_OUT);
    let dead = driver.output_topic(TopicRef::new::<Nullable<Bytes>, Bytes>("keys-dead-letter"));
    words.pipe_input_at("héllo".into(), "x".into(), 1);
    words.pipe_raw(Some(b"\xff\xfe"), Some(b"x"), 2);
    words.pipe_raw(None, Some(b"x"), 3);
    words.pipe_input_at("héllo".into(), "y".into(), 4);
    words.pipe_input_at("world".into(), "z".into(), 5);
    assert_eq!(
        out.read_key_values_to_list(),
        vec![
            ("héllo".to_owned(), 1),
            ("héllo".to_owned(), 2),
            ("world".to_owned(), 1),
        ]
    );
    // The invalid UTF-8 key fails to deserialize, as `Utf8` would decode it; the null key is
    // dropped and counted, as Kafka Streams' `KStreamAggregate` drops it.
    let bad = dead.read_record().expect("the invalid key");
    assert_eq!((bad.key, bad.timestamp), (Some(b"\xff\xfe".to_vec()), 2));
    assert!(dead.is_empty());
    assert_eq!(driver.records_skipped(), 1);
    assert_eq!(
        driver.records_dropped(),
        2,
        "the dead-lettered key and the null key"
    );
    let store = driver.key_value_store(Keys::WORD_COUNTS);
    assert_eq!(store.get(&"héllo".to_owned()), Some(2));
    assert_eq!(store.get(&"world".to_owned()), Some(1));
}

#[test]
fn a_json_key_written_two_ways_is_one_key() {
    let driver = TestDriver::<Keys>::new();
    let accounts = driver.input_topic(Keys::ACCOUNTS);
    let out = driver.output_topic(Keys::ACCOUNT_TOTALS_OUT);
    let a = Account {
        id: 7,
        region: "eu".into(),
    };
    accounts.pipe_raw(
        Some(br#"{"id":7,"region":"eu"}"#),
        Some(&5i64.to_be_bytes()),
        1,
    );
    accounts.pipe_raw(
        Some(br#"{ "region": "eu", "id": 7 }"#),
        Some(&3i64.to_be_bytes()),
        2,
    );
    assert_eq!(
        out.read_key_values_to_list(),
        vec![(a.clone(), 5), (a.clone(), 8)]
    );
    assert_eq!(
        driver.key_value_store(Keys::ACCOUNT_TOTALS).all(),
        vec![(a, 8)]
    );
}

#[test]
fn every_hopping_window_of_a_record_gets_its_key_when_the_downstream_writes_keys() {
    let driver = TestDriver::<Keys>::new();
    let clicks = driver.input_topic(Keys::CLICKS);
    let out = driver.output_topic(Keys::CLICK_WINDOWS_OUT);
    let row = |key: &str, start: i64| (format!("clicks of {key} from {start}"), "1".to_owned());
    clicks.pipe_input_at("a-rather-long-key".into(), "c".into(), 45_000);
    clicks.pipe_input_at("b".into(), "c".into(), 50_000);
    // Each window's store key is the record's key and that window's start, although the sink
    // wrote a longer key in between.
    assert_eq!(
        out.read_key_values_to_list(),
        vec![
            // 45 s: the windows starting at 0, 20 s and 40 s.
            row("a-rather-long-key", 0),
            row("a-rather-long-key", 20_000),
            row("a-rather-long-key", 40_000),
            row("b", 0),
            row("b", 20_000),
            row("b", 40_000),
        ]
    );
    let store = driver.window_store(Keys::CLICK_WINDOWS);
    for start in [0, 20_000, 40_000] {
        assert_eq!(store.fetch(&"a-rather-long-key".to_owned(), start), Some(1));
        assert_eq!(store.fetch(&"b".to_owned(), start), Some(1));
    }
    assert_eq!(store.all().len(), 6);
}

#[test]
fn typed_code_after_a_count_gets_the_decoded_key() {
    let driver = TestDriver::<Keys>::new();
    let visits = driver.input_topic(Keys::VISITS);
    let out = driver.output_topic(Keys::VISIT_COUNTS_OUT);
    visits.pipe_input_at("home".into(), "u1".into(), 1);
    visits.pipe_input_at("about".into(), "u1".into(), 2);
    visits.pipe_input_at("home".into(), "u2".into(), 3);
    assert_eq!(
        out.read_key_values_to_list(),
        vec![
            ("HOME".to_owned(), 10),
            ("ABOUT".to_owned(), 10),
            ("HOME".to_owned(), 20),
        ]
    );
    assert_eq!(
        driver
            .key_value_store(Keys::VISIT_COUNTS)
            .get(&"home".to_owned()),
        Some(2)
    );
}
