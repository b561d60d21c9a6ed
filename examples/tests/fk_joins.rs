//! Foreign-key table-table joins in the TestDriver, with exact outputs, as Kafka Streams 4.4's
//! `foreignkeyjoin` processors forward them: orders (keyed by order id) reference a customer
//! by foreign key; every change of either side updates the result, a foreign key change never
//! leaves a result of the old customer behind, and deletes retract.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::task::Topology;
use dekaf_streams::testing::TestDriver;

/// `"c1:book"` → `"c1"`.
fn customer_of(order: &str) -> String {
    order.split(':').next().unwrap_or_default().to_owned()
}

topology! {
    /// Orders joined with their customers by the customer id in the order.
    pub Orders = "fk-orders" {
        let orders = table("orders", Utf8, Utf8, "orders-store");
        let customers = table("customers", Utf8, Utf8, "customers-store");
        orders
            .join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, customer: &String| format!("{order} for {customer}"),
            )
            .to_stream()
            .to("inner", Utf8, Nullable::<Utf8>);
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, customer: Option<&String>| {
                    format!("{order} for {}", customer.map_or("?", |c| c.as_str()))
                },
            )
            .to_stream()
            .to("left", Utf8, Nullable::<Utf8>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

fn some(x: &str) -> Option<String> {
    Some(x.to_owned())
}

/// The same updates for both joins; the comments number them for the expectations.
fn drive(driver: &TestDriver<Orders>) {
    let orders = driver.input_topic(Orders::ORDERS);
    let customers = driver.input_topic(Orders::CUSTOMERS);
    orders.pipe_input(s("o1"), s("c1:book")); // 1: no customer c1 yet
    customers.pipe_input(s("c1"), s("alice")); // 2: c1 appears
    customers.pipe_input(s("c2"), s("bob")); // 3: nobody references c2
    orders.pipe_input(s("o2"), s("c2:pen")); // 4
    customers.pipe_input(s("c1"), s("alicia")); // 5: c1 changes
    orders.pipe_input(s("o1"), s("c2:book")); // 6: o1 moves from c1 to c2 (FK change)
    customers.pipe_input(s("c1"), s("alice again")); // 7: c1 changes, nobody references it
    customers.pipe_tombstone(s("c2"), 0); // 8: c2 deleted (right-side delete)
    orders.pipe_input(s("o3"), s("c9:cup")); // 9: a foreign key to nothing
    orders.pipe_tombstone(s("o2"), 0); // 10: o2 deleted (left-side delete)
    orders.pipe_input(s("o1"), s("c1:book")); // 11: o1 back to c1
}

#[test]
fn inner_join_follows_both_sides_and_foreign_key_changes() {
    let driver = TestDriver::<Orders>::new();
    drive(&driver);
    assert_eq!(
        driver.output_topic(Orders::INNER).read_key_values_to_list(),
        [
            (s("o1"), some("c1:book for alice")),       // 2
            (s("o2"), some("c2:pen for bob")),          // 4
            (s("o1"), some("c1:book for alicia")),      // 5
            (s("o1"), some("c2:book for bob")),         // 6: the new customer's row, nothing of c1
            (s("o1"), None),                            // 8: c2 deleted
            (s("o2"), None),                            // 8: c2 deleted
            (s("o2"), None),                            // 10: o2 deleted
            (s("o1"), some("c1:book for alice again")), // 11
        ]
    );
}

#[test]
fn left_join_emits_for_every_left_row() {
    let driver = TestDriver::<Orders>::new();
    drive(&driver);
    assert_eq!(
        driver.output_topic(Orders::LEFT).read_key_values_to_list(),
        [
            (s("o1"), some("c1:book for ?")),           // 1
            (s("o1"), some("c1:book for alice")),       // 2
            (s("o2"), some("c2:pen for bob")),          // 4
            (s("o1"), some("c1:book for alicia")),      // 5
            (s("o1"), some("c2:book for bob")),         // 6
            (s("o1"), some("c2:book for ?")),           // 8
            (s("o2"), some("c2:pen for ?")),            // 8
            (s("o3"), some("c9:cup for ?")),            // 9
            (s("o2"), None),                            // 10
            (s("o1"), some("c1:book for alice again")), // 11
        ]
    );
}

/// The indexes follow Kafka Streams' builder: each `table(..)` with a named store takes two (its
/// `KSTREAM-SOURCE-` and `KTABLE-SOURCE-`), then the fourteen of
/// `KTableImpl#doJoinOnForeignKey`.
#[test]
fn describe_names_nodes_topics_and_the_subscription_store_as_kafka_streams_does() {
    let text = Orders::describe();
    for name in [
        "fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000004-topic",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000005 (stores: [])",
        "Sink: KTABLE-SINK-0000000006",
        "Source: KTABLE-SOURCE-0000000007 (topics: [fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000004-topic])",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000009 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008])",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000010 (stores: [customers-store])",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008])",
        "Sink: KTABLE-SINK-0000000013 (topic: fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000012-topic)",
        "Source: KTABLE-SOURCE-0000000014 (topics: [fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000012-topic])",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000015 (stores: [orders-store])",
        "Processor: KTABLE-FK-JOIN-OUTPUT-0000000016 (stores: [])",
        "Store: KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008 (key-value; changelog: fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008-changelog)",
        // The second join starts after the first one's 14 indexes, to_stream() and to().
        "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000020-topic",
    ] {
        assert!(text.contains(name), "describe() lacks {name:?}:\n{text}");
    }
}

