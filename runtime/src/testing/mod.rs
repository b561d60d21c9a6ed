//! Run a compiled topology in process, without a broker: [`TestDriver`].
//!
//! The driver creates one task per subtopology (all on partition 0, as Kafka Streams'
//! `TopologyTestDriver` does, unless you ask for [more partitions](#partitions)), feeds the
//! records you pipe into their sources, passes records written to repartition topics straight
//! on to the subtopology that reads them, keeps what is written to user topics (sinks and
//! dead-letter topics) for you to read, and keeps changelog records. Stream time follows the
//! timestamps you give the records; after each record its task runs the stream-time
//! punctuations due. The wall clock is mocked: it starts at 0 (or
//! [`TestDriverBuilder::wall_clock`]) and moves only by [`TestDriver::advance_wall_clock`],
//! which runs the wall-clock punctuations due (see [`punctuation`](crate::punctuation)). A
//! record piped into a global table's topic updates that table at once, as the Kafka runtime's
//! global thread would (read it with [`TestDriver::global_store`]).
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::testing::TestDriver;
//!
//! topology! {
//!     /// Upper-cases values.
//!     pub Shout = "shout" {
//!         stream("in", Utf8, Utf8)
//!             .map_values(|v| v.to_uppercase())
//!             .to("out", Utf8, Utf8);
//!     }
//! }
//!
//! let driver = TestDriver::<Shout>::new();
//! let input = driver.input_topic(Shout::IN);
//! let output = driver.output_topic(Shout::OUT);
//! input.pipe_input("k".to_owned(), "hello".to_owned());
//! assert_eq!(output.read_key_value(), Some(("k".to_owned(), "HELLO".to_owned())));
//! assert!(output.is_empty());
//! ```
//!
//! # The record cache
//!
//! A new driver forwards every update of an aggregation or table at once (no record cache), so
//! tests see every intermediate result. [`TestDriver::with_cache_max_bytes`] gives every task a
//! record cache as the Kafka runtime does ([`KafkaStreams`](crate::streams::KafkaStreams)
//! caches by default): updates are then forwarded only by [`TestDriver::commit`] (what the
//! runtime does at every commit), or when a task's dirty keys exceed the budget, one record
//! per changed key with its latest value.
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::testing::TestDriver;
//!
//! topology! {
//!     pub Counts = "counts" {
//!         stream("words", Utf8, Utf8).group_by_key().count("counts").to_stream().to("out", Utf8, I64);
//!     }
//! }
//!
//! let driver = TestDriver::<Counts>::with_cache_max_bytes(10 * 1024 * 1024);
//! let (input, output) = (driver.input_topic(Counts::WORDS), driver.output_topic(Counts::OUT));
//! for word in ["a", "b", "a", "a"] {
//!     input.pipe_input(word.to_owned(), word.to_owned());
//! }
//! assert!(output.is_empty());
//! driver.commit();
//! assert_eq!(output.read_key_values_to_list(), [("a".to_owned(), 3), ("b".to_owned(), 1)]);
//! ```
//!
//! # Partitions
//!
//! `TestDriver::<T>::builder().partitions(n).build()` runs `n` partitions per topic: one task
//! per subtopology and partition, in the direction of Kafka Streams' KIP-1238 (whose partial
//! API was reverted before Kafka Streams 4.4, KAFKA-20903; there every topic declares its own
//! partition count, here all topics have `n`). A record piped in
//! goes to the partition Kafka's default partitioner picks for its serialized key (murmur2, the
//! producer's function; round robin for a null key), and so does every record the topology
//! writes by key to a repartition or output topic. So co-partitioned joins find their partner
//! only when both sides are keyed alike, and a repartitioned aggregation counts each key in one
//! task. Output records carry their partition ([`TestRecord::partition`]); stores are read
//! over all partitions.
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::testing::TestDriver;
//!
//! topology! {
//!     pub Counts = "counts" {
//!         stream("words", Utf8, Utf8)
//!             .group_by(|_, word| word.clone(), Utf8, Utf8)
//!             .count("counts").to_stream().to("out", Utf8, I64);
//!     }
//! }
//!
//! let driver = TestDriver::<Counts>::builder().partitions(4).build();
//! let (input, output) = (driver.input_topic(Counts::WORDS), driver.output_topic(Counts::OUT));
//! input.pipe_input("s1".to_owned(), "the".to_owned()); // key s1: partition 1
//! input.pipe_input("s4".to_owned(), "the".to_owned()); // key s4: partition 0
//! let counts: Vec<_> = output.read_records_to_list().into_iter().map(|r| (r.partition, r.value)).collect();
//! // "the" is repartitioned to partition 3 (murmur2("the") % 4) and counted there twice.
//! assert_eq!(counts, [(3, 1), (3, 2)]);
//! ```
//!
//! # Panics
//!
//! The driver is a test tool: `pipe_*` panics when the topology fails (the error handler chose
//! `Fail`; use the `try_pipe_*` variants to get the [`TestError`]) or the topic is not one the
//! topology reads, and the `read_*` methods
//! panic when a record does not deserialize with the handle's serdes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::time::Duration;

