//! Interactive queries on a real broker, two instances each serving HTTP: a key hosted by the
//! other instance is answered through forwarding; while tasks move (an instance joins or
//! leaves) every answer is the committed value or an explicit retry status, never a wrong value.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dekaf_streams::http::QueryServer;
use dekaf_streams::prelude::*;
use dekaf_streams::query::{HostInfo, QueryError};
use dekaf_streams::{KafkaStreams, ProcessingGuarantee};
use dekaf_streams_harness::e2e::{InProcess, fresh, wait_for_members_with_tasks};
use dekaf_streams_harness::http_client;
use dekaf_streams_harness::kafka_io::{
    NewRecord, bootstrap, produce, produce_records, recent_minute,
};
use serde_json::Value;
use tokio::net::TcpListener;

topology! {
    /// Counts records per key.
    pub IqForward = "iq-forward" {
        stream("iq-forward-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("iq-forward-out", Utf8, I64);
    }
}

topology! {
    /// Counts records per key.
    pub IqRebalance = "iq-rebalance" {
        stream("iq-rebalance-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("iq-rebalance-out", Utf8, I64);
    }
}

topology! {
    /// Counts records per key in one-minute windows.
    pub IqWindows = "iq-windows" {
        stream("iq-windows-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(3600)))
            .count("per-window")
            .to_stream()
            .to("iq-windows-out", TimeWindowed::<Utf8>, I64);
    }
}

topology! {
    /// Counts records per key in sliding windows of 10 ms (both ends inclusive).
    pub IqSliding = "iq-sliding" {
        stream("iq-sliding-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(sliding(10).grace(3_600_000))
            .count("per-sliding-window")
            .to_stream()
            .to("iq-sliding-out", TimeWindowed::<Utf8>, I64);
    }
}

topology! {
    /// Events enriched from a global table of regions; the regions' store is queried.
    pub IqGlobal = "iq-global" {
        let regions = global_table("iq-global-regions", Utf8, Utf8, "iq-regions");
        stream("iq-global-in", Utf8, Utf8)
            .join(
                regions,
                |_k: &String, v: &String| v.clone(),
                |v: String, region: String| format!("{v}@{region}"),
            )
            .to("iq-global-out", Utf8, Utf8);
    }
}

const WORDS: usize = 40;

/// Word `w{i}` is produced `i % 5 + 1` times: its count.
fn expected() -> HashMap<String, i64> {
    (0..WORDS)
        .map(|i| (format!("w{i}"), (i % 5 + 1) as i64))
        .collect()
}

async fn produce_words(topic: &str) {
    let mut records = Vec::new();
    for (word, n) in expected() {
        for _ in 0..n {
            records.push(word.clone());
        }
    }
    let n = produce(
        &bootstrap(),
        topic,
        records
            .iter()
            .map(|w| (Some(w.as_bytes()), Some(w.as_bytes()))),
    )
    .await
    .expect("produce");
    assert_eq!(n as usize, records.len());
}

/// One HTTP answer: status, Retry-After, JSON body.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

/// `GET path` from 127.0.0.1:`port`, one connection per request.
async fn get(port: u16, path: &str) -> Answer {
    let answer = http_client::get(port, path, "")
        .await
        .expect("an answer from the query server");
    Answer {
        status: answer.status,
        retry_after: answer.header("retry-after").map(str::to_owned),
        body: answer.json(),
    }
}

/// A running instance, its query port, its HTTP server and its query handle.
type Started<T> = (
    InProcess,
    u16,
    tokio::task::JoinHandle<std::io::Result<()>>,
    dekaf_streams::query::Queries<T>,
);

/// Starts `topology` with an HTTP query server on a free port, that port its
/// `application_server`.
async fn start<T: Topology + Send>(topology: T, store: StoreRef<String, i64>) -> Started<T> {
    start_serving(topology, |server| server.store(store)).await
}

/// Starts `topology` with an HTTP query server (stores chosen by `serve`) on a free port, that
/// port its `application_server`.
async fn start_serving<T: Topology + Send>(
    topology: T,
    serve: impl FnOnce(QueryServer<T>) -> QueryServer<T>,
) -> Started<T> {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let streams = KafkaStreams::builder(topology)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .application_server(format!("127.0.0.1:{port}"))
        .build()
        .expect("valid settings");
    let queries = streams.queries();
    let server = tokio::spawn(
        serve(QueryServer::new(streams.queries())).serve(listener, std::future::pending()),
    );
    (InProcess::run(streams), port, server, queries)
}

/// Polls (at most `timeout`) until every word answers its expected count on `port`.
async fn wait_all_answered(port: u16, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let expected = expected();
    loop {
        let mut all = true;
        for (word, n) in &expected {
            let a = get(port, &format!("/stores/counts/keys/{word}")).await;
            if a.status != 200 || a.body["value"] != *n {
                all = false;
                break;
            }
        }
        if all {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_hosted_by_the_other_instance_is_answered_through_forwarding() {
    let servers = bootstrap();
    fresh(
        &servers,
        "iq-forward",
        &[("iq-forward-in", 4), ("iq-forward-out", 4)],
    )
    .await;
    produce_words("iq-forward-in").await;
    let (a, port_a, server_a, queries_a) = start(IqForward, IqForward::COUNTS).await;
    let (b, port_b, server_b, _queries_b) = start(IqForward, IqForward::COUNTS).await;
    assert!(
        wait_for_members_with_tasks(&servers, "iq-forward", 2, Duration::from_secs(60)).await,
        "both instances run tasks"
    );
    assert!(
        wait_all_answered(port_a, Duration::from_secs(60)).await,
        "every word answers its count through instance A"
    );
    // Words whose task runs on B: A does not host them (a local read refuses them), yet A's
    // HTTP answers carry B's committed value.
    let this_b = HostInfo {
        host: "127.0.0.1".into(),
        port: port_b,
    };
    let counts_a = queries_a.store(IqForward::COUNTS).expect("store");
    let expected = expected();
    let mut forwarded = 0;
    for (word, n) in &expected {
        let meta = queries_a
            .metadata_for_key(IqForward::COUNTS, word)
            .expect("an owner once both run");
        if meta.active != this_b {
            continue;
        }
        assert!(
            matches!(counts_a.get(word), Err(QueryError::NotLocal { .. })),
            "{word} is not hosted by A"
        );
        let answer = get(port_a, &format!("/stores/counts/keys/{word}")).await;
        assert_eq!(
            (answer.status, answer.body["value"].clone()),
            (200, Value::from(*n)),
            "{word}"
        );
        forwarded += 1;
    }
    assert!(forwarded > 0, "some words are hosted by B");
    // The whole store through A: both instances' tasks, every partition.
    let all = get(port_a, "/stores/counts/all").await;
    assert_eq!(all.status, 200, "{}", all.body);
    let got: HashMap<String, i64> = all.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["key"].as_str().expect("key").to_owned(),
                e["value"].as_i64().expect("value"),
            )
        })
        .collect();
    assert_eq!(got, expected);
    let range = get(port_b, "/stores/counts/range?from=w1&to=w19").await;
    assert_eq!(range.status, 200, "{}", range.body);
    let mut keys: Vec<String> = range.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["key"].as_str().expect("key").to_owned())
        .collect();
    keys.sort();
    let mut want: Vec<String> = expected
        .keys()
        .filter(|k| k.as_str() >= "w1" && k.as_str() <= "w19")
        .cloned()
        .collect();
    want.sort();
    assert_eq!(keys, want);
    // Explicit 404s: a key without a value (wherever it lives), a store not served.
    assert_eq!(
        get(port_a, "/stores/counts/keys/never-seen").await.status,
        404
    );
    assert_eq!(get(port_b, "/stores/nope/keys/w1").await.status, 404);
    a.stop().await.expect("A stops cleanly");
    b.stop().await.expect("B stops cleanly");
    server_a.abort();
    server_b.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_tasks_move_answers_are_the_committed_value_or_a_retry_status() {
    let servers = bootstrap();
    fresh(
        &servers,
        "iq-rebalance",
        &[("iq-rebalance-in", 4), ("iq-rebalance-out", 4)],
    )
    .await;
    produce_words("iq-rebalance-in").await;
    let (a, port_a, server_a, _) = start(IqRebalance, IqRebalance::COUNTS).await;
    assert!(
        wait_all_answered(port_a, Duration::from_secs(60)).await,
        "A alone answers every word"
    );
    let expected = expected();
    // Checks every answer of `port` for every word: the exact count, or 503 with Retry-After.
    // Returns (answered, retry statuses).
    async fn sweep(port: u16, expected: &HashMap<String, i64>) -> (usize, usize) {
        let (mut ok, mut retry) = (0, 0);
        for (word, n) in expected {
            let a = get(port, &format!("/stores/counts/keys/{word}")).await;
            match a.status {
                200 => {
                    assert_eq!(
                        a.body["value"], *n,
                        "{word} answered a wrong value: {}",
                        a.body
                    );
                    ok += 1;
                }
                503 => {
                    assert_eq!(
                        a.retry_after.as_deref(),
                        Some("1"),
                        "503 says when to retry"
                    );
                    retry += 1;
                }
                other => panic!(
                    "{word}: status {other}, neither the count nor a retry: {}",
                    a.body
                ),
            }
        }
        (ok, retry)
    }
    // B joins: tasks move from A to B and restore there.
    let (b, port_b, server_b, _) = start(IqRebalance, IqRebalance::COUNTS).await;
    let mut retries = 0;
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (ok_a, retry_a) = sweep(port_a, &expected).await;
        let (ok_b, retry_b) = sweep(port_b, &expected).await;
        retries += retry_a + retry_b;
        let settled = ok_a == WORDS
            && ok_b == WORDS
            && wait_for_members_with_tasks(&servers, "iq-rebalance", 2, Duration::ZERO).await;
        if settled {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the group settles with both instances answering"
        );
    }
    assert!(
        retries > 0,
        "B answered 'retry' before its tasks were restored"
    );
    // B leaves: its tasks move back to A.
    b.stop().await.expect("B stops cleanly");
    server_b.abort();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (ok_a, _) = sweep(port_a, &expected).await;
        if ok_a == WORDS {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "A answers every word again after B left"
        );
    }
    a.stop().await.expect("A stops cleanly");
    server_a.abort();
}

/// A minute-aligned base time for the windowed records, ten minutes before the first call
/// (see [`recent_minute`]: a fixed time from 2023 let the broker delete the input).
fn base() -> i64 {
    static BASE: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| recent_minute(10))
}

/// Word `v{i}` counts `(i + k) % 3 + 1` in window `k` (0..3) starting at `base() + k` minutes.
fn window_count(i: usize, k: usize) -> i64 {
    ((i + k) % 3 + 1) as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_of_a_key_hosted_by_the_other_instance_are_fetched_over_http() {
    let base = base();
    let servers = bootstrap();
    fresh(
        &servers,
        "iq-windows",
        &[("iq-windows-in", 4), ("iq-windows-out", 4)],
    )
    .await;
    let words: Vec<String> = (0..20).map(|i| format!("v{i}")).collect();
    let mut records = Vec::new();
    for k in 0..3 {
        for (i, word) in words.iter().enumerate() {
            for _ in 0..window_count(i, k) {
                records.push(NewRecord {
                    key: Some(word.as_bytes()),
                    value: Some(word.as_bytes()),
                    timestamp: Some(base + k as i64 * 60_000 + 1_000),
                    ..NewRecord::default()
                });
            }
        }
    }
    let n = produce_records(&servers, "iq-windows-in", records.clone())
        .await
        .expect("produce");
    assert_eq!(n as usize, records.len());
    let (a, port_a, server_a, queries_a) =
        start_serving(IqWindows, |s| s.window_store(IqWindows::PER_WINDOW)).await;
    let (b, port_b, server_b, _) =
        start_serving(IqWindows, |s| s.window_store(IqWindows::PER_WINDOW)).await;
    assert!(
        wait_for_members_with_tasks(&servers, "iq-windows", 2, Duration::from_secs(60)).await,
        "both instances run tasks"
    );
    let all_windows = format!("?from={base}&to={}", base + 120_000);
    let deadline = Instant::now() + Duration::from_secs(60);
    let this_b = HostInfo {
        host: "127.0.0.1".into(),
        port: port_b,
    };
    let mut forwarded;
    loop {
        let mut done = true;
        forwarded = 0;
        for (i, word) in words.iter().enumerate() {
            let answer = get(
                port_a,
                &format!("/stores/per-window/windows/{word}{all_windows}"),
            )
            .await;
            let want: Vec<Value> = (0..3)
                .map(|k| {
                    let start = base + k as i64 * 60_000;
                    serde_json::json!({ "start": start, "end": start + 60_000, "value": window_count(i, k) })
                })
                .collect();
            if answer.status != 200 || answer.body["windows"] != Value::from(want) {
                done = false;
                break;
            }
            if queries_a
                .metadata_for_window_key(IqWindows::PER_WINDOW, word)
                .is_ok_and(|m| m.active == this_b)
            {
                forwarded += 1;
            }
        }
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "every word's windows are answered through A"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        forwarded > 0,
        "some words are hosted by B and answered through forwarding"
    );
    // A time range selects windows by start; the wrong route names the right one.
    // Asked of B: answered there or forwarded to A; during a rebalance (the group may still
    // move a task) the answer is an explicit 503, so it is asked again until the deadline.
    let retry_until = Instant::now() + Duration::from_secs(60);
    let one = loop {
        let one = get(
            port_b,
            &format!(
                "/stores/per-window/windows/v0?from={0}&to={0}",
                base + 60_000
            ),
        )
        .await;
        if one.status != 503 || Instant::now() >= retry_until {
            break one;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.body["windows"].as_array().map(Vec::len), Some(1));
    assert_eq!(one.body["windows"][0]["value"], window_count(0, 1));
    assert_eq!(get(port_a, "/stores/per-window/keys/v0").await.status, 400);
    a.stop().await.expect("A stops cleanly");
    b.stop().await.expect("B stops cleanly");
    server_a.abort();
    server_b.abort();
}

/// A sliding-window store is queried like the other window stores, locally and over HTTP:
/// each window `[start, start + 10]` that holds records, with its count. Records at +3, +7 and
/// +12 ms leave the windows starting at -7 (the record at +3 alone), -3 (2 records), +2 (3),
/// +4 (2) and +8 (1), as Kafka Streams' sliding windows make them (the TestDriver test
/// `the_sliding_store_handle_reads_each_window` has the same records near time 0, where the two
/// first windows start at 0 and are one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sliding_window_store_is_queried_locally_and_over_http() {
    let base = base();
    let servers = bootstrap();
    fresh(
        &servers,
        "iq-sliding",
        &[("iq-sliding-in", 2), ("iq-sliding-out", 2)],
    )
    .await;
    let words: Vec<String> = (0..6).map(|i| format!("s{i}")).collect();
    let mut records = Vec::new();
    for word in &words {
        for offset in [3, 7, 12] {
            records.push(NewRecord {
                key: Some(word.as_bytes()),
                value: Some(word.as_bytes()),
                timestamp: Some(base + offset),
                ..NewRecord::default()
            });
        }
    }
    let n = produce_records(&servers, "iq-sliding-in", records.clone())
        .await
        .expect("produce");
    assert_eq!(n as usize, records.len());
    let (app, port, server, queries) =
        start_serving(IqSliding, |s| s.window_store(IqSliding::PER_SLIDING_WINDOW)).await;
    let want: Vec<(i64, i64)> = vec![
        (base - 7, 1),
        (base - 3, 2),
        (base + 2, 3),
        (base + 4, 2),
        (base + 8, 1),
    ];
    let want_json = Value::from(
        want.iter()
            .map(|(start, count)| {
                serde_json::json!({ "start": start, "end": start + 10, "value": count })
            })
            .collect::<Vec<_>>(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut done = true;
        for word in &words {
            let local: Result<Vec<(i64, i64)>, QueryError> = queries
                .window_store(IqSliding::PER_SLIDING_WINDOW)
                .and_then(|store| store.fetch(word, base - 10, base + 20)?.collect());
            let http = get(
                port,
                &format!(
                    "/stores/per-sliding-window/windows/{word}?from={}&to={}",
                    base - 10,
                    base + 20
                ),
            )
            .await;
            if local.as_ref().ok() != Some(&want)
                || http.status != 200
                || http.body["windows"] != want_json
            {
                done = Instant::now() >= deadline;
                assert!(
                    !done,
                    "{word}'s sliding windows within 60 s: locally {local:?}, over HTTP {} {}",
                    http.status, http.body
                );
                done = false;
                break;
            }
        }
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A range selects windows by start.
    let one: Vec<(i64, i64)> = queries
        .window_store(IqSliding::PER_SLIDING_WINDOW)
        .expect("a window store")
        .fetch(&words[0], base + 1, base + 4)
        .expect("fetch")
        .collect::<Result<_, _>>()
        .expect("values");
    assert_eq!(one, vec![(base + 2, 3), (base + 4, 2)]);
    app.stop().await.expect("stops cleanly");
    server.abort();
}

/// A global table's store answers every key on the instance, as Kafka Streams' `store()` of a
/// global store: what its topic held (the latest value per key, deletes applied, null keys
/// skipped) once the instance started, then the updates its global reader reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_global_store_is_queried_from_the_instances_full_copy() {
    fresh(
        &bootstrap(),
        "iq-global",
        &[
            ("iq-global-regions", 3),
            ("iq-global-in", 1),
            ("iq-global-out", 1),
        ],
    )
    .await;
    let mut regions: Vec<(Option<String>, Option<String>)> = (0..30)
        .map(|i| (Some(format!("r{i:02}")), Some(format!("old-{i}"))))
        .collect();
    regions.extend((0..30).map(|i| (Some(format!("r{i:02}")), Some(format!("region-{i}")))));
    regions.extend(
        (0..30)
            .step_by(10)
            .map(|i| (Some(format!("r{i:02}")), None)),
    );
    regions.push((None, Some("no key".to_owned())));
    produce(
        &bootstrap(),
        "iq-global-regions",
        regions.iter().map(|(k, v)| {
            (
                k.as_deref().map(str::as_bytes),
                v.as_deref().map(str::as_bytes),
            )
        }),
    )
    .await
    .expect("produce");
    let expected: Vec<(String, String)> = (0..30)
        .filter(|i| i % 10 != 0)
        .map(|i| (format!("r{i:02}"), format!("region-{i}")))
        .collect();

    let streams = KafkaStreams::builder(IqGlobal)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .build()
        .expect("valid settings");
    let queries = streams.queries();
    let store = queries.store(IqGlobal::IQ_REGIONS).expect("a global store");
    let instance = InProcess::run(streams);
    // Answered once the global table was read to its end (before that: NotRunning).
    let deadline = Instant::now() + Duration::from_secs(60);
    let all = loop {
        match store.all() {
            Ok(entries) => break entries.map(|e| e.expect("an entry")).collect::<Vec<_>>(),
            Err(QueryError::NotRunning { .. }) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("the global store did not answer: {e}"),
        }
    };
    assert_eq!(
        all, expected,
        "every key, latest values, deletes applied, in key order"
    );
    assert_eq!(
        store.get(&"r05".to_owned()).expect("read"),
        Some("region-5".to_owned())
    );
    assert_eq!(store.get(&"r10".to_owned()).expect("read"), None);
    assert_eq!(store.approximate_len().expect("len"), 27);
    // An update read while it runs reaches the queries.
    produce(
        &bootstrap(),
        "iq-global-regions",
        [(Some(&b"r99"[..]), Some(&b"late"[..]))],
    )
    .await
    .expect("produce");
    let deadline = Instant::now() + Duration::from_secs(60);
    while store.get(&"r99".to_owned()).expect("read").is_none() {
        assert!(
            Instant::now() < deadline,
            "the update never reached the global store"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    instance.stop().await.expect("clean stop");
}
