//! Session, sliding and emit-final windows on a real broker, under exactly-once with a SIGKILL
//! of the instance and a restart (`tests/kafka_session_windows.rs`,
//! `tests/kafka_sliding_windows.rs`, `tests/kafka_emit_final.rs`, `tests/kafka_cogroup.rs`).
//!
//! The expected output is what the same topology produces through the [`TestDriver`] on the
//! same input. The input is produced in timestamp order, so every partition sees its keys'
//! records in order with no late record and no expired window: each key's output sequence then
//! does not depend on how keys share partitions, and the broker run must give exactly the
//! TestDriver's sequence per key, read back by an independent read_committed consumer (a repeat
//! is a duplicate, a gap a loss). Emit-final input ends with one record per partition far in the
//! future, which closes every other window of that partition.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use rdkafka::consumer::Consumer;
use rdkafka::producer::Producer;

use crate::kafka_io::{ReadRecord, off_workers, producer};

topology! {
    /// Clicks per session (gap 1 s), every update and merge tombstone.
    pub WinSession = "e2e-win-session" {
        stream("e2e-win-session-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_secs(1)))
            .count("clicks-per-session")
            .to_stream()
            .to("e2e-win-session-out", SessionWindowed::<Utf8>, I64);
    }
}

topology! {
    /// Events per key in sliding windows of 500 ms.
    pub WinSliding = "e2e-win-sliding" {
        stream("e2e-win-sliding-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(sliding(Duration::from_millis(500)))
            .count("events-in-500ms")
            .to_stream()
            .to("e2e-win-sliding-out", TimeWindowed::<Utf8>, I64);
    }
}

topology! {
    /// Final counts of tumbling windows of 1 s and of sessions (gap 1 s), once each, and each
    /// key's count and latest value held 30 minutes (`suppress_until_time_limit` of an
    /// aggregation and of a table).
    pub WinFinal = "e2e-win-final" {
        let events = stream("e2e-win-final-in", Utf8, Utf8);
        events
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(1)))
            .count("per-second")
            .suppress_until_window_closes("per-second-final")
            .to_stream()
            .to("e2e-win-final-tumbling", TimeWindowed::<Utf8>, I64);
        events
            .group_by_key()
            .windowed_by(session(Duration::from_secs(1)))
            .count("per-session")
            .suppress_until_window_closes("per-session-final")
            .to_stream()
            .to("e2e-win-final-sessions", SessionWindowed::<Utf8>, I64);
        // Held for 30 minutes, longer than the input spans: each key's final count comes out
        // once, when the flush records an hour later pass the limit, from a buffer that must
        // survive the SIGKILL.
        events
            .group_by_key()
            .count("per-key")
            .suppress_until_time_limit(Duration::from_mins(30), unbounded(), "per-key-settled")
            .to_stream()
            .to("e2e-win-final-settled", Utf8, I64);
        // The same on a table that forwards changes: each key's latest change held 30 minutes,
        // so its last update comes out once, after the flush.
        events
            .to_table("latest", Utf8, Utf8)
            .suppress_until_time_limit(Duration::from_mins(30), unbounded(), "latest-settled")
            .to_stream()
            .to("e2e-win-final-latest", Utf8, Nullable::<Utf8>);
    }
}

topology! {
    /// Clicks and views of each key cogrouped into one `(clicks, views)` pair
    /// (`tests/kafka_cogroup.rs`): in total, and per tumbling window of 1 s.
    pub WinCogroup = "e2e-win-cogroup" {
        let clicks = stream("e2e-win-cogroup-clicks", Utf8, Utf8);
        let views = stream("e2e-win-cogroup-views", Utf8, Utf8);
        let views_total = views.group_by_key();
        clicks
            .group_by_key()
            .cogroup(|_k, _v: String, (c, v): (i64, i64)| (c + 1, v))
            .cogroup(views_total, |_k, _v: String, (c, v): (i64, i64)| (c, v + 1))
            .aggregate("activity", || (0i64, 0i64), Json::<(i64, i64)>)
            .to_stream()
            .to("e2e-win-cogroup-totals", Utf8, Json::<(i64, i64)>);
        let views_per_second = views.group_by_key();
        clicks
            .group_by_key()
            .cogroup(|_k, _v: String, (c, v): (i64, i64)| (c + 1, v))
            .cogroup(views_per_second, |_k, _v: String, (c, v): (i64, i64)| (c, v + 1))
            .windowed_by(tumbling(Duration::from_secs(1)))
            .aggregate("activity-per-second", || (0i64, 0i64), Json::<(i64, i64)>)
            .to_stream()
            .to("e2e-win-cogroup-per-second", TimeWindowed::<Utf8>, Json::<(i64, i64)>);
    }
}

/// The application ids the `windows-instance` binary runs.
pub const APPLICATIONS: &[&str] = &[
    "e2e-win-session",
    "e2e-win-sliding",
    "e2e-win-final",
    "e2e-win-cogroup",
];

