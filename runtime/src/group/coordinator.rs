//! Finding and connecting to the group coordinator of an application id.

use std::time::{Duration, Instant};

use kafka_protocol::ResponseError;
use kafka_protocol::messages::FindCoordinatorRequest;
use kafka_protocol::protocol::StrBytes;

use super::connection::{BrokerConnection, error_name};
use super::error::GroupError;
use crate::protocol::heartbeat;
use crate::protocol::responses::FindCoordinatorResponse;
use crate::security::ConnectionSecurity;

/// Api key of FindCoordinator.
const FIND_COORDINATOR: i16 = 10;
/// Key type GROUP.
const KEY_TYPE_GROUP: i8 = 0;

/// How to reach the coordinator.
#[derive(Debug, Clone)]
pub struct CoordinatorConfig {
    /// `host:port` entries to bootstrap from.
    pub bootstrap: Vec<String>,
    /// The client id sent with every request.
    pub client_id: String,
    /// How long to keep trying before giving up with [`GroupError::NoBroker`].
    pub connect_timeout: Duration,
    /// How long one request may take.
    pub request_timeout: Duration,
    /// TLS and SASL (from the application's `security.protocol`, `ssl.*` and `sasl.*`
    /// properties); plaintext by default.
    pub security: ConnectionSecurity,
}

impl CoordinatorConfig {
    /// Parses a comma-separated list of `host:port` entries.
    pub fn new(bootstrap_servers: &str, client_id: &str) -> Self {
        CoordinatorConfig {
            bootstrap: bootstrap_servers
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            client_id: client_id.to_owned(),
            connect_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(30),
            security: ConnectionSecurity::default(),
        }
    }
}

/// Backoff between attempts: 100 ms doubling to 2 s.
#[derive(Debug)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff {
            next: Duration::from_millis(100),
        }
    }

    pub(crate) fn next_delay(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(Duration::from_secs(2));
        d
    }

    pub(crate) fn reset(&mut self) {
        *self = Backoff::new();
    }
}

/// Finds the coordinator of `group_id` and connects to it, retrying with backoff through
/// COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and unreachable
/// brokers until `config.connect_timeout` has passed. Checks that the coordinator serves
/// StreamsGroupHeartbeat.
pub async fn connect_to_coordinator(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<BrokerConnection, GroupError> {
    let started = Instant::now();
    let mut backoff = Backoff::new();
    let mut last_error = String::from("no bootstrap servers given");
    loop {
        for addr in &config.bootstrap {
            match try_once(config, addr, group_id).await {
                Ok(conn) => return Ok(conn),
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry(why)) => {
                    tracing::debug!(broker = %addr, group = group_id, "coordinator not reached yet: {why}");
                    last_error = why;
                }
            }
        }
        let delay = backoff.next_delay();
        if started.elapsed() + delay > config.connect_timeout {
            return Err(GroupError::NoBroker {
                bootstrap: config.bootstrap.join(","),
                waited: started.elapsed(),
                last_error,
            });
        }
        tokio::time::sleep(delay).await;
    }
}

/// Waits until the coordinator of `group_id` answers, however long that takes: an application
/// started while its cluster is down (or unreachable) logs a warning every `config.connect_timeout`
/// and starts once a broker is back, instead of exiting. Returns at once when the cluster is up;
/// fails only on a permanent error (authorization, a broker without streams groups).
pub(crate) async fn await_coordinator(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<(), GroupError> {
    let started = Instant::now();
    loop {
        match connect_to_coordinator(config, group_id).await {
            Ok(_) => {
                if started.elapsed() > config.connect_timeout {
                    tracing::info!(group = group_id, waited = ?started.elapsed(), "the Kafka cluster answers again; starting");
                }
                return Ok(());
            }
            Err(GroupError::NoBroker {
                bootstrap,
                last_error,
                ..
            }) => {
                tracing::warn!(
                    group = group_id,
                    waited = ?started.elapsed(),
                    "no Kafka broker at {bootstrap} serves the group coordinator yet (last error: {last_error}); \
                     waiting for the cluster: the application starts once a broker answers"
                );
            }
            Err(e) => return Err(e),
        }
    }
}

enum Attempt {
    Retry(String),
    Fatal(GroupError),
}

impl From<GroupError> for Attempt {
    fn from(e: GroupError) -> Self {
        if e.is_transient() {
            Attempt::Retry(e.to_string())
        } else {
            Attempt::Fatal(e)
        }
    }
}

async fn try_once(
    config: &CoordinatorConfig,
    addr: &str,
    group_id: &str,
) -> Result<BrokerConnection, Attempt> {
    let mut conn = BrokerConnection::connect(
        addr,
        &config.client_id,
        config.request_timeout,
        &config.security,
    )
    .await?;
    let Some(version) = conn.pick_version(FIND_COORDINATOR, (0, 6)) else {
        return Err(Attempt::Fatal(GroupError::Rejected {
            api: "FindCoordinator",
            group: group_id.to_owned(),
            code: "UNSUPPORTED_VERSION".into(),
            message: format!("{addr} serves no FindCoordinator version this client speaks"),
        }));
    };
    let mut request = FindCoordinatorRequest::default().with_key_type(KEY_TYPE_GROUP);
    if version >= 4 {
        request.coordinator_keys = vec![StrBytes::from_string(group_id.to_owned())];
    } else {
        request.key = StrBytes::from_string(group_id.to_owned());
    }
    let response: FindCoordinatorResponse = conn
        .send(FIND_COORDINATOR, version, &request, "FindCoordinator")
        .await?;
    let Some(c) = response.first() else {
        return Err(Attempt::Retry(
            "FindCoordinator answered no coordinator".into(),
        ));
    };
    let (error_code, error_message, node_id, host, port) = (
        c.error_code,
        c.error_message.clone(),
        c.node_id,
        c.host.clone(),
        c.port,
    );
    match ResponseError::try_from_code(error_code) {
        None => {}
        Some(
            ResponseError::CoordinatorNotAvailable
            | ResponseError::NotCoordinator
            | ResponseError::CoordinatorLoadInProgress,
        ) => {
            return Err(Attempt::Retry(format!(
                "FindCoordinator: {}",
                error_name(error_code)
            )));
        }
        Some(ResponseError::GroupAuthorizationFailed) => {
            return Err(Attempt::Fatal(GroupError::NotAuthorized {
                group: group_id.to_owned(),
                code: error_name(error_code),
                message: error_message.unwrap_or_default(),
            }));
        }
        Some(_) => {
            return Err(Attempt::Fatal(GroupError::Rejected {
                api: "FindCoordinator",
                group: group_id.to_owned(),
                code: error_name(error_code),
                message: error_message.unwrap_or_default(),
            }));
        }
    }
    let coordinator_addr = format!("{host}:{port}");
    tracing::debug!(group = group_id, node_id, coordinator = %coordinator_addr, "found the group coordinator");
    let conn = if coordinator_addr == conn.addr() {
        conn
    } else {
        BrokerConnection::connect(
            &coordinator_addr,
            &config.client_id,
            config.request_timeout,
            &config.security,
        )
        .await?
    };
    if conn
        .pick_version(
            heartbeat::API_KEY,
            (heartbeat::MIN_VERSION, heartbeat::MAX_VERSION),
        )
        .is_none()
    {
        return Err(Attempt::Fatal(GroupError::StreamsGroupsUnsupported {
            broker: conn.addr().to_owned(),
        }));
    }
    Ok(conn)
}
