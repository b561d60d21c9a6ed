//! **The dekaf-streams slot of the end-to-end benchmarks.**
//!
//! The driver (`bench --systems dekaf,kstreams,ceiling`) runs this binary exactly as it runs the
//! Kafka Streams jar: same flags ([`SystemArgs`]), JSON event lines on stdout, a clean stop on
//! SIGTERM or after `--max-seconds`. The contract is in `benches/WORKLOADS.md`
//! ("System command line"). All that is missing is [`run_workload`]: build the workload's
//! topology with `topology!`, run it with `KafkaStreams::builder(..)` using the shared knobs,
//! and print the events. Everything else (input, measuring, comparing, RSS/CPU, report) is done.

use std::process::ExitCode;

use anyhow::{Result, bail};
use dekaf_streams as _;
use dekaf_streams_benches::args::{Flags, Mode, SystemArgs, emit_event};
use serde_json::json;

const USAGE: &str = "usage: dekaf-bench-app --workload stateless|wordcount|window|join \
--guarantee exactly_once|at_least_once --app-id ID --input-prefix P --output-topic T \
[--bootstrap 127.0.0.1:9092] [--threads 1] [--commit-interval-ms 100] [--linger-ms 5] \
[--batch-size 16384] [--state-dir DIR] [--max-seconds 600] [--mode run|restore]";

fn main() -> ExitCode {
    let result = Flags::parse(std::env::args().skip(1), USAGE)
        .and_then(|f| SystemArgs::from_flags(&f))
        .and_then(|args| run_workload(&args));
    match result {
        Ok(()) => {
            emit_event("stopped", json!({}));
            ExitCode::SUCCESS
        }
        Err(e) => {
            emit_event("error", json!({ "message": format!("{e:#}") }));
            eprintln!("dekaf-bench-app: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `args.workload` with dekaf-streams until SIGTERM or `args.max_seconds`.
///
/// To fill in (the runtime's owner), per WORKLOADS.md:
/// - the topology of `args.workload` reading `<input_prefix>-<topic>` and writing
///   `args.output_topic`, with the store/repartition names given there, so that internal topics
///   are `<app_id>-<name>-repartition` / `<app_id>-<store>-changelog`. If the topologies name
///   topics and the application id with literals, use the fixed names of WORKLOADS.md
///   (`dkb-wordcount-sentences`, `dkb-wordcount-out`, application id `dkb-wordcount`, …), run
///   the driver with `--fixed-names true`, and fail here if `args` names anything else;
/// - `KafkaStreams::builder(topology).bootstrap_servers(&args.bootstrap)`
///   `.application_id(&args.app_id)` (if overridable) `.threads(args.knobs.threads)`
///   `.processing_guarantee(..from args.guarantee..)`
///   `.commit_interval(Duration::from_millis(args.knobs.commit_interval_ms))`, producer
///   `linger.ms` = `args.knobs.linger_ms`, `batch.size` = `args.knobs.batch_size`,
///   `.state_dir(&args.state_dir)`;
/// - print `{"event":"running"}` once the group has assigned tasks and processing started;
/// - in [`Mode::Restore`]: print `{"event":"restored","records":N,"millis":M}` once every
///   store has been rebuilt from its changelog, then stop;
/// - stop cleanly on SIGTERM (e.g. `run(shutdown_signal())`) or after `args.max_seconds`.
fn run_workload(args: &SystemArgs) -> Result<()> {
    let _ = (Mode::Run, args);
    bail!(
        "dekaf-streams is not wired into the benchmark yet: implement run_workload in \
         benches/src/bin/dekaf-bench-app.rs (see benches/WORKLOADS.md); until then run the \
         driver without dekaf in --systems"
    )
}
