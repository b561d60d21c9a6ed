//! Results of a benchmark run: JSON for tools, a markdown table for people.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

/// Outcome of one system on one workload × guarantee.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Status {
    /// Measured, output equal to the reference and to the other systems.
    Ok,
    /// Did not finish, or its output differed: reported as a failure, not a figure.
    Failed(String),
    /// Not run (e.g. the ceiling on a stateful workload, or a system not selected).
    Skipped(String),
}

/// How fast a store was rebuilt from its changelog.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Restore {
    /// Records restored (all stores, all partitions).
    pub records: u64,
    /// From the first restore start to the last restore end, ms.
    pub millis: f64,
    /// Records per second.
    pub records_per_second: Option<f64>,
    /// From process start to reporting the restore done, s.
    pub seconds_to_ready: f64,
}

/// The throughput and latency of one run of a row that was run several times (`--repeat`).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct RunFigures {
    /// Input records per second of the backlog.
    pub throughput_rps: Option<f64>,
    /// Live-phase latency p50, ms.
    pub p50_ms: Option<f64>,
    /// Live-phase latency p99, ms.
    pub p99_ms: Option<f64>,
}

/// Figures of one system on one workload × guarantee.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    /// Workload name.
    pub workload: String,
    /// Guarantee name.
    pub guarantee: String,
    /// System tag (`dekaf`, `kstreams`, `ceiling`).
    pub system: String,
    /// Processing threads per instance (`--threads`; Kafka Streams `num.stream.threads`).
    pub threads: u32,
    /// Instances (processes) of the system, each with `threads` threads (`--instances`).
    pub instances: u32,
    /// Outcome; figures are kept only when `Ok`.
    pub status: Status,
    /// Stream input records of the backlog.
    pub input_records: u64,
    /// Input records per second, `running` event (or first output, if earlier) → all output
    /// committed and visible.
    pub throughput_rps: Option<f64>,
    /// Process start → `running` event, s.
    pub startup_seconds: Option<f64>,
    /// `running` event → first output visible, s (negative: output before `running`).
    pub first_output_seconds: Option<f64>,
    /// `running` event (or first output, if earlier) → all backlog output visible, s.
    pub backlog_seconds: Option<f64>,
    /// End-to-end latency p50 in the live phase, ms.
    pub p50_ms: Option<f64>,
    /// End-to-end latency p99 in the live phase, ms.
    pub p99_ms: Option<f64>,
    /// Output records whose latency was measured.
    pub latency_samples: usize,
    /// Peak RSS of the system's process, MiB.
    pub peak_rss_mib: Option<f64>,
    /// Peak anonymous RSS (`RssAnon`, sampled every 50 ms), MiB: the RSS without the file pages
    /// the process maps (LMDB's state), which the kernel drops under memory pressure.
    pub peak_anon_rss_mib: Option<f64>,
    /// CPU seconds of the process from start until the backlog was done.
    pub cpu_seconds_backlog: Option<f64>,
    /// CPU seconds of the process over its whole run.
    pub cpu_seconds_total: Option<f64>,
    /// CPU per backlog input record, µs: `cpu_seconds_backlog` / `input_records` (all
    /// instances together).
    pub cpu_us_per_record: Option<f64>,
    /// Bytes written to disk per backlog input record, from start until the backlog was done
    /// (all instances together; `/proc/<pid>/io` `write_bytes`): state on disk, logs.
    pub disk_bytes_per_record: Option<f64>,
    /// Output records read by the measurer.
    pub output_records: u64,
    /// Keys in the final output of the backlog.
    pub output_keys: usize,
    /// Fingerprint of the backlog's final values (equal across systems when outputs agree).
    pub fingerprint: Option<String>,
    /// Restore from the changelog, for stateful workloads.
    pub restore: Option<Restore>,
    /// Internal topics the system created (names after `<app id>-`, sorted).
    pub internal_topics: Vec<String>,
    /// Every run of the row, in the order they ran, when it ran more than once (the row's other
    /// figures are its median run's): the tail of the worst run is the one a user meets.
    pub every_run: Vec<RunFigures>,
}

