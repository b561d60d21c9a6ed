//! Steps 3-7 of a record's path (see [`processing`](super::processing)): one consumed record
//! routed to its task, the transaction begun under exactly-once, the task's code run with the
//! thread's sink, and the task's position moved past the record. The sink ([`ProducerSink`])
//! produces output and repartition records at once and keeps changelog records for the commit.

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::Producer;

use super::changelog_buffer::ChangelogBuffer;
use super::error::StreamsError;
use super::tasks::{ActiveTask, ActiveTasks};
use crate::kafka::batch::Record;
use crate::kafka::producer::{DeliveryWatch, StreamsProducer};
use crate::record::{OutgoingRecord, Partitioning, RecordSink, SinkError, TopicKind};
use crate::store::BackendFactory;
use crate::task::{Headers, InputRecord, Task, TaskError, Topology};

/// What became of one consumed record (or of a task's punctuations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Processed {
    /// Processed (or skipped: its partition was unassigned meanwhile).
    Done,
    /// Under exactly-once the sink refused it because the open transaction had already failed
    /// (not for good: no record was refused permanently); the interval must be aborted and
    /// redone.
    TransactionFailed,
}

/// Runs one consumed record through its task: route (3), transaction (4), process (5) with the
/// thread's sink (6), progress (7). A task with several sources buffers it instead and
/// processes what its record queues allow: every record for which no source may still have
/// an earlier one (see [`super::record_queues`]).
///
/// A task that asks for a commit while processing sets `commit_requested`.
#[allow(clippy::too_many_arguments)]
pub(super) fn process<T: Topology, F: BackendFactory>(
    tasks: &mut ActiveTasks<T, F>,
    producer: &StreamsProducer,
    changelog: &mut ChangelogBuffer,
    deliveries: &DeliveryWatch,
    txn_open: Option<&mut bool>,
    message: Record<'_>,
    header_scratch: &mut Headers,
    commit_requested: &mut bool,
) -> Result<Processed, StreamsError> {
    let Some((active, source)) = tasks.route(message.topic(), message.partition()) else {
        // A record fetched just before its partition was unassigned.
        return Ok(Processed::Done);
    };
    let timestamp = message.timestamp().unwrap_or(0);
    let mut sink = Sink {
        producer,
        changelog,
        deliveries,
        commit_requested,
    };
    if let Some(queues) = active.queues.as_mut() {
        queues.push(
            source,
            message.offset(),
            timestamp,
            message.key(),
            message.payload(),
            message.headers(),
        );
        // While every source has a record buffered, the smallest head goes without asking the
        // consumer whether an empty source is caught up (one without a partition never has a
        // record, and never lags).
        let absent = active.absent;
        return process_buffered(active, &mut sink, txn_open, |source| {
            source < 64 && absent & (1 << source) != 0
        });
    }
    let headers = match message.headers() {
        h if !h.is_empty() => {
            // Copied into the thread's reused list: no allocation once it has grown.
            header_scratch.refill(h);
            &*header_scratch
        }
        _ => Headers::empty(),
    };
    let record = InputRecord {
        source,
        partition: message.partition(),
        offset: message.offset(),
        key: message.key(),
        value: message.payload(),
        timestamp,
        headers,
    };
    process_record(active, source, &record, &mut sink, txn_open)
}

/// Where a processed record's output goes.
pub(super) struct Sink<'a> {
    pub(super) producer: &'a StreamsProducer,
    pub(super) changelog: &'a mut ChangelogBuffer,
    pub(super) deliveries: &'a DeliveryWatch,
    /// Set when a task asks for a commit ([`RecordSink::request_commit`]).
    pub(super) commit_requested: &'a mut bool,
}

/// Processes the buffered records of `active` in timestamp order for as long as its record
/// queues allow, given which sources are `caught_up`.
pub(super) fn process_buffered<T: Topology, F: BackendFactory>(
    active: &mut ActiveTask<T, F>,
    sink: &mut Sink<'_>,
    mut txn_open: Option<&mut bool>,
    mut caught_up: impl FnMut(usize) -> bool,
) -> Result<Processed, StreamsError> {
    loop {
        let Some(queues) = active.queues.as_mut() else {
            return Ok(Processed::Done);
        };
        let Some((source, record)) = queues
            .next(&mut caught_up)
            .and_then(|s| queues.pop(s).map(|r| (s, r)))
        else {
            return Ok(Processed::Done);
        };
        let partition = active.id.partition;
        let processed = process_record(
            active,
            source,
            &record.input(source, partition),
            sink,
            txn_open.as_deref_mut(),
        );
        if let Some(queues) = active.queues.as_mut() {
            queues.recycle(record);
        }
        match processed? {
            Processed::Done => {}
            failed => return Ok(failed),
        }
    }
}

