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
//! | [`runner`] | running any of them on a real broker (`src/bin/`) |
//!
//! Their tests without a broker are in `tests/`; the broker tests, and the harness they share
//! (end-to-end checks, the fault harness, the instances they run), are the
//! `dekaf-streams-harness` crate in `harness/`.

#[cfg(feature = "avro")]
pub mod avro_words;
pub mod dead_letters;
pub mod dedup;
#[cfg(feature = "json-schema")]
pub mod json_words;
pub mod orders;
pub mod page_views;
#[cfg(feature = "protobuf")]
pub mod proto_words;
pub mod punctuation;
pub mod runner;
pub mod sessions;
pub mod sliding;
pub mod stream_joins;
pub mod word_count;
