//! The contract between a compiled topology and whatever runs it.
//!
//! `topology!` turns a topology into a type implementing [`Topology`]. For every
//! (subtopology, partition) the runtime asks it for a task with [`Topology::create_task`] and
//! then, on that task:
//!
//! 1. **restores** each store by applying its changelog records with [`Task::restore`]
//!    (a table read from a user topic restores from that topic);
//! 2. **processes** records with [`Task::process`], passing each consumed record as an
//!    [`InputRecord`] and a [`RecordSink`] that receives every record the task writes: sink
//!    records, repartition records, changelog records and dead-letter records, each tagged
//!    with its [`TopicKind`] and its [`Partitioning`];
//! 3. **punctuates**: after every record [`Task::punctuate_stream_time`], and regularly, also
//!    without input, [`Task::punctuate_wall_clock`] (see [`punctuation`](crate::punctuation));
//!    what they write goes to the same sink and commits with the task's records;
//! 4. at every commit, **flushes the record cache** with [`Task::flush_cache`] (after
//!    [`Task::set_cache_max_bytes`] turned it on): each aggregation forwards the latest result
//!    of every key it changed since the last flush, each table (read from a topic, made by
//!    `to_table`, or a re-grouped table's aggregation) the change of every such key;
//! 5. on an aborted transaction, **drops uncommitted state** with [`Task::clear`] (or drops the
//!    task and creates a new one), sets the committed stream time with
//!    [`Task::set_stream_time`], restores again and re-reads its input from the committed
//!    offsets.
//!
//! The [`TestDriver`](crate::testing::TestDriver) and the Kafka runtime are two such runners:
//! the task code is the same, only the record source and the sink differ.
//!
//! Inside `process` the operators run inline: the record is deserialized once at its source,
//! the user's closures are called directly, and keys and values are serialized once per sink or
//! store write into buffers the task reuses. Nothing is boxed and nothing is dispatched
//! dynamically.
//!
//! # Driving a task
//!
//! A runner in a few lines — the Kafka runtime does the same with a consumer, a
//! transactional producer and LMDB or memory stores:
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::store::MemoryStores;
//! use dekaf_streams::task::{InputRecord, OutgoingRecord, RecordSink, SinkError, TopicKind};
//!
//! topology! {
//!     pub Counts = "counts" {
//!         stream("words", Utf8, Utf8).group_by_key().count("counts").to_stream().to("out", Utf8, I64);
//!     }
//! }
//!
//! /// Keeps (topic, partition, key, value) of everything the task writes.
//! #[derive(Default)]
//! struct Collect(Vec<(&'static str, Option<i32>, Option<Vec<u8>>, Option<Vec<u8>>)>);
//!
//! impl RecordSink for Collect {
//!     fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
//!         // A producer would resolve ByKey with the topic's partition count here.
//!         let partition = r.partitioning.partition(r.key, 3);
//!         self.0.push((r.topic, partition, r.key.map(<[u8]>::to_vec), r.value.map(<[u8]>::to_vec)));
//!         Ok(())
//!     }
//! }
//!
//! // The coordinator assigned subtopology "0", partition 2.
//! let mut task = Counts::create_task("0", 2, &mut MemoryStores)?;
//! // Restore from the changelog: "a" was counted 4 times before.
//! task.restore("counts-counts-changelog", b"a", Some(&4i64.to_be_bytes()), 900)?;
//! // Process a consumed record.
//! let source = task.source_index("words").expect("a source of this task");
//! let headers = Headers::new();
//! let record = InputRecord {
//!     source, partition: 2, offset: 17, key: Some(b"a"), value: Some(b"a"), timestamp: 1_000, headers: &headers,
//! };
//! let mut sink = Collect::default();
//! task.process(&record, &mut sink)?;
//! let five = Some(5i64.to_be_bytes().to_vec());
//! assert_eq!(sink.0, [
//!     // The changelog record goes to the task's own partition.
//!     ("counts-counts-changelog", Some(2), Some(b"a".to_vec()), five.clone()),
//!     ("out", Some(dekaf_streams::task::Partitioning::ByKey.partition(Some(b"a"), 3).unwrap()), Some(b"a".to_vec()), five),
//! ]);
//! // An aborted transaction: drop the state, then restore and re-process.
//! task.clear()?;
//! assert_eq!(task.stream_time(), i64::MIN);
//! # Ok::<(), dekaf_streams::task::TaskError>(())
//! ```
//!
//! # Errors of one record
//!
//! A record whose key or value does not deserialize, a `try_*` closure or `process(...)`
//! closure that returns `Err`, a closure that panics, or a key or value that does not serialize
//! is handed to the topology's `on_error` handler as a [`ProcessingError`]. Its
//! [`ErrorResponse`] decides: `Fail` (the default) makes `process` return
//! [`TaskError::Failed`], `Continue` skips the record, `DeadLetter(topic)` writes the original
//! key, value, timestamp and headers to `topic` and skips the record. Output that operators
//! already forwarded for the record is not withdrawn. Panics are caught per record with
//! `catch_unwind` (so they need `panic = "unwind"`, Rust's default); the default panic hook
//! still prints them.
//!
//! A [`RecordSink`] failure is never a record's fault: `process` returns [`TaskError::Sink`].

