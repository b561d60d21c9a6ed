//! The error handler through the TestDriver.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::dead_letters::{Payment, Payments};

#[test]
fn bad_records_go_to_dead_letter_topics() {
    let driver = TestDriver::<Payments>::new();
    let payments = driver.input_topic(Payments::PAYMENTS);
    let amounts = driver.output_topic(Payments::PAYMENT_AMOUNTS);
    let dead = driver.output_topic(TopicRef::new::<Utf8, Bytes>("payments-dead-letter"));
    let rejected = driver.output_topic(TopicRef::new::<Utf8, Json<Payment>>("payments-rejected"));

    payments.pipe_input_at("acct-1".into(), Payment { amount_cents: 250 }, 1);
    payments.pipe_raw(Some(b"acct-2"), Some(b"{not json"), 2);
    payments.pipe_record_at(
        "acct-3".into(),
        Payment { amount_cents: -5 },
        3,
        Headers::new().with("trace", "abc"),
    );
    payments.pipe_input_at("acct-4".into(), Payment { amount_cents: 100 }, 4);

    assert_eq!(
        amounts.read_key_values_to_list(),
        vec![("acct-1".to_owned(), 250), ("acct-4".to_owned(), 100)]
    );
    let d = dead.read_record().expect("a dead letter");
    assert_eq!(
        (d.key.as_str(), d.value.as_slice(), d.timestamp),
        ("acct-2", &b"{not json"[..], 2)
    );
    assert!(dead.is_empty());
    let r = rejected.read_record().expect("a rejected payment");
    assert_eq!(
        (r.key.as_str(), r.value.amount_cents, r.timestamp),
        ("acct-3", -5, 3)
    );
    assert_eq!(r.headers.last("trace"), Some(Some(&b"abc"[..])));
    assert_eq!(driver.records_skipped(), 2);
    assert!(
        Payments::INFO.subtopologies[0]
            .sink_topics
            .contains(&"payments-dead-letter")
    );
}
