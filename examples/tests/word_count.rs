//! Word count through the TestDriver, and its description as a snapshot.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::word_count::WordCount;

#[test]
fn counts_words() {
    let driver = TestDriver::<WordCount>::new();
    let sentences = driver.input_topic(WordCount::SENTENCES);
    let counts = driver.output_topic(WordCount::WORD_COUNTS);
    sentences.pipe_input("s1".to_owned(), "the quick fox".to_owned());
    sentences.pipe_input("s2".to_owned(), "the lazy dog".to_owned());
    assert_eq!(
        counts.read_key_values_to_list(),
        [
            ("the", 1),
            ("quick", 1),
            ("fox", 1),
            ("the", 2),
            ("lazy", 1),
            ("dog", 1)
        ]
        .map(|(w, c)| (w.to_owned(), c))
    );
    let store = driver.key_value_store(WordCount::COUNTS);
    assert_eq!(store.get(&"the".to_owned()), Some(2));
    assert_eq!(store.len(), 5);
    assert_eq!(driver.changelog("word-count-counts-changelog").len(), 6);
}

#[test]
fn description_snapshot() {
    let expected = include_str!("word_count.describe.txt");
    assert_eq!(
        WordCount::describe(),
        expected,
        "\n--- actual ---\n{}",
        WordCount::describe()
    );
}

#[test]
fn topology_info() {
    let info = WordCount::INFO;
    assert_eq!(info.application_id, "word-count");
    let [s0, s1] = info.subtopologies else {
        panic!("two subtopologies")
    };
    assert_eq!(s0.source_topics, ["sentences"]);
    assert_eq!(
        s0.repartition_sink_topics,
        ["word-count-counts-repartition"]
    );
    assert!(s0.stores.is_empty());
    assert_eq!(
        s1.repartition_source_topics[0].name,
        "word-count-counts-repartition"
    );
    assert_eq!(
        s1.repartition_source_topics[0].configs,
        [
            ("cleanup.policy", "delete"),
            ("message.timestamp.type", "CreateTime"),
            ("retention.ms", "-1"),
            ("segment.bytes", "52428800"),
        ]
    );
    assert_eq!(
        s1.state_changelog_topics[0].name,
        "word-count-counts-changelog"
    );
    assert_eq!(
        s1.state_changelog_topics[0].configs,
        [
            ("cleanup.policy", "compact"),
            ("message.timestamp.type", "CreateTime")
        ]
    );
    assert_eq!(s1.sink_topics, ["word-counts"]);
    assert_eq!(s1.stores[0].name, "counts");
}

topology! {
    /// A count straight off a source: its value is checked, never built.
    pub CountOnly = "count-only" {
        stream("co-in", Utf8, Utf8)
            .group_by_key()
            .count("co-counts")
            .to_stream()
            .to("co-out", Utf8, I64);
    }
}

#[test]
fn a_counted_value_that_does_not_deserialize_still_fails_its_record() {
    use dekaf_streams::testing::RawRecord;
    let driver = TestDriver::<CountOnly>::new();
    let raw = |value: Option<&[u8]>| RawRecord {
        key: Some(b"a".to_vec()),
        value: value.map(<[u8]>::to_vec),
        timestamp: 1,
        headers: Headers::default(),
    };
    // Not UTF-8: the value serde refuses it, as when the value was decoded.
    let err = driver
        .try_pipe_raw("co-in", raw(Some(&[0xff, 0xfe][..])))
        .expect_err("a value Utf8 refuses fails the record");
    assert!(
        err.to_string().contains("value deserialization"),
        "unexpected error: {err}"
    );
    // A null value is dropped and counted, as Kafka Streams' `KStreamAggregate` drops it.
    driver
        .try_pipe_raw("co-in", raw(None))
        .expect("a null value is dropped");
    assert_eq!(driver.records_dropped(), 1);
    driver
        .try_pipe_raw("co-in", raw(Some(b"fine")))
        .expect("a valid record");
    let counts = driver.output_topic(CountOnly::CO_OUT);
    assert_eq!(counts.read_key_values_to_list(), [("a".to_owned(), 1)]);
}
