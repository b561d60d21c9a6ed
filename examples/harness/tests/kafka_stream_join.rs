//! A left stream-stream join on a real broker under exactly-once, with an instance killed by
//! SIGKILL twice (once while it joins, once while unmatched orders wait in the outer store) and
//! restarted each time; an independent read_committed reader checks that every result arrives
//! exactly once.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::BTreeMap;
use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dekaf_streams_harness::e2e::{Reader, fresh};
use dekaf_streams_harness::kafka_io::{
    NewRecord, ReadRecord, bootstrap, off_workers, produce_records,
};

const APP: &str = "e2e-join-kill";
const ORDERS: &str = "e2e-join-kill-orders";
const PAYMENTS: &str = "e2e-join-kill-payments";
const OUT: &str = "e2e-join-kill-out";
const OUTER_CHANGELOG: &str = "e2e-join-kill-KSTREAM-OUTERSHARED-0000000004-store-changelog";

/// Orders with a payment, of which every tenth has a second one.
const PAIRED: usize = 20_000;
/// Orders without payment (emitted as `o+null` once their window closes).
const LONELY: usize = 2_000;
/// Payments of unknown orders (never emitted by a left join).
const STRAY: usize = 2_000;

fn instance() -> Child {
    Command::new(env!("CARGO_BIN_EXE_e2e-instance"))
        .arg("join-kill")
        .env("DEKAF_BOOTSTRAP", bootstrap())
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .env("RUST_LOG", "info,rdkafka=warn")
        .spawn()
        .expect("start e2e-instance")
}

/// SIGKILLs `child` and reaps it, off the tokio workers.
async fn sigkill(mut child: Child) {
    off_workers(move || {
        child.kill().expect("SIGKILL");
        let _ = child.wait();
    })
    .await;
}

async fn produce(topic: &str, records: &[(String, String, i64)]) {
    let n = produce_records(
        &bootstrap(),
        topic,
        records.iter().map(|(k, v, t)| NewRecord {
            key: Some(k.as_bytes()),
            value: Some(v.as_bytes()),
            timestamp: Some(*t),
            ..NewRecord::default()
        }),
    )
    .await
    .expect("produce");
    assert_eq!(n as usize, records.len());
}

type Result3 = (String, String, i64);

fn results(records: &[ReadRecord]) -> BTreeMap<Result3, usize> {
    let mut seen = BTreeMap::new();
    for r in records {
        let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
        let value = String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned();
        *seen.entry((key, value, r.timestamp)).or_insert(0) += 1;
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn left_join_survives_sigkill_exactly_once() {
    let servers = bootstrap();
    fresh(&servers, APP, &[(ORDERS, 4), (PAYMENTS, 4), (OUT, 4)]).await;
    // Every record lies within 55 s, less than the 60 s window: whatever order the task reads
    // the two topics in, each order meets its payments and no window closes before the closing
    // records at the end. Results: one per (order, payment) pair, at the later timestamp.
    let base = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        - 600_000;
    let mut expected: BTreeMap<Result3, usize> = BTreeMap::new();
    // Two batches of orders with their payments: the first before the kill, the second after
    // it, so the restarted instance has joining left to do whatever the speed of the first.
    let (mut orders, mut payments) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for i in 0..PAIRED {
        let (t, key) = (base + (i as i64 % 20_000), format!("k{i}"));
        let batch = usize::from(i >= PAIRED / 2);
        let (orders, payments) = (&mut orders[batch], &mut payments[batch]);
        orders.push((key.clone(), format!("o{i}"), t));
        let pt = t + 15_000 - (i as i64 % 7) * 5_000;
        payments.push((key.clone(), format!("p{i}"), pt));
        *expected
            .entry((key.clone(), format!("o{i}+p{i}"), t.max(pt)))
            .or_insert(0) += 1;
        if i % 10 == 0 {
            let pt2 = t + 20_000;
            payments.push((key.clone(), format!("q{i}"), pt2));
            *expected
                .entry((key, format!("o{i}+q{i}"), pt2))
                .or_insert(0) += 1;
        }
    }
    for i in 0..STRAY {
        payments[0].push((format!("s{i}"), format!("p{i}"), base + 1_000));
    }
    produce(ORDERS, &orders[0]).await;
    produce(PAYMENTS, &payments[0]).await;

    let mut reader = Reader::new(&servers, OUT).await;
    let victim = instance();
    let pairs = expected.values().sum::<usize>();
    // Killed as soon as the first results are out: usually mid-batch (the test holds either way).
    let started = reader
        .read_until(Duration::from_secs(120), |r| !r.is_empty())
        .await;
    assert!(started, "no join results before the first kill");
    sigkill(victim).await;
    produce(ORDERS, &orders[1]).await;
    produce(PAYMENTS, &payments[1]).await;
    let restarted = instance();
    let joined = reader
        .read_until(Duration::from_secs(240), |r| r.len() >= pairs)
        .await;
    assert!(
        joined,
        "not every pair joined after the restart: {} of {pairs}",
        reader.records.len()
    );

    // Orders without payment wait in the outer store; kill the instance once they are there.
    let lonely: Vec<_> = (0..LONELY)
        .map(|i| (format!("l{i}"), format!("o{i}"), base + 30_000 + i as i64))
        .collect();
    for (k, v, t) in &lonely {
        *expected
            .entry((k.clone(), format!("{v}+null"), *t))
            .or_insert(0) += 1;
    }
    produce(ORDERS, &lonely).await;
    let mut outer = Reader::new(&servers, OUTER_CHANGELOG).await;
    let waiting = outer
        .read_until(Duration::from_secs(120), |r| {
            r.iter()
                .filter(|c| c.key.as_deref().is_some_and(|k| k.get(9) == Some(&b'l')))
                .count()
                >= LONELY
        })
        .await;
    assert!(
        waiting,
        "the unmatched orders never reached the outer store's changelog"
    );
    sigkill(restarted).await;
    assert_eq!(
        results(&reader.records)
            .keys()
            .filter(|k| k.1.ends_with("+null"))
            .count(),
        0,
        "no unmatched order may come out before its window closes"
    );
    let last = instance();
    // Records 10 minutes later close every window, on every partition (64 keys).
    let closers: Vec<_> = (0..64)
        .map(|i| (format!("z{i}"), format!("z{i}"), base + 600_000))
        .collect();
    produce(ORDERS, &closers).await;
    let total = expected.values().sum::<usize>();
    let done = reader
        .read_until(Duration::from_secs(240), |r| r.len() >= total)
        .await;
    reader.drain(Duration::from_secs(3)).await;
    sigkill(last).await;
    assert!(done, "{} of {total} results", reader.records.len());
    let seen = results(&reader.records);
    let wrong: Vec<_> = seen
        .iter()
        .filter(|(k, n)| expected.get(k) != Some(n))
        .take(5)
        .collect();
    let missing: Vec<_> = expected
        .keys()
        .filter(|k| !seen.contains_key(k))
        .take(5)
        .collect();
    assert!(
        wrong.is_empty() && missing.is_empty(),
        "not exactly once: duplicated or unexpected {wrong:?}, missing {missing:?}"
    );
}
