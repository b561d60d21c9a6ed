//! Running a compiled topology on Kafka.
//!
//! [`KafkaStreams::builder`] takes the type `topology!` defined; [`KafkaStreams::run`] runs it as
//! members of the streams group named by its application id until a shutdown future completes.
//!
//! | module | what |
//! |---|---|
//! | `app` | `KafkaStreams` and its builder: setting an instance up |
//! | `lifecycle`, `supervisor` | the instance's state, its threads started, replaced, added and removed, pause, close |
//! | `config` | processing guarantee, commit interval, timeouts |
//! | `processing` | **one record's path**: a processing thread's loop, from poll through its task to the sink |
//! | `commit` | **the end of that path**: exactly-once and at-least-once commits |
//! | `abort` | undoing a failed interval: abort, drop and restore state, replace a fenced producer |
//! | `assignment` | taking on tasks (restore) and giving them up (commit and close, or drop) |
//! | `membership` | the thread's streams-group member: events, identity, at-least-once commits |
//! | `offset_commit`, `refusal` | the at-least-once OffsetCommit; how a coordinator refuses a member's epoch |
//! | `context`, `clients`, `tasks` | what a thread starts with; its librdkafka clients; its tasks and their routing |
//! | `changelog_buffer` | changelog records held until the commit, the latest per key |
//! | `consumer_errors` | which consumer errors are retried and which stop the application |
//! | `standbys` | standby tasks: taking them on and dropping them, keeping them up to date, promoting them |
//! | `state` | on-disk stores: flush with changelog offsets after commits, where a restore starts and why, clean close |
//! | `queries` | publishing the stores' committed state and the partition counts for interactive queries ([`crate::query`]) |
//! | `reset` | deleting an application's group and internal topics |
//! | `signal` | shutting down on SIGINT/SIGTERM |

//! # Metrics
//!
//! Published through the [`metrics`](https://docs.rs/metrics) facade: install any recorder
//! (Prometheus, StatsD, …) in the application. Kafka Streams' own thread, task and client
//! metrics, under the names its JMX exporter gives them, are listed in [`metrics`]; the
//! runtime's own are these:
//!
//! | instrument | kind | meaning |
//! |---|---|---|
//! | `dekaf.streams.records.processed` | counter | records processed, counted at commit |
//! | `dekaf.streams.records.restored` | counter | changelog records applied while restoring state; labels `task`, `reason` (`checkpoint`, `crash tail`, `aborted interval`, `rebuild`) |
//! | `dekaf.streams.commits` | counter | completed commits |
//! | `dekaf.streams.commits.aborted` | counter | aborted commits (their work is redone) |
//! | `dekaf.streams.commit.duration` | histogram | commit time in seconds |
//! | `dekaf.streams.restore.duration` | histogram | time to restore one task's stores, in seconds; labels `task`, `reason` |
//! | `dekaf.streams.tasks.active` | gauge | tasks currently owned |
//! | `dekaf.streams.tasks.standby` | gauge | standby tasks currently maintained |
//! | `dekaf.streams.standby.records` | counter | changelog records applied to standby tasks |
//! | `dekaf.streams.standby.lag` | gauge (label `task`) | changelog records a standby task has not applied yet |
//! | `dekaf.streams.standby.promotions` | counter | standby tasks that became active, restoring only their lag |

mod abort;
mod app;
mod assignment;
mod changelog_buffer;
mod clients;
mod commit;
mod config;
mod consumer_errors;
mod context;
mod error;
mod global_thread;
mod interval;
pub mod lifecycle;
mod membership;
pub mod metrics;
mod offset_commit;
mod offset_reset;
mod periodic_report;
mod processing;
mod punctuate;
mod queries;
mod record_path;
mod record_queues;
mod refusal;
mod reset;
mod signal;
mod standbys;
mod startup;
mod state;
mod supervisor;
mod tasks;
mod waiting;

pub use app::{Builder, KafkaStreams, SHUTDOWN_TIMEOUT};
pub use config::{
    BuildError, DEFAULT_CACHE_MAX_BYTES, DEFAULT_IDLE_COMMIT_INTERVAL, DEFAULT_STATE_CLEANUP_DELAY,
    ProcessingGuarantee, StreamsConfig,
};
pub use error::{ConsumerFailure, StreamsError};
pub use lifecycle::{
    Lifecycle, LifecycleError, PartitionOffsets, State, TaskOffsets, ThreadErrorResponse,
    ThreadMetadata, ThreadState,
};
pub use offset_commit::OffsetCommitError;
pub use refusal::MemberRefusal;
pub use reset::{
    KeepReason, KeptTopic, ResetError, ResetPlan, ResetReport, TopicSource, execute_reset,
    internal_topic_name, plan_reset, reset_application,
};
pub use signal::shutdown_signal;

// The errors a `StreamsError` or `BuildError` carries, so they can be named and matched.
pub use crate::group::{DEFAULT_REBALANCE_TIMEOUT, GroupError};
pub use crate::kafka::producer::DeliveryFailure;
pub use crate::kafka::restore::RestoreError;
pub use crate::kafka::settings::{RESERVED_PROPERTIES, SettingsError};
pub use crate::kafka::txn_offsets::TxnOffsetsError;
