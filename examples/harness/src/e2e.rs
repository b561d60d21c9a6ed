//! Topologies and helpers of the end-to-end tests (`tests/kafka_*.rs`), which run them on a real
//! broker. Each test has its own application id and topics, so tests can share one broker and
//! run in parallel; each starts by deleting what an earlier run left (group, internal topics,
//! its own topics).
//!
//! The `e2e-instance` binary runs any of these topologies in a child process, so tests can kill
//! an instance with SIGKILL.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dekaf_streams::prelude::*;
use rdkafka::consumer::BaseConsumer;

use crate::kafka_io::{
    ReadRecord, bootstrap, committed_reader, drop_off_workers, off_workers, recreate,
};

/// `text` without terminal colour sequences (`ESC [ … m`), as an instance's log may have them.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The value of field `name` (`name=value`, quotes removed) in a tracing log line.
pub fn log_field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let start = line.find(&format!(" {name}="))? + name.len() + 2;
    let rest = &line[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next();
    }
    rest.split_whitespace().next()
}

/// The command that starts the instance binary `binary` (a test's `env!("CARGO_BIN_EXE_..")`)
/// on the test broker ([`bootstrap`]), logging `info,rdkafka=warn` (set `RUST_LOG` to change
/// it) with its stdout and stderr appended to `log`; the caller adds its settings and spawns it.
pub fn logged_instance(binary: &str, log: &Path) -> Command {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("open the instance log");
    let err = out.try_clone().expect("clone the log file");
    let mut command = Command::new(binary);
    command
        .env("DEKAF_BOOTSTRAP", bootstrap())
        .env("RUST_LOG", "info,rdkafka=warn")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    command
}

