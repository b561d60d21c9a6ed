//! Versioned tables (`versioned(..)`, Kafka Streams' versioned key-value stores, KIP-889): a
//! stream-table join reads the table as it was at the stream record's timestamp (KIP-914); an
//! update older than the key's latest goes into the history and is forwarded marked "not latest"
//! (`to_stream()` shows it, table-table joins drop and count it, a re-grouping skips it); an
//! update older than the history retention is dropped and counted; the history comes back from
//! the changelog. The expected outputs of the join and count tests are what Kafka Streams 4.4's
//! TopologyTestDriver printed for the same topology and input.

use dekaf_streams::prelude::*;
use dekaf_streams::query::VersionedRecord;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Order totals at the price valid when each order was placed; the price table's changes;
    /// and a versioned `to_table(..)` of rates.
    pub Prices = "versioned-prices" {
        let prices = table("vp-prices", Utf8, I64, "vp-price-store")
            .versioned(Duration::from_secs(60));
        prices.to_stream().to("vp-price-changes", Utf8, Nullable::<I64>);
        let orders = stream("vp-orders", Utf8, I64);
        orders
            .join(prices, |qty: i64, price: i64| qty * price)
            .to("vp-totals", Utf8, I64);
        orders
            .left_join(prices, |qty: i64, price: Option<i64>| price.map_or(-1, |p| qty * p))
            .to("vp-left-totals", Utf8, I64);
        stream("vp-rate-updates", Utf8, Utf8)
            .to_table("vp-rates")
            .versioned(Duration::from_millis(1_000))
            .to_stream()
            .to("vp-rate-changes", Utf8, Nullable::<Utf8>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

/// Prices of `a` at 10 (100), 20 (200), and 15 (150, out of order).
fn prices(driver: &TestDriver<Prices>) {
    let prices = driver.input_topic(Prices::VP_PRICES);
    prices.pipe_input_at(s("a"), 100, 10);
    prices.pipe_input_at(s("a"), 200, 20);
    prices.pipe_input_at(s("a"), 150, 15);
}

#[test]
fn an_out_of_order_update_is_kept_and_forwarded_by_to_stream() {
    let driver = TestDriver::<Prices>::new();
    prices(&driver);
    let changes = driver
        .output_topic(Prices::VP_PRICE_CHANGES)
        .read_records_to_list();
    let changes: Vec<_> = changes
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(
        changes,
        [
            (s("a"), Some(100), 10),
            (s("a"), Some(200), 20),
            (s("a"), Some(150), 15)
        ]
    );
    let store = driver.key_value_store(Prices::VP_PRICE_STORE);
    assert_eq!(store.get(&s("a")), Some(200), "the latest value");
    assert_eq!(
        store.get_as_of(&s("a"), 17),
        Some(VersionedRecord {
            value: 150,
            timestamp: 15,
            valid_to: Some(20)
        })
    );
    assert_eq!(
        store.get_as_of(&s("a"), 14),
        Some(VersionedRecord {
            value: 100,
            timestamp: 10,
            valid_to: Some(15)
        })
    );
    assert_eq!(
        store.get_as_of(&s("a"), 99),
        Some(VersionedRecord {
            value: 200,
            timestamp: 20,
            valid_to: None
        })
    );
    assert_eq!(
        store.get_as_of(&s("a"), 9),
        None,
        "before the first version"
    );
}

#[test]
fn a_stream_record_joins_the_version_valid_at_its_timestamp() {
    let driver = TestDriver::<Prices>::new();
    prices(&driver);
    let orders = driver.input_topic(Prices::VP_ORDERS);
    orders.pipe_input_at(s("a"), 2, 12); // price 100 (10..15)
    orders.pipe_input_at(s("a"), 2, 17); // price 150 (15..20), the out-of-order version
    orders.pipe_input_at(s("a"), 2, 25); // price 200 (the latest)
    orders.pipe_input_at(s("a"), 2, 5); // no price yet
    orders.pipe_input_at(s("b"), 2, 30); // no such key
    let totals = driver
        .output_topic(Prices::VP_TOTALS)
        .read_records_to_list();
    let totals: Vec<_> = totals.into_iter().map(|r| (r.value, r.timestamp)).collect();
    assert_eq!(totals, [(200, 12), (300, 17), (400, 25)]);
    let left = driver
        .output_topic(Prices::VP_LEFT_TOTALS)
        .read_values_to_list();
    assert_eq!(left, [200, 300, 400, -1, -1]);
}

#[test]
fn updates_older_than_the_history_retention_are_dropped_and_unreadable() {
    let driver = TestDriver::<Prices>::new();
    let prices = driver.input_topic(Prices::VP_PRICES);
    prices.pipe_input_at(s("a"), 100, 10);
    prices.pipe_input_at(s("a"), 200, 100_000);
    // The table's stream time is 100 s; its history reaches back 60 s, to 40 s.
    prices.pipe_input_at(s("a"), 999, 39_999);
    prices.pipe_input_at(s("a"), 150, 40_000);
    let store = driver.key_value_store(Prices::VP_PRICE_STORE);
    assert_eq!(
        store.get_as_of(&s("a"), 39_999),
        None,
        "older than the history"
    );
    assert_eq!(store.get_as_of(&s("a"), 40_000).map(|v| v.value), Some(150));
    assert_eq!(store.get_as_of(&s("a"), 99_999).map(|v| v.value), Some(150));
    let orders = driver.input_topic(Prices::VP_ORDERS);
    // Older than the history, and the latest value (at 100 s) is newer: no price.
    orders.pipe_input_at(s("a"), 1, 30_000);
    orders.pipe_input_at(s("a"), 1, 50_000);
    orders.pipe_input_at(s("a"), 1, 100_001);
    let left = driver
        .output_topic(Prices::VP_LEFT_TOTALS)
        .read_values_to_list();
    assert_eq!(left, [-1, 150, 200]);
    let changes = driver
        .output_topic(Prices::VP_PRICE_CHANGES)
        .read_values_to_list();
    assert_eq!(
        changes,
        [Some(100), Some(200), Some(150)],
        "all but the expired"
    );
    assert_eq!(driver.records_dropped(), 1, "the expired update");
    // Older than the history but not older than the latest value: the latest answers.
    orders.pipe_input_at(s("a"), 1, 100_000);
    assert_eq!(
        driver
            .output_topic(Prices::VP_LEFT_TOTALS)
            .read_values_to_list(),
        [200]
    );
}

#[test]
fn tombstones_are_versions_too() {
    let driver = TestDriver::<Prices>::new();
    let prices = driver.input_topic(Prices::VP_PRICES);
    prices.pipe_input_at(s("a"), 100, 10);
    prices.pipe_tombstone(s("a"), 20);
    prices.pipe_input_at(s("a"), 300, 30);
    let orders = driver.input_topic(Prices::VP_ORDERS);
    for ts in [15, 25, 35] {
        orders.pipe_input_at(s("a"), 1, ts);
    }
    let left = driver
        .output_topic(Prices::VP_LEFT_TOTALS)
        .read_values_to_list();
    assert_eq!(left, [100, -1, 300]);
    let changes = driver
        .output_topic(Prices::VP_PRICE_CHANGES)
        .read_values_to_list();
    assert_eq!(changes, [Some(100), None, Some(300)]);
}

#[test]
fn a_versioned_to_table_logs_and_forwards_every_put() {
    let driver = TestDriver::<Prices>::new();
    let updates = driver.input_topic(Prices::VP_RATE_UPDATES);
    updates.pipe_input_at(s("eur"), s("1.10"), 100);
    updates.pipe_input_at(s("eur"), s("1.20"), 300);
    updates.pipe_input_at(s("eur"), s("1.15"), 200); // out of order
    updates.pipe_tombstone(s("eur"), 400);
    updates.pipe_input_at(s("eur"), s("0.90"), 10); // within the history (1 s)
    let changes = driver
        .output_topic(Prices::VP_RATE_CHANGES)
        .read_records_to_list();
    let changes: Vec<_> = changes
        .into_iter()
        .map(|r| (r.value, r.timestamp))
        .collect();
    assert_eq!(
        changes,
        [
            (Some(s("1.10")), 100),
            (Some(s("1.20")), 300),
            (Some(s("1.15")), 200),
            (None, 400),
            (Some(s("0.90")), 10)
        ]
    );
    let changelog = driver.changelog("versioned-prices-vp-rates-changelog");
    assert_eq!(changelog.len(), 5, "every put is logged");
    let store = driver.key_value_store(Prices::VP_RATES);
    assert_eq!(store.get(&s("eur")), None, "deleted at 400");
    assert_eq!(
        store.get_as_of(&s("eur"), 250).map(|v| v.value),
        Some(s("1.15"))
    );
    assert_eq!(
        store.get_as_of(&s("eur"), 10).map(|v| v.value),
        Some(s("0.90"))
    );
}

#[test]
fn the_history_comes_back_from_the_changelog() {
    let driver = TestDriver::<Prices>::new();
    prices(&driver);
    let updates = driver.input_topic(Prices::VP_RATE_UPDATES);
    updates.pipe_input_at(s("eur"), s("1.10"), 100);
    updates.pipe_input_at(s("eur"), s("1.20"), 300);
    updates.pipe_input_at(s("eur"), s("1.15"), 200);
    driver.clear_and_restore().expect("restores");
    let rates = driver.key_value_store(Prices::VP_RATES);
    assert_eq!(
        rates.get_as_of(&s("eur"), 250).map(|v| v.value),
        Some(s("1.15"))
    );
    assert_eq!(
        rates.get_as_of(&s("eur"), 150).map(|v| v.value),
        Some(s("1.10"))
    );
    assert_eq!(rates.get(&s("eur")), Some(s("1.20")));
    let prices = driver.key_value_store(Prices::VP_PRICE_STORE);
    assert_eq!(prices.get_as_of(&s("a"), 17).map(|v| v.value), Some(150));
}

topology! {
    /// Kafka Streams 4.4's probe topology: two versioned tables (history 1 s) joined, and one
    /// re-grouped and counted.
    pub Joined = "versioned-joined" {
        let left = table("vj-left", Utf8, Utf8, "vj-left-store").versioned(Duration::from_millis(1_000));
        let right = table("vj-right", Utf8, Utf8, "vj-right-store").versioned(Duration::from_millis(1_000));
        left.join(right, |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream()
            .to("vj-out", Utf8, Nullable::<Utf8>);
        table("vj-in", Utf8, Utf8, "vj-in-store")
            .versioned(Duration::from_millis(1_000))
            .group_by(|_k: &String, v: String| (v.clone(), v), Utf8, Utf8)
            .count("vj-counts")
            .with_caching_disabled()
            .to_stream()
            .to("vj-counts-out", Utf8, Nullable::<I64>);
    }
}

#[test]
fn a_table_join_drops_and_counts_out_of_order_updates_of_versioned_tables() {
    let driver = TestDriver::<Joined>::new();
    let left = driver.input_topic(Joined::VJ_LEFT);
    let right = driver.input_topic(Joined::VJ_RIGHT);
    right.pipe_input_at(s("k"), s("R10"), 10);
    left.pipe_input_at(s("k"), s("L10"), 10);
    left.pipe_input_at(s("k"), s("L20"), 20);
    left.pipe_input_at(s("k"), s("L15"), 15); // out of order: dropped (1)
    right.pipe_input_at(s("k"), s("R5"), 5); // dropped (2)
    right.pipe_input_at(s("k"), s("R30"), 30);
    left.pipe_tombstone(s("k"), 40);
    left.pipe_tombstone(s("k"), 35); // dropped (3)
    left.pipe_input_at(s("k"), s("L50"), 50);
    right.pipe_tombstone(s("k"), 45);
    right.pipe_input_at(s("k"), s("R42"), 42); // dropped (4)
    left.pipe_input_at(s("j"), s("J5000"), 5_000);
    left.pipe_input_at(s("k"), s("L100"), 100); // expired in the store (5)
    let out: Vec<_> = driver
        .output_topic(Joined::VJ_OUT)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(
        out,
        [
            (s("k"), Some(s("L10+R10")), 10),
            (s("k"), Some(s("L20+R10")), 20),
            (s("k"), Some(s("L20+R30")), 30),
            (s("k"), None, 40),
            (s("k"), Some(s("L50+R30")), 50),
            (s("k"), None, 50),
        ]
    );
    assert_eq!(driver.records_dropped(), 5);
}

#[test]
fn a_regrouping_skips_out_of_order_updates_of_a_versioned_table_silently() {
    let driver = TestDriver::<Joined>::new();
    let input = driver.input_topic(Joined::VJ_IN);
    input.pipe_input_at(s("a"), s("x"), 10);
    input.pipe_input_at(s("a"), s("y"), 20);
    input.pipe_input_at(s("a"), s("z"), 15); // out of order: skipped
    input.pipe_input_at(s("b"), s("x"), 30);
    input.pipe_tombstone(s("a"), 40);
    input.pipe_input_at(s("a"), s("w"), 35); // out of order
    input.pipe_tombstone(s("b"), 25); // out of order
    input.pipe_tombstone(s("c"), 50);
    input.pipe_input_at(s("d"), s("x"), 3_000);
    input.pipe_input_at(s("b"), s("q"), 100); // expired: dropped at the source (counted)
    let out: Vec<_> = driver
        .output_topic(Joined::VJ_COUNTS_OUT)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(
        out,
        [
            (s("x"), Some(1), 10),
            (s("x"), Some(0), 20),
            (s("y"), Some(1), 20),
            (s("x"), Some(1), 30),
            (s("y"), Some(0), 40),
            (s("x"), Some(2), 3_000),
        ]
    );
    assert_eq!(driver.records_dropped(), 1);
}

topology! {
    /// A join with a grace period after a value change (so the buffer's value serde is named).
    pub Graced = "versioned-graced" {
        let rates = table("vg-rates", Utf8, I64, "vg-rate-store").versioned(Duration::from_secs(10));
        stream("vg-orders", Utf8, Utf8)
            .map_values(|v: String| v.len() as i64)
            .left_join(rates, |n: i64, r: Option<i64>| n * r.unwrap_or(-1), grace(Duration::from_millis(100), I64))
            .to("vg-out", Utf8, I64);
    }
}

#[test]
fn a_grace_join_waits_for_late_table_updates_and_survives_a_restore() {
    let driver = TestDriver::<Graced>::new();
    let rates = driver.input_topic(Graced::VG_RATES);
    let orders = driver.input_topic(Graced::VG_ORDERS);
    rates.pipe_input_at(s("k"), 10, 0);
    orders.pipe_input_at(s("k"), s("xx"), 50); // waits until stream time 150
    rates.pipe_input_at(s("k"), 20, 40); // arrives late, but within the grace
    orders.pipe_input_at(s("k"), s("xxx"), 120);
    let out = driver.output_topic(Graced::VG_OUT);
    assert!(out.is_empty(), "both records wait");
    // The buffer comes back from its changelog.
    driver.clear_and_restore().expect("restores");
    orders.pipe_input_at(s("k"), s("x"), 160);
    assert_eq!(
        out.read_records_to_list()
            .into_iter()
            .map(|r| (r.value, r.timestamp))
            .collect::<Vec<_>>(),
        [(40, 50)],
        "joined with the rate valid at 50, which came after the order"
    );
    // Late (older than 160 - 100): joined at once.
    orders.pipe_input_at(s("k"), s("xxxx"), 30);
    assert_eq!(out.read_values_to_list(), [40]);
    let changelog =
        driver.changelog("versioned-graced-KSTREAM-LEFTJOIN-0000000004-Buffer-changelog");
    let values: Vec<_> = changelog
        .iter()
        .map(|r| r.value.as_deref().map(<[u8]>::len))
        .collect();
    assert_eq!(
        values,
        [Some(8), Some(8), Some(8), None],
        "three puts (the i64 values), one eviction's tombstone; the late record is not buffered"
    );
}
