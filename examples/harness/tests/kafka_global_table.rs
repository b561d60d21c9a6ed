//! A stream joined with a global table on a real broker under exactly-once, with a SIGKILL of
//! the instance (a child process, `global-instance`) while it processes. The global table's
//! topic has 2 partitions and the stream's 3 (a global table needs no co-partitioning), and the
//! table was written with updates and deletes before the start, so the instance must read it
//! completely (the latest value per key) before it joins anything. An independent
//! read_committed reader (no consumer group) checks the committed output: every order of a
//! known customer exactly once, with the customer's latest name; none of an unknown or deleted
//! customer. Then a customer added while the application runs must reach the joins (the global
//! thread keeps reading).
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use dekaf_streams_harness::e2e::{fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{bootstrap, produce, read_all};

const APP: &str = "kg-eos";
const CUSTOMERS: &str = "kg-customers";
const ORDERS: &str = "kg-orders";
const ENRICHED: &str = "kg-enriched";

/// Starts `global-instance` under exactly-once with a short transaction timeout, so a killed
/// instance's transaction aborts quickly; its log goes to `log`.
fn start(log: &Path) -> Child {
    logged_instance(env!("CARGO_BIN_EXE_global-instance"), log)
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .spawn()
        .expect("start global-instance")
}

/// The customer updates written before the start: 200 customers, renamed once, every 10th
/// deleted again; `cust-200` and above never exist.
fn customer_updates() -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for c in 0..200 {
        out.push((format!("cust-{c}"), Some(format!("first-{c}"))));
    }
    for c in 0..200 {
        let latest = (c % 10 != 9).then(|| format!("name-{c}"));
        out.push((format!("cust-{c}"), latest));
    }
    out
}

/// Order `i`: its id, and its value naming its customer (some unknown).
fn order(i: usize) -> (String, String) {
    (
        format!("order-{i}"),
        format!("cust-{}:item-{i}", (i * 7) % 230),
    )
}

async fn send(topic: &str, records: &[(String, Option<String>)]) {
    produce(
        &bootstrap(),
        topic,
        records
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), v.as_deref().map(str::as_bytes))),
    )
    .await
    .expect("produce");
}

/// Every committed output record: (order id, value).
async fn committed_output() -> Vec<(String, String)> {
    read_all(
        &bootstrap(),
        ENRICHED,
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .await
    .expect("read the output")
    .into_iter()
    .map(|r| {
        let text =
            |b: Option<Vec<u8>>| String::from_utf8_lossy(&b.unwrap_or_default()).into_owned();
        (text(r.key), text(r.value))
    })
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn global_table_join_is_exact_across_a_sigkill_and_follows_updates() {
    fresh(
        &bootstrap(),
        APP,
        &[(CUSTOMERS, 2), (ORDERS, 3), (ENRICHED, 3)],
    )
    .await;
    let log = std::env::temp_dir().join("kg-eos-instance.log");
    let _ = std::fs::remove_file(&log);

    let customers = customer_updates();
    send(CUSTOMERS, &customers).await;
    let orders: Vec<(String, Option<String>)> =
        (0..3000).map(order).map(|(k, v)| (k, Some(v))).collect();
    send(ORDERS, &orders[..1500]).await;

    let mut instance = start(&log);
    // Kill it while it works: once some results are committed.
    let started = Instant::now();
    while committed_output().await.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no output within 120 s; see {}",
            log.display()
        );
    }
    send(ORDERS, &orders[1500..2200]).await;
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    send(ORDERS, &orders[2200..]).await;
    let mut instance = start(&log);

    let mut name_of: HashMap<String, String> = HashMap::new();
    for (k, v) in &customers {
        match v {
            Some(n) => name_of.insert(k.clone(), n.clone()),
            None => name_of.remove(k),
        };
    }
    let expected: HashMap<String, String> = (0..3000)
        .map(order)
        .filter_map(|(id, v)| {
            let customer = v.split(':').next().unwrap_or_default().to_owned();
            name_of.get(&customer).map(|n| (id, format!("{v}@{n}")))
        })
        .collect();

    // Wait (with a deadline) until every expected result is committed.
    let started = Instant::now();
    let output = loop {
        let output = committed_output().await;
        let seen: std::collections::HashSet<&String> = output.iter().map(|(k, _)| k).collect();
        if expected.keys().all(|k| seen.contains(k)) || started.elapsed() > Duration::from_secs(180)
        {
            break output;
        }
    };
    let mut problems = Vec::new();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (k, v) in &output {
        *count.entry(k.as_str()).or_insert(0) += 1;
        match expected.get(k) {
            Some(want) if want == v => {}
            Some(want) => problems.push(format!("{k}: {v}, expected {want}")),
            None => problems.push(format!(
                "{k}: {v}, expected nothing (unknown or deleted customer)"
            )),
        }
    }
    for (k, n) in &count {
        if *n > 1 {
            problems.push(format!(
                "{k}: {n} results, expected one (a duplicate across the SIGKILL)"
            ));
        }
    }
    for k in expected.keys() {
        if !count.contains_key(k.as_str()) {
            problems.push(format!("{k}: no result"));
        }
    }

    // A customer added now reaches the joins through the global thread: probe orders for it
    // are dropped (inner join) until the table has it, then joined with its name.
    send(
        CUSTOMERS,
        &[("cust-new".to_owned(), Some("newcomer".to_owned()))],
    )
    .await;
    let started = Instant::now();
    let mut joined_new = false;
    let mut probe = 0;
    while !joined_new && started.elapsed() < Duration::from_secs(60) {
        probe += 1;
        send(
            ORDERS,
            &[(
                format!("probe-{probe}"),
                Some(format!("cust-new:probe-{probe}")),
            )],
        )
        .await;
        joined_new = committed_output()
            .await
            .iter()
            .any(|(k, v)| k.starts_with("probe-") && v.ends_with("@newcomer"));
    }
    if !joined_new {
        problems.push("a customer added while running never reached the join".to_owned());
    }
    let _ = instance.kill();
    let _ = instance.wait();
    assert!(
        problems.is_empty(),
        "{} problems (log {}):\n{}",
        problems.len(),
        log.display(),
        problems.join("\n")
    );
}
