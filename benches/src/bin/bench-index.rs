//! `bench-index RESULTS_DIR`: writes to stdout the index of the end-to-end benchmark runs kept
//! under `RESULTS_DIR` (`<time>-<run>/results.json`), which `benches/run.sh` saves as
//! `results/latest.md`.
//!
//! `bench-index --readme README LATEST`: rewrites README's benchmark block from LATEST (see
//! `dekaf_streams_benches::readme`); `run.sh` runs it after every run.
//!
//! Runs often measure a subset of the workloads (`--workloads wordcount`), so a copy of the
//! newest report would hide the figures of the others, or leave a stale full run standing. The
//! index instead takes, for every workload × guarantee × dekaf-streams store × threads ×
//! instances, the newest run in which both dekaf-streams and Kafka Streams finished, and names
//! that run, its commit and its date beside the figures.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

/// The figures of one system in one run.
struct Figures {
    throughput: Option<f64>,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    rss_mib: Option<f64>,
    cpu_us_per_record: Option<f64>,
}

/// dekaf-streams and Kafka Streams on one workload × guarantee of one run.
struct Pair {
    run: String,
    started: String,
    commit: String,
    runs_per_figure: String,
    store: String,
    dekaf: Figures,
    kstreams: Figures,
}

fn figures(result: &Value) -> Option<Figures> {
    if result["status"]["kind"] != "ok" {
        return None;
    }
    Some(Figures {
        throughput: result["throughput_rps"].as_f64(),
        p50_ms: result["p50_ms"].as_f64(),
        p99_ms: result["p99_ms"].as_f64(),
        rss_mib: result["peak_rss_mib"].as_f64(),
        // Runs before CPU per record was reported: CPU seconds over the input records.
        cpu_us_per_record: result["cpu_us_per_record"].as_f64().or_else(|| {
            let records = result["input_records"].as_f64().filter(|n| *n > 0.0)?;
            Some(result["cpu_seconds_backlog"].as_f64()? * 1e6 / records)
        }),
    })
}

/// p50 and p99 of every run of a figure that ran several times (`every_run` of results.json;
/// empty for runs before it was recorded).
fn latency_of_every_run(every_run: &Value) -> Vec<(Option<f64>, Option<f64>)> {
    every_run
        .as_array()
        .map(|runs| {
            runs.iter()
                .map(|r| (r["p50_ms"].as_f64(), r["p99_ms"].as_f64()))
                .collect()
        })
        .unwrap_or_default()
}

/// The latency of both systems in the run (their runs took turns) where dekaf-streams' p99 was
/// the highest against Kafka Streams': the run a reader should expect, not the median one.
/// `None` unless both ran the same number of times, more than once.
#[allow(clippy::type_complexity)]
fn worst_run(
    dekaf: &[(Option<f64>, Option<f64>)],
    kstreams: &[(Option<f64>, Option<f64>)],
) -> Option<((Option<f64>, Option<f64>), (Option<f64>, Option<f64>))> {
    if dekaf.len() < 2 || dekaf.len() != kstreams.len() {
        return None;
    }
    dekaf
        .iter()
        .zip(kstreams)
        .filter_map(|(d, k)| Some((d.1? / k.1.filter(|k| *k > 0.0)?, *d, *k)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, d, k)| (d, k))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.0}"))
}

fn num2(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.2}"))
}

/// What a row of the index is about: workload, guarantee, dekaf store, threads, instances.
type Case = (String, String, String, u64, u64);

/// Threads and instances of a result; runs before they were recorded per result ran one
/// instance with the run's `threads` setting.
fn parallelism(result: &Value, report: &Value) -> (u64, u64) {
    let threads = result["threads"].as_u64().unwrap_or_else(|| {
        report["settings"]["threads"]
            .as_str()
            .and_then(|t| t.parse().ok())
            .unwrap_or(1)
    });
    (threads, result["instances"].as_u64().unwrap_or(1))
}

