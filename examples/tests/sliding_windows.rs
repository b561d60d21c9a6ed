//! Sliding windows and emit-final through the TestDriver, with the outputs Kafka Streams 4.4's
//! `KStreamSlidingWindowAggregate` and `suppress(untilWindowCloses)` produce: left and right
//! windows, out-of-order records, early records sharing `[0, d]`, closed windows, one final
//! result per window.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::{TestDriver, TestOutputTopic};
use dekaf_streams_examples::sliding::Sliding;

/// (key, window start, window end, value, timestamp)
type Out<V> = (String, i64, i64, V, i64);

fn read_all<V>(topic: &TestOutputTopic<'_, Sliding, Windowed<String>, V>) -> Vec<Out<V>> {
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

fn out<V>(key: &str, start: i64, end: i64, value: V, ts: i64) -> Out<V> {
    (key.to_owned(), start, end, value, ts)
}

fn pipe(driver: &TestDriver<Sliding>, records: &[(&str, &str, i64)]) {
    let events = driver.input_topic(Sliding::EVENTS);
    for (key, value, ts) in records {
        events.pipe_input_at((*key).into(), (*value).into(), *ts);
    }
}

const INPUT: &[(&str, &str, i64)] = &[
    ("a", "a", 10),
    ("a", "b", 15),
    ("a", "c", 30),
    ("a", "d", 22), // out of order
    ("a", "e", 31),
];

#[test]
fn a_record_creates_its_left_window_its_predecessors_right_window_and_updates_the_rest() {
    let driver = TestDriver::<Sliding>::new();
    pipe(&driver, INPUT);
    // Difference 10, no grace. Windows are [start, start + 10], both ends inclusive.
    assert_eq!(
        read_all(&driver.output_topic(Sliding::SLIDING_COUNT)),
        vec![
            // 10: its left window.
            out("a", 0, 10, 1, 10),
            // 15: the right window of 10 (holding 15), then its own left window (10, 15).
            out("a", 11, 21, 1, 15),
            out("a", 5, 15, 2, 15),
            // 30: no earlier record within 10: only its left window.
            out("a", 20, 30, 1, 30),
            // 22 (stream time 30, windows ending before 30 are closed): [20,30] takes it; 15's
            // right window [16,26] and 22's left window [12,22] are closed (2 late); 22's right
            // window [23,33] is created from [20,30]'s records after 22 (the 30).
            out("a", 20, 30, 2, 30),
            out("a", 23, 33, 1, 30),
            // 31: [23,33] takes it, then 30's right window, then its left window (22, 30, 31).
            out("a", 23, 33, 2, 31),
            out("a", 31, 41, 1, 31),
            out("a", 21, 31, 3, 31),
        ]
    );
    // The concatenation has 5 ms of grace: at 22, close is 25, so [16,26] opens (just 22).
    assert_eq!(
        read_all(&driver.output_topic(Sliding::SLIDING_CONCAT)),
        vec![
            out("a", 0, 10, "a".to_owned(), 10),
            out("a", 11, 21, "b".to_owned(), 15),
            out("a", 5, 15, "ab".to_owned(), 15),
            out("a", 20, 30, "c".to_owned(), 30),
            out("a", 20, 30, "cd".to_owned(), 30),
            out("a", 16, 26, "d".to_owned(), 22),
            out("a", 23, 33, "c".to_owned(), 30),
            out("a", 23, 33, "ce".to_owned(), 31),
            out("a", 31, 41, "e".to_owned(), 31),
            out("a", 21, 31, "cde".to_owned(), 31),
        ]
    );
    // Late: 2 windows in the count, 1 in each of the two sliding aggregations with grace.
    assert_eq!(driver.late_records_dropped(), 4);
}

#[test]
fn records_before_the_time_difference_share_the_window_from_zero() {
    let driver = TestDriver::<Sliding>::new();
    pipe(&driver, &[("b", "x", 3), ("b", "y", 7), ("b", "z", 12)]);
    assert_eq!(
        read_all(&driver.output_topic(Sliding::SLIDING_COUNT)),
        vec![
            out("b", 0, 10, 1, 3),
            // 7: 3's right window [4,14], then the shared [0,10].
            out("b", 4, 14, 1, 7),
            out("b", 0, 10, 2, 7),
            // 12: [4,14] takes it; 7's right window [8,18]; its left window [2,12] (3, 7, 12).
            out("b", 4, 14, 2, 12),
            out("b", 8, 18, 1, 12),
            out("b", 2, 12, 3, 12),
        ]
    );
}

#[test]
fn records_before_the_close_are_dropped_and_counted() {
    let driver = TestDriver::<Sliding>::new();
    pipe(&driver, &[("a", "x", 100), ("a", "y", 89)]);
    // Without grace 89 + 10 < 100 + 1: even 89's right window closed, so the count drops it
    // whole. With 5 ms of grace (close 95) its right window [90,100] exists already (holding
    // 100 only) and its left window [79,89] is closed: nothing changes, one late window each
    // in the two sliding aggregations with grace; the tumbling window [80,90) is closed too.
    assert_eq!(
        read_all(&driver.output_topic(Sliding::SLIDING_COUNT)),
        vec![out("a", 90, 100, 1, 100)]
    );
    assert_eq!(
        read_all(&driver.output_topic(Sliding::SLIDING_CONCAT)),
        vec![out("a", 90, 100, "x".to_owned(), 100)]
    );
    assert_eq!(driver.late_records_dropped(), 4);
}

#[test]
fn emit_final_forwards_one_result_per_window_when_it_closes() {
    let driver = TestDriver::<Sliding>::new();
    pipe(&driver, INPUT);
    let sliding = driver.output_topic(Sliding::SLIDING_FINAL);
    let tumbling = driver.output_topic(Sliding::TUMBLING_FINAL);
    // Grace 5: a window is final once stream time reaches its end + 5.
    assert_eq!(
        read_all(&sliding),
        vec![
            out("a", 0, 10, 1, 10),
            out("a", 5, 15, 2, 15),
            out("a", 11, 21, 1, 15),
            out("a", 16, 26, 1, 22),
        ]
    );
    assert_eq!(read_all(&tumbling), vec![out("a", 10, 20, 2, 15)]);
    pipe(&driver, &[("a", "f", 100)]);
    assert_eq!(
        read_all(&sliding),
        vec![
            out("a", 20, 30, 2, 30),
            out("a", 21, 31, 3, 31),
            out("a", 23, 33, 2, 31),
            out("a", 31, 41, 1, 31),
        ]
    );
    assert_eq!(
        read_all(&tumbling),
        vec![out("a", 20, 30, 1, 22), out("a", 30, 40, 2, 31)]
    );
    // The buffers' changelogs end empty for the closed windows: every eviction wrote its
    // tombstone, so a restore re-emits nothing.
    let buffer = driver.changelog("sliding-tumbling-final-store-changelog");
    let mut live = std::collections::BTreeMap::new();
    for r in buffer {
        live.insert(r.key.clone(), r.value.is_some());
    }
    assert_eq!(
        live.values().filter(|v| **v).count(),
        1,
        "only [100,110) is buffered"
    );
}

dekaf_streams::topology! {
    /// Kafka Streams' `KStreamSlidingWindowAggregateTest` topology: time difference 10 ms,
    /// grace 50 ms, a string aggregate `"0" + "+" + v ..` and a string reduce.
    pub KsSliding = "ks-sliding" {
        let s = stream("topic", Utf8, Utf8);
        s.group_by_key()
            .windowed_by(sliding(10).grace(50))
            .aggregate("ks-agg", || "0".to_owned(), |_k, v, agg: String| agg + "+" + &v, Utf8)
            .to_stream()
            .to("ks-agg-out", TimeWindowed::<Utf8>, Utf8);
        s.group_by_key()
            .windowed_by(sliding(10).grace(50))
            .reduce("ks-reduce", |a: String, b: String| a + "+" + &b)
            .to_stream()
            .to("ks-reduce-out", TimeWindowed::<Utf8>, Utf8);
    }
}

/// The last (value, timestamp) per window start, as the Kafka Streams tests collect them.
fn last_per_start(
    topic: &TestOutputTopic<'_, KsSliding, Windowed<String>, String>,
) -> std::collections::BTreeMap<i64, (String, i64)> {
    topic
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key.window.start, (r.value, r.timestamp)))
        .collect()
}

