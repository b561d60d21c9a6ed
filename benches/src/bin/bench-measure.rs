//! A standalone measurer: reads an output topic with `read_committed` from the beginning until
//! no record arrived for `--idle-seconds`, then prints a JSON summary: records, keys, latency
//! p50/p99 of records stamped at or after `--latency-from-ms`, and a fingerprint of the final
//! value per key (equal fingerprints: equal outputs).

use std::time::{Duration, Instant};

use anyhow::Result;
use dekaf_streams_benches::args::Flags;
use dekaf_streams_benches::kafka::bootstrap_from_env;
use dekaf_streams_benches::measure::{Measurer, fingerprint, percentiles};

const USAGE: &str = "usage: bench-measure --output-topic T [--idle-seconds 5] [--max-seconds 300] \
[--latency-from-ms 0] [--bootstrap 127.0.0.1:$DEKAF_KAFKA_PORT]";

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let topic = f.required("output-topic")?;
    let idle = Duration::from_secs(f.parse_or("idle-seconds", 5)?);
    let max = Duration::from_secs(f.parse_or("max-seconds", 300)?);
    let m = Measurer::start(&bootstrap, topic)?;
    m.observed().latency_from_ms = f.parse_or("latency-from-ms", 0)?;
    let started = Instant::now();
    let (mut last_count, mut last_change) = (0, Instant::now());
    while started.elapsed() < max {
        std::thread::sleep(Duration::from_millis(100));
        let n = m.observed().records;
        if n != last_count {
            (last_count, last_change) = (n, Instant::now());
        } else if last_change.elapsed() >= idle {
            break;
        }
    }
    let o = m.stop()?;
    let (p50, p99) = percentiles(&o.latencies()).unzip();
    let span = match (o.first_visible_us, o.last_visible_us) {
        (Some(a), Some(b)) => Some((b - a) as f64 / 1e6),
        _ => None,
    };
    println!(
        "{}",
        serde_json::json!({
            "topic": topic, "records": o.records, "keys": o.finals.len(),
            "first_to_last_visible_s": span, "p50_ms": p50, "p99_ms": p99,
            "fingerprint": format!("{:016x}", fingerprint(&o.finals)),
        })
    );
    Ok(())
}
