//! Global tables in the TestDriver, with exact outputs, as Kafka Streams 4.4's
//! `KStreamGlobalKTableJoin` (`KStreamKTableJoinProcessor`) forwards them: the key mapper picks
//! the table's key from each record; an inner join forwards only when the table has it, a left
//! join always (with `None`); a mapped key that is null finds nothing; the table follows every
//! update and tombstone of its topic, whatever partition or key the stream has.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::task::Topology;
use dekaf_streams::testing::TestDriver;

/// `"c1:book"` → `"c1"`.
fn customer_of(order: &str) -> String {
    order.split(':').next().unwrap_or_default().to_owned()
}

topology! {
    /// Orders (keyed by order id) enriched with their customer's name.
    pub Enrich = "global-enrich" {
        let customers = global_table("customers", Utf8, Utf8);
        let orders = stream("orders", Utf8, Utf8);
        orders.join(
            customers,
            |_id: &String, order: &String| customer_of(order),
            |order: String, name: String| format!("{order} for {name}"),
        ).to("enriched", Utf8, Utf8);
        orders.left_join(
            customers,
            |_id: &String, order: &String| customer_of(order),
            |order: String, name: Option<String>| format!("{order} for {}", name.unwrap_or_else(|| "?".to_owned())),
        ).to("enriched-all", Utf8, Utf8);
    }
}

