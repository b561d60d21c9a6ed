//! One instance of the punctuation broker test (`tests/kafka_punctuation.rs`): amounts summed
//! per key in a store and flushed by punctuations (on stream time every second and on the wall
//! clock every 200 ms), run on Kafka with settings from the environment (see
//! [`dekaf_streams_examples::runner`]) until SIGTERM, or a SIGKILL by the test.
//! `punctuate-instance process_values` runs the processor API's other broker test instead
//! ([`dekaf_streams_harness::e2e::ProcessValuesEos`]), `punctuate-instance process_windows`
//! its window and session store test ([`dekaf_streams_harness::e2e::ProcessWindowsEos`]).

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_harness::e2e::{ProcessValuesEos, ProcessWindowsEos};

topology! {
    /// Sums `pt-amounts` per key into `pt-pending`; each punctuation forwards every pending
    /// sum to `pt-flushed` and deletes it, so the flushed sums of a key add up to its input.
    pub PunctuateEos = "pt-eos" {
        store("pt-pending", Utf8, I64);
        stream("pt-amounts", Utf8, I64)
            .process(["pt-pending"], |ctx, key, amount| {
                let sum = ctx.pt_pending().get(&key)?.unwrap_or(0) + amount;
                ctx.pt_pending().put(&key, &sum)?;
                Ok(None::<(String, i64)>)
            },
            schedule(Duration::from_secs(1), StreamTime, |ctx, _stream_time| {
                let pending = ctx.pt_pending().all()?;
                for (key, _) in &pending {
                    ctx.pt_pending().delete(key)?;
                }
                Ok(pending)
            }),
            schedule(Duration::from_millis(200), WallClock, |ctx, _now| {
                let pending = ctx.pt_pending().all()?;
                for (key, _) in &pending {
                    ctx.pt_pending().delete(key)?;
                }
                Ok(pending)
            }))
            .to("pt-flushed", Utf8, I64);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("process_values") => run_on_kafka(ProcessValuesEos).await,
        Some("process_windows") => run_on_kafka(ProcessWindowsEos).await,
        _ => run_on_kafka(PunctuateEos).await,
    }
}
