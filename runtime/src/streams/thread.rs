//! One processing thread: one streams-group member, one consumer, one producer, and the tasks
//! the coordinator assigned to it.
//!
//! The loop: take the member's assignment changes, poll a record, route it to its task, run the
//! compiled task (which writes its output through the thread's producer), and every commit
//! interval commit output, state and offsets together ([`commit`](super::commit)).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rdkafka::consumer::BaseConsumer;

use crate::kafka::oauth::StreamsConsumerContext;
use rdkafka::message::{BorrowedMessage, Headers as _, Message};
use rdkafka::producer::Producer;
use tokio::runtime::Handle;

use super::changelog_buffer::ChangelogBuffer;
use super::config::{ProcessingGuarantee, StreamsConfig};
use super::consumer_errors::ConsumerErrors;
use super::error::StreamsError;
use super::membership::Membership;
use super::sink::ProducerSink;
use super::tasks::ActiveTasks;
use crate::group::MemberEvent;
use crate::kafka::admin::{self, Admin};
use crate::kafka::producer::{self, DeliveredOffsets, DeliveryWatch, StreamsProducer};
use crate::kafka::restore::{RestoreConsumer, restore_consumer};
use crate::state_dir::StateDirectory;
use crate::store::BackendFactory;
use crate::task::{Headers, InputRecord, Task, TaskError, Topology};

/// What a thread is started with.
pub(crate) struct ThreadContext {
    /// Thread number within the instance.
    pub index: usize,
    /// The application's settings.
    pub config: StreamsConfig,
    /// The instance's process id (shared by its threads).
    pub process_id: uuid::Uuid,
    /// The tokio runtime the member's heartbeat and admin calls run on.
    pub handle: Handle,
    /// Set when the application shuts down.
    pub stop: Arc<AtomicBool>,
    /// The locked state directory, when stores live on disk.
    pub state: Option<Arc<StateDirectory>>,
}

/// How long a poll waits for a record.
const POLL: Duration = Duration::from_millis(20);
/// How often committed repartition records are purged (Kafka Streams'
/// `repartition.purge.interval.ms`).
const PURGE_INTERVAL: Duration = Duration::from_secs(30);