/// Defines a word-count topology (store `counts`, `Utf8` sentences in, `I64` counts out) with
/// its own application id and topics: `word_count_topology!(Name = "app", "in" -> "out")`.
/// The broker tests' child processes (`e2e-instance`, `standby-instance`) use it.
#[macro_export]
macro_rules! word_count_topology {
    ($(#[$meta:meta])* $name:ident = $app:tt, $input:tt -> $output:tt) => {
        ::dekaf_streams::topology! {
            $(#[$meta])*
            pub $name = $app {
                stream($input, Utf8, Utf8)
                    .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
                    .group_by(|_key, word| word.clone(), Utf8, Utf8)
                    .count("counts")
                    .to_stream()
                    .to($output, Utf8, I64);
            }
        }
    };
}

word_count_topology!(
    /// Word count for the scale test.
    WcScale = "e2e-wc-scale", "e2e-wc-scale-in" -> "e2e-wc-scale-out"
);
word_count_topology!(
    /// Word count for the two-instance test.
    WcTwo = "e2e-wc-two", "e2e-wc-two-in" -> "e2e-wc-two-out"
);
word_count_topology!(
    /// Word count for the SIGKILL test under exactly-once.
    WcKill = "e2e-wc-kill", "e2e-wc-kill-in" -> "e2e-wc-kill-out"
);
word_count_topology!(
    /// Word count for the SIGKILL test under at-least-once.
    WcAlos = "e2e-wc-alos", "e2e-wc-alos-in" -> "e2e-wc-alos-out"
);
word_count_topology!(
    /// Word count for the test of several processing threads in one instance.
    WcThreads = "e2e-wc-threads", "e2e-wc-threads-in" -> "e2e-wc-threads-out"
);

topology! {
    /// Counts records per key in tumbling 10-second windows.
    pub Windows = "e2e-tumbling" {
        stream("e2e-tumbling-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(10)).grace(Duration::from_secs(0)))
            .count("per-window")
            .to_stream()
            .to("e2e-tumbling-out", TimeWindowed::<Utf8>, I64);
    }
}

/// `"<epoch millis>|.."` → the millis, -1 (skip the record) otherwise.
fn payload_millis(value: &str) -> i64 {
    value
        .split('|')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(-1)
}

topology! {
    /// Copies records stamped with the time their value starts with (`timestamp(..)`).
    pub PayloadTime = "e2e-payload-time" {
        stream(
            "e2e-payload-time-in",
            Utf8,
            Utf8,
            timestamp(|_key, value: &String, _record_ts, _partition_time| payload_millis(value)),
        )
        .to("e2e-payload-time-out", Utf8, Utf8);
    }
}

topology! {
    /// Copies records; a value ending in `!` asks for a commit (`ctx.commit()`).
    pub UrgentCommit = "e2e-urgent-commit" {
        stream("e2e-urgent-commit-in", Utf8, Utf8)
            .process_values([], |ctx, _key: &String, value: String| {
                if value.ends_with('!') {
                    ctx.commit();
                }
                Ok(Some(value))
            })
            .to("e2e-urgent-commit-out", Utf8, Utf8);
    }
}

topology! {
    /// Counts values through a repartition topic declared with 3 partitions (the input has 2).
    pub Repartitioned = "e2e-repartition-count" {
        stream("e2e-repartition-count-in", Utf8, Utf8)
            .select_key(|_key, value| value.clone())
            .repartition("by-value", Utf8, Utf8, partitions(3))
            .group_by_key()
            .count("per-value")
            .to_stream()
            .to("e2e-repartition-count-out", Utf8, I64);
    }
}

topology! {
    /// Orders (value: item) joined with customers (value: name), both keyed by customer.
    pub Join = "e2e-tablejoin" {
        let customers = table("e2e-tablejoin-customers", Utf8, Utf8);
        let orders = stream("e2e-tablejoin-orders", Utf8, Utf8);
        orders
            .join(customers, |item, name| format!("{item} for {name}"))
            .to("e2e-tablejoin-out", Utf8, Utf8);
        orders
            .left_join(customers, |item, name: Option<String>| format!("{item} for {}", name.unwrap_or_else(|| "?".into())))
            .to("e2e-tablejoin-left-out", Utf8, Utf8);
    }
}

topology! {
    /// Doubles i64 values; records that do not deserialize go to `e2e-dlq-dead`.
    pub DeadLetters = "e2e-dlq" {
        on_error(|_error| ErrorResponse::DeadLetter("e2e-dlq-dead"));
        stream("e2e-dlq-in", Utf8, I64)
            .map_values(|v| v * 2)
            .to("e2e-dlq-out", Utf8, I64);
    }
}

topology! {
    /// Doubles i64 values; a record that does not deserialize stops the application.
    pub FailFast = "e2e-fail" {
        stream("e2e-fail-in", Utf8, I64)
            .map_values(|v| v * 2)
            .to("e2e-fail-out", Utf8, I64);
    }
}

/// Set once [`StallOnce`] has stalled.
pub static STALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

topology! {
    /// Copies values; the first time it sees `stall`, it stalls for 4 s, past a 2 s transaction
    /// timeout, so the broker aborts the transaction and fences the producer.
    pub StallOnce = "e2e-stall" {
        stream("e2e-stall-in", Utf8, Utf8)
            .peek(|_, v| {
                if v == "stall" && !STALLED.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(std::time::Duration::from_secs(4));
                }
            })
            .to("e2e-stall-out", Utf8, Utf8);
    }
}

topology! {
    /// The first version of an application.
    pub EvolveV1 = "e2e-evolve" {
        stream("e2e-evolve-in", Utf8, Utf8)
            .to("e2e-evolve-out", Utf8, Utf8);
    }
}

topology! {
    /// The same application id with a changed topology (it now counts).
    pub EvolveV2 = "e2e-evolve" {
        stream("e2e-evolve-in", Utf8, Utf8)
            .group_by_key()
            .count("seen")
            .to_stream()
            .to("e2e-evolve-counts", Utf8, I64);
    }
}

topology! {
    /// `process_values` with a store: the running sum of each key's amounts, forwarded under
    /// the key with the amount in a header (`pv-amount`); the processor API's broker test
    /// (`tests/kafka_punctuation.rs`, run by `punctuate-instance process_values`).
    pub ProcessValuesEos = "pv-eos" {
        store("pv-sums", Utf8, I64);
        stream("pv-amounts", Utf8, I64)
            .process_values(["pv-sums"], |ctx, key: &String, amount: i64| {
                let sum = ctx.pv_sums().get(key)?.unwrap_or(0) + amount;
                ctx.pv_sums().put(key, &sum)?;
                let headers = Headers::new().with("pv-amount", amount.to_string());
                Ok([Forward::value(sum).with_headers(headers)])
            })
            .to("pv-running", Utf8, I64);
    }
}

topology! {
    /// A window store and a session store in `process`, on event times carried in the value:
    /// per key the count of its window of 200 and the counts of the two windows before it, and
    /// its session by hand (records within 40 of a session join it, merging sessions). The
    /// processor API's window and session store broker test (`tests/kafka_punctuation.rs`,
    /// run by `punctuate-instance process_windows`).
    pub ProcessWindowsEos = "pw-eos" {
        window_store("pw-windows", Utf8, I64, size(Duration::from_millis(200)), retention(Duration::from_millis(2000)));
        session_store("pw-sessions", Utf8, I64, retention(Duration::from_millis(2000)));
        stream("pw-events", Utf8, I64)
            .process(["pw-windows", "pw-sessions"], |ctx, key: String, t: i64| {
                let start = t / 200 * 200;
                let count = ctx.pw_windows().fetch(&key, start)?.unwrap_or(0) + 1;
                ctx.pw_windows().put(&key, &count, start)?;
                let recent: i64 = ctx
                    .pw_windows()
                    .fetch_range(&key, start - 400, start - 1)?
                    .iter()
                    .map(|(_, c)| c)
                    .sum();
                let (mut from, mut to, mut n) = (t, t, 1);
                for (w, c) in ctx.pw_sessions().find_sessions(&key, t - 40, t + 40)? {
                    from = from.min(w.start);
                    to = to.max(w.end);
                    n += c;
                    ctx.pw_sessions().remove(&key, w.start, w.end)?;
                }
                ctx.pw_sessions().put(&key, from, to, &n)?;
                Ok(Some((key, format!("{start}:{count}:{recent}|[{from},{to}]={n}"))))
            })
            .to("pw-out", Utf8, Utf8);
    }
}

/// Deletes what an earlier run of `application_id` left (its group, internal topics and the
/// given topics) and creates the topics afresh; also sends the logs of in-process applications
/// to the test's output (shown when a test fails).
pub async fn fresh(bootstrap: &str, application_id: &str, topics: &[(&str, i32)]) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rdkafka=warn")),
        )
        .with_test_writer()
        .try_init();
    if let Err(e) = recreate(bootstrap, application_id, topics).await {
        panic!("{e}");
    }
}

