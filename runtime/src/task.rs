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
//! 3. at every commit, **flushes the record cache** with [`Task::flush_cache`] (after
//!    [`Task::set_cache_max_bytes`] turned it on): each aggregation forwards the latest result
//!    of every key it changed since the last flush;
//! 4. on an aborted transaction, **drops uncommitted state** with [`Task::clear`] (or drops the
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
//! task.restore("counts-counts-changelog", b"a", Some(&4i64.to_be_bytes()))?;
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

use crate::serdes::{Encoded, Serde, SerdeError, Windowed};
use crate::store::{BackendFactory, StoreBackend, StoreError};
use crate::topology::{StoreInfo, SubtopologyInfo, TopologyInfo};

/// Record headers: an ordered list of (name, value) pairs; names may repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    entries: Vec<(String, Option<Vec<u8>>)>,
}

static EMPTY_HEADERS: Headers = Headers::new();

impl Headers {
    /// No headers.
    pub const fn new() -> Self {
        Headers {
            entries: Vec::new(),
        }
    }

    /// A shared empty header list.
    pub fn empty() -> &'static Headers {
        &EMPTY_HEADERS
    }

    /// Appends a header.
    pub fn add(&mut self, name: impl Into<String>, value: Option<impl Into<Vec<u8>>>) -> &mut Self {
        self.entries.push((name.into(), value.map(Into::into)));
        self
    }

    /// Appends a header and returns the list (builder style).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        self.entries.push((name.into(), Some(value.into())));
        self
    }

    /// The value of the last header named `name`.
    pub fn last(&self, name: &str) -> Option<Option<&[u8]>> {
        self.entries
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_deref())
    }

    /// All headers in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&[u8]>)> {
        self.entries.iter().map(|(n, v)| (n.as_str(), v.as_deref()))
    }

    /// The number of headers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One consumed record, as the runner hands it to [`Task::process`].
#[derive(Debug, Clone, Copy)]
pub struct InputRecord<'a> {
    /// The index of the record's topic in [`Task::source_topics`] (resolve it once per
    /// partition with [`Task::source_index`]).
    pub source: usize,
    /// The partition the record was read from.
    pub partition: i32,
    /// Its offset.
    pub offset: i64,
    /// Key bytes; `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` for a null value (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Timestamp in milliseconds since the epoch.
    pub timestamp: i64,
    /// Headers.
    pub headers: &'a Headers,
}

/// What a topic a task writes to is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopicKind {
    /// A user topic written by `to(...)`.
    Sink,
    /// An internal `-repartition` topic, read back by another subtopology.
    Repartition,
    /// A store's changelog (an internal `-changelog` topic).
    Changelog,
    /// A dead-letter topic chosen by `on_error`.
    DeadLetter,
}

/// How the partition of an outgoing record is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// By the serialized key with Kafka's default partitioner (murmur2, see
    /// [`Partitioning::partition`]), so Java clients agree; a null key may go to any partition.
    ByKey,
    /// Exactly this partition (changelog records go to the task's own partition).
    Exact(i32),
}

impl Partitioning {
    /// The partition out of `partitions` for a record with `key`; `None` for `ByKey` with a
    /// null key (the runner picks one) or no partitions.
    pub fn partition(self, key: Option<&[u8]>, partitions: i32) -> Option<i32> {
        match self {
            Partitioning::Exact(p) => Some(p),
            Partitioning::ByKey => {
                let key = key?;
                if partitions <= 0 {
                    return None;
                }
                Some(((murmur2(key) & 0x7fff_ffff) as i32) % partitions)
            }
        }
    }
}

/// Kafka's murmur2 hash (`org.apache.kafka.common.utils.Utils.murmur2`), as the default
/// partitioner applies it to serialized keys.
pub fn murmur2(data: &[u8]) -> u32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let len = data.len();
    let mut h = SEED ^ (len as u32);
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

/// One record a task writes. The bytes are borrowed from the task's buffers: copy them before
/// `send` returns.
#[derive(Debug, Clone, Copy)]
pub struct OutgoingRecord<'a> {
    /// Full topic name.
    pub topic: &'static str,
    /// What the topic is for.
    pub kind: TopicKind,
    /// How to choose the partition.
    pub partitioning: Partitioning,
    /// Key bytes; `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` for a tombstone.
    pub value: Option<&'a [u8]>,
    /// Timestamp (the input record's).
    pub timestamp: i64,
    /// Headers (the input record's; none on changelog records).
    pub headers: &'a Headers,
}

/// A failure of the runner's sink (for example a producer that cannot send).
#[derive(Debug, thiserror::Error)]
#[error("record sink: {0}")]
pub struct SinkError(pub Box<dyn std::error::Error + Send + Sync>);

