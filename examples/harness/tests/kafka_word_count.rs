//! Word count on a real broker: scale, two instances, SIGKILL under exactly-once and
//! at-least-once. Results are read by an independent read_committed consumer.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use dekaf_streams::DEFAULT_CACHE_MAX_BYTES;
use dekaf_streams::ProcessingGuarantee;
use dekaf_streams_harness::e2e::{
    InProcess, Reader, WcCached, WcScale, WcThreads, assert_exactly_once, cached_count_problems,
    counts_reached, expected_counts, fresh, sentences, wait_for_members_with_tasks,
};
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers, produce};

async fn produce_sentences(topic: &str, batch: &[String], first_key: usize) {
    let keys: Vec<String> = (first_key..first_key + batch.len())
        .map(|i| format!("s{i}"))
        .collect();
    let n = produce(
        &bootstrap(),
        topic,
        keys.iter()
            .zip(batch)
            .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce sentences");
    assert_eq!(n as usize, batch.len());
}

/// An instance of `name`; `cache_bytes` 0 (no record cache) for the checks that expect every
/// update 1..n of every count; stores under `state_dir` (LMDB) when given.
fn instance_in(name: &str, guarantee: &str, cache_bytes: usize, state_dir: Option<&Path>) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_e2e-instance"));
    command
        .arg(name)
        .env("DEKAF_BOOTSTRAP", bootstrap())
        .env("DEKAF_GUARANTEE", guarantee)
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .env("DEKAF_CACHE_MAX_BYTES", cache_bytes.to_string())
        .env("RUST_LOG", "info,rdkafka=warn");
    if let Some(dir) = state_dir {
        command.env("DEKAF_STATE_DIR", dir);
    }
    command.spawn().expect("start e2e-instance")
}

/// Stops an instance with SIGTERM and waits for it to exit (on the blocking pool).
async fn terminate(mut child: Child) {
    let status = off_workers(move || {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        child.wait().expect("wait for instance")
    })
    .await;
    assert!(
        status.success(),
        "a stopped instance exits cleanly, got {status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_of_100k_sentences_is_exact() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-wc-scale",
        &[("e2e-wc-scale-in", 4), ("e2e-wc-scale-out", 4)],
    )
    .await;
    let input = sentences(100_000, 2_000, 1);
    let expected = expected_counts(&input);
    produce_sentences("e2e-wc-scale-in", &input, 0).await;
    let app = InProcess::start(WcScale, &servers, ProcessingGuarantee::ExactlyOnce);
    let mut reader = Reader::new(&servers, "e2e-wc-scale-out").await;
    let done = reader
        .read_until(Duration::from_secs(300), |r| counts_reached(r, &expected))
        .await;
    app.stop().await.expect("clean stop");
    reader.drain(Duration::from_secs(2)).await;
    assert!(done, "counts not reached within the limit");
    assert_exactly_once(&reader.records, &expected);
}

/// Records deleted from the front of the application's repartition topics so far (the sum of
/// their partitions' low watermarks).
async fn repartition_records_purged(servers: &str, app: &str) -> i64 {
    let (servers, prefix) = (servers.to_owned(), format!("{app}-"));
    off_workers(move || {
        use rdkafka::consumer::{BaseConsumer, Consumer};
        let consumer: BaseConsumer = rdkafka::ClientConfig::new()
            .set("bootstrap.servers", &servers)
            .create()
            .expect("metadata consumer");
        let metadata = consumer
            .fetch_metadata(None, Duration::from_secs(10))
            .expect("metadata");
        let mut purged = 0;
        for topic in metadata
            .topics()
            .iter()
            .filter(|t| t.name().starts_with(&prefix) && t.name().ends_with("-repartition"))
        {
            for p in topic.partitions() {
                if let Ok((low, _)) =
                    consumer.fetch_watermarks(topic.name(), p.id(), Duration::from_secs(10))
                {
                    purged += low;
                }
            }
        }
        purged
    })
    .await
}

