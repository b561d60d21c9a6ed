//! The record cache of aggregations through the TestDriver: results are forwarded once per
//! changed key at a commit (or when the cache is full), with the latest value.

use dekaf_streams::prelude::*;
use dekaf_streams::task::TopicRef;
use dekaf_streams::testing::TestDriver;

const MIB: usize = 1024 * 1024;

topology! {
    /// Word count: the direct sink path (the sink's serdes are the store's).
    pub Words = "cache-words" {
        stream("cw-in", Utf8, Utf8)
            .flat_map_values(|s| s.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_k, w| w.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("cw-out", Utf8, I64);
    }
}

topology! {
    /// reduce and aggregate, forwarded through operators (the general path), and a chained
    /// aggregation in the same subtopology.
    pub Agg = "cache-agg" {
        let input = stream("ca-in", Utf8, I64);
        input
            .group_by_key()
            .reduce("sums", |a, v| a + v)
            .to_stream()
            .map_values(|sum| format!("sum={sum}"))
            .to("ca-sums", Utf8, Utf8);
        input
            .group_by_key()
            .aggregate("stats", || (0i64, i64::MIN), |_k, v, (n, max)| (n + 1, max.max(v)), Json::<(i64, i64)>)
            .to_stream()
            .to("ca-stats", Utf8, Json::<(i64, i64)>);
        input
            .group_by_key()
            .count("seen")
            .to_stream()
            .group_by_key()
            .reduce("max-seen", |a, b| a.max(b))
            .to_stream()
            .to("ca-max-seen", Utf8, I64);
    }
}

topology! {
    /// Chained aggregations across a repartition topic: how many words have each count.
    pub Histogram = "cache-hist" {
        stream("ch-in", Utf8, Utf8)
            .group_by_key()
            .count("per-word")
            .to_stream()
            .group_by(|_word, n| n.to_string(), Utf8, I64)
            .count("per-count")
            .to_stream()
            .to("ch-out", Utf8, I64);
    }
}

topology! {
    /// An aggregate whose value can be deleted: "del" removes the key (the value encodes as
    /// null), anything else adds its length.
    pub Deletes = "cache-del" {
        let lengths = stream("cd-in", Utf8, Utf8)
            .group_by_key()
            .aggregate(
                "lengths",
                || Some(0i64),
                |_k, v: String, a: Option<i64>| if v == "del" { None } else { Some(a.unwrap_or(0) + v.len() as i64) },
                Nullable::<I64>,
            )
            .to_stream();
        lengths.to("cd-out", Utf8, Nullable::<I64>);
        lengths
            .map_values(|v: Option<i64>| v.map(|n| n * 10))
            .to("cd-out-general", Utf8, Nullable::<I64>);
    }
}

topology! {
    /// Windowed counts, tumbling and hopping.
    pub Windows = "cache-win" {
        let input = stream("cwin-in", Utf8, Utf8);
        input
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(0)))
            .count("tumbling")
            .to_stream()
            .to("cwin-tumbling", TimeWindowed::<Utf8>, I64);
        input
            .group_by_key()
            .windowed_by(hopping(Duration::from_secs(60), Duration::from_secs(30)))
            .count("hopping")
            .to_stream()
            .map(|k, n| (format!("{}@{}", k.key, k.window.start), n))
            .to("cwin-hopping", Utf8, I64);
    }
}

topology! {
    /// A failure downstream of a cached aggregation goes to the dead-letter topic at the flush.
    pub Failing = "cache-fail" {
        on_error(|_e| ErrorResponse::DeadLetter("cf-dead"));
        stream("cf-in", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .to_stream()
            .try_map_values(|n| if n > 2 { Err(ProcessError::msg("too many")) } else { Ok(n) })
            .to("cf-out", Utf8, I64);
    }
}

fn kv(k: &str, v: i64) -> (String, i64) {
    (k.to_owned(), v)
}

fn w(key: &str, start: i64) -> Windowed<String> {
    Windowed::new(key.to_owned(), start, start + 60_000)
}

#[test]
fn count_forwards_each_changed_key_once_at_the_commit() {
    let driver = TestDriver::<Words>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Words::CW_IN);
    let output = driver.output_topic(Words::CW_OUT);
    input.pipe_input_at("s1".into(), "the cat and the hat".into(), 10);
    input.pipe_input_at("s2".into(), "the end".into(), 20);
    assert!(output.is_empty(), "nothing is forwarded before the commit");
    // The store and its changelog see every update at once.
    assert_eq!(
        driver.key_value_store(Words::COUNTS).get(&"the".to_owned()),
        Some(3)
    );
    assert_eq!(
        driver.changelog("cache-words-counts-changelog").len(),
        7,
        "one changelog record per update"
    );
    driver.commit();
    let records = output.read_records_to_list();
    let got: Vec<_> = records
        .iter()
        .map(|r| (r.key.clone(), r.value, r.timestamp))
        .collect();
    // First-dirty order, latest value, timestamp of the last update, no headers.
    assert_eq!(
        got,
        [
            ("the".to_owned(), 3, 20),
            ("cat".to_owned(), 1, 10),
            ("and".to_owned(), 1, 10),
            ("hat".to_owned(), 1, 10),
            ("end".to_owned(), 1, 20),
        ]
    );
    assert!(records.iter().all(|r| r.headers.is_empty()));
    // A commit with nothing changed forwards nothing; then only the changed keys.
    driver.commit();
    assert!(output.is_empty());
    input.pipe_input_at("s3".into(), "cat cat".into(), 30);
    driver.commit();
    assert_eq!(output.read_key_values_to_list(), [kv("cat", 3)]);
}

