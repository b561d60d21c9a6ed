//! Punctuation on a real broker under exactly-once, with a SIGKILL of the instance (a child
//! process, `punctuate-instance`) while it processes. Amounts are summed per key in a store;
//! punctuations (stream time and wall clock) forward the pending sums and delete them. An
//! independent read_committed reader (no consumer group) adds up the flushed sums per key:
//! they must equal the input's sums exactly. A punctuation whose output committed without its
//! store deletes (or the reverse), a replayed record, or a lost one would leave a key off.
//!
//! Needs a broker: `DEKAF_KAFKA_PORT=9900 bash scripts/kafka.sh start` and
//! `DEKAF_BOOTSTRAP=127.0.0.1:9900`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use dekaf_streams::testing::TestDriver;
use dekaf_streams_harness::e2e::{ProcessValuesEos, ProcessWindowsEos, fresh, logged_instance};
use dekaf_streams_harness::kafka_io::{bootstrap, produce, read_all};

const APP: &str = "pt-eos";
const AMOUNTS: &str = "pt-amounts";
const FLUSHED: &str = "pt-flushed";
const PARTITIONS: i32 = 3;

/// Starts `punctuate-instance` under `guarantee` with a short transaction timeout, so a
/// killed instance's transaction aborts quickly, and a commit interval of 1 s, five times the
/// wall-clock punctuation's, so flushes go out between commits; its log goes to `log`.
fn start(log: &Path, guarantee: &str) -> Child {
    start_args(log, guarantee, &[])
}

fn start_args(log: &Path, guarantee: &str, args: &[&str]) -> Child {
    logged_instance(env!("CARGO_BIN_EXE_punctuate-instance"), log)
        .args(args)
        .env("DEKAF_GUARANTEE", guarantee)
        .env("DEKAF_COMMIT_INTERVAL_MS", "1000")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .spawn()
        .expect("start punctuate-instance")
}

/// Input record `i`: key and amount.
fn amount(i: usize) -> (String, i64) {
    (format!("acct-{}", (i * 7) % 60), (i % 13) as i64 + 1)
}

async fn send(records: &[(String, i64)]) {
    send_to(AMOUNTS, records).await;
}

async fn send_to(topic: &str, records: &[(String, i64)]) {
    let values: Vec<[u8; 8]> = records.iter().map(|(_, a)| a.to_be_bytes()).collect();
    produce(
        &bootstrap(),
        topic,
        records
            .iter()
            .zip(&values)
            .map(|((k, _), v)| (Some(k.as_bytes()), Some(&v[..]))),
    )
    .await
    .expect("produce");
}

/// The committed flushed sums, added up per key.
async fn flushed_totals() -> HashMap<String, i64> {
    let records = read_all(
        &bootstrap(),
        FLUSHED,
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .await
    .expect("read the output");
    let mut totals = HashMap::new();
    for r in records {
        let (Some(k), Some(v)) = (r.key, r.value) else {
            continue;
        };
        let v = <[u8; 8]>::try_from(&v[..]).map_or(i64::MIN, i64::from_be_bytes);
        *totals
            .entry(String::from_utf8_lossy(&k).into_owned())
            .or_insert(0) += v;
    }
    totals
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn punctuated_sums_are_exact_across_a_sigkill() {
    // DEKAF_PT_GUARANTEE=at_least_once shows the test can fail: there flushes of records whose
    // offsets were not committed yet are repeated after the kill (one such run: all 60 keys
    // over-counted, e.g. acct-0 flushed 9391 for 9332 sent; another run passed, when the kill
    // fell right after a commit).
    let guarantee =
        std::env::var("DEKAF_PT_GUARANTEE").unwrap_or_else(|_| "exactly_once".to_owned());
    fresh(
        &bootstrap(),
        APP,
        &[(AMOUNTS, PARTITIONS), (FLUSHED, PARTITIONS)],
    )
    .await;
    let log = std::env::temp_dir().join("pt-eos-instance.log");
    let _ = std::fs::remove_file(&log);

    let input: Vec<_> = (0..80_000).map(amount).collect();
    let mut expected: HashMap<String, i64> = HashMap::new();
    for (k, a) in &input {
        *expected.entry(k.clone()).or_insert(0) += a;
    }
    let first: i64 = input[..2000].iter().map(|(_, a)| a).sum();
    send(&input[..2000]).await;
    let mut instance = start(&log, &guarantee);
    let started = Instant::now();
    while flushed_totals().await.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no output within 120 s; see {}",
            log.display()
        );
    }
    // Keep it busy with a stream of input, and kill it while the stream goes on, once flushes
    // of that stream were committed.
    let streaming: Vec<_> = input[2000..72_000].to_vec();
    // Its own thread and runtime: the producing future borrows its chunk.
    let producer = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the producer");
        for chunk in streaming.chunks(500) {
            runtime.block_on(send(chunk));
        }
    });
    loop {
        let sum: i64 = flushed_totals().await.values().sum();
        if sum > first || producer.is_finished() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "no output of the streamed input; see {}",
            log.display()
        );
    }
    let killed_while_streaming = !producer.is_finished();
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    tokio::task::spawn_blocking(move || producer.join())
        .await
        .expect("join the producer thread")
        .expect("the producer thread");
    send(&input[72_000..]).await;
    let mut instance = start(&log, &guarantee);

    // Wall-clock punctuation flushes what is pending without more input: wait for the sums.
    let started = Instant::now();
    let totals = loop {
        let totals = flushed_totals().await;
        if totals == expected || started.elapsed() > Duration::from_secs(180) {
            break totals;
        }
    };
    let _ = instance.kill();
    let _ = instance.wait();

    let mut problems: Vec<String> = expected
        .iter()
        .filter(|(k, v)| totals.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: flushed {:?}, expected {v}", totals.get(k)))
        .collect();
    problems.extend(
        totals
            .keys()
            .filter(|k| !expected.contains_key(*k))
            .map(|k| format!("{k}: flushed but never sent")),
    );
    problems.sort();
    eprintln!("{guarantee}: killed while input streamed in: {killed_while_streaming}");
    assert!(
        problems.is_empty(),
        "{} problems (log {}):\n{}",
        problems.len(),
        log.display(),
        problems.join("\n")
    );
}