use std::fmt;
use std::marker::PhantomData;

use crate::serdes::{Encoded, Serde, SerdeContext, SerdeError, Windowed};
use crate::store::{BackendFactory, StoreBackend, StoreError};
use crate::topology::{StoreInfo, SubtopologyInfo, TopologyInfo, WindowedSink};

pub use crate::table::global::{GlobalStore, GlobalStores, GlobalTableInfo};

// The record and sink types live in `crate::record` (the stores use them too); re-exported
// here so `task::{InputRecord, RecordSink, ..}` keeps working.
pub use crate::record::{
    Headers, InputRecord, OutgoingRecord, Partitioning, RecordSink, SinkError, TopicKind, murmur2,
};

/// What `on_error` decides for a failing record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorResponse {
    /// Stop: `process` returns [`TaskError::Failed`] and the runtime commits nothing of the
    /// current interval. The default.
    Fail,
    /// Skip the record.
    Continue,
    /// Write the record's original key, value, timestamp and headers to this topic (a string
    /// literal, so the macro can check its name), then skip it.
    DeadLetter(&'static str),
}

/// The stage at which a record failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The key did not deserialize.
    KeyDeserialization,
    /// The value did not deserialize.
    ValueDeserialization,
    /// A user closure returned an error or panicked.
    Processing,
    /// A key or value did not serialize, or a store operation failed.
    Serialization,
    /// The record's timestamp is negative (no valid timestamp) where an operator needs one:
    /// windows and windowed joins cannot place it in a window.
    InvalidTimestamp,
    /// The record's key is null where an operator needs one. No built-in operator reports it
    /// any more: joins and aggregations drop such records and count them, as Kafka Streams
    /// does (see the DSL's "Null keys and values"); kept for custom runners and `on_error`
    /// handlers that match on it.
    NullKey,
    /// The record's value is null where an operator needs one. No built-in operator reports it
    /// any more (see [`ErrorKind::NullKey`]).
    NullValue,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::KeyDeserialization => "key deserialization failed",
            ErrorKind::ValueDeserialization => "value deserialization failed",
            ErrorKind::Processing => "processing failed",
            ErrorKind::Serialization => "serialization failed",
            ErrorKind::InvalidTimestamp => "invalid timestamp",
            ErrorKind::NullKey => "null key",
            ErrorKind::NullValue => "null value",
        })
    }
}

/// A record that failed, as `on_error` sees it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in {node} (topic {topic}, partition {partition}, offset {offset}): {message}")]
pub struct ProcessingError {
    /// The stage that failed.
    pub kind: ErrorKind,
    /// The operator node (as in `describe()`).
    pub node: &'static str,
    /// The topic the record was read from.
    pub topic: &'static str,
    /// Its partition.
    pub partition: i32,
    /// Its offset.
    pub offset: i64,
    /// What went wrong.
    pub message: String,
}

/// The error a `process(...)` closure or a `try_*` closure returns for a record it cannot
/// process. Store errors convert into it, so `?` works on store calls.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The record cannot be processed; `on_error` decides what happens.
    #[error("{0}")]
    Record(String),
    /// The changelog record of a store write could not be sent: the task fails.
    #[error(transparent)]
    Sink(#[from] SinkError),
}

