//! `partitioner(..)` on `to` and `repartition` (Kafka Streams' `StreamPartitioner`, with
//! KIP-837's multicast): each record's partitions chosen from its key, its value and the
//! topic's partition count.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Orders routed by region; alerts to every partition; a repartition by customer that
    /// puts VIPs on partition 0, then counts per customer.
    pub Routing = "routing-app" {
        let orders = stream("pt-orders", Utf8, Utf8);
        orders.to("pt-by-region", Utf8, Utf8, partitioner(|_key: &String, order: &String, partitions: u32| {
            match order.split(':').next() {
                Some("eu") => Some(0),
                Some("us") => Some(partitions - 1),
                // Anything else by key, as the default partitioner.
                _ => None,
            }
        }));
        orders
            .filter(|_key, order| order.ends_with("!"))
            .to("pt-alerts", Utf8, Utf8, partitioner(|_key: &String, _order: &String, partitions: u32| {
                (0..partitions).collect::<Vec<u32>>()
            }));
        orders
            .filter(|_key, order| order.ends_with("?"))
            .to("pt-dropped", Utf8, Utf8, partitioner(|_key: &String, _order: &String, _partitions: u32| {
                Vec::<u32>::new()
            }));
        orders
            .filter(|_key, order| order.ends_with("#"))
            .to("pt-broken", Utf8, Utf8, partitioner(|_key: &String, _order: &String, partitions: u32| partitions));
        orders
            .select_key(|_key, order| order.split(':').nth(1).unwrap_or("").to_owned())
            .repartition("by-customer", Utf8, Utf8, partitioner(|customer: &String, _order: &String, _partitions: u32| {
                customer.starts_with("vip").then_some(0)
            }))
            .group_by_key()
            .count("per-customer")
            .to_stream()
            .to("pt-counts", Utf8, I64);
    }
}

fn driver() -> TestDriver<Routing> {
    TestDriver::<Routing>::builder().partitions(4).build()
}

#[test]
fn a_partitioner_chooses_the_partition_or_leaves_it_to_the_key() {
    let driver = driver();
    let orders = driver.input_topic(Routing::PT_ORDERS);
    orders.pipe_input_at("o1".into(), "eu:ann".into(), 1);
    orders.pipe_input_at("o2".into(), "us:bob".into(), 2);
    orders.pipe_input_at("o3".into(), "mx:cid".into(), 3);
    let out: Vec<(String, i32)> = driver
        .output_topic(Routing::PT_BY_REGION)
        .read_records_to_list()
        .into_iter()
        .map(|r| (r.key, r.partition))
        .collect();
    // The default partitioner's choice for "o3": Kafka's murmur2 of the serialized key.
    let by_key = dekaf_streams::task::Partitioning::ByKey
        .partition(Some(b"o3"), 4)
        .expect("a key");
    assert_eq!(
        out,
        [("o1".into(), 0), ("o2".into(), 3), ("o3".into(), by_key)]
    );
}

#[test]
fn a_list_of_partitions_multicasts_and_an_empty_one_drops() {
    let driver = driver();
    let orders = driver.input_topic(Routing::PT_ORDERS);
    orders.pipe_input_at("o1".into(), "eu:ann!".into(), 1);
    orders.pipe_input_at("o2".into(), "eu:ann?".into(), 2);
    let mut alerts: Vec<i32> = driver
        .output_topic(Routing::PT_ALERTS)
        .read_records_to_list()
        .into_iter()
        .map(|r| r.partition)
        .collect();
    alerts.sort_unstable();
    assert_eq!(alerts, [0, 1, 2, 3], "one copy per partition");
    assert!(driver.output_topic(Routing::PT_DROPPED).is_empty());
}

#[test]
fn a_partition_past_the_count_fails_the_record_and_names_the_count() {
    let driver = driver();
    let orders = driver.input_topic(Routing::PT_ORDERS);
    let failed = orders
        .try_pipe_record_at("o1".into(), "eu:ann#".into(), 1, Default::default())
        .expect_err("partition 4 of 4");
    let text = failed.to_string();
    assert!(
        text.contains("chose partition 4 of pt-broken, which has 4 (0 to 3)"),
        "{text}"
    );
}

#[test]
fn a_repartition_partitioner_places_records_and_keys_still_aggregate() {
    let driver = driver();
    let orders = driver.input_topic(Routing::PT_ORDERS);
    for (i, order) in ["eu:vip-ann", "us:bob", "eu:vip-ann", "eu:vip-dan", "us:bob"]
        .into_iter()
        .enumerate()
    {
        orders.pipe_input_at(format!("o{i}"), order.into(), i as i64);
    }
    let counts = driver
        .output_topic(Routing::PT_COUNTS)
        .read_records_to_list();
    let last: std::collections::HashMap<String, (i64, i32)> = counts
        .into_iter()
        .map(|r| (r.key, (r.value, r.partition)))
        .collect();
    assert_eq!(last["vip-ann"].0, 2);
    assert_eq!(last["vip-dan"].0, 1);
    assert_eq!(last["bob"].0, 2);
    // The task that counted each customer is the one of the partition the partitioner chose
    // (VIPs: 0), or of the key's partition: its changelog records are on that partition.
    let tasks: std::collections::BTreeSet<(String, i32)> = driver
        .changelog_with_partitions("routing-app-per-customer-changelog")
        .into_iter()
        .map(|(p, r)| (String::from_utf8(r.key.expect("a key")).expect("utf-8"), p))
        .collect();
    let by_key = |key: &[u8]| {
        dekaf_streams::task::Partitioning::ByKey
            .partition(Some(key), 4)
            .expect("a key")
    };
    let bob = by_key(b"bob");
    // By key the VIPs would not all be on partition 0: the partitioner put them there.
    assert!(by_key(b"vip-ann") != 0 || by_key(b"vip-dan") != 0);
    assert_eq!(
        tasks.into_iter().collect::<Vec<_>>(),
        [
            ("bob".into(), bob),
            ("vip-ann".into(), 0),
            ("vip-dan".into(), 0),
        ]
    );
}

topology! {
    /// Each record to the output of the topic it came from (its context), on the last
    /// partition for the app's and the first for the web's (the partitioner sees the topic).
    pub ByOrigin = "origin-app" {
        stream(["og-web", "og-app"], Utf8, Utf8).to(
            ["og-web-out", "og-app-out"],
            |_key: &String, _value: &String, ctx: &RecordContext<'_>| {
                format!("{}-out", ctx.topic().unwrap_or("og-web"))
            },
            Utf8,
            Utf8,
            partitioner(|topic: &str, _key: &String, _value: &String, partitions: u32| {
                if topic == "og-app-out" { partitions - 1 } else { 0 }
            }),
        );
    }
}

#[test]
fn a_chooser_sees_the_records_context_and_a_partitioner_its_topic() {
    let driver = TestDriver::<ByOrigin>::builder().partitions(3).build();
    driver
        .input_topic(ByOrigin::OG_WEB)
        .pipe_input_at("w".into(), "from the web".into(), 1);
    driver
        .input_topic(ByOrigin::OG_APP)
        .pipe_input_at("a".into(), "from the app".into(), 2);
    let placed = |topic| -> Vec<(String, i32)> {
        driver
            .output_topic::<String, String>(topic)
            .read_records_to_list()
            .into_iter()
            .map(|r| (r.value, r.partition))
            .collect()
    };
    assert_eq!(
        placed(ByOrigin::OG_WEB_OUT),
        [("from the web".to_owned(), 0)]
    );
    assert_eq!(
        placed(ByOrigin::OG_APP_OUT),
        [("from the app".to_owned(), 2)]
    );
}
