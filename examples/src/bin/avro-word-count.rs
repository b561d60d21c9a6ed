//! Word count over Avro records through a schema registry (feature `avro`): reads Avro sentences
//! from `avro-wc-sentences`, writes Avro counts to `avro-wc-counts`, both in the Confluent wire
//! format, as [`dekaf_streams_examples::avro_words::AvroWordCount`].
//!
//! ```text
//! DEKAF_BOOTSTRAP=127.0.0.1:9092 DEKAF_REGISTRY_URL=http://127.0.0.1:8480/apis/ccompat/v7 \
//!     cargo run -p dekaf-streams-examples --features avro --bin avro-word-count
//! ```
//! `DEKAF_REGISTRY_URL` is the registry's Confluent API (default the one above,
//! `scripts/registry.sh env` prints it); see [`dekaf_streams_examples::runner`] for the other
//! settings.

use std::process::ExitCode;

use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
use dekaf_streams_examples::avro_words::AvroWordCount;
use dekaf_streams_examples::runner::run_on_kafka_with;

#[tokio::main]
async fn main() -> ExitCode {
    let url = std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned());
    let registry = SchemaRegistry::new(RegistryConfig::new(url));
    run_on_kafka_with(AvroWordCount, |builder| builder.serde_state(registry)).await
}
