//! The global thread: reads every global table's topic into the instance's
//! [`GlobalStores`], as Kafka Streams' `GlobalStreamThread` does.
//!
//! [`KafkaStreams::run`](super::KafkaStreams::run) starts it before any processing thread and
//! waits until every partition of every global topic was read to its end (the last stable
//! offset: the consumer reads committed records only, whatever the processing guarantee, so an
//! aborted transaction never reaches a global table). Only then do the processing threads join
//! the group, so no task looks a global table up before it is complete. The thread then keeps
//! reading, and applies every new record at once; it stops with the application. A consumer
//! error no retry fixes (authorization, a topic deleted for good) stops the application, as a
//! failing `GlobalStreamThread` does in Kafka Streams.
//!
//! The stores live in memory and have no checkpoint: every start reads the topics from the
//! beginning (Kafka Streams restores an in-memory global store the same way). A record with a
//! null key is skipped, a tombstone deletes its key (Kafka Streams' `KTableSource`).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use super::config::StreamsConfig;
use super::consumer_errors::ConsumerErrors;
use super::error::StreamsError;
use crate::kafka::restore::{RestoreConsumer, restore_consumer, watermarks};
use crate::task::{GlobalStore, GlobalStores, Topology};

/// How long the thread waits for a global topic's metadata before it gives up.
const METADATA_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one poll of one topic's consumer waits.
const POLL: Duration = Duration::from_millis(20);

/// One global table being read.
struct Reader {
    topic: &'static str,
    store: GlobalStore,
    consumer: RestoreConsumer,
    /// Partitions not yet read to their end once.
    pending: HashSet<i32>,
    /// The consumer errors seen, to tell those to retry from those that stop the application.
    errors: ConsumerErrors,
}

/// The running global thread.
pub(crate) struct GlobalThread {
    handle: std::thread::JoinHandle<Result<(), StreamsError>>,
}

impl GlobalThread {
    /// Starts reading the global tables of `T` into `globals`, and returns once every table is
    /// read to its end (or the thread failed, or `stop` was set: then `None`). `failed_later`
    /// is told if the thread fails afterwards.
    pub(crate) fn start<T: Topology>(
        config: &StreamsConfig,
        globals: GlobalStores,
        stop: Arc<AtomicBool>,
        failed_later: tokio::sync::oneshot::Sender<()>,
    ) -> Result<Option<GlobalThread>, StreamsError> {
        let settings = &config.settings;
        let mut readers = Vec::new();
        for (table, store) in globals.iter() {
            // Always read_committed: a global table holds committed records only.
            let consumer = restore_consumer(
                &settings.consumer(T::APPLICATION_ID, true),
                settings.oauth_refresh(),
            )
            .map_err(StreamsError::kafka("creating a global table's consumer"))?;
            readers.push(Reader {
                topic: table.topic,
                store: store.clone(),
                consumer,
                pending: HashSet::new(),
                errors: ConsumerErrors::default(),
            });
        }
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let handle = std::thread::Builder::new()
            .name(format!("{}-global", T::APPLICATION_ID))
            .spawn(move || {
                let span = tracing::info_span!("global_thread", app = T::APPLICATION_ID);
                let _entered = span.enter();
                let result = run(readers, &stop, ready_tx, T::APPLICATION_ID);
                if result.is_err() {
                    // The tables can no longer be kept current: the application stops.
                    stop.store(true, Ordering::Relaxed);
                    let _ = failed_later.send(());
                }
                result
            })
            .map_err(|e| {
                failed(
                    T::GLOBAL_TABLES[0].topic,
                    format!("starting the global thread: {e}"),
                )
            })?;
        match ready_rx.recv() {
            Ok(()) => Ok(Some(GlobalThread { handle })),
            // The thread ended before the tables were complete: failed, or stopped.
            Err(_) => match handle.join() {
                Ok(Ok(())) => Ok(None),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(panicked()),
            },
        }
    }

    /// Waits for the thread to end (after the stop flag was set).
    pub(crate) fn join(self) -> Result<(), StreamsError> {
        self.handle.join().unwrap_or_else(|_| Err(panicked()))
    }
}

fn panicked() -> StreamsError {
    StreamsError::GlobalTable {
        topic: "(every global table)".to_owned(),
        reason: "the global thread panicked; see the log for the panic message".to_owned(),
    }
}

