//! `cogroup`: several grouped streams aggregated into one store through the TestDriver, each
//! with its own aggregator (Kafka Streams' `CogroupedKStream`), plain and over time, sliding and
//! session windows; with and without the record cache.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

const MIB: usize = 1024 * 1024;

topology! {
    /// Clicks count one, purchases add their amount: one total per customer.
    pub Totals = "cogroup-totals" {
        let purchases = stream("cg-purchases", Utf8, I64).group_by_key();
        stream("cg-clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, _page: String, (clicks, spent): (i64, i64)| (clicks + 1, spent))
            .cogroup(purchases, |_k: &String, amount: i64, (clicks, spent): (i64, i64)| (clicks, spent + amount))
            .aggregate("cg-totals", || (0i64, 0i64), Json::<(i64, i64)>)
            .to_stream()
            .to("cg-totals-out", Utf8, Json::<(i64, i64)>);
    }
}

topology! {
    /// One stream re-keyed through the store's repartition topic: a page's title, then a `+`
    /// per visit (visits are keyed by visitor, re-keyed by page).
    pub Rekeyed = "cogroup-rekeyed" {
        let visits = stream("cgr-visits", Utf8, Utf8).group_by(|_visitor, page: &String| page.clone(), Utf8, Utf8);
        stream("cgr-pages", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_page, title: String, _a: String| title)
            .cogroup(visits, |_page, _page_again: String, a: String| a + "+")
            .aggregate("cgr-pages", String::new, Utf8)
            .to_stream()
            .to("cgr-out", Utf8, Utf8);
    }
}

topology! {
    /// Windowed: tumbling (grace 5), sliding and session (gap 10, grace 5).
    pub Windows = "cogroup-windows" {
        let b = stream("cgw-b", Utf8, Utf8);
        let a = stream("cgw-a", Utf8, Utf8);
        let b_tumbling = b.group_by_key();
        a.group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(b_tumbling, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(tumbling(10).grace(5))
            .aggregate("cgw-tumbling", || "0".to_owned(), Utf8)
            .to_stream()
            .to("cgw-tumbling-out", TimeWindowed::<Utf8>, Utf8);
        let b_sliding = b.group_by_key();
        a.group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(b_sliding, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(sliding(10))
            .aggregate("cgw-sliding", || "0".to_owned(), Utf8)
            .to_stream()
            .to("cgw-sliding-out", TimeWindowed::<Utf8>, Utf8);
        let b_session = b.group_by_key();
        a.group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(b_session, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(session(10).grace(5))
            .aggregate("cgw-session", || "0".to_owned(), |_k, x: String, y: String| x + "|" + &y, Utf8)
            .to_stream()
            .to("cgw-session-out", SessionWindowed::<Utf8>, Utf8);
    }
}

topology! {
    /// The topology whose `describe()` Kafka Streams 4.4 gives (checked with its
    /// `Topology#describe`): `in.groupByKey().cogroup(..).cogroup(in2.groupBy(..), ..)
    /// .aggregate(.., Materialized.as("cogroup-store")).toStream().to("out")`.
    pub JavaOrder = "cogroup-java-order" {
        let in1 = stream("cgj-in", Utf8, Utf8).group_by_key();
        let in2 = stream("cgj-in2", Utf8, Utf8).group_by(|_k, v: &String| v.clone(), Utf8, Utf8);
        in1.cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .aggregate("cogroup-store", || "0".to_owned(), Utf8)
            .to_stream()
            .to("cgj-out", Utf8, Utf8);
    }
}

fn w(key: &str, start: i64, end: i64) -> Windowed<String> {
    Windowed::new(key.to_owned(), start, end)
}

#[test]
fn each_stream_updates_the_one_store_with_its_own_aggregator() {
    let driver = TestDriver::<Totals>::new();
    let clicks = driver.input_topic(Totals::CG_CLICKS);
    let purchases = driver.input_topic(Totals::CG_PURCHASES);
    clicks.pipe_input_at("ann".into(), "/home".into(), 10);
    purchases.pipe_input_at("ann".into(), 30, 5);
    clicks.pipe_input_at("bob".into(), "/cart".into(), 7);
    purchases.pipe_input_at("ann".into(), 12, 20);
    clicks.pipe_input_at("ann".into(), "/pay".into(), 15);
    let out = driver
        .output_topic(Totals::CG_TOTALS_OUT)
        .read_records_to_list();
    let got: Vec<(String, (i64, i64), i64)> = out
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    // One result per record; its timestamp is the largest of the key's records so far.
    assert_eq!(
        got,
        [
            ("ann".to_owned(), (1, 0), 10),
            ("ann".to_owned(), (1, 30), 10),
            ("bob".to_owned(), (1, 0), 7),
            ("ann".to_owned(), (1, 42), 20),
            ("ann".to_owned(), (2, 42), 20),
        ]
    );
    assert_eq!(driver.records_dropped(), 0);
}

#[test]
fn null_keys_and_values_of_either_stream_are_dropped() {
    let driver = TestDriver::<Totals>::new();
    let clicks = driver.input_topic(Totals::CG_CLICKS);
    let purchases = driver.input_topic(Totals::CG_PURCHASES);
    clicks.pipe_raw(None, Some(b"/home"), 1);
    purchases.pipe_raw(Some(b"ann"), None, 2);
    purchases.pipe_raw(None, Some(&7i64.to_be_bytes()), 3);
    clicks.pipe_input_at("ann".into(), "/home".into(), 4);
    let out = driver
        .output_topic(Totals::CG_TOTALS_OUT)
        .read_values_to_list();
    assert_eq!(out, [(1, 0)]);
    assert_eq!(driver.records_dropped(), 3);
}

#[test]
fn with_the_record_cache_a_key_both_streams_changed_is_forwarded_once() {
    let driver = TestDriver::<Totals>::with_cache_max_bytes(10 * MIB);
    let clicks = driver.input_topic(Totals::CG_CLICKS);
    let purchases = driver.input_topic(Totals::CG_PURCHASES);
    let output = driver.output_topic(Totals::CG_TOTALS_OUT);
    clicks.pipe_input_at("ann".into(), "/home".into(), 1);
    purchases.pipe_input_at("ann".into(), 30, 2);
    clicks.pipe_input_at("bob".into(), "/cart".into(), 3);
    purchases.pipe_input_at("ann".into(), 5, 4);
    assert!(output.is_empty(), "nothing is forwarded before the commit");
    driver.commit();
    let mut got = output.read_key_values_to_list();
    got.sort();
    assert_eq!(
        got,
        [("ann".to_owned(), (1, 35)), ("bob".to_owned(), (1, 0))]
    );
    driver.commit();
    assert!(
        output.is_empty(),
        "a commit with nothing changed forwards nothing"
    );
}

#[test]
fn a_stream_grouped_by_a_new_key_goes_through_the_repartition_topic() {
    let driver = TestDriver::<Rekeyed>::new();
    driver
        .input_topic(Rekeyed::CGR_PAGES)
        .pipe_input_at("/home".into(), "Home".into(), 1);
    let visits = driver.input_topic(Rekeyed::CGR_VISITS);
    visits.pipe_input_at("ann".into(), "/home".into(), 2);
    visits.pipe_input_at("bob".into(), "/home".into(), 3);
    visits.pipe_input_at("ann".into(), "/cart".into(), 4);
    let out = driver
        .output_topic(Rekeyed::CGR_OUT)
        .read_key_values_to_list();
    assert_eq!(
        out,
        [
            ("/home".to_owned(), "Home".to_owned()),
            ("/home".to_owned(), "Home+".to_owned()),
            ("/home".to_owned(), "Home++".to_owned()),
            ("/cart".to_owned(), "+".to_owned()),
        ]
    );
}

#[test]
fn tumbling_windows_close_by_each_streams_own_stream_time() {
    let driver = TestDriver::<Windows>::new();
    let a = driver.input_topic(Windows::CGW_A);
    let b = driver.input_topic(Windows::CGW_B);
    let out = driver.output_topic(Windows::CGW_TUMBLING_OUT);
    a.pipe_input_at("k".into(), "x".into(), 1);
    b.pipe_input_at("k".into(), "y".into(), 7);
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (w("k", 0, 10), "0+x".to_owned()),
            (w("k", 0, 10), "0+x-y".to_owned())
        ]
    );
    // Stream b moves on to 30: window [0, 10) closes for b's aggregation only (Kafka Streams'
    // processors each keep their own stream time), and the store no longer keeps it.
    b.pipe_input_at("k".into(), "z".into(), 30);
    b.pipe_input_at("k".into(), "late".into(), 3);
    // Late for each of the three cogroups of `Windows` (all read stream b).
    assert_eq!(driver.late_records_dropped(), 3);
    a.pipe_input_at("k".into(), "v".into(), 3);
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (w("k", 30, 40), "0-z".to_owned()),
            (w("k", 0, 10), "0+v".to_owned())
        ]
    );
}

