//! What the processing loop does with an error its consumer reports.
//!
//! Errors are classified by their code ([`RDKafkaErrorCode`]), never by the text of a message:
//!
//! - authorization (`TOPIC_AUTHORIZATION_FAILED`, `GROUP_AUTHORIZATION_FAILED`,
//!   `CLUSTER_AUTHORIZATION_FAILED`, `TRANSACTIONAL_ID_AUTHORIZATION_FAILED`, SASL
//!   authentication) and other errors no retry fixes stop the application at once, with an
//!   error naming the resource, the operation and what to do;
//! - an unknown topic or partition is retried while it may be a broker catching up (a topic
//!   just created, a leader moving); when it is still reported after [`UNKNOWN_GRACE`] the
//!   assigned topics are looked up, and those the cluster does not know stop the application;
//! - everything else (a broker restarting, a timeout, a connection drop) is retried.

use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;

use super::error::{ConsumerFailure, StreamsError};

/// How long an unknown topic or partition is retried before the assigned topics are checked.
pub(crate) const UNKNOWN_GRACE: Duration = crate::kafka::transient::UNKNOWN_GRACE;
/// How long the metadata lookup of that check may take.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);

/// How an error reported by the consumer is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConsumerErrorClass {
    /// Retried (a broker restarting, a timeout, a leader moving).
    Transient,
    /// Retried for a while, then the assigned topics are checked.
    UnknownTopicOrPartition,
    /// The principal may not do this: the application stops.
    NotAuthorized(&'static str),
    /// No retry fixes it: the application stops.
    Permanent(&'static str),
}

/// Classifies a consumer error by its code, as every Kafka error of the runtime is
/// ([`crate::kafka::transient::classify`]).
pub(crate) fn classify(error: &KafkaError) -> ConsumerErrorClass {
    use crate::kafka::transient::ErrorClass;
    match crate::kafka::transient::classify(error) {
        ErrorClass::Transient => ConsumerErrorClass::Transient,
        ErrorClass::UnknownTopicOrPartition => ConsumerErrorClass::UnknownTopicOrPartition,
        ErrorClass::NotAuthorized(remedy) => ConsumerErrorClass::NotAuthorized(remedy),
        ErrorClass::Permanent(remedy) => ConsumerErrorClass::Permanent(remedy),
    }
}

/// The consumer errors one processing thread has seen, and when to give up on them.
#[derive(Debug, Default)]
pub(crate) struct ConsumerErrors {
    /// Since when an unknown topic or partition has been reported without a check finding every
    /// assigned topic.
    unknown_since: Option<Instant>,
}

impl ConsumerErrors {
    /// Handles `error`: `Ok` to retry, `Err` when the application must stop. `application_id`
    /// names the group.
    pub(crate) fn on_error<C: ConsumerContext>(
        &mut self,
        error: KafkaError,
        consumer: &BaseConsumer<C>,
        application_id: &str,
    ) -> Result<(), StreamsError> {
        let code = error.rdkafka_error_code();
        match classify(&error) {
            ConsumerErrorClass::Transient => {
                tracing::warn!(%error, "consumer error; retrying");
                Ok(())
            }
            ConsumerErrorClass::NotAuthorized(remedy) => Err(StreamsError::from(ConsumerFailure {
                operation: "reading",
                resource: resource_of(code, consumer, application_id),
                error,
                remedy,
            })),
            ConsumerErrorClass::Permanent(remedy) => Err(StreamsError::from(ConsumerFailure {
                operation: "reading",
                resource: resource_of(code, consumer, application_id),
                error,
                remedy,
            })),
            ConsumerErrorClass::UnknownTopicOrPartition => {
                let since = *self.unknown_since.get_or_insert_with(Instant::now);
                if since.elapsed() < UNKNOWN_GRACE {
                    tracing::warn!(%error, "consumer error; retrying while the topic may still appear");
                    return Ok(());
                }
                let missing = missing_topics(consumer);
                if missing.is_empty() {
                    // Every assigned topic exists: a partition moving, or a topic that appeared.
                    self.unknown_since = None;
                    return Ok(());
                }
                Err(StreamsError::from(ConsumerFailure {
                    operation: "reading",
                    resource: format!(
                        "topic {} (unknown for {} s)",
                        missing.join(", "),
                        since.elapsed().as_secs()
                    ),
                    error,
                    remedy: "create the topic with the partitions the topology needs, or fix the topology's topic names",
                }))
            }
        }
    }
}

/// The resource an error of `code` concerns, for the error message.
fn resource_of<C: ConsumerContext>(
    code: Option<RDKafkaErrorCode>,
    consumer: &BaseConsumer<C>,
    application_id: &str,
) -> String {
    match code {
        Some(RDKafkaErrorCode::GroupAuthorizationFailed) => format!("group {application_id}"),
        Some(RDKafkaErrorCode::TransactionalIdAuthorizationFailed) => {
            format!("transactional ids {application_id}-*")
        }
        Some(RDKafkaErrorCode::ClusterAuthorizationFailed) => "the cluster".to_owned(),
        _ => {
            let topics = assigned_topics(consumer);
            if topics.is_empty() {
                "the source topics".to_owned()
            } else {
                format!("topic {}", topics.join(", "))
            }
        }
    }
}

/// The topics assigned to the consumer, each once.
fn assigned_topics<C: ConsumerContext>(consumer: &BaseConsumer<C>) -> Vec<String> {
    let mut topics: Vec<String> = Vec::new();
    if let Ok(assignment) = consumer.assignment() {
        for elem in assignment.elements() {
            if !topics.iter().any(|t| t == elem.topic()) {
                topics.push(elem.topic().to_owned());
            }
        }
    }
    topics
}

/// The assigned topics the cluster does not know (empty when the lookup fails: then nothing is
/// known to be missing).
fn missing_topics<C: ConsumerContext>(consumer: &BaseConsumer<C>) -> Vec<String> {
    assigned_topics(consumer)
        .into_iter()
        .filter(
            |topic| match consumer.fetch_metadata(Some(topic), METADATA_TIMEOUT) {
                Ok(metadata) => metadata.topics().iter().any(|t| {
                    t.name() == topic
                        && matches!(
                            t.error().map(RDKafkaErrorCode::from),
                            Some(RDKafkaErrorCode::UnknownTopicOrPartition)
                        )
                }),
                Err(_) => false,
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(code: RDKafkaErrorCode) -> ConsumerErrorClass {
        classify(&KafkaError::MessageConsumption(code))
    }

    #[test]
    fn authorization_errors_stop_the_application() {
        for code in [
            RDKafkaErrorCode::TopicAuthorizationFailed,
            RDKafkaErrorCode::GroupAuthorizationFailed,
            RDKafkaErrorCode::ClusterAuthorizationFailed,
            RDKafkaErrorCode::TransactionalIdAuthorizationFailed,
            RDKafkaErrorCode::SaslAuthenticationFailed,
        ] {
            assert!(
                matches!(class(code), ConsumerErrorClass::NotAuthorized(_)),
                "{code:?}"
            );
        }
    }

    #[test]
    fn unknown_topics_and_partitions_are_checked_after_a_grace() {
        for code in [
            RDKafkaErrorCode::UnknownTopicOrPartition,
            RDKafkaErrorCode::UnknownTopic,
            RDKafkaErrorCode::UnknownPartition,
        ] {
            assert_eq!(
                class(code),
                ConsumerErrorClass::UnknownTopicOrPartition,
                "{code:?}"
            );
        }
    }

    #[test]
    fn other_permanent_errors_stop_the_application() {
        for code in [
            RDKafkaErrorCode::InvalidTopic,
            RDKafkaErrorCode::UnsupportedVersion,
            RDKafkaErrorCode::UnsupportedCompressionType,
        ] {
            assert!(
                matches!(class(code), ConsumerErrorClass::Permanent(_)),
                "{code:?}"
            );
        }
    }

    #[test]
    fn broker_trouble_is_retried() {
        for code in [
            RDKafkaErrorCode::BrokerTransportFailure,
            RDKafkaErrorCode::AllBrokersDown,
            RDKafkaErrorCode::NotLeaderForPartition,
            RDKafkaErrorCode::LeaderNotAvailable,
            RDKafkaErrorCode::RequestTimedOut,
            RDKafkaErrorCode::OperationTimedOut,
            RDKafkaErrorCode::NetworkException,
            RDKafkaErrorCode::CoordinatorLoadInProgress,
            RDKafkaErrorCode::NotCoordinator,
            RDKafkaErrorCode::OffsetOutOfRange,
        ] {
            assert_eq!(class(code), ConsumerErrorClass::Transient, "{code:?}");
        }
        assert_eq!(
            classify(&KafkaError::PartitionEOF(0)),
            ConsumerErrorClass::Transient
        );
    }
}
