//! Re-grouped tables in the TestDriver: `table.group_by(..)` then `count`, `reduce(adder,
//! subtractor)` and `aggregate(init, adder, subtractor)`, with exact outputs after every
//! update, as Kafka Streams 4.4's `KTableRepartitionMap`, `KTableAggregate` and `KTableReduce`
//! (without a record cache) forward them: an update subtracts the old value from its old group
//! and adds the new one to its new group.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Cars per owner, the total balance per region, and the owners' names per region.
    pub Regroup = "regroup" {
        let owners = table("car-owners", Utf8, Utf8);
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
        balances
            .group_by(|account: &String, _amount: i64| (account[..1].to_owned(), account.clone()), Utf8, Utf8)
            .aggregate(
                "region-accounts",
                String::new,
                |_region: &String, account: String, agg: String| format!("{agg}+{account}"),
                |_region: &String, account: String, agg: String| agg.replace(&format!("+{account}"), ""),
                Utf8,
            )
            .to_stream()
            .to("region-accounts-out", Utf8, Nullable::<Utf8>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn count_moves_a_row_from_its_old_group_to_its_new_one() {
    let driver = TestDriver::<Regroup>::new();
    let owners = driver.input_topic(Regroup::CAR_OWNERS);
    let out = driver.output_topic(Regroup::CARS_PER_OWNER_OUT);
    owners.pipe_input(s("c1"), s("alice"));
    owners.pipe_input(s("c2"), s("alice"));
    owners.pipe_input(s("c1"), s("bob")); // subtract from alice first, then add to bob
    owners.pipe_tombstone(s("c2"), 0); // alice's count goes to 0 and stays
    owners.pipe_input(s("c1"), s("bob")); // same group: one change, subtract then add
    owners.pipe_tombstone(s("c9"), 0); // a delete of an absent row: nothing
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (s("alice"), Some(1)),
            (s("alice"), Some(2)),
            (s("alice"), Some(1)),
            (s("bob"), Some(1)),
            (s("alice"), Some(0)),
            (s("bob"), Some(1)),
        ]
    );
    let store = driver.key_value_store(Regroup::CARS_PER_OWNER);
    assert_eq!(store.all(), [(s("alice"), 0), (s("bob"), 1)]);
}

#[test]
fn reduce_subtracts_the_old_value_and_adds_the_new() {
    let driver = TestDriver::<Regroup>::new();
    let balances = driver.input_topic(Regroup::BALANCES);
    let out = driver.output_topic(Regroup::REGION_BALANCE_OUT);
    balances.pipe_input(s("a1"), 10); // the first value becomes the aggregate
    balances.pipe_input(s("a2"), 5);
    balances.pipe_input(s("a1"), 7); // same region: 15 - 10 + 7
    balances.pipe_input(s("b1"), 3);
    balances.pipe_tombstone(s("a2"), 0);
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (s("a"), Some(10)),
            (s("a"), Some(15)),
            (s("a"), Some(12)),
            (s("b"), Some(3)),
            (s("a"), Some(7)),
        ]
    );
}

#[test]
fn aggregate_uses_initializer_adder_and_subtractor() {
    let driver = TestDriver::<Regroup>::new();
    let balances = driver.input_topic(Regroup::BALANCES);
    let out = driver.output_topic(Regroup::REGION_ACCOUNTS_OUT);
    balances.pipe_input(s("a1"), 1);
    balances.pipe_input(s("a2"), 1);
    balances.pipe_input(s("a1"), 2); // same pair key and value: subtract a1, add a1
    balances.pipe_tombstone(s("a1"), 0);
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (s("a"), Some(s("+a1"))),
            (s("a"), Some(s("+a1+a2"))),
            (s("a"), Some(s("+a2+a1"))),
            (s("a"), Some(s("+a2"))),
        ]
    );
}

#[test]
fn describe_names_the_regrouping_as_kafka_streams() {
    let d = <Regroup as dekaf_streams::task::Topology>::DESCRIPTION;
    for line in [
        // Each table takes two indexes (KSTREAM-SOURCE, KTABLE-SOURCE), as in Kafka Streams.
        "Processor: KTABLE-SOURCE-0000000001 (stores: [car-owners])",
        "Processor: KTABLE-SELECT-0000000002 (stores: [])",
        "Sink: KSTREAM-SINK-0000000003 (topic: regroup-cars-per-owner-repartition)",
        "Source: KSTREAM-SOURCE-0000000004 (topics: [regroup-cars-per-owner-repartition])",
        "Processor: KTABLE-AGGREGATE-0000000005 (stores: [cars-per-owner])",
        "Processor: KTABLE-REDUCE-0000000013 (stores: [region-balance])",
    ] {
        assert!(d.contains(line), "missing {line:?} in\n{d}");
    }
}