impl ProcessError {
    /// A failure of this record with a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        ProcessError::Record(message.to_string())
    }
}

impl From<StoreError> for ProcessError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Sink(sink) => ProcessError::Sink(sink),
            other => ProcessError::Record(other.to_string()),
        }
    }
}

impl From<SerdeError> for ProcessError {
    fn from(error: SerdeError) -> Self {
        ProcessError::Record(error.to_string())
    }
}

/// A failure of a task as a whole.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// `on_error` answered `Fail` for this record.
    #[error("record failed and on_error chose Fail: {0}")]
    Failed(ProcessingError),
    /// The sink failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// A store failed while restoring or clearing.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A suppression's buffer is full and its config says `shut_down_when_full()` (Kafka
    /// Streams fails the task with a `StreamsException`): the instance stops.
    #[error("{message}")]
    BufferFull {
        /// The suppression's node.
        node: &'static str,
        /// What is full and which buffer config to change.
        message: String,
    },
    /// [`InputRecord::source`] is not an index of [`Task::source_topics`].
    #[error("source index {0} is not a source of this task")]
    UnknownSource(usize),
    /// A changelog topic that is not one of this task's.
    #[error("`{0}` is not a changelog topic of this task")]
    UnknownChangelog(String),
    /// A subtopology id that the topology does not have.
    #[error("the topology has no subtopology `{0}`")]
    UnknownSubtopology(String),
}

/// A compiled topology (implemented by `topology!`).
pub trait Topology: 'static {
    /// The application id: the streams group id and the prefix of the internal topics.
    const APPLICATION_ID: &'static str;
    /// Subtopologies, topics with their configurations, copartition groups and stores.
    const INFO: &'static TopologyInfo;
    /// The text of [`Topology::describe`].
    const DESCRIPTION: &'static str;
    /// The global tables (`global_table(..)`): read in full by every instance before its tasks
    /// process anything, and shared by its tasks (see [`GlobalStores`]).
    const GLOBAL_TABLES: &'static [GlobalTableInfo] = &[];

    /// The user topics written with windowed keys (`TimeWindowed`, `SessionWindowed`): their
    /// records are partitioned by the inner key, as Kafka Streams' `WindowedStreamPartitioner`
    /// does.
    const WINDOWED_SINKS: &'static [WindowedSink] = &[];

    /// The source topics that do not start at their beginning when the group has no committed
    /// offset for a partition (`stream(.., offset_reset(..))`); every other source does.
    const OFFSET_RESETS: &'static [crate::topology::SourceOffsetReset] = &[];

    /// The topics sinks choose among per record (`to(["a", "b"], chooser, ..)`): the
    /// application checks that each exists before it starts.
    const CHOSEN_TOPICS: &'static [&'static str] = &[];

    /// The task type (one variant per subtopology) over store backend `B`.
    type Task<B: StoreBackend>: Task<Backend = B>;

    /// Creates the task of `subtopology` (its id, `"0"`, `"1"`, …) for `partition`, opening its
    /// stores with `stores`. A new task's stores are whatever the backend holds: restore them
    /// before processing.
    fn create_task<F: BackendFactory>(
        subtopology: &str,
        partition: i32,
        stores: &mut F,
    ) -> Result<Self::Task<F::Backend>, TaskError>;

    /// Runs [`Serde::check_at_start`] for the serde of every key and value the topology reads
    /// from or writes to a user topic, and returns the first failure. `KafkaStreams` calls it
    /// before joining the group, with the instance's serde states entered.
    ///
    /// # Errors
    ///
    /// The first serde's [`StartCheckError`](crate::serdes::StartCheckError).
    fn check_serdes_at_start() -> Result<(), crate::serdes::StartCheckError> {
        Ok(())
    }

    /// Subtopologies, nodes, topics and stores, in the spirit of Kafka Streams'
    /// `Topology.describe()`; then, for taking over a Kafka Streams application in place, the
    /// topology declared to the coordinator (topics with their configs, copartition groups) and
    /// the Kafka Streams declaration of each internal topic, with the operators whose
    /// declaration can differ from a Java application's flagged (README, "Migrating from Kafka
    /// Streams").
    fn describe() -> &'static str {
        Self::DESCRIPTION
    }

    /// [`describe`](Self::describe) drawn in Graphviz DOT (see [`crate::picture`]):
    /// `dot -Tsvg` lays it out.
    ///
    /// # Errors
    ///
    /// None for a topology `topology!` made; the type says that reading a description can fail.
    fn describe_dot() -> Result<String, crate::picture::DescriptionError> {
        crate::picture::Description::parse(Self::DESCRIPTION).map(|d| d.to_dot())
    }

    /// [`describe`](Self::describe) as a Mermaid flowchart (see [`crate::picture`]).
    ///
    /// # Errors
    ///
    /// As [`describe_dot`](Self::describe_dot).
    fn describe_mermaid() -> Result<String, crate::picture::DescriptionError> {
        crate::picture::Description::parse(Self::DESCRIPTION).map(|d| d.to_mermaid())
    }
}

