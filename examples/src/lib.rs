//! Example topologies of dekaf-streams, each tested through the TestDriver (see `tests/`).
//!
//! | module | shows |
//! |---|---|
//! | [`word_count`] | flat_map_values, group_by (repartition), count, to_stream, to |
//! | `avro_words` | (feature `avro`) word count over Avro records through a schema registry |
//! | `proto_words` | (feature `protobuf`) word count over Protobuf records through a schema registry |
//! | `json_words` | (feature `json-schema`) word count over JSON Schema records through a schema registry |
//! | [`page_views`] | tumbling and hopping windows with grace, late records, windowed keys |
//! | [`sessions`] | session windows: count, aggregate with a merger, reduce, emit-final |
//! | [`sliding`] | sliding windows, emit-final of sliding and tumbling windows |
//! | [`orders`] | stream-table join and left_join, JSON serdes, co-partitioning |
//! | [`stream_joins`] | windowed stream-stream join, left_join and outer_join |
//! | [`dead_letters`] | on_error with dead-letter topics, try_map_values |
//! | [`dedup`] | the processor API: a declared store, process(..) |
//! | [`punctuation`] | punctuation: schedule(..) on stream time and on the wall clock |
//! | [`e2e`] | the topologies and checks of the end-to-end tests on a real broker |
//! | [`faults`] | a fault harness for the replicated test cluster (instances, brokers, verifier) |
//! | [`java_interop`] | the Java side (Apicurio's serdes) of the schema registry interoperability tests |
//! | [`kafka_io`] | creating topics, producing, reading results (demo and end-to-end tests) |
//! | [`windows_e2e`] | session, sliding and emit-final windows on a real broker, checked against the TestDriver |
//! | [`runner`] | running any of them on a real broker (`src/bin/`) |

#[cfg(feature = "avro")]
pub mod avro_words;
pub mod dead_letters;
pub mod dedup;
// `#[macro_use]`: `word_count_topology!` serves `faults` too.
#[macro_use]
pub mod e2e;
pub mod faults;
pub mod http_client;
pub mod java_interop;
#[cfg(feature = "json-schema")]
pub mod json_words;
pub mod kafka_io;
pub mod orders;
pub mod page_views;
#[cfg(feature = "protobuf")]
pub mod proto_words;
pub mod punctuation;
pub mod runner;
pub mod sessions;
pub mod sliding;
pub mod stream_joins;
pub mod windows_e2e;
pub mod word_count;
