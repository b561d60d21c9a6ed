//! Taking over a running Kafka Streams 4.4 application in place, and handing it back.
//!
//! Kafka Streams' word count (the benchmark's Java application, `benches/kstreams`: a
//! `groupBy(.., Grouped.as("words"))` and a `count(Materialized.as("counts"))`, streams
//! protocol, exactly-once) processes the first half of the input and stops; a dekaf-streams
//! word count compiled with the same names starts under the same application id and processes
//! the second half. The coordinator accepts it only when its declared topology equals the one
//! Kafka Streams declared, field by field; it then restores the counts from Kafka Streams'
//! changelog and continues from its committed offsets. The reverse direction hands a group that
//! dekaf-streams created to Kafka Streams.
//!
//! An independent read_committed reader checks the output across the switch: every word's
//! counts strictly increase (both sides run a record cache, so not every count is forwarded) and
//! end at the word's count in the whole input. A restart from zero or a replayed interval would
//! show as a decrease or a repeat.
//!
//! Needs Java 17+ and Maven (`scripts/kafka.sh` installs both): the first run builds the Kafka
//! Streams application with `benches/kstreams/build.sh`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::prelude::*;
use dekaf_streams_harness::e2e::{
    InProcess, Reader, cached_count_problems, counts_reached, expected_counts, fresh, sentences,
};
use dekaf_streams_harness::kafka_io::{
    NewRecord, bootstrap, off_workers, produce, produce_records, topic_configs,
};

/// The word count of `benches/kstreams` (workload `wordcount`), named for application `$app`:
/// input `$app-sentences`, repartition topic `$app-words-repartition`, store `counts`.
macro_rules! kstreams_word_count {
    ($name:ident = $app:tt, $input:tt -> $output:tt) => {
        topology! {
            /// Kafka Streams' benchmark word count, under the names it uses.
            pub $name = $app {
                stream($input, Unit, Utf8)
                    .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned).collect::<Vec<_>>())
                    .select_key(|_key, word| word.clone())
                    .repartition("words", Utf8, Utf8)
                    .group_by_key()
                    .count("counts")
                    .to_stream()
                    .to($output, Utf8, I64);
            }
        }
    };
}

kstreams_word_count!(ToDekaf = "e2e-takeover-in", "e2e-takeover-in-sentences" -> "e2e-takeover-in-out");
kstreams_word_count!(ToJava = "e2e-takeover-back", "e2e-takeover-back-sentences" -> "e2e-takeover-back-out");

topology! {
    /// Kafka Streams' benchmark window count (workload `window`): counts per key in tumbling
    /// 10 s windows (24 h grace) in the store `window-counts`, keyed `<key>@<start>`.
    pub WindowsToDekaf = "e2e-takeover-win" {
        stream("e2e-takeover-win-events", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(10)).grace(Duration::from_secs(86400)))
            .count("window-counts")
            .to_stream()
            .map(|key, count| (format!("{}@{}", key.key, key.window.start), count))
            .to("e2e-takeover-win-out", Utf8, I64);
    }
}

topology! {
    /// Kafka Streams' benchmark word count, its changelog with a config of its own
    /// (`withLoggingEnabled(Map.of("segment.ms", "600000"))` on the Java side).
    pub ConfiguredToDekaf = "e2e-takeover-conf" {
        stream("e2e-takeover-conf-sentences", Unit, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .select_key(|_key, word| word.clone())
            .repartition("words", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .with_logging_enabled([("segment.ms", "600000")])
            .to_stream()
            .to("e2e-takeover-conf-out", Utf8, I64);
    }
}

const PARTITIONS: i32 = 4;
const HALF: usize = 1_000;
const DEADLINE: Duration = Duration::from_secs(180);

/// Builds (once per run, behind a lock: the tests run in parallel and Maven must not build the
/// same directory twice at once; Maven keeps the jar until a source changes) the Kafka Streams
/// application's jar.
async fn kstreams_jar() -> PathBuf {
    static JAR: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);
    off_workers(|| {
        let mut jar = JAR
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(path) = jar.as_ref() {
            return path.clone();
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/kstreams/build.sh");
        let out = Command::new("bash")
            .arg(&script)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} failed (it needs Java 17+ and Maven; scripts/kafka.sh start installs both)",
            script.display()
        );
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        *jar = Some(path.clone());
        path
    })
    .await
}

