//! Avro serdes against a real schema registry (Apicurio's Confluent API, `scripts/registry.sh`;
//! `DEKAF_REGISTRY_URL`, default `http://127.0.0.1:8480/apis/ccompat/v7`), run by the
//! TestDriver: no broker needed. A registry that does not answer fails the tests (never skips).
//!
//! Each test uses its own topics, so its own subjects.

use apache_avro::types::Value;
use apache_avro::{AvroSchema, Schema};
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{
    Avro, AvroGeneric, RegistryConfig, SchemaChoice, SchemaRegistry, SchemaText,
    SubjectNameStrategy, wire,
};
use dekaf_streams::serdes::{SerdeContext, SerdeError};
use dekaf_streams::testing::{RawRecord, TestDriver, TestError};
use serde::{Deserialize, Serialize};

fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

/// A registry client for `url`, after checking that the registry answers.
fn registry(config: RegistryConfig) -> SchemaRegistry {
    let registry = SchemaRegistry::new(config);
    if let Err(e) = registry.client().latest("dekaf-it-probe") {
        assert!(
            e.is_not_found(),
            "no schema registry answers at {} (start one with scripts/registry.sh start): {e}",
            registry_url()
        );
    }
    registry
}

fn default_registry() -> SchemaRegistry {
    registry(RegistryConfig::new(registry_url()))
}

/// A sentence, version 2: `lang` was added with a default, so records of version 1 read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dekaf.it")]
struct Sentence {
    text: String,
    #[avro(default = r#""en""#)]
    lang: String,
}

const SENTENCE_V1: &str = r#"{"type":"record","name":"Sentence","namespace":"dekaf.it","fields":[{"name":"text","type":"string"}]}"#;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dekaf.it")]
struct WordCount {
    word: String,
    count: i64,
}

/// The schema of [`Sentence`], for the generic serde.
struct SentenceSchema;

impl AvroSchema for SentenceSchema {
    fn get_schema() -> Schema {
        Sentence::get_schema()
    }
}

