//! Standby tasks on a real broker: two word-count instances (child processes of the
//! `standby-instance` binary, stores in LMDB or memory, exactly-once, no record cache) in a
//! group whose `streams.num.standby.replicas` is 1. Kafka 4.4's assignor then gives each
//! instance half of the counting tasks as active and the other half as standbys. Once the input
//! is counted and the standbys have caught up, the instance holding the other half of the active
//! tasks is SIGKILLed; after the session timeout the coordinator gives its tasks to the
//! survivor, which promotes its standbys. The survivor must restore less than 1% of the state
//! (the `task restored` lines of its log count the changelog records it replayed) and go on
//! counting, and an independent read_committed reader must see every word's counts exactly
//! `1, 2, …, n`.
//!
//! Four variants, each with its own application: the SIGKILL of an idle instance once the
//! standbys caught up (LMDB, and memory), the SIGKILL of an instance in the middle of counting
//! (the output must still be exact), and, for contrast, the same SIGKILL in a group without
//! standby replicas (the survivor restores the killed instance's share in full).
//!
//! `DEKAF_STANDBY_KEYS` sets the number of distinct words (20 000 by default, each counted once
//! before the SIGKILL, then once more, or three more times mid-run); the tests print the figures
//! they measured.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, describe_streams_group, set_standby_replicas};
use dekaf_streams_harness::e2e::{
    Reader, counts_reached, exactly_once_problems, fresh, log_field, strip_ansi,
};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};

/// One variant's application and topics (`<app>-in`, `<app>-out`).
struct Names {
    app: &'static str,
    input: &'static str,
    output: &'static str,
}
const PARTITIONS: i32 = 4;
const WORDS_PER_SENTENCE: usize = 10;

/// One instance as a child process; SIGKILLed when dropped (a failing test must not leave it
/// running in the next run's group).
struct Instance {
    child: Child,
    log: PathBuf,
}

