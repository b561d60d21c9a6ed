//! The processor API through the TestDriver.

use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::dedup::Dedup;

#[test]
fn forwards_each_id_once() {
    let driver = TestDriver::<Dedup>::new();
    let events = driver.input_topic(Dedup::EVENTS);
    let unique = driver.output_topic(Dedup::UNIQUE_EVENTS);
    events.pipe_input_at("e1".into(), "a".into(), 10);
    events.pipe_input_at("e2".into(), "b".into(), 20);
    events.pipe_input_at("e1".into(), "a again".into(), 30);
    events.pipe_input_at("e3".into(), "c".into(), 40);
    events.pipe_input_at("e2".into(), "b again".into(), 50);
    assert_eq!(
        unique.read_key_values_to_list(),
        [("e1", "a"), ("e2", "b"), ("e3", "c")].map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    let seen = driver.key_value_store(Dedup::SEEN_IDS);
    assert_eq!(
        seen.all(),
        [("e1", 10), ("e2", 20), ("e3", 40)].map(|(k, t)| (k.to_owned(), t))
    );
    // Every put went to the changelog, on the task's partition.
    assert_eq!(driver.changelog("dedup-seen-ids-changelog").len(), 3);

    // Dropping state and restoring it from the changelog gives the same store.
    driver.clear_and_restore().expect("restore");
    assert_eq!(seen.get(&"e3".to_owned()), Some(40));
    events.pipe_input_at("e3".into(), "c again".into(), 60);
    assert!(unique.is_empty());
}
