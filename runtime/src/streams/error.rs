//! Why an application stopped.

use rdkafka::error::KafkaError;

use super::offset_commit::OffsetCommitError;
use crate::group::GroupError;
use crate::kafka::producer::DeliveryFailure;
use crate::kafka::restore::RestoreError;
use crate::kafka::txn_offsets::TxnOffsetsError;
use crate::state_dir::StateDirError;
use crate::store::StoreError;
use crate::task::TaskError;

/// An error of the consumer that no retry fixes.
#[derive(Debug, thiserror::Error)]
#[error(
    "{operation} {resource} failed: {error}; the application stops because no retry fixes this: {remedy}"
)]
pub struct ConsumerFailure {
    /// What the consumer was doing.
    pub operation: &'static str,
    /// The topic(s), group or transactional ids concerned.
    pub resource: String,
    /// What librdkafka or the broker said (matched by its code).
    #[source]
    pub error: KafkaError,
    /// What to do.
    pub remedy: &'static str,
}

/// Why [`KafkaStreams::run`](super::KafkaStreams::run) returned an error.
#[derive(Debug, thiserror::Error)]
pub enum StreamsError {
    /// The streams group refused this member for good (for example a changed topology); the
    /// message says what to do.
    #[error(transparent)]
    Group(Box<GroupError>),
    /// A record failed and the topology's `on_error` chose `Fail`. Nothing of the commit
    /// interval that held the record was committed.
    #[error("task {task} stopped the application: {source}")]
    Task {
        /// The task, as `<subtopology>_<partition>`.
        task: String,
        /// What failed.
        #[source]
        source: Box<TaskError>,
    },
    /// A record could not be delivered and no retry can fix it.
    #[error(transparent)]
    Delivery(Box<DeliveryFailure>),
    /// A store could not be restored from its changelog.
    #[error("task {task}: {source}")]
    Restore {
        /// The task.
        task: String,
        /// What failed.
        #[source]
        source: Box<RestoreError>,
    },
    /// A Kafka client call failed in a way the runtime does not retry (see
    /// [`crate::kafka::transient`]); the message says what to do.
    #[error(
        "{action} failed: {source}; {}",
        crate::kafka::transient::classify(source).remedy()
    )]
    Kafka {
        /// What the runtime was doing.
        action: &'static str,
        /// What librdkafka said.
        #[source]
        source: KafkaError,
    },
    /// The consumer reported an error no retry fixes (authorization, a topic that does not
    /// exist, an unsupported broker); the message names the resource and what to do.
    #[error(transparent)]
    ConsumerFailed(Box<ConsumerFailure>),
    /// The transactional offset commit failed for good (the producer is unusable).
    #[error(transparent)]
    TxnOffsets(Box<TxnOffsetsError>),
    /// The at-least-once offset commit was refused.
    #[error(transparent)]
    OffsetCommit(Box<OffsetCommitError>),
    /// Commits failed and were redone too many times in a row.
    #[error(
        "{0} commits in a row failed and were redone; giving up. The log says why each failed \
         (broker unavailable, transaction timeouts, authorization)"
    )]
    CommitsKeepFailing(u32),
    /// The state directory could not be used (another instance holds it, or a file operation
    /// failed).
    #[error(transparent)]
    StateDir(Box<StateDirError>),
    /// A store failed outside of processing (flushing after a commit, syncing, clearing).
    #[error("task {task}: {source}")]
    Store {
        /// The task.
        task: String,
        /// What failed.
        #[source]
        source: Box<StoreError>,
    },
    /// The client settings cannot configure a connection (a TLS file became unreadable after
    /// `build()` checked it).
    #[error(transparent)]
    Settings(Box<crate::kafka::settings::SettingsError>),
    /// A global table's topic could not be read (it does not exist, or the principal may not
    /// read it).
    #[error("reading global table topic {topic} failed: {reason}")]
    GlobalTable {
        /// The global table's topic.
        topic: String,
        /// What failed, and what to do.
        reason: String,
    },
    /// A serde cannot work with one of the topology's topics as it is (a schema registry serde
    /// whose schema is not compatible with the versions registered under its subject): the
    /// application stopped before processing anything.
    #[error("a serde cannot work with its topic: {reason}")]
    SerdeCheck {
        /// Which topic and serde, what does not fit, and what to do.
        reason: String,
    },
    /// A processing thread ended without reporting (it panicked).
    #[error("processing thread {0} panicked; see the log for the panic message")]
    ThreadPanicked(usize),
    /// An instance of the application (this one or another, Kafka Streams' included) asked every
    /// instance to shut down (`ThreadErrorResponse::ShutdownApplication`): the group coordinator
    /// answered this instance's members with the `SHUTDOWN_APPLICATION` status.
    #[error(
        "the application was asked to shut down by one of its instances ({detail}); see that \
         instance's log for the error that made it ask, and restart every instance once it is fixed"
    )]
    ApplicationShutdown {
        /// The coordinator's status detail (it names the member that asked).
        detail: String,
    },
    /// A source declared `offset_reset(none)` has a partition without a committed offset (Kafka
    /// Streams' `NoOffsetForPartitionException`).
    #[error(
        "{topic}-{partition} has no committed offset in this application's group and its source \
         says offset_reset(none): commit a start offset for the group first, or give the source \
         offset_reset(earliest), offset_reset(latest) or offset_reset(by_duration(..))"
    )]
    NoCommittedOffset {
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
    },
    /// Topics a sink may choose per record (`to(["a", "b"], chooser, ..)`) do not exist: the
    /// application stopped before processing anything.
    #[error(
        "the topics {topics:?} do not exist, and a `to([..], chooser, ..)` of the topology may \
         send records to them: create them, or take them out of its list"
    )]
    MissingChosenTopics {
        /// The missing topics.
        topics: Vec<String>,
    },
}

impl StreamsError {
    /// A Kafka failure while doing `action`.
    pub(crate) fn kafka(action: &'static str) -> impl FnOnce(KafkaError) -> StreamsError {
        move |source| StreamsError::Kafka { action, source }
    }
}

macro_rules! boxed_from {
    ($($variant:ident($ty:ty)),* $(,)?) => {$(
        impl From<$ty> for StreamsError {
            fn from(e: $ty) -> Self {
                StreamsError::$variant(Box::new(e))
            }
        }
    )*};
}

boxed_from!(
    Group(GroupError),
    Delivery(DeliveryFailure),
    TxnOffsets(TxnOffsetsError),
    OffsetCommit(OffsetCommitError),
    StateDir(StateDirError),
    ConsumerFailed(ConsumerFailure),
    Settings(crate::kafka::settings::SettingsError),
);

impl StreamsError {
    /// Task `task` failed with `source`.
    pub(crate) fn task(task: impl ToString, source: TaskError) -> StreamsError {
        StreamsError::Task {
            task: task.to_string(),
            source: Box::new(source),
        }
    }

    /// A store of task `task` failed with `source`.
    pub(crate) fn store(task: impl ToString, source: StoreError) -> StreamsError {
        StreamsError::Store {
            task: task.to_string(),
            source: Box::new(source),
        }
    }

    /// Restoring task `task` failed with `source`.
    pub(crate) fn restore(task: impl ToString, source: RestoreError) -> StreamsError {
        StreamsError::Restore {
            task: task.to_string(),
            source: Box::new(source),
        }
    }
}
