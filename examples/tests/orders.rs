//! Stream-table joins through the TestDriver.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::orders::{Customer, EnrichedOrder, Order, OrderEnrichment};

fn customer(name: &str, country: &str) -> Customer {
    Customer {
        name: name.into(),
        country: country.into(),
    }
}

fn enriched(id: u64, amount_cents: i64, c: Option<(&str, &str)>) -> EnrichedOrder {
    EnrichedOrder {
        id,
        amount_cents,
        customer: c.map(|c| c.0.to_owned()),
        country: c.map(|c| c.1.to_owned()),
    }
}

#[test]
fn join_and_left_join() {
    let driver = TestDriver::<OrderEnrichment>::new();
    let customers = driver.input_topic(OrderEnrichment::CUSTOMERS);
    let orders = driver.input_topic(OrderEnrichment::ORDERS);
    let joined = driver.output_topic(OrderEnrichment::ORDERS_ENRICHED);
    let left = driver.output_topic(OrderEnrichment::ORDERS_WITH_CUSTOMER);

    customers.pipe_input("c1".into(), customer("Ada", "GB"));
    orders.pipe_input(
        "c1".into(),
        Order {
            id: 1,
            amount_cents: 500,
        },
    );
    // Unknown customer: dropped by join, passes left_join with None.
    orders.pipe_input(
        "c2".into(),
        Order {
            id: 2,
            amount_cents: 700,
        },
    );
    // The customer changes: later orders see the new value.
    customers.pipe_input("c1".into(), customer("Ada L.", "GB"));
    orders.pipe_input(
        "c1".into(),
        Order {
            id: 3,
            amount_cents: 900,
        },
    );
    // The customer is deleted (tombstone).
    customers.pipe_tombstone("c1".into(), 0);
    orders.pipe_input(
        "c1".into(),
        Order {
            id: 4,
            amount_cents: 100,
        },
    );

    assert_eq!(
        joined.read_key_values_to_list(),
        vec![
            ("c1".to_owned(), enriched(1, 500, Some(("Ada", "GB")))),
            ("c1".to_owned(), enriched(3, 900, Some(("Ada L.", "GB")))),
        ]
    );
    assert_eq!(
        left.read_values_to_list(),
        vec![
            enriched(1, 500, Some(("Ada", "GB"))),
            enriched(2, 700, None),
            enriched(3, 900, Some(("Ada L.", "GB"))),
            enriched(4, 100, None),
        ]
    );
    // The table's store is restored from its own topic: no changelog is written.
    assert!(
        driver
            .changelog("order-enrichment-customers-changelog")
            .is_empty()
    );
    assert_eq!(
        driver
            .key_value_store(OrderEnrichment::CUSTOMERS_STORE)
            .len(),
        0
    );
}

#[test]
fn declares_the_copartition_group() {
    let sub = &OrderEnrichment::INFO.subtopologies[0];
    assert_eq!(OrderEnrichment::INFO.subtopologies.len(), 1);
    assert_eq!(sub.source_topics, ["customers", "orders"]);
    assert_eq!(sub.copartition_groups.len(), 1);
    assert_eq!(
        sub.copartition_groups[0].source_topics,
        ["customers", "orders"]
    );
    assert_eq!(sub.stores[0].changelog_topic, "customers");
    // The table's topic is its changelog, declared as Kafka Streams declares it under
    // `topology.optimization=reuse.ktable.source.topics` (so the two can take over each other).
    assert_eq!(sub.state_changelog_topics.len(), 1);
    assert_eq!(sub.state_changelog_topics[0].name, "customers");
    assert_eq!(
        sub.state_changelog_topics[0].configs,
        [
            ("cleanup.policy", "compact"),
            ("message.timestamp.type", "CreateTime")
        ]
    );
}
