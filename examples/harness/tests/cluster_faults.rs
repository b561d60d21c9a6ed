//! Faults on a replicated 3-node cluster, each checked exactly-once by the harness's independent
//! reader ([`dekaf_streams_harness::faults`]): every word's count updates are exactly `1..=n`,
//! `n` its count in the input as a separate read_committed consumer reads it, and no instance
//! exits by itself.
//!
//! The tests start the cluster themselves (`scripts/kafka.sh start --brokers 3`, idempotent) on
//! `DEKAF_CLUSTER_PORT` (default 9192, nodes on 9192/9194/9196, quorum on the odd ports) and run
//! one at a time: each fault hits the whole cluster.
//!
//! `scripts/test.sh` runs this binary beside the rest of the suite (the other tests use only the
//! single broker), then the short mixed fault loop on the same cluster.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, describe_streams_group};
use dekaf_streams_harness::faults::cluster::{Cluster, Security};
use dekaf_streams_harness::faults::scenario::{Outcome, Run, Scenario};
use dekaf_streams_harness::kafka_io::off_workers;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// Every test of this file is named `on_the_cluster::…`: `scripts/test.sh` runs them beside the
/// other tests (which use the single broker only) and skips them in the main run with
/// `--skip on_the_cluster::`.
mod on_the_cluster {
    use super::*;

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
            security: Security::Plaintext,
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