use crate::store::{MemoryBackend, StoreBackend};
use crate::task::{
    Headers, SessionStoreRef, StoreRef, Task, TaskError, TopicRef, Topology, WindowStoreRef,
};

mod run;
mod stores;
mod topics;

use crate::query::VersionedRecord;
use run::Inner;
pub use stores::{TestKeyValueStore, TestSessionStore, TestWindowStore};
pub use topics::{TestInputTopic, TestOutputTopic};

/// Why the driver could not pipe a record.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    /// The topology does not read this topic.
    #[error("the topology reads no topic `{0}`")]
    UnknownTopic(String),
    /// The topology failed on the record (the error handler chose `Fail`, or a sink failed).
    #[error(transparent)]
    Task(#[from] TaskError),
    /// A record was written to a partition the driver does not have.
    #[error(
        "a record for `{topic}` names partition {partition}, but the driver runs {partitions} partitions per topic: build it with TestDriver::<T>::builder().partitions(n) for more"
    )]
    Partition {
        /// The topic.
        topic: String,
        /// The partition the record named.
        partition: i32,
        /// The driver's partitions per topic.
        partitions: i32,
    },
}

/// A record as the driver keeps it: bytes, timestamp, headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    /// Key bytes (`None`: null key).
    pub key: Option<Vec<u8>>,
    /// Value bytes (`None`: tombstone).
    pub value: Option<Vec<u8>>,
    /// Timestamp.
    pub timestamp: i64,
    /// Headers.
    pub headers: Headers,
}

/// A typed record read from an output topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRecord<K, V> {
    /// Key.
    pub key: K,
    /// Value.
    pub value: V,
    /// Timestamp.
    pub timestamp: i64,
    /// Headers.
    pub headers: Headers,
    /// The partition the record was written to (always 0 with one partition per topic).
    pub partition: i32,
}

/// Runs topology `T` in process. See the [module docs](self).
pub struct TestDriver<T: Topology> {
    inner: RefCell<Inner<T>>,
    /// The serde state of this driver's instance, entered while it runs its tasks.
    serdes: crate::serdes::SerdeStates,
}

impl<T: Topology> Default for TestDriver<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Builds a [`TestDriver`] with more than the defaults: [`TestDriver::builder`].
pub struct TestDriverBuilder<T: Topology> {
    partitions: i32,
    cache_max_bytes: usize,
    wall_clock: i64,
    serdes: crate::serdes::SerdeStates,
    topology: std::marker::PhantomData<fn() -> T>,
}

impl<T: Topology> TestDriverBuilder<T> {
    /// Runs `n` partitions per topic (at least 1; the default 1): one task per subtopology and
    /// partition. Records piped in go to the partition Kafka's default partitioner picks
    /// (murmur2 of the serialized key; round robin for a null key), and so do the records the
    /// topology writes by key to repartition and output topics: co-partitioning and
    /// repartitioning work as against a broker whose topics all have `n` partitions.
    pub fn partitions(mut self, n: i32) -> Self {
        self.partitions = n.max(1);
        self
    }

    /// Gives every task a record cache of `bytes` (see [`TestDriver::with_cache_max_bytes`]).
    pub fn cache_max_bytes(mut self, bytes: usize) -> Self {
        self.cache_max_bytes = bytes;
        self
    }

    /// Starts the mocked wall clock at `ms` (milliseconds since the epoch; the default 0).
    /// Wall-clock punctuations are first due one interval after it.
    pub fn wall_clock(mut self, ms: i64) -> Self {
        self.wall_clock = ms;
        self
    }

