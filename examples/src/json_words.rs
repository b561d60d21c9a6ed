//! Word count over JSON Schema records through a schema registry (feature `json-schema`):
//! sentences in (written by any Confluent-compatible JSON Schema serializer), counts out, both
//! framed in the Confluent wire format and validated against their schemas, which schemars
//! derives from the types.
//!
//! ```no_run
//! use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
//! use dekaf_streams_examples::json_words::JsonWordCount;
//!
//! let registry = SchemaRegistry::new(RegistryConfig::new("http://127.0.0.1:8480/apis/ccompat/v7"));
//! let streams = dekaf_streams::KafkaStreams::builder(JsonWordCount)
//!     .bootstrap_servers("127.0.0.1:9092")
//!     .serde_state(registry)
//!     .build();
//! ```

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::JsonSchema;
use serde::{Deserialize, Serialize};

/// A sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sentence {
    /// The words, separated by spaces.
    pub text: String,
}

/// The count of a word so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WordCount {
    /// The word.
    pub word: String,
    /// How often it was seen.
    pub count: i64,
}

topology! {
    /// Counts the words of JSON Schema sentences and writes JSON Schema counts.
    pub JsonWordCount = "json-wc" {
        stream("json-wc-sentences", Utf8, JsonSchema::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("json-wc-counts", Utf8, JsonSchema::<WordCount>);
    }
}