    /// Runs `fault` on the run (off the tokio workers) once every instance runs tasks, then
    /// finishes it. A fault that lands before (a broker stopped while the coordinator creates the
    /// internal topics) tests the start, not processing: Kafka 4.4's coordinator did not retry the
    /// creation once a broker came back in one CI run, and no instance ever got a task.
    async fn with_fault(run: Run, fault: impl FnOnce(&mut Run) + Send + 'static) -> Outcome {
        tokio::task::spawn_blocking(move || {
            let mut run = run;
            assert!(
                run.await_running(Duration::from_secs(120)),
                "the instances run tasks within 120 s (before the fault)"
            );
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
        let bootstrap = cluster.bootstrap();
        let metadata = off_workers(move || {
            let consumer: BaseConsumer = ClientConfig::new()
                .set("bootstrap.servers", bootstrap)
                .create()
                .expect("metadata client");
            consumer
                .fetch_metadata(None, Duration::from_secs(30))
                .expect("metadata")
        })
        .await;
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
    async fn every_broker_down_for_30s_mid_run_neither_stops_the_application_nor_loses_or_duplicates()
     {
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
                    std::fs::read_to_string(log)
                        .is_ok_and(|l| l.contains("waiting for the cluster"))
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

    /// A member frozen (SIGSTOP: processing thread and heartbeats) for 15 s, past its session
    /// timeout (10 s on the test cluster) and its transaction timeout (5 s): the coordinator fences
    /// it and gives its tasks to the other instance, and the broker aborts its open transaction and
    /// bumps its producer's epoch when it had a transaction open. Thawed, the member learns it was
    /// fenced (at its next commit or heartbeat, whichever runs first), drops its tasks, replaces its
    /// producer if it was fenced, and rejoins; the output stays exactly once and the instance keeps
    /// running.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_member_fenced_while_frozen_replaces_its_producer_and_stays_exactly_once() {
        let _serial = SERIAL.lock().await;
        let s = scenario("fault-fenced", 16);
        for i in 0..s.instances {
            let _ = std::fs::remove_file(s.log_dir.join(format!("fault-fenced-{i}.log")));
        }
        let run = begin(&s).await;
        let log = run.instances[0].log().to_owned();
        let outcome = with_fault(run, |run| {
            run.await_sent(0.3);
            // A member, not an instance still starting (on a loaded machine joining can take
            // longer than sending 30% of the input): frozen before it joins, it is never fenced.
            assert!(
                run.instances[0].await_running(Duration::from_secs(180)),
                "instance 0 never ran tasks"
            );
            run.instances[0].pause();
            // The fault is a duration: frozen past the session and transaction timeouts.
            let frozen = Instant::now();
            while frozen.elapsed() < Duration::from_secs(15) {
                std::thread::sleep(Duration::from_millis(200));
            }
            run.instances[0].resume();
        })
        .await;
        assert_exact("member fenced while frozen", &outcome);
        let text = std::fs::read_to_string(&log).expect("the frozen instance's log");
        let at_commit = text.contains("the coordinator fenced this member at commit");
        let at_heartbeat = text.contains("fenced by the coordinator");
        assert!(
            at_commit || at_heartbeat,
            "the frozen member never learned it was fenced (log {})",
            log.display()
        );
        // Its producer is fenced only if a transaction was open when it froze (the broker aborts it
        // and bumps the epoch); then it must be replaced, or every later commit fails and the
        // instance gives up (an exit the outcome above reports). A fence found at a commit does not
        // tell which: a member that had just committed (idle commits come 10 ms after it catches
        // up) thaws with a good producer, opens a new transaction for the records that arrived, and
        // learns of the fence when the coordinator refuses that transaction's offsets (seen in CI).
        let replaced = text.contains("replacing the producer") || text.contains("replacing it");
        eprintln!(
            "fenced at commit: {at_commit}, by a heartbeat: {at_heartbeat}, producer replaced: {replaced}"
        );
    }

    /// Each member's id, epoch and active tasks, as the group's coordinator describes them, once
    /// the group is stable with `members` members that all hold tasks.
    async fn stable_members(
        cluster: &Cluster,
        group: &str,
        members: usize,
        timeout: Duration,
    ) -> BTreeMap<String, (i32, String)> {
        let config = CoordinatorConfig::new(&cluster.bootstrap(), "fault-harness");
        let started = Instant::now();
        loop {
            if let Ok(described) = describe_streams_group(&config, group).await
                && described.group_state == "Stable"
                && described.members.len() == members
                && described
                    .members
                    .iter()
                    .all(|m| !m.assignment.active_tasks.is_empty())
            {
                return described
                    .members
                    .iter()
                    .map(|m| {
                        let tasks = format!("{:?}", m.assignment.active_tasks);
                        (m.member_id.clone(), (m.member_epoch, tasks))
                    })
                    .collect();
            }
            assert!(
                started.elapsed() < timeout,
                "{group} not stable with {members} members within {timeout:?}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The group coordinator moves: its broker is stopped cleanly, the `__consumer_offsets`
    /// partition of the group gets a new leader, which loads the group (COORDINATOR_LOAD_IN_PROGRESS
    /// meanwhile) while the old one answers NOT_COORDINATOR or closes the connection. Each member's
    /// own coordinator connection finds the new coordinator and heartbeats there: a session timeout
    /// (10 s on the test cluster) after the move, the new coordinator still has both members with
    /// the epochs and tasks they had, neither was fenced, and the output is exactly once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_members_follow_the_group_coordinator_to_another_broker() {
        let _serial = SERIAL.lock().await;
        let mut s = scenario("fault-move", 17);
        s.produce_over = Duration::from_secs(30);
        for i in 0..s.instances {
            let _ = std::fs::remove_file(s.log_dir.join(format!("fault-move-{i}.log")));
        }
        let run = begin(&s).await;
        let cluster = s.cluster.clone();
        let before = stable_members(&cluster, "fault-move", 2, Duration::from_secs(60)).await;
        let old = cluster
            .coordinator_of("fault-move")
            .await
            .expect("coordinator");
        let stopping = cluster.clone();
        tokio::task::spawn_blocking(move || stopping.stop_node(old))
            .await
            .expect("stop task")
            .expect("clean stop of the coordinator's broker");
        let moved = Instant::now();
        let new = loop {
            match cluster.coordinator_of("fault-move").await {
                Ok(node) if node != old => break node,
                _ => {}
            }
            assert!(
                moved.elapsed() < Duration::from_secs(60),
                "no other broker became the coordinator"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        };
        // Past a session timeout: a member whose heartbeats had not reached the new coordinator
        // would be fenced by now.
        while moved.elapsed() < Duration::from_secs(15) {
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let after = stable_members(&cluster, "fault-move", 2, Duration::from_secs(30)).await;
        assert_eq!(
            after, before,
            "the members' epochs or tasks changed when the coordinator moved from node {old} to {new}"
        );
        let outcome = with_fault(run, move |run| {
            let cluster = run.scenario.cluster.clone();
            cluster.start_node(old).expect("the node comes back");
            restore(&cluster, &["fault-move-in".into(), "fault-move-out".into()]);
        })
        .await;
        assert_exact("coordinator moved", &outcome);
        for i in 0..s.instances {
            let log = s.log_dir.join(format!("fault-move-{i}.log"));
            let text = std::fs::read_to_string(&log).expect("instance log");
            assert!(
                !text.contains("fenced by the coordinator")
                    && !text.contains("fenced this member at commit"),
                "instance {i} was fenced while the coordinator moved (log {})",
                log.display()
            );
        }
    }
}