    /// Gives the serdes of this driver the state `state` (a schema registry client, ...), as
    /// `Builder::serde_state` does for a running instance; see
    /// [`SerdeStates`](crate::serdes::SerdeStates).
    pub fn serde_state<S: Send + Sync + 'static>(mut self, state: S) -> Self {
        self.serdes = self.serdes.with(state);
        self
    }

    /// The driver.
    ///
    /// # Panics
    ///
    /// If the topology cannot create its tasks (it always can with in-memory stores).
    pub fn build(self) -> TestDriver<T> {
        let serdes = self.serdes;
        let inner = {
            let _serdes = serdes.enter();
            RefCell::new(Inner::new(
                self.partitions,
                self.cache_max_bytes,
                self.wall_clock,
            ))
        };
        TestDriver { inner, serdes }
    }
}

impl<T: Topology> TestDriver<T> {
    /// A driver with one task per subtopology on partition 0 and empty in-memory stores,
    /// without a record cache: every update of an aggregation is forwarded at once.
    ///
    /// # Panics
    ///
    /// If the topology cannot create its tasks (it always can with in-memory stores).
    pub fn new() -> Self {
        Self::with_cache_max_bytes(0)
    }

    /// A driver whose tasks each have a record cache of `bytes` (0: none, as
    /// [`TestDriver::new`]): aggregation results are forwarded by [`TestDriver::commit`], or
    /// when a task's dirty keys count more than `bytes`. See the [module docs](self).
    ///
    /// # Panics
    ///
    /// If the topology cannot create its tasks (it always can with in-memory stores).
    pub fn with_cache_max_bytes(bytes: usize) -> Self {
        Self::builder().cache_max_bytes(bytes).build()
    }

    /// A builder for a driver with several partitions per topic, a record cache or a wall
    /// clock starting elsewhere than 0: `TestDriver::<MyTopology>::builder().partitions(4).build()`.
    pub fn builder() -> TestDriverBuilder<T> {
        TestDriverBuilder {
            partitions: 1,
            cache_max_bytes: 0,
            wall_clock: 0,
            serdes: crate::serdes::SerdeStates::new(),
            topology: std::marker::PhantomData,
        }
    }

    /// The partitions per topic this driver runs.
    pub fn partitions(&self) -> i32 {
        self.inner.borrow().partitions
    }

    /// The mocked wall clock, in milliseconds since the epoch.
    pub fn wall_clock(&self) -> i64 {
        self.inner.borrow().wall_clock
    }

    /// Advances the mocked wall clock by `by` and runs the wall-clock punctuations that are
    /// then due, in every task (each schedule at most once, however many intervals `by`
    /// spans, as Kafka Streams' `TopologyTestDriver#advanceWallClockTime`); what they write to
    /// topics the topology reads is processed at once.
    ///
    /// # Panics
    ///
    /// When the topology fails in a punctuation (use [`TestDriver::try_advance_wall_clock`]).
    pub fn advance_wall_clock(&self, by: Duration) {
        if let Err(e) = self.try_advance_wall_clock(by) {
            panic!("the topology failed in a wall-clock punctuation: {e}");
        }
    }

    /// [`TestDriver::advance_wall_clock`], returning the task's error instead of panicking.
    pub fn try_advance_wall_clock(&self, by: Duration) -> Result<(), TestError> {
        let _serdes = self.serdes.enter();
        let mut inner = self.inner.borrow_mut();
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        inner.wall_clock = inner.wall_clock.saturating_add(ms);
        let now = inner.wall_clock;
        inner.for_each_task(|task, sink| task.punctuate_wall_clock(now, sink).map(drop))?;
        Ok(())
    }

