//! Protobuf and JSON Schema interoperability with an independent writer and reader, without a
//! broker: Apicurio's Java serdes (`apicurio-registry-protobuf-serde-kafka` and
//! `apicurio-registry-jsonschema-serde-kafka` 3.1.7, Confluent framing) serialize sentences
//! (registering their schema in the real registry), a word count run by the TestDriver reads
//! those bytes and writes counts, and the Java deserializers read our bytes back.
//!
//! The Java side is `runtime/tests/java-formats` (`FormatsInterop.java serialize|deserialize`), its jars
//! resolved once with Maven into Cargo's target directory. Needs `java` (17+), `mvn` and the
//! registry (`DEKAF_REGISTRY_URL`); without Java or Maven the test is skipped with a message,
//! except under `CI=true`, where it fails. `examples/tests/kafka_protobuf_interop.rs` and
//! `kafka_json_schema_interop.rs` do the same through a broker.

use std::path::Path;
use std::sync::LazyLock;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::prost_reflect::DescriptorPool;
use dekaf_streams::serdes::registry::{
    JsonSchema, Protobuf, RegistryConfig, SchemaRegistry, SchemaText, proto_file,
};
use dekaf_streams::testing::{RawRecord, TestDriver};
use dekaf_streams_harness::java_interop::{JavaSide, java_side};

/// The messages the Java side builds its descriptor for (`FormatsInterop.words()`).
const PROTO: &str = r#"syntax = "proto3";
package dekaf.it;
message Sentence { string text = 1; }
message WordCount { string word = 1; int64 count = 2; }
"#;

static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    proto_file(PROTO, &[])
        .expect("compiles")
        .parent_pool()
        .clone()
});

#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.Sentence")]
struct Sentence {
    #[prost(string, tag = "1")]
    text: String,
}

#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.WordCount")]
struct WordCount {
    #[prost(string, tag = "1")]
    word: String,
    #[prost(int64, tag = "2")]
    count: i64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct JsonSentence {
    text: String,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct JsonCount {
    word: String,
    count: i64,
}

topology! {
    /// Word count, Protobuf in and out.
    pub ProtoWords = "java-it-proto" {
        stream("java-it-proto-sentences", Utf8, Protobuf::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("java-it-proto-counts", Utf8, Protobuf::<WordCount>);
    }
}

topology! {
    /// Word count, JSON Schema in and out.
    pub JsonWords = "java-it-json" {
        stream("java-it-json-sentences", Utf8, JsonSchema::<JsonSentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), JsonCount { word, count }))
            .to("java-it-json-counts", Utf8, JsonSchema::<JsonCount>);
    }
}

const MAIN: &str = "src/main/java/dev/dekaf/formats/FormatsInterop.java";

fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

/// Runs `FormatsInterop.java` with `args`: its output lines.
fn java(side: &JavaSide, args: &[&str]) -> Vec<String> {
    side.run(MAIN, args).lines().map(str::to_owned).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Pipes the Java bytes `values` into `topic`, and the raw values written to `out` as hex.
fn run<T: Topology>(
    driver: &TestDriver<T>,
    topic: &str,
    values: &[String],
    out: &'static str,
) -> Vec<String> {
    for value in values {
        driver
            .try_pipe_raw(
                topic,
                RawRecord {
                    key: Some(b"k".to_vec()),
                    value: Some(unhex(value)),
                    timestamp: 1,
                    headers: Headers::new(),
                },
            )
            .expect("the Java record reads");
    }
    driver
        .output_topic(TopicRef::<String, Vec<u8>>::new::<Utf8, Bytes>(out))
        .read_values_to_list()
        .iter()
        .map(|v| hex(v))
        .collect()
}

#[test]
fn apicurio_java_serdes_both_ways() {
    let Some(side) = java_side("java-formats", Path::new(env!("CARGO_TARGET_TMPDIR"))) else {
        return;
    };
    let native = registry_url().replace("/apis/ccompat/v7", "/apis/registry/v3");
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    let expected = |line: fn(&str, i64) -> String| -> Vec<String> {
        [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("c", 1)]
            .iter()
            .map(|(w, c)| line(w, *c))
            .collect()
    };

    // Protobuf: Java registers its descriptor's file (printed by Wire) and writes indexes [0] in
    // full; we read them, and Java reads our WordCount records (indexes [1]).
    let written = java(
        &side,
        &[
            "serialize",
            "protobuf",
            "-",
            &native,
            "java-it-proto-sentences",
            "a b a",
            "b c",
        ],
    );
    let driver = TestDriver::<ProtoWords>::builder()
        .serde_state(registry.clone())
        .build();
    let ours = run(
        &driver,
        "java-it-proto-sentences",
        &written,
        "java-it-proto-counts",
    );
    let mut args = vec![
        "deserialize",
        "protobuf",
        "-",
        &native,
        "java-it-proto-counts",
    ];
    args.extend(ours.iter().map(String::as_str));
    assert_eq!(
        java(&side, &args),
        expected(|w, c| format!(r#"value=indexes=[1] word: "{w}" count: {c}"#))
    );

    // JSON Schema: Java writes with the subject's latest schema (ours, registered here) and
    // validates; so does its reader with our counts.
    let schema = serde_json::to_string(
        &schemars::generate::SchemaSettings::draft07()
            .into_generator()
            .into_root_schema_for::<JsonSentence>(),
    )
    .expect("prints");
    registry
        .client()
        .register(
            "java-it-json-sentences-value",
            &SchemaText {
                schema: &schema,
                schema_type: "JSON",
                references: &[],
            },
        )
        .expect("register the sentences' schema");
    let written = java(
        &side,
        &[
            "serialize",
            "json",
            "-",
            &native,
            "java-it-json-sentences",
            "a b a",
            "b c",
        ],
    );
    let driver = TestDriver::<JsonWords>::builder()
        .serde_state(registry.clone())
        .build();
    let ours = run(
        &driver,
        "java-it-json-sentences",
        &written,
        "java-it-json-counts",
    );
    let mut args = vec!["deserialize", "json", "-", &native, "java-it-json-counts"];
    args.extend(ours.iter().map(String::as_str));
    assert_eq!(
        java(&side, &args),
        expected(|w, c| format!(r#"value={{"word":"{w}","count":{c}}}"#))
    );
}
