//! Word count over Protobuf records through a schema registry (feature `protobuf`): sentences in
//! (`dekaf.it.Sentence`, written by any Confluent-compatible Protobuf serializer), counts out
//! (`dekaf.it.WordCount`), both framed in the Confluent wire format with message indexes.
//!
//! The messages are prost structs from `proto_words.proto`, compiled at run time by
//! [`proto_file`] (no `protoc`); `#[derive(ReflectMessage)]` gives each its descriptor, and the
//! serde registers that descriptor's file as `.proto` text. A project with many `.proto` files
//! would rather generate the structs in a build script (prost-build fed by protox, and
//! prost-reflect-build for the descriptors): the serdes only need `prost::Message +
//! ReflectMessage + Default`.
//!
//! ```no_run
//! use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
//! use dekaf_streams_examples::proto_words::ProtoWordCount;
//!
//! let registry = SchemaRegistry::new(RegistryConfig::new("http://127.0.0.1:8480/apis/ccompat/v7"));
//! let streams = dekaf_streams::KafkaStreams::builder(ProtoWordCount)
//!     .bootstrap_servers("127.0.0.1:9092")
//!     .serde_state(registry)
//!     .build();
//! ```
//!
//! [`proto_file`]: dekaf_streams::serdes::registry::proto_file

use std::sync::LazyLock;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::prost_reflect::DescriptorPool;
use dekaf_streams::serdes::registry::{Protobuf, proto_file};

/// The source of the messages.
pub const PROTO: &str = include_str!("proto_words.proto");

/// The descriptors of [`PROTO`], compiled once.
pub static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| match proto_file(PROTO, &[]) {
    Ok(file) => file.parent_pool().clone(),
    Err(e) => panic!("proto_words.proto is part of this crate and compiles: {e}"),
});

/// A sentence.
#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.Sentence")]
pub struct Sentence {
    /// The words, separated by spaces.
    #[prost(string, tag = "1")]
    pub text: String,
}

/// The count of a word so far.
#[derive(Clone, PartialEq, prost::Message, prost_reflect::ReflectMessage)]
#[prost_reflect(descriptor_pool = "POOL", message_name = "dekaf.it.WordCount")]
pub struct WordCount {
    /// The word.
    #[prost(string, tag = "1")]
    pub word: String,
    /// How often it was seen.
    #[prost(int64, tag = "2")]
    pub count: i64,
}

topology! {
    /// Counts the words of Protobuf sentences and writes Protobuf counts.
    pub ProtoWordCount = "proto-wc" {
        stream("proto-wc-sentences", Utf8, Protobuf::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCount { word, count }))
            .to("proto-wc-counts", Utf8, Protobuf::<WordCount>);
    }
}