impl RunResult {
    /// An empty result with `status`.
    pub fn new(workload: &str, guarantee: &str, system: &str, status: Status) -> Self {
        Self {
            workload: workload.into(),
            guarantee: guarantee.into(),
            system: system.into(),
            threads: 1,
            instances: 1,
            status,
            input_records: 0,
            throughput_rps: None,
            startup_seconds: None,
            first_output_seconds: None,
            backlog_seconds: None,
            p50_ms: None,
            p99_ms: None,
            latency_samples: 0,
            peak_rss_mib: None,
            peak_anon_rss_mib: None,
            cpu_seconds_backlog: None,
            cpu_seconds_total: None,
            cpu_us_per_record: None,
            disk_bytes_per_record: None,
            output_records: 0,
            output_keys: 0,
            fingerprint: None,
            restore: None,
            internal_topics: Vec::new(),
            every_run: Vec::new(),
        }
    }

    /// The figures of this run alone.
    pub fn figures(&self) -> RunFigures {
        RunFigures {
            throughput_rps: self.throughput_rps,
            p50_ms: self.p50_ms,
            p99_ms: self.p99_ms,
        }
    }

    fn ok(&self) -> bool {
        self.status == Status::Ok
    }

    /// `threads × instances` as the reports write it: `2` (one instance), `1×2` (two instances
    /// of one thread).
    pub fn parallelism(&self) -> String {
        if self.instances > 1 {
            format!("{}×{}", self.threads, self.instances)
        } else {
            self.threads.to_string()
        }
    }

    fn same_case(&self, other: &RunResult) -> bool {
        self.workload == other.workload
            && self.guarantee == other.guarantee
            && self.threads == other.threads
            && self.instances == other.instances
    }
}