#[test]
fn sliding_windows_take_records_of_both_streams() {
    let driver = TestDriver::<Windows>::new();
    let a = driver.input_topic(Windows::CGW_A);
    let b = driver.input_topic(Windows::CGW_B);
    a.pipe_input_at("k".into(), "x".into(), 10);
    b.pipe_input_at("k".into(), "y".into(), 14);
    let out = driver
        .output_topic(Windows::CGW_SLIDING_OUT)
        .read_key_values_to_list();
    assert_eq!(
        out,
        [
            (w("k", 0, 10), "0+x".to_owned()),
            (w("k", 11, 21), "0-y".to_owned()),
            (w("k", 4, 14), "0+x-y".to_owned()),
        ]
    );
}

#[test]
fn a_record_of_either_stream_merges_sessions_with_the_merger() {
    // The input and results of the differential case `cogroup_session_merge` (Kafka Streams
    // 4.4's results).
    let driver = TestDriver::<Windows>::new();
    let a = driver.input_topic(Windows::CGW_A);
    let b = driver.input_topic(Windows::CGW_B);
    a.pipe_input_at("k".into(), "x".into(), 0);
    b.pipe_input_at("k".into(), "y".into(), 20);
    a.pipe_input_at("k".into(), "z".into(), 10);
    b.pipe_input_at("k".into(), "w".into(), 12);
    let topic = driver.output_topic(Windows::CGW_SESSION_OUT);
    // Read raw: a tombstone has no value to decode.
    let out: Vec<(Windowed<String>, Option<String>)> = std::iter::from_fn(|| topic.read_raw())
        .map(|raw| {
            let key =
                SessionWindowed::<Utf8>::deserialize(raw.key.as_deref()).expect("session key");
            let value = raw
                .value
                .map(|v| Utf8::deserialize(Some(&v)).expect("value"));
            (key, value)
        })
        .collect();
    let s = |v: &str| Some(v.to_owned());
    assert_eq!(
        out,
        [
            (w("k", 0, 0), s("0+x")),
            (w("k", 20, 20), s("0-y")),
            // A merged-away session is deleted before the merged one is forwarded.
            (w("k", 20, 20), None),
            (w("k", 10, 20), s("0|0-y+z")),
            (w("k", 10, 20), None),
            (w("k", 10, 20), s("0|0|0-y+z-w")),
        ]
    );
}