/// The state of one processing thread.
pub(crate) struct StreamThread<T: Topology, F: BackendFactory> {
    pub(super) ctx: ThreadContext,
    pub(super) stores: F,
    pub(super) member: Membership,
    pub(super) consumer: BaseConsumer<StreamsConsumerContext>,
    pub(super) restore_consumer: RestoreConsumer,
    pub(super) producer: StreamsProducer,
    pub(super) deliveries: DeliveryWatch,
    pub(super) admin: Arc<Admin>,
    pub(super) tasks: ActiveTasks<T, F>,
    pub(super) txn_open: bool,
    /// Changelog records of the interval, one per key.
    pub(super) changelog: ChangelogBuffer,
    /// Commits aborted in a row.
    pub(super) failed_commits: u32,
    pub(super) last_commit: Instant,
    pub(super) last_purge: Instant,
    /// The consumer errors seen, to tell those to retry from those that stop the application.
    pub(super) consumer_errors: ConsumerErrors,
    /// A shutdown came while a transactional call waited for an unreachable cluster, and the
    /// thread gave up on it: the interval's outcome is unknown, so the thread closes without
    /// committing or writing checkpoints (the broker aborts the open transaction after
    /// `transaction.timeout.ms`; the next producer with this transactional id aborts it at once).
    pub(super) interrupted: bool,
}

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Creates the clients and joins the group.
    pub(crate) fn start(ctx: ThreadContext, stores: F) -> Result<Self, StreamsError> {
        let eos = ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce;
        let settings = &ctx.config.settings;
        let consumer: BaseConsumer<StreamsConsumerContext> = settings
            .consumer(T::APPLICATION_ID, eos)
            .create_with_context(StreamsConsumerContext::new(settings.oauth_refresh()))
            .map_err(StreamsError::kafka("creating the consumer"))?;
        crate::kafka::oauth::fetch_first_token(&consumer, &settings.oauth_refresh());
        let restore_consumer = restore_consumer(
            &settings.consumer(T::APPLICATION_ID, eos),
            settings.oauth_refresh(),
        )
        .map_err(StreamsError::kafka("creating the restore consumer"))?;
        // Not ready only when a shutdown came while the cluster was unreachable: the loop then
        // ends before it uses the producer.
        let (producer, deliveries, _ready) = new_producer::<T>(&ctx, DeliveredOffsets::default())?;
        let admin = Arc::new(
            admin::admin(&settings.admin(), settings.oauth_refresh())
                .map_err(StreamsError::kafka("creating the admin client"))?,
        );
        let member = ctx.handle.block_on(Membership::join::<T>(&ctx))?;
        let mut tasks = ActiveTasks::default();
        tasks.set_cache_max_bytes(ctx.config.cache_max_bytes / ctx.config.threads.max(1));
        Ok(StreamThread {
            ctx,
            stores,
            member,
            consumer,
            restore_consumer,
            producer,
            deliveries,
            admin,
            tasks,
            txn_open: false,
            changelog: ChangelogBuffer::default(),
            failed_commits: 0,
            last_commit: Instant::now(),
            last_purge: Instant::now(),
            consumer_errors: ConsumerErrors::default(),
            interrupted: false,
        })
    }

    pub(super) fn eos(&self) -> bool {
        self.ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce
    }

    /// Replaces a producer that failed for good (fenced: the broker aborted its transaction
    /// after the transaction timeout and bumped its epoch) by a new one with the same
    /// transactional id. The caller rebuilds the tasks: their uncommitted work is gone.
    ///
    /// While the cluster is unreachable the new producer's `init_transactions` is retried until
    /// it answers; a shutdown meanwhile marks the thread [`interrupted`](Self::interrupted).
    pub(super) fn replace_producer(&mut self) -> Result<(), StreamsError> {
        let (producer, deliveries, ready) =
            new_producer::<T>(&self.ctx, self.deliveries.delivered().clone())?;
        self.producer = producer;
        self.deliveries = deliveries;
        self.txn_open = false;
        if !ready {
            self.interrupted = true;
        }
        Ok(())
    }

    /// Runs until the application stops or fails, then commits (when it stopped cleanly),
    /// closes the tasks and leaves the group.
    pub(crate) fn run(mut self) -> Result<(), StreamsError> {
        let result = self.run_loop();
        let closed = self.close(result.is_ok());
        result.and(closed)
    }

    fn run_loop(&mut self) -> Result<(), StreamsError> {
        let mut since_clock_check = 0u32;
        while !self.ctx.stop.load(Ordering::Relaxed) {
            while let Some(event) = self.member.try_event()? {
                match event {
                    MemberEvent::Assigned { active, .. } => self.add(&active)?,
                    MemberEvent::Revoked(tasks) => self.revoke(&tasks)?,
                    MemberEvent::Lost(tasks) => self.lose(Some(&tasks))?,
                    MemberEvent::Status(_) => {}
                }
            }
            if self.tasks.is_empty() {
                std::thread::sleep(POLL);
                continue;
            }
            match self.consumer.poll(POLL) {
                Some(Ok(message)) => {
                    let eos = self.eos();
                    process(
                        &mut self.tasks,
                        &self.producer,
                        &mut self.changelog,
                        &self.deliveries,
                        &mut self.txn_open,
                        eos,
                        &message,
                    )?;
                    since_clock_check += 1;
                    if since_clock_check < 64 {
                        continue;
                    }
                }
                Some(Err(e)) => {
                    self.consumer_errors
                        .on_error(e, &self.consumer, T::APPLICATION_ID)?;
                }
                None => {}
            }
            since_clock_check = 0;
            if self.last_commit.elapsed() >= self.ctx.config.commit_interval {
                self.commit()?;
            }
        }
        Ok(())
    }

    /// Whether repartition topics are due for a purge.
    pub(super) fn purge_due(&self) -> bool {
        self.last_purge.elapsed() >= PURGE_INTERVAL
    }
}

