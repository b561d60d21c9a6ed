//! Random faults on the replicated cluster, run after run.
//!
//! `fault-kill-loop [runs] [instances]` (default 20 runs, 3 instances): each run recreates the
//! `fault-loop` application, produces 6 000 sentences over 20 s while killing a random instance
//! every 2–5 s and starting it again, then checks exactly-once output with the independent
//! verifier.
//!
//! `fault-kill-loop --mixed [runs] [instances]` mixes every fault
//! ([`dekaf_streams_harness::faults::mixed`]): instance SIGKILLs and SIGKILLs of the broker
//! leading an input partition, of the group coordinator's broker and of a transaction
//! coordinator's broker, each broker started again 2–6 s later, in random order every 2–5 s
//! while input arrives; three instances of two threads (the first keeps its stores in LMDB);
//! runs alternate exactly-once (checked exactly) and at-least-once (checked for no loss), and
//! pairs of runs alternate plaintext and SASL_SSL (SCRAM-SHA-512: instances, input producer
//! and verifier all on the nodes' SASL_SSL listeners), so runs 1, 2, 3, 4 are exactly-once
//! plaintext, at-least-once plaintext, exactly-once SASL_SSL, at-least-once SASL_SSL; every
//! SASL_SSL run kills the group coordinator's broker at least once (its TLS connections end
//! without `close_notify`). `--guarantee exactly_once|at_least_once` and
//! `--security plaintext|sasl_ssl` run one of them only.
//!
//! Prints one line per run (with the faults that landed) and `N/N exact` at the end, then (with
//! `--mixed`) the exact runs per guarantee and security mode and the faults per kind; exits 1
//! unless every run was.
//!
//! Needs the cluster: `DEKAF_KAFKA_PORT=9192 scripts/kafka.sh start --brokers 3`
//! (`DEKAF_CLUSTER_PORT` says where, default 9192), and `fault-instance` next to it (the same
//! directory as this binary: copy both elsewhere to keep other builds from replacing them
//! mid-loop). Logs of run `r` are in `$TMPDIR/fault-kill-loop/run-r/`.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use std::collections::BTreeMap;

use dekaf_streams_harness::faults::cluster::{Cluster, Security};
use dekaf_streams_harness::faults::instance::InstanceSettings;
use dekaf_streams_harness::faults::mixed::{self, Fault, Tally};
use dekaf_streams_harness::faults::scenario::Scenario;
use dekaf_streams_harness::faults::verify;

/// The loop's options.
struct Options {
    runs: usize,
    instances: usize,
    mixed: bool,
    guarantee: Option<&'static str>,
    security: Option<Security>,
}

