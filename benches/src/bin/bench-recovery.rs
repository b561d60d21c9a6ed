//! **Recovery time after a SIGKILL**, dekaf-streams (LMDB) against Kafka Streams 4.4 (RocksDB),
//! both exactly-once, side by side in one run on one broker and the same input (issue 14).
//!
//! ```sh
//! cargo build --release -p dekaf-streams-benches --bin bench-recovery --bin dekaf-bench-app
//! target/release/bench-recovery --keys 1m --kstreams-jar benches/kstreams/target/kstreams-bench.jar
//! ```
//!
//! Per system, on fresh `dkb-wordcount-*` topics (the `wordcount` workload of WORKLOADS.md,
//! with `--fixed-names` topic names): `--keys` distinct words are counted once (sentences of 10
//! words, every key once), so the `counts` store holds every key; a second pass over every key
//! is produced, and the system is killed with SIGKILL as soon as its first output of the second
//! pass is visible (mid-run, a transaction open). It is started again on the same state
//! directory, and the figures are:
//!
//! - **first new output**: process start → the first output record the restarted process
//!   committed, as an independent `read_committed` reader sees it;
//! - **caught up**: process start → every key's count reads 2 (checked against the reference,
//!   so the run is also a correctness check).
//!
//! dekaf-streams keeps its LMDB stores through the crash and replays the changelog tail; Kafka
//! Streams under exactly-once has no checkpoint after a crash, wipes the task's RocksDB state
//! and restores the whole changelog first.
//!
//! Restarted at once, both also wait for the group to give up on the killed member (its session
//! timeout: `group.streams.session.timeout.ms`, 10 s on `scripts/kafka.sh`'s broker) before
//! its tasks are assigned again. `--restart-delay-seconds 12` restarts after that, so the
//! figures are the restart's own: start-up, restore, the first commit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use dekaf_streams_benches::args::{Flags, Knobs, Mode, SystemArgs, parse_count};
use dekaf_streams_benches::kafka::{Admin, InputWriter, bootstrap_from_env};
use dekaf_streams_benches::measure::Measurer;
use dekaf_streams_benches::systems::{Launcher, Running, SystemKind};
use dekaf_streams_benches::workload::{FinalValues, Guarantee, InputRecord, Workload};

const USAGE: &str = "usage: bench-recovery [--keys 1m] [--systems dekaf,kstreams] \
[--partitions 4] [--bootstrap 127.0.0.1:9092] [--kstreams-jar PATH] [--java java] \
[--java-opts '-Xmx2g'] [--bin-dir DIR] [--scratch DIR] [--timeout-seconds 900] \
[--restart-delay-seconds 0]";

const APP: &str = "dkb-wordcount";
const WORDS: u64 = 10;