/// The thread's producer: transactional under exactly-once, with a transactional id that is the
/// same for this thread of this process every time (the process id persists in the state
/// directory, when there is one), so a new producer fences an older one at once.
///
/// `init_transactions` is retried while the transaction coordinator cannot be reached (all
/// brokers down), however long that takes; the flag says whether it completed (`false`: the
/// application is stopping and the producer is not usable).
fn new_producer<T: Topology>(
    ctx: &ThreadContext,
    delivered: DeliveredOffsets,
) -> Result<(StreamsProducer, DeliveryWatch, bool), StreamsError> {
    let eos = ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce;
    let transactional_id = format!("{}-{}-{}", T::APPLICATION_ID, ctx.process_id, ctx.index);
    let mut producer_config = ctx
        .config
        .settings
        .producer(eos.then_some(transactional_id.as_str()));
    if eos {
        producer_config.set(
            "transaction.timeout.ms",
            ctx.config.transaction_timeout.as_millis().to_string(),
        );
    }
    let deliveries = DeliveryWatch::new(ctx.config.settings.oauth_refresh(), delivered);
    let producer: StreamsProducer = producer_config
        .create_with_context(deliveries.clone())
        .map_err(StreamsError::kafka("creating the producer"))?;
    let mut ready = true;
    if eos {
        let init = producer::resume_until_done(
            "initializing the transactional producer",
            &ctx.stop,
            None,
            |timeout| producer.init_transactions(timeout),
        )
        .map_err(StreamsError::kafka("initializing transactions"))?;
        ready = init == producer::Resumed::Done;
    }
    Ok((producer, deliveries, ready))
}

/// Runs one consumed record through its task.
fn process<T: Topology, F: BackendFactory>(
    tasks: &mut ActiveTasks<T, F>,
    producer: &StreamsProducer,
    changelog: &mut ChangelogBuffer,
    deliveries: &DeliveryWatch,
    txn_open: &mut bool,
    eos: bool,
    message: &BorrowedMessage<'_>,
) -> Result<(), StreamsError> {
    let Some((active, source)) = tasks.route(message.topic(), message.partition()) else {
        // A record fetched just before its partition was unassigned.
        return Ok(());
    };
    if eos && !*txn_open {
        producer
            .begin_transaction()
            .map_err(StreamsError::kafka("beginning a transaction"))?;
        *txn_open = true;
    }
    let owned_headers;
    let headers = match message.headers() {
        Some(h) if h.count() > 0 => {
            let mut copy = Headers::new();
            for header in h.iter() {
                copy.add(header.key, header.value);
            }
            owned_headers = copy;
            &owned_headers
        }
        _ => Headers::empty(),
    };
    let record = InputRecord {
        source,
        partition: message.partition(),
        offset: message.offset(),
        key: message.key(),
        value: message.payload(),
        timestamp: message.timestamp().to_millis().unwrap_or(0),
        headers,
    };
    let mut sink = ProducerSink::new(producer, changelog);
    match active.task.process(&record, &mut sink) {
        Ok(()) => {
            active.positions[source] = Some(message.offset() + 1);
            active.consumed[source] = true;
            active.processed += 1;
            Ok(())
        }
        Err(source) => {
            let task = active.id.to_string();
            // A failed sink may mean the producer hit an unretriable error: report that.
            if matches!(source, TaskError::Sink(_))
                && let Some(failure) = deliveries.take()
                && failure.permanent
            {
                return Err(failure.into());
            }
            Err(StreamsError::task(task, source))
        }
    }
}