fn options() -> Result<Options, String> {
    let mut positional = Vec::new();
    let mut mixed = false;
    let mut guarantee = None;
    let mut security = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mixed" => mixed = true,
            "--guarantee" => {
                guarantee = match args.next().as_deref() {
                    Some("exactly_once") => Some("exactly_once"),
                    Some("at_least_once") => Some("at_least_once"),
                    other => {
                        return Err(format!(
                            "--guarantee {other:?}: exactly_once or at_least_once"
                        ));
                    }
                }
            }
            "--security" => {
                security = match args.next().as_deref() {
                    Some("plaintext") => Some(Security::Plaintext),
                    Some("sasl_ssl") => Some(Security::SaslSsl),
                    other => return Err(format!("--security {other:?}: plaintext or sasl_ssl")),
                }
            }
            n => positional.push(n.parse::<usize>().map_err(|_| {
                format!("{n}: expected [--mixed] [--guarantee G] [--security S] [runs] [instances]")
            })?),
        }
    }
    Ok(Options {
        runs: positional.first().copied().unwrap_or(20),
        instances: positional.get(1).copied().unwrap_or(3),
        mixed,
        guarantee,
        security,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let binary = std::env::current_exe()
        .expect("own path")
        .with_file_name("fault-instance");
    if !binary.exists() {
        eprintln!(
            "{} is missing: cargo build -p dekaf-streams-examples --bins",
            binary.display()
        );
        return ExitCode::from(2);
    }
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    let mut random = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below.max(1)
    };
    let threads = if options.mixed { 2 } else { 1 };
    let mut exact = 0;
    let mut total = Tally::default();
    // (exact, runs) and the faults, per guarantee and security mode.
    let mut by_mode: Modes = BTreeMap::new();
    for run in 1..=options.runs {
        let guarantee = options
            .guarantee
            .unwrap_or(if !options.mixed || run % 2 == 1 {
                "exactly_once"
            } else {
                "at_least_once"
            });
        let security = options
            .security
            .unwrap_or(if options.mixed && (run - 1) / 2 % 2 == 1 {
                Security::SaslSsl
            } else {
                Security::Plaintext
            });
        let log_dir = std::env::temp_dir().join(format!("fault-kill-loop/run-{run}"));
        let _ = std::fs::remove_dir_all(&log_dir);
        let scenario = Scenario {
            cluster: Cluster::from_env(),
            application: "fault-loop".into(),
            binary: binary.clone(),
            instances: options.instances,
            sentences: 6_000,
            produce_over: Duration::from_secs(20),
            seed: random(u64::MAX),
            log_dir: log_dir.clone(),
            security,
        };
        if let Err(e) = scenario.prepare().await {
            eprintln!("run {run}: preparing failed: {e}");
            continue;
        }
        let started = Instant::now();
        let plan: Vec<(u64, Fault)> = {
            let mut at = 0;
            let mut plan = Vec::new();
            while at < 18_000 {
                at += 2_000 + random(3_000);
                let fault = match Fault::ALL[random(Fault::ALL.len() as u64) as usize] {
                    _ if !options.mixed => Fault::Instance,
                    // At-least-once has no transactions: its coordinator instead.
                    Fault::TransactionCoordinator if guarantee != "exactly_once" => {
                        Fault::GroupCoordinator
                    }
                    fault => fault,
                };
                plan.push((at, fault));
            }
            // A SASL_SSL run kills the group coordinator's broker at least once: the members'
            // TLS connections to it end without close_notify.
            if options.mixed
                && security == Security::SaslSsl
                && !plan.iter().any(|(_, f)| *f == Fault::GroupCoordinator)
            {
                let i = random(plan.len() as u64) as usize;
                plan[i].1 = Fault::GroupCoordinator;
            }
            plan
        };
        let mixed = options.mixed;
        let mut fault_random = {
            let mut s = random(u64::MAX) | 1;
            move |below: u64| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s % below.max(1)
            }
        };
        let outcome = tokio::task::spawn_blocking(move || {
            let settings = |i: usize| InstanceSettings {
                guarantee,
                threads,
                state_dir: (mixed && i == 0).then(|| log_dir.join("state-0")),
                properties: Vec::new(),
            };
            let mut running = scenario.start_with(settings);
            // The faults land on a running application, timed from when every instance runs
            // tasks: a broker killed while the coordinator creates the internal topics tests
            // the start, not processing (in one CI run Kafka 4.4's coordinator then never
            // created them, and no instance got a task).
            if !running.await_running(Duration::from_secs(120)) {
                eprintln!(
                    "run {run}: not every instance ran tasks within 120 s; faults land anyway"
                );
            }
            let origin = Instant::now();
            let mut tally = Tally::default();
            let mut landed = Vec::new();
            for (at, fault) in plan {
                let due = Duration::from_millis(at);
                if let Some(wait) = due.checked_sub(origin.elapsed()) {
                    std::thread::sleep(wait);
                }
                match mixed::land(
                    fault,
                    &mut running,
                    &scenario.binary,
                    threads,
                    &mut fault_random,
                ) {
                    Ok((what, node)) => {
                        *tally.faults.entry(fault).or_default() += 1;
                        if let Some(node) = node {
                            *tally.nodes.entry(node).or_default() += 1;
                        }
                        landed.push(format!("{:.1?} {what}", started.elapsed()));
                    }
                    Err(e) => {
                        *tally.missed.entry(fault).or_default() += 1;
                        landed.push(format!(
                            "{:.1?} {} not landed: {e}",
                            started.elapsed(),
                            fault.name()
                        ))
                    }
                }
            }
            let check = if guarantee == "exactly_once" {
                verify::problems
            } else {
                verify::losses
            };
            (
                running.finish_checking(Duration::from_secs(240), check),
                tally,
                landed,
            )
        })
        .await;
        let mode = by_mode.entry((guarantee, security)).or_default();
        mode.1 += 1;
        let security = security.name();
        match outcome {
            Ok((Ok(o), tally, landed)) => {
                total.add(&tally);
                mode.2.add(&tally);
                if o.exact() {
                    exact += 1;
                    mode.0 += 1;
                    println!(
                        "run {run} ({guarantee}, {security}): exact ({}; {} sentences, {} words, {:.0?})",
                        tally.summary(),
                        o.produced,
                        o.words,
                        started.elapsed()
                    );
                } else {
                    println!(
                        "run {run} ({guarantee}, {security}): NOT exact ({}): {} problems, e.g. {:?}; {:?}; faults: {landed:?}; logs in {}",
                        tally.summary(),
                        o.problems.len(),
                        &o.problems[..o.problems.len().min(3)],
                        o.exited,
                        std::env::temp_dir()
                            .join(format!("fault-kill-loop/run-{run}"))
                            .display()
                    );
                }
            }
            Ok((Err(e), tally, landed)) => {
                total.add(&tally);
                mode.2.add(&tally);
                println!(
                    "run {run} ({guarantee}, {security}): verifier failed: {e}; faults: {landed:?}"
                )
            }
            Err(e) => println!("run {run} ({guarantee}, {security}): harness panicked: {e}"),
        }
        if options.mixed && run < options.runs {
            println!("after {run} runs, {exact} exact:");
            print_modes(&by_mode, &total);
        }
    }
    println!("{exact}/{} exact", options.runs);
    if options.mixed {
        print_modes(&by_mode, &total);
    }
    if exact == options.runs {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Exact runs (of all) and the faults that landed, per guarantee and security mode.
type Modes = BTreeMap<(&'static str, Security), (usize, usize, Tally)>;

/// One line per guarantee and security mode, then the faults of all runs.
fn print_modes(by_mode: &Modes, total: &Tally) {
    for ((guarantee, security), (exact, runs, tally)) in by_mode {
        let what = if *guarantee == "exactly_once" {
            "exact"
        } else {
            "without loss"
        };
        println!(
            "  {guarantee} over {}: {exact}/{runs} {what}; faults landed: {}",
            security.name(),
            tally.summary()
        );
    }
    println!("  faults landed in all: {}", total.summary());
}
