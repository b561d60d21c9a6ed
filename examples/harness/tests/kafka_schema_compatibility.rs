//! The start-up schema check on a real broker and a real registry: before an instance processes
//! anything, each registry serde's schema must be compatible with the versions registered under
//! its subject, under the subject's compatibility mode.
//!
//! - A version 2 that adds a field without a default, under `BACKWARD`, stops the application
//!   at start with the subject, the version, the mode and the field, and nothing is written.
//! - The same change with a default starts, and writes records the registry accepted.
//! - A registry that cannot be reached at start is waited for (logged, asked again), never a
//!   crash, and a shutdown meanwhile is clean.
//!
//! The types are bound to `.avsc` files (`tests/schemas/`) by `#[derive(Avsc)]`, so the schemas
//! compared are the files. Needs a broker at `DEKAF_BOOTSTRAP` and a registry at
//! `DEKAF_REGISTRY_URL` (`scripts/registry.sh start`).

use std::time::Duration;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::StreamsError;
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{Avro, Avsc, RegistryConfig, SchemaRegistry, SchemaText};
use dekaf_streams_harness::e2e::{InProcess, fresh};
use dekaf_streams_harness::java_interop::registry_url;
use dekaf_streams_harness::kafka_io::{bootstrap, off_workers, produce, read_all};
use serde::{Deserialize, Serialize};

/// Version 2 without a default for `region`.
#[derive(Debug, Clone, Serialize, Deserialize, Avsc)]
#[avsc(file = "schemas/count_v2_required.avsc")]
pub struct CountRequired {
    word: String,
    count: i64,
    region: String,
}

/// Version 2 with a default for `region`.
#[derive(Debug, Clone, Serialize, Deserialize, Avsc)]
#[avsc(file = "schemas/count_v2_default.avsc")]
pub struct CountDefault {
    word: String,
    count: i64,
    region: String,
}

topology! {
    /// Writes each word with its length as count, in the careless version 2.
    pub Careless = "compat-careless" {
        stream("compat-careless-in", Utf8, Utf8)
            .map(|k, word| (k, CountRequired { count: word.len() as i64, word, region: "us".into() }))
            .to("compat-careless-out", Utf8, Avro::<CountRequired>);
    }
}

topology! {
    /// The same with the compatible version 2.
    pub Careful = "compat-careful" {
        stream("compat-careful-in", Utf8, Utf8)
            .map(|k, word| (k, CountDefault { count: word.len() as i64, word, region: "us".into() }))
            .to("compat-careful-out", Utf8, Avro::<CountDefault>);
    }
}

topology! {
    /// Reads and writes through a registry that is not there.
    pub Unreachable = "compat-unreachable" {
        stream("compat-unreachable-in", Utf8, Utf8)
            .map(|k, word| (k, CountDefault { count: 0, word, region: "eu".into() }))
            .to("compat-unreachable-out", Utf8, Avro::<CountDefault>);
    }
}

const V1: &str = include_str!("schemas/count_v1.avsc");

/// `subject` afresh with version 1 of the schema and compatibility `BACKWARD` (Apicurio's
/// default is `NONE`).
async fn subject_with_v1(registry: &SchemaRegistry, subject: &str) {
    let (registry, subject) = (registry.clone(), subject.to_owned());
    off_workers(move || {
        let client = registry.client();
        client.delete_subject(&subject)?;
        client.register(&subject, &SchemaText::avro(V1))?;
        client.set_compatibility(&subject, "BACKWARD")
    })
    .await
    .expect("the registry takes version 1");
}

/// Application `app`'s topics `<app>-in` and `<app>-out` afresh, its output subject with version
/// 1 under `BACKWARD`, and `words` (key, value) in its input: the broker and the registry.
async fn prepare(app: &str, words: &[(&str, &str)]) -> (String, SchemaRegistry) {
    let servers = bootstrap();
    let (input, output) = (format!("{app}-in"), format!("{app}-out"));
    fresh(&servers, app, &[(&input, 1), (&output, 1)]).await;
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    subject_with_v1(&registry, &format!("{output}-value")).await;
    let records = words
        .iter()
        .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes())));
    produce(&servers, &input, records).await.expect("produce");
    (servers, registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incompatible_registered_schema_stops_the_application_at_start() {
    let (servers, registry) = prepare("compat-careless", &[("k", "hello")]).await;

    let streams = dekaf_streams::KafkaStreams::builder(Careless)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .serde_state(registry)
        .build()
        .expect("valid settings");
    let result = InProcess::run(streams)
        .finished(Duration::from_secs(120))
        .await
        .expect("the application stops by itself");
    let Err(StreamsError::SerdeCheck { reason }) = result else {
        panic!("expected the start-up schema check to stop the application, got {result:?}");
    };
    for part in [
        "topic compat-careless-out",
        "version 1",
        "subject compat-careless-out-value",
        "BACKWARD",
        "first incompatible field `region`",
    ] {
        assert!(reason.contains(part), "`{part}` not in: {reason}");
    }
    // Nothing was processed: the output topic is empty.
    let written = read_all(
        &servers,
        "compat-careless-out",
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .await
    .expect("read the output");
    assert!(written.is_empty(), "{written:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compatible_schema_starts_and_writes() {
    let (servers, registry) = prepare("compat-careful", &[("k1", "hello"), ("k2", "avro")]).await;

    let streams = dekaf_streams::KafkaStreams::builder(Careful)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .serde_state(registry.clone())
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    let mut written = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while written.len() < 2 && tokio::time::Instant::now() < deadline {
        written = read_all(
            &servers,
            "compat-careful-out",
            Duration::from_secs(1),
            Duration::from_secs(5),
        )
        .await
        .expect("read the output");
    }
    app.stop().await.expect("clean stop");
    assert_eq!(written.len(), 2, "{written:?}");
    // Registered as version 2 of the subject, whose id every record carries.
    let latest = off_workers(move || registry.client().latest("compat-careful-out-value"))
        .await
        .expect("the subject's latest version");
    assert_eq!(latest.version, Some(2));
    for record in &written {
        let value = record.value.as_deref().expect("a value");
        assert_eq!(value[0], 0, "magic byte");
        assert_eq!(
            u32::from_be_bytes(value[1..5].try_into().unwrap()),
            latest.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registry_down_at_start_is_waited_for() {
    let servers = bootstrap();
    fresh(
        &servers,
        "compat-unreachable",
        &[("compat-unreachable-in", 1), ("compat-unreachable-out", 1)],
    )
    .await;
    // Nothing listens on port 9 of this host.
    let registry = SchemaRegistry::new(
        RegistryConfig::new("http://127.0.0.1:9/apis/ccompat/v7")
            .retry_for(Duration::from_millis(300)),
    );
    let streams = dekaf_streams::KafkaStreams::builder(Unreachable)
        .bootstrap_servers(&servers)
        .serde_state(registry.clone())
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    // The check asks again and again (each round retried for 300 ms by the client).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while registry.client().requests() < 6 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the start-up check stopped asking the registry: {} requests",
            registry.client().requests()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Still running (waiting), and it stops cleanly.
    app.stop().await.expect("a clean stop while waiting");
}
