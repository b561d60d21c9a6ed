//! Run a compiled topology in process, without a broker: [`TestDriver`].
//!
//! The driver creates one task per subtopology (all on partition 0, as Kafka Streams'
//! `TopologyTestDriver` does), feeds the records you pipe into their sources, passes records
//! written to repartition topics straight on to the subtopology that reads them, keeps what is
//! written to user topics (sinks and dead-letter topics) for you to read, and keeps changelog
//! records. Stream time follows the timestamps you give the records. A record piped into a global
//! table's topic updates that table at once, as the Kafka runtime's global thread would (read it
//! with [`TestDriver::global_store`]).
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
//! A new driver forwards every update of an aggregation at once (no record cache), so tests
//! see every intermediate result. [`TestDriver::with_cache_max_bytes`] gives every task a
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
//! # Panics
//!
//! The driver is a test tool: `pipe_*` panics when the topology fails (the error handler chose
//! `Fail`; use the `try_pipe_*` variants to get the [`TestError`]) or the topic is not one the
//! topology reads, and the `read_*` methods
//! panic when a record does not deserialize with the handle's serdes.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use crate::store::{MemoryBackend, MemoryStores};
use crate::task::{
    GlobalStores, Headers, InputRecord, OutgoingRecord, RecordSink, SessionStoreRef, SinkError,
    StoreRef, Task, TaskError, TopicKind, TopicRef, Topology, WindowStoreRef,
};

mod stores;
mod topics;

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
}

struct Inner<T: Topology> {
    tasks: Vec<T::Task<MemoryBackend>>,
    /// topic → (task index, source index)
    routes: HashMap<&'static str, (usize, usize)>,
    outputs: HashMap<String, VecDeque<RawRecord>>,
    changelogs: HashMap<String, Vec<RawRecord>>,
    offsets: HashMap<String, i64>,
    /// The global tables' stores, shared by the tasks.
    globals: GlobalStores,
}

/// Runs topology `T` in process. See the [module docs](self).
pub struct TestDriver<T: Topology> {
    inner: RefCell<Inner<T>>,
}

impl<T: Topology> Default for TestDriver<T> {
    fn default() -> Self {
        Self::new()
    }
}

struct Collect<'a> {
    queue: &'a mut VecDeque<(&'static str, RawRecord)>,
    outputs: &'a mut HashMap<String, VecDeque<RawRecord>>,
    changelogs: &'a mut HashMap<String, Vec<RawRecord>>,
}

