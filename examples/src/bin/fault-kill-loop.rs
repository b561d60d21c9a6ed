//! Random SIGKILLs of word-count instances on the replicated cluster, run after run:
//! `fault-kill-loop [runs] [instances]` (default 20 runs, 3 instances). Each run recreates the
//! `fault-loop` application, produces 6 000 sentences over 20 s while killing a random instance
//! every 2–5 s and starting it again, then checks exactly-once output with the independent
//! verifier. Prints one line per run and `N/N exact` at the end; exits 1 unless every run was.
//!
//! Needs the cluster: `DEKAF_KAFKA_PORT=9192 scripts/kafka.sh start --brokers 3`
//! (`DEKAF_CLUSTER_PORT` says where, default 9192), and `fault-instance` built next to it.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dekaf_streams_examples::faults::cluster::Cluster;
use dekaf_streams_examples::faults::scenario::Scenario;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> ExitCode {
    let (runs, instances) = (arg(1, 20), arg(2, 3));
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
        seed % below
    };
    let mut exact = 0;
    for run in 1..=runs {
        let scenario = Scenario {
            cluster: Cluster::from_env(),
            application: "fault-loop".into(),
            binary: binary.clone(),
            instances,
            sentences: 6_000,
            produce_over: Duration::from_secs(20),
            seed: random(u64::MAX),
            log_dir: std::env::temp_dir().join(format!("fault-kill-loop/run-{run}")),
        };
        if let Err(e) = scenario.prepare().await {
            eprintln!("run {run}: preparing failed: {e}");
            continue;
        }
        let started = Instant::now();
        let kill_plan: Vec<(u64, usize)> = {
            let mut at = 0;
            let mut plan = Vec::new();
            while at < 18_000 {
                at += 2_000 + random(3_000);
                plan.push((at, random(instances as u64) as usize));
            }
            plan
        };
        let kills = kill_plan.len();
        let outcome = tokio::task::spawn_blocking(move || {
            let mut running = scenario.start();
            for (at, victim) in kill_plan {
                let due = Duration::from_millis(at);
                if let Some(wait) = due.checked_sub(started.elapsed()) {
                    std::thread::sleep(wait);
                }
                running.instances[victim].kill_and_restart(&scenario.binary);
            }
            running.finish(Duration::from_secs(240))
        })
        .await;
        match outcome {
            Ok(Ok(o)) if o.exact() => {
                exact += 1;
                println!(
                    "run {run}: exact ({kills} SIGKILLs, {} sentences, {} words, {:.0?})",
                    o.produced,
                    o.words,
                    started.elapsed()
                );
            }
            Ok(Ok(o)) => println!(
                "run {run}: NOT exact ({kills} SIGKILLs): {} problems, e.g. {:?}; {:?}",
                o.problems.len(),
                &o.problems[..o.problems.len().min(3)],
                o.exited
            ),
            Ok(Err(e)) => println!("run {run}: verifier failed: {e}"),
            Err(e) => println!("run {run}: harness panicked: {e}"),
        }
    }
    println!("{exact}/{runs} exact");
    if exact == runs {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