impl Instance {
    /// Starts an instance of `app`, its stores in LMDB under `state_dir` or (`None`) in memory.
    fn start(app: &str, bootstrap: &str, state_dir: Option<&Path>, log: PathBuf) -> Instance {
        let out = fs::File::create(&log).expect("create the instance log");
        let err = out.try_clone().expect("clone the log file");
        let mut command = Command::new(env!("CARGO_BIN_EXE_standby-instance"));
        if let Some(dir) = state_dir {
            command.env("DEKAF_STATE_DIR", dir);
        }
        let child = command
            .arg(app)
            .env("DEKAF_BOOTSTRAP", bootstrap)
            .env("DEKAF_GUARANTEE", "exactly_once")
            .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
            .env("DEKAF_CACHE_MAX_BYTES", "0")
            .env("NO_COLOR", "1")
            .env("RUST_LOG", "info,rdkafka=warn,dekaf_streams::standby=debug")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("start a {app} instance: {e}"));
        Instance { child, log }
    }

    /// Its member id, from its log's "joined the streams group" line.
    async fn member_id(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = self.log_text();
            if let Some(id) = text
                .lines()
                .find(|l| l.contains("joined the streams group"))
                .and_then(|l| log_field(l, "member_id"))
            {
                return id.trim_matches('"').to_owned();
            }
            assert!(Instant::now() < deadline, "the instance did not join");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn log_text(&self) -> String {
        strip_ansi(&fs::read_to_string(&self.log).unwrap_or_default())
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Per member id: its (active, standby) tasks of the stateful subtopology, once the
/// group has two members whose assignments are reconciled and each holds an active task and,
/// exactly when `with_standbys`, a standby.
async fn stable_assignment(
    config: &CoordinatorConfig,
    app: &str,
    with_standbys: bool,
    stateful: &mut Option<String>,
) -> HashMap<String, (HashSet<i32>, HashSet<i32>)> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(group) = describe_streams_group(config, app).await {
            if stateful.is_none() {
                *stateful = group.topology.as_ref().and_then(|t| {
                    t.subtopologies.as_ref()?.iter().find_map(|s| {
                        (!s.state_changelog_topics.is_empty()).then(|| s.subtopology_id.clone())
                    })
                });
            }
            if let Some(sub) = stateful.as_deref() {
                let tasks = |ids: &[dekaf_streams_protocol::TaskIds]| -> HashSet<i32> {
                    ids.iter()
                        .filter(|t| t.subtopology_id == sub)
                        .flat_map(|t| t.partitions.iter().copied())
                        .collect()
                };
                let members: HashMap<String, (HashSet<i32>, HashSet<i32>)> = group
                    .members
                    .iter()
                    .filter(|m| m.assignment == m.target_assignment)
                    .map(|m| {
                        (
                            m.member_id.clone(),
                            (
                                tasks(&m.assignment.active_tasks),
                                tasks(&m.assignment.standby_tasks),
                            ),
                        )
                    })
                    .collect();
                if group.members.len() == 2
                    && members.len() == 2
                    && members
                        .values()
                        .all(|(a, s)| !a.is_empty() && s.is_empty() != with_standbys)
                {
                    return members;
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "the group did not settle with an active and a standby task on each of two members \
             within 2 minutes (is streams.num.standby.replicas set?)"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until `instance`'s log, after byte `mark`, shows every standby at lag 0 in at least
/// two lag reports each.
async fn standbys_caught_up(instance: &Instance, mark: usize, standbys: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let text = instance.log_text();
        let mut latest: HashMap<String, (i64, usize)> = HashMap::new();
        for line in text.get(mark..).unwrap_or("").lines() {
            if line.contains("standby lag")
                && let (Some(task), Some(lag)) = (log_field(line, "task"), log_field(line, "lag"))
            {
                let entry = latest.entry(task.to_owned()).or_insert((-1, 0));
                *entry = (lag.parse().unwrap_or(-1), entry.1 + 1);
            }
        }
        if latest.len() >= standbys && latest.values().all(|&(lag, n)| lag == 0 && n >= 2) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the survivor's standbys did not catch up within 2 minutes: {latest:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Reads until every word of `expected` reached its count, failing early when an instance
/// exits; calls `seen` with what was read after every round.
async fn read_counts(
    reader: &mut Reader,
    instances: &mut [&mut Instance],
    expected: &HashMap<String, i64>,
    limit: Duration,
    mut seen: impl FnMut(usize),
) {
    let deadline = Instant::now() + limit;
    loop {
        let reached = reader
            .read_until(Duration::from_secs(5), |r| counts_reached(r, expected))
            .await;
        seen(reader.records.len());
        if reached {
            return;
        }
        for i in instances.iter_mut() {
            assert!(
                !i.exited(),
                "an instance exited; its log:\n{}",
                i.log_text()
            );
        }
        assert!(
            Instant::now() < deadline,
            "the counts did not arrive within {limit:?}"
        );
    }
}

/// Sentences holding every word `k0 … k{keys-1}` once.
fn all_words_once(keys: usize) -> Vec<String> {
    (0..keys)
        .collect::<Vec<_>>()
        .chunks(WORDS_PER_SENTENCE)
        .map(|chunk| {
            chunk
                .iter()
                .map(|i| format!("k{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

async fn produce_sentences(bootstrap: &str, topic: &str, sentences: &[String]) {
    // Keyed by the sentence's first word (the topology's key serde refuses null keys).
    produce(
        bootstrap,
        topic,
        sentences.iter().map(|s| {
            let key = s.split(' ').next().unwrap_or_default();
            (Some(key.as_bytes()), Some(s.as_bytes()))
        }),
    )
    .await
    .expect("produce the sentences");
}

fn keys() -> usize {
    std::env::var("DEKAF_STANDBY_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_over_after_a_sigkill_restoring_under_one_percent_exactly_once() {
    let names = Names {
        app: "standby-failover",
        input: "standby-failover-in",
        output: "standby-failover-out",
    };
    failover(&names, keys(), Kill::Idle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_over_from_an_instance_killed_mid_count_exactly_once() {
    let names = Names {
        app: "standby-midrun",
        input: "standby-midrun-in",
        output: "standby-midrun-out",
    };
    failover(&names, keys(), Kill::MidRun).await;
}

/// The same SIGKILL with the stores in memory: the standby keeps its copy in memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_in_memory_takes_over_after_a_sigkill_restoring_under_one_percent() {
    let names = Names {
        app: "standby-memory",
        input: "standby-memory-in",
        output: "standby-memory-out",
    };
    failover(&names, keys(), Kill::IdleInMemory).await;
}

/// The same SIGKILL without standby replicas, for contrast: the survivor restores the killed
/// instance's share of the state in full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_standbys_the_survivor_restores_the_killed_instances_state_in_full() {
    let names = Names {
        app: "standby-none",
        input: "standby-none-in",
        output: "standby-none-out",
    };
    failover(&names, keys(), Kill::IdleWithoutStandbys).await;
}

/// When and with what group config the instance `a` is SIGKILLed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kill {
    /// Once the counts are out and b's standbys caught up.
    Idle,
    /// The same with the stores in memory instead of LMDB.
    IdleInMemory,
    /// While it counts the next rounds.
    MidRun,
    /// Once the counts are out, in a group without standby replicas.
    IdleWithoutStandbys,
}

/// Two instances, one standby replica (none for [`Kill::IdleWithoutStandbys`]); SIGKILL of `a`
/// as `kill` says; `b` must promote its standbys, restore under 1% of the keys (without
/// standbys: restore a's share) and count everything exactly once.
async fn failover(names: &Names, keys: usize, kill: Kill) {
    let mid_run = kill == Kill::MidRun;
    let with_standbys = kill != Kill::IdleWithoutStandbys;
    let Names { app, input, output } = *names;
    let servers = bootstrap();
    fresh(&servers, app, &[(input, PARTITIONS), (output, PARTITIONS)]).await;
    let admin = CoordinatorConfig::new(&servers, "standby-failover-test");
    set_standby_replicas(&admin, app, u32::from(with_standbys))
        .await
        .expect("set the group's streams.num.standby.replicas");

    let root = std::env::temp_dir().join(format!("dekaf-{app}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dirs = [root.join("a"), root.join("b")];
    for d in &dirs {
        fs::create_dir_all(d).expect("state dir");
    }
    let on_disk = kill != Kill::IdleInMemory;
    let dir = |i: usize| on_disk.then(|| dirs[i].as_path());
    let mut a = Instance::start(app, &servers, dir(0), root.join("a.log"));
    let mut b = Instance::start(app, &servers, dir(1), root.join("b.log"));

    let mut stateful = None;
    let members = stable_assignment(&admin, app, with_standbys, &mut stateful).await;
    println!("assignment of the counting tasks (active, standby) per member: {members:?}");

    // Phase 1: every word once.
    let sentences = all_words_once(keys);
    let started = Instant::now();
    produce_sentences(&servers, input, &sentences).await;
    let mut reader = Reader::new(&servers, output).await;
    let once: HashMap<String, i64> = (0..keys).map(|i| (format!("k{i}"), 1)).collect();
    let limit = Duration::from_secs(120 + keys as u64 / 2_000);
    read_counts(&mut reader, &mut [&mut a, &mut b], &once, limit, |_| {}).await;
    println!(
        "phase 1: {keys} words counted in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let output_before = reader.records.len();

    // `a` holds some counting tasks as active, `b` holds those as standbys.
    let (a_tasks, b_tasks) = (
        &members[&a.member_id().await],
        &members[&b.member_id().await],
    );
    if with_standbys {
        assert_eq!(
            a_tasks.0, b_tasks.1,
            "b's standbys are a's active counting tasks"
        );
        let mark = b.log_text().len();
        standbys_caught_up(&b, mark, b_tasks.1.len()).await;
    }
    let mark = b.log_text().len();
    // The rounds after phase 1: once more, or (mid-run) three more times, the SIGKILL coming
    // while `a` counts them.
    let rounds: i64 = if mid_run { 3 } else { 1 };
    let again: Vec<String> = (0..rounds)
        .flat_map(|_| sentences.iter().cloned())
        .collect();
    let killed = if mid_run {
        produce_sentences(&servers, input, &again).await;
        // Killed as soon as the next rounds' first counts are out: a fast instance may still
        // finish them before the kill lands, the test holds either way (the survivor takes
        // over a's tasks all the same).
        assert!(
            reader.read_until(limit, |r| r.len() > output_before).await,
            "none of the next rounds' counts arrived"
        );
        a.kill();
        Instant::now()
    } else {
        a.kill();
        let killed = Instant::now();
        produce_sentences(&servers, input, &again).await;
        killed
    };
    let output_at_kill = reader.records.len();
    let mut first_new_output = None;
    let total: HashMap<String, i64> = (0..keys).map(|i| (format!("k{i}"), 1 + rounds)).collect();
    read_counts(&mut reader, &mut [&mut b], &total, limit, |read| {
        if first_new_output.is_none() && read > output_at_kill {
            first_new_output = Some(killed.elapsed());
        }
    })
    .await;
    let caught_up = killed.elapsed();
    reader.drain(Duration::from_secs(2)).await;
    // The output can be complete before the survivor takes a's tasks over (a had committed
    // everything before the SIGKILL): wait until it restored each of them.
    let takeover = Instant::now();
    while b
        .log_text()
        .get(mark..)
        .unwrap_or("")
        .lines()
        .filter(|l| l.contains("task restored"))
        .count()
        < a_tasks.0.len()
    {
        assert!(
            takeover.elapsed() < limit,
            "the survivor did not take over a's counting tasks"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let problems = exactly_once_problems(&reader.records, &total);
    assert!(
        problems.is_empty(),
        "output not exactly once ({} problems): {:?}",
        problems.len(),
        &problems[..problems.len().min(10)]
    );

    // What the survivor replayed after the SIGKILL.
    let text = b.log_text();
    let after = text.get(mark..).unwrap_or("");
    let promotions = after
        .lines()
        .filter(|l| l.contains("standby promoted to active"))
        .count();
    let restored: u64 = after
        .lines()
        .filter(|l| l.contains("task restored"))
        .filter_map(|l| log_field(l, "records")?.parse::<u64>().ok())
        .sum();
    let restore_seconds: f64 = after
        .lines()
        .filter(|l| l.contains("task restored"))
        .filter_map(|l| log_field(l, "seconds")?.parse::<f64>().ok())
        .sum();
    println!(
        "{app}: SIGKILL after {} of {} counts of the next rounds were out → first new output \
         {:.1} s (session timeout included), all {keys} words counted {} times after {:.1} s; \
         standbys promoted: {promotions}; changelog records restored: {restored} ({:.3}% of \
         {keys} keys) in {restore_seconds:.2} s",
        output_at_kill - output_before,
        keys * rounds as usize,
        first_new_output.unwrap_or_default().as_secs_f64(),
        1 + rounds,
        caught_up.as_secs_f64(),
        restored as f64 * 100.0 / keys as f64
    );
    if !with_standbys {
        // Without standbys the survivor rebuilds a's counting tasks from their changelogs: about
        // half of the keys.
        assert_eq!(promotions, 0, "no standby to promote");
        assert!(
            restored * 10 >= keys as u64 * 3,
            "without standbys the survivor restored only {restored} of the {keys} keys' records"
        );
        let _ = fs::remove_dir_all(&root);
        return;
    }
    assert_eq!(
        promotions,
        a_tasks.0.len(),
        "the survivor promoted a standby for each of a's counting tasks (its log after the \
         SIGKILL:\n{after})"
    );
    assert!(
        restored * 100 < keys as u64,
        "the survivor restored {restored} changelog records, not under 1% of {keys}"
    );
    assert!(!b.exited(), "the survivor exited");
    drop(b);
    let _ = fs::remove_dir_all(&root);
}