fn expect(pairs: &[(i64, &str, i64)]) -> std::collections::BTreeMap<i64, (String, i64)> {
    pairs
        .iter()
        .map(|(start, v, ts)| (*start, ((*v).to_owned(), *ts)))
        .collect()
}

#[test]
fn kafka_streams_test_aggregate_small_input() {
    let driver = TestDriver::<KsSliding>::new();
    let input = driver.input_topic(KsSliding::TOPIC);
    for (v, ts) in [("1", 10), ("2", 15), ("3", 20), ("4", 22), ("5", 30)] {
        input.pipe_input_at("A".into(), v.into(), ts);
    }
    // KStreamSlidingWindowAggregateTest.testAggregateSmallInput's expectation.
    assert_eq!(
        last_per_start(&driver.output_topic(KsSliding::KS_AGG_OUT)),
        expect(&[
            (0, "0+1", 10),
            (5, "0+1+2", 15),
            (10, "0+1+2+3", 20),
            (11, "0+2+3", 20),
            (12, "0+2+3+4", 22),
            (16, "0+3+4", 22),
            (20, "0+3+4+5", 30),
            (21, "0+4+5", 30),
            (23, "0+5", 30),
        ])
    );
}

#[test]
fn kafka_streams_test_reduce_small_input() {
    let driver = TestDriver::<KsSliding>::new();
    let input = driver.input_topic(KsSliding::TOPIC);
    for (v, ts) in [
        ("1", 10),
        ("2", 14),
        ("3", 15),
        ("4", 22),
        ("5", 26),
        ("6", 30),
    ] {
        input.pipe_input_at("A".into(), v.into(), ts);
    }
    // KStreamSlidingWindowAggregateTest.testReduceSmallInput's expectation.
    assert_eq!(
        last_per_start(&driver.output_topic(KsSliding::KS_REDUCE_OUT)),
        expect(&[
            (0, "1", 10),
            (4, "1+2", 14),
            (5, "1+2+3", 15),
            (11, "2+3", 15),
            (12, "2+3+4", 22),
            (15, "3+4", 22),
            (16, "4+5", 26),
            (20, "4+5+6", 30),
            (23, "5+6", 30),
            (27, "6", 30),
        ])
    );
}

