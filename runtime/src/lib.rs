//! # dekaf-streams
//!
//! Kafka stream processing for Rust. A [`topology!`] macro compiles a declarative operator
//! pipeline into statically dispatched task code and checks names, stores, types and internal
//! topics while you compile. The runtime runs the compiled topology as members of a Kafka 4.4
//! *streams group* (KIP-1071), keeps state in changelog-backed stores, and by default commits
//! output, state and consumed offsets in one Kafka transaction.
//!
//! ## The API
//!
//! | what | where |
//! |---|---|
//! | define a topology | [`topology!`], with [`prelude`] in scope; the language: [`dsl`] |
//! | run it on Kafka | [`KafkaStreams::builder`] → [`Builder`] → [`KafkaStreams::run`]; [`StreamsConfig`], [`ProcessingGuarantee`], [`shutdown_signal`]; the metrics it publishes: [`streams`] |
//! | why it stopped | [`StreamsError`] (and the errors it carries), [`BuildError`] |
//! | connect to a secured cluster | [`Builder::property`] with librdkafka's names; [`OAuthTokenProvider`] |
//! | reset an application | [`reset_application`] with [`ClientSettings`], [`plan_reset`] for a dry run (or the `dekaf-streams-reset` binary, `--dry-run`) |
//! | test it without a broker | [`TestDriver`] ([`testing`]) |
//! | keys and values | [`serdes`]: the [`Serde`](serdes::Serde) trait and Kafka's byte layouts |
//! | query a running application's stores | [`KafkaStreams::queries`] → [`query::Queries`]: local read-only views, [`query::Queries::metadata_for_key`]; over HTTP with the `http` feature |
//! | state | [`store`]: in memory or LMDB, and the processor API's typed view; [`state_dir`]: the on-disk layout |
//! | the processor API, custom runners | [`task`] (the `Topology` and `Task` traits `topology!` implements), [`record`], [`topology`](mod@topology) (a compiled topology's description) |
//! | the layers under [`KafkaStreams`], for tooling | [`group`]: a streams-group member and the group's admin calls (describe, configs); [`kafka`]: thin librdkafka wrappers (batch consumption, restore, transactional offsets); the wire codec is the `dekaf-streams-protocol` crate |
//!
//! Running on Kafka needs the `kafka` feature (on by default), which builds librdkafka. Without
//! it (`default-features = false`) the macro, serdes, stores, record cache and [`testing`] still
//! work, so a crate that only unit-tests its topologies compiles quickly.
//!
//! Everything public is documented here. The one hidden module, `__private`, holds what the
//! code `topology!` generates calls (the record cache, windows, joins, tables' support): it is
//! not an API, and changes without notice.

pub use dekaf_streams_macros::topology;

#[cfg(feature = "kafka")]
pub use kafka::ClientSettings;
pub use security::{OAuthToken, OAuthTokenProvider, Secret, SecurityError};
#[cfg(feature = "kafka")]
pub use streams::{
    BuildError, Builder, ConsumerFailure, DEFAULT_CACHE_MAX_BYTES, DEFAULT_REBALANCE_TIMEOUT,
    KafkaStreams, Lifecycle, LifecycleError, ProcessingGuarantee, ResetError, ResetPlan,
    ResetReport, State, StreamsConfig, StreamsError, ThreadErrorResponse, execute_reset,
    plan_reset, reset_application, shutdown_signal,
};
pub use testing::TestDriver;

pub mod dsl;
pub mod event_time;
pub mod forward;
#[cfg(feature = "http")]
pub mod http;
pub mod picture;
pub mod punctuation;
pub mod query;
pub mod record;
pub mod routing;
pub mod security;
pub mod serdes;
pub mod state_dir;
pub mod store;
#[cfg(feature = "kafka")]
pub mod streams;
pub mod task;
pub mod testing;
pub mod topology;

// The layers under `KafkaStreams`.
pub mod group;
#[cfg(feature = "kafka")]
pub mod kafka;

// The streams-group protocol codec, a crate of its own (`runtime/protocol`).
use dekaf_streams_protocol as protocol;

// Private: the runtime's own parts. The code `topology!` generates reaches the record cache,
// windows, joins and tables through `__private`.
mod cache;
mod fast_hash;
mod join;
mod record_error;
#[cfg(feature = "kafka")]
mod standby;
mod table;
mod window;

#[doc(hidden)]
pub mod __private;

/// What a topology definition needs in scope: `use dekaf_streams::prelude::*;`.
pub mod prelude {
    pub use crate::forward::Forward;
    pub use crate::punctuation::PunctuationType;
    pub use crate::routing::RecordContext;
    pub use crate::serdes::{
        Bool, Bytes, F32, F64, I16, I32, I64, Json, ListOf, Nullable, Serde, SessionWindowed,
        TimeWindowed, Unit, Utf8, Uuid, Void, Window, Windowed,
    };
    pub use crate::store::{KeyValueStore, SessionStore, StoreError, WindowStore};
    pub use crate::task::{
        ErrorKind, ErrorResponse, Headers, ProcessError, ProcessingError, SessionStoreRef,
        StoreRef, Task, TopicRef, Topology, WindowStoreRef,
    };
    pub use crate::topology;
    pub use std::time::Duration;
}

/// The README's code blocks, compiled as doctests so its example stays true (they run
/// applications on Kafka, so they need the `kafka` feature).
#[cfg(all(doctest, feature = "kafka"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