/// Processes one record of source `source` of `active`: transaction (4), process (5) with the
/// thread's sink (6), progress (7).
fn process_record<T: Topology, F: BackendFactory>(
    active: &mut ActiveTask<T, F>,
    source: usize,
    record: &InputRecord<'_>,
    sink: &mut Sink<'_>,
    txn_open: Option<&mut bool>,
) -> Result<Processed, StreamsError> {
    // Under exactly-once (`txn_open` is the thread's "a transaction is open").
    let eos = txn_open.is_some();
    if let Some(open) = txn_open
        && !*open
    {
        sink.producer
            .begin_transaction()
            .map_err(StreamsError::kafka("beginning a transaction"))?;
        *open = true;
    }
    let mut producer_sink = ProducerSink::new(sink.producer, &mut *sink.changelog);
    active
        .lateness
        .observe(active.task.stream_time(), record.timestamp);
    let result = match active.task.process(record, &mut producer_sink) {
        Ok(()) => {
            active.positions[source] = Some(record.offset + 1);
            active.consumed[source] = true;
            active.processed += 1;
            // Between this record and the next: the stream-time punctuations now due.
            active
                .task
                .punctuate_stream_time(&mut producer_sink)
                .map(drop)
        }
        Err(e) => Err(e),
    };
    if producer_sink.commit_requested {
        *sink.commit_requested = true;
    }
    match result {
        Ok(()) => Ok(Processed::Done),
        Err(source) => task_failure(active.id, source, &producer_sink, sink.deliveries, eos),
    }
}

/// What a task's failure while processing or punctuating means for the thread: a permanent
/// delivery failure or the task's error ends it; under exactly-once a send refused because the
/// open transaction had already failed aborts and redoes the interval.
pub(super) fn task_failure(
    task: crate::group::TaskId,
    source: TaskError,
    sink: &ProducerSink<'_>,
    deliveries: &DeliveryWatch,
    eos: bool,
) -> Result<Processed, StreamsError> {
    // A failed sink may mean the producer hit an unretriable error: report that.
    if matches!(source, TaskError::Sink(_))
        && let Some(failure) = deliveries.take_checked(sink.producer.client())
        && failure.permanent
    {
        return Err(failure.into());
    }
    if eos && matches!(source, TaskError::Sink(_)) && sink.transaction_failed {
        return Ok(Processed::TransactionFailed);
    }
    Err(StreamsError::task(task, source))
}

/// The record sink of a processing thread (6): every record a task writes goes to the thread's
/// producer (inside the open transaction under exactly-once); changelog records wait for the
/// commit in the thread's [`ChangelogBuffer`], one per key, except those of append-only stores
/// ([`TopicKind::AppendOnlyChangelog`]: every key is new, so they are produced at once).
///
/// Keys are partitioned by librdkafka's `murmur2_random` partitioner, which for a non-null key is
/// Kafka's default partitioner, so `Partitioning::ByKey` leaves the choice to it. Changelog
/// records carry an exact partition.
pub(super) struct ProducerSink<'a> {
    producer: &'a StreamsProducer,
    changelog: &'a mut ChangelogBuffer,
    /// A send found the open transaction already failed (librdkafka's "erroneous state"): the
    /// interval is aborted and redone rather than the application stopped.
    pub(super) transaction_failed: bool,
    /// A task asked for a commit through this sink ([`RecordSink::request_commit`]).
    pub(super) commit_requested: bool,
}

impl<'a> ProducerSink<'a> {
    /// A sink over `producer`; changelog records wait in `changelog` for the commit.
    pub(super) fn new(producer: &'a StreamsProducer, changelog: &'a mut ChangelogBuffer) -> Self {
        ProducerSink {
            producer,
            changelog,
            transaction_failed: false,
            commit_requested: false,
        }
    }
}

impl RecordSink for ProducerSink<'_> {
    #[inline]
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if let (TopicKind::Changelog, Partitioning::Exact(partition), Some(key)) =
            (record.kind, record.partitioning, record.key)
        {
            self.changelog
                .put(record.topic, partition, key, record.value, record.timestamp);
            return Ok(());
        }
        let partition = match record.partitioning {
            Partitioning::ByKey => None,
            Partitioning::Exact(p) => Some(p),
        };
        self.producer
            .produce(
                record.topic,
                partition,
                record.key,
                record.value,
                Some(record.timestamp),
                owned_headers(record.headers),
            )
            .map_err(|e| {
                if matches!(e, KafkaError::MessageProduction(RDKafkaErrorCode::State)) {
                    self.transaction_failed = true;
                }
                SinkError::msg(format_args!("producing to {} failed: {e}", record.topic))
            })
    }

    #[inline]
    fn request_commit(&mut self) {
        self.commit_requested = true;
    }

    fn partition_count(&mut self, topic: &'static str) -> Result<u32, SinkError> {
        self.producer.partition_count(topic).map_err(SinkError::msg)
    }
}

/// librdkafka's copy of the headers; only made for records that have some.
fn owned_headers(headers: &Headers) -> Option<OwnedHeaders> {
    if headers.is_empty() {
        return None;
    }
    let mut owned = OwnedHeaders::new_with_capacity(headers.len());
    for (key, value) in headers.iter() {
        owned = owned.insert(Header { key, value });
    }
    Some(owned)
}
