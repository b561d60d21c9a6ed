//! Result timestamps of table operators in the TestDriver, exact for every output record, as
//! Kafka Streams 4.4 stamps them from its timestamped stores:
//! - table-table joins (`KTableKTable{Inner,Left,Right,Outer}Join`): the larger of the update's
//!   timestamp and the partner's stored one, the update's when there is no partner; a joined
//!   table read through its value getter carries the larger of both sides' timestamps;
//! - re-grouped aggregations (`KTableAggregate`, `KTableReduce`): the larger of the update's
//!   and the stored aggregate's;
//! - foreign-key joins: a subscription's answer the larger of the left row's and the right
//!   row's (`SubscriptionJoinProcessorSupplier`), a right row's change its own
//!   (`ForeignTableJoinProcessorSupplier`);
//! - filters, `map_values`, `to_stream()` and the table sources keep the update's timestamp.
//!
//! Updates arrive out of order on purpose: an older update of one side must still produce a
//! result stamped with the newer partner's time. Restores must bring the stored timestamps back
//! from the changelog records.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::{TestDriver, TestRecord};

fn opt(x: Option<&String>) -> String {
    x.map_or("-".to_owned(), Clone::clone)
}

/// `"c1:book"` → `"c1"`.
fn customer_of(order: &str) -> String {
    order.split(':').next().unwrap_or_default().to_owned()
}

