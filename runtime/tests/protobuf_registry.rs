//! Protobuf serdes against a real schema registry (Apicurio's Confluent API,
//! `scripts/registry.sh`; `DEKAF_REGISTRY_URL`, default `http://127.0.0.1:8480/apis/ccompat/v7`),
//! run by the TestDriver: no broker needed. A registry that does not answer fails the tests.
//!
//! The messages are prost structs that give their descriptors through `ReflectMessage`, from a
//! pool compiled at run time by `proto_file` (no `protoc`). `words.proto` imports
//! `dekaf/it/lang.proto`, so registering it registers the import first (a schema reference).
//! Each test uses its own topics, so its own subjects.

use std::sync::LazyLock;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::prost_reflect::{
    DescriptorPool, DynamicMessage, MessageDescriptor, ReflectMessage, Value,
};
use dekaf_streams::serdes::registry::{
    MessageSchema, Protobuf, ProtobufDynamic, RegistryConfig, SchemaReference, SchemaRegistry,
    SchemaText, proto_file, wire,
};
use dekaf_streams::testing::{RawRecord, TestDriver};

const LANG_PROTO: &str = r#"syntax = "proto3";
package dekaf.it;
message Lang { string code = 1; }
"#;

const WORDS_PROTO: &str = r#"syntax = "proto3";
package dekaf.it;
import "dekaf/it/lang.proto";
message Sentence {
  string text = 1;
  Lang lang = 2;
  message Meta { int64 at = 1; }
}
message WordCount { string word = 1; int64 count = 2; }
"#;

static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    proto_file(WORDS_PROTO, &[("dekaf/it/lang.proto", LANG_PROTO)])
        .expect("words.proto compiles")
        .parent_pool()
        .clone()
});

#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.Lang")]
struct Lang {
    #[prost(string, tag = "1")]
    code: String,
}

#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.Sentence")]
struct Sentence {
    #[prost(string, tag = "1")]
    text: String,
    #[prost(message, optional, tag = "2")]
    lang: Option<Lang>,
}

/// `Sentence.Meta`: a nested message, indexes `[0, 0]`.
#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.Sentence.Meta")]
struct Meta {
    #[prost(int64, tag = "1")]
    at: i64,
}

#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.WordCount")]
struct WordCount {
    #[prost(string, tag = "1")]
    word: String,
    #[prost(int64, tag = "2")]
    count: i64,
}

/// The descriptor of `Sentence`, for the dynamic serde.
struct SentenceSchema;

impl MessageSchema for SentenceSchema {
    fn message() -> MessageDescriptor {
        Sentence::default().descriptor()
    }
}

fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

