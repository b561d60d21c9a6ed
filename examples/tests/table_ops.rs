//! Table operations with Kafka Streams' `KTable` semantics, in the TestDriver: `filter`,
//! `filter_not`, `map_values`, `to_stream()` forwarding deletes as tombstones, `to_table(..)`,
//! and what `describe()` names. Expected outputs follow Kafka Streams 4.4's `KTableFilter`,
//! `KTableMapValues` and `KTableSource` (a materialized source sends old values, so a filter
//! forwards a tombstone only for a key it had forwarded).

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::TestDriver;

topology! {
    /// A table filtered both ways and mapped, each written out with its deletes.
    pub TableOps = "table-ops" {
        let prices = table("prices", Utf8, I64, "price-store");
        prices
            .filter(|_k, p| *p >= 100)
            .to_stream()
            .to("expensive", Utf8, Nullable::<I64>);
        prices
            .filter_not(|_k, p| *p >= 100)
            .map_values(|p| format!("cheap:{p}"))
            .to_stream()
            .to("cheap", Utf8, Nullable::<Utf8>);
        prices.to_stream().to("all-prices", Utf8, Nullable::<I64>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn filter_forwards_a_tombstone_only_for_keys_it_forwarded() {
    let driver = TestDriver::<TableOps>::new();
    let input = driver.input_topic(TableOps::PRICES);
    let expensive = driver.output_topic(TableOps::EXPENSIVE);
    input.pipe_input(s("a"), 50); // filtered out, never forwarded: nothing
    input.pipe_input(s("b"), 150); // forwarded
    input.pipe_input(s("a"), 120); // now passes
    input.pipe_input(s("b"), 90); // fails now: tombstone for b
    input.pipe_input(s("b"), 80); // still failing, already deleted: nothing
    input.pipe_tombstone(s("a"), 0); // delete of a forwarded key: tombstone
    input.pipe_tombstone(s("c"), 0); // delete of an unknown key: nothing
    assert_eq!(
        expensive.read_key_values_to_list(),
        [
            (s("b"), Some(150)),
            (s("a"), Some(120)),
            (s("b"), None),
            (s("a"), None),
        ]
    );
}

#[test]
fn filter_not_and_map_values_forward_mapped_changes() {
    let driver = TestDriver::<TableOps>::new();
    let input = driver.input_topic(TableOps::PRICES);
    let cheap = driver.output_topic(TableOps::CHEAP);
    input.pipe_input(s("a"), 50);
    input.pipe_input(s("a"), 60);
    input.pipe_input(s("a"), 500); // leaves the cheap table: tombstone
    input.pipe_input(s("b"), 500); // never cheap: nothing
    input.pipe_tombstone(s("b"), 0); // nothing
    assert_eq!(
        cheap.read_key_values_to_list(),
        [
            (s("a"), Some(s("cheap:50"))),
            (s("a"), Some(s("cheap:60"))),
            (s("a"), None),
        ]
    );
}

#[test]
fn to_stream_forwards_deletes_as_tombstones() {
    let driver = TestDriver::<TableOps>::new();
    let input = driver.input_topic(TableOps::PRICES);
    let all = driver.output_topic(TableOps::ALL_PRICES);
    input.pipe_input(s("a"), 1);
    input.pipe_tombstone(s("a"), 0);
    // As Kafka Streams' KTableSource, a delete of an absent key is forwarded too.
    input.pipe_tombstone(s("z"), 0);
    let raw: Vec<_> = std::iter::from_fn(|| all.read_raw()).collect();
    assert_eq!(raw.len(), 3);
    assert_eq!(raw[0].value.as_deref(), Some(&1i64.to_be_bytes()[..]));
    assert_eq!(raw[1].key.as_deref(), Some(&b"a"[..]));
    assert_eq!(raw[1].value, None);
    assert_eq!(raw[2].key.as_deref(), Some(&b"z"[..]));
    assert_eq!(raw[2].value, None);
    assert_eq!(driver.key_value_store(TableOps::PRICE_STORE).all(), []);
}

topology! {
    /// The latest value per key of a stream, as a table; then filtered.
    pub Latest = "latest" {
        stream("readings", Utf8, Nullable::<I64>)
            .to_table("latest-readings")
            .filter(|_k, v| v.is_some_and(|n| n > 0))
            .to_stream()
            .to("positive", Utf8, Nullable::<Nullable<I64>>);
    }
}

#[test]
fn to_table_keeps_the_latest_value_and_deletes_on_null() {
    let driver = TestDriver::<Latest>::new();
    let input = driver.input_topic(Latest::READINGS);
    let out = driver.output_topic(Latest::POSITIVE);
    let store = driver.key_value_store(Latest::LATEST_READINGS);
    input.pipe_input(s("a"), Some(5));
    input.pipe_input(s("b"), Some(-1));
    assert_eq!(store.get(&s("a")), Some(Some(5)));
    input.pipe_input(s("a"), None); // a null value deletes the key: tombstone downstream
    assert_eq!(store.get(&s("a")), None);
    assert_eq!(store.get(&s("b")), Some(Some(-1)));
    assert_eq!(
        out.read_key_values_to_list(),
        [(s("a"), Some(Some(5))), (s("a"), None)]
    );
    // The store is logged: its changelog holds the update and the tombstone.
    let log = driver.changelog("latest-latest-readings-changelog");
    assert_eq!(log.len(), 3);
    assert_eq!(log[2].value, None);
}

#[test]
fn describe_names_table_nodes_as_kafka_streams() {
    let d = <TableOps as dekaf_streams::task::Topology>::DESCRIPTION;
    // InternalStreamsBuilder#table: the topic's source node, then the table's processor, each
    // with an index (as `builder.table("prices", Materialized.as("price-store"))` describes).
    assert!(
        d.contains(
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [prices])\n      --> KTABLE-SOURCE-0000000001\n    Processor: KTABLE-SOURCE-0000000001 (stores: [price-store])\n"
        ),
        "{d}"
    );
    assert!(d.contains("      <-- KSTREAM-SOURCE-0000000000\n"), "{d}");
    assert!(
        d.contains("Processor: KTABLE-FILTER-0000000002 (stores: [])"),
        "{d}"
    );
    assert!(
        d.contains("Processor: KTABLE-TOSTREAM-0000000003 (stores: [])"),
        "{d}"
    );
    assert!(
        d.contains("Processor: KTABLE-MAPVALUES-0000000006 (stores: [])"),
        "{d}"
    );
    let l = <Latest as dekaf_streams::task::Topology>::DESCRIPTION;
    assert!(
        l.contains("Processor: KSTREAM-TOTABLE-0000000001 (stores: [latest-readings])"),
        "{l}"
    );
    assert!(
        l.contains(
            "Store: latest-readings (key-value; changelog: latest-latest-readings-changelog)"
        ),
        "{l}"
    );
}
