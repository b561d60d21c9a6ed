//! Running a compiled topology on Kafka.
//!
//! [`KafkaStreams::builder`] takes the type `topology!` defined; [`KafkaStreams::run`] runs it as
//! members of the streams group named by its application id until a shutdown future completes.
//!
//! | module | what |
//! |---|---|
//! | [`app`] | `KafkaStreams`, its builder, and the threads it runs |
//! | [`config`] | processing guarantee, commit interval, timeouts |
//! | `thread` | one processing thread: member, consumer, producer, tasks |
//! | `assignment` | taking on tasks (restore) and giving them up (commit, close) |
//! | `commit` | exactly-once and at-least-once commits, aborts and rebuilds |
//! | `state` | on-disk stores: flush after commits, restore from a checkpoint, checkpoint on close |
//! | [`reset`] | deleting an application's group and internal topics |
//! | [`signal`] | shutting down on SIGINT/SIGTERM |

//! # Metrics
//!
//! Published through the [`metrics`](https://docs.rs/metrics) facade: install any recorder
//! (Prometheus, StatsD, …) in the application.
//!
//! | instrument | kind | meaning |
//! |---|---|---|
//! | `dekaf.streams.records.processed` | counter | records processed, counted at commit |
//! | `dekaf.streams.records.restored` | counter | changelog records applied while restoring state |
//! | `dekaf.streams.commits` | counter | completed commits |
//! | `dekaf.streams.commits.aborted` | counter | aborted commits (their work is redone) |
//! | `dekaf.streams.commit.duration` | histogram | commit time in seconds |
//! | `dekaf.streams.restore.duration` | histogram | time to restore one task's stores, in seconds |
//! | `dekaf.streams.tasks.active` | gauge | tasks currently owned |

pub mod app;
mod assignment;
mod changelog_buffer;
mod commit;
pub mod config;
mod consumer_errors;
pub mod error;
mod membership;
mod offset_commit;
pub mod reset;
pub mod signal;
mod sink;
mod state;
pub mod tasks;
mod thread;

pub use app::{Builder, KafkaStreams};
pub use config::{BuildError, ProcessingGuarantee, StreamsConfig};
pub use error::{ConsumerFailure, StreamsError};
pub use reset::{ResetError, ResetReport, reset_application};
pub use signal::shutdown_signal;
pub use tasks::TaskId;
