//! Taking over a running Kafka Streams 4.4 application with Avro serdes in place, and handing it
//! back, exactly once (the takeover path of the README's "Migrating from Kafka Streams").
//!
//! The Java side (`examples/harness/java/kstreams-avro`) is a word count over Avro records with
//! Apicurio's Kafka serdes in Confluent-compatible framing: `dekaf.it.Sentence` values in,
//! `dekaf.it.WordCount` values out, a `groupBy` without `Grouped.as` and a
//! `count(Materialized.as("counts"))`, streams protocol, exactly-once, no record cache. Its input
//! is written by a Java producer with Apicurio's serializer: the first third with schema version
//! 1 (`{text}`), the rest with version 2 (`{text, lang}`).
//!
//! Kafka Streams counts the first third and stops; the dekaf-streams word count compiled with the
//! same names (`Avro::<Sentence>` in, `Avro::<WordCount>` out, a `SchemaRegistry` as serde state)
//! starts under the same application id and counts the second third, restoring the counts from
//! Kafka Streams' changelog and continuing from its committed offsets; then Kafka Streams starts
//! again on its old state directory and counts the last third after what we wrote.
//!
//! An independent read_committed reader decodes the output's Confluent framing with the writers'
//! schemas fetched from the registry by id (`dekaf_streams_harness::avro_io`, not our serdes),
//! and checks every word's counts across both switches: exactly `1, 2, …, n`, `n` its count in
//! the whole input (neither side caches, so every update is written; a duplicate, a lost update
//! or a restart from zero shows).
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (`scripts/kafka.sh start`), a registry at
//! `DEKAF_REGISTRY_URL` (`scripts/registry.sh start`; default
//! `http://127.0.0.1:8480/apis/ccompat/v7`), and `java` (17+) with `mvn`: the Java side's jars
//! (kafka-streams 4.4.0, Apicurio's serde 3.1.7) are resolved once into Cargo's target directory.
//! Without Java or Maven the test is skipped with a message, except under `CI=true`, where it
//! fails.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{Avro, RegistryConfig, SchemaRegistry};
use dekaf_streams_examples::avro_words::{Sentence, WordCount};
use dekaf_streams_harness::avro_io::AvroDecoder;
use dekaf_streams_harness::e2e::{
    InProcess, Reader, counts_reached, exactly_once_problems, expected_counts, fresh, sentences,
};
use dekaf_streams_harness::java_interop::{
    JavaSide, harness_java_side, native_registry_url, registry_url,
};
use dekaf_streams_harness::kafka_io::{ReadRecord, bootstrap, off_workers};

const APP: &str = "e2e-avro-takeover";
const INPUT: &str = "e2e-avro-takeover-sentences";
const OUTPUT: &str = "e2e-avro-takeover-counts";
const PARTITIONS: i32 = 4;
const THIRD: usize = 600;
const DEADLINE: Duration = Duration::from_secs(180);
const MAIN: &str = "src/main/java/dev/dekaf/avro/KStreamsAvro.java";

topology! {
    /// The Java word count of `examples/harness/java/kstreams-avro`, under the names it uses:
    /// repartition topic `e2e-avro-takeover-counts-repartition`, store `counts`.
    pub AvroTakeover = "e2e-avro-takeover" {
        stream("e2e-avro-takeover-sentences", Utf8, Avro::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("e2e-avro-takeover-counts", Utf8, Avro::<WordCount>);
    }
}

/// Writes `batch` to the input with Apicurio's Java serializer and Sentence schema `version`.
async fn produce(java: &JavaSide, batch: &[String], version: u8, key_prefix: &str) {
    let (java, input) = (java.clone(), batch.join("\n"));
    let args = [
        "produce".to_owned(),
        bootstrap(),
        native_registry_url(),
        INPUT.to_owned(),
        version.to_string(),
        key_prefix.to_owned(),
    ];
    let out = off_workers(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        java.run_with_input(MAIN, &args, &input)
    })
    .await;
    assert!(
        out.contains(&format!("produced {}", batch.len())),
        "the Java producer: {out}"
    );
}

