//! Avro through a schema registry, in the Confluent wire format (feature `avro`).
//!
//! Every record is a magic byte 0, the schema id (4 bytes, big-endian) and the Avro binary
//! encoding of the value: what Confluent's `KafkaAvroSerializer` writes, and Apicurio's
//! serializers in their Confluent-compatible framing. The registry is any server with
//! Confluent's REST API: Confluent Schema Registry, or Apicurio Registry under
//! `/apis/ccompat/v7` (`scripts/registry.sh` runs one for the tests).
//!
//! | serde | Rust type | schema |
//! |---|---|---|
//! | [`Avro<T>`] | `T: Serialize + DeserializeOwned + AvroSchema` | `T`'s (`#[derive(AvroSchema)]`, or an `impl AvroSchema` that parses an `.avsc`) |
//! | [`AvroGeneric<S>`] | [`apache_avro::types::Value`] | `S`'s (an empty type implementing `AvroSchema`) |
//!
//! The application builds one [`SchemaRegistry`] per instance and gives it to the instance as
//! serde state (see [`SerdeStates`](crate::serdes::SerdeStates) for why state is per instance
//! and how the serdes find it):
//!
//! ```no_run
//! # #[cfg(feature = "kafka")] {
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
//! What it does:
//! - **subjects** by [`SubjectNameStrategy`]: `<topic>-value` (the default), the record's full
//!   name, or `<topic>-<record name>`;
//! - **which schema a serializer writes with** by [`SchemaChoice`]: its own, registered when
//!   missing (the default) or required to be registered, the subject's latest version, or a
//!   given id;
//! - **caches** ([`SchemaRegistry`]): the id a serde writes with per topic and role, and every
//!   writer schema by id, so that once warm the per-record path makes no request;
//! - **schema evolution**: a record whose id is not known yet is read by fetching that id's
//!   schema once and resolving it against the serde's own schema (writer vs reader);
//! - **bad input** is a [`SerdeError::Schema`](crate::serdes::SerdeError::Schema) naming the
//!   schema id where there is one (wrong magic byte, unknown id, bytes that do not decode, bytes
//!   left over), so the topology's error handler (fail, skip, dead letter) decides;
//! - **an unreachable registry** is retried with a log line per attempt (see [`client`]) for
//!   [`RegistryConfig::retry_for`], then the record fails with an error naming the registry;
//!   nothing panics;
//! - **authentication**: basic or bearer ([`RegistryConfig::basic_auth`],
//!   [`RegistryConfig::bearer_auth`]); `https` URLs use the system's OpenSSL.
//!
//! Why `apache-avro`: it is the Apache Avro project's own Rust implementation (the
//! `apache/avro-rs` repository, released with the specification), the only Rust Avro crate
//! maintained against the whole specification: schema parsing and Parsing Canonical Form,
//! writer/reader schema resolution, logical types, serde support for Rust types and a derive
//! for their schemas.
//!
//! Not yet: registry serdes in stores (a store has no topic: they fail there with an error
//! saying so), schema references, Protobuf and JSON Schema, the compile-time check of a type
//! against an `.avsc`, and the start-up compatibility check.

mod avro;
mod cache;
pub mod client;
mod config;
mod subject;
pub mod wire;

pub use apache_avro;
pub use avro::{Avro, AvroGeneric};
pub use cache::{Known, SchemaRegistry, Writer};
pub use client::{RegisteredSchema, RegistryClient, RegistryError};
pub use config::{Auth, DEFAULT_RETRY_FOR, RegistryConfig, SchemaChoice};
pub use subject::SubjectNameStrategy;
