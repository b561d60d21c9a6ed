//! The top-level README's benchmark figures, made from `results/latest.md` so that they cannot
//! go stale: `bench-index --readme README.md` rewrites the block between the README's
//! [`START`] and [`END`] markers after every run (`run.sh` does), and the crate's test
//! `readme_figures` fails when the README's block differs from what `latest.md` gives.
//!
//! The block keeps to the rows a reader compares first: one processing thread, dekaf-streams'
//! stores in memory, both guarantees side by side; then the rows with stores on disk, and the
//! ranges of the memory and latency ratios over those rows. Every other row (thread counts,
//! instances) stays in `latest.md`, which the block links.

use std::collections::BTreeMap;

/// The line before the generated block.
pub const START: &str = "<!-- bench-figures: generated from benches/results/latest.md by `bench-index --readme`; edit there, not here -->";
/// The line after it.
pub const END: &str = "<!-- /bench-figures -->";

/// One row of `latest.md`'s table, the columns the README uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The workload (`wordcount`).
    pub workload: String,
    /// `exactly_once` or `at_least_once`.
    pub guarantee: String,
    /// Threads per instance, `1×2` for two instances.
    pub threads: String,
    /// dekaf-streams' store: `memory` or `lmdb`.
    pub store: String,
    /// Throughput, dekaf-streams over Kafka Streams.
    pub throughput: f64,
    /// p99 latency ratio.
    pub p99: Option<f64>,
    /// Peak RSS ratio.
    pub rss: Option<f64>,
    /// CPU per record ratio.
    pub cpu: Option<f64>,
    /// The run (`20261205T090852-6b13d4a4`).
    pub run: String,
    /// When it started (`2026-12-05T09:08:52Z`).
    pub started: String,
}

/// The ratio in a cell like `**5.06×**` or `982/613 (1.60×)`.
fn ratio(cell: &str) -> Option<f64> {
    let inner = match cell.rfind('(') {
        Some(open) => &cell[open + 1..],
        None => cell,
    };
    inner
        .trim_matches(|c: char| c == '*' || c == ')' || c.is_whitespace())
        .trim_end_matches('×')
        .parse()
        .ok()
}

/// The rows of `latest.md`'s table (lines that do not parse are not rows: the header, the
/// separator, the prose).
pub fn parse_latest(latest: &str) -> Vec<Row> {
    latest
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .strip_prefix('|')?
                .strip_suffix('|')?
                .split('|')
                .map(str::trim)
                .collect();
            if cells.len() < 15 {
                return None;
            }
            let run = cells[12]
                .strip_prefix('[')
                .and_then(|r| r.split(']').next())
                .unwrap_or(cells[12]);
            Some(Row {
                workload: cells[0].to_owned(),
                guarantee: cells[1].to_owned(),
                threads: cells[2].to_owned(),
                throughput: ratio(cells[5])?,
                p99: ratio(cells[7]),
                rss: ratio(cells[8]),
                cpu: ratio(cells[9]),
                store: cells[10].to_owned(),
                run: run.to_owned(),
                started: cells[14].to_owned(),
            })
        })
        .collect()
}

fn times(value: f64) -> String {
    format!("{value:.2}×")
}

fn range(values: impl Iterator<Item = f64>) -> Option<String> {
    let values: Vec<f64> = values.collect();
    let low = values.iter().copied().reduce(f64::min)?;
    let high = values.iter().copied().reduce(f64::max)?;
    Some(if (high - low).abs() < 0.005 {
        times(low)
    } else {
        format!("{low:.2}–{high:.2}×")
    })
}