/// One task: one subtopology on one partition, owning its stores.
pub trait Task {
    /// The store backend.
    type Backend: StoreBackend;

    /// The subtopology this task runs.
    fn subtopology(&self) -> &'static SubtopologyInfo;
    /// The partition it owns.
    fn partition(&self) -> i32;
    /// The topics it reads, in the order [`InputRecord::source`] indexes: the subtopology's
    /// user source topics, then its repartition source topics.
    fn source_topics(&self) -> &'static [&'static str];
    /// The index of `topic` in [`Task::source_topics`].
    fn source_index(&self, topic: &str) -> Option<usize> {
        self.source_topics().iter().position(|t| *t == topic)
    }
    /// Processes one record, writing everything it produces to `sink`.
    fn process<S: RecordSink>(
        &mut self,
        record: &InputRecord<'_>,
        sink: &mut S,
    ) -> Result<(), TaskError>;

    // ---- record cache (see `crate::cache`) ----

    /// Sets the budget of the task's record cache in bytes; `0` (a new task's setting) turns
    /// caching off: every update of an aggregation is forwarded downstream as it happens.
    ///
    /// With a budget, an update of a `count`/`reduce`/`aggregate` (windowed or not), or of a
    /// table (read from a topic, `to_table`, a re-grouped aggregation), is written to the store
    /// (and its changelog) at once, but its result (the table's change) is only forwarded
    /// downstream when the cache is flushed: by [`Task::flush_cache`], which the runner calls at every
    /// commit, or by [`Task::process`] itself as soon as the dirty keys count more than the
    /// budget ([`Task::cache_bytes`]). Lowering the budget does not flush: call
    /// [`Task::flush_cache`] to forward what waits.
    fn set_cache_max_bytes(&mut self, bytes: usize) {
        let _ = bytes;
    }
    /// Forwards what the record cache holds back: for every aggregation and cached table,
    /// upstream ones first, each key that changed since the last flush, in the order keys first
    /// changed, once, with its current value read from the store (a table's change also with
    /// the value the key had at the last flush), runs through its downstream operators; repeats
    /// until no key is dirty (a downstream aggregation of the same task may have become dirty).
    ///
    /// A forwarded result carries the timestamp of the key's last update and no headers. A key
    /// whose value was deleted since it became dirty forwards a tombstone, unless it had no
    /// value before it became dirty either (then nothing), as in Kafka Streams. A window that
    /// expired while dirty is still forwarded with its final value (Kafka Streams forwards the
    /// cached value too), and dropped from the store at the next purge.
    ///
    /// Failures of the downstream operators go to `on_error` as [`Task::process`]'s do, with
    /// the source topic and offset of the record that last updated the key, and, for a dead
    /// letter, the key and value bytes of the aggregation's result (for a window, the key
    /// followed by the 8-byte window start) with that timestamp and no headers.
    ///
    /// The runner calls it at the start of every commit, inside the transaction under
    /// exactly-once, and so before a task is closed with a commit. [`Task::clear`] drops the
    /// dirty keys without forwarding them.
    fn flush_cache<S: RecordSink>(&mut self, sink: &mut S) -> Result<(), TaskError> {
        let _ = sink;
        Ok(())
    }
    /// What the dirty keys of the task's record cache count against its budget: key bytes,
    /// latest value sizes and a fixed overhead per key (`crate::cache::ENTRY_OVERHEAD`).
    fn cache_bytes(&self) -> usize {
        0
    }

    // ---- punctuation (see `crate::punctuation`) ----

    /// Runs the stream-time punctuations that are due at the task's stream time, in the order
    /// of their due times, each once; returns whether any ran. Nothing runs before the stream
    /// time is known. The runner calls it after every record it processes (between records,
    /// never during one), as Kafka Streams' `StreamTask#maybePunctuateStreamTime`.
    fn punctuate_stream_time<S: RecordSink>(&mut self, sink: &mut S) -> Result<bool, TaskError> {
        let _ = sink;
        Ok(false)
    }
    /// Starts the wall-clock schedules not started yet (the first punctuation of each is due
    /// one interval after `now_ms`), then says whether one is due at `now_ms`: the runner
    /// calls it when the task starts and before [`Task::punctuate_wall_clock`] (under
    /// exactly-once, to open the transaction first).
    fn wall_clock_due(&mut self, now_ms: i64) -> bool {
        let _ = now_ms;
        false
    }
    /// Runs the wall-clock punctuations due at `now_ms` (milliseconds since the epoch), in the
    /// order of their due times, each once; returns whether any ran. The runner calls it
    /// regularly, also when no record arrives, as Kafka Streams'
    /// `StreamTask#maybePunctuateSystemTime`.
    fn punctuate_wall_clock<S: RecordSink>(
        &mut self,
        now_ms: i64,
        sink: &mut S,
    ) -> Result<bool, TaskError> {
        let _ = (now_ms, sink);
        Ok(false)
    }

    /// Applies one changelog record (`value: None` is a tombstone) of `changelog_topic` (a
    /// store's `StoreInfo::changelog_topic`) with its `timestamp` while restoring; a table's
    /// store ([`StoreKind::TimestampedKeyValue`](crate::topology::StoreKind)) keeps the
    /// timestamp with the value, as Kafka Streams' timestamped stores restore it.
    fn restore(
        &mut self,
        changelog_topic: &str,
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<(), TaskError>;
    /// Drops all state: empties every store and forgets stream time and counters. Restore
    /// afterwards.
    fn clear(&mut self) -> Result<(), TaskError>;
    /// Drops what the task did since its stores' last committed flush (an aborted commit
    /// interval): every store's pending writes ([`StoreBackend::discard_pending`]), the record
    /// cache's dirty keys, and the in-memory indexes, rebuilt from the stores. Says whether the
    /// task is now exactly as of its stores' changelog offsets; `false` (the default, a store
    /// whose writes of the interval already reached storage, or a stream-stream join, whose
    /// window state only a full restore rebuilds) means: [`Task::clear`] and restore it all.
    fn discard_uncommitted(&mut self) -> Result<bool, TaskError> {
        Ok(false)
    }
    /// Whether the task keeps in-memory state that only a restore from the changelogs' start
    /// rebuilds (a stream-stream join's window bookkeeping): then its stores are never kept
    /// across a restart, only rebuilt.
    fn needs_full_restore(&self) -> bool {
        false
    }
    /// The task's stream time: the largest record timestamp it has processed (`i64::MIN`
    /// before the first).
    fn stream_time(&self) -> i64;
    /// Sets the stream time (after a restore, to the value committed with the offsets).
    fn set_stream_time(&mut self, stream_time: i64);
    /// Records dropped because they arrived after their window closed (one per record and
    /// window), as Kafka Streams' `dropped-records` counts them.
    fn late_records_dropped(&self) -> u64;
    /// Records skipped by `on_error` answering `Continue` or `DeadLetter`.
    fn records_skipped(&self) -> u64;
    /// Records an operator dropped because their key or value was null, where Kafka Streams
    /// drops them too (aggregations, joins, table sources: a warning and `dropped-records`).
    fn null_records_dropped(&self) -> u64 {
        0
    }
    /// Records a source skipped because their extracted timestamp was negative (see
    /// [`event_time`](crate::event_time)), as Kafka Streams' `RecordQueue` skips them (a
    /// warning and `dropped-records`).
    fn invalid_timestamps_dropped(&self) -> u64 {
        0
    }
    /// Every record dropped, as Kafka Streams' task metric `dropped-records-total` counts them:
    /// late ones, those `on_error` skipped, those dropped for a null key or value, and those
    /// skipped for a negative extracted timestamp.
    fn records_dropped(&self) -> u64 {
        self.late_records_dropped()
            + self.records_skipped()
            + self.null_records_dropped()
            + self.invalid_timestamps_dropped()
    }
    /// The backend of a store by name.
    fn store(&self, name: &str) -> Option<&Self::Backend>;
    /// The past versions of versioned table store `name` (`versioned(..)`); `None` for every
    /// other store.
    fn history(&self, name: &str) -> Option<&crate::table::versioned::VersionHistory> {
        let _ = name;
        None
    }
    /// Calls `f` with every store of the task and its description, in the order of
    /// `SubtopologyInfo::stores`: how the runtime flushes stores after a commit and syncs them
    /// when a task closes.
    fn for_each_store<E>(
        &mut self,
        f: impl FnMut(&'static StoreInfo, &mut Self::Backend) -> Result<(), E>,
    ) -> Result<(), E>;
    /// Hands the task the instance's global tables' stores: a task that joins a global table
    /// reads it there. A runner calls it once, right after creating the task; until then the
    /// task's global tables are empty.
    fn attach_global_stores(&mut self, globals: &GlobalStores) {
        let _ = globals;
    }
}

type Ser<T> = fn(&T, &mut Vec<u8>) -> Result<Encoded, SerdeError>;
type De<T> = fn(Option<&[u8]>) -> Result<T, SerdeError>;

/// A typed handle of a topic: its name and the serdes the topology reads or writes it with.
/// `topology!` emits one per user topic (`WordCount::SENTENCES`).
pub struct TopicRef<K, V> {
    /// Full topic name.
    pub name: &'static str,
    pub(crate) key_ser: SerIn<K>,
    pub(crate) key_de: DeIn<K>,
    pub(crate) value_ser: SerIn<V>,
    pub(crate) value_de: DeIn<V>,
}

/// A serde's [`Serde::serialize_in`].
type SerIn<T> = fn(SerdeContext<'_>, &T, &mut Vec<u8>) -> Result<Encoded, SerdeError>;
/// A serde's [`Serde::deserialize_in`].
type DeIn<T> = fn(SerdeContext<'_>, Option<&[u8]>) -> Result<T, SerdeError>;

impl<K, V> TopicRef<K, V> {
    /// A handle of topic `name` with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(name: &'static str) -> Self {
        TopicRef {
            name,
            key_ser: KS::serialize_in,
            key_de: KS::deserialize_in,
            value_ser: VS::serialize_in,
            value_de: VS::deserialize_in,
        }
    }
}

impl<K, V> Clone for TopicRef<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for TopicRef<K, V> {}
impl<K, V> fmt::Debug for TopicRef<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TopicRef({})", self.name)
    }
}

