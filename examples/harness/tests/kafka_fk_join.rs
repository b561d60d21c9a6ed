//! The foreign-key join (inner and left) on a real broker under exactly-once, with a SIGKILL of
//! the instance (a child process, `fk-instance`) while it processes. Orders (2 partitions)
//! reference customers (3 partitions): no co-partitioning, the subscription and response topics
//! carry every update between the two tables' tasks. Orders change their customer (foreign key
//! changes), name customers that never exist, and some are deleted at the end; customers are
//! renamed and deleted while orders arrive. An independent read_committed reader (no consumer group) checks
//! that the last committed result of every order is the join of the final tables: a lost,
//! duplicated-and-misapplied or stale update (a result of an order's old customer) would leave
//! a wrong last result.
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use dekaf_streams_harness::e2e::{fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{bootstrap, produce, read_all};

const APP: &str = "kfk-eos";
const ORDERS: &str = "kfk-orders";
const CUSTOMERS: &str = "kfk-customers";
const JOINED: &str = "kfk-joined";
const LEFT_JOINED: &str = "kfk-left-joined";

fn start(log: &Path) -> Child {
    logged_instance(env!("CARGO_BIN_EXE_fk-instance"), log)
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .spawn()
        .expect("start fk-instance")
}

type Updates = Vec<(String, Option<String>)>;

/// Order update `i`: 300 orders, each moving between customers (ids up to 70 are named; only
/// multiples of 3 below 60 ever exist).
fn order_update(i: usize) -> (String, Option<String>) {
    let order = format!("order-{}", (i * 7) % 300);
    (
        order,
        Some(format!("cust-{}:item-{i}", (i * 11 + i / 7) % 70)),
    )
}

/// Customer update `i`: 60 customers renamed over time, every 17th update a delete.
fn customer_update(i: usize) -> (String, Option<String>) {
    let customer = format!("cust-{}", (i * 3) % 60);
    let value = (i % 17 != 16).then(|| format!("name-{i}"));
    (customer, value)
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

/// The last committed value per key of `topic` (`None`: tombstone).
async fn last_values(topic: &str) -> HashMap<String, Option<String>> {
    let records = read_all(
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
            last.insert(
                String::from_utf8_lossy(&k).into_owned(),
                r.value.map(|v| String::from_utf8_lossy(&v).into_owned()),
            );
        }
    }
    last
}

fn latest(updates: &Updates) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for (k, v) in updates {
        match v {
            Some(v) => out.insert(k.clone(), v.clone()),
            None => out.remove(k),
        };
    }
    out
}

/// The differences between the last results and the expected ones (`None`: no result, or a
/// tombstone).
fn compare(
    what: &str,
    last: &HashMap<String, Option<String>>,
    expected: &HashMap<String, Option<String>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let keys: std::collections::BTreeSet<&String> = last.keys().chain(expected.keys()).collect();
    for k in keys {
        let got = last.get(k).cloned().flatten();
        let want = expected.get(k).cloned().flatten();
        if got != want {
            problems.push(format!(
                "{what} {k}: last result {got:?}, expected {want:?}"
            ));
        }
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fk_join_results_are_those_of_the_final_tables_across_a_sigkill() {
    fresh(
        &bootstrap(),
        APP,
        &[(ORDERS, 2), (CUSTOMERS, 3), (JOINED, 2), (LEFT_JOINED, 2)],
    )
    .await;
    let log = std::env::temp_dir().join("kfk-eos-instance.log");
    let _ = std::fs::remove_file(&log);

    let customers: Updates = (0..400).map(customer_update).collect();
    // Orders are deleted only at the end: as in Kafka Streams, the tombstone response of a
    // deleted row is stale (dropped) once the row is created again, and a new row whose foreign
    // key names nothing subscribes with PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE (no answer), so an
    // inner join's last result for a row deleted and re-created that way depends on timing.
    let mut orders: Updates = (0..2700).map(order_update).collect();
    orders.extend((0..30).map(|j| (format!("order-{}", j * 10), None)));
    send(CUSTOMERS, &customers[..200]).await;
    send(ORDERS, &orders[..1200]).await;

    let mut instance = start(&log);
    let started = Instant::now();
    while last_values(LEFT_JOINED).await.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no output within 120 s; see {}",
            log.display()
        );
    }
    // More of both sides while it works, then a SIGKILL, then the rest.
    send(CUSTOMERS, &customers[200..300]).await;
    send(ORDERS, &orders[1200..2000]).await;
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    send(CUSTOMERS, &customers[300..]).await;
    send(ORDERS, &orders[2000..]).await;
    let mut instance = start(&log);

    let (order_of, name_of) = (latest(&orders), latest(&customers));
    let mut inner: HashMap<String, Option<String>> = HashMap::new();
    let mut left: HashMap<String, Option<String>> = HashMap::new();
    for (order, value) in &order_of {
        let customer = value.split(':').next().unwrap_or_default();
        let name = name_of.get(customer);
        inner.insert(order.clone(), name.map(|n| format!("{value}@{n}")));
        left.insert(
            order.clone(),
            Some(format!("{value}@{}", name.map_or("-", String::as_str))),
        );
    }

    // Wait (with a deadline) until both outputs converge.
    let started = Instant::now();
    let problems = loop {
        let mut problems = compare("inner", &last_values(JOINED).await, &inner);
        problems.extend(compare("left", &last_values(LEFT_JOINED).await, &left));
        if problems.is_empty() || started.elapsed() > Duration::from_secs(180) {
            break problems;
        }
    };
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