/// Three processing threads in one instance: each is a member of the group with tasks of its
/// own, the counts are exact, and the repartition records they committed are purged through the
/// instance's one admin client (which its threads share).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_threads_of_one_instance_share_the_tasks_and_count_exactly_once() {
    let servers = bootstrap();
    let app_id = "e2e-wc-threads";
    fresh(
        &servers,
        app_id,
        &[("e2e-wc-threads-in", 6), ("e2e-wc-threads-out", 6)],
    )
    .await;
    let input = sentences(30_000, 2_000, 7);
    let expected = expected_counts(&input);
    produce_sentences("e2e-wc-threads-in", &input, 0).await;
    let streams = dekaf_streams::KafkaStreams::builder(WcThreads)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .threads(3)
        .cache_max_bytes(0)
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    let mut reader = Reader::new(&servers, "e2e-wc-threads-out").await;
    let done = reader
        .read_until(Duration::from_secs(300), |r| counts_reached(r, &expected))
        .await;
    let all_working =
        wait_for_members_with_tasks(&servers, app_id, 3, Duration::from_secs(120)).await;
    // A purge follows a commit of processed records once 30 s have passed since the last one:
    // keep a trickle of sentences coming until the repartition topic's front is deleted.
    let mut all = input;
    let deadline = std::time::Instant::now() + Duration::from_secs(150);
    let mut round = 0;
    let purged = loop {
        let purged = repartition_records_purged(&servers, app_id).await;
        if purged > 0 || std::time::Instant::now() > deadline {
            break purged;
        }
        let more = sentences(200, 2_000, 100 + round);
        produce_sentences("e2e-wc-threads-in", &more, all.len()).await;
        all.extend(more);
        round += 1;
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    let expected = expected_counts(&all);
    let done_all = reader
        .read_until(Duration::from_secs(300), |r| counts_reached(r, &expected))
        .await;
    app.stop().await.expect("clean stop");
    reader.drain(Duration::from_secs(2)).await;
    assert!(
        done,
        "counts of the first batch not reached within the limit"
    );
    assert!(
        done_all,
        "counts of every batch not reached within the limit"
    );
    assert!(
        all_working,
        "each of the 3 threads is a group member with tasks of its own"
    );
    assert_exactly_once(&reader.records, &expected);
    assert!(
        purged > 0,
        "the committed repartition records are purged (low watermarks still 0 after 150 s)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_with_the_record_cache_is_exact_with_far_fewer_outputs() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-wc-cached",
        &[("e2e-wc-cached-in", 4), ("e2e-wc-cached-out", 4)],
    )
    .await;
    let input = sentences(100_000, 2_000, 5);
    let expected = expected_counts(&input);
    let updates: i64 = expected.values().sum();
    produce_sentences("e2e-wc-cached-in", &input, 0).await;
    let app = InProcess::start_with_cache(
        WcCached,
        &servers,
        ProcessingGuarantee::ExactlyOnce,
        DEFAULT_CACHE_MAX_BYTES,
    );
    let mut reader = Reader::new(&servers, "e2e-wc-cached-out").await;
    let done = reader
        .read_until(Duration::from_secs(300), |r| counts_reached(r, &expected))
        .await;
    app.stop().await.expect("clean stop");
    reader.drain(Duration::from_secs(2)).await;
    assert!(done, "counts not reached within the limit");
    assert_cached_counts(&reader.records, &expected);
    let outputs = reader.records.len() as i64;
    eprintln!("{updates} count updates, {outputs} output records");
    assert!(
        outputs * 4 < updates,
        "the cache should fold most updates: {outputs} outputs for {updates} updates"
    );
}

