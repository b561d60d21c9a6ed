//! Which librdkafka errors go away by themselves, and retrying them: the one place that decides
//! it for every metadata, offset and admin call of the processing path.
//!
//! A broker restarting or a leader moving makes librdkafka answer for a while with errors that
//! a later attempt does not get: a broker handle destroyed while a request waited on it
//! (`DestroyBroker`, "Broker handle destroyed without termination"), transport failures, timeouts,
//! `LEADER_NOT_AVAILABLE`, `NOT_LEADER_OR_FOLLOWER`, an unknown partition from a stale metadata
//! cache, a coordinator moving. Those are [`ErrorClass::Transient`]: [`retry`] waits them out
//! with backoff, logging a warning, until the call succeeds or the application stops. An unknown
//! topic or partition is retried for [`UNKNOWN_GRACE`] (a topic just created, a partition whose
//! leader moves), then taken as missing. Authorization failures, invalid requests, unsupported
//! versions and the like are [`ErrorClass::Permanent`], with what to do about them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;

/// How long an unknown topic or partition is retried before it is taken as missing.
pub const UNKNOWN_GRACE: Duration = Duration::from_secs(30);

/// The first delay of [`retry`], doubled after each failure up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest delay of [`retry`].
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How often a waiting [`retry`] looks at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// What an error means for the call that got it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Goes away by itself (a broker restarting, a leader moving, a timeout): retry.
    Transient,
    /// An unknown topic or partition: a broker catching up, or a topic that does not exist.
    /// Retried for [`UNKNOWN_GRACE`], then permanent.
    UnknownTopicOrPartition,
    /// The principal may not do this: no retry fixes it. Says what to grant.
    NotAuthorized(&'static str),
    /// No retry fixes it. Says what to do.
    Permanent(&'static str),
}

impl ErrorClass {
    /// What to do about an error of this class that the application stops for.
    pub fn remedy(self) -> &'static str {
        match self {
            ErrorClass::Transient => {
                "check that the brokers are reachable (the error is retried while they are not)"
            }
            ErrorClass::UnknownTopicOrPartition => {
                "create the topic with the partitions the topology needs, or fix the topology's \
                 topic names"
            }
            ErrorClass::NotAuthorized(remedy) | ErrorClass::Permanent(remedy) => remedy,
        }
    }
}

/// Classifies `error` by its code (never by its text). An error without a code (a client-side
/// failure such as a canceled call) counts as transient.
pub fn classify(error: &KafkaError) -> ErrorClass {
    match error.rdkafka_error_code() {
        Some(code) => classify_code(code),
        None => ErrorClass::Transient,
    }
}

/// [`classify`] for a bare error code.
pub fn classify_code(code: RDKafkaErrorCode) -> ErrorClass {
    use ErrorClass::*;
    use RDKafkaErrorCode as C;
    match code {
        C::TopicAuthorizationFailed => NotAuthorized(
            "grant the application's principal READ (and DESCRIBE) on its source and repartition \
             topics, and DESCRIBE on its changelog topics",
        ),
        C::GroupAuthorizationFailed => NotAuthorized(
            "grant the application's principal READ on the group named like the application id",
        ),
        C::ClusterAuthorizationFailed => NotAuthorized(
            "grant the application's principal the cluster operation the broker names",
        ),
        C::TransactionalIdAuthorizationFailed => NotAuthorized(
            "grant the application's principal WRITE on transactional ids starting with the \
             application id",
        ),
        C::SaslAuthenticationFailed => NotAuthorized(
            "check the SASL mechanism, user name and password (or token) of the application",
        ),
        // librdkafka's local `__AUTHENTICATION` also stands for a SASL handshake that could not
        // finish because the broker went away ("mechanism handshake failed: Local: Timed out in
        // queue ... in state DOWN" while a node restarts), which a new connection cures; it
        // reconnects by itself. Wrong credentials are refused by the broker at start, before
        // any librdkafka client exists (`check_credentials`, `SaslAuthenticationFailed`), so a
        // later `__AUTHENTICATION` is retried (logged each time) rather than stopping the
        // application.
        C::Authentication => Transient,
        C::UnknownTopicOrPartition | C::UnknownTopic | C::UnknownPartition => {
            UnknownTopicOrPartition
        }
        C::InvalidTopic => Permanent("the topic name is not valid: fix the topology"),
        C::UnsupportedVersion | C::UnsupportedFeature => {
            Permanent("the broker is too old for this client: use Kafka 4.2 or newer")
        }
        C::UnsupportedCompressionType => Permanent(
            "a record was compressed with a codec this build cannot read: rebuild with it or \
             change the producer's compression",
        ),
        C::InvalidConfig => Permanent("fix the client property the broker refuses"),
        C::InvalidRequest | C::InvalidArgument | C::InvalidPartitions | C::BadMessage => Permanent(
            "the request is malformed for this broker: report it with the broker version and \
                 the log",
        ),
        C::PolicyViolation => Permanent("the broker's policy refuses the request: change it"),
        C::Fatal | C::InconsistentGroupProtocol => {
            Permanent("the client hit a fatal error (the log names it): restart the application")
        }
        // Broker handles destroyed while a request waited (a node left the metadata while it
        // restarted), transport failures, timeouts, leader elections, coordinators moving,
        // throttling, storage errors on one broker: all go away by themselves.
        _ => Transient,
    }
}