#[test]
fn kafka_streams_test_aggregate_large_input_out_of_order() {
    let driver = TestDriver::<KsSliding>::new();
    let input = driver.input_topic(KsSliding::TOPIC);
    let records = [
        ("A", "1", 10),
        ("A", "2", 20),
        ("A", "3", 22),
        ("A", "4", 15),
        ("B", "1", 12),
        ("B", "2", 13),
        ("B", "3", 18),
        ("B", "4", 19),
        ("B", "5", 25),
        ("B", "6", 14),
        ("C", "1", 11),
        ("C", "2", 15),
        ("C", "3", 16),
        ("C", "4", 21),
        ("C", "5", 23),
    ];
    for (k, v, ts) in records {
        input.pipe_input_at(k.into(), v.into(), ts);
    }
    // KStreamSlidingWindowAggregateTest.testAggregateLargeInput's expectation for A, B and C:
    // every update, sorted by key then window start (a stable sort: updates of one window in
    // processing order).
    let mut actual: Vec<(String, i64, String, i64)> = driver
        .output_topic(KsSliding::KS_AGG_OUT)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key.key, r.key.window.start, r.value, r.timestamp))
        .collect();
    actual.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let expected: Vec<(String, i64, String, i64)> = [
        ("A", 0, "0+1", 10),
        ("A", 5, "0+1+4", 15),
        ("A", 10, "0+1+2", 20),
        ("A", 10, "0+1+2+4", 20),
        ("A", 11, "0+2", 20),
        ("A", 11, "0+2+4", 20),
        ("A", 12, "0+2+3", 22),
        ("A", 12, "0+2+3+4", 22),
        ("A", 16, "0+2+3", 22),
        ("A", 21, "0+3", 22),
        ("B", 2, "0+1", 12),
        ("B", 3, "0+1+2", 13),
        ("B", 4, "0+1+2+6", 14),
        ("B", 8, "0+1+2+3", 18),
        ("B", 8, "0+1+2+3+6", 18),
        ("B", 9, "0+1+2+3+4", 19),
        ("B", 9, "0+1+2+3+4+6", 19),
        ("B", 13, "0+2", 13),
        ("B", 13, "0+2+3", 18),
        ("B", 13, "0+2+3+4", 19),
        ("B", 13, "0+2+3+4+6", 19),
        ("B", 14, "0+3", 18),
        ("B", 14, "0+3+4", 19),
        ("B", 14, "0+3+4+6", 19),
        ("B", 15, "0+3+4+5", 25),
        ("B", 19, "0+4", 19),
        ("B", 19, "0+4+5", 25),
        ("B", 20, "0+5", 25),
        ("C", 1, "0+1", 11),
        ("C", 5, "0+1+2", 15),
        ("C", 6, "0+1+2+3", 16),
        ("C", 11, "0+1+2+3+4", 21),
        ("C", 12, "0+2", 15),
        ("C", 12, "0+2+3", 16),
        ("C", 12, "0+2+3+4", 21),
        ("C", 13, "0+2+3+4+5", 23),
        ("C", 16, "0+3", 16),
        ("C", 16, "0+3+4", 21),
        ("C", 16, "0+3+4+5", 23),
        ("C", 17, "0+4", 21),
        ("C", 17, "0+4+5", 23),
        ("C", 22, "0+5", 23),
    ]
    .iter()
    .map(|(k, s, v, ts)| ((*k).to_owned(), *s, (*v).to_owned(), *ts))
    .collect();
    assert_eq!(actual, expected);
}

/// The typed handle of a sliding-window store reads the windows the records left, each
/// `[start, start + difference]`, with the latest result of each (what the output shows last).
#[test]
fn the_sliding_store_handle_reads_each_window() {
    let driver = TestDriver::<Sliding>::new();
    pipe(&driver, &[("b", "x", 3), ("b", "y", 7), ("b", "z", 12)]);
    let store = driver.window_store(Sliding::SLIDING_COUNTS);
    let w = |start| Windowed::new("b".to_owned(), start, start + 10);
    assert_eq!(
        store.all(),
        vec![(w(0), 2), (w(2), 3), (w(4), 2), (w(8), 1)],
        "the windows of the test above, by start"
    );
    assert_eq!(store.fetch(&"b".to_owned(), 2), Some(3));
    assert_eq!(store.fetch(&"b".to_owned(), 1), None);
    let concat = driver.window_store(Sliding::SLIDING_CONCAT_STORE);
    assert_eq!(concat.fetch(&"b".to_owned(), 2), Some("xyz".to_owned()));
}
