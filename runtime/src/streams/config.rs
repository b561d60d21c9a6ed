//! How an application runs: guarantee, threads, commit interval, client settings.

use std::path::PathBuf;
use std::time::Duration;

use crate::kafka::settings::{ClientSettings, SettingsError};

/// What a commit does, and so what a failure can cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProcessingGuarantee {
    /// Output records, changelog records and consumed offsets commit in one Kafka transaction.
    /// After a failure, uncommitted work is aborted and redone: each input record affects output
    /// and state once. Consumers of the output must read with `isolation.level=read_committed`.
    #[default]
    ExactlyOnce,
    /// Output is flushed, then offsets are committed, without a transaction. After a failure,
    /// input since the last commit is processed again, so output and state updates can repeat.
    AtLeastOnce,
}

/// The settings of a running application. Made by [`Builder`](super::Builder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsConfig {
    /// Client settings shared by every consumer, producer and admin client.
    pub settings: ClientSettings,
    /// Processing threads; each is one member of the streams group.
    pub threads: usize,
    /// Exactly-once (default) or at-least-once.
    pub guarantee: ProcessingGuarantee,
    /// How often output, state and offsets are committed (100 ms by default).
    pub commit_interval: Duration,
    /// How soon after its last commit a thread that has processed everything it fetched commits
    /// (10 ms by default); see [`Builder::idle_commit_interval`](super::Builder::idle_commit_interval).
    pub idle_commit_interval: Duration,
    /// How long the broker waits before aborting the open transaction of a crashed instance
    /// (10 s by default). Read-committed consumers of affected partitions wait that long.
    pub transaction_timeout: Duration,
    /// How long the coordinator waits for a member to release revoked tasks before fencing it
    /// ([`DEFAULT_REBALANCE_TIMEOUT`](crate::DEFAULT_REBALANCE_TIMEOUT), 30 s).
    pub rebalance_timeout: Duration,
    /// Where stores live on disk (LMDB), or `None` to keep them in memory (the default).
    pub state_dir: Option<PathBuf>,
    /// How long the directory of a task this instance no longer runs is kept before it is
    /// deleted (10 min by default, as Kafka Streams' `state.cleanup.delay.ms`); the cleaner
    /// runs this often too.
    pub state_cleanup_delay: Duration,
    /// The record cache of the instance in bytes (10 MiB by default, as Kafka Streams'
    /// `statestore.cache.max.bytes`); 0 forwards every update of an aggregation.
    pub cache_max_bytes: usize,
    /// The static membership id of this instance (`group.instance.id`), or `None` (the
    /// default) for dynamic membership. Thread `i` (from 1) joins as `<id>-<i>`, as Kafka
    /// Streams suffixes each thread's consumer.
    pub group_instance_id: Option<String>,
    /// The `host:port` this instance serves interactive queries on (Kafka Streams'
    /// `application.server`), sent to the group as the members' user endpoint. `None` by
    /// default.
    pub application_server: Option<String>,
    /// How long a processing thread may stay away from its loop (in user code) before its
    /// member leaves the group and its tasks move (Kafka's `max.poll.interval.ms`, 300 s by
    /// default); see [`Builder::max_poll_interval`](super::Builder::max_poll_interval).
    pub max_poll_interval: Duration,
    /// The state of this instance's serdes (a schema registry client, ...), entered by every
    /// processing thread; see [`SerdeStates`](crate::serdes::SerdeStates). Empty by default.
    pub serde_states: crate::serdes::SerdeStates,
    /// What every internal topic (repartition and changelog) is declared with to the group
    /// coordinator that creates it: replication factor, configs (Kafka Streams'
    /// `replication.factor`, `topic.*`, `windowstore.changelog.additional.retention.ms`).
    pub internal_topics: crate::topology::InternalTopicSettings,
}

/// How long an unowned task directory is kept by default: 10 minutes, as Kafka Streams'
/// `state.cleanup.delay.ms`.
pub const DEFAULT_STATE_CLEANUP_DELAY: Duration = Duration::from_secs(600);

/// The default [`StreamsConfig::idle_commit_interval`]: 10 ms.
pub const DEFAULT_IDLE_COMMIT_INTERVAL: Duration = Duration::from_millis(10);

/// The default record cache: 10 MiB, as Kafka Streams' `statestore.cache.max.bytes`.
pub const DEFAULT_CACHE_MAX_BYTES: usize = 10 * 1024 * 1024;

/// Why an application could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A client setting was refused.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// `threads(0)`.
    #[error("threads(0): an application needs at least one processing thread")]
    NoThreads,
    /// A zero commit interval.
    #[error("commit_interval must be longer than zero (100 ms is the default)")]
    ZeroCommitInterval,
    /// A zero `max_poll_interval`.
    #[error(
        "max_poll_interval must be longer than zero (300 s is the default): it bounds how long a \
         processing thread may spend away from its loop"
    )]
    ZeroMaxPollInterval,
    /// An empty `group_instance_id`.
    #[error(
        "group_instance_id(\"\") is empty: give each instance a non-empty id that stays the same across its restarts, or leave it unset for dynamic membership"
    )]
    EmptyGroupInstanceId,
    /// `application_server` is not a `host:port`.
    #[error(
        "application_server(\"{0}\") is not a host:port: give the address and port other \
         instances reach this one's query endpoint at, e.g. \"10.0.0.5:8080\""
    )]
    InvalidApplicationServer(String),
    /// `replication_factor(n)` with `n` neither -1 nor at least 1.
    #[error(
        "replication_factor({0}) is not a replication factor: give at least 1, or -1 for the \
         broker's default.replication.factor (the default)"
    )]
    InvalidReplicationFactor(i16),
    /// `internal_topic_config(name, ..)` with a name that is no topic config.
    #[error(
        "internal_topic_config(\"{0}\", ..): `{0}` is not a topic config of Kafka 4.4, and the \
         coordinator could not create the internal topics with it; give a name without the \
         `topic.` prefix Kafka Streams uses, e.g. \"min.insync.replicas\""
    )]
    UnknownTopicConfig(String),
    /// The transaction timeout does not leave room for a commit interval.
    #[error(
        "transaction_timeout ({timeout:?}) must be longer than commit_interval ({interval:?}), \
         or every transaction would time out before it is committed"
    )]
    TransactionTimeoutTooShort {
        /// The transaction timeout given.
        timeout: Duration,
        /// The commit interval given.
        interval: Duration,
    },
}

