//! A processing thread stuck in user code does not keep its tasks: after `max_poll_interval`
//! its member leaves the group, another instance takes the task over, and the output stays
//! exactly-once; released, the stuck thread drops its tasks without committing and rejoins.
//! Long before that, once away for a fifth of the bound, the member warns that its thread is
//! away (counted in `dekaf.streams.poll.absence.warnings`).
//!
//! Two in-process instances of one application (one thread each) copy records upper-cased; the
//! first thread that meets the record `block` waits in the map closure until the test releases
//! it. An independent read_committed reader checks that every record comes out exactly once.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dekaf_streams::KafkaStreams;
use dekaf_streams::prelude::*;
use dekaf_streams_harness::e2e::{InProcess, Reader, fresh, wait_for_members_with_tasks};
use dekaf_streams_harness::kafka_io::{ReadRecord, bootstrap, produce};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

/// Held until the test releases the stuck thread.
static HOLD: AtomicBool = AtomicBool::new(true);
/// How many times a thread met the record `block` (only the first one waits).
static MET_BLOCK: AtomicUsize = AtomicUsize::new(0);
/// Whether a thread is waiting in the closure now.
static STUCK: AtomicBool = AtomicBool::new(false);

/// The user code of the test: the first `block` record waits for the test's release.
fn block_the_first_time(value: &str) {
    if value == "block" && MET_BLOCK.fetch_add(1, Ordering::SeqCst) == 0 {
        STUCK.store(true, Ordering::SeqCst);
        while HOLD.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
        STUCK.store(false, Ordering::SeqCst);
    }
}

topology! {
    /// Upper-cases values; the first `block` record blocks (see `block_the_first_time`).
    pub Stuck = "max-poll-stuck" {
        stream("max-poll-stuck-in", Utf8, Utf8)
            .map_values(|v| {
                block_the_first_time(&v);
                v.to_uppercase()
            })
            .to("max-poll-stuck-out", Utf8, Utf8);
    }
}

const MAX_POLL: Duration = Duration::from_secs(3);

fn instance() -> KafkaStreams<Stuck> {
    KafkaStreams::builder(Stuck)
        .bootstrap_servers(bootstrap())
        .max_poll_interval(MAX_POLL)
        // The stuck thread's open transaction holds read_committed readers back until the broker
        // aborts it.
        .transaction_timeout(Duration::from_secs(5))
        .build()
        .expect("valid settings")
}

/// Records `k<i>` -> `v<i>` for `range`, with the record `kblock` -> `block` after the first
/// `block_after` of them when given.
async fn produce_range(range: std::ops::Range<usize>, block_after: Option<usize>) {
    let mut records: Vec<(String, String)> =
        range.map(|i| (format!("k{i}"), format!("v{i}"))).collect();
    if let Some(at) = block_after {
        records.insert(at, ("kblock".into(), "block".into()));
    }
    let n = produce(
        &bootstrap(),
        "max-poll-stuck-in",
        records
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
    )
    .await
    .expect("produce");
    assert_eq!(n as usize, records.len());
}

/// How many times each key came out.
fn outputs_per_key(records: &[ReadRecord]) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for r in records {
        let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
        *seen.entry(key).or_insert(0) += 1;
    }
    seen
}

/// How many absence warnings the members gave.
fn absence_warnings(snapshotter: &Snapshotter) -> u64 {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .filter(|(key, ..)| key.key().name() == "dekaf.streams.poll.absence.warnings")
        .map(|(.., value)| match value {
            DebugValue::Counter(c) => c,
            _ => 0,
        })
        .sum()
}

fn expected_keys(n: usize) -> Vec<String> {
    let mut keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    keys.push("kblock".into());
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_stuck_in_user_code_loses_its_tasks_and_rejoins_when_released() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder
        .install()
        .expect("the only metrics recorder of this test binary");
    let servers = bootstrap();
    fresh(
        &servers,
        "max-poll-stuck",
        &[("max-poll-stuck-in", 2), ("max-poll-stuck-out", 2)],
    )
    .await;
    let first = InProcess::run(instance());
    let second = InProcess::run(instance());
    assert!(
        wait_for_members_with_tasks(&servers, "max-poll-stuck", 2, Duration::from_secs(60)).await,
        "both instances hold a task within 60 s"
    );
    produce_range(0..300, Some(150)).await;
    let mut reader = Reader::new(&servers, "max-poll-stuck-out").await;
    let keys = expected_keys(300);
    // The other instance takes the stuck thread's task over and processes everything, the
    // `block` record included, while the stuck thread still waits.
    let started = Instant::now();
    let taken_over = reader
        .read_until(Duration::from_secs(90), |r| {
            let seen = outputs_per_key(r);
            keys.iter().all(|k| seen.contains_key(k))
        })
        .await;
    let still_stuck = STUCK.load(Ordering::SeqCst);
    // Counters are cumulative in one snapshot only: read it once.
    let warnings = absence_warnings(&snapshotter);
    HOLD.store(false, Ordering::SeqCst);
    assert!(
        warnings >= 1,
        "the member warned about its thread's absence before max_poll_interval passed"
    );
    assert!(
        taken_over,
        "every record came out within 90 s while a thread was stuck (stuck now: {still_stuck}, \
         met the block record {} times)",
        MET_BLOCK.load(Ordering::SeqCst)
    );
    assert!(
        still_stuck,
        "the takeover happened while the thread was still stuck"
    );
    eprintln!("taken over after {:?}", started.elapsed());
    // Released, the stuck thread drops its tasks and rejoins: both members hold tasks again.
    assert!(
        wait_for_members_with_tasks(&servers, "max-poll-stuck", 2, Duration::from_secs(60)).await,
        "the released member rejoined and holds a task within 60 s"
    );
    // Both work: more records come out, each once.
    produce_range(300..400, None).await;
    let keys = expected_keys(400);
    let done = reader
        .read_until(Duration::from_secs(60), |r| {
            let seen = outputs_per_key(r);
            keys.iter().all(|k| seen.contains_key(k))
        })
        .await;
    let stopped = (first.stop().await, second.stop().await);
    reader.drain(Duration::from_secs(1)).await;
    assert!(done, "the records after the rejoin came out within 60 s");
    stopped.0.expect("the first instance stops cleanly");
    stopped.1.expect("the second instance stops cleanly");
    let seen = outputs_per_key(&reader.records);
    let wrong: Vec<String> = keys
        .iter()
        .filter(|k| seen.get(*k) != Some(&1))
        .map(|k| format!("{k}: {:?}", seen.get(k)))
        .collect();
    assert!(wrong.is_empty(), "not exactly once: {wrong:?}");
    assert_eq!(seen.len(), keys.len(), "unexpected keys: {seen:?}");
    for r in &reader.records {
        let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
        let value = String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned();
        let expected = match key.strip_prefix('k') {
            Some("block") => "BLOCK".to_owned(),
            Some(i) => format!("V{i}"),
            None => unreachable!("keys start with k"),
        };
        assert_eq!(value, expected);
    }
}