/// Kafka Streams' `workload` (of the benchmark application) for `app` as a child process
/// (`--input-prefix app`), its log in `<state_dir>.log`.
fn start_kstreams(jar: &Path, workload: &str, app: &str, state_dir: &Path) -> Child {
    start_kstreams_with(jar, workload, app, state_dir, &[])
}

/// [`start_kstreams`] with more arguments of the benchmark application.
fn start_kstreams_with(
    jar: &Path,
    workload: &str,
    app: &str,
    state_dir: &Path,
    extra: &[&str],
) -> Child {
    let log_path = state_dir.with_extension("log");
    std::fs::create_dir_all(state_dir).expect("the Kafka Streams state dir");
    let log = std::fs::File::create(&log_path).expect("the Kafka Streams log file");
    eprintln!("Kafka Streams' log: {}", log_path.display());
    Command::new("java")
        .arg("-jar")
        .arg(jar)
        .args(["--workload", workload, "--guarantee", "exactly_once"])
        .args(["--app-id", app, "--input-prefix", app])
        .args(["--output-topic", &format!("{app}-out")])
        .args(["--bootstrap", &bootstrap(), "--max-seconds", "600"])
        .args(extra)
        .arg("--state-dir")
        .arg(state_dir)
        .stdout(log.try_clone().expect("the log file"))
        .stderr(log)
        .spawn()
        .expect("java starts")
}