impl RecordSink for Collect<'_> {
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        let raw = RawRecord {
            key: r.key.map(<[u8]>::to_vec),
            value: r.value.map(<[u8]>::to_vec),
            timestamp: r.timestamp,
            headers: r.headers.clone(),
        };
        match r.kind {
            TopicKind::Changelog => self
                .changelogs
                .entry(r.topic.to_owned())
                .or_default()
                .push(raw),
            TopicKind::Repartition => self.queue.push_back((r.topic, raw)),
            TopicKind::Sink | TopicKind::DeadLetter => {
                self.outputs
                    .entry(r.topic.to_owned())
                    .or_default()
                    .push_back(raw.clone());
                self.queue.push_back((r.topic, raw));
            }
        }
        Ok(())
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
        let mut tasks = Vec::new();
        let mut routes = HashMap::new();
        let globals = GlobalStores::new(T::GLOBAL_TABLES);
        for sub in T::INFO.subtopologies {
            let mut task = match T::create_task(sub.id, 0, &mut MemoryStores) {
                Ok(task) => task,
                Err(e) => panic!("creating the task of subtopology {}: {e}", sub.id),
            };
            task.set_cache_max_bytes(bytes);
            task.attach_global_stores(&globals);
            for (i, topic) in task.source_topics().iter().enumerate() {
                routes.insert(*topic, (tasks.len(), i));
            }
            tasks.push(task);
        }
        TestDriver {
            inner: RefCell::new(Inner {
                tasks,
                routes,
                outputs: HashMap::new(),
                changelogs: HashMap::new(),
                offsets: HashMap::new(),
                globals,
            }),
        }
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

    /// The changelog records written to `topic` so far.
    pub fn changelog(&self, topic: &str) -> Vec<RawRecord> {
        self.inner
            .borrow()
            .changelogs
            .get(topic)
            .cloned()
            .unwrap_or_default()
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

    /// Records skipped by the error handler (`Continue` or `DeadLetter`), over all tasks.
    pub fn records_skipped(&self) -> u64 {
        self.inner
            .borrow()
            .tasks
            .iter()
            .map(Task::records_skipped)
            .sum()
    }

    /// The stream time of the task of subtopology `index`.
    pub fn stream_time(&self, subtopology: usize) -> Option<i64> {
        self.inner
            .borrow()
            .tasks
            .get(subtopology)
            .map(Task::stream_time)
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
        let mut inner = self.inner.borrow_mut();
        loop {
            let mut queue = VecDeque::new();
            let Inner {
                tasks,
                outputs,
                changelogs,
                ..
            } = &mut *inner;
            for task in tasks.iter_mut() {
                let mut sink = Collect {
                    queue: &mut queue,
                    outputs: &mut *outputs,
                    changelogs: &mut *changelogs,
                };
                task.flush_cache(&mut sink)?;
            }
            // Sink records are queued too (for a topology that reads its own output).
            if queue.is_empty() {
                return Ok(());
            }
            Self::run_queue(&mut inner, queue)?;
        }
    }

    /// Drops all state of every task and rebuilds the stores from the changelog records written
    /// so far, as the runtime does after an aborted transaction (here nothing is aborted, so the
    /// state comes back the same). Results waiting in a record cache are dropped.
    pub fn clear_and_restore(&self) -> Result<(), TaskError> {
        let mut inner = self.inner.borrow_mut();
        let Inner {
            tasks, changelogs, ..
        } = &mut *inner;
        for task in tasks.iter_mut() {
            let time = task.stream_time();
            task.clear()?;
            for store in task.subtopology().stores {
                if let Some(records) = changelogs.get(store.changelog_topic) {
                    for r in records {
                        if let Some(key) = &r.key {
                            task.restore(store.changelog_topic, key, r.value.as_deref())?;
                        }
                    }
                }
            }
            task.set_stream_time(time);
        }
        Ok(())
    }

    /// Pipes raw bytes into `topic` (for example a record that does not deserialize).
    pub fn try_pipe_raw(&self, topic: &str, record: RawRecord) -> Result<(), TestError> {
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
        Self::run_queue(&mut inner, VecDeque::from([(topic, record)]))
    }

    /// Processes `queue` and whatever its records write to topics the topology reads.
    fn run_queue(
        inner: &mut Inner<T>,
        mut queue: VecDeque<(&'static str, RawRecord)>,
    ) -> Result<(), TestError> {
        while let Some((topic, record)) = queue.pop_front() {
            let Inner {
                tasks,
                routes,
                outputs,
                changelogs,
                offsets,
                globals,
            } = inner;
            // Output written to a global table's topic updates the table.
            globals.apply(topic, record.key.as_deref(), record.value.as_deref());
            let Some(&(task, source)) = routes.get(topic) else {
                continue;
            };
            let offset = offsets.entry(topic.to_owned()).or_insert(0);
            let input = InputRecord {
                source,
                partition: 0,
                offset: *offset,
                key: record.key.as_deref(),
                value: record.value.as_deref(),
                timestamp: record.timestamp,
                headers: &record.headers,
            };
            *offset += 1;
            let mut sink = Collect {
                queue: &mut queue,
                outputs,
                changelogs,
            };
            tasks[task].process(&input, &mut sink)?;
        }
        Ok(())
    }

    fn outputs_pop(&self, topic: &str) -> Option<RawRecord> {
        self.inner.borrow_mut().outputs.get_mut(topic)?.pop_front()
    }

    fn outputs_len(&self, topic: &str) -> usize {
        self.inner
            .borrow()
            .outputs
            .get(topic)
            .map_or(0, VecDeque::len)
    }

    fn find_store<R>(&self, name: &str, f: impl FnOnce(&MemoryBackend) -> R) -> Option<R> {
        let inner = self.inner.borrow();
        inner.tasks.iter().find_map(|t| t.store(name)).map(f)
    }
}
