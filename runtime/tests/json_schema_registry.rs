//! JSON Schema serdes against a real schema registry (Apicurio's Confluent API,
//! `scripts/registry.sh`; `DEKAF_REGISTRY_URL`, default `http://127.0.0.1:8480/apis/ccompat/v7`),
//! run by the TestDriver: no broker needed. A registry that does not answer fails the tests.
//!
//! Each test uses its own topics, so its own subjects.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{
    JsonSchema, JsonSchemaGeneric, RegistryConfig, SchemaReference, SchemaRegistry, SchemaText,
    wire,
};
use dekaf_streams::testing::{RawRecord, TestDriver};
use serde::{Deserialize, Serialize};

/// A sentence; its text must not be empty (a constraint of the schema that serde alone does not
/// check).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct Sentence {
    #[schemars(length(min = 1))]
    text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct WordCount {
    word: String,
    count: i64,
}

fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

fn connect(config: RegistryConfig) -> SchemaRegistry {
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

topology! {
    /// Word count, JSON Schema in and out.
    pub JsonWords = "json-it-words" {
        stream("json-it-sentences", Utf8, JsonSchema::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("json-it-counts", Utf8, JsonSchema::<WordCount>);
    }
}

topology! {
    /// Generic values: the number of fields.
    pub Generic = "json-it-generic" {
        stream("json-it-generic-in", Utf8, JsonSchemaGeneric::<Sentence>)
            .map_values(|v| v.as_object().map_or(-1, |o| o.len() as i64))
            .to("json-it-generic-out", Utf8, I64);
    }
}

topology! {
    /// Fails on records that do not read.
    pub Strict = "json-it-strict" {
        stream("json-it-strict-in", Utf8, JsonSchema::<Sentence>)
            .map_values(|s| s.text)
            .to("json-it-strict-out", Utf8, Utf8);
    }
}

fn sentence(text: &str) -> Sentence {
    Sentence {
        text: text.to_owned(),
    }
}

fn raw(value: Vec<u8>) -> RawRecord {
    RawRecord {
        key: Some(b"k".to_vec()),
        value: Some(value),
        timestamp: 1,
        headers: Headers::new(),
    }
}

fn framed(id: u32, json: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    wire::write_header(id, &mut bytes);
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// JSON in and out through the registry, framed with the subject's id; once warm no record
/// makes a request.
#[test]
fn word_count_with_cached_ids() {
    let registry = connect(RegistryConfig::new(registry_url()));
    let driver = TestDriver::<JsonWords>::builder()
        .serde_state(registry.clone())
        .build();
    let input = driver.input_topic(JsonWords::JSON_IT_SENTENCES);
    let output = driver.output_topic(JsonWords::JSON_IT_COUNTS);
    input.pipe_input("k".into(), sentence("a b a"));
    assert_eq!(
        output.read_values_to_list(),
        [("a", 1), ("b", 1), ("a", 2)].map(|(w, c)| WordCount {
            word: w.into(),
            count: c
        })
    );
    let warm = registry.client().requests();
    for _ in 0..100 {
        input.pipe_input("k".into(), sentence("a b"));
    }
    assert_eq!(output.read_values_to_list().len(), 200);
    assert_eq!(
        registry.client().requests(),
        warm,
        "no request per record once warm"
    );
    let schema = registry
        .client()
        .latest("json-it-counts-value")
        .expect("registered");
    assert!(schema.schema.contains("draft-07"), "{}", schema.schema);
    input.pipe_input("k".into(), sentence("z"));
    let raw = driver
        .output_topic(TopicRef::<String, Vec<u8>>::new::<Utf8, Bytes>(
            "json-it-counts",
        ))
        .read_values_to_list();
    assert_eq!(raw, [framed(schema.id, r#"{"word":"z","count":1}"#)]);
}

/// Validation: a value that does not fit the schema fails on write and on read, naming the
/// schema id and the place; turned off, the same record reads.
#[test]
fn validation_on_write_and_read_and_off() {
    let registry = connect(RegistryConfig::new(registry_url()));
    let driver = TestDriver::<Strict>::builder()
        .serde_state(registry.clone())
        .build();
    let input = driver.input_topic(Strict::JSON_IT_STRICT_IN);
    input.pipe_input("k".into(), sentence("fine"));
    let id = registry
        .client()
        .latest("json-it-strict-in-value")
        .expect("registered")
        .id;
    let empty = framed(id, r#"{"text":""}"#);
    let error = driver
        .try_pipe_raw("json-it-strict-in", raw(empty.clone()))
        .expect_err("an empty text does not validate")
        .to_string();
    assert!(
        error.contains(&format!("schema id {id}")) && error.contains("/text"),
        "{error}"
    );
    let wrong_type = driver
        .try_pipe_raw("json-it-strict-in", raw(framed(id, r#"{"text":5}"#)))
        .expect_err("a number is not a string")
        .to_string();
    assert!(
        wrong_type.contains(&format!("schema id {id}")),
        "{wrong_type}"
    );

    let lenient = TestDriver::<Strict>::builder()
        .serde_state(connect(
            RegistryConfig::new(registry_url()).json_schema_validation(false),
        ))
        .build();
    lenient
        .try_pipe_raw("json-it-strict-in", raw(empty))
        .expect("without validation the record reads");
    assert_eq!(
        lenient
            .output_topic(Strict::JSON_IT_STRICT_OUT)
            .read_values_to_list(),
        [""]
    );
}

/// Writing a value that does not fit fails before anything is written.
#[test]
fn invalid_values_are_not_written() {
    let registry = connect(RegistryConfig::new(registry_url()));
    let _in = dekaf_streams::serdes::SerdeStates::new()
        .with(registry)
        .enter();
    let mut out = Vec::new();
    let error = <JsonSchema<Sentence> as dekaf_streams::serdes::Serde>::serialize_in(
        dekaf_streams::serdes::SerdeContext::value("json-it-invalid"),
        &sentence(""),
        &mut out,
    )
    .expect_err("an empty text does not fit");
    assert!(error.to_string().contains("does not fit"), "{error}");
}

/// The generic form, and a writer's schema with a reference (`$ref` to another registered
/// schema), resolved through the registry.
#[test]
fn generic_values_and_references() {
    let registry = connect(RegistryConfig::new(registry_url()));
    let client = registry.client();
    // Apicurio recognizes a JSON Schema by its `$schema` (or an object type).
    let text_schema =
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","minLength":1}"#;
    let text = SchemaText {
        schema: text_schema,
        schema_type: "JSON",
        references: &[],
    };
    client
        .register("json-it-text", &text)
        .expect("register the referenced schema");
    let version = client
        .lookup("json-it-text", &text)
        .expect("lookup")
        .and_then(|s| s.version)
        .expect("a version");
    let references = [SchemaReference {
        name: "text.json".into(),
        subject: "json-it-text".into(),
        version,
    }];
    let id = client
        .register(
            "json-it-generic-ref-value",
            &SchemaText {
                schema: r#"{"type":"object","properties":{"text":{"$ref":"text.json"}},"required":["text"]}"#,
                schema_type: "JSON",
                references: &references,
            },
        )
        .expect("register the referencing schema");
    let driver = TestDriver::<Generic>::builder()
        .serde_state(registry.clone())
        .build();
    driver
        .try_pipe_raw(
            "json-it-generic-in",
            raw(framed(id, r#"{"text":"x","more":1}"#)),
        )
        .expect("reads");
    assert_eq!(
        driver
            .output_topic(Generic::JSON_IT_GENERIC_OUT)
            .read_values_to_list(),
        [2]
    );
    let error = driver
        .try_pipe_raw("json-it-generic-in", raw(framed(id, r#"{"text":""}"#)))
        .expect_err("the referenced schema's minLength applies")
        .to_string();
    assert!(error.contains(&format!("schema id {id}")), "{error}");
    let garbage = driver
        .try_pipe_raw("json-it-generic-in", raw(framed(id, "{not json")))
        .expect_err("not JSON")
        .to_string();
    assert!(garbage.contains("JSON Schema"), "{garbage}");
}