/// One input record: key, value, timestamp, and the partition it must go to (`None`: by key).
#[derive(Debug, Clone)]
pub struct Input {
    /// Key.
    pub key: String,
    /// Timestamp (ms).
    pub timestamp: i64,
    /// Explicit partition.
    pub partition: Option<i32>,
}

/// `n` records of `keys` keys in increasing timestamp order from an hour ago (within the
/// broker's retention), 0–2 ms apart, with a pause of 3 s every 997 records (sessions end and
/// windows close); deterministic in `seed`.
pub fn input(n: usize, keys: usize, seed: u64) -> Vec<Input> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    let mut ts = now - 3_600_000;
    (0..n)
        .map(|i| {
            ts += (next() % 3) as i64 + if i % 997 == 996 { 3_000 } else { 0 };
            Input {
                key: format!("k{}", next() % keys as u64),
                timestamp: ts,
                partition: None,
            }
        })
        .collect()
}

/// Appends one record per partition (`flush-<p>`, sent to partition `p`) an hour after the
/// last: it closes every window of its partition.
pub fn with_flush(mut records: Vec<Input>, partitions: i32) -> Vec<Input> {
    let last = records.last().map_or(0, |r| r.timestamp);
    for p in 0..partitions {
        records.push(Input {
            key: format!("flush-{p}"),
            timestamp: last + 3_600_000,
            partition: Some(p),
        });
    }
    records
}

/// Produces `records` to `topic` (value "v") and waits for every acknowledgement.
pub fn produce_inputs(bootstrap: &str, topic: &str, records: &[Input]) {
    let producer = producer(bootstrap).expect("producer");
    for r in records {
        dekaf_streams::kafka::producer::send(
            &producer,
            topic,
            r.partition,
            Some(r.key.as_bytes()),
            Some(b"v"),
            Some(r.timestamp),
            None,
        )
        .expect("produce");
    }
    producer
        .flush(Duration::from_secs(60))
        .expect("flush the producer");
}

/// An output record as bytes: key, value (`None`: tombstone).
pub type Bytes2 = (Vec<u8>, Option<Vec<u8>>);

/// Output records per windowed key (the inner key, then the window bytes in hex), in order;
/// keys starting with `flush-` are left out. A windowed key's records all go to one partition
/// (output is partitioned by the inner key, as Kafka Streams' `WindowedStreamPartitioner` does),
/// so their order is defined.
pub fn per_key(
    records: impl IntoIterator<Item = Bytes2>,
    suffix: usize,
) -> BTreeMap<String, Vec<Bytes2>> {
    let mut out: BTreeMap<String, Vec<Bytes2>> = BTreeMap::new();
    for (k, v) in records {
        let split = k.len().saturating_sub(suffix);
        let inner = String::from_utf8_lossy(&k[..split]).into_owned();
        if inner.starts_with("flush-") {
            continue;
        }
        let window: String = k[split..].iter().map(|b| format!("{b:02x}")).collect();
        out.entry(format!("{inner}@{window}"))
            .or_default()
            .push((k, v));
    }
    out
}

/// What topology `T` writes to `output` for `records`, through the TestDriver.
pub fn expected<T: Topology, K, V>(
    input: TopicRef<String, String>,
    output: TopicRef<K, V>,
    records: &[Input],
) -> Vec<Bytes2> {
    let driver = TestDriver::<T>::new();
    let topic = driver.input_topic(input);
    for r in records {
        topic.pipe_input_at(r.key.clone(), "v".to_owned(), r.timestamp);
    }
    let output = driver.output_topic(output);
    std::iter::from_fn(|| output.read_raw())
        .map(|r| (r.key.unwrap_or_default(), r.value))
        .collect()
}

/// The records read, as bytes.
pub fn bytes_of(records: &[ReadRecord]) -> Vec<Bytes2> {
    records
        .iter()
        .map(|r| (r.key.clone().unwrap_or_default(), r.value.clone()))
        .collect()
}

/// The first differences between the expected and the read sequences per key (empty: equal).
pub fn differences(
    expected: &BTreeMap<String, Vec<Bytes2>>,
    read: &BTreeMap<String, Vec<Bytes2>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, want) in expected {
        let got = read.get(key).map(Vec::as_slice).unwrap_or_default();
        if got != want.as_slice() {
            let at = want.iter().zip(got).take_while(|(a, b)| a == b).count();
            problems.push(format!(
                "{key}: {} records expected, {} read, first difference at {at}: expected {:?}, read {:?}",
                want.len(),
                got.len(),
                want.get(at),
                got.get(at)
            ));
        }
    }
    for key in read.keys().filter(|k| !expected.contains_key(*k)) {
        problems.push(format!("{key}: read but not expected"));
    }
    problems
}