/// A whole run.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {
    /// CPU model, cores, memory.
    pub machine: String,
    /// Versions: Kafka Streams, broker, librdkafka, Java, rustc, git commit.
    pub versions: BTreeMap<String, String>,
    /// Settings shared by all systems and the run's sizes.
    pub settings: BTreeMap<String, String>,
    /// The command that produced this report.
    pub command: String,
    /// When it started (UTC, RFC 3339).
    pub started: String,
    /// Per system × workload × guarantee.
    pub results: Vec<RunResult>,
    /// Cross-system output comparisons (failures listed too).
    pub comparisons: Vec<String>,
    /// Warnings (clean-up problems and the like).
    pub warnings: Vec<String>,
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |x| format!("{x:.digits$}"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

impl Report {
    /// "Every run": each run's p50 and p99 of the rows that ran more than once, dekaf-streams
    /// and Kafka Streams side by side (their runs took turns), and the worst run's ratio.
    fn every_run_markdown(&self, m: &mut String, cases: &[&RunResult]) {
        let repeated: Vec<(&RunResult, &RunResult)> = cases
            .iter()
            .filter_map(|c| Some((self.find(c, "dekaf")?, self.find(c, "kstreams")?)))
            .filter(|(d, k)| d.every_run.len() > 1 && d.every_run.len() == k.every_run.len())
            .collect();
        if repeated.is_empty() {
            return;
        }
        let _ = writeln!(
            m,
            "\n## Every run\n\nLive-phase latency of each run (ms), the two systems' runs taking turns; \
             the last row of each case is its worst run (the highest p99 ratio).\n"
        );
        let _ = writeln!(
            m,
            "| workload | guarantee | threads | run | p50 dekaf / KS | p99 dekaf / KS | p99 dekaf/KS |"
        );
        let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---:|");
        for (d, k) in repeated {
            let mut worst: Option<(usize, f64)> = None;
            for (i, (dr, kr)) in d.every_run.iter().zip(&k.every_run).enumerate() {
                let r = match (dr.p99_ms, kr.p99_ms) {
                    (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                    _ => None,
                };
                if let Some(r) = r
                    && worst.is_none_or(|(_, w)| r > w)
                {
                    worst = Some((i, r));
                }
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | {} | {} / {} | {} / {} | {} |",
                    d.workload,
                    d.guarantee,
                    d.parallelism(),
                    i + 1,
                    num(dr.p50_ms, 1),
                    num(kr.p50_ms, 1),
                    num(dr.p99_ms, 1),
                    num(kr.p99_ms, 1),
                    ratio(dr.p99_ms, kr.p99_ms),
                );
            }
            if let Some((i, r)) = worst {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | **worst: run {}** | | | **{r:.2}×** |",
                    d.workload,
                    d.guarantee,
                    d.parallelism(),
                    i + 1,
                );
            }
        }
    }

    fn find(&self, case: &RunResult, s: &str) -> Option<&RunResult> {
        self.results
            .iter()
            .find(|r| r.same_case(case) && r.system == s && r.ok())
    }

    /// The report as markdown: settings, a figure table, ratios, restore rates, comparisons.
    pub fn markdown(&self, chart: Option<&str>) -> String {
        let mut m = String::new();
        let _ = writeln!(
            m,
            "# dekaf-streams vs Apache Kafka Streams — end-to-end benchmark\n"
        );
        let _ = writeln!(m, "- started: {}", self.started);
        let _ = writeln!(m, "- machine: {}", self.machine);
        for (k, v) in &self.versions {
            let _ = writeln!(m, "- {k}: {v}");
        }
        let settings: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(m, "- settings: {}", settings.join(", "));
        let _ = writeln!(m, "- command: `{}`\n", self.command);
        let _ = writeln!(
            m,
            "Throughput: backlog input records / (all output visible to a read_committed consumer − the system's `running` event or its first visible output, whichever is earlier). \
             Latency: live phase at a fixed input rate, output visible − input timestamp. \
             Peak RSS and CPU from /proc of the system's process (CPU: start until the backlog is done; \
             CPU µs/rec = that CPU over the backlog's input records). \
             Threads: processing threads per instance (`--threads`, Kafka Streams `num.stream.threads`); \
             `t×i` = i instances (processes) of t threads each, their RSS and CPU summed. \
             Startup: process start → `running`. \
             Workloads: benches/WORKLOADS.md.\n"
        );
        if let Some(c) = chart {
            let _ = writeln!(m, "![chart]({c})\n");
        }
        let _ = writeln!(
            m,
            "| workload | guarantee | threads | system | status | throughput (rec/s) | p50 (ms) | p99 (ms) | peak RSS (MiB) | CPU s | CPU µs/rec | startup (s) | output records |"
        );
        let _ = writeln!(
            m,
            "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for r in &self.results {
            let status = match &r.status {
                Status::Ok => "ok".to_owned(),
                Status::Failed(why) => {
                    format!("**FAILED**: {}", why.replace('|', "/").replace('\n', " "))
                }
                Status::Skipped(why) => format!("skipped: {why}"),
            };
            let ok = r.ok();
            let f = |v: Option<f64>, d| if ok { num(v, d) } else { "—".into() };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.workload,
                r.guarantee,
                r.parallelism(),
                r.system,
                status,
                f(r.throughput_rps, 0),
                f(r.p50_ms, 1),
                f(r.p99_ms, 1),
                f(r.peak_rss_mib, 0),
                f(r.cpu_seconds_backlog, 2),
                f(r.cpu_us_per_record, 2),
                f(r.startup_seconds, 2),
                if ok {
                    r.output_records.to_string()
                } else {
                    "—".into()
                },
            );
        }
        let _ = writeln!(m, "\n## Ratios\n");
        let _ = writeln!(
            m,
            "| workload | guarantee | threads | throughput dekaf/KS | p99 dekaf/KS | peak RSS dekaf/KS | CPU/rec dekaf/KS | throughput dekaf/ceiling | throughput KS/ceiling |"
        );
        let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
        let mut cases: Vec<&RunResult> = Vec::new();
        for r in &self.results {
            if !cases.iter().any(|c| c.same_case(r)) {
                cases.push(r);
            }
        }
        for case in &cases {
            let d = self.find(case, "dekaf");
            let k = self.find(case, "kstreams");
            let c = self.find(case, "ceiling");
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                case.workload,
                case.guarantee,
                case.parallelism(),
                ratio(
                    d.and_then(|r| r.throughput_rps),
                    k.and_then(|r| r.throughput_rps)
                ),
                ratio(d.and_then(|r| r.p99_ms), k.and_then(|r| r.p99_ms)),
                ratio(
                    d.and_then(|r| r.peak_rss_mib),
                    k.and_then(|r| r.peak_rss_mib)
                ),
                ratio(
                    d.and_then(|r| r.cpu_us_per_record),
                    k.and_then(|r| r.cpu_us_per_record)
                ),
                ratio(
                    d.and_then(|r| r.throughput_rps),
                    c.and_then(|r| r.throughput_rps)
                ),
                ratio(
                    k.and_then(|r| r.throughput_rps),
                    c.and_then(|r| r.throughput_rps)
                ),
            );
        }
        self.every_run_markdown(&mut m, &cases);
        let restores: Vec<&RunResult> = self
            .results
            .iter()
            .filter(|r| r.restore.is_some())
            .collect();
        if !restores.is_empty() {
            let _ = writeln!(
                m,
                "\n## Restore from the changelog (state directory deleted, restarted)\n"
            );
            let _ = writeln!(
                m,
                "| workload | guarantee | threads | system | records | restore (ms) | records/s | start → restored (s) |"
            );
            let _ = writeln!(m, "|---|---|---:|---|---:|---:|---:|---:|");
            for r in restores {
                if let Some(x) = &r.restore {
                    let _ = writeln!(
                        m,
                        "| {} | {} | {} | {} | {} | {:.0} | {} | {:.2} |",
                        r.workload,
                        r.guarantee,
                        r.parallelism(),
                        r.system,
                        x.records,
                        x.millis,
                        num(x.records_per_second, 0),
                        x.seconds_to_ready
                    );
                }
            }
        }
        let disks: Vec<&RunResult> = self
            .results
            .iter()
            .filter(|r| r.disk_bytes_per_record.is_some_and(|b| b > 0.0))
            .collect();
        if !disks.is_empty() {
            let _ = writeln!(
                m,
                "\n## Disk writes (bytes the process wrote to storage, start → backlog done)\n"
            );
            let _ = writeln!(
                m,
                "| workload | guarantee | threads | system | bytes per input record | peak RSS (MiB) | peak anonymous RSS (MiB) |"
            );
            let _ = writeln!(m, "|---|---|---:|---|---:|---:|---:|");
            for r in disks {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    r.workload,
                    r.guarantee,
                    r.parallelism(),
                    r.system,
                    num(r.disk_bytes_per_record, 0),
                    num(r.peak_rss_mib, 0),
                    num(r.peak_anon_rss_mib, 0)
                );
            }
        }
        if !self.comparisons.is_empty() {
            let _ = writeln!(m, "\n## Output comparison (final value per key)\n");
            for c in &self.comparisons {
                let _ = writeln!(m, "- {c}");
            }
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(m, "\n## Warnings\n");
            for w in &self.warnings {
                let _ = writeln!(m, "- {w}");
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_has_ratios() {
        let mut a = RunResult::new("stateless", "exactly_once", "dekaf", Status::Ok);
        a.throughput_rps = Some(300.0);
        let mut b = RunResult::new("stateless", "exactly_once", "kstreams", Status::Ok);
        b.throughput_rps = Some(100.0);
        let r = Report {
            results: vec![a, b],
            ..Default::default()
        };
        assert!(r.markdown(None).contains("| 3.00× |"));
    }

    #[test]
    fn ratios_pair_runs_of_the_same_thread_count() {
        let row = |system: &str, threads: u32, rps: f64| {
            let mut r = RunResult::new("wordcount", "exactly_once", system, Status::Ok);
            r.threads = threads;
            r.throughput_rps = Some(rps);
            r
        };
        let r = Report {
            results: vec![
                row("dekaf", 1, 300.0),
                row("kstreams", 1, 100.0),
                row("dekaf", 4, 800.0),
                row("kstreams", 4, 200.0),
            ],
            ..Default::default()
        };
        let md = r.markdown(None);
        assert!(
            md.contains("| wordcount | exactly_once | 1 | 3.00× |"),
            "{md}"
        );
        assert!(
            md.contains("| wordcount | exactly_once | 4 | 4.00× |"),
            "{md}"
        );
    }
}
