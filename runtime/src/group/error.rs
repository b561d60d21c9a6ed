//! The errors of the coordinator connection and the membership.

use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;

use crate::protocol::DecodeError;

/// Why a streams-group member cannot go on. Every message says what to do about it.
#[derive(Debug, Clone, Error)]
#[non_exhaustive]
pub enum GroupError {
    /// No broker of the bootstrap list answered in time.
    #[error(
        "no Kafka broker answered at {bootstrap} within {waited:?} (last error: {last_error}); \
         check that the broker runs and that the bootstrap servers are right"
    )]
    NoBroker {
        /// The bootstrap servers tried.
        bootstrap: String,
        /// How long the member tried.
        waited: Duration,
        /// The last error seen.
        last_error: String,
    },
    /// The broker does not speak the streams group protocol.
    #[error(
        "the broker at {broker} does not serve streams groups (StreamsGroupHeartbeat, api key 88); \
         dekaf-streams needs Apache Kafka 4.2 or newer with the streams rebalance protocol \
         enabled (`group.coordinator.rebalance.protocols` must include `streams`)"
    )]
    StreamsGroupsUnsupported {
        /// The broker's address.
        broker: String,
    },
    /// The group already exists with another topology.
    #[error(
        "the topology of application `{application_id}` differs from the topology its streams group \
         was created with, and Kafka does not support topology updates yet (broker: \"{broker_message}\"). \
         {differences}\
         If a Kafka Streams application ran under this application id (taking it over in place), \
         the likely cause is an internal topic named or configured differently: print the \
         topology's `describe()`, whose \"Declared to the coordinator\" part lists what this \
         program declares and whose \"Kafka Streams equivalent\" part flags the operators whose \
         declaration can differ from the Java application's, with the fix (README, \"Migrating \
         from Kafka Streams\"). Otherwise, either run the changed topology under a new \
         application id, or stop every instance of `{application_id}`, delete the streams group \
         `{application_id}` (for example \
         `kafka-streams-groups.sh --bootstrap-server <broker> --delete --group {application_id}`) \
         and its internal topics (`{application_id}-*-repartition`, `{application_id}-*-changelog`), \
         then start again"
    )]
    TopologyChanged {
        /// The application id (the group id).
        application_id: String,
        /// What the broker said.
        broker_message: String,
        /// What differs, as found by describing the group ("Differences: ...; ... "), or empty
        /// when the group could not be described.
        differences: String,
    },
    /// The broker refused the topology as invalid.
    #[error("the broker rejected the topology of `{application_id}` as invalid: {message}")]
    InvalidTopology {
        /// The application id.
        application_id: String,
        /// What the broker said.
        message: String,
    },
    /// The topology metadata given to the member is inconsistent (a bug of the code that built it).
    #[error("inconsistent topology metadata: {0}")]
    InvalidTopologyInfo(String),
    /// The principal may not use the group or its topics.
    #[error(
        "not authorized ({code}) for streams group `{group}`: {message}; grant the application's \
         principal READ on the group and READ/WRITE/CREATE/DESCRIBE on its topics"
    )]
    NotAuthorized {
        /// The group id.
        group: String,
        /// The error's name.
        code: String,
        /// What the broker said.
        message: String,
    },
    /// Another kind of group (classic, consumer or share) uses the group id.
    #[error(
        "the group id `{group}` is used by a group that is not a streams group ({message}); \
         choose another application id, or delete that group when it is no longer used"
    )]
    GroupIdInUse {
        /// The group id.
        group: String,
        /// What the broker said.
        message: String,
    },
    /// The group has as many members as the broker allows.
    #[error(
        "the streams group `{group}` is full ({message}); run fewer threads or instances, or raise \
         the broker's `group.streams.max.size`"
    )]
    GroupFull {
        /// The group id.
        group: String,
        /// What the broker said.
        message: String,
    },
    /// The broker answered with an error this member does not expect.
    #[error(
        "the broker refused {api} for group `{group}` with {code}: {message}; this is likely a bug \
         of dekaf-streams or an unsupported broker, please report it with the broker's log"
    )]
    Rejected {
        /// Which request.
        api: &'static str,
        /// The group id.
        group: String,
        /// The error's name and code.
        code: String,
        /// What the broker said.
        message: String,
    },
    /// Reading from or writing to a broker failed.
    #[error("I/O error talking to {broker}: {source}")]
    Io {
        /// The broker's address.
        broker: String,
        /// The cause.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A broker answered with bytes this crate cannot decode.
    #[error("malformed {api} response from {broker}: {source}")]
    Malformed {
        /// The broker's address.
        broker: String,
        /// Which request.
        api: &'static str,
        /// The cause.
        #[source]
        source: DecodeError,
    },
    /// A broker did not answer a request in time.
    #[error("{api} to {broker} timed out after {timeout:?}")]
    Timeout {
        /// The broker's address.
        broker: String,
        /// Which request.
        api: &'static str,
        /// How long the member waited.
        timeout: Duration,
    },
    /// SASL authentication failed (wrong credentials, a mechanism the listener does not offer,
    /// an expired token): permanent, a new connection would fail the same way.
    #[error(
        "SASL {mechanism} authentication to {broker} failed with {code}: {message}; check \
         `sasl.mechanism`, `sasl.username`/`sasl.password` (or the OAUTHBEARER token) against the \
         listener's configuration and the broker's SCRAM users"
    )]
    AuthenticationFailed {
        /// The broker's address.
        broker: String,
        /// The mechanism.
        mechanism: &'static str,
        /// The error's name and code, e.g. `SaslAuthenticationFailed (58)`.
        code: String,
        /// What the broker (or the client's check of the broker) said.
        message: String,
    },
    /// The TLS handshake failed: permanent (certificate, host name, protocol).
    #[error(
        "the TLS handshake with {broker} failed: {reason}; check `ssl.ca.location` (the CA that \
         signed the broker's certificate), the client certificate and key, and that the \
         certificate names the host (or set `ssl.endpoint.identification.algorithm=none`)"
    )]
    Tls {
        /// The broker's address.
        broker: String,
        /// OpenSSL's reason.
        reason: String,
    },
    /// The member has stopped (it left the group, or failed earlier with another error).
    #[error("the streams-group member has stopped")]
    Stopped,
}

impl GroupError {
    /// True for errors of the transport (I/O, timeouts, malformed frames) that a new connection
    /// may cure.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            GroupError::Io { .. } | GroupError::Timeout { .. } | GroupError::Malformed { .. }
        )
    }
}
