//! The TestDriver with several partitions per topic: records go to the partition Kafka's
//! default partitioner picks (murmur2 of the serialized key), each partition has its own task
//! per subtopology, and repartitioning and co-partitioning work as against a broker.
//!
//! The expected partitions were computed with Kafka 4.4's own partitioner function
//! (`Utils.toPositive(Utils.murmur2(key)) % 4`, kafka-clients 4.4.0) for the keys used here:
//! s1 1, s4 0, s5 3; the 3, cat 1, sat 1, dog 0, ran 1, on 0, mat 1; c1 3, c2 1, c3 1, c4 2;
//! alice 1, bob 2.

use std::collections::BTreeMap;

use dekaf_streams::testing::{TestDriver, TestRecord};
use dekaf_streams_examples::orders::{Customer, EnrichedOrder, Order, OrderEnrichment};
use dekaf_streams_examples::punctuation::Totals;
use dekaf_streams_examples::word_count::WordCount;

/// Records per partition, in the order each partition received them.
fn by_partition<K, V>(records: Vec<TestRecord<K, V>>) -> BTreeMap<i32, Vec<(K, V)>> {
    let mut out: BTreeMap<i32, Vec<(K, V)>> = BTreeMap::new();
    for r in records {
        out.entry(r.partition).or_default().push((r.key, r.value));
    }
    out
}

fn kv<V: Clone>(pairs: &[(&str, V)]) -> Vec<(String, V)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

#[test]
fn repartitioned_count_over_four_partitions() {
    let driver = TestDriver::<WordCount>::builder().partitions(4).build();
    assert_eq!(driver.partitions(), 4);
    let sentences = driver.input_topic(WordCount::SENTENCES);
    let counts = driver.output_topic(WordCount::WORD_COUNTS);
    // Sentences land on partitions 1, 0 and 3 of `sentences`; their words are repartitioned by
    // word, so every word is counted by one task whichever sentence partition it came from.
    sentences.pipe_input("s1".into(), "the cat sat".into());
    sentences.pipe_input("s4".into(), "the dog ran".into());
    sentences.pipe_input("s5".into(), "the cat on the mat".into());
    assert_eq!(
        by_partition(counts.read_records_to_list()),
        BTreeMap::from([
            (0, kv(&[("dog", 1), ("on", 1)])),
            (
                1,
                kv(&[("cat", 1), ("sat", 1), ("ran", 1), ("cat", 2), ("mat", 1)])
            ),
            (3, kv(&[("the", 1), ("the", 2), ("the", 3), ("the", 4)])),
        ])
    );
    // The store, read over all partitions.
    assert_eq!(
        driver.key_value_store(WordCount::COUNTS).all(),
        kv(&[
            ("cat", 2),
            ("dog", 1),
            ("mat", 1),
            ("on", 1),
            ("ran", 1),
            ("sat", 1),
            ("the", 4)
        ])
    );
    // The counts survive a restore of every task from its own partition's changelog.
    driver.clear_and_restore().expect("restore");
    sentences.pipe_input("s6".into(), "the cat".into());
    assert_eq!(
        by_partition(counts.read_records_to_list()),
        BTreeMap::from([(1, kv(&[("cat", 3)])), (3, kv(&[("the", 5)]))])
    );
}

fn customer(name: &str) -> Customer {
    Customer {
        name: name.into(),
        country: "GB".into(),
    }
}

fn order(id: u64) -> Order {
    Order {
        id,
        amount_cents: 100 * id as i64,
    }
}

fn enriched(id: u64, name: Option<&str>) -> EnrichedOrder {
    EnrichedOrder {
        id,
        amount_cents: 100 * id as i64,
        customer: name.map(str::to_owned),
        country: name.map(|_| "GB".to_owned()),
    }
}

#[test]
fn stream_table_join_over_four_co_partitioned_partitions() {
    let driver = TestDriver::<OrderEnrichment>::builder()
        .partitions(4)
        .build();
    let customers = driver.input_topic(OrderEnrichment::CUSTOMERS);
    let orders = driver.input_topic(OrderEnrichment::ORDERS);
    let joined = driver.output_topic(OrderEnrichment::ORDERS_ENRICHED);
    let left = driver.output_topic(OrderEnrichment::ORDERS_WITH_CUSTOMER);
    // Customers on partitions 3, 1 and 2; orders by customer id land on the same partitions,
    // so each order's task holds its customer.
    customers.pipe_input("c1".into(), customer("Ada"));
    customers.pipe_input("c2".into(), customer("Bo"));
    customers.pipe_input("c4".into(), customer("Cy"));
    orders.pipe_input("c1".into(), order(1));
    orders.pipe_input("c2".into(), order(2));
    orders.pipe_input("c3".into(), order(3)); // partition 1: no customer c3
    orders.pipe_input("c4".into(), order(4));
    customers.pipe_input("c2".into(), customer("Bo B."));
    orders.pipe_input("c2".into(), order(5));
    customers.pipe_tombstone("c4".into(), 0);
    orders.pipe_input("c4".into(), order(6));
    assert_eq!(
        by_partition(joined.read_records_to_list()),
        BTreeMap::from([
            (
                1,
                kv(&[
                    ("c2", enriched(2, Some("Bo"))),
                    ("c2", enriched(5, Some("Bo B.")))
                ])
            ),
            (2, kv(&[("c4", enriched(4, Some("Cy")))])),
            (3, kv(&[("c1", enriched(1, Some("Ada")))])),
        ])
    );
    assert_eq!(
        by_partition(left.read_records_to_list()),
        BTreeMap::from([
            (
                1,
                kv(&[
                    ("c2", enriched(2, Some("Bo"))),
                    ("c3", enriched(3, None)),
                    ("c2", enriched(5, Some("Bo B.")))
                ])
            ),
            (
                2,
                kv(&[("c4", enriched(4, Some("Cy"))), ("c4", enriched(6, None))])
            ),
            (3, kv(&[("c1", enriched(1, Some("Ada")))])),
        ])
    );
}

#[test]
fn each_partition_punctuates_on_its_own_stream_time() {
    let driver = TestDriver::<Totals>::builder().partitions(4).build();
    let amounts = driver.input_topic(Totals::AMOUNTS);
    let totals = driver.output_topic(Totals::TOTALS);
    // alice is on partition 1, bob on 2: two tasks, two stream times, two schedules.
    amounts.pipe_input_at("alice".into(), 1, 1_000);
    amounts.pipe_input_at("bob".into(), 10, 500);
    assert_eq!(
        by_partition(totals.read_records_to_list()),
        BTreeMap::from([(1, kv(&[("alice", 1)])), (2, kv(&[("bob", 10)]))])
    );
    amounts.pipe_input_at("bob".into(), 20, 9_000);
    // Partition 1 reaches 10 000; partition 2 is still at 9 000 and keeps bob's total.
    amounts.pipe_input_at("alice".into(), 2, 10_000);
    let out = totals.read_records_to_list();
    assert_eq!(
        out.iter()
            .map(|r| (r.partition, r.key.as_str(), r.value, r.timestamp))
            .collect::<Vec<_>>(),
        [(1, "alice", 2, 10_000)]
    );
    assert_eq!(driver.stream_time(0), Some(10_000));
    amounts.pipe_input_at("bob".into(), 5, 10_001);
    assert_eq!(
        by_partition(totals.read_records_to_list()),
        BTreeMap::from([(2, kv(&[("bob", 25)]))])
    );
}