/// A typed handle of a key-value store (`WordCount::COUNTS: StoreRef<String, i64>`).
pub struct StoreRef<K, V> {
    /// The store's name.
    pub name: &'static str,
    pub(crate) key_ser: Ser<K>,
    pub(crate) key_de: De<K>,
    pub(crate) value_de: De<V>,
    /// Bytes before the value in a stored entry: 8 for a table's store, whose entries are
    /// Kafka Streams' timestamped values (timestamp ‖ value).
    pub(crate) value_offset: usize,
}

impl<K, V> StoreRef<K, V> {
    /// A handle of store `name` with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(name: &'static str) -> Self {
        StoreRef {
            name,
            key_ser: KS::serialize,
            key_de: KS::deserialize,
            value_de: VS::deserialize,
            value_offset: 0,
        }
    }

    /// A handle of a table's store `name` (a table source, `to_table`, a re-grouped table's
    /// aggregation), whose entries hold the update's timestamp before the value; reads return
    /// the plain value.
    pub const fn timestamped<KS: Serde<Value = K>, VS: Serde<Value = V>>(
        name: &'static str,
    ) -> Self {
        let mut handle = Self::new::<KS, VS>(name);
        handle.value_offset = 8;
        handle
    }

    /// The value of a stored entry.
    pub(crate) fn decode_value(&self, entry: &[u8]) -> Result<V, SerdeError> {
        (self.value_de)(Some(entry.get(self.value_offset..).unwrap_or_default()))
    }
}