/// The newest dekaf/Kafka Streams pair of every case.
fn collect(dir: &Path) -> Result<BTreeMap<Case, Pair>> {
    let mut runs: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("results.json").is_file())
        .collect();
    // Run directories start with their UTC start time, so their names sort by age.
    runs.sort();
    let mut newest = BTreeMap::new();
    for run in runs {
        let path = run.join("results.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let report: Value =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let Some(results) = report["results"].as_array() else {
            continue;
        };
        // The result of `system` on the case of workload `w`, guarantee `g`, parallelism `tp`.
        let result = |w: &Value, g: &Value, tp: (u64, u64), system: &str| {
            results.iter().find(|r| {
                r["workload"] == *w
                    && r["guarantee"] == *g
                    && parallelism(r, &report) == tp
                    && r["system"] == system
            })
        };
        let find = |w: &Value, g: &Value, tp: (u64, u64), system: &str| {
            result(w, g, tp, system).and_then(figures)
        };
        for r in results.iter().filter(|r| r["system"] == "dekaf") {
            let (w, g) = (&r["workload"], &r["guarantee"]);
            let tp = parallelism(r, &report);
            let (Some(mut dekaf), Some(mut kstreams)) =
                (find(w, g, tp, "dekaf"), find(w, g, tp, "kstreams"))
            else {
                continue;
            };
            let every_run = |system: &str| {
                result(w, g, tp, system)
                    .map(|r| latency_of_every_run(&r["every_run"]))
                    .unwrap_or_default()
            };
            if let Some((d, k)) = worst_run(&every_run("dekaf"), &every_run("kstreams")) {
                (dekaf.p50_ms, dekaf.p99_ms) = d;
                (kstreams.p50_ms, kstreams.p99_ms) = k;
            }
            let text = |v: &Value| v.as_str().unwrap_or("?").to_owned();
            let store = report["settings"]["dekaf store"]
                .as_str()
                .unwrap_or("not recorded")
                .to_owned();
            newest.insert(
                (text(w), text(g), store.clone(), tp.0, tp.1),
                Pair {
                    run: run
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    started: text(&report["started"]),
                    commit: text(&report["versions"]["dekaf-streams commit"]),
                    runs_per_figure: text(&report["settings"]["runs per figure"]),
                    store,
                    dekaf,
                    kstreams,
                },
            );
        }
    }
    Ok(newest)
}

/// `--readme README LATEST`: README's block made again from LATEST.
fn rewrite_readme(readme: &str, latest: &str) -> Result<()> {
    use dekaf_streams_benches::readme;
    let text = std::fs::read_to_string(readme).with_context(|| format!("reading {readme}"))?;
    let rows = readme::parse_latest(
        &std::fs::read_to_string(latest).with_context(|| format!("reading {latest}"))?,
    );
    let spliced = readme::splice(&text, &readme::block(&rows))
        .map_err(|e| anyhow::anyhow!("{readme}: {e}"))?;
    if spliced != text {
        std::fs::write(readme, spliced).with_context(|| format!("writing {readme}"))?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, readme, latest] = args.as_slice()
        && flag == "--readme"
    {
        return rewrite_readme(readme, latest);
    }
    let dir = args
        .first()
        .context("usage: bench-index RESULTS_DIR | bench-index --readme README LATEST")?;
    let pairs = collect(Path::new(&dir))?;
    let mut out = String::new();
    out.push_str(
        "# dekaf-streams vs Apache Kafka Streams — newest figures\n\n\
         Made by `benches/run.sh` after every run (`bench-index`): for each workload, \
         guarantee, dekaf-streams store and thread count, the newest run in `results/` in which both systems finished, side by side in \
         that one run. Runs differ in date and commit: each row names its own. The settings, \
         partitions and restore rates of a run are in its `report.md`; the chart \
         (`latest.png`) is that of the newest run that measured several thread counts. Kafka Streams always keeps its stores in RocksDB; \
         dekaf-streams in memory unless the run had `DEKAF_BENCH_STORE=lmdb`. Threads: \
         processing threads per instance, both systems the same (Kafka Streams \
         `num.stream.threads`); `1×2` is two instances (processes) of one thread, their RSS and \
         CPU added up. CPU µs/rec: CPU time of the system's processes from start until the \
         backlog was done, over the backlog's input records. Latency of a figure run several \
         times (since 7 December 2026): that of its worst run, the one with the highest p99 \
         ratio (each run's is in its report's \"Every run\"); other figures: the median run's.\n\n\
         | workload | guarantee | threads | dekaf rec/s | KS rec/s | throughput dekaf/KS | p50 dekaf/KS (ms) | p99 dekaf/KS (ms) | \
         peak RSS dekaf/KS (MiB) | CPU µs/rec dekaf/KS | dekaf store | runs per figure | run | commit | started |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|---|\n",
    );
    for ((workload, guarantee, _, threads, instances), p) in &pairs {
        let (d, k) = (&p.dekaf, &p.kstreams);
        let threads = if *instances > 1 {
            format!("{threads}×{instances}")
        } else {
            threads.to_string()
        };
        let _ = writeln!(
            out,
            "| {workload} | {guarantee} | {threads} | {} | {} | **{}** | {}/{} ({}) | {}/{} ({}) | {}/{} ({}) | {}/{} ({}) | {} | {} | \
             [{run}]({run}/report.md) | {} | {} |",
            num(d.throughput),
            num(k.throughput),
            ratio(d.throughput, k.throughput),
            num(d.p50_ms),
            num(k.p50_ms),
            ratio(d.p50_ms, k.p50_ms),
            num(d.p99_ms),
            num(k.p99_ms),
            ratio(d.p99_ms, k.p99_ms),
            num(d.rss_mib),
            num(k.rss_mib),
            ratio(d.rss_mib, k.rss_mib),
            num2(d.cpu_us_per_record),
            num2(k.cpu_us_per_record),
            ratio(d.cpu_us_per_record, k.cpu_us_per_record),
            p.store,
            p.runs_per_figure,
            p.commit,
            p.started,
            run = p.run,
        );
    }
    if pairs.is_empty() {
        out.push_str("\nNo run in which both systems finished yet.\n");
    }
    print!("{out}");
    Ok(())
}