#[test]
fn each_side_runs_in_its_table_task_with_co_partitioned_topics() {
    let subs = Orders::INFO.subtopologies;
    let of = |topic: &str| {
        subs.iter()
            .find(|s| s.source_topics.contains(&topic))
            .expect("a subtopology reads it")
    };
    let (left, right) = (of("orders"), of("customers"));
    assert_ne!(left.id, right.id);
    let registration = "fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000004-topic";
    let response = "fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000012-topic";
    assert!(left.repartition_sink_topics.contains(&registration));
    assert!(
        right
            .repartition_source_topics
            .iter()
            .any(|t| t.name == registration)
    );
    assert!(right.repartition_sink_topics.contains(&response));
    assert!(
        left.repartition_source_topics
            .iter()
            .any(|t| t.name == response)
    );
    assert!(
        right
            .copartition_groups
            .iter()
            .any(|g| g.source_topics == ["customers"]
                && g.repartition_source_topics.contains(&registration))
    );
    assert!(
        left.copartition_groups
            .iter()
            .any(|g| g.source_topics == ["orders"]
                && g.repartition_source_topics.contains(&response))
    );
    assert!(right.state_changelog_topics.iter().any(
        |t| t.name == "fk-orders-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008-changelog"
    ));
}

topology! {
    /// A foreign key that may be null: `None` serializes to null with `Nullable::<Utf8>`.
    pub NullFk = "fk-null" {
        let orders = table("n-orders", Utf8, Utf8, "n-orders-store");
        let customers = table("n-customers", Nullable::<Utf8>, Utf8, "n-customers-store");
        orders
            .join_on_foreign_key(
                customers,
                |order: &String| order.strip_prefix("c:").map(str::to_owned),
                |order: &String, customer: &String| format!("{order} for {customer}"),
            )
            .to_stream()
            .to("n-inner", Utf8, Nullable::<Utf8>);
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| order.strip_prefix("c:").map(str::to_owned),
                |order: &String, customer: Option<&String>| {
                    format!("{order} for {}", customer.map_or("?", |c| c.as_str()))
                },
            )
            .to_stream()
            .to("n-left", Utf8, Nullable::<Utf8>);
    }
}

/// As Kafka Streams' `SubscriptionSendProcessorSupplier`: an inner join skips a row whose
/// foreign key is null (unsubscribing, and so retracting, the row's old result); a left join
/// subscribes with a null key and gets `None`.
#[test]
fn a_null_foreign_key_retracts_the_inner_result_and_left_joins_with_none() {
    let driver = TestDriver::<NullFk>::new();
    let orders = driver.input_topic(NullFk::N_ORDERS);
    let customers = driver.input_topic(NullFk::N_CUSTOMERS);
    customers.pipe_input(Some(s("c1")), s("alice"));
    orders.pipe_input(s("o1"), s("c:c1"));
    orders.pipe_input(s("o1"), s("no customer")); // the foreign key becomes null
    orders.pipe_input(s("o2"), s("none either")); // a new row with a null foreign key
    assert_eq!(
        driver
            .output_topic(NullFk::N_INNER)
            .read_key_values_to_list(),
        [(s("o1"), some("c:c1 for alice")), (s("o1"), None)]
    );
    assert_eq!(
        driver
            .output_topic(NullFk::N_LEFT)
            .read_key_values_to_list(),
        [
            (s("o1"), some("c:c1 for alice")),
            (s("o1"), some("no customer for ?")),
            (s("o2"), some("none either for ?")),
        ]
    );
}

topology! {
    /// The inner join named with `TableJoined.as("by-customer")`, then an unnamed left join.
    pub NamedOrders = "fk-named" {
        let orders = table("orders", Utf8, Utf8, "orders-store");
        let customers = table("customers", Utf8, Utf8, "customers-store");
        orders
            .join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, customer: &String| format!("{order} for {customer}"),
                "by-customer",
            )
            .to_stream()
            .to("inner", Utf8, Nullable::<Utf8>);
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, customer: Option<&String>| {
                    format!("{order} for {}", customer.map_or("?", |c| c.as_str()))
                },
            )
            .to_stream()
            .to("left", Utf8, Nullable::<Utf8>);
    }
}

