//! `print(..)`: every record written to standard output as Kafka Streams' `Printed.toSysOut()`
//! writes it (`[label]: key, value`, `null` for a missing part; the default label is the name of
//! the node the stream comes from), checked against what Kafka Streams 4.4 printed for the same
//! records. The records are printed by a child process (this test binary, running
//! [`child_prints_what_it_is_given`]), whose standard output the test reads.

use std::process::Command;

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

/// A value without `Display`: printed with `Debug`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Order {
    /// What is ordered.
    pub item: String,
    /// How many.
    pub quantity: u32,
}

topology! {
    /// Amounts printed twice (default label and a label of its own), orders once.
    pub Printing = "print-test" {
        let amounts = stream("amounts", Utf8, Nullable::<I64>);
        amounts.print();
        amounts.print("amounts");
        stream("orders", I64, Json::<Order>).print("orders");
    }
}

/// Set in the child's environment.
const CHILD: &str = "DEKAF_PRINT_TEST_CHILD";

/// In the child process only: pipes the records the parent checks.
#[test]
fn child_prints_what_it_is_given() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let driver = TestDriver::<Printing>::new();
    let amounts = driver.input_topic(Printing::AMOUNTS);
    amounts.pipe_input("a".to_owned(), Some(5));
    amounts.pipe_input("b".to_owned(), None);
    // A null key with a serde that has no null: the record takes the null path, printed.
    amounts.pipe_raw(None, Some(&7i64.to_be_bytes()), 0);
    let orders = driver.input_topic(Printing::ORDERS);
    orders.pipe_input(
        1,
        Order {
            item: "tea".to_owned(),
            quantity: 2,
        },
    );
}

#[test]
fn print_writes_each_record_as_kafka_streams_does() {
    let output = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "child_prints_what_it_is_given", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("the child runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let printed: Vec<&str> = stdout.lines().filter(|l| l.starts_with('[')).collect();
    // Kafka Streams 4.4 printed the same amounts (String, Long) this way.
    assert_eq!(
        printed,
        [
            "[KSTREAM-SOURCE-0000000000]: a, 5",
            "[amounts]: a, 5",
            "[KSTREAM-SOURCE-0000000000]: b, null",
            "[amounts]: b, null",
            "[KSTREAM-SOURCE-0000000000]: null, 7",
            "[amounts]: null, 7",
            "[orders]: 1, Order { item: \"tea\", quantity: 2 }",
        ],
        "{stdout}"
    );
    let description = Printing::describe();
    assert!(
        description.contains(
            "Processor: KSTREAM-PRINTER-0000000001 (stores: [])\n      --> none\n      <-- KSTREAM-SOURCE-0000000000"
        ),
        "{description}"
    );
}
