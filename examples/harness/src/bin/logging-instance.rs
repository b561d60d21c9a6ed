//! One instance of the store logging broker test (`tests/kafka_store_logging.rs`): clicks
//! counted in a store with a changelog and in one without (`with_logging_disabled()`), run on
//! Kafka with settings from the environment (see [`dekaf_streams_examples::runner`]) until
//! SIGTERM, or a SIGKILL by the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;

topology! {
    /// Clicks per user, counted twice: `kept` has a changelog, `scratch` none.
    pub StoreLogging = "klg-eos" {
        let clicks = stream("klg-clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .count("kept")
            .to_stream()
            .to("klg-kept", Utf8, I64);
        clicks
            .group_by_key()
            .count("scratch")
            .with_logging_disabled()
            .to_stream()
            .to("klg-scratch", Utf8, I64);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(StoreLogging).await
}