/// What one system's recovery took.
struct Figures {
    kind: SystemKind,
    first_pass: Duration,
    first_new_output: Duration,
    caught_up: Duration,
    restored: Option<u64>,
}

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let keys = parse_count(f.get("keys").unwrap_or("1m"))?;
    let partitions: i32 = f.parse_or("partitions", 4)?;
    let timeout = Duration::from_secs(f.parse_or("timeout-seconds", 900)?);
    let restart_delay = Duration::from_secs(f.parse_or("restart-delay-seconds", 0)?);
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let exe_dir = std::env::current_exe()?
        .parent()
        .context("the binary's directory")?
        .to_owned();
    let launcher = Launcher {
        java: f.get("java").unwrap_or("java").to_owned(),
        java_opts: f
            .get("java-opts")
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        kstreams_jar: PathBuf::from(
            f.get("kstreams-jar")
                .unwrap_or("benches/kstreams/target/kstreams-bench.jar"),
        ),
        bin_dir: f.get("bin-dir").map_or(exe_dir, PathBuf::from),
    };
    let systems: Vec<SystemKind> = f
        .get("systems")
        .unwrap_or("dekaf,kstreams")
        .split(',')
        .map(str::parse)
        .collect::<Result<_>>()?;
    for s in &systems {
        if *s == SystemKind::Ceiling {
            bail!("the ceiling keeps no state: use --systems dekaf,kstreams");
        }
        launcher.check(*s)?;
    }
    let scratch = PathBuf::from(f.get("scratch").unwrap_or("/tmp/dekaf-bench-recovery"));
    let mut results = Vec::new();
    for kind in systems {
        eprintln!("== {} with {keys} keys", kind.tag());
        let setup = Setup {
            bootstrap: &bootstrap,
            keys,
            partitions,
            scratch: &scratch,
            timeout,
            restart_delay,
        };
        let figures = recover(kind, &launcher, &setup)?;
        eprintln!(
            "== {}: first new output {:.2} s after the restart, caught up after {:.2} s",
            kind.tag(),
            figures.first_new_output.as_secs_f64(),
            figures.caught_up.as_secs_f64()
        );
        results.push(figures);
    }
    println!(
        "| system | keys | first pass | restart → first new output | restart → caught up | records restored |"
    );
    println!("|---|---|---|---|---|---|");
    for r in &results {
        println!(
            "| {} | {keys} | {:.1} s | {:.2} s | {:.2} s | {} |",
            r.kind.tag(),
            r.first_pass.as_secs_f64(),
            r.first_new_output.as_secs_f64(),
            r.caught_up.as_secs_f64(),
            r.restored
                .map_or("not reported".to_owned(), |n| n.to_string())
        );
    }
    if restart_delay > Duration::ZERO {
        println!("\nrestarted {restart_delay:?} after the kill");
    }
    if let [ours, theirs] = &results[..] {
        println!(
            "\nfirst new output: {:.1}× faster; caught up: {:.1}× faster",
            theirs.first_new_output.as_secs_f64() / ours.first_new_output.as_secs_f64(),
            theirs.caught_up.as_secs_f64() / ours.caught_up.as_secs_f64()
        );
    }
    Ok(())
}

/// The sentences of one pass: every key once, `WORDS` to a sentence.
fn write_pass(writer: &InputWriter, keys: u64) -> Result<()> {
    let now = dekaf_streams_benches::now_ms();
    let mut sentence = String::new();
    for k in 0..keys {
        if !sentence.is_empty() {
            sentence.push(' ');
        }
        sentence.push_str(&format!("k{k}"));
        if (k + 1) % WORDS == 0 || k + 1 == keys {
            writer.send(&InputRecord {
                topic_suffix: "sentences",
                key: None,
                value: std::mem::take(&mut sentence).into_bytes(),
                timestamp_ms: now,
            })?;
        }
    }
    writer.flush()
}

/// Every key with count `n` (the output's 8-byte big-endian longs).
fn counts(keys: u64, n: i64) -> Arc<FinalValues> {
    Arc::new(
        (0..keys)
            .map(|k| (format!("k{k}").into_bytes(), n.to_be_bytes().to_vec()))
            .collect(),
    )
}