topology! {
    /// Word count, Avro in and out.
    pub AvroWords = "avro-it-words" {
        stream("avro-it-sentences", Utf8, Avro::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("avro-it-counts", Utf8, Avro::<WordCount>);
    }
}

topology! {
    /// Reads sentences of any compatible schema version.
    pub Evolution = "avro-it-evolution" {
        stream("avro-it-evolution-in", Utf8, Avro::<Sentence>)
            .map_values(|s| format!("{}:{}", s.lang, s.text))
            .to("avro-it-evolution-out", Utf8, Utf8);
    }
}

topology! {
    /// Counts the fields of generic records.
    pub Generic = "avro-it-generic" {
        stream("avro-it-generic-in", Utf8, AvroGeneric::<SentenceSchema>)
            .map_values(|v| match v {
                Value::Record(fields) => fields.len() as i64,
                _ => -1,
            })
            .to("avro-it-generic-out", Utf8, I64);
    }
}

topology! {
    /// Sends records that do not read to a dead-letter topic.
    pub DeadLetters = "avro-it-dead" {
        on_error(|e| match e.kind {
            ErrorKind::ValueDeserialization => ErrorResponse::DeadLetter("avro-it-dead-letters"),
            _ => ErrorResponse::Fail,
        });
        stream("avro-it-dead-in", Utf8, Avro::<Sentence>)
            .map_values(|s| s.text)
            .to("avro-it-dead-out", Utf8, Utf8);
    }
}

topology! {
    /// Fails on records that do not read.
    pub Strict = "avro-it-strict" {
        stream("avro-it-strict-in", Utf8, Avro::<Sentence>)
            .map_values(|s| s.text)
            .to("avro-it-strict-out", Utf8, Utf8);
    }
}

fn sentence(text: &str) -> Sentence {
    Sentence {
        text: text.to_owned(),
        lang: "fr".to_owned(),
    }
}

/// Avro records in, Avro records out, through the registry: the output is framed with the id
/// the registry gave the subject `<topic>-value`, and once warm no record makes a request.
#[test]
fn word_count_in_avro_with_cached_ids() {
    let registry = default_registry();
    let driver = TestDriver::<AvroWords>::builder()
        .serde_state(registry.clone())
        .build();
    let input = driver.input_topic(AvroWords::AVRO_IT_SENTENCES);
    let output = driver.output_topic(AvroWords::AVRO_IT_COUNTS);
    input.pipe_input("k".into(), sentence("a b a"));
    let counts: Vec<WordCount> = output.read_values_to_list();
    assert_eq!(
        counts,
        [("a", 1), ("b", 1), ("a", 2)].map(|(w, c)| WordCount {
            word: w.into(),
            count: c
        })
    );
    // Warm: the ids of both subjects and the schema of the input's id are cached.
    let warm = registry.client().requests();
    for _ in 0..100 {
        input.pipe_input("k".into(), sentence("a b"));
    }
    assert_eq!(output.read_values_to_list().len(), 200);
    assert_eq!(
        registry.client().requests(),
        warm,
        "no registry request per record once warm"
    );
    // The output's bytes: magic byte 0, the id registered for avro-it-counts-value.
    let id = registry
        .client()
        .latest("avro-it-counts-value")
        .expect("the sink registered its schema")
        .id;
    input.pipe_input("k".into(), sentence("z"));
    let raw = driver
        .output_topic(TopicRef::<String, Vec<u8>>::new::<Utf8, Bytes>(
            "avro-it-counts",
        ))
        .read_values_to_list();
    let mut header = Vec::new();
    wire::write_header(id, &mut header);
    assert_eq!(raw.len(), 1);
    assert_eq!(raw[0][..5], header[..]);
}

/// A record written with version 1 of the schema (another client, an id we have not seen) is
/// read by fetching that schema and resolving it against ours: `lang` gets its default.
#[test]
fn older_writer_schema_is_resolved() {
    let registry = default_registry();
    let client = registry.client();
    client
        .set_compatibility("avro-it-evolution-in-value", "BACKWARD")
        .expect("compatibility");
    let v1_id = client
        .register("avro-it-evolution-in-value", &SchemaText::avro(SENTENCE_V1))
        .expect("register v1");
    let v1 = Schema::parse_str(SENTENCE_V1).expect("v1 parses");
    let mut record = apache_avro::types::Record::new(&v1).expect("a record schema");
    record.put("text", "bonjour");
    let datum = apache_avro::writer::datum::GenericDatumWriter::builder(&v1)
        .build()
        .expect("writer")
        .write_value_to_vec(record)
        .expect("encode");
    let mut bytes = Vec::new();
    wire::write_header(v1_id, &mut bytes);
    bytes.extend_from_slice(&datum);

    let driver = TestDriver::<Evolution>::builder()
        .serde_state(registry.clone())
        .build();
    driver
        .try_pipe_raw(
            "avro-it-evolution-in",
            RawRecord {
                key: Some(b"k".to_vec()),
                value: Some(bytes),
                timestamp: 1,
                headers: Headers::new(),
            },
        )
        .expect("a v1 record reads as v2");
    // Our own (v2) records read too; registering v2 passes the BACKWARD check.
    driver
        .input_topic(Evolution::AVRO_IT_EVOLUTION_IN)
        .pipe_input("k".into(), sentence("salut"));
    assert_eq!(
        driver
            .output_topic(Evolution::AVRO_IT_EVOLUTION_OUT)
            .read_values_to_list(),
        ["en:bonjour", "fr:salut"]
    );
}

/// The generic form reads records into `apache_avro::types::Value`.
#[test]
fn generic_values() {
    let driver = TestDriver::<Generic>::builder()
        .serde_state(default_registry())
        .build();
    let input = driver.input_topic(Generic::AVRO_IT_GENERIC_IN);
    input.pipe_input(
        "k".into(),
        Value::Record(vec![
            ("text".into(), Value::String("x".into())),
            ("lang".into(), Value::String("de".into())),
        ]),
    );
    assert_eq!(
        driver
            .output_topic(Generic::AVRO_IT_GENERIC_OUT)
            .read_values_to_list(),
        [2]
    );
}

fn raw(value: Vec<u8>) -> RawRecord {
    RawRecord {
        key: Some(b"k".to_vec()),
        value: Some(value),
        timestamp: 1,
        headers: Headers::new(),
    }
}

/// Bad bytes are errors of the record, named by schema id, that the error handler sees: here
/// they go to the dead-letter topic as they were, and the good record after them goes through.
#[test]
fn bad_bytes_go_to_the_error_handler() {
    let driver = TestDriver::<DeadLetters>::builder()
        .serde_state(default_registry())
        .build();
    // Wrong magic byte, an id the registry does not have, bytes that do not decode.
    for bad in [
        vec![1, 0, 0, 0, 1, 2],
        vec![0, 0x7f, 0xff, 0xff, 0x01, 2],
        vec![0, 0, 0, 0, 0],
    ] {
        driver
            .try_pipe_raw("avro-it-dead-in", raw(bad))
            .expect("dead-lettered");
    }
    driver
        .input_topic(DeadLetters::AVRO_IT_DEAD_IN)
        .pipe_input("k".into(), sentence("fine"));
    assert_eq!(
        driver
            .output_topic(DeadLetters::AVRO_IT_DEAD_OUT)
            .read_values_to_list(),
        ["fine"]
    );
    let dead = driver.output_topic(TopicRef::<String, Vec<u8>>::new::<Utf8, Bytes>(
        "avro-it-dead-letters",
    ));
    assert_eq!(dead.read_values_to_list().len(), 3);

    // With the default handler (fail), the error names the schema id.
    let strict = TestDriver::<Strict>::builder()
        .serde_state(default_registry())
        .build();
    let unknown = strict
        .try_pipe_raw("avro-it-strict-in", raw(vec![0, 0x7f, 0xff, 0xff, 0x01, 2]))
        .expect_err("an unknown id fails");
    let message = unknown.to_string();
    assert!(
        message.contains("schema id 2147483393") && message.contains("unknown schema id"),
        "{message}"
    );
    let magic = strict
        .try_pipe_raw("avro-it-strict-in", raw(vec![7, 0, 0, 0, 1]))
        .expect_err("a wrong magic byte fails");
    assert!(magic.to_string().contains("magic byte 7"), "{magic}");
}

/// A registry that cannot be reached is retried (a log line each time), then the record fails
/// with an error naming it: no panic.
#[test]
fn unreachable_registry_is_an_error_not_a_panic() {
    let registry = SchemaRegistry::new(
        RegistryConfig::new("http://127.0.0.1:1/apis/ccompat/v7")
            .retry_for(std::time::Duration::from_millis(500)),
    );
    let driver = TestDriver::<Strict>::builder()
        .serde_state(registry.clone())
        .build();
    let mut bytes = Vec::new();
    wire::write_header(1, &mut bytes);
    let error = driver
        .try_pipe_raw("avro-it-strict-in", raw(bytes))
        .expect_err("no registry");
    assert!(
        matches!(&error, TestError::Task(_)) && error.to_string().contains("could not be reached"),
        "{error}"
    );
    assert!(registry.client().requests() >= 2, "retried");
}

/// The state is per instance: a driver without a registry fails with an error saying so, while
/// one with a registry works, in the same process and thread.
#[test]
fn state_is_per_instance() {
    let with = TestDriver::<Strict>::builder()
        .serde_state(default_registry())
        .build();
    let without = TestDriver::<Strict>::new();
    with.input_topic(Strict::AVRO_IT_STRICT_IN)
        .pipe_input("k".into(), sentence("ok"));
    let mut framed = Vec::new();
    wire::write_header(1, &mut framed);
    let error = without
        .try_pipe_raw("avro-it-strict-in", raw(framed))
        .expect_err("no registry state");
    assert!(error.to_string().contains("no SchemaRegistry"), "{error}");
}

/// Subject name strategies and a fixed id, read back through the registry.
#[test]
fn subject_strategies_and_fixed_ids() {
    let record = default_registry_with(SubjectNameStrategy::Record, SchemaChoice::AutoRegister);
    let topic_record =
        default_registry_with(SubjectNameStrategy::TopicRecord, SchemaChoice::AutoRegister);
    let write = |registry: &SchemaRegistry, topic: &str| -> Result<Vec<u8>, SerdeError> {
        let _in = dekaf_streams::serdes::SerdeStates::new()
            .with(registry.clone())
            .enter();
        let mut out = Vec::new();
        Avro::<WordCount>::serialize_in(
            SerdeContext::value(topic),
            &WordCount {
                word: "w".into(),
                count: 3,
            },
            &mut out,
        )?;
        Ok(out)
    };
    let a = write(&record, "avro-it-strategy").expect("record strategy");
    let id = record
        .client()
        .latest("dekaf.it.WordCount")
        .expect("subject dekaf.it.WordCount")
        .id;
    assert_eq!(a[1..5], id.to_be_bytes());
    write(&topic_record, "avro-it-strategy").expect("topic-record strategy");
    assert_eq!(
        topic_record
            .client()
            .latest("avro-it-strategy-dekaf.it.WordCount")
            .expect("subject avro-it-strategy-dekaf.it.WordCount")
            .id,
        id,
        "one schema, one id, under both subjects"
    );
    // A fixed id writes that id; use-latest writes the subject's latest version.
    let fixed = default_registry_with(SubjectNameStrategy::Topic, SchemaChoice::Id(id));
    assert_eq!(
        write(&fixed, "avro-it-any").expect("fixed id")[1..5],
        id.to_be_bytes()
    );
    let latest = default_registry_with(SubjectNameStrategy::Record, SchemaChoice::UseLatest);
    assert_eq!(
        write(&latest, "avro-it-any").expect("latest")[1..5],
        id.to_be_bytes()
    );
    // Registered-only: a subject without the schema is an error naming it.
    let registered = default_registry_with(SubjectNameStrategy::Topic, SchemaChoice::Registered);
    let error = write(&registered, "avro-it-never-registered").expect_err("not registered");
    assert!(
        error.to_string().contains("avro-it-never-registered-value"),
        "{error}"
    );
}

fn default_registry_with(strategy: SubjectNameStrategy, choice: SchemaChoice) -> SchemaRegistry {
    registry(
        RegistryConfig::new(registry_url())
            .subject_name_strategy(strategy)
            .schema_choice(choice),
    )
}
