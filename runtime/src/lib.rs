//! # dekaf-streams
//!
//! Kafka stream processing for Rust. A [`topology!`] macro compiles a declarative operator
//! pipeline into statically dispatched task code and checks names, stores, types and internal
//! topics while you compile. The runtime runs the compiled topology as members of a Kafka 4.4
//! *streams group* (KIP-1071), keeps state in changelog-backed stores, and by default commits
//! output, state and consumed offsets in one Kafka transaction.
//!
//! The modules, in the order data flows through them:
//!
//! | module | what |
//! |---|---|
//! | [`topology`](mod@topology) | the static description of a compiled topology |
//! | [`serdes`] | the `Serde` trait and Kafka's byte layouts (UTF-8, big-endian integers, JSON, windowed keys) |
//! | [`store`] | state stores: byte-ordered backends (in memory, LMDB), the processor API's typed view |
//! | [`state_dir`] | the on-disk state directory: locks, process id, checkpoints |
//! | [`cache`] | the record cache of aggregations: dirty keys forwarded at a flush |
//! | [`join`] | windowed stream-stream joins: the join window stores and the shared outer store |
//! | [`record`] | the records a task reads and writes, and the `RecordSink` it writes them to |
//! | [`task`] | the `Topology` and `Task` traits: what a runner (TestDriver, Kafka runtime) calls |
//! | [`testing`] | `TestDriver`: run a topology in process, without a broker |
//! | [`dsl`] | the `topology!` language, operator by operator |
//! | [`protocol`] | Kafka requests the runtime encodes itself (streams group heartbeat, describe) |
//! | [`group`] | the coordinator connection and the streams-group membership state machine |
//! | `kafka` | thin wrappers over librdkafka: client settings, producer, restore reader, admin |
//! | `streams` | `KafkaStreams`: threads as group members, commits, restore, rebalances, reset |
//!
//! `kafka` and `streams` need the `kafka` feature (on by default), which builds librdkafka. Without
//! it (`default-features = false`) the macro, serdes, stores, record cache and [`testing`] still
//! work, so a crate that only unit-tests its topologies compiles quickly.

pub mod group;
#[cfg(feature = "kafka")]
pub mod kafka;
pub mod protocol;
pub mod security;
#[cfg(feature = "kafka")]
pub mod streams;
pub mod topology;

pub mod cache;
pub mod dsl;
pub mod join;
pub mod record;
pub mod serdes;
pub mod state_dir;
pub mod store;
pub mod task;
pub mod testing;

#[doc(hidden)]
pub mod __private;

pub use dekaf_streams_macros::topology;

/// What a topology definition needs in scope: `use dekaf_streams::prelude::*;`.
pub mod prelude {
    pub use crate::serdes::{
        Bytes, I32, I64, Json, Nullable, Serde, TimeWindowed, Unit, Utf8, Window, Windowed,
    };
    pub use crate::store::{KeyValueStore, StoreError};
    pub use crate::task::{
        ErrorKind, ErrorResponse, Headers, ProcessError, ProcessingError, StoreRef, Task, TopicRef,
        Topology, WindowStoreRef,
    };
    pub use crate::topology;
    pub use std::time::Duration;
}

/// The README's code blocks, compiled as doctests so its example stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
