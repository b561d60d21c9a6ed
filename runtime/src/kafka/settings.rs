//! The librdkafka settings of every client an application creates.
//!
//! Users pass bootstrap servers and any librdkafka property (TLS, SASL, tuning); the runtime
//! adds what its guarantees depend on and refuses user values that would break them.

use std::fmt;

use rdkafka::ClientConfig;

use crate::security::config::is_secret_property;
use crate::security::{ConnectionSecurity, OAuthTokenProvider, SecurityConfig, SecurityError};

/// Properties the runtime sets itself; a user value for one of them is an error, since the
/// guarantees depend on it.
pub const RESERVED_PROPERTIES: &[&str] = &[
    "group.id",
    "group.protocol",
    "enable.auto.commit",
    "enable.auto.offset.store",
    "isolation.level",
    "transactional.id",
    "enable.idempotence",
    "partitioner",
    // The restore reader depends on end-of-partition events, and the main consumer must not get them.
    "enable.partition.eof",
    // One consumer reads source and repartition topics; a repartition topic must be read from
    // its beginning when its committed offset was purged, as Kafka Streams always does for its
    // internal topics, so `latest` cannot be honoured per topic.
    "auto.offset.reset",
];

/// Consumer properties the runtime chooses unless the user sets them (`property(..)` wins):
/// tuning, not guarantees.
pub const CONSUMER_DEFAULTS: &[(&str, &str)] = &[
    // How long the broker holds a fetch that has nothing to return. Under read_committed a
    // repartition topic's records only become readable when the writing transaction commits;
    // with the default 500 ms a fetch parked before the commit marker kept the next subtopology
    // waiting (word count p99 858 ms -> 270 ms exactly-once).
    ("fetch.wait.max.ms", "50"),
    // How long librdkafka postpones fetching a partition whose prefetch queue is over
    // `queued.min.messages` (100k). A word count's repartition backlog (one fetch of 1 MiB per
    // partition is about 60k words) tripped it, and the default 1000 ms left the thread idle for
    // most of each second once the queue drained.
    ("fetch.queue.backoff.ms", "10"),
];

/// Properties of a processing thread's main consumer, over [`CONSUMER_DEFAULTS`], unless the user
/// sets them: they bound the records librdkafka prefetches, most of the application's memory.
///
/// librdkafka keeps fetching a partition until its queue holds `queued.min.messages` records
/// (default 100 000, per partition), and each queued record costs a few hundred bytes of
/// librdkafka's bookkeeping besides its payload. Word count's backlog (two input and two
/// repartition partitions of small records) queued up to 186 000 records, and its peak RSS was
/// 88–94 MiB, of which about 50 MiB was that queue (librdkafka statistics: `fetchq_cnt`).
/// Kafka Streams buffers at most 1 000 records per partition (`buffered.records.per.partition`).
/// With 10 000 records per partition and fetches of at most 256 KiB per partition (about
/// 12 000 small records), the same run peaks at 37 MiB; a fetch still returns at least one whole
/// batch, so larger records are not refused. Restore and standby consumers keep librdkafka's
/// defaults: they read changelogs in bulk.
pub const PROCESSING_CONSUMER_DEFAULTS: &[(&str, &str)] = &[
    ("queued.min.messages", "10000"),
    ("max.partition.fetch.bytes", "262144"),
];

/// Producer properties the runtime chooses unless the user sets them.
pub const PRODUCER_DEFAULTS: &[(&str, &str)] = &[
    // librdkafka 2.12's send_offsets_to_transaction can wait forever when the group coordinator's
    // broker died: its coordinator request keeps the dead broker cached as coordinator, the
    // broker's handle is decommissioned once it leaves the metadata, and the request is only
    // re-run on a state change of some broker connection (librdkafka issues #5511, #5456;
    // `rd_kafka_coord_req_fsm`), which with every connection up and busy came with the next
    // periodic metadata refresh, 5 minutes later: the processing thread stalled that long after
    // a SIGKILL of the coordinator's broker. Closing connections idle for 10 s (the blocked
    // thread sends nothing) is such a state change, so the request looks the coordinator up
    // again within seconds. Kafka brokers close idle connections after 10 minutes anyway.
    ("connections.max.idle.ms", "10000"),
    // How long librdkafka waits before retrying a request the broker answered with a retriable
    // error, doubling up to `retry.backoff.max.ms` (1 s). At the default 100 ms, every
    // `AddOffsetsToTxn` that met the previous transaction's markers still being written
    // (`CONCURRENT_TRANSACTIONS`: the broker paused for a garbage collection meanwhile) added
    // 100 ms to a commit, and to every record of its interval: commits of 88-123 ms in every
    // 20 s of word count at 1 000 sentences/s, each with its records already acknowledged
    // (`offsets` 90-118 ms, `drain` 0), the largest part of its p99 once the catch-up waits were
    // gone. librdkafka itself retries `AddPartitionsToTxn` after 20 ms for that error.
    ("retry.backoff.ms", "20"),
];

