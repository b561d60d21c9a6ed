//! The librdkafka clients of one processing thread, created from the application's settings:
//! the consumer of the tasks' input, the restore consumer of their changelogs and the producer of
//! everything they write (transactional under exactly-once), with the instance's shared admin
//! client.

use std::sync::Arc;
use std::time::Duration;

use rdkafka::consumer::BaseConsumer;
use rdkafka::producer::Producer;

use super::config::ProcessingGuarantee;
use super::context::ThreadContext;
use super::error::StreamsError;
use crate::group::coordinator::CoordinatorConfig;
use crate::kafka::admin::Admin;
use crate::kafka::batch::BatchConsumer;
use crate::kafka::oauth::{self, StreamsConsumerContext};
use crate::kafka::producer::{self, DeliveredOffsets, DeliveryWatch, StreamsProducer};
use crate::kafka::restore::{RestoreConsumer, restore_consumer};
use crate::kafka::txn_fence;
use crate::task::Topology;

/// The clients a thread starts with.
pub(super) struct ThreadClients {
    pub consumer: BatchConsumer<StreamsConsumerContext>,
    pub restore_consumer: RestoreConsumer,
    pub producer: StreamsProducer,
    pub deliveries: DeliveryWatch,
    pub admin: Arc<Admin>,
}

impl ThreadClients {
    /// Creates the clients of thread `ctx.index` of topology `T` (the admin client is the
    /// instance's).
    pub(super) fn create<T: Topology>(ctx: &ThreadContext) -> Result<Self, StreamsError> {
        let eos = ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce;
        let settings = &ctx.config.settings;
        let consumer: BaseConsumer<StreamsConsumerContext> = settings
            .processing_consumer(T::APPLICATION_ID, eos)
            .create_with_context(StreamsConsumerContext::new(settings.oauth_refresh()))
            .map_err(StreamsError::kafka("creating the consumer"))?;
        oauth::fetch_first_token(&consumer, &settings.oauth_refresh());
        let consumer =
            BatchConsumer::new(consumer).map_err(StreamsError::kafka("creating the consumer"))?;
        let restore_consumer = restore_consumer(
            &settings.consumer(T::APPLICATION_ID, eos),
            settings.oauth_refresh(),
        )
        .map_err(StreamsError::kafka("creating the restore consumer"))?;
        if eos && ctx.state.is_some() {
            end_previous_transaction::<T>(ctx);
        }
        // Not ready only when a shutdown came while the cluster was unreachable: the thread's
        // loop then ends before it uses the producer.
        let (producer, deliveries, _ready) = new_producer::<T>(ctx, DeliveredOffsets::default())?;
        Ok(ThreadClients {
            consumer,
            restore_consumer,
            producer,
            deliveries,
            admin: Arc::clone(&ctx.admin),
        })
    }
}

/// How long ending a predecessor's transaction may take before librdkafka is left to do it.
const END_PREVIOUS_TRANSACTION: Duration = Duration::from_secs(5);

/// The transactional id of thread `ctx.index` of this process.
fn transactional_id<T: Topology>(ctx: &ThreadContext) -> String {
    format!("{}-{}-{}", T::APPLICATION_ID, ctx.process_id, ctx.index)
}

/// A thread started on a state directory may find the transaction its killed predecessor (same
/// process id, same transactional id) left open: has the coordinator abort it now, faster than
/// librdkafka's `init_transactions` would wait for it (see [`crate::kafka::txn_fence`]). Best
/// effort: a failure is logged and `init_transactions` does the same, only slower.
fn end_previous_transaction<T: Topology>(ctx: &ThreadContext) {
    let settings = &ctx.config.settings;
    let mut coordinator = CoordinatorConfig::new(
        settings.bootstrap_servers(),
        &format!("{}-{}", T::APPLICATION_ID, ctx.index),
    );
    coordinator.request_timeout = END_PREVIOUS_TRANSACTION;
    coordinator.security = match settings.connection_security() {
        Ok(security) => security,
        Err(e) => {
            tracing::debug!(error = %e, "not ending the previous transaction early");
            return;
        }
    };
    let id = transactional_id::<T>(ctx);
    // The timer is made inside the runtime (`block_on` enters it).
    let ended = ctx.handle.block_on(async {
        tokio::time::timeout(
            END_PREVIOUS_TRANSACTION,
            txn_fence::end_previous_transaction(
                &coordinator,
                &id,
                ctx.config.transaction_timeout,
                END_PREVIOUS_TRANSACTION,
            ),
        )
        .await
    });
    match ended {
        Ok(Ok(())) => {}
        Ok(Err(why)) => {
            tracing::debug!(transactional_id = %id, "the previous transaction was not ended early ({why}); init_transactions ends it")
        }
        Err(_) => {
            tracing::debug!(transactional_id = %id, "ending the previous transaction early took too long; init_transactions ends it")
        }
    }
}

/// The thread's producer: transactional under exactly-once, with a transactional id that is the
/// same for this thread of this process every time (the process id persists in the state
/// directory, when there is one), so a new producer fences an older one at once.
///
/// `init_transactions` is retried while the transaction coordinator cannot be reached (all
/// brokers down), however long that takes; the flag says whether it completed (`false`: the
/// application is stopping and the producer is not usable).
pub(super) fn new_producer<T: Topology>(
    ctx: &ThreadContext,
    delivered: DeliveredOffsets,
) -> Result<(StreamsProducer, DeliveryWatch, bool), StreamsError> {
    let eos = ctx.config.guarantee == ProcessingGuarantee::ExactlyOnce;
    let transactional_id = transactional_id::<T>(ctx);
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
    let deliveries = DeliveryWatch::new(
        ctx.config.settings.oauth_refresh(),
        delivered,
        T::WINDOWED_SINKS,
    );
    let producer = StreamsProducer::new(
        producer_config
            .create_with_context(deliveries.clone())
            .map_err(StreamsError::kafka("creating the producer"))?,
    );
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