/// The README's block (markers included) for `rows`.
pub fn block(rows: &[Row]) -> String {
    let one = |store: &str| -> BTreeMap<&str, BTreeMap<&str, &Row>> {
        let mut by_workload: BTreeMap<&str, BTreeMap<&str, &Row>> = BTreeMap::new();
        for row in rows.iter().filter(|r| r.threads == "1" && r.store == store) {
            by_workload
                .entry(&row.workload)
                .or_default()
                .insert(&row.guarantee, row);
        }
        by_workload
    };
    let memory = one("memory");
    let cell = |row: Option<&&Row>, f: fn(&Row) -> Option<f64>| {
        row.and_then(|r| f(r)).map_or_else(|| "–".to_owned(), times)
    };
    let mut out = format!("{START}\n");
    out.push_str(
        "Newest ratios, dekaf-streams / Kafka Streams, one processing thread, dekaf-streams' stores \
         in memory, each row measured side by side in one run (its run, commit, date and absolute \
         figures in [`benches/results/latest.md`](benches/results/latest.md)):\n\n\
         | workload | throughput, exactly-once | throughput, at-least-once | p99, EOS / ALOS | peak RSS, EOS / ALOS | CPU per record, EOS / ALOS | runs |\n\
         |---|---:|---:|---:|---:|---:|---|\n",
    );
    for (workload, by_guarantee) in &memory {
        let (eos, alos) = (
            by_guarantee.get("exactly_once"),
            by_guarantee.get("at_least_once"),
        );
        let pair = |f: fn(&Row) -> Option<f64>| format!("{} / {}", cell(eos, f), cell(alos, f));
        let runs: Vec<&str> = [eos, alos]
            .into_iter()
            .flatten()
            .map(|r| r.started.get(..10).unwrap_or(&r.started))
            .collect();
        let mut dates = runs.clone();
        dates.dedup();
        out.push_str(&format!(
            "| {workload} | {} | {} | {} | {} | {} | {} |\n",
            cell(eos, |r| Some(r.throughput)),
            cell(alos, |r| Some(r.throughput)),
            pair(|r| r.p99),
            pair(|r| r.rss),
            pair(|r| r.cpu),
            dates.join(", "),
        ));
    }
    let shown: Vec<&Row> = memory.values().flat_map(|g| g.values().copied()).collect();
    if let (Some(rss), Some(p99)) = (
        range(shown.iter().filter_map(|r| r.rss)),
        range(shown.iter().filter_map(|r| r.p99)),
    ) {
        out.push_str(&format!(
            "\nOver these rows, peak RSS is {rss} Kafka Streams' and p99 latency {p99}.\n"
        ));
    }
    let lmdb = one("lmdb");
    if !lmdb.is_empty() {
        let rows: Vec<String> = lmdb
            .iter()
            .map(|(workload, by_guarantee)| {
                let eos = cell(by_guarantee.get("exactly_once"), |r| Some(r.throughput));
                let alos = cell(by_guarantee.get("at_least_once"), |r| Some(r.throughput));
                format!("{workload} {eos} and {alos}")
            })
            .collect();
        out.push_str(&format!(
            "With stores on disk on both sides (LMDB against Kafka Streams' RocksDB, \
             `DEKAF_BENCH_STORE=lmdb`), throughput exactly-once and at-least-once: {}.\n",
            rows.join("; ")
        ));
    }
    out.push_str(END);
    out
}

/// `readme` with its block replaced by `block`, or why it cannot be.
pub fn splice(readme: &str, block: &str) -> Result<String, String> {
    let start = readme
        .find(START)
        .ok_or("the README has no bench-figures start marker")?;
    let end = readme[start..]
        .find(END)
        .map(|i| start + i + END.len())
        .ok_or("the README's bench-figures block has no end marker")?;
    Ok(format!("{}{block}{}", &readme[..start], &readme[end..]))
}

/// The README's current block (markers included).
pub fn current(readme: &str) -> Option<&str> {
    let start = readme.find(START)?;
    let end = start + readme[start..].find(END)? + END.len();
    Some(&readme[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const LATEST: &str = "| workload | guarantee | threads | dekaf rec/s | KS rec/s | throughput dekaf/KS | p50 dekaf/KS (ms) | p99 dekaf/KS (ms) | peak RSS dekaf/KS (MiB) | CPU µs/rec dekaf/KS | dekaf store | runs per figure | run | commit | started |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|---|
| join | exactly_once | 1 | 290501 | 58893 | **4.93×** | 15/64 (0.23×) | 36/126 (0.29×) | 45/322 (0.14×) | 2.70/50.80 (0.05×) | memory | 3 | [20261205T090852-6b13d4a4](20261205T090852-6b13d4a4/report.md) | 36922df | 2026-12-05T09:08:52Z |
| join | exactly_once | 2 | 407067 | 46418 | **8.77×** | 14/67 (0.21×) | 37/150 (0.24×) | 43/521 (0.08×) | 2.00/66.40 (0.03×) | memory | 3 | [r](r/report.md) | c | 2026-12-05T09:08:52Z |
| wordcount | at_least_once | 1 | 57566 | 10551 | **5.46×** | 71/75 (0.95×) | 139/159 (0.87×) | 85/372 (0.23×) | 18.80/204.80 (0.09×) | lmdb | 1 | [r](r/report.md) | c | 2026-12-02T13:55:28Z |
";

    #[test]
    fn rows_parse_with_their_ratios() {
        let rows = parse_latest(LATEST);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].throughput, 4.93);
        assert_eq!(rows[0].p99, Some(0.29));
        assert_eq!(rows[0].rss, Some(0.14));
        assert_eq!(rows[0].cpu, Some(0.05));
        assert_eq!(rows[0].run, "20261205T090852-6b13d4a4");
        assert_eq!(rows[2].store, "lmdb");
    }

    #[test]
    fn the_block_keeps_one_thread_in_memory_and_names_the_disk_rows() {
        let block = block(&parse_latest(LATEST));
        assert!(
            block.contains("| join | 4.93× | – | 0.29× / – | 0.14× / – | 0.05× / – | 2026-12-05 |"),
            "{block}"
        );
        assert!(!block.contains("8.77×"), "two threads stay in latest.md");
        assert!(block.contains("wordcount – and 5.46×"), "{block}");
    }

    #[test]
    fn the_block_is_spliced_between_its_markers() {
        let readme = format!("before\n{START}\nold\n{END}\nafter\n");
        let spliced = splice(&readme, &format!("{START}\nnew\n{END}")).unwrap();
        assert_eq!(spliced, format!("before\n{START}\nnew\n{END}\nafter\n"));
        assert!(splice("no markers", "x").is_err());
    }
}