/// `n` sentences of 1 to 8 words from a vocabulary of `vocabulary` words, deterministic in `seed`.
pub fn sentences(n: usize, vocabulary: usize, seed: u64) -> Vec<String> {
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
        | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            let words = 1 + next() % 8;
            (0..words)
                .map(|_| format!("w{}", next() % vocabulary as u64))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The count of every word in `sentences`.
pub fn expected_counts<S: AsRef<str>>(sentences: &[S]) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for s in sentences {
        for w in s.as_ref().split(' ') {
            *counts.entry(w.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

/// An independent read_committed reader of one output topic that keeps what it read. Its
/// consumer polls on tokio's blocking pool, a quarter second at a time, so reading never blocks
/// a tokio worker.
pub struct Reader {
    /// `None` only while it polls on the blocking pool.
    consumer: Option<BaseConsumer>,
    /// Every record read so far.
    pub records: Vec<ReadRecord>,
}

/// How long one poll round on the blocking pool lasts before `done` is checked again.
const READ_ROUND: Duration = Duration::from_millis(250);

impl Reader {
    /// Reads `topic` from the beginning.
    pub async fn new(bootstrap: &str, topic: &str) -> Reader {
        let (bootstrap, topic) = (bootstrap.to_owned(), topic.to_owned());
        let consumer = off_workers(move || committed_reader(&bootstrap, &topic))
            .await
            .expect("a read_committed reader");
        Reader {
            consumer: Some(consumer),
            records: Vec::new(),
        }
    }

    /// Reads until `done(records)` holds or `timeout` passes; says whether it held.
    pub async fn read_until(
        &mut self,
        timeout: Duration,
        mut done: impl FnMut(&[ReadRecord]) -> bool,
    ) -> bool {
        let started = Instant::now();
        loop {
            let consumer = self.consumer.take().expect("the reader's consumer");
            let (consumer, batch) = off_workers(move || {
                let round = Instant::now();
                let mut batch = Vec::new();
                while round.elapsed() < READ_ROUND {
                    match consumer.poll(Duration::from_millis(100)) {
                        Some(Ok(m)) => batch.push(ReadRecord::from_message(&m)),
                        Some(Err(e)) => eprintln!("reader: {e}"),
                        None => {}
                    }
                }
                (consumer, batch)
            })
            .await;
            self.consumer = Some(consumer);
            self.records.extend(batch);
            if done(&self.records) {
                return true;
            }
            if started.elapsed() > timeout {
                return false;
            }
        }
    }

    /// Reads for `quiet` more, to see whether anything else arrives.
    pub async fn drain(&mut self, quiet: Duration) {
        let _ = self.read_until(quiet, |_| false).await;
    }
}

/// The values (UTF-8, lossy) of `topic` as an independent read_committed reader sees them once
/// it has `want` records or a minute passed, and two quiet seconds after.
pub async fn read_values(topic: &str, want: usize) -> Vec<String> {
    let mut reader = Reader::new(&bootstrap(), topic).await;
    reader
        .read_until(Duration::from_secs(60), |r| r.len() >= want)
        .await;
    reader.drain(Duration::from_secs(2)).await;
    reader
        .records
        .iter()
        .map(|r| String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned())
        .collect()
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(consumer) = self.consumer.take() {
            drop_off_workers(consumer);
        }
    }
}

/// The 8-byte counts of a count topic per (UTF-8) key, in the order they were read.
fn counts_by_key(records: &[ReadRecord]) -> HashMap<String, Vec<i64>> {
    let mut seen: HashMap<String, Vec<i64>> = HashMap::new();
    for r in records {
        if let (Some(k), Some(v)) = (&r.key, &r.value)
            && let Ok(bytes) = <[u8; 8]>::try_from(v.as_slice())
        {
            seen.entry(String::from_utf8_lossy(k).into_owned())
                .or_default()
                .push(i64::from_be_bytes(bytes));
        }
    }
    seen
}

/// Checks exactly-once output of a count topic: for every key the updates are exactly
/// `1, 2, …, n` with `n` the expected count (a repeated or skipped value is a duplicate or a
/// loss). Returns the problems found (empty when exact).
pub fn exactly_once_problems(
    records: &[ReadRecord],
    expected: &HashMap<String, i64>,
) -> Vec<String> {
    let mut seen = counts_by_key(records);
    let mut problems = Vec::new();
    for (word, n) in expected {
        let values = seen.remove(word).unwrap_or_default();
        let exact: Vec<i64> = (1..=*n).collect();
        if values != exact {
            let dup = values.len() as i64 - n;
            problems.push(format!(
                "{word}: expected 1..={n}, got {} updates (last {:?}, {dup:+})",
                values.len(),
                values.last()
            ));
        }
    }
    for (word, values) in seen {
        problems.push(format!(
            "{word}: unexpected key with {} updates",
            values.len()
        ));
    }
    problems.sort();
    problems
}

/// Checks the output of a count topic written through the record cache: for every key the
/// values strictly increase (a repeated value is a duplicate, a decrease a replay) and end at
/// `n`, its expected count; keys not expected are problems too. Returns the problems found.
pub fn cached_count_problems(
    records: &[ReadRecord],
    expected: &HashMap<String, i64>,
) -> Vec<String> {
    let mut seen = counts_by_key(records);
    let mut problems = Vec::new();
    for (word, n) in expected {
        let values = seen.remove(word).unwrap_or_default();
        if values.last() != Some(n) {
            problems.push(format!(
                "{word}: expected to end at {n}, got {:?}",
                values.last()
            ));
        }
        if let Some(pair) = values.windows(2).find(|p| p[0] >= p[1]) {
            problems.push(format!(
                "{word}: {} then {}: not increasing",
                pair[0], pair[1]
            ));
        }
    }
    for (word, values) in seen {
        problems.push(format!(
            "{word}: unexpected key with {} updates",
            values.len()
        ));
    }
    problems.sort();
    problems
}

/// Whether every expected key has reached at least its expected count.
pub fn counts_reached(records: &[ReadRecord], expected: &HashMap<String, i64>) -> bool {
    let last = crate::kafka_io::last_counts(records);
    expected
        .iter()
        .all(|(k, n)| last.get(k).is_some_and(|v| v >= n))
}

/// A topology running in this process, stopped by [`InProcess::stop`].
pub struct InProcess {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    run: tokio::task::JoinHandle<Result<(), dekaf_streams::StreamsError>>,
}

impl InProcess {
    /// Starts `topology` on `bootstrap` with `guarantee`, without a record cache (the tests
    /// check every update of every count).
    pub fn start<T: Topology + Send>(
        topology: T,
        bootstrap: &str,
        guarantee: dekaf_streams::ProcessingGuarantee,
    ) -> InProcess {
        Self::start_with_cache(topology, bootstrap, guarantee, 0)
    }

    /// Starts `topology` on `bootstrap` with `guarantee` and a record cache of `cache_bytes`.
    pub fn start_with_cache<T: Topology + Send>(
        topology: T,
        bootstrap: &str,
        guarantee: dekaf_streams::ProcessingGuarantee,
        cache_bytes: usize,
    ) -> InProcess {
        let streams = dekaf_streams::KafkaStreams::builder(topology)
            .bootstrap_servers(bootstrap)
            .processing_guarantee(guarantee)
            .cache_max_bytes(cache_bytes)
            .build()
            .expect("valid settings");
        InProcess::run(streams)
    }

    /// Runs `streams` until [`InProcess::stop`].
    pub fn run<T: Topology + Send>(streams: dekaf_streams::KafkaStreams<T>) -> InProcess {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let run = tokio::spawn(streams.run(async move {
            let _ = stopped.await;
        }));
        InProcess {
            stop: Some(stop),
            run,
        }
    }

    /// Asks it to stop and returns what `run` returned.
    pub async fn stop(mut self) -> Result<(), dekaf_streams::StreamsError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.run.await.expect("run() does not panic")
    }

    /// Whether `run` has returned (by itself, unless [`InProcess::stop`] asked it to).
    pub fn is_finished(&self) -> bool {
        self.run.is_finished()
    }

    /// Waits for `run` to return by itself (it failed), at most `timeout`.
    pub async fn finished(
        self,
        timeout: Duration,
    ) -> Option<Result<(), dekaf_streams::StreamsError>> {
        let InProcess { stop, run } = self;
        let result = tokio::time::timeout(timeout, run)
            .await
            .ok()
            .map(|r| r.expect("run() does not panic"));
        drop(stop);
        result
    }
}

topology! {
    /// Blows every value up 2000-fold: with a small `max.message.bytes` on the output topic the
    /// broker refuses the records, which no retry fixes.
    pub BigRecords = "e2e-big" {
        stream("e2e-big-in", Utf8, Utf8)
            .map_values(|v| v.repeat(2_000))
            .to("e2e-big-out", Utf8, Utf8);
    }
}

word_count_topology!(
    /// Word count with a state directory, killed and restarted.
    WcStateKill = "e2e-wc-state-kill", "e2e-wc-state-kill-in" -> "e2e-wc-state-kill-out"
);

word_count_topology!(
    /// Word count with a state directory and many keys, killed and restarted by the crash
    /// recovery test (`e2e-instance wc-recovery`).
    WcRecovery = "e2e-wc-recovery", "e2e-wc-recovery-in" -> "e2e-wc-recovery-out"
);

word_count_topology!(
    /// Word count with a state directory whose tasks move to a second instance, for the state
    /// cleanup test.
    WcStateClean = "e2e-wc-state-clean", "e2e-wc-state-clean-in" -> "e2e-wc-state-clean-out"
);

word_count_topology!(
    /// Word count with a state directory, for the two-instances test.
    WcStateTwo = "e2e-wc-state-two", "e2e-wc-state-two-in" -> "e2e-wc-state-two-out"
);

topology! {
    /// Counts records per key and reports only keys seen twice: a changelog as large as the
    /// number of keys, with almost no output.
    pub KeyRepeats = "e2e-state-repeats" {
        stream("e2e-state-repeats-in", Utf8, Utf8)
            .group_by_key()
            .count("seen")
            .to_stream()
            .filter(|_, n| *n >= 2)
            .to("e2e-state-repeats-out", Utf8, I64);
    }
}

word_count_topology!(
    /// Word count with the record cache on.
    WcCached = "e2e-wc-cached", "e2e-wc-cached-in" -> "e2e-wc-cached-out"
);
word_count_topology!(
    /// Word count with the record cache, two instances.
    WcCachedTwo = "e2e-wc-ctwo", "e2e-wc-ctwo-in" -> "e2e-wc-ctwo-out"
);
word_count_topology!(
    /// Word count with the record cache, SIGKILL under exactly-once.
    WcCachedKill = "e2e-wc-ckill", "e2e-wc-ckill-in" -> "e2e-wc-ckill-out"
);
word_count_topology!(
    /// Word count for the metrics test.
    WcMetrics = "e2e-wc-metrics", "e2e-wc-metrics-in" -> "e2e-wc-metrics-out"
);

/// Asserts [`exactly_once_problems`] finds none, naming a few of those it finds.
pub fn assert_exactly_once(records: &[ReadRecord], expected: &HashMap<String, i64>) {
    let problems = exactly_once_problems(records, expected);
    assert!(
        problems.is_empty(),
        "{} words wrong, e.g. {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
}

word_count_topology!(
    /// Word count over a transactionally written input, for the committed-offsets (lag) test.
    WcLag = "e2e-wc-lag", "e2e-wc-lag-in" -> "e2e-wc-lag-out"
);

/// One partition's committed offset (of a group) and log end offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOffsets {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The group's committed offset, if any.
    pub committed: Option<i64>,
    /// The log end offset (high watermark).
    pub end: i64,
}

impl PartitionOffsets {
    /// Whether the group has committed up to the log end (or the partition never held a
    /// record): its lag is 0.
    pub fn caught_up(&self) -> bool {
        self.committed == Some(self.end) || (self.end == 0 && self.committed.is_none())
    }
}

/// The committed offsets of `group` and the log end offsets of every partition of `topics`,
/// read (on the blocking pool) by a consumer that is not a member of the group.
pub async fn committed_and_end_offsets(
    bootstrap: &str,
    group: &str,
    topics: &[String],
) -> Result<Vec<PartitionOffsets>, rdkafka::error::KafkaError> {
    let (bootstrap, group, topics) = (bootstrap.to_owned(), group.to_owned(), topics.to_vec());
    off_workers(move || committed_and_end_offsets_blocking(&bootstrap, &group, &topics)).await
}

fn committed_and_end_offsets_blocking(
    bootstrap: &str,
    group: &str,
    topics: &[String],
) -> Result<Vec<PartitionOffsets>, rdkafka::error::KafkaError> {
    use rdkafka::consumer::Consumer;
    use rdkafka::{ClientConfig, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("group.protocol", "classic")
        .set("enable.auto.commit", "false")
        .create()?;
    let mut tpl = TopicPartitionList::new();
    let mut ends = Vec::new();
    for topic in topics {
        let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        for t in metadata.topics() {
            for p in t.partitions() {
                tpl.add_partition(topic, p.id());
                let (_, high) =
                    consumer.fetch_watermarks(topic, p.id(), Duration::from_secs(10))?;
                ends.push((topic.clone(), p.id(), high));
            }
        }
    }
    let committed = consumer.committed_offsets(tpl, Duration::from_secs(10))?;
    Ok(ends
        .into_iter()
        .map(|(topic, partition, end)| {
            let offset = match committed
                .find_partition(&topic, partition)
                .map(|e| e.offset())
            {
                Some(Offset::Offset(o)) => Some(o),
                _ => None,
            };
            PartitionOffsets {
                topic,
                partition,
                committed: offset,
                end,
            }
        })
        .collect())
}

/// Waits (polling, at most `timeout`) until `group` has committed every partition of `topics`
/// up to its log end offset; says whether it did.
pub async fn wait_until_caught_up(
    bootstrap: &str,
    group: &str,
    topics: &[String],
    timeout: Duration,
) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let caught_up = committed_and_end_offsets(bootstrap, group, topics)
            .await
            .is_ok_and(|o| !o.is_empty() && o.iter().all(PartitionOffsets::caught_up));
        if caught_up {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits (polling, at most `timeout`) until the streams group `group` has `members` members
/// that each run at least one active task; says whether it did.
pub async fn wait_for_members_with_tasks(
    bootstrap: &str,
    group: &str,
    members: usize,
    timeout: Duration,
) -> bool {
    let config = dekaf_streams::group::CoordinatorConfig::new(bootstrap, "e2e-test-describe");
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(described) = dekaf_streams::group::describe_streams_group(&config, group).await {
            let working = described
                .members
                .iter()
                .filter(|m| {
                    m.assignment
                        .active_tasks
                        .iter()
                        .any(|t| !t.partitions.is_empty())
                })
                .count();
            if described.members.len() == members && working == members {
                return true;
            }
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

topology! {
    /// Copies values to a topic that is never created (the broker does not create topics).
    pub MissingSink = "e2e-missing-sink" {
        stream("e2e-missing-sink-in", Utf8, Utf8)
            .to("e2e-missing-sink-never-created", Utf8, Utf8);
    }
}
