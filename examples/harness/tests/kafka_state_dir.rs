//! Stores on disk (`state_dir`, LMDB) on a real broker: a clean restart restores nothing of a
//! million-record changelog and goes on counting from the stored state; a second instance on
//! the same state directory is refused while the first one keeps working; a store whose recorded
//! changelog offset does not fit the changelog is not trusted, and the stores are rebuilt; the
//! directories of tasks that moved to another instance are deleted after the cleanup delay.
//!
//! In its own test binary: the metrics recorder is global to the process, and the tests take
//! turns so each one's metric deltas are its own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dekaf_streams::store::{LmdbBackend, StoreBackend};
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, StreamsError};
use dekaf_streams_harness::e2e::{
    InProcess, KeyRepeats, Reader, WcStateClean, WcStateTwo, assert_exactly_once, counts_reached,
    expected_counts, fresh, sentences, wait_for_members_with_tasks,
};
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers, produce};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

/// The counters of the process, totalled over snapshots (the debugging recorder hands out what
/// changed since the last one).
struct Counters {
    snapshotter: Snapshotter,
    totals: HashMap<String, u64>,
}

impl Counters {
    fn get(&mut self, name: &str) -> u64 {
        for (key, _, _, value) in self.snapshotter.snapshot().into_vec() {
            if let DebugValue::Counter(c) = value {
                *self.totals.entry(key.key().name().to_owned()).or_insert(0) += c;
            }
        }
        self.totals.get(name).copied().unwrap_or(0)
    }
}

/// The recorder, installed once; tests take turns through the lock.
fn counters() -> &'static tokio::sync::Mutex<Counters> {
    static COUNTERS: std::sync::OnceLock<tokio::sync::Mutex<Counters>> = std::sync::OnceLock::new();
    COUNTERS.get_or_init(|| {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::set_global_recorder(recorder).expect("the only recorder of this test binary");
        tokio::sync::Mutex::new(Counters {
            snapshotter,
            totals: HashMap::new(),
        })
    })
}

fn state_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dekaf-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `topology` with stores under `dir`, and no record cache: the exactly-once checks expect every
/// update of every count.
fn on_disk<T: dekaf_streams::task::Topology>(topology: T, dir: &PathBuf) -> KafkaStreams<T> {
    KafkaStreams::builder(topology)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .state_dir(dir)
        .build()
        .expect("valid settings")
}