/// Records of `topic` not on the partition of their inner key (the key without its last
/// `suffix` window bytes): Kafka Streams writes windowed keys with its
/// `WindowedStreamPartitioner`, murmur2 of the inner key, so a window's result lands where the
/// key's plain records do.
pub async fn misplaced(
    bootstrap: &str,
    topic: &str,
    records: &[ReadRecord],
    suffix: usize,
) -> Vec<String> {
    let (servers, name) = (bootstrap.to_owned(), topic.to_owned());
    let partitions = off_workers(move || {
        let consumer = crate::kafka_io::committed_reader(&servers, &name).expect("a reader");
        let metadata = consumer
            .fetch_metadata(Some(&name), Duration::from_secs(10))
            .expect("the topic's metadata");
        metadata
            .topics()
            .first()
            .map_or(0, |t| t.partitions().len())
    })
    .await;
    let partitions = i32::try_from(partitions).expect("a partition count");
    assert!(partitions > 1, "{topic} needs several partitions to check");
    records
        .iter()
        .filter_map(|r| {
            let key = r.key.as_deref()?;
            let inner = &key[..key.len().saturating_sub(suffix)];
            let want = (dekaf_streams::record::murmur2(inner) & 0x7fff_ffff) as i32 % partitions;
            (r.partition != want).then(|| {
                format!(
                    "{topic}: key {:?} on partition {}, its inner key's partition is {want}",
                    String::from_utf8_lossy(inner),
                    r.partition
                )
            })
        })
        .take(5)
        .collect()
}

/// Starts `windows-instance <application>` (the binary at `binary`) under exactly-once with a
/// 5 s transaction timeout and no record cache.
pub fn instance(binary: &Path, application: &str, bootstrap: &str) -> Child {
    Command::new(binary)
        .arg(application)
        .env("DEKAF_BOOTSTRAP", bootstrap)
        .env("DEKAF_GUARANTEE", "exactly_once")
        .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
        .env("DEKAF_CACHE_MAX_BYTES", "0")
        .env("RUST_LOG", "info,rdkafka=warn")
        .spawn()
        .expect("start windows-instance")
}

/// One output topic to check: its name, the expected records per key, and the window bytes
/// after the inner key (8 for time windows, 16 for sessions).
pub struct Expected {
    /// The topic.
    pub topic: &'static str,
    /// The records per key.
    pub per_key: BTreeMap<String, Vec<Bytes2>>,
    /// Window bytes after the inner key.
    pub suffix: usize,
}

/// Produces the first half of `records` to `input_topic`, runs `application` as a child process
/// until the first output is committed, SIGKILLs it, produces the second half, restarts it, and
/// reads every output topic back with an independent read_committed consumer until it holds as
/// many records as expected (then 3 s more). Returns the differences to the expected output per
/// key (empty: exactly once) and the records read per topic.
pub async fn run_with_sigkill(
    bootstrap: &str,
    application: &'static str,
    binary: &Path,
    input_topic: &'static str,
    records: Vec<Input>,
    expected: &[Expected],
) -> Vec<String> {
    let (first, second) = {
        let half = records.len() / 2;
        (records[..half].to_vec(), records[half..].to_vec())
    };
    let servers = bootstrap.to_owned();
    off_workers(move || produce_inputs(&servers, input_topic, &first)).await;
    let mut victim = instance(binary, application, bootstrap);
    let mut reader = crate::e2e::Reader::new(bootstrap, expected[0].topic).await;
    // An instance that stopped (its error is in its output) ends the wait at once.
    let started = reader
        .read_until(Duration::from_secs(120), |r| {
            r.len() > 100 || matches!(victim.try_wait(), Ok(Some(_)))
        })
        .await
        && reader.records.len() > 100;
    drop(reader);
    // SIGKILL: no clean shutdown, an open transaction is aborted by the broker.
    off_workers(move || {
        let _ = victim.kill();
        let _ = victim.wait();
    })
    .await;
    assert!(
        started,
        "no committed output of {application} before the kill"
    );
    let servers = bootstrap.to_owned();
    off_workers(move || produce_inputs(&servers, input_topic, &second)).await;
    let mut restarted = instance(binary, application, bootstrap);
    let mut problems = Vec::new();
    for e in expected {
        let total: usize = e.per_key.values().map(Vec::len).sum();
        let topic = e.topic;
        let mut reader = crate::e2e::Reader::new(bootstrap, topic).await;
        let mut exited = None;
        let done = reader
            .read_until(Duration::from_secs(240), |r| {
                if let Ok(Some(status)) = restarted.try_wait() {
                    exited = Some(status);
                }
                r.len() >= total || exited.is_some()
            })
            .await;
        reader.drain(Duration::from_secs(3)).await;
        let records = std::mem::take(&mut reader.records);
        if let Some(status) = exited.filter(|_| records.len() < total) {
            problems.push(format!(
                "the restarted instance exited with {status} while {topic} had {} of {total} records (its output above says why)",
                records.len()
            ));
            break;
        }
        if !done {
            problems.push(format!(
                "{topic}: {} of {total} records read within the limit",
                records.len()
            ));
        }
        let read = per_key(bytes_of(&records), e.suffix);
        problems.extend(differences(&e.per_key, &read).into_iter().take(5));
        problems.extend(misplaced(bootstrap, topic, &records, e.suffix).await);
    }
    let status = off_workers(move || {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(restarted.id().to_string())
            .status();
        restarted.wait().expect("wait for the instance")
    })
    .await;
    if !status.success() {
        problems.push(format!("the restarted instance exited with {status}"));
    }
    problems
}
