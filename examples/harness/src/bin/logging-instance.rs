//! One instance of the store logging broker test (`tests/kafka_store_logging.rs`): clicks
//! counted in a store with a changelog and in two without (`with_logging_disabled()` on an
//! aggregation's store and on a store declared for `process(..)`), run on
//! Kafka with settings from the environment (see [`dekaf_streams_examples::runner`]) until
//! SIGTERM, or a SIGKILL by the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;

topology! {
    /// Clicks per user, counted three times: `kept` has a changelog, `scratch` and `by-hand`
    /// (counted by a processor) none.
    pub StoreLogging = "klg-eos" {
        store("by-hand", Utf8, I64).with_logging_disabled();
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
        clicks
            .process(["by-hand"], |ctx, user: String, _click: String| {
                let n = ctx.by_hand().get(&user)?.unwrap_or(0) + 1;
                ctx.by_hand().put(&user, &n)?;
                Ok(Some((user, n)))
            })
            .to("klg-by-hand", Utf8, I64);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(StoreLogging).await
}
