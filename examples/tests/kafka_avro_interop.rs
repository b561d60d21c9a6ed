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
use std::path::{Path, PathBuf};
use std::process::Command;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
use dekaf_streams_examples::avro_words::AvroWordCount;
use dekaf_streams_examples::e2e::{InProcess, fresh};
use dekaf_streams_examples::kafka_io::{bootstrap, off_workers};

fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The Java project and its jars, resolved with Maven once (every repository through Maven
/// Central: the serde's parent POM names one that cannot be reached).
fn java_side() -> Option<(PathBuf, PathBuf)> {
    if !(runs("java", "-version") && runs("mvn", "-v")) {
        let reason = "java and mvn are needed for the Java side of the Avro interoperability test";
        assert!(!in_ci(), "{reason} (CI=true: not skipping)");
        eprintln!("skipped: {reason}");
        return None;
    }
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../runtime/tests/java-avro");
    let lib = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("java-avro-lib");
    if !lib.join(".complete").exists() {
        let out = Command::new("mvn")
            .args(["-B", "-q", "-s"])
            .arg(project.join("settings.xml"))
            .arg("-f")
            .arg(project.join("pom.xml"))
            .arg("org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies")
            .arg("-DincludeScope=runtime")
            .arg(format!("-DoutputDirectory={}", lib.display()))
            .output()
            .expect("run mvn");
        assert!(
            out.status.success(),
            "mvn could not resolve Apicurio's serdes: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(lib.join(".complete"), b"").expect("mark the jars resolved");
    }
    Some((project, lib))
}

/// Runs `AvroInterop.java` with `args`: its standard output, or a panic with what it said.
fn java(project: &Path, lib: &Path, args: &[&str]) -> String {
    let out = Command::new("java")
        .arg("-cp")
        .arg(format!("{}/*", lib.display()))
        .arg(project.join("src/main/java/dev/dekaf/avro/AvroInterop.java"))
        .args(args)
        .output()
        .expect("run java");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "AvroInterop {args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_writer_dekaf_word_count_java_reader() {
    let Some((project, lib)) = java_side() else {
        return;
    };
    let servers = bootstrap();
    fresh(
        &servers,
        "avro-wc",
        &[("avro-wc-sentences", 1), ("avro-wc-counts", 1)],
    )
    .await;
    let ccompat = registry_url();
    // Apicurio's own API, which its Java serdes use.
    let native = ccompat.replace("/apis/ccompat/v7", "/apis/registry/v3");
    let registry = SchemaRegistry::new(RegistryConfig::new(&ccompat));
    for subject in ["avro-wc-sentences-value", "avro-wc-counts-value"] {
        let (registry, subject) = (registry.clone(), subject.to_owned());
        off_workers(move || registry.client().set_compatibility(&subject, "BACKWARD"))
            .await
            .expect("set BACKWARD (Apicurio's default is NONE)");
    }

    let (p, l, s) = (project.clone(), lib.clone(), servers.clone());
    let n = native.clone();
    let produced = off_workers(move || {
        java(
            &p,
            &l,
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
    let (p, l, s) = (project.clone(), lib.clone(), servers.clone());
    let consumed = off_workers(move || {
        java(
            &p,
            &l,
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
