//! The demo's Kafka chores: `demo-io setup` creates the word-count topics and produces sample
//! sentences; `demo-io counts` waits for the committed word counts of those sentences and prints
//! them.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use dekaf_streams_harness::kafka_io::{bootstrap, last_counts, produce, read_all, recreate};

const SENTENCES: &[&str] = &[
    "the quick brown fox jumps over the lazy dog",
    "a stream is a table in motion",
    "a table is a stream at rest",
    "the dog sleeps",
    "exactly once is the default",
];

#[tokio::main]
async fn main() -> ExitCode {
    let servers = bootstrap();
    let command = std::env::args().nth(1).unwrap_or_default();
    let result = match command.as_str() {
        "setup" => setup(&servers).await,
        "counts" => counts(&servers).await,
        _ => {
            eprintln!("usage: demo-io setup|counts   (broker from DEKAF_BOOTSTRAP)");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn setup(servers: &str) -> Result<(), String> {
    // A clean slate: the demo's group, internal topics and topics of an earlier run go.
    recreate(
        servers,
        "word-count",
        &[("sentences", 4), ("word-counts", 4)],
    )
    .await?;
    let keys: Vec<String> = (1..=SENTENCES.len())
        .map(|i| format!("sentence-{i}"))
        .collect();
    let records = keys
        .iter()
        .zip(SENTENCES)
        .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes())));
    let n = produce(servers, "sentences", records)
        .await
        .map_err(|e| e.to_string())?;
    println!("produced {n} sentences to `sentences`:");
    for s in SENTENCES {
        println!("  {s}");
    }
    Ok(())
}

/// Waits until the committed counts add up to every word of the sample, then prints them.
async fn counts(servers: &str) -> Result<(), String> {
    let words: i64 = SENTENCES.iter().map(|s| s.split(' ').count() as i64).sum();
    let started = Instant::now();
    loop {
        let records = read_all(
            servers,
            "word-counts",
            Duration::from_secs(1),
            Duration::from_secs(10),
        )
        .await
        .map_err(|e| e.to_string())?;
        let counts = last_counts(&records);
        if counts.values().sum::<i64>() >= words || started.elapsed() > Duration::from_secs(90) {
            let mut counts: Vec<_> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            println!(
                "word counts in `word-counts` (read_committed, {} updates):",
                records.len()
            );
            for (word, count) in counts {
                println!("  {word:>10} {count}");
            }
            return Ok(());
        }
    }
}
