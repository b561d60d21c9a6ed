//! Word count over Avro records through a schema registry (feature `avro`): sentences in Avro
//! (`dekaf.it.Sentence`, written by any Confluent-compatible Avro serializer), counts out in
//! Avro (`dekaf.it.WordCount`), both framed in the Confluent wire format.
//!
//! The application gives the instance its [`SchemaRegistry`] as serde state:
//!
//! ```no_run
//! use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
//! use dekaf_streams_examples::avro_words::AvroWordCount;
//!
//! let registry = SchemaRegistry::new(RegistryConfig::new("http://127.0.0.1:8480/apis/ccompat/v7"));
//! let streams = dekaf_streams::KafkaStreams::builder(AvroWordCount)
//!     .bootstrap_servers("127.0.0.1:9092")
//!     .serde_state(registry)
//!     .build();
//! ```
//!
//! [`SchemaRegistry`]: dekaf_streams::serdes::registry::SchemaRegistry

use apache_avro::AvroSchema;
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::Avro;
use serde::{Deserialize, Serialize};

/// A sentence. Version 2 of the schema: `lang` was added with a default, so version-1 records
/// (`{text}` only) read as `lang = "en"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dekaf.it")]
pub struct Sentence {
    /// The words, separated by spaces.
    pub text: String,
    /// Its language.
    #[avro(default = r#""en""#)]
    pub lang: String,
}

/// The count of a word so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dekaf.it")]
pub struct WordCount {
    /// The word.
    pub word: String,
    /// How often it was seen.
    pub count: i64,
}

topology! {
    /// Counts the words of Avro sentences and writes Avro counts.
    pub AvroWordCount = "avro-wc" {
        stream("avro-wc-sentences", Utf8, Avro::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("avro-wc-counts", Utf8, Avro::<WordCount>);
    }
}