#[test]
fn without_a_cache_every_update_is_forwarded() {
    let driver = TestDriver::<Words>::new();
    let input = driver.input_topic(Words::CW_IN);
    let output = driver.output_topic(Words::CW_OUT);
    input.pipe_input("s1".into(), "a a b".into());
    assert_eq!(
        output.read_key_values_to_list(),
        [kv("a", 1), kv("a", 2), kv("b", 1)]
    );
    driver.commit();
    assert!(output.is_empty());
}

#[test]
fn reduce_aggregate_and_a_chained_aggregation_forward_their_latest_results() {
    let driver = TestDriver::<Agg>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Agg::CA_IN);
    let sums = driver.output_topic(Agg::CA_SUMS);
    let stats = driver.output_topic(Agg::CA_STATS);
    let max_seen = driver.output_topic(Agg::CA_MAX_SEEN);
    for (k, v) in [("a", 5), ("b", 1), ("a", 7), ("a", -2), ("b", 4)] {
        input.pipe_input(k.into(), v);
    }
    assert!(sums.is_empty() && stats.is_empty() && max_seen.is_empty());
    driver.commit();
    assert_eq!(
        sums.read_key_values_to_list(),
        [
            ("a".to_owned(), "sum=10".to_owned()),
            ("b".to_owned(), "sum=5".to_owned())
        ]
    );
    assert_eq!(
        stats.read_key_values_to_list(),
        [("a".to_owned(), (3, 7)), ("b".to_owned(), (2, 4))]
    );
    // `count` is flushed first, its results go through `reduce`, which is flushed next.
    assert_eq!(max_seen.read_key_values_to_list(), [kv("a", 3), kv("b", 2)]);
    input.pipe_input("b".into(), 1);
    driver.commit();
    assert_eq!(
        sums.read_key_values_to_list(),
        [("b".to_owned(), "sum=6".to_owned())]
    );
    assert_eq!(max_seen.read_key_values_to_list(), [kv("b", 3)]);
}

#[test]
fn a_commit_flushes_aggregations_behind_a_repartition_topic_too() {
    let driver = TestDriver::<Histogram>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Histogram::CH_IN);
    let output = driver.output_topic(Histogram::CH_OUT);
    for word in ["x", "y", "x", "z", "x"] {
        input.pipe_input(word.into(), String::new());
    }
    driver.commit();
    // Per word: x=3, y=1, z=1, each forwarded once; so count "3" once and count "1" twice.
    assert_eq!(output.read_key_values_to_list(), [kv("3", 1), kv("1", 2)]);
}

#[test]
fn a_deleted_key_forwards_a_tombstone_unless_it_was_new() {
    let driver = TestDriver::<Deletes>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Deletes::CD_IN);
    let direct = driver.output_topic(Deletes::CD_OUT);
    let general = driver.output_topic(Deletes::CD_OUT_GENERAL);
    input.pipe_input_at("a".into(), "xyz".into(), 1);
    driver.commit();
    assert_eq!(
        direct.read_key_values_to_list(),
        [("a".to_owned(), Some(3))]
    );
    assert_eq!(
        general.read_key_values_to_list(),
        [("a".to_owned(), Some(30))]
    );
    // "a" existed at the last flush and is deleted now: a tombstone. "b" is created and deleted
    // within the interval: nothing, as Kafka Streams' cache does.
    input.pipe_input_at("a".into(), "more".into(), 2);
    input.pipe_input_at("a".into(), "del".into(), 3);
    input.pipe_input_at("b".into(), "xy".into(), 4);
    input.pipe_input_at("b".into(), "del".into(), 5);
    driver.commit();
    let raw = direct.read_raw().expect("a tombstone");
    assert_eq!(
        (raw.key.as_deref(), raw.value, raw.timestamp),
        (Some(&b"a"[..]), None, 3)
    );
    assert!(direct.is_empty());
    assert_eq!(general.read_key_values_to_list(), [("a".to_owned(), None)]);
    assert!(
        driver
            .key_value_store(Deletes::LENGTHS)
            .get(&"a".to_owned())
            .is_none()
    );
}