topology! {
    /// A key mapper that may give no key (`None` serializes to null), after a key change.
    pub Optional = "global-optional" {
        let regions = global_table("regions", Nullable::<Utf8>, Utf8, "regions-store");
        let events = stream("events", Utf8, Utf8);
        let rekeyed = events.select_key(|_k: &String, v: &String| v.clone());
        rekeyed.join(
            regions,
            |_k: &String, v: &String| v.strip_prefix("r:").map(str::to_owned),
            |v: String, region: String| format!("{v}@{region}"),
        ).to("located", Utf8, Utf8);
        rekeyed.left_join(
            regions,
            |_k: &String, v: &String| v.strip_prefix("r:").map(str::to_owned),
            |v: String, region: Option<String>| format!("{v}@{}", region.unwrap_or_default()),
        ).to("located-all", Utf8, Utf8);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn a_stream_is_enriched_with_the_latest_global_value() {
    let driver = TestDriver::<Enrich>::new();
    let customers = driver.input_topic(Enrich::CUSTOMERS);
    let orders = driver.input_topic(Enrich::ORDERS);
    let inner = driver.output_topic(Enrich::ENRICHED);
    let left = driver.output_topic(Enrich::ENRICHED_ALL);

    orders.pipe_input(s("o1"), s("c1:book")); // no customer yet
    customers.pipe_input(s("c1"), s("alice"));
    customers.pipe_input(s("c2"), s("bob"));
    orders.pipe_input(s("o2"), s("c1:pen"));
    orders.pipe_input(s("o3"), s("c2:ink"));
    customers.pipe_input(s("c1"), s("alicia")); // an update
    orders.pipe_input(s("o4"), s("c1:cup"));
    customers.pipe_tombstone(s("c2"), 0); // a delete
    orders.pipe_input(s("o5"), s("c2:pad"));
    orders.pipe_input(s("o6"), s("c3:box")); // a customer that never was

    assert_eq!(
        inner.read_key_values_to_list(),
        [
            (s("o2"), s("c1:pen for alice")),
            (s("o3"), s("c2:ink for bob")),
            (s("o4"), s("c1:cup for alicia")),
        ]
    );
    assert_eq!(
        left.read_key_values_to_list(),
        [
            (s("o1"), s("c1:book for ?")),
            (s("o2"), s("c1:pen for alice")),
            (s("o3"), s("c2:ink for bob")),
            (s("o4"), s("c1:cup for alicia")),
            (s("o5"), s("c2:pad for ?")),
            (s("o6"), s("c3:box for ?")),
        ]
    );
    // The table holds the topic's latest values, nothing of the stream.
    let store = driver
        .global_store("customers-STATE-STORE-0000000000")
        .expect("the global store, named as Kafka Streams names it");
    assert_eq!(store.len(), 1);
    assert_eq!(store.get(b"c1").as_deref(), Some(&b"alicia"[..]));
    assert_eq!(driver.records_skipped(), 0);
}

#[test]
fn a_null_mapped_key_finds_nothing_and_a_null_table_key_is_skipped() {
    let driver = TestDriver::<Optional>::new();
    let regions = driver.input_topic(Optional::REGIONS);
    let events = driver.input_topic(Optional::EVENTS);
    regions.pipe_input(Some(s("eu")), s("Europe"));
    // A record of the table's topic with a null key is skipped (Kafka Streams' KTableSource).
    regions.pipe_input(None, s("Nowhere"));
    events.pipe_input(s("e1"), s("r:eu"));
    events.pipe_input(s("e2"), s("none")); // the mapper gives no key
    events.pipe_input(s("e3"), s("r:us")); // a key the table lacks
    assert_eq!(
        driver
            .output_topic(Optional::LOCATED)
            .read_key_values_to_list(),
        [(s("r:eu"), s("r:eu@Europe"))]
    );
    assert_eq!(
        driver
            .output_topic(Optional::LOCATED_ALL)
            .read_key_values_to_list(),
        [
            (s("r:eu"), s("r:eu@Europe")),
            (s("none"), s("none@")),
            (s("r:us"), s("r:us@")),
        ]
    );
    let store = driver.global_store("regions-store").expect("named store");
    assert_eq!(store.len(), 1);
    // The skipped record is counted, as Kafka Streams' dropped-records sensor counts it.
    assert_eq!(store.null_keys_dropped(), 1);
    // The store's typed handle, for interactive queries (`queries().store(..)`).
    assert_eq!(Optional::REGIONS_STORE.name, "regions-store");
}

/// A global table whose store is named takes two indexes (its source and processor), as
/// `builder.globalTable("regions", Materialized.as("regions-store"))` does: Kafka Streams
/// generates no store name then (checked against kafka-streams-4.4.0.jar's describe()).
#[test]
fn a_named_global_store_takes_no_index() {
    let d = Optional::describe();
    for line in [
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [regions])\n      --> KTABLE-SOURCE-0000000001\n",
        "    Processor: KTABLE-SOURCE-0000000001 (stores: [regions-store])\n",
        "    Source: KSTREAM-SOURCE-0000000002 (topics: [events])\n",
    ] {
        assert!(d.contains(line), "describe() lacks {line:?}:\n{d}");
    }
}

#[test]
fn describe_names_the_global_store_as_kafka_streams_does() {
    assert_eq!(
        Enrich::describe(),
        "\
Topology: Enrich (application id global-enrich)
Topologies:
   Sub-topology: 0 for global store (will not generate tasks)
    Source: KSTREAM-SOURCE-0000000001 (topics: [customers])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [customers-STATE-STORE-0000000000])
      --> none
      <-- KSTREAM-SOURCE-0000000001

   Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000003 (topics: [orders])
      --> KSTREAM-LEFTJOIN-0000000004, KSTREAM-LEFTJOIN-0000000006
    Processor: KSTREAM-LEFTJOIN-0000000004 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-SOURCE-0000000003
    Sink: KSTREAM-SINK-0000000005 (topic: enriched)
      <-- KSTREAM-LEFTJOIN-0000000004
    Processor: KSTREAM-LEFTJOIN-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-SOURCE-0000000003
    Sink: KSTREAM-SINK-0000000007 (topic: enriched-all)
      <-- KSTREAM-LEFTJOIN-0000000006

Declared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):
   Sub-topology: 1
    Source topics: [orders]

Kafka Streams equivalent (the Java DSL that declares the same internal topics):
  Every internal topic is named after a name given in this topology: a Java application declaring the above matches.
"
    );
    // The global topic is no source of a task: the streams group never assigns it. Its node
    // group still takes id 0 (Kafka Streams' makeNodeGroups), so the stream's subtopology is
    // "1" in the group protocol, as for the same topology in Java.
    assert_eq!(Enrich::INFO.subtopologies.len(), 1);
    assert_eq!(Enrich::INFO.subtopologies[0].id, "1");
    assert_eq!(Enrich::INFO.subtopologies[0].source_topics, ["orders"]);
    assert_eq!(
        Enrich::GLOBAL_TABLES,
        [dekaf_streams::task::GlobalTableInfo {
            topic: "customers",
            store: "customers-STATE-STORE-0000000000",
        }]
    );
}