/// Why a client setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The user set a property the runtime must control.
    #[error(
        "the librdkafka property `{0}` is set by dekaf-streams itself and cannot be changed; remove \
         it from the configuration (group, offsets, isolation, idempotence and transactions follow \
         `processing_guarantee(..)`; sources without committed offsets are read from the beginning; \
         partitioning is murmur2, as the Java client's)"
    )]
    Reserved(String),
    /// No bootstrap servers were given.
    #[error("no bootstrap servers: call `bootstrap_servers(\"host:port\")` on the builder")]
    NoBootstrapServers,
    /// A TLS or SASL property cannot be honoured by every client.
    #[error(transparent)]
    Security(#[from] SecurityError),
}

/// Connection settings shared by every client of one application. `Debug` shows secret
/// properties (passwords, keys, tokens) as `[redacted]`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ClientSettings {
    bootstrap_servers: String,
    properties: Vec<(String, String)>,
    oauth_provider: Option<OAuthTokenProvider>,
}

impl fmt::Debug for ClientSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Props<'a>(&'a [(String, String)]);
        impl fmt::Debug for Props<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.iter().map(|(k, v)| {
                        let shown = if is_secret_property(k) {
                            "[redacted]"
                        } else {
                            v.as_str()
                        };
                        (k, shown)
                    }))
                    .finish()
            }
        }
        f.debug_struct("ClientSettings")
            .field("bootstrap_servers", &self.bootstrap_servers)
            .field("properties", &Props(&self.properties))
            .field("oauth_provider", &self.oauth_provider)
            .finish()
    }
}

impl ClientSettings {
    /// Settings for a cluster reachable at `bootstrap_servers` (`host:port[,host:port]`).
    pub fn new(bootstrap_servers: impl Into<String>) -> Self {
        ClientSettings {
            bootstrap_servers: bootstrap_servers.into(),
            properties: Vec::new(),
            oauth_provider: None,
        }
    }

    /// Sets a librdkafka property on every client (for example `security.protocol`,
    /// `sasl.mechanism`, `ssl.ca.location`, `linger.ms`).
    pub fn set(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<(), SettingsError> {
        let key = key.into();
        if RESERVED_PROPERTIES.contains(&key.as_str()) {
            return Err(SettingsError::Reserved(key));
        }
        if key == "bootstrap.servers" {
            self.bootstrap_servers = value.into();
            return Ok(());
        }
        self.properties.retain(|(k, _)| *k != key);
        self.properties.push((key, value.into()));
        Ok(())
    }

    /// The bootstrap servers.
    pub fn bootstrap_servers(&self) -> &str {
        &self.bootstrap_servers
    }

    /// Sets the OAUTHBEARER token provider of every client (`sasl.mechanism=OAUTHBEARER`).
    pub fn set_oauth_token_provider(&mut self, provider: OAuthTokenProvider) {
        self.oauth_provider = Some(provider);
    }

    /// The token refresh of every librdkafka client (see [`OAuthRefresh`](super::oauth::OAuthRefresh)).
    pub(crate) fn oauth_refresh(&self) -> super::oauth::OAuthRefresh {
        super::oauth::OAuthRefresh::new(self.oauth_provider.clone())
    }

    /// The OAUTHBEARER token provider, if one is set.
    pub fn oauth_token_provider(&self) -> Option<&OAuthTokenProvider> {
        self.oauth_provider.as_ref()
    }

    /// Checks that the settings can make a client, and that the coordinator connection can
    /// honour every TLS and SASL property (and load the TLS files they name).
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.bootstrap_servers.trim().is_empty() {
            return Err(SettingsError::NoBootstrapServers);
        }
        self.connection_security()?;
        Ok(())
    }

    /// The TLS and SASL settings of the coordinator connection, read from the properties.
    pub(crate) fn security_config(&self) -> Result<SecurityConfig, SettingsError> {
        Ok(SecurityConfig::from_properties(
            self.properties
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
            self.oauth_provider.as_ref(),
        )?)
    }

    /// The prepared TLS and SASL of the coordinator connection (TLS files loaded).
    pub(crate) fn connection_security(&self) -> Result<ConnectionSecurity, SettingsError> {
        Ok(ConnectionSecurity::new(&self.security_config()?)?)
    }

    /// The base configuration: bootstrap servers and the user's properties.
    pub(crate) fn base(&self) -> ClientConfig {
        self.base_over(&[])
    }

    /// `defaults`, then the bootstrap servers and the user's properties, which win.
    fn base_over(&self, defaults: &[(&str, &str)]) -> ClientConfig {
        let mut config = ClientConfig::new();
        for (k, v) in defaults {
            config.set(*k, *v);
        }
        config.set("bootstrap.servers", &self.bootstrap_servers);
        for (k, v) in &self.properties {
            config.set(k, v);
        }
        config
    }

    /// A consumer that only `assign()`s partitions and never joins a group. Its `group.id` is the
    /// application id so it can read the group's committed offsets (OffsetFetch without a member
    /// is allowed in a streams group). [`CONSUMER_DEFAULTS`] apply unless the user set them.
    pub(crate) fn consumer(&self, application_id: &str, read_committed: bool) -> ClientConfig {
        self.consumer_over(CONSUMER_DEFAULTS, application_id, read_committed)
    }