/// Stops the Kafka Streams child cleanly (SIGTERM: its shutdown hook closes the application,
/// which commits) and waits for it to exit.
async fn stop_kstreams(mut child: Child) {
    tokio::task::spawn_blocking(move || {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let started = Instant::now();
        loop {
            if child.try_wait().expect("waiting for java").is_some() {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Kafka Streams did not stop within 60 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    })
    .await
    .expect("stopping java does not panic");
}

async fn produce_sentences(topic: &str, batch: &[String]) {
    produce(
        &bootstrap(),
        topic,
        batch.iter().map(|s| (None, Some(s.as_bytes()))),
    )
    .await
    .expect("input produced");
}

/// Reads until every word of `expected` reached its count; panics at the deadline.
async fn read_until_counts(reader: &mut Reader, expected: &HashMap<String, i64>, what: &str) {
    let reached = reader
        .read_until(DEADLINE, |records| counts_reached(records, expected))
        .await;
    assert!(
        reached,
        "{what}: the counts were not reached within {DEADLINE:?}"
    );
}

/// Checks the whole output after both halves, after reading a little longer for late duplicates.
async fn assert_exact(mut reader: Reader, expected: &HashMap<String, i64>) {
    reader.drain(Duration::from_secs(2)).await;
    let problems = cached_count_problems(&reader.records, expected);
    assert!(
        problems.is_empty(),
        "output across the switch is not exact: {problems:#?}"
    );
}

/// A state directory of this test run, deleted when dropped.
struct StateDir(PathBuf);

impl StateDir {
    fn new(app: &str) -> StateDir {
        let dir = std::env::temp_dir().join(format!("dekaf-{app}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        StateDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for StateDir {
    /// Deletes the directory unless the test failed (it holds Kafka Streams' log).
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn start_dekaf<T: Topology + Send>(topology: T, state_dir: &Path) -> InProcess {
    let streams = dekaf_streams::KafkaStreams::builder(topology)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .state_dir(state_dir)
        .build()
        .expect("valid settings");
    InProcess::run(streams)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dekaf_streams_takes_over_a_kafka_streams_word_count_exactly_once() {
    const APP: &str = "e2e-takeover-in";
    const INPUT: &str = "e2e-takeover-in-sentences";
    fresh(
        &bootstrap(),
        APP,
        &[(INPUT, PARTITIONS), ("e2e-takeover-in-out", PARTITIONS)],
    )
    .await;
    let jar = kstreams_jar().await;
    let state = StateDir::new(APP);
    let all = sentences(2 * HALF, 40, 11);
    let (first, second) = all.split_at(HALF);
    let mut reader = Reader::new(&bootstrap(), "e2e-takeover-in-out").await;

    produce_sentences(INPUT, first).await;
    let java = start_kstreams(&jar, "wordcount", APP, &state.path().join("kstreams"));
    read_until_counts(
        &mut reader,
        &expected_counts(first),
        "Kafka Streams, first half",
    )
    .await;
    stop_kstreams(java).await;

    produce_sentences(INPUT, second).await;
    let dekaf = start_dekaf(ToDekaf, &state.path().join("dekaf"));
    let expected = expected_counts(&all);
    read_until_counts(&mut reader, &expected, "dekaf-streams, second half").await;
    dekaf.stop().await.expect("dekaf-streams ran without error");
    assert_exact(reader, &expected).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_streams_takes_over_a_dekaf_streams_word_count_exactly_once() {
    const APP: &str = "e2e-takeover-back";
    const INPUT: &str = "e2e-takeover-back-sentences";
    fresh(
        &bootstrap(),
        APP,
        &[(INPUT, PARTITIONS), ("e2e-takeover-back-out", PARTITIONS)],
    )
    .await;
    let jar = kstreams_jar().await;
    let state = StateDir::new(APP);
    let all = sentences(2 * HALF, 40, 12);
    let (first, second) = all.split_at(HALF);
    let mut reader = Reader::new(&bootstrap(), "e2e-takeover-back-out").await;

    produce_sentences(INPUT, first).await;
    let dekaf = start_dekaf(ToJava, &state.path().join("dekaf"));
    read_until_counts(
        &mut reader,
        &expected_counts(first),
        "dekaf-streams, first half",
    )
    .await;
    dekaf.stop().await.expect("dekaf-streams ran without error");

    produce_sentences(INPUT, second).await;
    let java = start_kstreams(&jar, "wordcount", APP, &state.path().join("kstreams"));
    let expected = expected_counts(&all);
    read_until_counts(&mut reader, &expected, "Kafka Streams, second half").await;
    stop_kstreams(java).await;
    assert_exact(reader, &expected).await;
}

/// Window events: keys `k0`..`k9`, timestamps spread over three 10 s windows from `base` (the
/// same for both halves, so both update the same windows).
///
/// `base` must be recent: the broker's time-based retention (7 days for the input, about 2 days
/// for Kafka Streams' window changelog) deletes records by their timestamps, and a retention
/// check between the two halves deleted old-timestamped changelog and input partitions, so the
/// counts never came out right.
fn window_events(n: usize, offset: usize, base: i64) -> Vec<(String, i64)> {
    (offset..offset + n)
        .map(|i| (format!("k{}", i % 10), base + (i % 3) as i64 * 10_000))
        .collect()
}

fn window_expected(events: &[(String, i64)]) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for (key, ts) in events {
        *counts
            .entry(format!("{key}@{}", ts - ts % 10_000))
            .or_insert(0) += 1;
    }
    counts
}

async fn produce_events(topic: &str, events: &[(String, i64)]) {
    produce_records(
        &bootstrap(),
        topic,
        events.iter().map(|(key, ts)| NewRecord {
            key: Some(key.as_bytes()),
            value: Some(b"v"),
            timestamp: Some(*ts),
            ..NewRecord::default()
        }),
    )
    .await
    .expect("input produced");
}

/// A window store restores from Kafka Streams' changelog: the store key layout (key, start,
/// sequence number) is Kafka Streams' `WindowKeySchema`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dekaf_streams_takes_over_a_kafka_streams_window_count_exactly_once() {
    const APP: &str = "e2e-takeover-win";
    const INPUT: &str = "e2e-takeover-win-events";
    fresh(
        &bootstrap(),
        APP,
        &[(INPUT, PARTITIONS), ("e2e-takeover-win-out", PARTITIONS)],
    )
    .await;
    let jar = kstreams_jar().await;
    let state = StateDir::new(APP);
    // A minute ago, at the start of a 10 s window.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is past 1970")
        .as_millis() as i64;
    let base = now - now % 10_000 - 60_000;
    let first = window_events(HALF, 0, base);
    let second = window_events(HALF, HALF, base);
    let mut reader = Reader::new(&bootstrap(), "e2e-takeover-win-out").await;

    produce_events(INPUT, &first).await;
    let java = start_kstreams(&jar, "window", APP, &state.path().join("kstreams"));
    read_until_counts(
        &mut reader,
        &window_expected(&first),
        "Kafka Streams, first half",
    )
    .await;
    stop_kstreams(java).await;

    produce_events(INPUT, &second).await;
    let dekaf = start_dekaf(WindowsToDekaf, &state.path().join("dekaf"));
    let expected = window_expected(&[first, second].concat());
    read_until_counts(&mut reader, &expected, "dekaf-streams, second half").await;
    dekaf.stop().await.expect("dekaf-streams ran without error");
    assert_exact(reader, &expected).await;
}

/// A Java application that sets `replication.factor`, `topic.*` configs and a store's own
/// changelog config declares them to the coordinator; dekaf-streams, given the same
/// (`replication_factor`, `internal_topic_config`, `with_logging_enabled`), declares the same
/// topology and takes the group over. Without them the coordinator refuses it, and the error
/// names each differing config and the call that sets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dekaf_streams_takes_over_a_kafka_streams_app_with_internal_topic_configs() {
    const APP: &str = "e2e-takeover-conf";
    const INPUT: &str = "e2e-takeover-conf-sentences";
    fresh(
        &bootstrap(),
        APP,
        &[(INPUT, PARTITIONS), ("e2e-takeover-conf-out", PARTITIONS)],
    )
    .await;
    let jar = kstreams_jar().await;
    let state = StateDir::new(APP);
    let all = sentences(2 * HALF, 40, 13);
    let (first, second) = all.split_at(HALF);
    let mut reader = Reader::new(&bootstrap(), "e2e-takeover-conf-out").await;

    produce_sentences(INPUT, first).await;
    let java = start_kstreams_with(
        &jar,
        "wordcount",
        APP,
        &state.path().join("kstreams"),
        &[
            "--replication-factor",
            "1",
            "--topic-configs",
            "min.insync.replicas=1,segment.bytes=104857600",
            "--counts-log-configs",
            "segment.ms=600000",
        ],
    );
    read_until_counts(
        &mut reader,
        &expected_counts(first),
        "Kafka Streams, first half",
    )
    .await;
    stop_kstreams(java).await;
    // The coordinator created the internal topics with what Kafka Streams declared: the
    // store's own config on the changelog, the application's on both, and the application's
    // `segment.bytes` over the repartition topic's default.
    let changelog = topic_configs(&bootstrap(), "e2e-takeover-conf-counts-changelog")
        .await
        .expect("the changelog's configs");
    assert_eq!(
        changelog.get("segment.ms").map(String::as_str),
        Some("600000")
    );
    assert_eq!(
        changelog.get("min.insync.replicas").map(String::as_str),
        Some("1")
    );
    let repartition = topic_configs(&bootstrap(), "e2e-takeover-conf-words-repartition")
        .await
        .expect("the repartition topic's configs");
    assert_eq!(
        repartition.get("segment.bytes").map(String::as_str),
        Some("104857600")
    );

    // Without the application's settings, the declared topology differs: refused, and told why.
    let refused = dekaf_streams::group::MemberHandle::join(
        ConfiguredToDekaf::INFO,
        dekaf_streams::group::MemberConfig::new(bootstrap()),
    )
    .await
    .expect_err("a topology with other topic configs must be refused");
    let text = refused.to_string();
    assert!(
        matches!(
            refused,
            dekaf_streams::group::GroupError::TopologyChanged { .. }
        ),
        "{text}"
    );
    for named in [
        "min.insync.replicas=1",
        "internal_topic_config(..)",
        "replication factor is 1, this program's -1",
    ] {
        assert!(text.contains(named), "`{named}` in: {text}");
    }

    produce_sentences(INPUT, second).await;
    let streams = dekaf_streams::KafkaStreams::builder(ConfiguredToDekaf)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .state_dir(state.path().join("dekaf"))
        .replication_factor(1)
        .internal_topic_config("min.insync.replicas", "1")
        .internal_topic_config("segment.bytes", "104857600")
        .build()
        .expect("valid settings");
    let dekaf = InProcess::run(streams);
    let expected = expected_counts(&all);
    read_until_counts(&mut reader, &expected, "dekaf-streams, second half").await;
    dekaf.stop().await.expect("dekaf-streams ran without error");
    assert_exact(reader, &expected).await;
}
