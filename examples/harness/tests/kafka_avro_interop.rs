//! Avro interoperability on a real broker and a real schema registry, with an independent writer
//! and reader: a Java producer using Apicurio's Kafka serdes (`apicurio-registry-avro-serde-kafka`
//! 3.1.7, Confluent-compatible framing) writes Avro sentences with schema version 1, the
//! `AvroWordCount` topology reads them (fetching the writer's schema by its id and resolving it
//! against its own version 2) and writes Avro counts, and the Java deserializer reads those back.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (`scripts/kafka.sh start`), a registry at
//! `DEKAF_REGISTRY_URL` (`scripts/registry.sh start`; default
//! `http://127.0.0.1:8480/apis/ccompat/v7`), and `java` (17+) with `mvn`: the Java side is
//! `runtime/tests/java-avro`, its jars resolved once into Cargo's target directory. Without Java
//! or Maven the test is skipped with a message, except under `CI=true`, where it fails.

use std::collections::BTreeSet;
use std::path::Path;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
use dekaf_streams_examples::avro_words::AvroWordCount;
use dekaf_streams_harness::e2e::{InProcess, fresh};
use dekaf_streams_harness::java_interop::{java_side, native_registry_url, registry_url};
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers};

const MAIN: &str = "src/main/java/dev/dekaf/avro/AvroInterop.java";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_writer_dekaf_word_count_java_reader() {
    let Some(java) = java_side("java-avro", Path::new(env!("CARGO_TARGET_TMPDIR"))) else {
        return;
    };
    let servers = bootstrap();
    fresh(
        &servers,
        "avro-wc",
        &[("avro-wc-sentences", 1), ("avro-wc-counts", 1)],
    )
    .await;
    // Apicurio's own API, which its Java serdes use.
    let native = native_registry_url();
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    for subject in ["avro-wc-sentences-value", "avro-wc-counts-value"] {
        let (registry, subject) = (registry.clone(), subject.to_owned());
        off_workers(move || registry.client().set_compatibility(&subject, "BACKWARD"))
            .await
            .expect("set BACKWARD (Apicurio's default is NONE)");
    }

    let (j, s, n) = (java.clone(), servers.clone(), native.clone());
    let produced = off_workers(move || {
        j.run(
            MAIN,
            &["produce", &s, &n, "avro-wc-sentences", "a b a", "b c"],
        )
    })
    .await;
    assert!(produced.contains("produced 2"), "{produced}");

    let streams = dekaf_streams::KafkaStreams::builder(AvroWordCount)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .serde_state(registry.clone())
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    // The Java reader waits (up to 120 s) for the 5 counts: a1 b1 a2 b2 c1.
    let (j, s) = (java.clone(), servers.clone());
    let consumed = off_workers(move || {
        j.run(
            MAIN,
            &["consume", &s, &native, "avro-wc-counts", "5", "120000"],
        )
    })
    .await;
    app.stop().await.expect("clean stop");
    let lines: BTreeSet<&str> = consumed.lines().collect();
    let expected: BTreeSet<String> = [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("c", 1)]
        .iter()
        .map(|(w, c)| format!(r#"key={w} value={{"word": "{w}", "count": {c}}}"#))
        .collect();
    assert_eq!(
        lines,
        expected.iter().map(String::as_str).collect(),
        "the Java deserializer reads exactly our 5 counts"
    );
    assert_eq!(consumed.lines().count(), 5, "exactly once: {consumed}");
}
