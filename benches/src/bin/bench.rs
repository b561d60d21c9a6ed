//! The end-to-end benchmark driver (`benches/run.sh` calls it).
//!
//! For each workload × guarantee it runs the selected systems in turn on the same input, each on
//! its own copy of the input topics (identical records and timestamps):
//! 1. backlog: write `--records` input records, start the system, measure from its `running`
//!    event (or its first output, if earlier) until its output, read with `read_committed`,
//!    equals the reference model's final values (throughput);
//! 2. live: write input at `--live-rate` for `--live-seconds`, stamped now; latency per output
//!    record = visible − timestamp (p50/p99);
//! 3. stop it (SIGTERM), keep peak RSS and CPU seconds from /proc;
//! 4. stateful workloads: delete its state directory, start it in restore mode, time the restore.
//!
//! The Avro word count (`avro_wordcount`) needs a schema registry (`--registry-url`, its
//! Confluent API; `run.sh` starts one with `scripts/registry.sh`): the driver registers the input
//! schema under `<input topic>-value` and frames the input with its id, passes the URL to the
//! systems, reads every output value back as an Avro `WordCount` of its key, and checks that every
//! schema id the output names is `WordCount`'s.
//!
//! Outputs of the systems are compared (final value per key); a difference is a failure. Writes
//! `results.json` and `report.md` into a new directory under `--results-dir`, and cleans up its
//! topics and groups.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use dekaf_streams_benches::args::{Flags, Knobs, Mode, SystemArgs, parse_count};
use dekaf_streams_benches::avro;
use dekaf_streams_benches::kafka::{Admin, InputWriter, bootstrap_from_env, wait_for_stable_group};
use dekaf_streams_benches::measure::{
    Measurer, OutputDecoding, differing_keys, fingerprint, percentiles,
};
use dekaf_streams_benches::report::{Report, Restore, RunResult, Status};
use dekaf_streams_benches::systems::{Launcher, Running, SystemKind};
use dekaf_streams_benches::workload::{FinalValues, Guarantee, Reference, Workload};
use dekaf_streams_benches::{now_micros, now_ms, procstat};

const USAGE: &str = "usage: bench [--records 100k] [--workloads all|stateless,wordcount,window,join,streamjoin,session,tablejoin,fkjoin,cogroup,versionedjoin,avro_wordcount,largestate-<zipf|uniform>-<keys>] \
[--guarantees all|exactly_once,at_least_once] [--systems dekaf,kstreams,ceiling] \
[--partitions 2] [--threads 1 or a list: 1,2,4,1x2 (TxI: I instances of T threads)] [--instances 1 or a list: 1,2] [--commit-interval-ms 100] [--linger-ms 5] [--batch-size 16384] \
[--live-rate 1000] [--live-seconds 5] [--timeout-seconds 300] [--restore true|false] \
[--results-dir benches/results] [--kstreams-jar benches/kstreams/target/kstreams-bench.jar] \
[--java java] [--java-opts \"-Xmx1g\"] [--bin-dir <dir of this binary>] [--broker-version 4.4.0] \
[--keep-topics false] [--purge-stale false] [--fixed-names false] [--repeat 1] [--bootstrap 127.0.0.1:$DEKAF_KAFKA_PORT] \
[--registry-url $DEKAF_REGISTRY_URL, default http://127.0.0.1:8480/apis/ccompat/v7 (avro_wordcount)]";

/// Everything a run needs.
struct Plan {
    bootstrap: String,
    records: u64,
    partitions: i32,
    /// Shared knobs; `threads` is set per case from `parallelism`.
    knobs: Knobs,
    /// Every (threads per instance, instances) to measure: `--threads 1,2,4,1x2` × `--instances
    /// 1,2` (an entry `TxI` of `--threads` names its instances itself). The instances of a case
    /// are processes of one system in one group.
    parallelism: Vec<(u32, u32)>,
    live_rate: u64,
    live_seconds: u64,
    timeout: Duration,
    restore: bool,
    keep_topics: bool,
    fixed_names: bool,
    repeat: u32,
    launcher: Launcher,
    /// The schema registry's Confluent API (Avro workloads).
    registry_url: String,
    run_id: String,
    scratch: PathBuf,
}

fn list<T>(v: &str, all: &[T]) -> Result<Vec<T>>
where
    T: std::str::FromStr<Err = anyhow::Error> + Clone,
{
    if v == "all" {
        return Ok(all.to_vec());
    }
    v.split(',').map(|s| s.trim().parse()).collect()
}