topology! {
    /// The three joins of two tables, a join of a joined table, a filtered and mapped table,
    /// a re-grouped count and reduce, and a foreign-key join.
    pub Stamps = "table-stamps" {
        let left = table("left", Utf8, Utf8, "left-store");
        let right = table("right", Utf8, Utf8, "right-store");
        let third = table("third", Utf8, Utf8, "third-store");
        left.join(right, |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream()
            .to("inner", Utf8, Nullable::<Utf8>);
        left.left_join(right, |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)))
            .to_stream()
            .to("left-out", Utf8, Nullable::<Utf8>);
        left.outer_join(right, |l: Option<&String>, r: Option<&String>| format!("{}+{}", opt(l), opt(r)))
            .to_stream()
            .to("outer", Utf8, Nullable::<Utf8>);
        // `third` joined with the joined table: an update of `third` reads the join through
        // its value getter.
        let both = left.join(right, |l: &String, r: &String| format!("{l}+{r}"));
        third.join(both, |t: &String, lr: &String| format!("{t}/{lr}"))
            .to_stream()
            .to("chained", Utf8, Nullable::<Utf8>);
        left.filter(|_k: &String, v: &String| !v.starts_with('x'))
            .map_values(|v: String| v.to_uppercase())
            .to_stream()
            .to("mapped", Utf8, Nullable::<Utf8>);
        let owners = table("owners", Utf8, Utf8);
        owners
            .group_by(|car: &String, owner: String| (owner, car.clone()), Utf8, Utf8)
            .count("cars-per-owner")
            .to_stream()
            .to("cars-per-owner-out", Utf8, Nullable::<I64>);
        let balances = table("balances", Utf8, I64);
        balances
            .group_by(|account: &String, amount: i64| (account[..1].to_owned(), amount), Utf8, I64)
            .reduce("region-balance", |sum, v| sum + v, |sum, v| sum - v)
            .to_stream()
            .to("region-balance-out", Utf8, Nullable::<I64>);
        let orders = table("orders", Utf8, Utf8, "orders-store");
        let customers = table("customers", Utf8, Utf8, "customers-store");
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, customer: Option<&String>| {
                    format!("{order} for {}", customer.map_or("?", |c| c.as_str()))
                },
            )
            .to_stream()
            .to("fk-out", Utf8, Nullable::<Utf8>);
        stream("events", Utf8, Utf8)
            .to_table("events-table")
            .join(right, |e: &String, r: &String| format!("{e}*{r}"))
            .to_stream()
            .to("events-joined", Utf8, Nullable::<Utf8>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

/// (key, value, timestamp) of each record.
fn stamped<V>(records: Vec<TestRecord<String, V>>) -> Vec<(String, V, i64)> {
    records
        .into_iter()
        .map(|r| (r.key, r.value, r.timestamp))
        .collect()
}

fn read(
    driver: &TestDriver<Stamps>,
    topic: TopicRef<String, Option<String>>,
) -> Vec<(String, Option<String>, i64)> {
    stamped(driver.output_topic(topic).read_records_to_list())
}

fn some(x: &str) -> Option<String> {
    Some(x.to_owned())
}

/// Updates of both sides, several out of order.
fn drive(driver: &TestDriver<Stamps>) {
    let left = driver.input_topic(Stamps::LEFT);
    let right = driver.input_topic(Stamps::RIGHT);
    left.pipe_input_at(s("a"), s("l1"), 10); // 1
    right.pipe_input_at(s("a"), s("r1"), 5); // 2: older than its partner
    left.pipe_input_at(s("a"), s("l2"), 3); // 3: older than its partner
    right.pipe_input_at(s("a"), s("r2"), 20); // 4
    right.pipe_tombstone(s("a"), 7); // 5: a delete older than its partner
    left.pipe_tombstone(s("a"), 1); // 6: no partner left
    right.pipe_input_at(s("b"), s("rb"), 40); // 7: no partner
}

#[test]
fn inner_join_results_carry_the_larger_of_both_sides_timestamps() {
    let driver = TestDriver::<Stamps>::new();
    drive(&driver);
    assert_eq!(
        read(&driver, Stamps::INNER),
        [
            (s("a"), some("l1+r1"), 10), // 2: max(5, left's 10)
            (s("a"), some("l2+r1"), 5),  // 3: max(3, right's 5)
            (s("a"), some("l2+r2"), 20), // 4: max(20, left's 3)
            (s("a"), None, 7),           // 5: max(7, left's 3)
        ]
    );
}

#[test]
fn left_join_results_carry_the_update_time_without_a_partner() {
    let driver = TestDriver::<Stamps>::new();
    drive(&driver);
    assert_eq!(
        read(&driver, Stamps::LEFT_OUT),
        [
            (s("a"), some("l1+-"), 10),  // 1: no partner, the update's
            (s("a"), some("l1+r1"), 10), // 2: KTableKTableRightJoin, max(5, left's 10)
            (s("a"), some("l2+r1"), 5),  // 3: max(3, right's 5)
            (s("a"), some("l2+r2"), 20), // 4
            (s("a"), some("l2+-"), 7),   // 5: max(7, left's 3)
            (s("a"), None, 1),           // 6: no partner, the update's
        ]
    );
}

#[test]
fn outer_join_results_carry_the_larger_timestamp_of_the_sides_present() {
    let driver = TestDriver::<Stamps>::new();
    drive(&driver);
    assert_eq!(
        read(&driver, Stamps::OUTER),
        [
            (s("a"), some("l1+-"), 10),
            (s("a"), some("l1+r1"), 10),
            (s("a"), some("l2+r1"), 5),
            (s("a"), some("l2+r2"), 20),
            (s("a"), some("l2+-"), 7),
            (s("a"), None, 1),
            (s("b"), some("-+rb"), 40),
        ]
    );
}

#[test]
fn a_joined_table_read_through_its_getter_carries_both_sides_timestamps() {
    let driver = TestDriver::<Stamps>::new();
    let left = driver.input_topic(Stamps::LEFT);
    let right = driver.input_topic(Stamps::RIGHT);
    let third = driver.input_topic(Stamps::THIRD);
    left.pipe_input_at(s("a"), s("l1"), 30);
    right.pipe_input_at(s("a"), s("r1"), 50);
    // The join's value getter: max(30, 50); the update's 10 is older.
    third.pipe_input_at(s("a"), s("t1"), 10);
    // The joined table's change (left at 40, right's 50) against third's 10.
    left.pipe_input_at(s("a"), s("l2"), 40);
    // Newer than both.
    third.pipe_input_at(s("a"), s("t2"), 60);
    assert_eq!(
        read(&driver, Stamps::CHAINED),
        [
            (s("a"), some("t1/l1+r1"), 50),
            (s("a"), some("t1/l2+r1"), 50),
            (s("a"), some("t2/l2+r1"), 60),
        ]
    );
}

#[test]
fn filters_and_mappers_keep_the_update_timestamp() {
    let driver = TestDriver::<Stamps>::new();
    let left = driver.input_topic(Stamps::LEFT);
    left.pipe_input_at(s("a"), s("one"), 30);
    left.pipe_input_at(s("a"), s("x-filtered"), 20);
    left.pipe_input_at(s("a"), s("two"), 10);
    assert_eq!(
        read(&driver, Stamps::MAPPED),
        [
            (s("a"), some("ONE"), 30),
            (s("a"), None, 20), // the filtered-out key's tombstone
            (s("a"), some("TWO"), 10),
        ]
    );
}

#[test]
fn regrouped_aggregations_carry_the_larger_of_the_update_and_the_aggregate() {
    let driver = TestDriver::<Stamps>::new();
    let owners = driver.input_topic(Stamps::OWNERS);
    owners.pipe_input_at(s("car1"), s("alice"), 10);
    owners.pipe_input_at(s("car2"), s("alice"), 5); // older than alice's aggregate
    owners.pipe_input_at(s("car1"), s("bob"), 20); // moves: subtract at alice, add at bob
    owners.pipe_input_at(s("car3"), s("bob"), 15);
    owners.pipe_tombstone(s("car2"), 8);
    let counts = stamped(
        driver
            .output_topic(Stamps::CARS_PER_OWNER_OUT)
            .read_records_to_list(),
    );
    assert_eq!(
        counts,
        [
            (s("alice"), Some(1), 10),
            (s("alice"), Some(2), 10), // max(5, 10)
            (s("alice"), Some(1), 20), // the subtraction: max(20, 10)
            (s("bob"), Some(1), 20),   // a new aggregate: the update's
            (s("bob"), Some(2), 20),   // max(15, 20)
            (s("alice"), Some(0), 20), // max(8, alice's 20)
        ]
    );

    let balances = driver.input_topic(Stamps::BALANCES);
    balances.pipe_input_at(s("e1"), 100, 50);
    balances.pipe_input_at(s("e2"), 7, 40);
    balances.pipe_input_at(s("e1"), 90, 60);
    let sums = stamped(
        driver
            .output_topic(Stamps::REGION_BALANCE_OUT)
            .read_records_to_list(),
    );
    assert_eq!(
        sums,
        [
            (s("e"), Some(100), 50),
            (s("e"), Some(107), 50), // max(40, 50)
            (s("e"), Some(97), 60),  // one change (same group): max(60, 50)
        ]
    );
}

#[test]
fn foreign_key_join_results_are_stamped_as_kafka_streams_stamps_them() {
    let driver = TestDriver::<Stamps>::new();
    let orders = driver.input_topic(Stamps::ORDERS);
    let customers = driver.input_topic(Stamps::CUSTOMERS);
    customers.pipe_input_at(s("c1"), s("Alice"), 20);
    // The subscription's answer: max(order's 10, customer's 20).
    orders.pipe_input_at(s("o1"), s("c1:book"), 10);
    // A customer's change answers its subscribers with the change's own time (4.4's
    // ForeignTableJoinProcessorSupplier forwards the right record's timestamp).
    customers.pipe_input_at(s("c1"), s("Alicia"), 15);
    // A newer order: max(30, customer's 15).
    orders.pipe_input_at(s("o1"), s("c1:pen"), 30);
    // No customer: the order's own time.
    orders.pipe_input_at(s("o2"), s("c9:ink"), 12);
    assert_eq!(
        read(&driver, Stamps::FK_OUT),
        [
            (s("o1"), some("c1:book for Alice"), 20),
            (s("o1"), some("c1:book for Alicia"), 15),
            (s("o1"), some("c1:pen for Alicia"), 30),
            (s("o2"), some("c9:ink for ?"), 12),
        ]
    );
}

#[test]
fn restored_stores_keep_their_timestamps_and_changelogs_carry_plain_values() {
    let driver = TestDriver::<Stamps>::new();
    let events = driver.input_topic(Stamps::EVENTS);
    let right = driver.input_topic(Stamps::RIGHT);
    events.pipe_input_at(s("a"), s("e1"), 100);
    right.pipe_input_at(s("b"), s("rb"), 300);
    // The to_table store's changelog: the plain value, stamped with the record's time, as
    // Kafka Streams' ChangeLoggingTimestampedKeyValueBytesStore writes it.
    let changelog = driver.changelog("table-stamps-events-table-changelog");
    assert_eq!(changelog.len(), 1);
    assert_eq!(changelog[0].value.as_deref(), Some(&b"e1"[..]));
    assert_eq!(changelog[0].timestamp, 100);
    // Rebuilt from the changelog (to_table) and the source topic (the right table).
    driver.clear_and_restore().expect("restore");
    // Older than the restored event: the result carries the event's 100.
    right.pipe_input_at(s("a"), s("ra"), 50);
    // Older than the restored right row: the result carries its 300.
    events.pipe_input_at(s("b"), s("e2"), 200);
    assert_eq!(
        read(&driver, Stamps::EVENTS_JOINED),
        [(s("a"), some("e1*ra"), 100), (s("b"), some("e2*rb"), 300)]
    );
    // The typed handle reads the plain value.
    let store = driver.key_value_store(Stamps::EVENTS_TABLE);
    assert_eq!(store.get(&s("a")), Some(s("e1")));
    assert_eq!(store.get(&s("b")), Some(s("e2")));
}
