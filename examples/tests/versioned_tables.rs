//! Versioned tables (`versioned(..)`, Kafka Streams' versioned key-value stores, KIP-889): a
//! stream-table join reads the table as it was at the stream record's timestamp (KIP-914), an
//! update older than the key's latest changes only the history (it is not forwarded), an update
//! older than the history retention is dropped, and the history comes back from the changelog.

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
fn an_out_of_order_update_is_kept_but_not_forwarded() {
    let driver = TestDriver::<Prices>::new();
    prices(&driver);
    let changes = driver
        .output_topic(Prices::VP_PRICE_CHANGES)
        .read_records_to_list();
    let changes: Vec<_> = changes
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect();
    assert_eq!(changes, [(s("a"), Some(100), 10), (s("a"), Some(200), 20)]);
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
    orders.pipe_input_at(s("a"), 1, 30_000); // older than the history: no price
    orders.pipe_input_at(s("a"), 1, 50_000);
    orders.pipe_input_at(s("a"), 1, 100_001);
    let left = driver
        .output_topic(Prices::VP_LEFT_TOTALS)
        .read_values_to_list();
    assert_eq!(left, [-1, 150, 200]);
    let changes = driver
        .output_topic(Prices::VP_PRICE_CHANGES)
        .read_values_to_list();
    assert_eq!(changes, [Some(100), Some(200)], "only latest updates");
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
fn a_versioned_to_table_logs_every_put_and_forwards_the_latest_only() {
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
        [(Some(s("1.10")), 100), (Some(s("1.20")), 300), (None, 400)]
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