/// Polls `done` every 20 ms until it holds, failing after `timeout` or if `running` exits.
fn wait(
    running: &mut Running,
    timeout: Duration,
    what: &str,
    mut done: impl FnMut() -> bool,
) -> Result<Duration> {
    let started = Instant::now();
    loop {
        if done() {
            return Ok(started.elapsed());
        }
        running.check_alive()?;
        if started.elapsed() > timeout {
            bail!("{what}: not within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What every system's run shares.
struct Setup<'a> {
    bootstrap: &'a str,
    keys: u64,
    partitions: i32,
    scratch: &'a Path,
    timeout: Duration,
    restart_delay: Duration,
}

fn recover(kind: SystemKind, launcher: &Launcher, setup: &Setup<'_>) -> Result<Figures> {
    let Setup {
        bootstrap,
        keys,
        partitions,
        scratch,
        timeout,
        restart_delay,
    } = *setup;
    let admin = Admin::new(bootstrap)?;
    for w in admin.clean_up(APP, &[APP.to_owned()]) {
        eprintln!("warning: {w}");
    }
    // Topic deletion completes in the background.
    std::thread::sleep(Duration::from_secs(3));
    let topics = [format!("{APP}-sentences"), format!("{APP}-out")];
    admin.create_topics(&topics, partitions)?;
    admin.wait_for_topics(&topics, partitions as usize)?;
    let dir = scratch.join(kind.tag());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let args = SystemArgs {
        bootstrap: bootstrap.to_owned(),
        workload: Workload::WordCount,
        guarantee: Guarantee::ExactlyOnce,
        app_id: APP.to_owned(),
        input_prefix: APP.to_owned(),
        output_topic: format!("{APP}-out"),
        knobs: Knobs::default(),
        state_dir: dir.join("state").display().to_string(),
        max_seconds: timeout.as_secs() * 3,
        mode: Mode::Run,
        registry_url: None,
    };
    let command = || {
        let mut c = launcher.command(kind, &args);
        // dekaf-streams keeps its stores in LMDB, as Kafka Streams keeps them in RocksDB.
        c.env("DEKAF_BENCH_STORE", "lmdb");
        c
    };
    let writer = InputWriter::new(bootstrap, APP)?;
    write_pass(&writer, keys)?;
    let measurer = Measurer::start(bootstrap, &format!("{APP}-out"))?;
    measurer.observed().set_target(counts(keys, 1));

    let mut first = Running::spawn(command(), &dir.join("first.log"))?;
    let first_pass = wait(&mut first, timeout, "the first pass", || {
        measurer.observed().mismatched() == 0
    })?;
    eprintln!("   first pass counted in {:.1} s", first_pass.as_secs_f64());
    let before = measurer.observed().records;
    measurer.observed().set_target(counts(keys, 2));
    write_pass(&writer, keys)?;
    wait(&mut first, timeout, "output of the second pass", || {
        measurer.observed().records > before
    })?;
    let status = Command::new("kill")
        .arg("-KILL")
        .arg(first.pid().to_string())
        .status()?;
    if !status.success() {
        bail!("kill -KILL {} failed", first.pid());
    }
    first.wait_exit(Duration::from_secs(30))?;
    let mismatched = measurer.observed().mismatched();
    if mismatched == 0 {
        bail!("the second pass finished before the kill: use more --keys");
    }
    // What the killed process committed is visible by now; its open transaction never is.
    std::thread::sleep(Duration::from_secs(2).max(restart_delay));
    let seen = measurer.observed().records;
    eprintln!("   killed with {mismatched} keys still at 1");

    let mut second = Running::spawn(command(), &dir.join("restarted.log"))?;
    let restarted = second.started;
    wait(
        &mut second,
        timeout,
        "the first output after the restart",
        || measurer.observed().records > seen,
    )?;
    let first_new_output = restarted.elapsed();
    wait(
        &mut second,
        timeout,
        "catching up after the restart",
        || measurer.observed().mismatched() == 0,
    )?;
    let caught_up = restarted.elapsed();
    second.stop(Duration::from_secs(60))?;
    drop(measurer);
    let restored = restored_records(&dir.join("restarted.log"));
    for w in admin.clean_up(APP, &[APP.to_owned()]) {
        eprintln!("warning: {w}");
    }
    let _ = std::fs::remove_dir_all(dir.join("state"));
    Ok(Figures {
        kind,
        first_pass,
        first_new_output,
        caught_up,
        restored,
    })
}

/// The changelog records dekaf-streams' `task restored` log lines report, summed (`None` when
/// the log has none: Kafka Streams logs its restores differently).
fn restored_records(log: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(log).ok()?;
    let mut total = None;
    for line in text.lines().filter(|l| l.contains("task restored")) {
        let plain: String = dekaf_streams_benches::strip_ansi(line);
        if let Some(n) = plain
            .split(' ')
            .find_map(|w| w.strip_prefix("records="))
            .and_then(|n| n.parse::<u64>().ok())
        {
            *total.get_or_insert(0) += n;
        }
    }
    total
}
