//! JSON Schema interoperability on a real broker and a real schema registry, with an independent
//! writer and reader: the sentences' schema (schemars' derivation of the Rust type) is registered
//! first, a Java producer using Apicurio's Kafka serdes (`apicurio-registry-jsonschema-serde-kafka`
//! 3.1.7, Confluent framing, validation on) writes sentences under it, the `JsonWordCount`
//! topology reads and validates them and writes counts, and the Java deserializer reads and
//! validates those back.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (`scripts/kafka.sh start`), a registry at
//! `DEKAF_REGISTRY_URL` (`scripts/registry.sh start`), and `java` (17+) with `mvn`: the Java side
//! is `runtime/tests/java-formats`, its jars resolved once into Cargo's target directory.

use std::collections::BTreeSet;
use std::path::Path;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry, SchemaText};
use dekaf_streams_examples::json_words::{JsonWordCount, Sentence};
use dekaf_streams_harness::e2e::{InProcess, fresh};
use dekaf_streams_harness::java_interop::{java_side, native_registry_url, registry_url};
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers};

const MAIN: &str = "src/main/java/dev/dekaf/formats/FormatsInterop.java";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_writer_dekaf_word_count_java_reader() {
    let Some(java) = java_side("java-formats", Path::new(env!("CARGO_TARGET_TMPDIR"))) else {
        return;
    };
    let servers = bootstrap();
    fresh(
        &servers,
        "json-wc",
        &[("json-wc-sentences", 1), ("json-wc-counts", 1)],
    )
    .await;
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    let native = native_registry_url();
    // The Java producer writes with the subject's latest schema: ours, derived from Sentence.
    let schema = serde_json::to_string(
        &schemars::generate::SchemaSettings::draft07()
            .into_generator()
            .into_root_schema_for::<Sentence>(),
    )
    .expect("a schema prints");
    let client = registry.clone();
    off_workers(move || {
        client.client().register(
            "json-wc-sentences-value",
            &SchemaText {
                schema: &schema,
                schema_type: "JSON",
                references: &[],
            },
        )
    })
    .await
    .expect("register the sentences' schema");

    let (j, s, n) = (java.clone(), servers.clone(), native.clone());
    let produced = off_workers(move || {
        j.run(
            MAIN,
            &[
                "produce",
                "json",
                &s,
                &n,
                "json-wc-sentences",
                "a b a",
                "b c",
            ],
        )
    })
    .await;
    assert!(produced.contains("produced 2"), "{produced}");

    let streams = dekaf_streams::KafkaStreams::builder(JsonWordCount)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .serde_state(registry)
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    let (j, s) = (java.clone(), servers.clone());
    let consumed = off_workers(move || {
        j.run(
            MAIN,
            &[
                "consume",
                "json",
                &s,
                &native,
                "json-wc-counts",
                "5",
                "120000",
            ],
        )
    })
    .await;
    app.stop().await.expect("clean stop");
    let lines: BTreeSet<&str> = consumed.lines().collect();
    let expected: BTreeSet<String> = [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("c", 1)]
        .iter()
        .map(|(w, c)| format!(r#"key={w} value={{"word":"{w}","count":{c}}}"#))
        .collect();
    assert_eq!(
        lines,
        expected.iter().map(String::as_str).collect(),
        "the Java deserializer reads exactly our 5 counts"
    );
    assert_eq!(consumed.lines().count(), 5, "exactly once: {consumed}");
}