fn failed(topic: &str, what: impl std::fmt::Display) -> StreamsError {
    StreamsError::GlobalTable {
        topic: topic.to_owned(),
        reason: what.to_string(),
    }
}

/// Assigns every partition of every global topic from the beginning, reads them to their end,
/// says so on `ready`, then keeps reading until `stop`.
fn run(
    mut readers: Vec<Reader>,
    stop: &AtomicBool,
    ready: mpsc::Sender<()>,
    application_id: &str,
) -> Result<(), StreamsError> {
    for r in &mut readers {
        assign_all(r, stop)?;
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
    let started = Instant::now();
    let mut last_report = Instant::now();
    let mut ready = Some(ready);
    let mut applied: u64 = 0;
    while !stop.load(Ordering::Relaxed) {
        for r in &mut readers {
            match r.consumer.poll(POLL) {
                None => {}
                Some(Ok(m)) => {
                    // A null key is skipped and counted, as Kafka Streams' KTableSource drops it.
                    if !r.store.apply_record(m.key(), m.payload()) {
                        metrics::counter!("dekaf.streams.global.dropped", "topic" => r.topic, "reason" => "null-key")
                            .increment(1);
                    }
                    applied += 1;
                }
                Some(Err(KafkaError::PartitionEOF(p))) => {
                    r.pending.remove(&p);
                }
                // Retried as the processing threads retry (a broker restarting, a leader
                // moving); authorization failures and a topic that stays unknown stop the
                // application.
                Some(Err(e)) => r.errors.on_error(e, &r.consumer, application_id)?,
            }
        }
        if ready.is_some() {
            if readers.iter().all(|r| r.pending.is_empty()) {
                tracing::info!(
                    records = applied,
                    elapsed = ?started.elapsed(),
                    "global tables restored"
                );
                if let Some(tx) = ready.take() {
                    let _ = tx.send(());
                }
            } else if last_report.elapsed() >= Duration::from_secs(5) {
                last_report = Instant::now();
                tracing::info!(records = applied, "restoring global tables");
            }
        }
    }
    Ok(())
}

/// Assigns every partition of `r.topic` from the beginning; a partition with nothing to read
/// is done at once (no end-of-partition event would say so).
fn assign_all(r: &mut Reader, stop: &AtomicBool) -> Result<(), StreamsError> {
    let deadline = Instant::now() + METADATA_TIMEOUT;
    let partitions = loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let found = r
            .consumer
            .fetch_metadata(Some(r.topic), Duration::from_secs(5))
            .ok()
            .and_then(|md| {
                md.topics()
                    .iter()
                    .find(|t| t.name() == r.topic && t.error().is_none())
                    .map(|t| t.partitions().iter().map(|p| p.id()).collect::<Vec<_>>())
            })
            .filter(|p| !p.is_empty());
        match found {
            Some(p) => break p,
            None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(500)),
            None => {
                return Err(failed(
                    r.topic,
                    format!(
                        "the topic has no partitions after {METADATA_TIMEOUT:?}: create it before starting the application"
                    ),
                ));
            }
        }
    };
    let mut tpl = TopicPartitionList::new();
    for &p in &partitions {
        tpl.add_partition_offset(r.topic, p, Offset::Beginning)
            .map_err(|e| failed(r.topic, e))?;
        // A broker restarting or a leader moving is waited out, not failed on.
        let marks =
            crate::kafka::transient::retry("reading a global table's offsets", stop, || {
                watermarks(&r.consumer, r.topic, p, Duration::from_secs(5))
            });
        let (low, high) = match marks {
            Ok(marks) => marks,
            Err(crate::kafka::transient::RetryError::Stopped) => return Ok(()),
            Err(crate::kafka::transient::RetryError::Failed(e, class)) => {
                return Err(failed(
                    r.topic,
                    format!(
                        "reading the offsets of partition {p}: {e}; {}",
                        class.remedy()
                    ),
                ));
            }
        };
        if high > low {
            r.pending.insert(p);
        }
    }
    r.consumer
        .assign(&tpl)
        .map_err(|e| failed(r.topic, format!("assigning its partitions: {e}")))?;
    tracing::info!(
        topic = r.topic,
        partitions = partitions.len(),
        "reading global table"
    );
    Ok(())
}
