//! A store without a changelog (`with_logging_disabled()`, on an aggregation's store and on a
//! store declared for `process(..)`) on a real broker under exactly-once,
//! with its stores on disk (LMDB), across a clean restart and a SIGKILL of the instance (a child
//! process, `logging-instance`), checked by an independent read_committed reader:
//!
//! - the coordinator creates the logged store's changelog and none for the other;
//! - the logged count is exact across both (every update `1..=n` once per key);
//! - the unlogged count keeps its state across the clean restart (its task closed cleanly),
//!   and starts over after the SIGKILL: it may have held writes of an interval that was never
//!   committed, so the restarted task empties it, as Kafka Streams wipes such a task's state.
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use std::time::{Duration, Instant};

use dekaf_streams_harness::e2e::{exactly_once_problems, fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{
    ReadRecord, bootstrap, last_counts, produce, read_all, topic_exists,
};

const APP: &str = "klg-eos";
const CLICKS: &str = "klg-clicks";
const KEPT: &str = "klg-kept";
const SCRATCH: &str = "klg-scratch";
const BY_HAND: &str = "klg-by-hand";
const PARTITIONS: i32 = 3;
const USERS: usize = 20;
const BATCH: usize = 600;

/// The instance's process, killed when dropped (a failed assertion leaves none behind).
struct Instance(Child);

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(log: &Path, state: &Path) -> Instance {
    Instance(
        logged_instance(env!("CARGO_BIN_EXE_logging-instance"), log)
            .env("DEKAF_GUARANTEE", "exactly_once")
            .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
            .env("DEKAF_CACHE_MAX_BYTES", "0")
            .env("DEKAF_STATE_DIR", state)
            .spawn()
            .expect("start logging-instance"),
    )
}

/// Stops the instance with SIGTERM (a clean close: it commits and marks its tasks closed).
fn stop_cleanly(mut instance: Instance) {
    let child = &mut instance.0;
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let started = Instant::now();
    while child
        .try_wait()
        .expect("waiting for the instance")
        .is_none()
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the instance did not stop within 60 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Batch `b` of clicks: `BATCH` clicks spread over the users.
fn batch(b: usize) -> Vec<String> {
    (0..BATCH)
        .map(|i| format!("user-{}", (i * 7 + b) % USERS))
        .collect()
}

fn counts(clicks: &[String]) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for user in clicks {
        *counts.entry(user.clone()).or_insert(0) += 1;
    }
    counts
}

async fn send(clicks: &[String]) {
    produce(
        &bootstrap(),
        CLICKS,
        clicks
            .iter()
            .map(|u| (Some(u.as_bytes()), Some(&b"click"[..]))),
    )
    .await
    .expect("produce");
}

/// Reads `topic` until every user's last count is `expected`'s; panics at the limit.
async fn read_until(topic: &str, expected: &HashMap<String, i64>, log: &Path) -> Vec<ReadRecord> {
    let started = Instant::now();
    loop {
        let records = read_all(
            &bootstrap(),
            topic,
            Duration::from_millis(500),
            Duration::from_secs(30),
        )
        .await
        .expect("read");
        if last_counts(&records) == *expected {
            return records;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "{topic} did not reach {expected:?} (last {:?}); see {}",
            last_counts(&records),
            log.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_without_changelog_survives_a_clean_restart_and_starts_over_after_a_crash() {
    fresh(
        &bootstrap(),
        APP,
        &[
            (CLICKS, PARTITIONS),
            (KEPT, PARTITIONS),
            (SCRATCH, PARTITIONS),
            (BY_HAND, PARTITIONS),
        ],
    )
    .await;
    let log = std::env::temp_dir().join("klg-eos-instance.log");
    let _ = std::fs::remove_file(&log);
    let state: PathBuf = std::env::temp_dir().join(format!("klg-eos-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let (a, b, c) = (batch(0), batch(1), batch(2));

    send(&a).await;
    let instance = start(&log, &state);
    read_until(KEPT, &counts(&a), &log).await;
    read_until(SCRATCH, &counts(&a), &log).await;
    read_until(BY_HAND, &counts(&a), &log).await;
    // Only the logged store has a changelog.
    let servers = bootstrap();
    let exists = |topic| topic_exists(&servers, topic);
    assert!(exists("klg-eos-kept-changelog").await.expect("metadata"));
    assert!(
        !exists("klg-eos-scratch-changelog").await.expect("metadata"),
        "no changelog is created for a store whose logging is disabled"
    );
    assert!(
        !exists("klg-eos-by-hand-changelog").await.expect("metadata"),
        "no changelog is created for a declared store whose logging is disabled"
    );

    // A clean restart: the unlogged store keeps its counts.
    tokio::task::spawn_blocking(move || stop_cleanly(instance))
        .await
        .expect("stop");
    send(&b).await;
    let instance = start(&log, &state);
    let ab = counts(&[a.clone(), b.clone()].concat());
    read_until(KEPT, &ab, &log).await;
    read_until(SCRATCH, &ab, &log).await;
    read_until(BY_HAND, &ab, &log).await;

    // A crash once everything is committed: the unlogged store starts over.
    drop(instance);
    send(&c).await;
    let instance = start(&log, &state);
    let all = counts(&[a, b, c.clone()].concat());
    let kept = read_until(KEPT, &all, &log).await;
    let after_crash = counts(&c);
    let scratch = read_until(SCRATCH, &after_crash, &log).await;
    let by_hand = read_until(BY_HAND, &after_crash, &log).await;
    drop(instance);
    let _ = std::fs::remove_dir_all(&state);

    let problems = exactly_once_problems(&kept, &all);
    assert!(
        problems.is_empty(),
        "the logged count is not exact (log {}): {problems:#?}",
        log.display()
    );
    // The unlogged counts' updates: 1..=n of the first two batches, then 1..=m of the last.
    for (topic, records) in [(SCRATCH, &scratch), (BY_HAND, &by_hand)] {
        let mut by_user: HashMap<String, Vec<i64>> = HashMap::new();
        for r in records {
            let user = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
            let count = i64::from_be_bytes(
                r.value
                    .as_deref()
                    .and_then(|v| v.try_into().ok())
                    .expect("an 8-byte count"),
            );
            by_user.entry(user).or_default().push(count);
        }
        for (user, n) in &all {
            let before = n - after_crash.get(user).copied().unwrap_or(0);
            let expected: Vec<i64> = (1..=before)
                .chain(1..=after_crash.get(user).copied().unwrap_or(0))
                .collect();
            assert_eq!(
                by_user.get(user),
                Some(&expected),
                "{user}'s unlogged count in {topic} (log {})",
                log.display()
            );
        }
    }
}