impl SinkError {
    /// A sink error with a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        SinkError(message.to_string().into())
    }
}

/// Where a task's output goes: the TestDriver collects it, the Kafka runtime produces it.
pub trait RecordSink {
    /// Takes one outgoing record (copy its bytes; they are the task's buffers).
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError>;
}

impl<S: RecordSink + ?Sized> RecordSink for &mut S {
    #[inline]
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError> {
        (**self).send(record)
    }
}

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
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::KeyDeserialization => "key deserialization failed",
            ErrorKind::ValueDeserialization => "value deserialization failed",
            ErrorKind::Processing => "processing failed",
            ErrorKind::Serialization => "serialization failed",
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

    /// Subtopologies, nodes, topics and stores, in the spirit of Kafka Streams'
    /// `Topology.describe()`.
    fn describe() -> &'static str {
        Self::DESCRIPTION
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
    /// With a budget, an update of a `count`/`reduce`/`aggregate` (windowed or not) is written
    /// to the store (and its changelog) at once, but its result is only forwarded downstream
    /// when the cache is flushed: by [`Task::flush_cache`], which the runner calls at every
    /// commit, or by [`Task::process`] itself as soon as the dirty keys count more than the
    /// budget ([`Task::cache_bytes`]). Lowering the budget does not flush: call
    /// [`Task::flush_cache`] to forward what waits.
    fn set_cache_max_bytes(&mut self, bytes: usize) {
        let _ = bytes;
    }
    /// Forwards what the record cache holds back: for every aggregation, upstream ones first,
    /// each key that changed since the last flush, in the order keys first changed, once, with
    /// its current value read from the store, runs through the aggregation's downstream
    /// operators; repeats until no key is dirty (a downstream aggregation of the same task may
    /// have become dirty).
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

    /// Applies one changelog record (`value: None` is a tombstone) of `changelog_topic` (a
    /// store's `StoreInfo::changelog_topic`) while restoring.
    fn restore(
        &mut self,
        changelog_topic: &str,
        key: &[u8],
        value: Option<&[u8]>,
    ) -> Result<(), TaskError>;
    /// Drops all state: empties every store and forgets stream time and counters. Restore
    /// afterwards.
    fn clear(&mut self) -> Result<(), TaskError>;
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
    /// The backend of a store by name.
    fn store(&self, name: &str) -> Option<&Self::Backend>;
    /// Calls `f` with every store of the task and its description, in the order of
    /// `SubtopologyInfo::stores`: how the runtime flushes stores after a commit and syncs them
    /// before a checkpoint.
    fn for_each_store<E>(
        &mut self,
        f: impl FnMut(&'static StoreInfo, &mut Self::Backend) -> Result<(), E>,
    ) -> Result<(), E>;
}

type Ser<T> = fn(&T, &mut Vec<u8>) -> Result<Encoded, SerdeError>;
type De<T> = fn(Option<&[u8]>) -> Result<T, SerdeError>;

/// A typed handle of a topic: its name and the serdes the topology reads or writes it with.
/// `topology!` emits one per user topic (`WordCount::SENTENCES`).
pub struct TopicRef<K, V> {
    /// Full topic name.
    pub name: &'static str,
    pub(crate) key_ser: Ser<K>,
    pub(crate) key_de: De<K>,
    pub(crate) value_ser: Ser<V>,
    pub(crate) value_de: De<V>,
}

impl<K, V> TopicRef<K, V> {
    /// A handle of topic `name` with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(name: &'static str) -> Self {
        TopicRef {
            name,
            key_ser: KS::serialize,
            key_de: KS::deserialize,
            value_ser: VS::serialize,
            value_de: VS::deserialize,
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
}

impl<K, V> StoreRef<K, V> {
    /// A handle of store `name` with serdes `KS` and `VS`.
    pub const fn new<KS: Serde<Value = K>, VS: Serde<Value = V>>(name: &'static str) -> Self {
        StoreRef {
            name,
            key_ser: KS::serialize,
            key_de: KS::deserialize,
            value_de: VS::deserialize,
        }
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
            marker: PhantomData,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_matches_kafka() {
        // Values from Kafka's UtilsTest.testMurmur2.
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (data, expected) in cases {
            assert_eq!(
                murmur2(data) as i32,
                expected,
                "{:?}",
                std::str::from_utf8(data)
            );
        }
        assert_eq!(Partitioning::ByKey.partition(None, 3), None);
        assert_eq!(Partitioning::Exact(2).partition(None, 3), Some(2));
    }
}