/// Per key, the committed running sums of `pv-running` with their `pv-amount` header.
async fn running_sums() -> HashMap<String, Vec<(i64, String)>> {
    let records = read_all(
        &bootstrap(),
        "pv-running",
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .await
    .expect("read the output");
    let mut out: HashMap<String, Vec<(i64, String)>> = HashMap::new();
    for r in records {
        let (Some(k), Some(v)) = (r.key, r.value) else {
            continue;
        };
        let v = <[u8; 8]>::try_from(&v[..]).map_or(i64::MIN, i64::from_be_bytes);
        let amount = r
            .headers
            .iter()
            .find(|(n, _)| n == "pv-amount")
            .and_then(|(_, v)| v.as_deref())
            .map_or_else(
                || "missing".to_owned(),
                |v| String::from_utf8_lossy(v).into_owned(),
            );
        out.entry(String::from_utf8_lossy(&k).into_owned())
            .or_default()
            .push((v, amount));
    }
    out
}

/// `process_values` with a store under exactly-once, the instance SIGKILLed while input
/// streams in: an independent read_committed reader must see, per key, exactly the
/// TestDriver's running sums with their headers (a replayed or lost record, or a store not
/// restored from its changelog, would break a key's sequence).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn process_values_running_sums_and_headers_are_exact_across_a_sigkill() {
    fresh(
        &bootstrap(),
        "pv-eos",
        &[("pv-amounts", PARTITIONS), ("pv-running", PARTITIONS)],
    )
    .await;
    let log = std::env::temp_dir().join("pv-eos-instance.log");
    let _ = std::fs::remove_file(&log);
    let input: Vec<_> = (0..20_000).map(amount).collect();

    let driver = TestDriver::<ProcessValuesEos>::new();
    let amounts = driver.input_topic(ProcessValuesEos::PV_AMOUNTS);
    for (k, a) in &input {
        amounts.pipe_input(k.clone(), *a);
    }
    let mut expected: HashMap<String, Vec<(i64, String)>> = HashMap::new();
    for r in driver
        .output_topic(ProcessValuesEos::PV_RUNNING)
        .read_records_to_list()
    {
        let amount = r.headers.last("pv-amount").flatten().unwrap_or(b"missing");
        expected
            .entry(r.key)
            .or_default()
            .push((r.value, String::from_utf8_lossy(amount).into_owned()));
    }
    let got = kill_midway(
        "process_values",
        &log,
        "pv-amounts",
        &input,
        &expected,
        running_sums,
    )
    .await;
    assert_exact(&expected, &got, &log);
}

