//! Running an example topology on a real broker, configured from the environment.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `DEKAF_BOOTSTRAP` | bootstrap servers | `127.0.0.1:9092` |
//! | `DEKAF_GUARANTEE` | `exactly_once` or `at_least_once` | `exactly_once` |
//! | `DEKAF_THREADS` | processing threads (group members) | `1` |
//! | `DEKAF_COMMIT_INTERVAL_MS` | commit interval | `100` |
//! | `DEKAF_TRANSACTION_TIMEOUT_MS` | transaction timeout | `10000` |
//! | `DEKAF_STATE_DIR` | keep stores on disk (LMDB) under this directory | unset: in memory |
//! | `DEKAF_CACHE_MAX_BYTES` | record cache of aggregations and tables (`0`: forward every update) | `10485760` (10 MiB) |
//! | `DEKAF_GROUP_INSTANCE_ID` | static membership: this instance's `group.instance.id` | unset: dynamic |
//! | `DEKAF_RDKAFKA_DEBUG` | librdkafka's `debug` property (e.g. `broker,eos,metadata`) | unset |
//! | `DEKAF_PROPERTIES` | more client properties, one `name=value` a line (e.g. `security.protocol=SASL_SSL`, `sasl.mechanism`, `sasl.username`, `sasl.password`, `ssl.ca.location`) | unset |
//! | `RUST_LOG` | log filter | `info` |

use std::process::ExitCode;
use std::time::Duration;

use dekaf_streams::task::Topology;
use dekaf_streams::{Builder, KafkaStreams, ProcessingGuarantee, shutdown_signal};

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

fn env_number(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("{name}={v}: expected a whole number")),
        Err(_) => Ok(default),
    }
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_logging() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
}

/// A builder of `topology` with the settings of the table above; `Err` says which variable is
/// wrong and how.
pub fn builder_from_env<T: Topology>(topology: T) -> Result<Builder<T>, String> {
    let guarantee = match env_or("DEKAF_GUARANTEE", "exactly_once").as_str() {
        "exactly_once" => ProcessingGuarantee::ExactlyOnce,
        "at_least_once" => ProcessingGuarantee::AtLeastOnce,
        other => {
            return Err(format!(
                "DEKAF_GUARANTEE={other}: use exactly_once or at_least_once"
            ));
        }
    };
    let threads = env_number("DEKAF_THREADS", 1)?;
    let commit_ms = env_number("DEKAF_COMMIT_INTERVAL_MS", 100)?;
    let txn_timeout_ms = env_number("DEKAF_TRANSACTION_TIMEOUT_MS", 10_000)?;
    let cache_bytes = env_number(
        "DEKAF_CACHE_MAX_BYTES",
        dekaf_streams::DEFAULT_CACHE_MAX_BYTES as u64,
    )?;
    let mut builder = KafkaStreams::builder(topology)
        .transaction_timeout(Duration::from_millis(txn_timeout_ms))
        .bootstrap_servers(env_or("DEKAF_BOOTSTRAP", "127.0.0.1:9092"))
        .processing_guarantee(guarantee)
        .threads(threads as usize)
        .commit_interval(Duration::from_millis(commit_ms))
        .cache_max_bytes(usize::try_from(cache_bytes).unwrap_or(usize::MAX));
    if let Ok(id) = std::env::var("DEKAF_GROUP_INSTANCE_ID") {
        builder = builder.group_instance_id(id);
    }
    if let Ok(contexts) = std::env::var("DEKAF_RDKAFKA_DEBUG") {
        builder = builder.property("debug", contexts);
    }
    if let Ok(dir) = std::env::var("DEKAF_STATE_DIR") {
        builder = builder.state_dir(dir);
    }
    if let Ok(properties) = std::env::var("DEKAF_PROPERTIES") {
        for line in properties.lines().filter(|l| !l.trim().is_empty()) {
            let Some((name, value)) = line.split_once('=') else {
                return Err(format!("DEKAF_PROPERTIES: `{line}` is not name=value"));
            };
            builder = builder.property(name.trim(), value.trim());
        }
    }
    Ok(builder)
}

/// Runs `topology` until SIGINT or SIGTERM; the exit code says whether it failed.
pub async fn run_on_kafka<T: Topology>(topology: T) -> ExitCode {
    run_on_kafka_with(topology, |builder| builder).await
}

/// Runs `topology` as [`run_on_kafka`], with `configure` applied to the builder from the
/// environment (e.g. to give it serde state: a schema registry).
pub async fn run_on_kafka_with<T: Topology>(
    topology: T,
    configure: impl FnOnce(Builder<T>) -> Builder<T>,
) -> ExitCode {
    init_logging();
    let streams = match builder_from_env(topology).map(|b| configure(b).build()) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("{e}");
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