fn registry() -> SchemaRegistry {
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
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
    /// Word count, Protobuf in and out.
    pub ProtoWords = "proto-it-words" {
        stream("proto-it-sentences", Utf8, Protobuf::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("proto-it-counts", Utf8, Protobuf::<WordCount>);
    }
}

topology! {
    /// A nested message in, its field out.
    pub Nested = "proto-it-nested" {
        stream("proto-it-nested-in", Utf8, Protobuf::<Meta>)
            .map_values(|m| m.at)
            .to("proto-it-nested-out", Utf8, I64);
    }
}

topology! {
    /// Dynamic messages: the text field of each.
    pub Dynamic = "proto-it-dynamic" {
        stream("proto-it-dynamic-in", Utf8, ProtobufDynamic::<SentenceSchema>)
            .map_values(|m| match m.get_field_by_name("text").as_deref() {
                Some(Value::String(text)) => text.clone(),
                _ => String::new(),
            })
            .to("proto-it-dynamic-out", Utf8, Utf8);
    }
}

topology! {
    /// Fails on records that do not read.
    pub Strict = "proto-it-strict" {
        stream("proto-it-strict-in", Utf8, Protobuf::<Sentence>)
            .map_values(|s| s.text)
            .to("proto-it-strict-out", Utf8, Utf8);
    }
}

fn sentence(text: &str) -> Sentence {
    Sentence {
        text: text.to_owned(),
        lang: Some(Lang { code: "fr".into() }),
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

fn framed(id: u32, indexes: &[u8], message: &impl prost::Message) -> Vec<u8> {
    let mut bytes = Vec::new();
    wire::write_header(id, &mut bytes);
    bytes.extend_from_slice(indexes);
    bytes.extend_from_slice(&message.encode_to_vec());
    bytes
}

/// Protobuf in and out through the registry: the import is registered under its path and
/// referenced, the output is framed with the subject's id and WordCount's indexes (`[1]`), and
/// once warm no record makes a request.
#[test]
fn word_count_with_references_and_cached_ids() {
    let registry = registry();
    let driver = TestDriver::<ProtoWords>::builder()
        .serde_state(registry.clone())
        .build();
    let input = driver.input_topic(ProtoWords::PROTO_IT_SENTENCES);
    let output = driver.output_topic(ProtoWords::PROTO_IT_COUNTS);
    input.pipe_input("k".into(), sentence("a b a"));
    let counts: Vec<(String, i64)> = output
        .read_values_to_list()
        .into_iter()
        .map(|c| (c.word, c.count))
        .collect();
    assert_eq!(
        counts,
        [("a", 1), ("b", 1), ("a", 2)].map(|(w, c)| (w.to_owned(), c))
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

    // The import went first, under its path; the schema references it.
    let client = registry.client();
    let input_schema = client
        .latest("proto-it-sentences-value")
        .expect("registered");
    assert_eq!(
        input_schema.references,
        [SchemaReference {
            name: "dekaf/it/lang.proto".into(),
            subject: "dekaf/it/lang.proto".into(),
            version: client
                .latest("dekaf/it/lang.proto")
                .expect("the import is registered")
                .version
                .expect("a version"),
        }]
    );
    // The output: magic byte, the id, indexes [1] (WordCount is the second message).
    let id = client
        .latest("proto-it-counts-value")
        .expect("registered")
        .id;
    input.pipe_input("k".into(), sentence("z"));
    let raw = driver
        .output_topic(TopicRef::<String, Vec<u8>>::new::<Utf8, Bytes>(
            "proto-it-counts",
        ))
        .read_values_to_list();
    let expected = framed(
        id,
        &[2, 2],
        &WordCount {
            word: "z".into(),
            count: 1,
        },
    );
    assert_eq!(raw, [expected]);
}

/// A nested message: indexes `[0, 0]` written as `04 00 00` and read back.
#[test]
fn nested_message_indexes() {
    let registry = registry();
    let driver = TestDriver::<Nested>::builder()
        .serde_state(registry.clone())
        .build();
    driver
        .input_topic(Nested::PROTO_IT_NESTED_IN)
        .pipe_input("k".into(), Meta { at: 42 });
    assert_eq!(
        driver
            .output_topic(Nested::PROTO_IT_NESTED_OUT)
            .read_values_to_list(),
        [42]
    );
    let id = registry
        .client()
        .latest("proto-it-nested-in-value")
        .expect("registered")
        .id;
    driver
        .try_pipe_raw(
            "proto-it-nested-in",
            raw(framed(id, &[4, 0, 0], &Meta { at: 7 })),
        )
        .expect("the full form reads");
    assert_eq!(
        driver
            .output_topic(Nested::PROTO_IT_NESTED_OUT)
            .read_values_to_list(),
        [7]
    );
}

/// Another client's record: its own schema text (a later version with a field we do not know)
/// with its own reference, registered by hand; read by fetching the schema and its reference,
/// by the typed and the dynamic serde.
#[test]
fn another_writers_schema_with_a_reference() {
    let registry = registry();
    let client = registry.client();
    let lang_version = {
        let text = SchemaText {
            schema: LANG_PROTO,
            schema_type: "PROTOBUF",
            references: &[],
        };
        client
            .register("proto-it-other-lang", &text)
            .expect("register the import");
        client
            .lookup("proto-it-other-lang", &text)
            .expect("lookup")
            .and_then(|s| s.version)
            .expect("a version")
    };
    let theirs = WORDS_PROTO.replace("Lang lang = 2;", "Lang lang = 2;\n  int32 extra = 9;");
    let references = [SchemaReference {
        name: "dekaf/it/lang.proto".into(),
        subject: "proto-it-other-lang".into(),
        version: lang_version,
    }];
    let id = client
        .register(
            "proto-it-other-value",
            &SchemaText {
                schema: &theirs,
                schema_type: "PROTOBUF",
                references: &references,
            },
        )
        .expect("register their schema");
    let file = proto_file(&theirs, &[("dekaf/it/lang.proto", LANG_PROTO)]).expect("compiles");
    let descriptor = file
        .parent_pool()
        .get_message_by_name("dekaf.it.Sentence")
        .expect("Sentence");
    let mut message = DynamicMessage::new(descriptor);
    message.set_field_by_name("text", Value::String("hallo".into()));
    message.set_field_by_name("extra", Value::I32(5));
    let bytes = framed(id, &[0], &message);

    let strict = TestDriver::<Strict>::builder()
        .serde_state(registry.clone())
        .build();
    strict
        .try_pipe_raw("proto-it-strict-in", raw(bytes.clone()))
        .expect("the typed serde reads their record");
    assert_eq!(
        strict
            .output_topic(Strict::PROTO_IT_STRICT_OUT)
            .read_values_to_list(),
        ["hallo"]
    );
    let dynamic = TestDriver::<Dynamic>::builder()
        .serde_state(registry.clone())
        .build();
    dynamic
        .try_pipe_raw("proto-it-dynamic-in", raw(bytes))
        .expect("the dynamic serde reads it");
    assert_eq!(
        dynamic
            .output_topic(Dynamic::PROTO_IT_DYNAMIC_OUT)
            .read_values_to_list(),
        ["hallo"]
    );
}

/// Bad input fails the record with an error naming the schema id and what is wrong.
#[test]
fn bad_bytes_are_errors_naming_the_schema_id() {
    let registry = registry();
    let driver = TestDriver::<Strict>::builder()
        .serde_state(registry.clone())
        .build();
    driver
        .input_topic(Strict::PROTO_IT_STRICT_IN)
        .pipe_input("k".into(), sentence("ok"));
    let id = registry
        .client()
        .latest("proto-it-strict-in-value")
        .expect("registered")
        .id;
    let error = |bytes: Vec<u8>| {
        driver
            .try_pipe_raw("proto-it-strict-in", raw(bytes))
            .expect_err("bad input fails")
            .to_string()
    };
    let magic = error(vec![1, 0, 0, 0, 1, 0]);
    assert!(magic.contains("magic byte 1"), "{magic}");
    let unknown = error(vec![0, 0x7f, 0xff, 0xff, 0x01, 0]);
    assert!(
        unknown.contains("schema id 2147483393") && unknown.contains("unknown schema id"),
        "{unknown}"
    );
    let indexes = error(framed(id, &[2, 8], &sentence("x")));
    assert!(
        indexes.contains(&format!("schema id {id}")) && indexes.contains("bad message indexes"),
        "{indexes}"
    );
    let other = error(framed(id, &[2, 2], &sentence("x")));
    assert!(
        other.contains("holds message dekaf.it.WordCount"),
        "{other}"
    );
    let undecodable = error(framed(id, &[0], &sentence("x"))[..8].to_vec());
    assert!(
        undecodable.contains(&format!("schema id {id}")) && undecodable.contains("Protobuf"),
        "{undecodable}"
    );
}