/// Window and session stores in `process` under exactly-once, the instance SIGKILLed while
/// input streams in: per key, an independent read_committed reader must see exactly the
/// TestDriver's window counts and sessions (a window or session store not restored from its
/// changelog, with its retention, would change a count or a session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_and_session_stores_are_exact_across_a_sigkill() {
    fresh(
        &bootstrap(),
        "pw-eos",
        &[("pw-events", PARTITIONS), ("pw-out", PARTITIONS)],
    )
    .await;
    let log = std::env::temp_dir().join("pw-eos-instance.log");
    let _ = std::fs::remove_file(&log);
    // Event time i: keys come back at irregular gaps, some within a session's 40, some not.
    let input: Vec<(String, i64)> = (0..20_000i64)
        .map(|i| (format!("user-{}", (i * i * 31 + i * 7) % 50), i))
        .collect();

    let driver = TestDriver::<ProcessWindowsEos>::new();
    let events = driver.input_topic(ProcessWindowsEos::PW_EVENTS);
    for (k, t) in &input {
        events.pipe_input(k.clone(), *t);
    }
    let mut expected: HashMap<String, Vec<String>> = HashMap::new();
    for (k, v) in driver
        .output_topic(ProcessWindowsEos::PW_OUT)
        .read_key_values_to_list()
    {
        expected.entry(k).or_default().push(v);
    }
    // The input exercises merges and the stores' retention: sessions of several records, and
    // window counts above one.
    assert!(expected.values().flatten().any(|v| !v.ends_with("=1")));
    assert!(
        driver
            .window_store(ProcessWindowsEos::PW_WINDOWS)
            .all()
            .len()
            < 200
    );
    let got = kill_midway(
        "process_windows",
        &log,
        "pw-events",
        &input,
        &expected,
        window_outputs,
    )
    .await;
    assert_exact(&expected, &got, &log);
}

/// Per key, the committed values of `pw-out`.
async fn window_outputs() -> HashMap<String, Vec<String>> {
    let records = read_all(
        &bootstrap(),
        "pw-out",
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .await
    .expect("read the output");
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for r in records {
        let (Some(k), Some(v)) = (r.key, r.value) else {
            continue;
        };
        out.entry(String::from_utf8_lossy(&k).into_owned())
            .or_default()
            .push(String::from_utf8_lossy(&v).into_owned());
    }
    out
}

/// Runs `punctuate-instance mode` under exactly-once on `input` sent to `topic`: a tenth
/// first, the instance started, most of the rest streamed in small chunks with the instance
/// SIGKILLed halfway through them (while it reads them), the rest sent and a new instance
/// started; returns what `read` finds once it equals `expected` (or after 180 s).
async fn kill_midway<T, F, Fut>(
    mode: &str,
    log: &Path,
    topic: &'static str,
    input: &[(String, i64)],
    expected: &HashMap<String, Vec<T>>,
    read: F,
) -> HashMap<String, Vec<T>>
where
    T: PartialEq,
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = HashMap<String, Vec<T>>>,
{
    let (first, streamed, last) = (input.len() / 10, input.len() * 8 / 10, input.len());
    send_to(topic, &input[..first]).await;
    let mut instance = start_args(log, "exactly_once", &[mode]);
    let started = Instant::now();
    while read().await.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no output within 120 s; see {}",
            log.display()
        );
    }
    let streaming: Vec<_> = input[first..streamed].to_vec();
    let chunks = streaming.len().div_ceil(200);
    let chunks_sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sent = chunks_sent.clone();
    let producer = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the producer");
        for chunk in streaming.chunks(200) {
            runtime.block_on(send_to(topic, chunk));
            sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    while chunks_sent.load(std::sync::atomic::Ordering::SeqCst) < chunks / 2
        && !producer.is_finished()
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let killed_while_streaming = !producer.is_finished();
    instance.kill().expect("SIGKILL the instance");
    instance.wait().expect("reap the instance");
    tokio::task::spawn_blocking(move || producer.join())
        .await
        .expect("join the producer thread")
        .expect("the producer thread");
    send_to(topic, &input[streamed..last]).await;
    let mut instance = start_args(log, "exactly_once", &[mode]);
    let started = Instant::now();
    let got = loop {
        let got = read().await;
        if got == *expected || started.elapsed() > Duration::from_secs(180) {
            break got;
        }
    };
    let _ = instance.kill();
    let _ = instance.wait();
    eprintln!("{mode}: killed while input streamed in: {killed_while_streaming}");
    got
}

/// Fails, naming every key whose committed sequence differs from the expected one and where.
fn assert_exact<T: PartialEq + std::fmt::Debug>(
    expected: &HashMap<String, Vec<T>>,
    got: &HashMap<String, Vec<T>>,
    log: &Path,
) {
    let mut problems: Vec<String> = expected
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(v))
        .map(|(k, v)| {
            let g = got.get(k).map_or(&[][..], Vec::as_slice);
            let at = v
                .iter()
                .zip(g)
                .position(|(a, b)| a != b)
                .unwrap_or(v.len().min(g.len()));
            format!(
                "{k}: {} committed, {} expected; first difference at {at}: {:?} vs {:?}",
                g.len(),
                v.len(),
                g.get(at),
                v.get(at)
            )
        })
        .collect();
    problems.extend(
        got.keys()
            .filter(|k| !expected.contains_key(*k))
            .map(|k| format!("{k}: written but never sent")),
    );
    problems.sort();
    assert!(
        problems.is_empty(),
        "{} problems (log {}):\n{}",
        problems.len(),
        log.display(),
        problems.join("\n")
    );
}