    /// The main consumer of a processing thread: a [`consumer`](Self::consumer) that also
    /// bounds its prefetch with [`PROCESSING_CONSUMER_DEFAULTS`] unless the user set them.
    pub(crate) fn processing_consumer(
        &self,
        application_id: &str,
        read_committed: bool,
    ) -> ClientConfig {
        let defaults: Vec<(&str, &str)> = CONSUMER_DEFAULTS
            .iter()
            .chain(PROCESSING_CONSUMER_DEFAULTS)
            .copied()
            .collect();
        self.consumer_over(&defaults, application_id, read_committed)
    }

    fn consumer_over(
        &self,
        defaults: &[(&str, &str)],
        application_id: &str,
        read_committed: bool,
    ) -> ClientConfig {
        let mut config = self.base_over(defaults);
        config
            .set("group.id", application_id)
            .set("group.protocol", "classic")
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set(
                "isolation.level",
                if read_committed {
                    "read_committed"
                } else {
                    "read_uncommitted"
                },
            );
        config
    }

    /// A producer. With `transactional_id` it is transactional (exactly-once); without, it is
    /// idempotent (at-least-once). Keys are partitioned with murmur2 like the Java client, so
    /// repartition topics and sinks agree with Kafka Streams and Java consumers.
    /// [`PRODUCER_DEFAULTS`] apply unless the user set them.
    pub(crate) fn producer(&self, transactional_id: Option<&str>) -> ClientConfig {
        let mut config = self.base_over(PRODUCER_DEFAULTS);
        config
            .set("enable.idempotence", "true")
            .set("partitioner", "murmur2_random");
        if let Some(id) = transactional_id {
            config.set("transactional.id", id);
        }
        config
    }

    /// An admin client.
    pub(crate) fn admin(&self) -> ClientConfig {
        self.base()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_properties_are_refused_with_advice() {
        let mut s = ClientSettings::new("localhost:9092");
        let err = s.set("isolation.level", "read_uncommitted").unwrap_err();
        assert_eq!(err, SettingsError::Reserved("isolation.level".into()));
        assert!(err.to_string().contains("processing_guarantee"));
    }

    #[test]
    fn user_properties_reach_every_client_and_later_values_win() {
        let mut s = ClientSettings::new("a:1");
        s.set("linger.ms", "5").unwrap();
        s.set("linger.ms", "7").unwrap();
        s.set("bootstrap.servers", "b:2").unwrap();
        let p = s.producer(Some("app-0"));
        assert_eq!(p.get("linger.ms"), Some("7"));
        assert_eq!(p.get("bootstrap.servers"), Some("b:2"));
        assert_eq!(p.get("transactional.id"), Some("app-0"));
        let c = s.consumer("app", true);
        assert_eq!(c.get("group.id"), Some("app"));
        assert_eq!(c.get("isolation.level"), Some("read_committed"));
        assert_eq!(c.get("linger.ms"), Some("7"));
    }

    #[test]
    fn tuning_defaults_yield_to_the_users_values_and_guarantees_do_not() {
        let mut s = ClientSettings::new("a:1");
        let c = s.consumer("app", true);
        assert_eq!(c.get("fetch.wait.max.ms"), Some("50"));
        s.set("fetch.wait.max.ms", "200").unwrap();
        s.set("fetch.queue.backoff.ms", "500").unwrap();
        let c = s.consumer("app", true);
        assert_eq!(c.get("fetch.wait.max.ms"), Some("200"));
        assert_eq!(c.get("fetch.queue.backoff.ms"), Some("500"));
        assert_eq!(c.get("auto.offset.reset"), Some("earliest"));
        assert_eq!(
            s.producer(Some("app-0")).get("connections.max.idle.ms"),
            Some("10000")
        );
        s.set("connections.max.idle.ms", "0").unwrap();
        assert_eq!(
            s.producer(Some("app-0")).get("connections.max.idle.ms"),
            Some("0")
        );
        let main = s.processing_consumer("app", true);
        assert_eq!(main.get("queued.min.messages"), Some("10000"));
        assert_eq!(main.get("max.partition.fetch.bytes"), Some("262144"));
        assert_eq!(main.get("fetch.wait.max.ms"), Some("200"));
        assert_eq!(main.get("isolation.level"), Some("read_committed"));
        assert_eq!(s.consumer("app", true).get("queued.min.messages"), None);
        s.set("queued.min.messages", "50000").unwrap();
        assert_eq!(
            s.processing_consumer("app", false)
                .get("queued.min.messages"),
            Some("50000")
        );
        for reserved in ["enable.partition.eof", "auto.offset.reset"] {
            assert_eq!(
                s.set(reserved, "x"),
                Err(SettingsError::Reserved(reserved.into()))
            );
        }
    }

    #[test]
    fn empty_bootstrap_servers_are_refused() {
        assert_eq!(
            ClientSettings::new(" ").validate(),
            Err(SettingsError::NoBootstrapServers)
        );
    }
}
