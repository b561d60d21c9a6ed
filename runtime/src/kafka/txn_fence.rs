//! Ending a killed predecessor's open transaction before the thread's producer starts.
//!
//! A thread's transactional id is the same across restarts on one state directory, so the new
//! producer's `InitProducerId` fences the old one and makes the transaction coordinator abort
//! the transaction the old one left open (a SIGKILL mid-interval always leaves one). While that
//! abort's markers are written the coordinator answers `CONCURRENT_TRANSACTIONS`, and
//! librdkafka retries `InitProducerId` only after a fixed 500 ms (`rd_kafka_idemp_pid_timer_restart`
//! in `rdkafka_idempotence.c`; not configurable), where Kafka's Java producer retries after
//! `retry.backoff.ms` (100 ms). That half second was most of a restarted instance's start.
//!
//! So a thread that may have a predecessor sends the first `InitProducerId` itself and asks again
//! every 20 ms while the abort completes; librdkafka's own `init_transactions` then finds no open
//! transaction and completes in one round trip. The extra request only bumps the producer epoch
//! once more, as any restart does. Anything unexpected here is left to librdkafka, which reports
//! it properly: this is a shortcut, never a gate.

use std::time::{Duration, Instant};

use kafka_protocol::ResponseError;
use kafka_protocol::messages::{
    FindCoordinatorRequest, InitProducerIdRequest, ProducerId, TransactionalId,
};
use kafka_protocol::protocol::StrBytes;

use crate::group::connection::{BrokerConnection, error_name};
use crate::group::coordinator::CoordinatorConfig;
use crate::protocol::responses::{FindCoordinatorResponse, InitProducerIdResponse};

const FIND_COORDINATOR: i16 = 10;
const INIT_PRODUCER_ID: i16 = 22;
/// FindCoordinator key type of a transactional id.
const KEY_TYPE_TRANSACTION: i8 = 1;
/// How long to wait between two `InitProducerId` while the coordinator aborts the old
/// transaction.
const RETRY: Duration = Duration::from_millis(20);

/// Sends `InitProducerId` for `transactional_id` until the coordinator no longer answers
/// `CONCURRENT_TRANSACTIONS` (the predecessor's open transaction is aborted), for at most
/// `give_up_after`. `Err` says why it stopped early; the caller goes on either way.
pub(crate) async fn end_previous_transaction(
    config: &CoordinatorConfig,
    transactional_id: &str,
    transaction_timeout: Duration,
    give_up_after: Duration,
) -> Result<(), String> {
    let started = Instant::now();
    let mut conn = connect_to_transaction_coordinator(config, transactional_id).await?;
    let version = conn
        .pick_version(INIT_PRODUCER_ID, (0, 5))
        .ok_or("the transaction coordinator serves no InitProducerId version 0-5")?;
    let request = InitProducerIdRequest::default()
        .with_transactional_id(Some(TransactionalId(StrBytes::from_string(
            transactional_id.to_owned(),
        ))))
        .with_transaction_timeout_ms(
            i32::try_from(transaction_timeout.as_millis()).unwrap_or(i32::MAX),
        )
        .with_producer_id(ProducerId(-1))
        .with_producer_epoch(-1);
    loop {
        let response: InitProducerIdResponse = conn
            .send(INIT_PRODUCER_ID, version, &request, "InitProducerId")
            .await
            .map_err(|e| e.to_string())?;
        match ResponseError::try_from_code(response.error_code) {
            None => {
                tracing::debug!(
                    transactional_id,
                    waited = ?started.elapsed(),
                    "the predecessor's transaction is ended"
                );
                return Ok(());
            }
            Some(ResponseError::ConcurrentTransactions) if started.elapsed() < give_up_after => {
                tokio::time::sleep(RETRY).await;
            }
            Some(_) => {
                return Err(format!(
                    "InitProducerId: {}",
                    error_name(response.error_code)
                ));
            }
        }
    }
}

/// Finds the transaction coordinator of `transactional_id` through the first bootstrap broker
/// that answers, and connects to it.
async fn connect_to_transaction_coordinator(
    config: &CoordinatorConfig,
    transactional_id: &str,
) -> Result<BrokerConnection, String> {
    let mut last = String::from("no bootstrap servers given");
    for addr in &config.bootstrap {
        let mut conn = match BrokerConnection::connect(
            addr,
            &config.client_id,
            config.request_timeout,
            &config.security,
        )
        .await
        {
            Ok(conn) => conn,
            Err(e) => {
                last = e.to_string();
                continue;
            }
        };
        let version = conn
            .pick_version(FIND_COORDINATOR, (1, 6))
            .ok_or("the broker serves no FindCoordinator version 1-6")?;
        let mut request = FindCoordinatorRequest::default().with_key_type(KEY_TYPE_TRANSACTION);
        if version >= 4 {
            request.coordinator_keys = vec![StrBytes::from_string(transactional_id.to_owned())];
        } else {
            request.key = StrBytes::from_string(transactional_id.to_owned());
        }
        let response: FindCoordinatorResponse = conn
            .send(FIND_COORDINATOR, version, &request, "FindCoordinator")
            .await
            .map_err(|e| e.to_string())?;
        let c = response
            .first()
            .ok_or("FindCoordinator answered no coordinator")?;
        let (error_code, host, port) = (c.error_code, c.host.clone(), c.port);
        if error_code != 0 {
            return Err(format!("FindCoordinator: {}", error_name(error_code)));
        }
        let coordinator = format!("{host}:{port}");
        if coordinator == conn.addr() {
            return Ok(conn);
        }
        return BrokerConnection::connect(
            &coordinator,
            &config.client_id,
            config.request_timeout,
            &config.security,
        )
        .await
        .map_err(|e| e.to_string());
    }
    Err(last)
}
