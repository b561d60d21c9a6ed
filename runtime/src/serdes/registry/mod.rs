//! Avro, Protobuf and JSON Schema through a schema registry, in the Confluent wire format
//! (features `avro`, `protobuf`, `json-schema`).
//!
//! Every record is a magic byte 0, the schema id (4 bytes, big-endian) and the encoded value (for
//! Protobuf, the message indexes come first: which message of the `.proto` file it is): what
//! Confluent's `KafkaAvroSerializer`, `KafkaProtobufSerializer` and `KafkaJsonSchemaSerializer`
//! write, and Apicurio's serializers in their Confluent-compatible framing. The registry is any
//! server with Confluent's REST API: Confluent Schema Registry, or Apicurio Registry under
//! `/apis/ccompat/v7` (`scripts/registry.sh` runs one for the tests).
//!
//! | serde | feature | Rust type | schema |
//! |---|---|---|---|
//! | [`Avro<T>`] | `avro` | `T: Serialize + DeserializeOwned + AvroSchema` | `T`'s (`#[derive(AvroSchema)]`, or an `impl AvroSchema` that parses an `.avsc`) |
//! | [`AvroGeneric<S>`] | `avro` | [`apache_avro::types::Value`] | `S`'s (an empty type implementing `AvroSchema`) |
//! | [`Protobuf<T>`] | `protobuf` | `T: prost::Message + ReflectMessage + Default` | the `.proto` file of `T`'s descriptor, printed |
//! | [`ProtobufDynamic<S>`] | `protobuf` | [`prost_reflect::DynamicMessage`] | the file of the descriptor `S` names ([`MessageSchema`]) |
//! | [`JsonSchema<T>`] | `json-schema` | `T: Serialize + DeserializeOwned + schemars::JsonSchema` | `T`'s, derived as draft 7; values validated |
//! | [`JsonSchemaGeneric<S>`] | `json-schema` | [`serde_json::Value`] | `S`'s (`schemars::JsonSchema`); values validated |
//!
//! Each format's module says what is particular to it: the crate chosen and why, the wire format
//! ([`protobuf`]'s message indexes), schemas and evolution, validation ([`json_schema`]), and what
//! Apicurio does differently. What they share (framing, subjects, the schema choice, caches,
//! registering with references, error shaping: `format.rs` and `cache.rs`) is one piece of code
//! for all three.
//!
//! The application builds one [`SchemaRegistry`] per instance and gives it to the instance as
//! serde state (see [`SerdeStates`](crate::serdes::SerdeStates) for why state is per instance
//! and how the serdes find it):
//!
//! ```no_run
//! # #[cfg(all(feature = "kafka", feature = "avro"))] {
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::serdes::registry::{Avro, RegistryConfig, SchemaRegistry};
//!
//! #[derive(serde::Serialize, serde::Deserialize, apache_avro::AvroSchema)]
//! struct Sentence { text: String }
//!
//! topology! {
//!     pub Words = "avro-words" {
//!         stream("sentences", Utf8, Avro::<Sentence>)
//!             .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
//!             .to("words", Utf8, Utf8);
//!     }
//! }
//!
//! let registry = SchemaRegistry::new(RegistryConfig::new("http://127.0.0.1:8480/apis/ccompat/v7"));
//! let app = dekaf_streams::KafkaStreams::builder(Words).bootstrap_servers("127.0.0.1:9092").serde_state(registry).build();
//! # }
//! ```
//!
//! What every format does:
//! - **subjects** by [`SubjectNameStrategy`]: `<topic>-value` (the default), the record's full
//!   name (Avro record, Protobuf message, JSON Schema `title`), or `<topic>-<record name>`;
//! - **which schema a serializer writes with** by [`SchemaChoice`]: its own, registered when
//!   missing (the default) or required to be registered, the subject's latest version, or a
//!   given id;
//! - **caches** ([`SchemaRegistry`]): the id a serde writes with per topic and role, and every
//!   writer schema by id, so that once warm the per-record path makes no request;
//! - **schema references** (Confluent's `references`): a writer's schema is fetched with the
//!   schemas it references; a Protobuf serde registers the files its `.proto` imports first,
//!   each under its import path as subject;
//! - **schema evolution**: a record whose id is not known yet is read by fetching that id's
//!   schema once and reading it with the serde's own schema by the format's rules (Avro resolves
//!   writer vs reader schema; Protobuf matches fields by number; JSON Schema validates against
//!   the writer's schema);
//! - **bad input** is a [`SerdeError::Schema`](crate::serdes::SerdeError::Schema) naming the
//!   schema id where there is one (wrong magic byte, unknown id, a schema of another format,
//!   bad message indexes, bytes that do not decode, a value that does not validate, bytes left
//!   over), so the topology's error handler (fail, skip, dead letter) decides;
//! - **an unreachable registry** is retried with a log line per attempt (see [`client`]) for
//!   [`RegistryConfig::retry_for`], then the record fails with an error naming the registry;
//!   nothing panics;
//! - **authentication**: basic or bearer ([`RegistryConfig::basic_auth`],
//!   [`RegistryConfig::bearer_auth`]); `https` URLs use the system's OpenSSL;
//! - **at start**, before the instance processes anything, each registry serde's schema is
//!   checked against the versions registered under its subject, under the subject's
//!   compatibility mode; a mismatch stops the application naming the subject, the version and
//!   (Avro) the first incompatible field (see
//!   [`Serde::check_at_start`](crate::serdes::Serde::check_at_start)); a registry that cannot
//!   be reached is asked again until it answers.
//!
//! For Avro, [`Avsc`] also binds a Rust type to an `.avsc` file and checks, at compile time,
//! that they fit ([`avsc`]).
//!
//! # Avro
//!
//! Why `apache-avro`: it is the Apache Avro project's own Rust implementation (the
//! `apache/avro-rs` repository, released with the specification), the only Rust Avro crate
//! maintained against the whole specification: schema parsing and Parsing Canonical Form,
//! writer/reader schema resolution, logical types, serde support for Rust types and a derive
//! for their schemas.
//!
//! Not yet: registry serdes in stores (a store has no topic: they fail there with an error
//! saying so), registering Avro and JSON Schema references (records that reference other
//! schemas are read; our own Avro and JSON schemas are registered without references).

#[cfg(feature = "avro")]
pub mod avro;
#[cfg(feature = "avro")]
pub mod avsc;
mod cache;
pub mod client;
mod compatibility;
mod config;
pub(crate) mod format;
#[cfg(feature = "json-schema")]
pub mod json_schema;
#[cfg(feature = "protobuf")]
pub mod protobuf;
mod subject;
pub mod wire;

#[cfg(feature = "avro")]
pub use apache_avro;
#[cfg(feature = "avro")]
pub use avro::{Avro, AvroGeneric};
pub use cache::SchemaRegistry;
pub use client::{
    RegisteredSchema, RegistryClient, RegistryError, SchemaById, SchemaReference, SchemaText,
};
pub use config::{Auth, DEFAULT_RETRY_FOR, RegistryConfig, SchemaChoice};
#[cfg(feature = "avro")]
pub use dekaf_streams_macros::Avsc;
#[cfg(feature = "json-schema")]
pub use json_schema::{JsonSchema, JsonSchemaGeneric};
#[cfg(feature = "protobuf")]
pub use protobuf::{MessageSchema, ProtoError, Protobuf, ProtobufDynamic, proto_file};
pub use subject::SubjectNameStrategy;
#[cfg(feature = "json-schema")]
pub use {jsonschema, schemars};
#[cfg(feature = "protobuf")]
pub use {prost_reflect, prost_reflect::prost, protox};