/// Whether `error` goes away by itself ([`ErrorClass::Transient`]; an unknown topic or
/// partition is not: see [`retry`] for its grace).
pub fn is_transient(error: &KafkaError) -> bool {
    classify(error) == ErrorClass::Transient
}

/// Whether `error` may go away by itself: transient, or an unknown topic or partition (which a
/// broker catching up reports for a while).
pub fn may_pass(error: &KafkaError) -> bool {
    matches!(
        classify(error),
        ErrorClass::Transient | ErrorClass::UnknownTopicOrPartition
    )
}

/// Why [`retry`] returned without a result.
#[derive(Debug)]
pub enum RetryError {
    /// The stop flag was set while the call was retried.
    Stopped,
    /// The error no retry fixes (or an unknown topic or partition after [`UNKNOWN_GRACE`]),
    /// with its class.
    Failed(KafkaError, ErrorClass),
}

/// Calls `attempt` until it succeeds, retrying transient errors (and an unknown topic or
/// partition for [`UNKNOWN_GRACE`]) with backoff (100 ms doubling to 5 s) and a warning naming
/// `what`, for as long as it takes: a broker restart or a leader election is waited out, not
/// failed on. Returns [`RetryError::Stopped`] within 50 ms of `stop` being set (or at once
/// when it is set before the first attempt), and [`RetryError::Failed`] for an error no retry
/// fixes.
///
/// Blocks the calling thread: call it from a processing or blocking thread, never a tokio
/// worker.
pub fn retry<T>(
    what: &str,
    stop: &AtomicBool,
    mut attempt: impl FnMut() -> Result<T, KafkaError>,
) -> Result<T, RetryError> {
    let mut backoff = FIRST_BACKOFF;
    let mut failures = 0u32;
    let mut unknown_since: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(RetryError::Stopped);
        }
        let error = match attempt() {
            Ok(value) => {
                if failures > 0 {
                    tracing::info!(what, failures, "succeeded after transient errors");
                }
                return Ok(value);
            }
            Err(error) => error,
        };
        let class = classify(&error);
        match class {
            ErrorClass::Transient => {}
            ErrorClass::UnknownTopicOrPartition => {
                let since = *unknown_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= UNKNOWN_GRACE {
                    return Err(RetryError::Failed(error, class));
                }
            }
            ErrorClass::NotAuthorized(_) | ErrorClass::Permanent(_) => {
                return Err(RetryError::Failed(error, class));
            }
        }
        failures += 1;
        tracing::warn!(
            what,
            %error,
            failures,
            retry_in = ?backoff,
            "transient Kafka error (a broker restarting or a leader moving?); retrying"
        );
        // Waiting out a broker is not user code stuck: it counts as polling.
        crate::group::touch_poll_watch();
        let until = Instant::now() + backoff;
        while Instant::now() < until {
            if stop.load(Ordering::Relaxed) {
                return Err(RetryError::Stopped);
            }
            std::thread::sleep(STOP_CHECK.min(until.saturating_duration_since(Instant::now())));
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn errors_of_a_broker_restart_or_a_leader_election_are_transient() {
        for code in [
            RDKafkaErrorCode::DestroyBroker,
            RDKafkaErrorCode::BrokerTransportFailure,
            RDKafkaErrorCode::AllBrokersDown,
            RDKafkaErrorCode::BrokerNotAvailable,
            RDKafkaErrorCode::NetworkException,
            RDKafkaErrorCode::RequestTimedOut,
            RDKafkaErrorCode::OperationTimedOut,
            RDKafkaErrorCode::LeaderNotAvailable,
            RDKafkaErrorCode::NotLeaderForPartition,
            RDKafkaErrorCode::NotCoordinator,
            RDKafkaErrorCode::CoordinatorNotAvailable,
            RDKafkaErrorCode::CoordinatorLoadInProgress,
            RDKafkaErrorCode::KafkaStorageError,
            RDKafkaErrorCode::UnknownLeaderEpoch,
            RDKafkaErrorCode::FencedLeaderEpoch,
            RDKafkaErrorCode::NotEnoughReplicas,
            RDKafkaErrorCode::Resolve,
            RDKafkaErrorCode::WaitCache,
            RDKafkaErrorCode::Retry,
        ] {
            assert_eq!(classify_code(code), ErrorClass::Transient, "{code:?}");
            // As librdkafka's metadata, watermark and admin calls report them.
            assert!(is_transient(&KafkaError::MetadataFetch(code)), "{code:?}");
            assert!(is_transient(&KafkaError::AdminOp(code)), "{code:?}");
        }
    }

    /// librdkafka's local `__AUTHENTICATION` (-169) is also what it reports when the SASL
    /// handshake cannot finish because the broker went away: the SASL_SSL fault loop stopped an
    /// instance with it ("SASL SCRAM-SHA-512 mechanism handshake failed: Local: Timed out in
    /// queue: broker's supported mechanisms: (n/a) (after 0ms in state DOWN)", a changelog
    /// restore while the node was SIGKILLed). Wrong credentials are the broker's
    /// `SaslAuthenticationFailed` (58), which the start-up check reports.
    #[test]
    fn librdkafkas_local_authentication_error_is_transient() {
        let code = RDKafkaErrorCode::Authentication;
        assert_eq!(classify_code(code), ErrorClass::Transient);
        assert!(is_transient(&KafkaError::MessageConsumption(code)));
        assert!(is_transient(&KafkaError::Global(code)));
        assert!(is_transient(&KafkaError::MetadataFetch(code)));
    }

    #[test]
    fn unknown_topics_and_partitions_get_a_grace() {
        for code in [
            RDKafkaErrorCode::UnknownTopicOrPartition,
            RDKafkaErrorCode::UnknownTopic,
            RDKafkaErrorCode::UnknownPartition,
        ] {
            let e = KafkaError::MetadataFetch(code);
            assert_eq!(classify(&e), ErrorClass::UnknownTopicOrPartition);
            assert!(!is_transient(&e) && may_pass(&e), "{code:?}");
        }
    }

    #[test]
    fn authorization_and_invalid_requests_are_permanent_and_say_what_to_do() {
        for code in [
            RDKafkaErrorCode::TopicAuthorizationFailed,
            RDKafkaErrorCode::GroupAuthorizationFailed,
            RDKafkaErrorCode::ClusterAuthorizationFailed,
            RDKafkaErrorCode::TransactionalIdAuthorizationFailed,
            RDKafkaErrorCode::SaslAuthenticationFailed,
        ] {
            let class = classify_code(code);
            assert!(matches!(class, ErrorClass::NotAuthorized(_)), "{code:?}");
            assert!(class.remedy().starts_with("grant") || class.remedy().contains("SASL"));
        }
        for code in [
            RDKafkaErrorCode::InvalidRequest,
            RDKafkaErrorCode::InvalidTopic,
            RDKafkaErrorCode::UnsupportedVersion,
            RDKafkaErrorCode::InvalidConfig,
        ] {
            let class = classify_code(code);
            assert!(matches!(class, ErrorClass::Permanent(_)), "{code:?}");
            assert!(!may_pass(&KafkaError::MetadataFetch(code)));
            assert!(!class.remedy().is_empty());
        }
    }

    #[test]
    fn retry_waits_out_transient_errors_and_fails_at_once_on_permanent_ones() {
        let stop = AtomicBool::new(false);
        let mut calls = 0;
        let got = retry("a test lookup", &stop, || {
            calls += 1;
            if calls < 3 {
                Err(KafkaError::MetadataFetch(RDKafkaErrorCode::DestroyBroker))
            } else {
                Ok(calls)
            }
        });
        assert_eq!(got.ok(), Some(3));
        let mut calls = 0;
        let got = retry("a test lookup", &stop, || -> Result<(), _> {
            calls += 1;
            Err(KafkaError::MetadataFetch(
                RDKafkaErrorCode::TopicAuthorizationFailed,
            ))
        });
        assert!(matches!(
            got,
            Err(RetryError::Failed(_, ErrorClass::NotAuthorized(_)))
        ));
        assert_eq!(calls, 1);
    }

    #[test]
    fn a_stop_request_ends_a_retry_promptly() {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let got = retry("a test lookup", &stop, || -> Result<(), _> {
            Err(KafkaError::MetadataFetch(RDKafkaErrorCode::AllBrokersDown))
        });
        let returned = Instant::now();
        let stopped_at = stopper.join().expect("the stopper");
        assert!(matches!(got, Err(RetryError::Stopped)));
        assert!(returned.duration_since(stopped_at) < Duration::from_millis(200));
    }
}