/// The Kafka Streams word count as a child process, killed if the test ends without stopping it.
struct KafkaStreamsApp {
    child: Option<Child>,
    log: PathBuf,
}

impl KafkaStreamsApp {
    /// Starts it on `state_dir`, its output in `log`.
    fn start(java: &JavaSide, state_dir: &Path, log: PathBuf) -> KafkaStreamsApp {
        std::fs::create_dir_all(state_dir).expect("the Kafka Streams state dir");
        eprintln!("Kafka Streams' log: {}", log.display());
        let state_dir = state_dir.to_string_lossy();
        let (servers, native) = (bootstrap(), native_registry_url());
        let args = ["streams", &servers, &native, APP, INPUT, OUTPUT, &state_dir];
        KafkaStreamsApp {
            child: Some(java.spawn(MAIN, &args, &log)),
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `Err` with its log's end when it has exited or failed.
    fn alive(&mut self) -> Result<(), String> {
        let child = self.child.as_mut().expect("running");
        let exited = child.try_wait().expect("waiting for java");
        let log = self.log();
        if exited.is_some() || log.contains("-> ERROR") {
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "Kafka Streams failed ({exited:?}); its log ends:\n{}",
                tail.join("\n")
            ));
        }
        Ok(())
    }

    /// Stops it cleanly (SIGTERM: its shutdown hook closes the application, which commits), waits
    /// for it to exit, and checks that it closed without an error.
    async fn stop(mut self) {
        let mut child = self.child.take().expect("running");
        off_workers(move || {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let started = Instant::now();
            while child.try_wait().expect("waiting for java").is_none() {
                if started.elapsed() > Duration::from_secs(60) {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("Kafka Streams did not stop within 60 s of SIGTERM");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
        .await;
        let log = self.log();
        assert!(
            log.contains("PENDING_SHUTDOWN -> NOT_RUNNING") && !log.contains("-> ERROR"),
            "Kafka Streams did not close cleanly: see {}",
            self.log.display()
        );
    }
}

impl Drop for KafkaStreamsApp {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The output as an independent read_committed reader decodes it: the counts per word (as the
/// count topics of the other end-to-end tests: UTF-8 word, 8-byte count) and the schema ids seen.
struct AvroCounts {
    reader: Reader,
    /// `None` only while it decodes on the blocking pool.
    decoder: Option<AvroDecoder>,
    records: Vec<ReadRecord>,
    schema_ids: BTreeSet<u32>,
}

impl AvroCounts {
    async fn new(registry: SchemaRegistry) -> AvroCounts {
        AvroCounts {
            reader: Reader::new(&bootstrap(), OUTPUT).await,
            decoder: Some(AvroDecoder::new(registry)),
            records: Vec::new(),
            schema_ids: BTreeSet::new(),
        }
    }

    /// Reads for a quarter second and decodes what came; panics on a record that is not a word
    /// count keyed by its word.
    async fn read_round(&mut self) {
        self.reader.read_until(Duration::ZERO, |_| true).await;
        let new = self.reader.records[self.records.len()..].to_vec();
        let mut decoder = self.decoder.take().expect("the decoder");
        let (decoder, decoded) = off_workers(move || {
            let decoded = decoder.word_counts(&new);
            (decoder, decoded)
        })
        .await;
        self.decoder = Some(decoder);
        for (id, record) in decoded.unwrap_or_else(|e| panic!("the output: {e}")) {
            self.schema_ids.insert(id);
            self.records.push(record);
        }
    }

    /// Reads until every word of `expected` reached its count; panics at the deadline or when
    /// `alive` says the application failed.
    async fn until_counts(
        &mut self,
        expected: &HashMap<String, i64>,
        what: &str,
        mut alive: impl FnMut() -> Result<(), String>,
    ) {
        let started = Instant::now();
        loop {
            self.read_round().await;
            if counts_reached(&self.records, expected) {
                eprintln!(
                    "{what}: counts reached after {:?} ({} updates so far, schema ids {:?})",
                    started.elapsed(),
                    self.records.len(),
                    self.schema_ids
                );
                return;
            }
            if let Err(e) = alive() {
                panic!("{what}: {e}");
            }
            if started.elapsed() > DEADLINE {
                let problems = exactly_once_problems(&self.records, expected);
                panic!(
                    "{what}: the counts were not reached within {DEADLINE:?}; {} words differ: {:#?}",
                    problems.len(),
                    &problems[..problems.len().min(10)]
                );
            }
        }
    }

    /// Reads for `quiet` more, to see whether anything else arrives.
    async fn drain(&mut self, quiet: Duration) {
        let started = Instant::now();
        while started.elapsed() < quiet {
            self.read_round().await;
        }
    }
}

/// A state directory of this test run, deleted when dropped unless the test failed (it holds
/// Kafka Streams' logs).
struct StateDir(PathBuf);

impl StateDir {
    fn new() -> StateDir {
        let dir = std::env::temp_dir().join(format!("dekaf-{APP}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the test's state dir");
        StateDir(dir)
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_avro_kafka_streams_word_count_is_taken_over_and_handed_back_exactly_once() {
    let jars = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let Some(java) = off_workers(|| harness_java_side("kstreams-avro", jars)).await else {
        return;
    };
    fresh(
        &bootstrap(),
        APP,
        &[(INPUT, PARTITIONS), (OUTPUT, PARTITIONS)],
    )
    .await;
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    for topic in [INPUT, OUTPUT] {
        let (registry, subject) = (registry.clone(), format!("{topic}-value"));
        off_workers(move || registry.client().set_compatibility(&subject, "BACKWARD"))
            .await
            .expect("set BACKWARD (Apicurio's default is NONE)");
    }
    let state = StateDir::new();
    let all = sentences(3 * THIRD, 40, 29);
    let (first, rest) = all.split_at(THIRD);
    let (second, third) = rest.split_at(THIRD);
    let mut output = AvroCounts::new(registry.clone()).await;

    // Kafka Streams counts the first third.
    produce(&java, first, 1, "a").await;
    let kstreams_dir = state.0.join("kstreams");
    let mut kstreams = KafkaStreamsApp::start(&java, &kstreams_dir, state.0.join("kstreams-1.log"));
    output
        .until_counts(
            &expected_counts(first),
            "Kafka Streams, first third",
            || kstreams.alive(),
        )
        .await;
    kstreams.stop().await;

    // dekaf-streams takes over and counts the second.
    produce(&java, second, 2, "b").await;
    let streams = dekaf_streams::KafkaStreams::builder(AvroTakeover)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .state_dir(state.0.join("dekaf"))
        .serde_state(registry.clone())
        .build()
        .expect("valid settings");
    let dekaf = InProcess::run(streams);
    output
        .until_counts(
            &expected_counts(&all[..2 * THIRD]),
            "dekaf-streams, second third",
            || {
                if dekaf.is_finished() {
                    Err("dekaf-streams stopped by itself (its log above says why)".into())
                } else {
                    Ok(())
                }
            },
        )
        .await;
    dekaf.stop().await.expect("dekaf-streams ran without error");

    // Kafka Streams takes it back, on its old state directory, and counts the last third.
    produce(&java, third, 2, "c").await;
    let mut kstreams = KafkaStreamsApp::start(&java, &kstreams_dir, state.0.join("kstreams-3.log"));
    let expected = expected_counts(&all);
    output
        .until_counts(&expected, "Kafka Streams, last third", || kstreams.alive())
        .await;
    kstreams.stop().await;

    output.drain(Duration::from_secs(2)).await;
    let problems = exactly_once_problems(&output.records, &expected);
    assert!(
        problems.is_empty(),
        "the output across both switches is not exactly once ({} of {} words): {problems:#?}",
        problems.len(),
        expected.len()
    );
}
