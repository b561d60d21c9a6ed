//! A versioned table joined as of each order's time, through a grace buffer, on a real broker
//! under exactly-once, with a SIGKILL of the instance (a child process, `versioned-instance`)
//! while orders wait in the buffer: an independent read_committed reader (no consumer group)
//! checks that every order was priced exactly once, with the price valid at its timestamp. A
//! lost buffered order, a duplicate, or a history not rebuilt after the restart (an order
//! priced with the latest price, or none) shows as a wrong or missing line.
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams_harness::e2e::{fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{
    NewRecord, ReadRecord, bootstrap, produce_records, read_all, recent_minute,
};

const APP: &str = "kv-eos";
const PRICES: &str = "kv-prices";
const CHANGES: &str = "kv-price-changes";
const ORDERS: &str = "kv-orders";
const PRICED: &str = "kv-priced";
const PARTITIONS: i32 = 3;
const PRODUCTS: i64 = 12;
const VERSIONS: i64 = 20;
/// Event time between two price versions of a product.
const STEP: i64 = 10_000;
const ORDERS_N: i64 = 3_000;

fn start(log: &Path) -> Child {
    logged_instance(env!("CARGO_BIN_EXE_versioned-instance"), log)
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .spawn()
        .expect("start versioned-instance")
}

/// The price of product `p` from version `v` on.
fn price(p: i64, v: i64) -> i64 {
    v * 1_000 + p
}

/// Order `i`: its product and timestamp (offset from the base), the orders' times shuffled
/// within a few seconds, so some are late for the 2 s grace and join at once.
fn order(i: i64) -> (i64, i64) {
    let product = i % PRODUCTS;
    let spread = VERSIONS * STEP - 1;
    let t = (i * (VERSIONS * STEP) / ORDERS_N + (i * 7_919) % 5_000).min(spread);
    (product, t)
}

async fn send(topic: &str, records: &[(String, Vec<u8>, i64)]) {
    produce_records(
        &bootstrap(),
        topic,
        records.iter().map(|(k, v, ts)| NewRecord {
            key: Some(k.as_bytes()),
            value: Some(v),
            timestamp: Some(*ts),
            ..NewRecord::default()
        }),
    )
    .await
    .expect("produce");
}

async fn wait_for(topic: &str, n: usize, limit: Duration, log: &Path) -> Vec<ReadRecord> {
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
        if records.len() >= n {
            return records;
        }
        assert!(
            started.elapsed() < limit,
            "{} of {n} records on {topic} within {limit:?}; see {}",
            records.len(),
            log.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_are_priced_as_of_their_time_exactly_once_across_a_sigkill() {
    let topics = [
        (PRICES, PARTITIONS),
        (CHANGES, PARTITIONS),
        (ORDERS, PARTITIONS),
        (PRICED, PARTITIONS),
    ];
    fresh(&bootstrap(), APP, &topics).await;
    let log = std::env::temp_dir().join("kv-eos-instance.log");
    let _ = std::fs::remove_file(&log);
    // Recent event times: the broker's retention check would delete older ones.
    let base = recent_minute(30);

    // Every price version, a later one of each product sent before an earlier one (an
    // out-of-order update, which only the history keeps).
    let mut prices = Vec::new();
    for v in 0..VERSIONS {
        for p in 0..PRODUCTS {
            let v = if v % 2 == 0 { v + 1 } else { v - 1 };
            prices.push((
                format!("product-{p}"),
                price(p, v).to_be_bytes().to_vec(),
                base + v * STEP,
            ));
        }
    }
    send(PRICES, &prices).await;
    let mut instance = start(&log);
    wait_for(CHANGES, prices.len(), Duration::from_secs(120), &log).await;

    let orders: Vec<_> = (0..ORDERS_N)
        .map(|i| {
            let (p, t) = order(i);
            (format!("product-{p}"), i.to_be_bytes().to_vec(), base + t)
        })
        .collect();
    let (first, second) = orders.split_at(orders.len() / 2);
    send(ORDERS, first).await;
    // Kill it once some orders are priced and committed, with others waiting in its buffer.
    wait_for(PRICED, 100, Duration::from_secs(120), &log).await;
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    send(ORDERS, second).await;
    // An order far later on every partition pushes the buffers' stream time past the grace, so
    // every real order leaves its buffer.
    let flush: Vec<_> = (0..PRODUCTS)
        .map(|p| {
            (
                format!("product-{p}"),
                (-1i64).to_be_bytes().to_vec(),
                base + VERSIONS * STEP + 60_000,
            )
        })
        .collect();
    send(ORDERS, &flush).await;
    let mut instance = start(&log);
    let priced = wait_for(PRICED, ORDERS_N as usize, Duration::from_secs(180), &log).await;
    let _ = instance.kill();
    let _ = instance.wait();

    let mut seen: HashMap<i64, Vec<i64>> = HashMap::new();
    for r in &priced {
        let text = String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned();
        let (order, price) = text.split_once(':').expect("order:price");
        let (order, price): (i64, i64) =
            (order.parse().expect("order"), price.parse().expect("price"));
        seen.entry(order).or_default().push(price);
    }
    let mut problems = Vec::new();
    for i in 0..ORDERS_N {
        let (p, t) = order(i);
        let expected = price(p, t / STEP);
        match seen.get(&i).map(Vec::as_slice) {
            Some([got]) if *got == expected => {}
            other => problems.push(format!(
                "order {i} (product {p}, t {t}): {other:?}, expected [{expected}]"
            )),
        }
    }
    let flushes = seen.get(&-1).map_or(0, Vec::len);
    assert!(
        problems.is_empty() && priced.len() == ORDERS_N as usize + flushes,
        "{} problems, {} records for {ORDERS_N} orders (log {}):\n{}",
        problems.len(),
        priced.len(),
        log.display(),
        problems
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

topology! {
    /// A versioned rate table (history one hour), queried as of a time.
    pub VersionedIq = "kv-iq" {
        stream("kv-iq-updates", Utf8, I64)
            .to_table("kv-iq-rates", Utf8, I64)
            .versioned(Duration::from_mins(60))
            .to_stream()
            .to("kv-iq-changes", Utf8, Nullable::<I64>);
    }
}

/// A versioned table's versions are queried on the instance that hosts them: the latest value,
/// the value as of a time (an out-of-order update included), the versions over a range; and
/// they are still there after the instance restarts (the history rebuilt from the changelog).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_versioned_table_is_queried_as_of_a_time() {
    use dekaf_streams::query::{QueryError, VersionedRecord};
    use dekaf_streams::{KafkaStreams, ProcessingGuarantee};
    use dekaf_streams_harness::e2e::InProcess;

    fresh(
        &bootstrap(),
        "kv-iq",
        &[("kv-iq-updates", 2), ("kv-iq-changes", 2)],
    )
    .await;
    let base = recent_minute(20);
    let updates: Vec<(String, Vec<u8>, i64)> = [
        ("eur", 110, 0),
        ("eur", 120, 20_000),
        ("eur", 115, 10_000), // out of order
        ("usd", 100, 5_000),
    ]
    .iter()
    .map(|(k, v, t)| {
        (
            (*k).to_owned(),
            (*v as i64).to_be_bytes().to_vec(),
            base + t,
        )
    })
    .collect();
    send("kv-iq-updates", &updates).await;

    for round in ["first start", "after a restart"] {
        let streams = KafkaStreams::builder(VersionedIq)
            .bootstrap_servers(bootstrap())
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            .build()
            .expect("valid settings");
        let queries = streams.queries();
        let rates = queries
            .versioned_store(VersionedIq::KV_IQ_RATES)
            .expect("a versioned store");
        // The same reads over HTTP.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = tokio::spawn(
            dekaf_streams::http::QueryServer::new(streams.queries())
                .versioned_store(VersionedIq::KV_IQ_RATES)
                .serve(listener, std::future::pending()),
        );
        let instance = InProcess::run(streams);
        let eur = "eur".to_owned();
        let deadline = Instant::now() + Duration::from_secs(90);
        let latest = loop {
            match rates.get(&eur) {
                Ok(Some(v)) if v.value == 120 => break v,
                Ok(_)
                | Err(
                    QueryError::NotRunning { .. }
                    | QueryError::Restoring { .. }
                    | QueryError::NotLocal { .. },
                ) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                other => panic!("{round}: no latest value: {other:?}"),
            }
        };
        assert_eq!(
            latest,
            VersionedRecord {
                value: 120,
                timestamp: base + 20_000,
                valid_to: None
            },
            "{round}"
        );
        assert_eq!(
            rates.get_as_of(&eur, base + 15_000).expect("read"),
            Some(VersionedRecord {
                value: 115,
                timestamp: base + 10_000,
                valid_to: Some(base + 20_000)
            }),
            "{round}: the out-of-order version"
        );
        assert_eq!(
            rates.get_as_of(&eur, base - 1).expect("read"),
            None,
            "{round}: before the first version"
        );
        let versions: Vec<i64> = rates
            .versions(&eur, base + 5_000, base + 30_000)
            .expect("read")
            .into_iter()
            .map(|v| v.value)
            .collect();
        assert_eq!(versions, [110, 115, 120], "{round}");
        let http = async |path: String| {
            let answer = dekaf_streams_harness::http_client::get(port, &path, "")
                .await
                .expect("an answer from the query server");
            (answer.status, answer.json())
        };
        assert_eq!(
            http(format!(
                "/stores/kv-iq-rates/versions/eur?as_of={}",
                base + 15_000
            ))
            .await,
            (
                200,
                serde_json::json!({
                    "key": "eur", "value": 115, "timestamp": base + 10_000, "valid_to": base + 20_000
                })
            ),
            "{round}: the version as of a time over HTTP"
        );
        let (status, body) = http(format!(
            "/stores/kv-iq-rates/versions/eur?from={}&to={}",
            base + 5_000,
            base + 30_000
        ))
        .await;
        assert_eq!(status, 200, "{round}: {body}");
        assert_eq!(
            body["versions"]
                .as_array()
                .map(|v| v.iter().map(|v| v["value"].clone()).collect::<Vec<_>>()),
            Some(vec![110.into(), 115.into(), 120.into()]),
            "{round}: {body}"
        );
        let (status, body) = http(format!(
            "/stores/kv-iq-rates/versions/eur?as_of={}",
            base - 1
        ))
        .await;
        assert_eq!(status, 404, "{round}: before the first version: {body}");
        // The latest values answer plain reads too.
        let plain = queries
            .store(VersionedIq::KV_IQ_RATES)
            .expect("a key-value store");
        assert_eq!(plain.get(&eur).expect("read"), Some(120), "{round}");
        instance.stop().await.expect("clean stop");
        server.abort();
    }
}