impl<K, V> Clone for StoreRef<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for StoreRef<K, V> {}
impl<K, V> fmt::Debug for StoreRef<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreRef({})", self.name)
    }
}

/// A typed handle of a window store (`PageViews::VIEWS: WindowStoreRef<String, i64>`).
pub struct WindowStoreRef<K, V> {
    /// The store's name.
    pub name: &'static str,
    /// Window length in milliseconds.
    pub size_ms: i64,
    pub(crate) key_ser: Ser<K>,
    pub(crate) key_de: De<K>,
    pub(crate) value_de: De<V>,
    /// Bytes before the value in a stored entry: 8 for a sliding-window store, whose entries
    /// are Kafka Streams' timestamped values (largest record timestamp ‖ value).
    pub(crate) value_offset: usize,
    marker: PhantomData<fn() -> Windowed<K>>,
}

impl<K, V> WindowStoreRef<K, V> {
    /// A handle of window store `name` of windows `size_ms` long, with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(
        name: &'static str,
        size_ms: i64,
    ) -> Self {
        WindowStoreRef {
            name,
            size_ms,
            key_ser: KS::serialize,
            key_de: KS::deserialize,
            value_de: VS::deserialize,
            value_offset: 0,
            marker: PhantomData,
        }
    }

    /// A handle of sliding-window store `name` of time difference `difference_ms` (windows
    /// `[start, start + difference]`), whose entries hold the window's largest record timestamp
    /// before the value.
    pub const fn sliding<KS: Serde<Value = K>, VS: Serde<Value = V>>(
        name: &'static str,
        difference_ms: i64,
    ) -> Self {
        let mut handle = Self::new::<KS, VS>(name, difference_ms);
        handle.value_offset = 8;
        handle
    }

    /// A handle of a time-window aggregation's store `name` of windows `size_ms` long, whose
    /// entries are Kafka Streams' timestamped values (the window's largest record timestamp ‖
    /// value, `TimestampedWindowStore`).
    pub const fn timestamped<KS: Serde<Value = K>, VS: Serde<Value = V>>(
        name: &'static str,
        size_ms: i64,
    ) -> Self {
        let mut handle = Self::new::<KS, VS>(name, size_ms);
        handle.value_offset = 8;
        handle
    }

    /// The value of a stored entry.
    pub(crate) fn decode_value(&self, entry: &[u8]) -> Result<V, SerdeError> {
        (self.value_de)(Some(entry.get(self.value_offset..).unwrap_or_default()))
    }
}

impl<K, V> Clone for WindowStoreRef<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for WindowStoreRef<K, V> {}
impl<K, V> fmt::Debug for WindowStoreRef<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WindowStoreRef({})", self.name)
    }
}

/// A typed handle of a session-window store (`Activity::CLICKS_PER_SESSION:
/// SessionStoreRef<String, i64>`): its entries are sessions of a key, `[start, end]`.
pub struct SessionStoreRef<K, V> {
    /// The store's name.
    pub name: &'static str,
    pub(crate) key_ser: Ser<K>,
    pub(crate) key_de: De<K>,
    pub(crate) value_de: De<V>,
    marker: PhantomData<fn() -> Windowed<K>>,
}

impl<K, V> SessionStoreRef<K, V> {
    /// A handle of session store `name`, with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(name: &'static str) -> Self {
        SessionStoreRef {
            name,
            key_ser: KS::serialize,
            key_de: KS::deserialize,
            value_de: VS::deserialize,
            marker: PhantomData,
        }
    }
}

impl<K, V> Clone for SessionStoreRef<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for SessionStoreRef<K, V> {}
impl<K, V> fmt::Debug for SessionStoreRef<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionStoreRef({})", self.name)
    }
}
