//! `bench-phases LOG [--last-seconds S]`: where an exactly-once commit's time goes, from a
//! dekaf-streams log written with `RUST_LOG=info,dekaf_streams::commit=debug`.
//!
//! Every exactly-once commit logs its phases (`runtime/src/streams/commit.rs`): flushing the
//! record caches, writing the changelog records, adding the offsets to the transaction, draining
//! the producer (every record of the interval acknowledged) and `EndTxn`, plus the time since the
//! previous commit began. This prints their percentiles as a markdown table, over every commit
//! of the log or over those of its last `S` seconds (the benchmark's live phase, which follows
//! the backlog and lasts `--live-seconds`, 5 by default):
//!
//! ```sh
//! RUST_LOG=info,dekaf_streams::commit=debug target/release/bench --systems dekaf \
//!   --workloads wordcount --guarantees exactly_once --records 100k --fixed-names true --restore false
//! target/release/bench-phases benches/results/tmp/<run>/wordcount-eos-dekaf-t1-i0.log --last-seconds 5
//! ```

use anyhow::{Context, Result, bail};

/// The phases, in the order the commit runs them, as the log names their fields.
const PHASES: [&str; 6] = [
    "caches_ms",
    "changelog_ms",
    "offsets_ms",
    "drain_ms",
    "end_txn_ms",
    "since_last_ms",
];

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        bail!("usage: bench-phases LOG [--last-seconds S]");
    };
    let last_seconds: Option<f64> = match (args.next().as_deref(), args.next()) {
        (Some("--last-seconds"), Some(s)) => Some(s.parse().context("--last-seconds")?),
        (None, _) => None,
        _ => bail!("usage: bench-phases LOG [--last-seconds S]"),
    };
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let commits: Vec<(f64, [f64; 6])> = text
        .lines()
        .filter(|l| l.contains("exactly-once commit phases"))
        .filter_map(parse)
        .collect();
    let Some(end) = commits.last().map(|c| c.0) else {
        bail!(
            "no 'exactly-once commit phases' line in {path}: was RUST_LOG=info,dekaf_streams::commit=debug set?"
        );
    };
    let kept: Vec<&[f64; 6]> = commits
        .iter()
        .filter(|(at, _)| last_seconds.is_none_or(|s| end - at <= s))
        .map(|(_, phases)| phases)
        .collect();
    println!("{} commits\n", kept.len());
    println!("| phase | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|");
    for (i, name) in PHASES.iter().enumerate() {
        let mut v: Vec<f64> = kept.iter().map(|p| p[i]).collect();
        v.sort_by(f64::total_cmp);
        let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            name.trim_end_matches("_ms"),
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0)
        );
    }
    Ok(())
}

/// The time of the line (seconds since midnight, UTC) and its phases.
fn parse(line: &str) -> Option<(f64, [f64; 6])> {
    let line = dekaf_streams_benches::strip_ansi(line);
    // `2026-12-04T16:47:40.045471Z ...`
    let clock = line.get(11..26)?;
    let mut parts = clock.split(':');
    let (h, m, s): (f64, f64, f64) = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    let mut phases = [0.0; 6];
    for (slot, name) in phases.iter_mut().zip(PHASES) {
        let at = line.find(&format!(" {name}="))? + name.len() + 2;
        let value = line[at..].split_whitespace().next()?;
        *slot = value.parse().ok()?;
    }
    Some((h * 3600.0 + m * 60.0 + s, phases))
}
