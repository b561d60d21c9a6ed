//! Random faults on the replicated cluster, run after run.
//!
//! `fault-kill-loop [runs] [instances]` (default 20 runs, 3 instances): each run recreates the
//! `fault-loop` application, produces 6 000 sentences over 20 s while killing a random instance
//! every 2–5 s and starting it again, then checks exactly-once output with the independent
//! verifier.
//!
//! `fault-kill-loop --mixed [runs] [instances]` mixes every fault
//! ([`dekaf_streams_examples::faults::mixed`]): instance SIGKILLs and SIGKILLs of the broker
//! leading an input partition, of the group coordinator's broker and of a transaction
//! coordinator's broker, each broker started again 2–6 s later, in random order every 2–5 s
//! while input arrives; three instances of two threads (the first keeps its stores in LMDB);
//! runs alternate exactly-once (checked exactly) and at-least-once (checked for no loss);
//! `--guarantee exactly_once|at_least_once` runs one of them only.
//!
//! Prints one line per run (with the faults that landed) and `N/N exact` at the end, then the
//! faults per kind; exits 1 unless every run was.
//!
//! Needs the cluster: `DEKAF_KAFKA_PORT=9192 scripts/kafka.sh start --brokers 3`
//! (`DEKAF_CLUSTER_PORT` says where, default 9192), and `fault-instance` built next to it.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dekaf_streams_examples::faults::cluster::Cluster;
use dekaf_streams_examples::faults::instance::InstanceSettings;
use dekaf_streams_examples::faults::mixed::{self, Fault, Tally};
use dekaf_streams_examples::faults::scenario::Scenario;
use dekaf_streams_examples::faults::verify;

/// The loop's options.
struct Options {
    runs: usize,
    instances: usize,
    mixed: bool,
    guarantee: Option<&'static str>,
}

fn options() -> Result<Options, String> {
    let mut positional = Vec::new();
    let mut mixed = false;
    let mut guarantee = None;
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
            n => positional.push(n.parse::<usize>().map_err(|_| {
                format!("{n}: expected [--mixed] [--guarantee G] [runs] [instances]")
            })?),
        }
    }
    Ok(Options {
        runs: positional.first().copied().unwrap_or(20),
        instances: positional.get(1).copied().unwrap_or(3),
        mixed,
        guarantee,
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
    let mut by_guarantee: [(usize, usize); 2] = [(0, 0); 2];
    for run in 1..=options.runs {
        let guarantee = options
            .guarantee
            .unwrap_or(if !options.mixed || run % 2 == 1 {
                "exactly_once"
            } else {
                "at_least_once"
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
            };
            let mut running = scenario.start_with(settings);
            let mut tally = Tally::default();
            let mut landed = Vec::new();
            for (at, fault) in plan {
                let due = Duration::from_millis(at);
                if let Some(wait) = due.checked_sub(started.elapsed()) {
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
                    Err(e) => landed.push(format!(
                        "{:.1?} {} not landed: {e}",
                        started.elapsed(),
                        fault.name()
                    )),
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
        let slot = usize::from(guarantee != "exactly_once");
        by_guarantee[slot].1 += 1;
        match outcome {
            Ok((Ok(o), tally, landed)) => {
                total.add(&tally);
                if o.exact() {
                    exact += 1;
                    by_guarantee[slot].0 += 1;
                    println!(
                        "run {run} ({guarantee}): exact ({}; {} sentences, {} words, {:.0?})",
                        tally.summary(),
                        o.produced,
                        o.words,
                        started.elapsed()
                    );
                } else {
                    println!(
                        "run {run} ({guarantee}): NOT exact ({}): {} problems, e.g. {:?}; {:?}; faults: {landed:?}",
                        tally.summary(),
                        o.problems.len(),
                        &o.problems[..o.problems.len().min(3)],
                        o.exited
                    );
                }
            }
            Ok((Err(e), _, landed)) => {
                println!("run {run}: verifier failed: {e}; faults: {landed:?}")
            }
            Err(e) => println!("run {run}: harness panicked: {e}"),
        }
    }
    println!("{exact}/{} exact", options.runs);
    if options.mixed {
        println!(
            "exactly_once {}/{} exact, at_least_once {}/{} without loss; faults: {}",
            by_guarantee[0].0,
            by_guarantee[0].1,
            by_guarantee[1].0,
            by_guarantee[1].1,
            total.summary()
        );
    }
    if exact == options.runs {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