async fn wait_for(counters: &mut Counters, name: &str, at_least: u64, timeout: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if counters.get(name) >= at_least {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_restart_restores_nothing_of_a_million_record_changelog_and_counts_on() {
    const KEYS: usize = 1_000_000;
    let mut counters = counters().lock().await;
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-state-repeats",
        &[("e2e-state-repeats-in", 2), ("e2e-state-repeats-out", 2)],
    )
    .await;
    let dir = state_dir("repeats");
    let keys: Vec<String> = (0..KEYS).map(|i| format!("k{i}")).collect();
    let n = produce(
        &servers,
        "e2e-state-repeats-in",
        keys.iter().map(|k| (Some(k.as_bytes()), Some(&b""[..]))),
    )
    .await
    .expect("produce keys");
    assert_eq!(n as usize, KEYS);

    // First run: every key counted once; the changelog gets a record per key.
    let processed = counters.get("dekaf.streams.records.processed");
    let first = InProcess::run(on_disk(KeyRepeats, &dir));
    let done = wait_for(
        &mut counters,
        "dekaf.streams.records.processed",
        processed + KEYS as u64,
        Duration::from_secs(600),
    )
    .await;
    first.stop().await.expect("clean stop");
    assert!(done, "the first run did not process every key in time");

    // The changelog holds (at least) one record per key.
    let changelog: i64 = {
        let servers = servers.clone();
        off_workers(move || {
            let watermarks: rdkafka::consumer::BaseConsumer = rdkafka::ClientConfig::new()
                .set("bootstrap.servers", &servers)
                .create()
                .expect("a consumer");
            (0..2)
                .map(|p| {
                    rdkafka::consumer::Consumer::fetch_watermarks(
                        &watermarks,
                        "e2e-state-repeats-seen-changelog",
                        p,
                        Duration::from_secs(10),
                    )
                    .expect("changelog watermarks")
                    .1
                })
                .sum()
        })
        .await
    };
    assert!(changelog >= KEYS as i64, "changelog of {changelog} records");

    // Second run, after the clean stop: nothing to restore.
    let restored = counters.get("dekaf.streams.records.restored");
    let second = InProcess::run(on_disk(KeyRepeats, &dir));
    // Every key seen a second time now reports 2: its first count came from the LMDB store.
    let again: Vec<&String> = keys.iter().step_by(1_000).collect();
    produce(
        &servers,
        "e2e-state-repeats-in",
        again.iter().map(|k| (Some(k.as_bytes()), Some(&b""[..]))),
    )
    .await
    .expect("produce repeats");
    let mut reader = Reader::new(&servers, "e2e-state-repeats-out").await;
    let seen = reader
        .read_until(Duration::from_secs(120), |r| r.len() >= again.len())
        .await;
    reader.drain(Duration::from_secs(2)).await;
    let restored_after = counters.get("dekaf.streams.records.restored");
    second.stop().await.expect("clean stop");
    assert!(seen, "the repeated keys were not reported");
    assert_eq!(
        restored_after - restored,
        0,
        "a restart after a clean stop restores nothing"
    );
    let mut reported: Vec<(String, i64)> = reader
        .records
        .iter()
        .map(|r| {
            let key = String::from_utf8(r.key.clone().unwrap_or_default()).expect("utf-8 key");
            let value = r
                .value
                .as_deref()
                .map(|v| i64::from_be_bytes(v.try_into().expect("an 8-byte count")));
            (key, value.unwrap_or(-1))
        })
        .collect();
    reported.sort();
    let mut expected: Vec<(String, i64)> = again.iter().map(|k| ((*k).clone(), 2)).collect();
    expected.sort();
    assert_eq!(reported, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Produces `batch` to the two-instances test's input, keyed `s0`, `s1`, ….
async fn produce_all(servers: &str, batch: &[String]) {
    produce_to(servers, "e2e-wc-state-two-in", batch).await;
}

/// Produces `batch` to `topic`, keyed `s0`, `s1`, ….
async fn produce_to(servers: &str, topic: &str, batch: &[String]) {
    let keys: Vec<String> = (0..batch.len()).map(|i| format!("s{i}")).collect();
    produce(
        servers,
        topic,
        keys.iter()
            .zip(batch)
            .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce sentences");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_instance_is_refused_and_a_store_offset_that_does_not_fit_is_rebuilt() {
    let mut counters = counters().lock().await;
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-wc-state-two",
        &[("e2e-wc-state-two-in", 2), ("e2e-wc-state-two-out", 2)],
    )
    .await;
    let dir = state_dir("two");
    let input = sentences(10_000, 300, 11);
    let expected = expected_counts(&input);
    let (first_half, second_half) = input.split_at(5_000);
    produce_all(&servers, first_half).await;
    let first = InProcess::run(on_disk(WcStateTwo, &dir));
    let mut reader = Reader::new(&servers, "e2e-wc-state-two-out").await;
    assert!(
        reader
            .read_until(Duration::from_secs(120), |r| !r.is_empty())
            .await,
        "the first instance produced nothing"
    );

    let second = on_disk(WcStateTwo, &dir);
    let refused = tokio::time::timeout(
        Duration::from_secs(30),
        second.run(std::future::pending::<()>()),
    )
    .await
    .expect("the second instance returns at once");
    let error = refused.expect_err("the second instance must be refused");
    assert!(matches!(error, StreamsError::StateDir(_)), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("in use by another running instance") && message.contains("state_dir"),
        "{message}"
    );

    produce_all(&servers, second_half).await;
    let done = reader
        .read_until(Duration::from_secs(180), |r| counts_reached(r, &expected))
        .await;
    first
        .stop()
        .await
        .expect("the first instance stops cleanly");
    reader.drain(Duration::from_secs(2)).await;
    assert!(done, "the first instance did not finish after the refusal");
    assert_exactly_once(&reader.records, &expected);

    // A store whose recorded changelog offset does not fit the changelog (here: past its end)
    // is not trusted: the stores are rebuilt from the changelog, and counting goes on exactly.
    let app_dir = dir.join("e2e-wc-state-two");
    let mut tampered = 0;
    for task in std::fs::read_dir(&app_dir)
        .expect("task directories")
        .flatten()
        .filter(|t| t.path().is_dir())
    {
        for store in std::fs::read_dir(task.path())
            .expect("store directories")
            .flatten()
        {
            if !store.path().join("data.mdb").exists() {
                continue;
            }
            let mut backend = LmdbBackend::open(&store.path()).expect("open the store");
            assert!(
                backend.changelog_offset().is_some(),
                "a clean stop leaves every store with its changelog offset"
            );
            backend.flush_at(999_999_999).expect("tamper");
            tampered += 1;
        }
    }
    assert!(tampered > 0, "a clean stop leaves stores on disk");
    let restored = counters.get("dekaf.streams.records.restored");
    let third = InProcess::run(on_disk(WcStateTwo, &dir));
    let more = sentences(2_000, 300, 12);
    let mut all = input.clone();
    all.extend(more.iter().cloned());
    let expected = expected_counts(&all);
    produce_all(&servers, &more).await;
    let done = reader
        .read_until(Duration::from_secs(180), |r| counts_reached(r, &expected))
        .await;
    third.stop().await.expect("clean stop");
    reader.drain(Duration::from_secs(2)).await;
    assert!(done, "counting did not go on after the rebuild");
    assert_exactly_once(&reader.records, &expected);
    assert!(
        counters.get("dekaf.streams.records.restored") > restored,
        "the stores were rebuilt from the changelog"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The task directories (`<subtopology>_<partition>`) under an application's directory.
fn task_dirs(app_dir: &std::path::Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(app_dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// Whether a thread holds the task directory's lock (an `flock` conflicts across descriptors,
/// even within one process).
fn locked(task_dir: &std::path::Path) -> bool {
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .open(task_dir.join(".lock"))
    else {
        return false;
    };
    file.try_lock().is_err()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directories_of_tasks_that_moved_away_are_deleted_after_the_cleanup_delay() {
    let _turn = counters().lock().await;
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-wc-state-clean",
        &[("e2e-wc-state-clean-in", 4), ("e2e-wc-state-clean-out", 4)],
    )
    .await;
    let (dir_a, dir_b) = (state_dir("clean-a"), state_dir("clean-b"));
    let input = sentences(4_000, 200, 21);
    let expected = expected_counts(&input);
    let (first_half, second_half) = input.split_at(2_000);
    produce_to(&servers, "e2e-wc-state-clean-in", first_half).await;
    let with_delay = |dir: &PathBuf, delay: Duration| {
        KafkaStreams::builder(WcStateClean)
            .bootstrap_servers(bootstrap())
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            .cache_max_bytes(0)
            .state_dir(dir)
            .state_cleanup_delay(delay)
            .build()
            .expect("valid settings")
    };
    let a = InProcess::run(with_delay(&dir_a, Duration::from_secs(2)));
    let mut reader = Reader::new(&servers, "e2e-wc-state-clean-out").await;
    assert!(
        reader
            .read_until(Duration::from_secs(120), |r| !r.is_empty())
            .await,
        "the first instance produced nothing"
    );
    let app_a = dir_a.join("e2e-wc-state-clean");
    let all = task_dirs(&app_a);
    assert_eq!(all.len(), 8, "the only instance runs every task: {all:?}");

    // A second instance takes some tasks; the first one's directories of those go after 2 s.
    let b = InProcess::run(with_delay(&dir_b, Duration::from_secs(600)));
    assert!(
        wait_for_members_with_tasks(&servers, "e2e-wc-state-clean", 2, Duration::from_secs(120))
            .await,
        "both instances run tasks"
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut left = task_dirs(&app_a);
    while !(left.len() < all.len() && left.iter().all(|d| locked(d))) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = task_dirs(&app_a);
    }
    assert!(
        left.len() < all.len() && !left.is_empty(),
        "the tasks that moved away were deleted, those still run kept: {left:?}"
    );
    for d in &left {
        assert!(
            locked(d),
            "{} is kept only while its task runs here",
            d.display()
        );
    }

    // Counting goes on exactly across the move.
    produce_to(&servers, "e2e-wc-state-clean-in", second_half).await;
    let done = reader
        .read_until(Duration::from_secs(180), |r| counts_reached(r, &expected))
        .await;
    b.stop().await.expect("clean stop");
    a.stop().await.expect("clean stop");
    reader.drain(Duration::from_secs(2)).await;
    assert!(done, "counting did not go on after the move");
    assert_exactly_once(&reader.records, &expected);
    let _ = std::fs::remove_dir_all(&dir_a);
    let _ = std::fs::remove_dir_all(&dir_b);
}

use dekaf_streams::serdes::{I64, Utf8};

dekaf_streams::topology! {
    /// Clicks per user twice: `on-disk` in LMDB, `in-memory` kept in memory (`in_memory()`).
    pub MixedStores = "e2e-mixed-stores" {
        let clicks = stream("e2e-mixed-in", Utf8, Utf8);
        clicks
            .group_by_key()
            .count("on-disk")
            .to_stream()
            .to("e2e-mixed-disk-out", Utf8, I64);
        clicks
            .group_by_key()
            .count("in-memory")
            .in_memory()
            .to_stream()
            .to("e2e-mixed-memory-out", Utf8, I64);
    }
}

/// A store kept in memory (`in_memory()`) beside one on disk: it gets no LMDB environment, and
/// after a clean restart it alone is restored (from its changelog's start) while the store on
/// disk restores nothing; both count on exactly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_kept_in_memory_beside_stores_on_disk_is_restored_alone() {
    const USERS: usize = 50;
    const CLICKS: usize = 1_000;
    let mut counters = counters().lock().await;
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-mixed-stores",
        &[
            ("e2e-mixed-in", 2),
            ("e2e-mixed-disk-out", 2),
            ("e2e-mixed-memory-out", 2),
        ],
    )
    .await;
    let dir = state_dir("mixed");
    let clicks = |offset: usize| -> Vec<String> {
        (offset..offset + CLICKS)
            .map(|i| format!("u{}", i % USERS))
            .collect()
    };
    let send = |batch: Vec<String>| {
        let servers = servers.clone();
        async move {
            produce(
                &servers,
                "e2e-mixed-in",
                batch.iter().map(|u| (Some(u.as_bytes()), Some(&b"c"[..]))),
            )
            .await
            .expect("produce clicks")
        }
    };
    send(clicks(0)).await;
    let first = InProcess::run(on_disk(MixedStores, &dir));
    let mut disk = Reader::new(&servers, "e2e-mixed-disk-out").await;
    let half: HashMap<String, i64> = (0..USERS)
        .map(|u| (format!("u{u}"), (CLICKS / USERS) as i64))
        .collect();
    assert!(
        disk.read_until(Duration::from_secs(120), |r| counts_reached(r, &half))
            .await,
        "the first run did not count every click"
    );
    first.stop().await.expect("clean stop");
    // Only the store on disk has an LMDB environment in the task directories.
    let stores: Vec<String> = task_dirs(&dir.join("e2e-mixed-stores"))
        .iter()
        .flat_map(|t| std::fs::read_dir(t).into_iter().flatten().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(
        stores.iter().any(|n| n.contains("on-disk"))
            && !stores.iter().any(|n| n.contains("in-memory")),
        "store directories: {stores:?}"
    );

    // The clean restart restores the in-memory store's whole changelog, and nothing of the
    // store on disk.
    let memory_changelog = dekaf_streams_harness::kafka_io::read_all(
        &servers,
        "e2e-mixed-stores-in-memory-changelog",
        Duration::from_millis(500),
        Duration::from_secs(30),
    )
    .await
    .expect("the in-memory store's changelog")
    .len() as u64;
    let restored = counters.get("dekaf.streams.records.restored");
    send(clicks(CLICKS)).await;
    let second = InProcess::run(on_disk(MixedStores, &dir));
    let all: HashMap<String, i64> = (0..USERS)
        .map(|u| (format!("u{u}"), (2 * CLICKS / USERS) as i64))
        .collect();
    let mut memory = Reader::new(&servers, "e2e-mixed-memory-out").await;
    assert!(
        memory
            .read_until(Duration::from_secs(120), |r| counts_reached(r, &all))
            .await,
        "the in-memory count did not reach the total after the restart"
    );
    assert!(
        disk.read_until(Duration::from_secs(120), |r| counts_reached(r, &all))
            .await,
        "the on-disk count did not reach the total after the restart"
    );
    let restored_now = counters.get("dekaf.streams.records.restored") - restored;
    second.stop().await.expect("clean stop");
    assert!(memory_changelog >= USERS as u64);
    assert_eq!(
        restored_now, memory_changelog,
        "the in-memory store's changelog, and nothing of the store on disk, is restored"
    );
    disk.drain(Duration::from_secs(2)).await;
    memory.drain(Duration::from_secs(2)).await;
    assert_exactly_once(&disk.records, &all);
    assert_exactly_once(&memory.records, &all);
    let _ = std::fs::remove_dir_all(&dir);
}