impl StreamsConfig {
    /// The defaults of Kafka Streams' exactly-once mode, for servers at `bootstrap_servers`.
    pub fn new(bootstrap_servers: impl Into<String>) -> Self {
        StreamsConfig {
            settings: ClientSettings::new(bootstrap_servers),
            threads: 1,
            guarantee: ProcessingGuarantee::ExactlyOnce,
            commit_interval: Duration::from_millis(100),
            idle_commit_interval: DEFAULT_IDLE_COMMIT_INTERVAL,
            transaction_timeout: Duration::from_secs(10),
            rebalance_timeout: crate::group::DEFAULT_REBALANCE_TIMEOUT,
            state_dir: None,
            state_cleanup_delay: DEFAULT_STATE_CLEANUP_DELAY,
            cache_max_bytes: DEFAULT_CACHE_MAX_BYTES,
            group_instance_id: None,
            application_server: None,
            max_poll_interval: crate::group::DEFAULT_MAX_POLL_INTERVAL,
            serde_states: crate::serdes::SerdeStates::new(),
            internal_topics: crate::topology::InternalTopicSettings::default(),
        }
    }

    /// Checks the settings against each other.
    pub fn validate(&self) -> Result<(), BuildError> {
        self.settings.validate()?;
        if self.threads == 0 {
            return Err(BuildError::NoThreads);
        }
        if self
            .group_instance_id
            .as_deref()
            .is_some_and(|id| id.trim().is_empty())
        {
            return Err(BuildError::EmptyGroupInstanceId);
        }
        if let Some(server) = &self.application_server
            && crate::query::HostInfo::parse(server).is_none()
        {
            return Err(BuildError::InvalidApplicationServer(server.clone()));
        }
        let topics = &self.internal_topics;
        if topics.replication_factor == 0 || topics.replication_factor < -1 {
            return Err(BuildError::InvalidReplicationFactor(
                topics.replication_factor,
            ));
        }
        if let Some(name) = topics
            .configs
            .keys()
            .find(|k| !crate::kafka::topic_configs::is_topic_config(k))
        {
            return Err(BuildError::UnknownTopicConfig(name.clone()));
        }
        if self.commit_interval.is_zero() {
            return Err(BuildError::ZeroCommitInterval);
        }
        if self.max_poll_interval.is_zero() {
            return Err(BuildError::ZeroMaxPollInterval);
        }
        if self.guarantee == ProcessingGuarantee::ExactlyOnce
            && self.transaction_timeout <= self.commit_interval
        {
            return Err(BuildError::TransactionTimeoutTooShort {
                timeout: self.transaction_timeout,
                interval: self.commit_interval,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_kafka_streams_exactly_once_defaults() {
        let c = StreamsConfig::new("localhost:9092");
        assert_eq!(c.guarantee, ProcessingGuarantee::ExactlyOnce);
        assert_eq!(c.commit_interval, Duration::from_millis(100));
        assert_eq!(c.transaction_timeout, Duration::from_secs(10));
        assert_eq!(c.cache_max_bytes, 10 * 1024 * 1024);
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn internal_topic_settings_the_broker_would_refuse_are_refused() {
        let mut c = StreamsConfig::new("localhost:9092");
        c.internal_topics.replication_factor = 0;
        assert_eq!(c.validate(), Err(BuildError::InvalidReplicationFactor(0)));
        c.internal_topics.replication_factor = 3;
        assert_eq!(c.validate(), Ok(()));
        c.internal_topics
            .configs
            .insert("topic.min.insync.replicas".into(), "2".into());
        let refused = c.validate().expect_err("a prefixed name");
        assert!(refused.to_string().contains("without the `topic.` prefix"));
    }

    #[test]
    fn inconsistent_settings_are_refused() {
        let mut c = StreamsConfig::new("localhost:9092");
        c.threads = 0;
        assert_eq!(c.validate(), Err(BuildError::NoThreads));
        c.threads = 2;
        c.transaction_timeout = Duration::from_millis(50);
        assert!(matches!(
            c.validate(),
            Err(BuildError::TransactionTimeoutTooShort { .. })
        ));
        c.guarantee = ProcessingGuarantee::AtLeastOnce;
        assert_eq!(c.validate(), Ok(()));
        c.application_server = Some("no-port".into());
        assert!(matches!(
            c.validate(),
            Err(BuildError::InvalidApplicationServer(_))
        ));
        c.application_server = Some("127.0.0.1:8080".into());
        assert_eq!(c.validate(), Ok(()));
    }
}
