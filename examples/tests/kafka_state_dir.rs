//! Stores on disk (`state_dir`, LMDB) on a real broker: a clean restart restores nothing of a
//! million-record changelog and goes on counting from the stored state; a second instance on
//! the same state directory is refused while the first one keeps working; a store whose recorded
//! changelog offset does not fit the changelog is not trusted, and the stores are rebuilt.
//!
//! In its own test binary: the metrics recorder is global to the process, and the tests take
//! turns so each one's metric deltas are its own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dekaf_streams::store::{LmdbBackend, StoreBackend};
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, StreamsError};
use dekaf_streams_examples::e2e::{
    InProcess, KeyRepeats, Reader, WcStateTwo, assert_exactly_once, counts_reached,
    expected_counts, fresh, sentences,
};
use dekaf_streams_examples::kafka_io::{bootstrap, off_workers, produce};
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
    let keys: Vec<String> = (0..batch.len()).map(|i| format!("s{i}")).collect();
    produce(
        servers,
        "e2e-wc-state-two-in",
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
