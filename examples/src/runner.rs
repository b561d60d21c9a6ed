//! Running an example topology on a real broker, configured from the environment.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `DEKAF_BOOTSTRAP` | bootstrap servers | `127.0.0.1:9092` |
//! | `DEKAF_GUARANTEE` | `exactly_once` or `at_least_once` | `exactly_once` |
//! | `DEKAF_THREADS` | processing threads (group members) | `1` |
//! | `DEKAF_COMMIT_INTERVAL_MS` | commit interval | `100` |
//! | `RUST_LOG` | log filter | `info` |

use std::process::ExitCode;
use std::time::Duration;

use dekaf_streams::streams::{KafkaStreams, ProcessingGuarantee, shutdown_signal};
use dekaf_streams::task::Topology;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

/// Runs `topology` until SIGINT or SIGTERM; the exit code says whether it failed.
pub async fn run_on_kafka<T: Topology>(topology: T) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let guarantee = match env_or("DEKAF_GUARANTEE", "exactly_once").as_str() {
        "exactly_once" => ProcessingGuarantee::ExactlyOnce,
        "at_least_once" => ProcessingGuarantee::AtLeastOnce,
        other => {
            eprintln!("DEKAF_GUARANTEE={other}: use exactly_once or at_least_once");
            return ExitCode::from(2);
        }
    };
    let threads = match env_or("DEKAF_THREADS", "1").parse() {
        Ok(n) => n,
        Err(_) => {
            eprintln!("DEKAF_THREADS must be a number");
            return ExitCode::from(2);
        }
    };
    let commit_ms = match env_or("DEKAF_COMMIT_INTERVAL_MS", "100").parse() {
        Ok(n) => n,
        Err(_) => {
            eprintln!("DEKAF_COMMIT_INTERVAL_MS must be a number");
            return ExitCode::from(2);
        }
    };
    let streams = KafkaStreams::builder(topology)
        .bootstrap_servers(env_or("DEKAF_BOOTSTRAP", "127.0.0.1:9092"))
        .processing_guarantee(guarantee)
        .threads(threads)
        .commit_interval(Duration::from_millis(commit_ms))
        .build();
    let streams = match streams {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match streams.run(shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
