//! Benchmarks of dekaf-streams.
//!
//! Besides the engine micro-benchmarks (`benches/benches/`), this crate holds the end-to-end
//! harness that runs dekaf-streams, Apache Kafka Streams 4.4 (`benches/kstreams/`) and a raw
//! rdkafka consume→produce loop (the ceiling) side by side on one local broker; the workloads
//! are specified in `benches/WORKLOADS.md`, the driver is `benches/run.sh`.
//!
//! Binaries (`src/bin/`): `bench` (the driver), `bench-gen` (input generator), `bench-ceiling`
//! (the ceiling), `bench-measure` (a standalone read_committed measurer), `dekaf-bench-app`
//! (the slot where dekaf-streams runs the workloads), `bench-recovery` (recovery after a
//! SIGKILL) and `bench-phases` (an exactly-once commit's phases from a dekaf-streams log).
//! [`readme`] makes the top-level README's figures from `results/latest.md`.
//! [`avro`] holds what the Avro word count (`avro_wordcount`) needs beside them: its record
//! types, the input framing and the reading of its output.

pub mod alloc;
pub mod args;
pub mod avro;
pub mod kafka;
pub mod measure;
pub mod procstat;
pub mod readme;
pub mod report;
pub mod systems;
pub mod workload;

/// Milliseconds since the Unix epoch (wall clock; Kafka record timestamps use the same clock).
pub fn now_ms() -> i64 {
    now_micros() / 1000
}

/// Microseconds since the Unix epoch.
pub fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A log line without terminal colour codes (`ESC [ … m`), as the systems' logs may have them.
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
