//! Word count on Kafka: reads `sentences`, writes `word-counts`.
//!
//! ```text
//! DEKAF_BOOTSTRAP=127.0.0.1:9092 cargo run -p dekaf-streams-examples --bin word-count
//! ```
//! See [`dekaf_streams_examples::runner`] for the settings.

use std::process::ExitCode;

use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_examples::word_count::WordCount;

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(WordCount).await
}