/// The (threads, instances) cases of `--threads T[xI],..` and `--instances I,..`: every plain
/// thread count with every instance count, and every `TxI` entry as it is.
fn parallelism(threads: &str, instances: &str) -> Result<Vec<(u32, u32)>> {
    let count = |x: &str, flag: &str| match x.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(anyhow!(
            "--{flag}: {x:?} is not a count of 1 or more (e.g. --threads 1,2,4,1x2 --instances 1)"
        )),
    };
    let instance_counts: Vec<u32> = instances
        .split(',')
        .map(|x| count(x, "instances"))
        .collect::<Result<_>>()?;
    let mut cases = Vec::new();
    for entry in threads.split(',') {
        match entry.split_once(['x', '×']) {
            Some((t, i)) => cases.push((count(t, "threads")?, count(i, "threads")?)),
            None => {
                let t = count(entry, "threads")?;
                cases.extend(instance_counts.iter().map(|i| (t, *i)));
            }
        }
    }
    cases.dedup();
    Ok(cases)
}

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let workloads: Vec<Workload> = list(f.get("workloads").unwrap_or("all"), &Workload::ALL)?;
    let guarantees: Vec<Guarantee> = list(f.get("guarantees").unwrap_or("all"), &Guarantee::ALL)?;
    let systems: Vec<SystemKind> = list(
        f.get("systems").unwrap_or("kstreams,ceiling"),
        &SystemKind::ALL,
    )?;
    let results_dir = PathBuf::from(f.get("results-dir").unwrap_or("benches/results"));
    let exe_dir = std::env::current_exe()?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| anyhow!("cannot tell this binary's directory; pass --bin-dir"))?;
    let d = Knobs::default();
    let run_id = format!("{:x}", now_ms() / 1000);
    let scratch = results_dir.join("tmp").join(&run_id);
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let plan = Plan {
        records: parse_count(f.get("records").unwrap_or("100k"))?,
        partitions: f.parse_or("partitions", 2)?,
        parallelism: parallelism(
            f.get("threads").unwrap_or("1"),
            f.get("instances").unwrap_or("1"),
        )?,
        knobs: Knobs {
            threads: d.threads,
            commit_interval_ms: f.parse_or("commit-interval-ms", d.commit_interval_ms)?,
            linger_ms: f.parse_or("linger-ms", d.linger_ms)?,
            batch_size: f.parse_or("batch-size", d.batch_size)?,
        },
        live_rate: f.parse_or("live-rate", 1000)?,
        live_seconds: f.parse_or("live-seconds", 5)?,
        timeout: Duration::from_secs(f.parse_or("timeout-seconds", 300)?),
        restore: f.parse_or("restore", true)?,
        keep_topics: f.parse_or("keep-topics", false)?,
        fixed_names: f.parse_or("fixed-names", false)?,
        repeat: f.parse_or::<u32>("repeat", 1)?.max(1),
        launcher: Launcher {
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
        },
        registry_url: f
            .get("registry-url")
            .map_or_else(avro::registry_url_from_env, str::to_owned),
        bootstrap,
        run_id,
        scratch,
    };
    for s in &systems {
        plan.launcher.check(*s)?;
    }
    let admin = Admin::new(&plan.bootstrap)?;
    // Fail early, with what to do, when there is no broker.
    let stale = admin.topics_with_prefix("dkb-").with_context(|| {
        format!(
            "no broker at {}; start one with scripts/kafka.sh start",
            plan.bootstrap
        )
    })?;
    if !stale.is_empty() {
        if f.parse_or("purge-stale", false)? {
            eprintln!(
                "[bench] deleting {} topics of earlier interrupted runs (dkb-*) and their groups",
                stale.len()
            );
            // Each system's group is its output topic's name with `-app` for `-out`.
            let groups: Vec<String> = stale
                .iter()
                .filter_map(|t| t.strip_suffix("-out").map(|p| format!("{p}-app")))
                .collect();
            for w in admin.clean_up("dkb-", &groups) {
                eprintln!("[bench] warning: {w}");
            }
        } else {
            eprintln!(
                "[bench] note: {} topics of earlier interrupted runs (dkb-*) are on the broker; \
                 --purge-stale true deletes them",
                stale.len()
            );
        }
    }

    let mut report = Report {
        machine: procstat::machine(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        started: rfc3339(now_ms() / 1000),
        ..Default::default()
    };
    report.versions = versions(&plan, f.get("broker-version"));
    if workloads.iter().any(|w| w.uses_registry()) {
        report.versions.insert(
            "schema registry".into(),
            format!(
                "Apicurio Registry 3.3.3 (scripts/registry.sh), Confluent API {}; Kafka Streams' \
                 Avro serde: Apicurio's AvroSerde (apicurio-registry-avro-serde-kafka 3.1.7, \
                 Confluent framing)",
                plan.registry_url
            ),
        );
    }
    report.settings = BTreeMap::from([
        ("records".into(), plan.records.to_string()),
        ("partitions".into(), plan.partitions.to_string()),
        (
            "threads".into(),
            plan.parallelism
                .iter()
                .map(|(t, i)| {
                    if *i > 1 {
                        format!("{t}x{i}")
                    } else {
                        t.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
        // dekaf-bench-app reads DEKAF_BENCH_STORE from the environment it inherits.
        (
            "dekaf store".into(),
            // `largestate` keeps its store in LMDB whatever the variable says.
            match std::env::var("DEKAF_BENCH_STORE").as_deref() {
                Ok("lmdb") => "lmdb".into(),
                _ if workloads
                    .iter()
                    .all(|w| matches!(w, Workload::LargeState(_))) =>
                {
                    "lmdb".into()
                }
                _ if workloads
                    .iter()
                    .any(|w| matches!(w, Workload::LargeState(_))) =>
                {
                    "memory (largestate: lmdb)".into()
                }
                _ => "memory".into(),
            },
        ),
        (
            "commit.interval.ms".into(),
            plan.knobs.commit_interval_ms.to_string(),
        ),
        ("linger.ms".into(), plan.knobs.linger_ms.to_string()),
        ("batch.size".into(), plan.knobs.batch_size.to_string()),
        (
            "live".into(),
            format!("{} rec/s for {} s", plan.live_rate, plan.live_seconds),
        ),
        ("load average at start".into(), procstat::load_average()),
        (
            "runs per figure".into(),
            if plan.repeat > 1 {
                format!(
                    "{} (median by throughput, latency of the worst run; any failed run fails the row)",
                    plan.repeat
                )
            } else {
                "1".into()
            },
        ),
        (
            "java opts".into(),
            if plan.launcher.java_opts.is_empty() {
                "JVM defaults".into()
            } else {
                plan.launcher.java_opts.join(" ")
            },
        ),
    ]);

    let mut cases = Vec::new();
    for &(threads, instances) in &plan.parallelism {
        {
            for w in &workloads {
                for g in &guarantees {
                    cases.push(Case {
                        workload: *w,
                        guarantee: *g,
                        threads,
                        instances,
                    });
                }
            }
        }
    }
    for case in &cases {
        let (w, g) = (&case.workload, &case.guarantee);
        {
            let prefix = format!(
                "dkb-{}-{}-{}-t{}i{}",
                plan.run_id,
                w,
                g.tag(),
                case.threads,
                case.instances
            );
            let end_ms = now_ms();
            // The ceiling assigns partitions statically: two processes would both read all.
            let selected: Vec<SystemKind> = systems
                .iter()
                .filter(|s| s.supports(*w) && (case.instances == 1 || **s != SystemKind::Ceiling))
                .copied()
                .collect();
            // Repeats take turns (dekaf, Kafka Streams, dekaf, …), not one system's runs in a
            // row: the broker (started just before by run.sh) warms up over the first runs, and
            // a system whose runs all came first was measured against a colder broker.
            let mut runs: Vec<Vec<(RunResult, Option<FinalValues>)>> =
                selected.iter().map(|_| Vec::new()).collect();
            for rep in 0..plan.repeat {
                for (s, runs) in selected.iter().zip(runs.iter_mut()) {
                    eprintln!(
                        "[bench] {w} {g} {} threads {} instances {} (run {}/{}): starting",
                        s.tag(),
                        case.threads,
                        case.instances,
                        rep + 1,
                        plan.repeat
                    );
                    let run_prefix = if plan.repeat > 1 {
                        format!("{prefix}-r{rep}")
                    } else {
                        prefix.clone()
                    };
                    let names = Names::new(&plan, *w, *s, &run_prefix);
                    if plan.fixed_names {
                        report.warnings.extend(names.clean(&admin));
                    }
                    let result = run_one(&plan, &admin, case, *s, &names, end_ms, rep);
                    if !plan.keep_topics {
                        report.warnings.extend(names.clean(&admin));
                    }
                    let (row, finals) = match result {
                        Ok((row, finals)) => (row, Some(finals)),
                        Err(e) => {
                            let mut row = RunResult::new(
                                &w.to_string(),
                                g.name(),
                                s.tag(),
                                Status::Failed(format!("{e:#}")),
                            );
                            row.input_records = plan.records;
                            row.threads = case.threads;
                            row.instances = case.instances;
                            (row, None)
                        }
                    };
                    eprintln!(
                        "[bench] {w} {g} {}: {:?} {:?} rec/s p99 {:?} ms, {} output records by the backlog's end",
                        s.tag(),
                        row.status,
                        row.throughput_rps.map(|x| x.round()),
                        row.p99_ms,
                        row.output_records
                    );
                    runs.push((row, finals));
                }
            }
            let mut rows: Vec<(RunResult, Option<FinalValues>)> =
                runs.into_iter().map(median_run).collect();
            compare(&mut rows, case, &mut report.comparisons);
            report.results.extend(rows.into_iter().map(|(r, _)| r));
        }
    }
    report
        .settings
        .insert("load average at end".into(), procstat::load_average());
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    let busy = ["load average at start", "load average at end"]
        .iter()
        .any(|k| {
            report.settings[*k]
                .split_whitespace()
                .next()
                .and_then(|l| l.parse::<f64>().ok())
                .is_some_and(|l| l > cores)
        });
    if busy {
        report.warnings.push(format!(
            "the machine was busy (1-minute load average above its {cores} cores): other work \
             competed for the CPU, so these figures are skewed; run again on a quiet machine"
        ));
    }
    // The scratch directory keeps only the systems' logs (state directories are gone).
    eprintln!("[bench] logs of the systems: {}", plan.scratch.display());

    let out_dir = results_dir.join(format!(
        "{}-{}",
        report.started.replace([':', '-'], "").trim_end_matches('Z'),
        plan.run_id
    ));
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(
        out_dir.join("results.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    std::fs::write(
        out_dir.join("report.md"),
        report.markdown(Some("chart.png")),
    )?;
    println!("{}", out_dir.display());
    let failed = report
        .results
        .iter()
        .filter(|r| matches!(r.status, Status::Failed(_)))
        .count();
    if failed > 0 {
        eprintln!(
            "[bench] {failed} run(s) failed; see {}",
            out_dir.join("report.md").display()
        );
    }
    Ok(())
}

/// One measured configuration: workload, guarantee, threads per instance, instances.
struct Case {
    workload: Workload,
    guarantee: Guarantee,
    threads: u32,
    instances: u32,
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} threads {}",
            self.workload, self.guarantee, self.threads
        )?;
        if self.instances > 1 {
            write!(f, " × {} instances", self.instances)?;
        }
        Ok(())
    }
}

/// Writes the live phase's latency samples, one per line: the input record's timestamp (ms since
/// the epoch) and its latency (ms), tab-separated, in the order the output became visible: when
/// the tail happened, to set beside the system's log. A file that cannot be written is a note,
/// not a failed run.
fn write_latencies(path: &Path, samples: &[(i64, f64)]) {
    let mut text = String::with_capacity(samples.len() * 24);
    for (ts, latency) in samples {
        let _ = writeln!(text, "{ts}\t{latency:.3}");
    }
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("[bench] note: cannot write {}: {e}", path.display());
    }
}

/// The run with the median throughput of `runs` (at least one); a failed run wins, so that any
/// failure is reported.
fn median_run(mut runs: Vec<(RunResult, Option<FinalValues>)>) -> (RunResult, Option<FinalValues>) {
    let n = runs.len();
    if let Some(i) = runs.iter().position(|(r, _)| r.status != Status::Ok) {
        let (mut row, finals) = runs.swap_remove(i);
        if n > 1
            && let Status::Failed(why) = &row.status
        {
            row.status = Status::Failed(format!("one of {n} runs: {why}"));
        }
        return (row, finals);
    }
    let every_run: Vec<_> = if n > 1 {
        runs.iter().map(|(r, _)| r.figures()).collect()
    } else {
        Vec::new()
    };
    runs.sort_by(|a, b| {
        a.0.throughput_rps
            .unwrap_or(0.0)
            .total_cmp(&b.0.throughput_rps.unwrap_or(0.0))
    });
    let (mut row, finals) = runs.swap_remove(n / 2);
    row.every_run = every_run;
    (row, finals)
}

/// Topic names and application id of one system's run.
struct Names {
    input_prefix: String,
    output: String,
    app_id: String,
    /// Every topic of the run (inputs, output, internal topics) starts with this.
    topic_prefix: String,
}

impl Names {
    /// Unique names per run and system (`dkb-<run>-<workload>-<guarantee>-<system>-…`), or with
    /// `--fixed-names` the same for every run and system (`dkb-<workload>`, `dkb-<workload>-out`,
    /// application id `dkb-<workload>`), for a system whose names are fixed when it is compiled.
    fn new(plan: &Plan, w: Workload, s: SystemKind, prefix: &str) -> Self {
        let base = if plan.fixed_names {
            format!("dkb-{}", w.name())
        } else {
            format!("{prefix}-{}", s.tag())
        };
        Self {
            input_prefix: base.clone(),
            output: format!("{base}-out"),
            app_id: if plan.fixed_names {
                base.clone()
            } else {
                format!("{base}-app")
            },
            topic_prefix: format!("{base}-"),
        }
    }

    /// Deletes the run's topics and group, and waits until the topics are gone (so that the
    /// next run can create them afresh). Returns warnings.
    fn clean(&self, admin: &Admin) -> Vec<String> {
        let mut warnings = admin.clean_up(&self.topic_prefix, std::slice::from_ref(&self.app_id));
        let deadline = Instant::now() + Duration::from_secs(60);
        while admin
            .topics_with_prefix(&self.topic_prefix)
            .is_ok_and(|t| !t.is_empty())
        {
            if Instant::now() > deadline {
                warnings.push(format!(
                    "topics {}* still there after 60 s",
                    self.topic_prefix
                ));
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        warnings
    }
}

/// Runs one system on one case (its instances side by side in one group); returns its figures
/// and the backlog's final values (for the cross-system comparison).
fn run_one(
    plan: &Plan,
    admin: &Admin,
    case: &Case,
    s: SystemKind,
    names: &Names,
    end_ms: i64,
    rep: u32,
) -> Result<(RunResult, FinalValues)> {
    let (w, g) = (case.workload, case.guarantee);
    let sys_prefix = names.input_prefix.clone();
    let output = names.output.clone();
    let mut topics: Vec<String> = w
        .input_suffixes()
        .iter()
        .map(|x| format!("{sys_prefix}-{x}"))
        .collect();
    topics.push(output.clone());
    admin.create_topics(&topics, plan.partitions)?;
    admin.wait_for_topics(&topics, plan.partitions as usize)?;

    // The same backlog for every system: same records, same timestamps. The Avro word count's
    // sentences are framed with the id of the schema registered under the input's subject.
    let registry = w.uses_registry().then(|| avro::client(&plan.registry_url));
    let mut writer = InputWriter::new(&plan.bootstrap, &sys_prefix)?;
    if let Some(registry) = &registry {
        let subject = format!("{sys_prefix}-sentences-value");
        writer = writer.avro_sentences(avro::register_sentence(registry, &subject)?);
    }
    let mut model = Reference::new(w);
    for r in w.backlog(plan.records, end_ms) {
        writer.send(&r)?;
        model.apply(&r);
    }
    writer.flush()?;
    let expected_backlog = Arc::new(model.finals().clone());

    let decoding = if w.uses_registry() {
        OutputDecoding::AvroWordCount
    } else {
        OutputDecoding::Raw
    };
    let measurer = Measurer::start_decoding(&plan.bootstrap, &output, decoding)?;
    measurer.observed().set_target(expected_backlog.clone());
    // Each instance its own state directory (Kafka Streams locks it, and keeps its process id
    // there).
    let state_dir = |i: u32| plan.scratch.join(format!("{}-state-{i}", s.tag()));
    let args = SystemArgs {
        bootstrap: plan.bootstrap.clone(),
        workload: w,
        guarantee: g,
        app_id: names.app_id.clone(),
        input_prefix: sys_prefix.clone(),
        output_topic: output.clone(),
        knobs: Knobs {
            threads: case.threads,
            ..plan.knobs.clone()
        },
        state_dir: state_dir(0).display().to_string(),
        max_seconds: plan.timeout.as_secs() * 2 + 60,
        mode: Mode::Run,
        registry_url: registry.as_ref().map(|_| plan.registry_url.clone()),
    };
    // Each repeat keeps its own log (`-r<n>` when the run repeats): the commit phases of the
    // run with the worst tail are what `bench-phases` is for.
    let repeat = if plan.repeat > 1 {
        format!("-r{rep}")
    } else {
        String::new()
    };
    let log = |i: u32, what: &str| {
        plan.scratch.join(format!(
            "{}-{}-{}-t{}{repeat}-i{i}{what}.log",
            w,
            g.tag(),
            s.tag(),
            case.threads
        ))
    };
    let mut instances = Vec::new();
    for i in 0..case.instances {
        let mut a = args.clone();
        a.state_dir = state_dir(i).display().to_string();
        instances.push(Running::spawn(plan.launcher.command(s, &a), &log(i, ""))?);
    }
    let started_us = now_micros();
    let check_alive = |instances: &mut [Running]| -> Result<()> {
        for r in instances.iter_mut() {
            r.check_alive()?;
        }
        Ok(())
    };

    // 1. Backlog: from the first `running` event until all output is visible.
    let ready = Running::wait_first_running(&mut instances, plan.timeout)?;
    let running_us = ready["time_ms"]
        .as_i64()
        .map_or_else(now_micros, |ms| ms * 1000);
    let deadline = Instant::now() + plan.timeout;
    let done_us = loop {
        if let Some(t) = measurer.observed().matched_at_us {
            break t;
        }
        if let Err(e) = check_alive(&mut instances) {
            return Err(e.context(mismatch_note(&measurer, w)));
        }
        if Instant::now() > deadline {
            bail!(
                "backlog output incomplete after {:?}: {}",
                plan.timeout,
                mismatch_note(&measurer, w)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let cpu_backlog: f64 = instances.iter().map(|r| r.resources().cpu_seconds).sum();
    let disk_backlog: u64 = instances
        .iter()
        .map(|r| r.resources().disk_write_bytes)
        .sum();
    let (first_us, backlog_finals, backlog_records) = {
        let o = measurer.observed();
        (
            o.first_visible_us.unwrap_or(done_us),
            o.finals.clone(),
            o.records,
        )
    };
    // A system may process (and commit) before it calls itself running (Kafka Streams does for
    // stateful tasks that need no restore): the clock starts at whichever comes first.
    let start_us = running_us.min(first_us);
    let backlog_s = ((done_us - start_us) as f64 / 1e6).max(1e-3);

    // 2. Live phase at a fixed rate, stamped now. It starts once the group has settled: a
    // system that finishes its backlog within the startup rebalance (dekaf-streams on two
    // threads finishes 100k records in 0.3 s; the second member gets its tasks a heartbeat
    // later) would otherwise measure that handover as its steady-state latency, and a slower
    // system would not.
    let members = (case.threads * case.instances) as usize;
    let settled = wait_for_stable_group(
        &plan.bootstrap,
        &args.app_id,
        members,
        Duration::from_secs(30),
    );
    if !settled.stable {
        eprintln!(
            "[bench] {} {} {}: the group did not settle within 30 s (state {}, {} of {members} members); the live phase starts anyway",
            w,
            g.tag(),
            s.tag(),
            settled.state,
            settled.members
        );
    }
    let live_from = now_ms();
    measurer.observed().latency_from_ms = live_from;
    let total_live = plan.live_rate * plan.live_seconds;
    let t0 = Instant::now();
    let mut sent = 0u64;
    while sent < total_live {
        let due = ((t0.elapsed().as_secs_f64() * plan.live_rate as f64) as u64).min(total_live);
        while sent < due {
            let r = w.record(plan.records + sent, now_ms());
            writer.send(&r)?;
            model.apply(&r);
            sent += 1;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    writer.flush()?;
    measurer
        .observed()
        .set_target(Arc::new(model.finals().clone()));
    let live_deadline = Instant::now() + Duration::from_secs(60);
    while measurer.observed().matched_at_us.is_none() {
        if let Err(e) = check_alive(&mut instances) {
            return Err(e.context(mismatch_note(&measurer, w)));
        }
        if Instant::now() > live_deadline {
            bail!(
                "live-phase output incomplete after 60 s: {}",
                mismatch_note(&measurer, w)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }

    // 3. Stop (all instances at once); resources; the internal topics it made.
    let samples: Vec<_> = instances.iter().map(Running::resources).collect();
    for r in &mut instances {
        r.terminate()?;
    }
    let mut statuses = Vec::new();
    for r in instances {
        statuses.push(r.stop(Duration::from_secs(40))?.1);
    }
    let app_prefix = format!("{}-", args.app_id);
    let mut internal: Vec<String> = admin
        .topics_with_prefix(&app_prefix)?
        .into_iter()
        .filter(|t| !topics.contains(t))
        .map(|t| t[app_prefix.len()..].to_owned())
        .collect();
    internal.sort();
    let observed = measurer.stop()?;
    // The Avro output: every schema id it names must be WordCount's.
    if let Some(registry) = &registry {
        if observed.schema_ids.is_empty() {
            bail!("no output value named a schema id");
        }
        avro::check_word_count_ids(registry, &observed.schema_ids)?;
    }
    let mut row = RunResult::new(&w.to_string(), g.name(), s.tag(), Status::Ok);
    row.threads = case.threads;
    row.instances = case.instances;
    row.input_records = plan.records;
    row.throughput_rps = Some(plan.records as f64 / backlog_s);
    row.backlog_seconds = Some(backlog_s);
    row.startup_seconds = Some((running_us - started_us) as f64 / 1e6);
    row.first_output_seconds = Some((first_us - running_us) as f64 / 1e6);
    write_latencies(
        &log(0, "-latency").with_extension("tsv"),
        &observed.latency_samples,
    );
    let (p50, p99) = percentiles(&observed.latencies()).unzip();
    row.p50_ms = p50;
    row.p99_ms = p99;
    row.latency_samples = observed.latency_samples.len();
    // The instances' peaks added up (each process's own VmHWM).
    let peak_rss: u64 = samples.iter().map(|x| x.peak_rss_bytes).sum();
    row.peak_rss_mib = Some(peak_rss as f64 / (1024.0 * 1024.0));
    let peak_anon: u64 = samples.iter().map(|x| x.anon_rss_bytes).sum();
    row.peak_anon_rss_mib = Some(peak_anon as f64 / (1024.0 * 1024.0));
    row.cpu_seconds_backlog = Some(cpu_backlog);
    row.cpu_seconds_total = Some(samples.iter().map(|x| x.cpu_seconds).sum());
    row.cpu_us_per_record = Some(cpu_backlog * 1e6 / plan.records.max(1) as f64);
    row.disk_bytes_per_record = Some(disk_backlog as f64 / plan.records.max(1) as f64);
    row.output_records = backlog_records;
    row.output_keys = backlog_finals.len();
    row.fingerprint = Some(format!("{:016x}", fingerprint(&backlog_finals)));
    row.internal_topics = internal;
    for (i, status) in statuses.iter().enumerate() {
        // 143: the JVM's exit status after SIGTERM and its shutdown hooks (a clean stop).
        if !status.success() && status.code() != Some(143) {
            eprintln!(
                "[bench] note: {} exited with {status} after SIGTERM; see {}",
                s.tag(),
                log(i as u32, "").display()
            );
        }
    }

    // 4. Restore rate (stateful workloads, one instance): delete the state directory and
    //    restart.
    if plan.restore && w.is_stateful() && s.restores() && case.instances == 1 {
        let _ = std::fs::remove_dir_all(state_dir(0));
        let mut restore_args = args.clone();
        restore_args.mode = Mode::Restore;
        let mut r = Running::spawn(plan.launcher.command(s, &restore_args), &log(0, "-restore"))?;
        match r.wait_event("restored", plan.timeout) {
            Ok(ev) => {
                let records = ev["records"].as_u64().unwrap_or(0);
                let millis = ev["millis"].as_f64().unwrap_or(0.0);
                row.restore = Some(Restore {
                    records,
                    millis,
                    records_per_second: (millis > 0.0).then(|| records as f64 / (millis / 1000.0)),
                    seconds_to_ready: r.started.elapsed().as_secs_f64(),
                });
                let _ = r.wait_exit(Duration::from_secs(40))?;
            }
            Err(e) => {
                let _ = r.stop(Duration::from_secs(10));
                eprintln!("[bench] restore of {} failed: {e:#}", s.tag());
                row.status = Status::Failed(format!("restore: {e:#}"));
            }
        }
    }
    for i in 0..case.instances {
        let _ = std::fs::remove_dir_all(state_dir(i));
    }
    Ok((row, backlog_finals))
}

fn mismatch_note(m: &Measurer, w: Workload) -> String {
    let o = m.observed();
    let sample = o.diff_sample(3, |v| w.output_format().render(v));
    let undecodable = o.first_decode_error.as_ref().map_or_else(String::new, |e| {
        format!(
            "; {} output values did not decode, the first: {e}",
            o.undecodable
        )
    });
    format!(
        "{} keys differ from the reference ({} output records read); e.g. {}{undecodable}",
        o.mismatched(),
        o.records,
        sample.join("; ")
    )
}

/// Compares the backlog outputs of the systems that succeeded; a difference fails them all.
fn compare(rows: &mut [(RunResult, Option<FinalValues>)], case: &Case, notes: &mut Vec<String>) {
    let w = case.workload;
    for (row, _) in rows.iter() {
        if row.status == Status::Ok && row.system != "ceiling" {
            let expected: Vec<&str> = w.internal_topics().to_vec();
            if row.internal_topics != expected {
                notes.push(format!(
                    "**internal topics** {case} {}: made [{}], WORKLOADS.md names [{}] (after `<app id>-`)",
                    row.system,
                    row.internal_topics.join(", "),
                    expected.join(", ")
                ));
            }
        }
    }
    let ok: Vec<usize> = (0..rows.len())
        .filter(|i| rows[*i].0.status == Status::Ok)
        .collect();
    let Some(&first) = ok.first() else { return };
    let mut agree = true;
    for &i in &ok[1..] {
        let (Some(a), Some(b)) = (&rows[first].1, &rows[i].1) else {
            continue;
        };
        let diff = differing_keys(a, b, 3);
        if !diff.is_empty() {
            agree = false;
            let keys: Vec<String> = diff
                .iter()
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect();
            notes.push(format!(
                "**MISMATCH** {case}: {} and {} differ, e.g. on keys {}",
                rows[first].0.system,
                rows[i].0.system,
                keys.join(", ")
            ));
        }
    }
    if agree {
        let names: Vec<&str> = ok.iter().map(|i| rows[*i].0.system.as_str()).collect();
        let keys = rows[first].1.as_ref().map_or(0, |m| m.len());
        notes.push(format!(
            "{case}: {} agree with the reference model on {keys} keys (fingerprint {})",
            names.join(", "),
            rows[first].0.fingerprint.as_deref().unwrap_or("?")
        ));
    } else {
        for &i in &ok {
            rows[i].0.status = Status::Failed("output differs from another system's".into());
        }
    }
}

fn command_line(cmd: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(cmd).args(args).output().ok()?;
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    String::from_utf8_lossy(&text)
        .lines()
        .next()
        .map(|l| l.trim().to_owned())
}

fn versions(plan: &Plan, broker: Option<&str>) -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    v.insert(
        "Kafka Streams".into(),
        "4.4.0 (benches/kstreams/pom.xml)".into(),
    );
    v.insert(
        "broker".into(),
        format!(
            "Apache Kafka {} (scripts/kafka.sh), 127.0.0.1",
            broker.unwrap_or("4.4.0")
        ),
    );
    v.insert("librdkafka".into(), rdkafka::util::get_rdkafka_version().1);
    if let Some(j) = command_line(&plan.launcher.java, &["-version"]) {
        v.insert("java".into(), j);
    }
    if let Some(r) = command_line("rustc", &["-V"]) {
        v.insert("rustc".into(), r);
    }
    if let Some(c) = command_line("git", &["rev-parse", "--short", "HEAD"]) {
        v.insert("dekaf-streams commit".into(), c);
    }
    v
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (UTC).
fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (H. Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn thread_and_instance_lists_make_every_case() {
        assert_eq!(
            super::parallelism("1,2,4,1x2", "1").expect("valid"),
            [(1, 1), (2, 1), (4, 1), (1, 2)]
        );
        assert_eq!(
            super::parallelism("1,2", "1,2").expect("valid"),
            [(1, 1), (1, 2), (2, 1), (2, 2)]
        );
        assert!(super::parallelism("0", "1").is_err());
        assert!(super::parallelism("2", "two").is_err());
    }

    #[test]
    fn formats_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(1_764_667_200), "2025-12-02T09:20:00Z");
    }
}
