//! Word count: split sentences into words, count each word, write the running counts.
//!
//! `group_by` changes the key, so the topology has two subtopologies joined by the repartition
//! topic `word-count-counts-repartition`; the `counts` store is changelogged to
//! `word-count-counts-changelog`.

use dekaf_streams::prelude::*;

topology! {
    /// Counts the words of every sentence.
    pub WordCount = "word-count" {
        stream("sentences", Utf8, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("word-counts", Utf8, I64);
    }
}
