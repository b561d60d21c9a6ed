/// Counts the words of every sentence: stateless operators, a repartition and a cached count.
pub WordCount = "word-count" {
    stream("sentences", Utf8, Utf8)
        .filter(|_key, sentence| !sentence.is_empty())
        .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
        .peek(|_key, word| assert!(!word.is_empty()))
        .group_by(|_key, word| word.clone(), Utf8, Utf8)
        .count("counts")
        .to_stream()
        .to("word-counts", Utf8, I64);
}
