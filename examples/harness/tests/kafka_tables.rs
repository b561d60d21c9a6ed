//! The table-table join and the re-grouped count on a real broker under exactly-once, with a
//! SIGKILL of the instance (a child process, `table-instance`) while it processes: an
//! independent read_committed reader (no consumer group) checks the committed output. A
//! duplicate or lost update would leave a wrong join result for some key, or a plan count that
//! is not the number of accounts on that plan (a replayed update subtracts and adds twice).
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use dekaf_streams_harness::e2e::{fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{ReadRecord, bootstrap, produce, read_all};

const APP: &str = "kt-eos";
const ACCOUNTS: &str = "kt-accounts";
const OWNERS: &str = "kt-owners";
const JOINED: &str = "kt-joined";
const COUNTS: &str = "kt-plan-counts";
const PARTITIONS: i32 = 3;

/// Starts `table-instance` under exactly-once, with a record cache of `cache` bytes (0: every
/// update is forwarded; else the tables and the count forward one change per key and commit)
/// and a short transaction timeout, so a killed instance's transaction aborts quickly; its log
/// goes to `log`.
fn start(log: &Path, cache: usize) -> Child {
    logged_instance(env!("CARGO_BIN_EXE_table-instance"), log)
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .env("DEKAF_CACHE_MAX_BYTES", cache.to_string())
        .spawn()
        .expect("start table-instance")
}

/// The update `i` of the accounts table: account, and its plan (`None`: closed).
fn account_update(i: usize) -> (String, Option<String>) {
    let account = format!("acct-{}", (i * 7) % 150);
    let plan = if i % 11 == 10 {
        None
    } else {
        Some(format!("plan-{}", (i * 13 + i / 5) % 6))
    };
    (account, plan)
}

/// The owners: every account but a few has one.
fn owner_update(i: usize) -> (String, Option<String>) {
    let account = format!("acct-{}", i % 150);
    let owner = if i % 40 == 39 {
        None
    } else {
        Some(format!("owner-{}", i % 17))
    };
    (account, owner)
}

async fn send(topic: &str, updates: &[(String, Option<String>)]) {
    produce(
        &bootstrap(),
        topic,
        updates
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), v.as_deref().map(str::as_bytes))),
    )
    .await
    .expect("produce");
}

/// Reads `topic` until `done` says its last values per key are complete, or `limit` passes;
/// returns the last value per key (`None`: tombstone).
async fn last_values(
    topic: &str,
    limit: Duration,
    done: impl Fn(&HashMap<String, Option<Vec<u8>>>) -> bool,
) -> HashMap<String, Option<Vec<u8>>> {
    let started = Instant::now();
    loop {
        let records: Vec<ReadRecord> = read_all(
            &bootstrap(),
            topic,
            Duration::from_secs(2),
            Duration::from_secs(60),
        )
        .await
        .expect("read the output");
        let mut last = HashMap::new();
        for r in records {
            if let Some(k) = r.key {
                last.insert(String::from_utf8_lossy(&k).into_owned(), r.value);
            }
        }
        if done(&last) || started.elapsed() > limit {
            return last;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_join_and_regrouped_count_are_exact_across_a_sigkill() {
    // Without a record cache, then with the default one (10 MiB): the cached tables and count
    // hold changes back until the commit, and an aborted transaction must drop what they hold.
    // One after the other: the topology's application id and topics are fixed.
    run_with_cache(0).await;
    run_with_cache(10 * 1024 * 1024).await;
}

async fn run_with_cache(cache: usize) {
    let topics = [
        (ACCOUNTS, PARTITIONS),
        (OWNERS, PARTITIONS),
        (JOINED, PARTITIONS),
        (COUNTS, PARTITIONS),
    ];
    fresh(&bootstrap(), APP, &topics).await;
    let log = std::env::temp_dir().join(format!("kt-eos-instance-cache-{cache}.log"));
    let _ = std::fs::remove_file(&log);

    let owners: Vec<_> = (0..400).map(owner_update).collect();
    let accounts: Vec<_> = (0..3000).map(account_update).collect();
    let (first, second) = accounts.split_at(1500);
    send(OWNERS, &owners).await;
    send(ACCOUNTS, first).await;

    let mut instance = start(&log, cache);
    // Kill it while it works: once some results are committed, before all are.
    let started = Instant::now();
    loop {
        let seen = read_all(
            &bootstrap(),
            COUNTS,
            Duration::from_millis(500),
            Duration::from_secs(10),
        )
        .await
        .expect("read counts")
        .len();
        if seen > 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no output within 120 s; see {}",
            log.display()
        );
    }
    send(ACCOUNTS, &second[..500]).await;
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    send(ACCOUNTS, &second[500..]).await;
    let mut instance = start(&log, cache);

    // The expected final tables.
    let mut plan_of: HashMap<String, String> = HashMap::new();
    for (k, v) in &accounts {
        match v {
            Some(p) => plan_of.insert(k.clone(), p.clone()),
            None => plan_of.remove(k),
        };
    }
    let mut owner_of: HashMap<String, String> = HashMap::new();
    for (k, v) in &owners {
        match v {
            Some(o) => owner_of.insert(k.clone(), o.clone()),
            None => owner_of.remove(k),
        };
    }
    let mut per_plan: HashMap<String, i64> = HashMap::new();
    for p in plan_of.values() {
        *per_plan.entry(p.clone()).or_insert(0) += 1;
    }
    let expected_join: HashMap<String, String> = plan_of
        .iter()
        .filter_map(|(k, p)| owner_of.get(k).map(|o| (k.clone(), format!("{p}@{o}"))))
        .collect();

    let counts = last_values(COUNTS, Duration::from_secs(180), |last| {
        per_plan.iter().all(|(p, n)| {
            last.get(p)
                .and_then(|v| v.as_deref())
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .is_some_and(|b| i64::from_be_bytes(b) == *n)
        })
    })
    .await;
    let joined = last_values(JOINED, Duration::from_secs(60), |last| {
        expected_join
            .iter()
            .all(|(k, v)| last.get(k).and_then(|x| x.as_deref()) == Some(v.as_bytes()))
    })
    .await;
    let _ = instance.kill();
    let _ = instance.wait();

    let mut problems = Vec::new();
    for (plan, n) in &per_plan {
        let got = counts
            .get(plan)
            .and_then(|v| v.as_deref())
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(i64::from_be_bytes);
        if got != Some(*n) {
            problems.push(format!("{plan}: count {got:?}, expected {n}"));
        }
    }
    for (plan, v) in &counts {
        if !per_plan.contains_key(plan) {
            let got = v
                .as_deref()
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(i64::from_be_bytes);
            if got != Some(0) {
                problems.push(format!(
                    "{plan}: count {got:?}, expected 0 (no account on it)"
                ));
            }
        }
    }
    for (account, v) in &expected_join {
        let got = joined.get(account).and_then(|x| x.as_deref());
        if got != Some(v.as_bytes()) {
            problems.push(format!(
                "{account}: joined {:?}, expected {v}",
                got.map(String::from_utf8_lossy)
            ));
        }
    }
    for (account, v) in &joined {
        if !expected_join.contains_key(account) && v.is_some() {
            problems.push(format!(
                "{account}: joined {:?}, expected a tombstone",
                v.as_deref().map(String::from_utf8_lossy)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems with a record cache of {cache} bytes (log {}):\n{}",
        problems.len(),
        log.display(),
        problems.join("\n")
    );
}