/// Runs two instances of `name` (application `app`), stops one mid-run so every task moves
/// to the other, and returns what the reader saw once every count reached its expected value.
async fn two_instances(
    app: &str,
    name: &str,
    cache_bytes: usize,
) -> (
    Vec<dekaf_streams_harness::kafka_io::ReadRecord>,
    std::collections::HashMap<String, i64>,
) {
    let servers = bootstrap();
    let input_topic = format!("{app}-in");
    let output_topic = format!("{app}-out");
    fresh(&servers, app, &[(&input_topic, 4), (&output_topic, 4)]).await;
    let input = sentences(30_000, 500, 2);
    let expected = expected_counts(&input);
    let (first, rest) = input.split_at(10_000);
    let (second, third) = rest.split_at(10_000);
    produce_sentences(&input_topic, first, 0).await;
    let a = instance_in(name, "exactly_once", cache_bytes, None);
    // a runs every task, then b joins and takes half of them over while the second batch is
    // processed; only then does a stop, handing the rest to b.
    assert!(
        wait_for_members_with_tasks(&servers, app, 1, Duration::from_secs(120)).await,
        "the first instance got no tasks"
    );
    let b = instance_in(name, "exactly_once", cache_bytes, None);
    produce_sentences(&input_topic, second, 10_000).await;
    assert!(
        wait_for_members_with_tasks(&servers, app, 2, Duration::from_secs(120)).await,
        "the second instance got no tasks while the first ran"
    );
    terminate(a).await;
    // Every task now runs on b: the third batch covers all partitions.
    produce_sentences(&input_topic, third, 20_000).await;
    let mut reader = Reader::new(&servers, &output_topic).await;
    let done = reader
        .read_until(Duration::from_secs(180), |r| counts_reached(r, &expected))
        .await;
    reader.drain(Duration::from_secs(2)).await;
    terminate(b).await;
    assert!(
        done,
        "counts not reached: the remaining instance did not take over every task"
    );
    (std::mem::take(&mut reader.records), expected)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_one_stopped_mid_run_count_exactly_once() {
    let (records, expected) = two_instances("e2e-wc-two", "wc-two", 0).await;
    assert_exactly_once(&records, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_with_the_record_cache_hand_over_their_tasks_exactly_once() {
    let (records, expected) =
        two_instances("e2e-wc-ctwo", "wc-ctwo", DEFAULT_CACHE_MAX_BYTES).await;
    assert_cached_counts(&records, &expected);
}

/// Asserts [`cached_count_problems`] finds none.
fn assert_cached_counts(
    records: &[dekaf_streams_harness::kafka_io::ReadRecord],
    expected: &std::collections::HashMap<String, i64>,
) {
    let problems = cached_count_problems(records, expected);
    assert!(
        problems.is_empty(),
        "{} words wrong, e.g. {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
}

/// Runs an instance, kills it with SIGKILL once the reader saw more than `kill_after` records
/// (while it still works), restarts it, and returns what the reader saw once every count reached
/// its expected value.
async fn kill_and_restart(
    app: &str,
    name: &str,
    guarantee: &str,
    seed: u64,
    cache_bytes: usize,
    kill_after: usize,
    state_dir: Option<&Path>,
) -> (
    Vec<dekaf_streams_harness::kafka_io::ReadRecord>,
    std::collections::HashMap<String, i64>,
) {
    let servers = bootstrap();
    let input_topic = format!("{app}-in");
    let output_topic = format!("{app}-out");
    fresh(&servers, app, &[(&input_topic, 4), (&output_topic, 4)]).await;
    let input = sentences(60_000, 500, seed);
    let expected = expected_counts(&input);
    produce_sentences(&input_topic, &input, 0).await;
    let mut victim = instance_in(name, guarantee, cache_bytes, state_dir);
    let mut reader = Reader::new(&servers, &output_topic).await;
    // Kill it once it has committed some output, while it still has work.
    assert!(
        reader
            .read_until(Duration::from_secs(120), |r| r.len() > kill_after)
            .await,
        "no output before the kill"
    );
    off_workers(move || {
        victim.kill().expect("SIGKILL");
        let _ = victim.wait();
    })
    .await;
    assert!(
        !counts_reached(&reader.records, &expected),
        "the instance finished before it was killed"
    );
    if let Some(dir) = state_dir {
        let checkpoints = checkpoints_in(&dir.join(app));
        assert!(
            checkpoints.is_empty(),
            "a killed instance leaves no clean-close mark: {checkpoints:?}"
        );
        assert!(
            has_store_files(&dir.join(app)),
            "the killed instance kept its stores on disk"
        );
    }
    let restarted = instance_in(name, guarantee, cache_bytes, state_dir);
    let done = reader
        .read_until(Duration::from_secs(240), |r| counts_reached(r, &expected))
        .await;
    reader.drain(Duration::from_secs(2)).await;
    terminate(restarted).await;
    assert!(done, "counts not reached after the restart");
    (std::mem::take(&mut reader.records), expected)
}

/// The clean-close marks (`.closed`) under an application's state directory.
fn checkpoints_in(app_dir: &Path) -> Vec<PathBuf> {
    let Ok(tasks) = std::fs::read_dir(app_dir) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .map(|t| t.path().join(dekaf_streams::state_dir::CLOSED_FILE))
        .filter(|p| p.exists())
        .collect()
}

/// Whether any task directory under `app_dir` holds an LMDB store.
fn has_store_files(app_dir: &Path) -> bool {
    let Ok(tasks) = std::fs::read_dir(app_dir) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_dir(t.path())
            .is_ok_and(|stores| stores.flatten().any(|s| s.path().join("data.mdb").exists()))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_with_a_state_dir_keeps_the_stores_and_counts_exactly_once() {
    let dir = std::env::temp_dir().join(format!("dekaf-e2e-state-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (records, expected) = kill_and_restart(
        "e2e-wc-state-kill",
        "wc-state-kill",
        "exactly_once",
        5,
        0,
        10_000,
        Some(&dir),
    )
    .await;
    assert_exactly_once(&records, &expected);
    // The restarted instance was stopped cleanly: now every task has its clean-close mark.
    assert!(
        !checkpoints_in(&dir.join("e2e-wc-state-kill")).is_empty(),
        "a clean stop marks its tasks closed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_and_restart_under_exactly_once_counts_exactly_once() {
    let (records, expected) =
        kill_and_restart("e2e-wc-kill", "wc-kill", "exactly_once", 3, 0, 10_000, None).await;
    assert_exactly_once(&records, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_and_restart_under_at_least_once_loses_nothing() {
    let (records, expected) = kill_and_restart(
        "e2e-wc-alos",
        "wc-alos",
        "at_least_once",
        4,
        0,
        10_000,
        None,
    )
    .await;
    let last = dekaf_streams_harness::kafka_io::last_counts(&records);
    let lost: Vec<_> = expected
        .iter()
        .filter(|(k, n)| last.get(*k).is_none_or(|v| v < n))
        .collect();
    assert!(
        lost.is_empty(),
        "counts below expected: {:?}",
        &lost[..lost.len().min(5)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_and_restart_with_the_record_cache_under_exactly_once_counts_exactly_once() {
    let (records, expected) = kill_and_restart(
        "e2e-wc-ckill",
        "wc-ckill",
        "exactly_once",
        6,
        DEFAULT_CACHE_MAX_BYTES,
        300,
        None,
    )
    .await;
    assert_cached_counts(&records, &expected);
}