/// `TableJoined.as("by-customer")`: every node, both topics and the subscription store are
/// named after it, and the indexes are still taken, so the unnamed join after it is numbered
/// as in Java (each line checked against kafka-streams-4.4.0.jar's describe() of the same
/// topology; topics here carry the application id, as the broker names them).
#[test]
fn a_named_join_names_its_nodes_topics_and_store_as_table_joined_as() {
    let text = NamedOrders::describe();
    for line in [
        "Processor: by-customer-subscription-registration-processor (stores: [])",
        "Sink: by-customer-subscription-registration-sink (topic: fk-named-by-customer-subscription-registration-topic)",
        "Source: by-customer-subscription-registration-source (topics: [fk-named-by-customer-subscription-registration-topic])",
        "Processor: by-customer-subscription-receive (stores: [by-customer-subscription-store])",
        "Processor: by-customer-subscription-join-foreign (stores: [customers-store])",
        "Processor: by-customer-foreign-join-subscription (stores: [by-customer-subscription-store])",
        "Sink: by-customer-subscription-response-sink (topic: fk-named-by-customer-subscription-response-topic)",
        "Source: by-customer-subscription-response-source (topics: [fk-named-by-customer-subscription-response-topic])",
        "Processor: by-customer-subscription-response-resolver (stores: [orders-store])",
        "Processor: by-customer-result (stores: [])",
        "Store: by-customer-subscription-store (key-value; changelog: fk-named-by-customer-subscription-store-changelog)",
        // The unnamed join after it, numbered as in Java.
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000021 (stores: [])",
        "Sink: KTABLE-SINK-0000000022 (topic: fk-named-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000020-topic)",
        "Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000025 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000024])",
        "Processor: KTABLE-FK-JOIN-OUTPUT-0000000032 (stores: [])",
        "Processor: KTABLE-TOSTREAM-0000000034 (stores: [])",
        // The Java equivalent names the join; nothing about it is flagged.
        "join(otherTable, foreignKeyExtractor, joiner, TableJoined.as(\"by-customer\"))",
    ] {
        assert!(text.contains(line), "describe() lacks {line:?}:\n{text}");
    }
    assert!(
        !text.contains("! foreign-key join: its subscription store `by-customer"),
        "{text}"
    );
}

#[test]
fn a_named_join_joins_as_an_unnamed_one() {
    let driver = TestDriver::<NamedOrders>::new();
    let orders = driver.input_topic(NamedOrders::ORDERS);
    let customers = driver.input_topic(NamedOrders::CUSTOMERS);
    customers.pipe_input(s("c1"), s("alice"));
    orders.pipe_input(s("o1"), s("c1:book"));
    orders.pipe_input(s("o1"), s("c2:pen")); // a foreign key without a customer
    customers.pipe_input(s("c2"), s("bob"));
    assert_eq!(
        driver
            .output_topic(NamedOrders::INNER)
            .read_key_values_to_list(),
        [
            (s("o1"), some("c1:book for alice")),
            (s("o1"), None),
            (s("o1"), some("c2:pen for bob")),
        ]
    );
}

topology! {
    /// A foreign-key extractor that sees the row's key (KIP-1104) and joiners that take it.
    pub KeyedOrders = "fk-orders-keyed" {
        let orders = table("keyed-orders", Utf8, Utf8, "keyed-orders-store");
        let customers = table("keyed-customers", Utf8, Utf8, "keyed-customers-store");
        // The order id is `<customer>-<n>`: the foreign key comes from the key.
        orders
            .join_on_foreign_key(
                customers,
                |id: &String, _order: &String| customer_of_id(id),
                |id, order, customer| format!("{id}:{order} for {customer}"),
            )
            .to_stream()
            .to("keyed-inner", Utf8, Nullable::<Utf8>);
        orders
            .left_join_on_foreign_key(
                customers,
                |id, _order| customer_of_id(id),
                |id: &String, order: &String, customer: Option<&String>| {
                    format!("{id}:{order} for {}", customer.map_or("?", |c| c.as_str()))
                },
            )
            .to_stream()
            .to("keyed-left", Utf8, Nullable::<Utf8>);
    }
}

/// `"c1-7"` → `"c1"`.
fn customer_of_id(id: &str) -> String {
    id.split('-').next().unwrap_or_default().to_owned()
}

#[test]
fn extractor_and_joiner_with_the_key() {
    let driver = TestDriver::<KeyedOrders>::new();
    let orders = driver.input_topic(KeyedOrders::KEYED_ORDERS);
    let customers = driver.input_topic(KeyedOrders::KEYED_CUSTOMERS);
    orders.pipe_input(s("c1-1"), s("book"));
    customers.pipe_input(s("c1"), s("alice"));
    orders.pipe_input(s("c2-1"), s("pen"));
    customers.pipe_input(s("c1"), s("alicia"));
    assert_eq!(
        driver
            .output_topic(KeyedOrders::KEYED_INNER)
            .read_key_values_to_list(),
        [
            (s("c1-1"), some("c1-1:book for alice")),
            (s("c1-1"), some("c1-1:book for alicia")),
        ]
    );
    assert_eq!(
        driver
            .output_topic(KeyedOrders::KEYED_LEFT)
            .read_key_values_to_list(),
        [
            (s("c1-1"), some("c1-1:book for ?")),
            (s("c1-1"), some("c1-1:book for alice")),
            (s("c2-1"), some("c2-1:pen for ?")),
            (s("c1-1"), some("c1-1:book for alicia")),
        ]
    );
}
