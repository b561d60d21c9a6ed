//! `foreach(..)`: the closure sees every record, in order, and nothing is forwarded.

use std::sync::Mutex;

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

/// What the closure saw.
static SEEN: Mutex<Vec<(String, i64)>> = Mutex::new(Vec::new());

topology! {
    /// Amounts: every record is seen by `foreach`; the big ones are also written.
    pub Audit = "foreach-audit" {
        let amounts = stream("amounts", Utf8, I64);
        amounts.foreach(|key, amount| SEEN.lock().expect("lock").push((key.clone(), *amount)));
        amounts.filter(|_key, amount| *amount >= 10).to("big-amounts", Utf8, I64);
    }
}

#[test]
fn foreach_sees_every_record_and_forwards_nothing() {
    let driver = TestDriver::<Audit>::new();
    let amounts = driver.input_topic(Audit::AMOUNTS);
    let big = driver.output_topic(Audit::BIG_AMOUNTS);
    amounts.pipe_input("a".to_owned(), 5);
    amounts.pipe_input("b".to_owned(), 50);
    amounts.pipe_input("a".to_owned(), 7);
    assert_eq!(
        *SEEN.lock().expect("lock"),
        [("a", 5), ("b", 50), ("a", 7)].map(|(k, v)| (k.to_owned(), v))
    );
    // Only the filtered branch writes; foreach adds no topic.
    assert_eq!(big.read_key_values_to_list(), [("b".to_owned(), 50)]);
    assert_eq!(Audit::INFO.subtopologies[0].sink_topics, ["big-amounts"]);
    // Kafka Streams' node: a processor without children.
    let description = Audit::describe();
    assert!(
        description.contains(
            "Processor: KSTREAM-FOREACH-0000000001 (stores: [])\n      --> none\n      <-- KSTREAM-SOURCE-0000000000"
        ),
        "{description}"
    );
}
