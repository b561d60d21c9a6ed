//! The record cache of tables read from a topic, through the TestDriver. Kafka Streams
//! materializes such a table with a caching store when it is named (`Materialized.as`) or read
//! by a join, and ours are always named: with a cache, a key updated several times between two
//! commits is forwarded once, as the change from its value at the last commit to its latest one,
//! with the timestamp of its last update; a key created and deleted in between forwards nothing.
//! A re-grouped table's aggregation and `to_table(..)` are cached the same way.
//! (Measured against Kafka Streams 4.4 on a broker: a foreign-key join over 40 updates of 5
//! keys sent 5 subscriptions and 5 results with the default cache, 75 and 5 without; the
//! re-grouped count below gave, on a broker, exactly what
//! `the_same_updates_as_kafka_streams_on_a_broker` expects.)

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::TestDriver;

const MIB: usize = 1024 * 1024;

topology! {
    /// A table forwarded as it is, and counted by value (a re-grouping, which needs the old
    /// values: an update moves a count from the old value to the new one).
    pub Tables = "cache-tables" {
        let t = table("ct-in", Utf8, Utf8, "ct-table");
        t.to_stream().to("ct-out", Utf8, Nullable::<Utf8>);
        t.group_by(|_k: &String, v: String| (v.clone(), v), Utf8, Utf8)
            .count("per-value")
            .to_stream()
            .to("ct-counts", Utf8, Nullable::<I64>);
        // The same, with caching disabled on both stores.
        let raw = table("ct-raw-in", Utf8, Utf8, "ct-raw-table").with_caching_disabled();
        raw.to_stream().to("ct-raw-out", Utf8, Nullable::<Utf8>);
        raw.group_by(|_k: &String, v: String| (v.clone(), v), Utf8, Utf8)
            .count("raw-per-value")
            .with_caching_disabled()
            .to_stream()
            .to("ct-raw-counts", Utf8, Nullable::<I64>);
        stream("ct-latest-in", Utf8, Nullable::<Utf8>)
            .to_table("ct-latest")
            .to_stream()
            .map_values(|v: Option<Option<String>>| v.flatten())
            .to("ct-latest-out", Utf8, Nullable::<Utf8>);
        stream("ct-words", Utf8, Utf8)
            .group_by_key()
            .count("raw-words")
            .with_caching_disabled()
            .to_stream()
            .to("ct-raw-words", Utf8, I64);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn a_key_updated_between_commits_is_forwarded_once_with_its_latest_value() {
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_IN);
    let out = driver.output_topic(Tables::CT_OUT);
    input.pipe_input_at(s("k1"), s("a"), 10);
    input.pipe_input_at(s("k2"), s("x"), 15);
    input.pipe_input_at(s("k1"), s("b"), 20);
    assert!(out.is_empty(), "nothing is forwarded before the commit");
    // The store is up to date at once (joins and queries read it).
    assert_eq!(
        driver.key_value_store(Tables::CT_TABLE).get(&s("k1")),
        Some(s("b"))
    );
    driver.commit();
    let got: Vec<_> = out
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(
        got,
        [(s("k1"), Some(s("b")), 20), (s("k2"), Some(s("x")), 15)],
        "first-dirty order, latest value, timestamp of the last update"
    );
    // Created and deleted between two commits: nothing. A delete of a forwarded key: a
    // tombstone.
    input.pipe_input_at(s("k3"), s("y"), 30);
    input.pipe_tombstone(s("k3"), 31);
    input.pipe_tombstone(s("k2"), 32);
    driver.commit();
    assert_eq!(out.read_key_values_to_list(), [(s("k2"), None)]);
    driver.commit();
    assert!(
        out.is_empty(),
        "a commit with nothing changed forwards nothing"
    );
}

#[test]
fn the_old_value_of_a_cached_change_is_the_value_at_the_last_commit() {
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_IN);
    let counts = driver.output_topic(Tables::CT_COUNTS);
    input.pipe_input(s("k1"), s("a"));
    driver.commit();
    assert_eq!(counts.read_key_values_to_list(), [(s("a"), Some(1))]);
    // `b` lives only between two commits: downstream never sees it. The change is a → c.
    input.pipe_input(s("k1"), s("b"));
    input.pipe_input(s("k1"), s("c"));
    driver.commit();
    assert_eq!(
        counts.read_key_values_to_list(),
        [(s("a"), Some(0)), (s("c"), Some(1))]
    );
}

#[test]
fn without_a_cache_every_update_is_a_change() {
    let driver = TestDriver::<Tables>::new();
    let input = driver.input_topic(Tables::CT_IN);
    let out = driver.output_topic(Tables::CT_OUT);
    let counts = driver.output_topic(Tables::CT_COUNTS);
    input.pipe_input(s("k1"), s("a"));
    input.pipe_input(s("k1"), s("b"));
    assert_eq!(
        out.read_key_values_to_list(),
        [(s("k1"), Some(s("a"))), (s("k1"), Some(s("b")))]
    );
    assert_eq!(
        counts.read_key_values_to_list(),
        [(s("a"), Some(1)), (s("a"), Some(0)), (s("b"), Some(1))]
    );
}