    /// The typed input topic `topic` (a handle such as `WordCount::SENTENCES`). Records get
    /// timestamp 0 unless you give one or set a start with [`TestInputTopic::with_time`].
    pub fn input_topic<K, V>(&self, topic: TopicRef<K, V>) -> TestInputTopic<'_, T, K, V> {
        TestInputTopic {
            driver: self,
            topic,
            time: RefCell::new((0, 0)),
        }
    }

    /// The typed output topic `topic`. Any handle works, also one you make for a dead-letter
    /// topic: `TopicRef::new::<Utf8, Bytes>("orders-dead-letter")`.
    pub fn output_topic<K, V>(&self, topic: TopicRef<K, V>) -> TestOutputTopic<'_, T, K, V> {
        TestOutputTopic {
            driver: self,
            topic,
        }
    }

    /// The store of the global table named `store` (a handle to the one the tasks read), if the
    /// topology has that global table.
    pub fn global_store(&self, store: &str) -> Option<crate::task::GlobalStore> {
        self.inner.borrow().globals.store(store).cloned()
    }

    /// The session-window store `store` (a handle such as `Activity::CLICKS_PER_SESSION`).
    pub fn session_store<K, V>(
        &self,
        store: SessionStoreRef<K, V>,
    ) -> TestSessionStore<'_, T, K, V> {
        TestSessionStore {
            driver: self,
            store,
        }
    }

    /// The key-value store `store` (a handle such as `WordCount::COUNTS`).
    pub fn key_value_store<K, V>(&self, store: StoreRef<K, V>) -> TestKeyValueStore<'_, T, K, V> {
        TestKeyValueStore {
            driver: self,
            store,
        }
    }

    /// The window store `store`.
    pub fn window_store<K, V>(&self, store: WindowStoreRef<K, V>) -> TestWindowStore<'_, T, K, V> {
        TestWindowStore {
            driver: self,
            store,
        }
    }

    /// The changelog records written to `topic` so far, over all partitions.
    pub fn changelog(&self, topic: &str) -> Vec<RawRecord> {
        self.inner
            .borrow()
            .changelogs
            .get(topic)
            .map(|records| records.iter().map(|(_, r)| r.clone()).collect())
            .unwrap_or_default()
    }

    /// The changelog records written to `topic` so far, each with its partition (the partition
    /// of the task that wrote it).
    pub fn changelog_with_partitions(&self, topic: &str) -> Vec<(i32, RawRecord)> {
        self.inner
            .borrow()
            .changelogs
            .get(topic)
            .cloned()
            .unwrap_or_default()
    }

    /// Commits the topology asked for (`ctx.commit()` in `process`/`process_values`, Kafka
    /// Streams' `ProcessorContext#commit`). The driver serves each once the record that asked
    /// is processed, by flushing the record caches as [`TestDriver::commit`] does (Kafka Streams'
    /// `TopologyTestDriver` commits after every record anyway).
    pub fn commits_requested(&self) -> u64 {
        self.inner.borrow().commits_requested
    }

    /// Records dropped as late by windowed operators, over all tasks.
    pub fn late_records_dropped(&self) -> u64 {
        self.inner
            .borrow()
            .tasks
            .iter()
            .map(Task::late_records_dropped)
            .sum()
    }

    /// Every record dropped, over all tasks, as Kafka Streams' `dropped-records-total` counts
    /// them: late records, those the error handler skipped, and those an operator dropped for a
    /// null key or value ([`Task::records_dropped`]).
    pub fn records_dropped(&self) -> u64 {
        self.inner
            .borrow()
            .tasks
            .iter()
            .map(Task::records_dropped)
            .sum()
    }

    /// Records skipped by the error handler (`Continue` or `DeadLetter`), over all tasks.
    pub fn records_skipped(&self) -> u64 {
        self.inner
            .borrow()
            .tasks
            .iter()
            .map(Task::records_skipped)
            .sum()
    }

    /// The stream time of subtopology `index`: the largest over its partitions' tasks.
    pub fn stream_time(&self, subtopology: usize) -> Option<i64> {
        let inner = self.inner.borrow();
        let n = inner.partitions as usize;
        inner
            .tasks
            .get(subtopology * n..(subtopology + 1) * n)
            .and_then(|tasks| tasks.iter().map(Task::stream_time).max())
    }

    /// Flushes every task's record cache, as the runtime does at a commit: each aggregation
    /// forwards the latest result of every key it changed since the last flush. Records the
    /// flush writes to repartition topics are processed at once, and caches they dirty are
    /// flushed too, until nothing waits. Without a cache there is nothing to do.
    ///
    /// # Panics
    ///
    /// When the topology fails while forwarding (use [`TestDriver::try_commit`]).
    pub fn commit(&self) {
        if let Err(e) = self.try_commit() {
            panic!("the topology failed while flushing its record cache: {e}");
        }
    }

    /// [`TestDriver::commit`], returning the task's error instead of panicking.
    pub fn try_commit(&self) -> Result<(), TestError> {
        let _serdes = self.serdes.enter();
        let mut inner = self.inner.borrow_mut();
        // Sink records are queued too (for a topology that reads its own output).
        while inner.for_each_task(|task, sink| task.flush_cache(sink))? {}
        Ok(())
    }

    /// Drops all state of every task and rebuilds the stores from the changelog records written
    /// so far, as the runtime does after an aborted transaction (here nothing is aborted, so the
    /// state comes back the same). Results waiting in a record cache are dropped; punctuation
    /// schedules start again (wall-clock ones from the driver's current wall clock).
    pub fn clear_and_restore(&self) -> Result<(), TaskError> {
        let _serdes = self.serdes.enter();
        let mut inner = self.inner.borrow_mut();
        let Inner {
            tasks,
            changelogs,
            wall_clock,
            ..
        } = &mut *inner;
        for task in tasks.iter_mut() {
            let time = task.stream_time();
            let partition = task.partition();
            task.clear()?;
            for store in task.subtopology().stores {
                if let Some(records) = changelogs.get(store.changelog_topic) {
                    for (_, r) in records.iter().filter(|(p, _)| *p == partition) {
                        if let Some(key) = &r.key {
                            task.restore(
                                store.changelog_topic,
                                key,
                                r.value.as_deref(),
                                r.timestamp,
                            )?;
                        }
                    }
                }
            }
            task.set_stream_time(time);
            task.wall_clock_due(*wall_clock);
        }
        Ok(())
    }

    /// Pipes raw bytes into `topic` (for example a record that does not deserialize), into
    /// the partition Kafka's default partitioner picks for its key.
    pub fn try_pipe_raw(&self, topic: &str, record: RawRecord) -> Result<(), TestError> {
        let _serdes = self.serdes.enter();
        let mut inner = self.inner.borrow_mut();
        // A global table's topic updates its store at once, as Kafka Streams'
        // `TopologyTestDriver` does (a record with a null key is skipped).
        if inner
            .globals
            .apply(topic, record.key.as_deref(), record.value.as_deref())
        {
            return Ok(());
        }
        let Some(topic) = inner.routes.keys().copied().find(|t| *t == topic) else {
            return Err(TestError::UnknownTopic(topic.to_owned()));
        };
        let partition = inner.partition_of(topic, record.key.as_deref());
        inner.run_queue(VecDeque::from([(topic, partition, record)]))
    }

    fn outputs_pop(&self, topic: &str) -> Option<(i32, RawRecord)> {
        self.inner.borrow_mut().outputs.get_mut(topic)?.pop_front()
    }

    fn outputs_len(&self, topic: &str) -> usize {
        self.inner
            .borrow()
            .outputs
            .get(topic)
            .map_or(0, VecDeque::len)
    }

    /// The value under `key` in store `name`, from whichever partition's task holds it.
    fn store_get(&self, name: &str, key: &[u8]) -> Option<Vec<u8>> {
        let inner = self.inner.borrow();
        inner
            .tasks
            .iter()
            .filter_map(|t| t.store(name))
            .find_map(|b: &MemoryBackend| b.get(key).ok().flatten().map(<[u8]>::to_vec))
    }

    /// The version of `key` as of `as_of` in versioned store `name`, as owned bytes.
    fn versioned_get(
        &self,
        name: &str,
        key: &[u8],
        as_of: i64,
    ) -> Option<VersionedRecord<Vec<u8>>> {
        let inner = self.inner.borrow();
        let mut versioned = false;
        for t in inner.tasks.iter() {
            let (Some(store), Some(history)) = (t.store(name), t.history(name)) else {
                continue;
            };
            versioned = true;
            match crate::table::versioned::get_as_of_bytes(store, history, key, as_of) {
                Ok(Some(v)) => {
                    return Some(VersionedRecord {
                        value: v.value.to_vec(),
                        timestamp: v.timestamp,
                        valid_to: v.valid_to,
                    });
                }
                Ok(None) => {}
                Err(e) => panic!("store {name}: {e}"),
            }
        }
        assert!(
            versioned || inner.tasks.is_empty(),
            "store {name} is not versioned: get_as_of reads a table made with .versioned(..)"
        );
        None
    }

    /// Every entry of store `name` over all partitions, in key-byte order.
    fn store_entries(&self, name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
        let inner = self.inner.borrow();
        let mut out = Vec::new();
        for b in inner.tasks.iter().filter_map(|t| t.store(name)) {
            if let Ok(range) = b.range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded) {
                out.extend(range.flatten().map(|(k, v)| (k.to_vec(), v.to_vec())));
            }
        }
        out.sort();
        out
    }
}
