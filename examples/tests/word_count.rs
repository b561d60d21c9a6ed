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
        [("the", 1), ("quick", 1), ("fox", 1), ("the", 2), ("lazy", 1), ("dog", 1)]
            .map(|(w, c)| (w.to_owned(), c))
    );
    let store = driver.key_value_store(WordCount::COUNTS);
    assert_eq!(store.get(&"the".to_owned()), Some(2));
    assert_eq!(store.len(), 5);
    assert_eq!(driver.changelog("word-count-counts-changelog").len(), 6);
}