#[test]
fn tumbling_and_hopping_windows_forward_each_changed_window_once() {
    let driver = TestDriver::<Windows>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Windows::CWIN_IN);
    let tumbling = driver.output_topic(Windows::CWIN_TUMBLING);
    let hopping = driver.output_topic(Windows::CWIN_HOPPING);
    input.pipe_input_at("k".into(), String::new(), 10_000);
    input.pipe_input_at("k".into(), String::new(), 45_000);
    input.pipe_input_at("j".into(), String::new(), 50_000);
    input.pipe_input_at("k".into(), String::new(), 70_000);
    driver.commit();
    let got: Vec<_> = tumbling
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(
        got,
        [
            (w("k", 0), 2, 45_000),
            (w("j", 0), 1, 50_000),
            (w("k", 60_000), 1, 70_000)
        ]
    );
    assert_eq!(
        hopping.read_key_values_to_list(),
        [
            kv("k@0", 2),
            kv("k@30000", 2),
            kv("j@0", 1),
            kv("j@30000", 1),
            kv("k@60000", 1),
        ]
    );
}

#[test]
fn a_window_that_expires_while_cached_is_still_forwarded() {
    let driver = TestDriver::<Windows>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Windows::CWIN_IN);
    let tumbling = driver.output_topic(Windows::CWIN_TUMBLING);
    let store = driver.window_store(Windows::TUMBLING);
    input.pipe_input_at("k".into(), String::new(), 1_000);
    // Stream time jumps past the first window's retention (size + grace = 60 s): the purge keeps
    // it while it waits in the cache, so its final value is forwarded (as Kafka Streams does).
    input.pipe_input_at("k".into(), String::new(), 500_000);
    driver.commit();
    assert_eq!(
        tumbling.read_key_values_to_list(),
        [(w("k", 0), 1), (w("k", 480_000), 1)]
    );
    assert_eq!(store.all(), [(w("k", 0), 1), (w("k", 480_000), 1)]);
    // The next purge drops it.
    input.pipe_input_at("k".into(), String::new(), 540_000);
    assert_eq!(store.all(), [(w("k", 540_000), 1)]);
}

#[test]
fn a_full_cache_flushes_before_the_commit() {
    // Each word costs its bytes, 8 value bytes and 64 bytes of overhead: the third distinct
    // word takes the cache over 200 bytes.
    let driver = TestDriver::<Words>::with_cache_max_bytes(200);
    let input = driver.input_topic(Words::CW_IN);
    let output = driver.output_topic(Words::CW_OUT);
    input.pipe_input("s1".into(), "a a b".into());
    assert!(output.is_empty());
    input.pipe_input("s2".into(), "b c".into());
    assert_eq!(
        output.read_key_values_to_list(),
        [kv("a", 2), kv("b", 2), kv("c", 1)]
    );
    input.pipe_input("s3".into(), "a".into());
    assert!(output.is_empty());
    driver.commit();
    assert_eq!(output.read_key_values_to_list(), [kv("a", 3)]);
}

#[test]
fn a_failure_while_flushing_goes_to_on_error_with_the_last_update_as_context() {
    let driver = TestDriver::<Failing>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Failing::CF_IN);
    let output = driver.output_topic(Failing::CF_OUT);
    let dead = driver.output_topic(TopicRef::new::<Utf8, I64>("cf-dead"));
    input.pipe_input_at("a".into(), "1".into(), 1);
    input.pipe_input_at("b".into(), "2".into(), 2);
    input.pipe_input_at("a".into(), "3".into(), 3);
    input.pipe_input_at("a".into(), "4".into(), 4);
    driver.commit();
    assert_eq!(output.read_key_values_to_list(), [kv("b", 1)]);
    let letter = dead.read_record().expect("a dead letter");
    // The aggregation's result (key, count) with the last update's timestamp; the headers name
    // the source topic and offset of the last update of "a" (the fourth record, offset 3).
    assert_eq!(
        (letter.key.as_str(), letter.value, letter.timestamp),
        ("a", 3, 4)
    );
    assert_eq!(
        letter.headers.last("__streams.errors.topic"),
        Some(Some(&b"cf-in"[..]))
    );
    assert_eq!(
        letter.headers.last("__streams.errors.offset"),
        Some(Some(&b"3"[..]))
    );
    assert_eq!(driver.records_skipped(), 1);
}

#[test]
fn clearing_the_state_drops_what_the_cache_holds() {
    let driver = TestDriver::<Words>::with_cache_max_bytes(10 * MIB);
    let input = driver.input_topic(Words::CW_IN);
    let output = driver.output_topic(Words::CW_OUT);
    input.pipe_input("s1".into(), "a b".into());
    driver.clear_and_restore().expect("restore");
    driver.commit();
    assert!(output.is_empty());
    assert_eq!(
        driver.key_value_store(Words::COUNTS).get(&"a".to_owned()),
        Some(1)
    );
}