#[test]
fn nodes_are_named_as_kafka_streams_names_them() {
    let describe = JavaOrder::describe();
    // Kafka Streams 4.4: the re-keyed stream's repartition topic is named after the store, one
    // aggregation per stream in cogroup order, then the merge node (the table's).
    for line in [
        "Source: cogroup-store-repartition-source (topics: [cogroup-java-order-cogroup-store-repartition])",
        "--> COGROUPKSTREAM-AGGREGATE-0000000006",
        "--> COGROUPKSTREAM-AGGREGATE-0000000007",
        "Processor: COGROUPKSTREAM-AGGREGATE-0000000006 (stores: [cogroup-store])",
        "Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [cogroup-store])",
        "Processor: COGROUPKSTREAM-MERGE-0000000008 (stores: [])",
        "<-- COGROUPKSTREAM-AGGREGATE-0000000006, COGROUPKSTREAM-AGGREGATE-0000000007",
        "Processor: KTABLE-TOSTREAM-0000000009 (stores: [])",
        "Sink: KSTREAM-SINK-0000000010 (topic: cgj-out)",
        "Sink: cogroup-store-repartition-sink (topic: cogroup-java-order-cogroup-store-repartition)",
    ] {
        assert!(describe.contains(line), "`{line}` in\n{describe}");
    }
}