#[test]
fn a_full_cache_forwards_before_the_commit() {
    // A budget smaller than one entry: every record flushes at once, as without a cache.
    let driver = TestDriver::<Tables>::with_cache_max_bytes(1);
    let input = driver.input_topic(Tables::CT_IN);
    let out = driver.output_topic(Tables::CT_OUT);
    input.pipe_input(s("k1"), s("a"));
    input.pipe_input(s("k1"), s("b"));
    assert_eq!(
        out.read_key_values_to_list(),
        [(s("k1"), Some(s("a"))), (s("k1"), Some(s("b")))]
    );
}

#[test]
fn with_caching_disabled_a_store_forwards_every_update_whatever_the_budget() {
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_RAW_IN);
    let out = driver.output_topic(Tables::CT_RAW_OUT);
    let counts = driver.output_topic(Tables::CT_RAW_COUNTS);
    input.pipe_input(s("k1"), s("a"));
    input.pipe_input(s("k1"), s("b"));
    assert_eq!(
        out.read_key_values_to_list(),
        [(s("k1"), Some(s("a"))), (s("k1"), Some(s("b")))]
    );
    assert_eq!(
        counts.read_key_values_to_list(),
        [(s("a"), Some(1)), (s("a"), Some(0)), (s("b"), Some(1))]
    );
    let words = driver.input_topic(Tables::CT_WORDS);
    let word_counts = driver.output_topic(Tables::CT_RAW_WORDS);
    words.pipe_input(s("w"), s("x"));
    words.pipe_input(s("w"), s("y"));
    assert_eq!(
        word_counts.read_key_values_to_list(),
        [(s("w"), 1), (s("w"), 2)]
    );
    driver.commit();
    assert!(out.is_empty() && counts.is_empty() && word_counts.is_empty());
}

#[test]
fn the_same_updates_as_kafka_streams_on_a_broker() {
    // Kafka Streams 4.4, `table(in, Materialized.as(..))`, `to_stream()` and
    // `groupBy((k, v) -> (v, v)).count()`, commit interval 3 s: `k1=a`, a commit, then `k1=b,
    // k1=c, k2=x, k2=y, k3=z, k4=z` in one interval wrote the table as `k1=a | k1=c, k2=y, k3=z,
    // k4=z` and the counts as `a=1 | a=0, c=1, y=1, z=2` (the count's store is cached too: no
    // `z=1`).
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_IN);
    let out = driver.output_topic(Tables::CT_OUT);
    let counts = driver.output_topic(Tables::CT_COUNTS);
    input.pipe_input(s("k1"), s("a"));
    driver.commit();
    assert_eq!(out.read_key_values_to_list(), [(s("k1"), Some(s("a")))]);
    assert_eq!(counts.read_key_values_to_list(), [(s("a"), Some(1))]);
    for (k, v) in [
        ("k1", "b"),
        ("k1", "c"),
        ("k2", "x"),
        ("k2", "y"),
        ("k3", "z"),
        ("k4", "z"),
    ] {
        input.pipe_input(s(k), s(v));
    }
    driver.commit();
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (s("k1"), Some(s("c"))),
            (s("k2"), Some(s("y"))),
            (s("k3"), Some(s("z"))),
            (s("k4"), Some(s("z")))
        ]
    );
    assert_eq!(
        counts.read_key_values_to_list(),
        [
            (s("a"), Some(0)),
            (s("c"), Some(1)),
            (s("y"), Some(1)),
            (s("z"), Some(2))
        ]
    );
}

#[test]
fn an_empty_old_value_is_still_an_old_value() {
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_IN);
    let counts = driver.output_topic(Tables::CT_COUNTS);
    input.pipe_input(s("k1"), s(""));
    driver.commit();
    input.pipe_input(s("k1"), s("x"));
    driver.commit();
    assert_eq!(
        counts.read_key_values_to_list(),
        [(s(""), Some(1)), (s(""), Some(0)), (s("x"), Some(1))]
    );
}

#[test]
fn to_table_is_cached_like_a_table_read_from_a_topic() {
    let driver = TestDriver::<Tables>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Tables::CT_LATEST_IN);
    let out = driver.output_topic(Tables::CT_LATEST_OUT);
    input.pipe_input_at(s("k1"), Some(s("a")), 5);
    input.pipe_input_at(s("k1"), Some(s("b")), 6);
    input.pipe_input_at(s("k2"), Some(s("c")), 7);
    input.pipe_input_at(s("k2"), None, 8);
    assert!(out.is_empty());
    // The store and its changelog see every update at once.
    assert_eq!(
        driver.changelog("cache-tables-ct-latest-changelog").len(),
        4
    );
    driver.commit();
    let got: Vec<_> = out
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(got, [(s("k1"), Some(s("b")), 6)]);
    input.pipe_input_at(s("k1"), None, 9);
    driver.commit();
    assert_eq!(out.read_key_values_to_list(), [(s("k1"), None)]);
}
