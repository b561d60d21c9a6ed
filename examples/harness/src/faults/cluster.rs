//! Broker control of the 3-node test cluster through `scripts/kafka.sh … --brokers 3`, and where
//! partition leaders and the group coordinator are (plain rdkafka metadata, FindCoordinator).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// How the application and the harness's own clients (the input producer, the verifier) reach
/// the cluster. Broker control and the harness's lookups (leaders, coordinators, the quorum)
/// always use the plaintext listeners.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Security {
    /// The nodes' PLAINTEXT listeners.
    #[default]
    Plaintext,
    /// The nodes' SASL_SSL listeners, SCRAM-SHA-512 as user `alice`, the cluster's test CA.
    SaslSsl,
}

impl Security {
    /// `plaintext` or `SASL_SSL`, for the reports.
    pub fn name(self) -> &'static str {
        match self {
            Security::Plaintext => "plaintext",
            Security::SaslSsl => "SASL_SSL",
        }
    }
}

/// The cluster started by `scripts/kafka.sh start --brokers <brokers>` on `base_port`.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Client port of node 1; node `i` listens on `base_port + 2 (i - 1)`.
    pub base_port: u16,
    /// Number of nodes.
    pub brokers: u16,
}

impl Cluster {
    /// The cluster on `DEKAF_CLUSTER_PORT` (default 9192), three nodes.
    pub fn from_env() -> Cluster {
        let base_port = std::env::var("DEKAF_CLUSTER_PORT")
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or(9192);
        Cluster {
            base_port,
            brokers: 3,
        }
    }

    /// `127.0.0.1:p1,127.0.0.1:p2,…`.
    pub fn bootstrap(&self) -> String {
        (1..=self.brokers)
            .map(|i| format!("127.0.0.1:{}", self.port(i)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Client port of node `node` (from 1).
    pub fn port(&self, node: u16) -> u16 {
        self.base_port + 2 * (node - 1)
    }

    /// SASL_SSL port of node `node` (from 1): `base_port + 10 + (node - 1)`, as
    /// `scripts/kafka-cluster.sh` configures it.
    pub fn sasl_ssl_port(&self, node: u16) -> u16 {
        self.base_port + 10 + (node - 1)
    }

    /// The bootstrap list of the listeners of `security`.
    pub fn bootstrap_for(&self, security: Security) -> String {
        match security {
            Security::Plaintext => self.bootstrap(),
            Security::SaslSsl => (1..=self.brokers)
                .map(|i| format!("127.0.0.1:{}", self.sasl_ssl_port(i)))
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// Where the cluster's test CA (`ca.pem`) is: `DEKAF_CLUSTER_TLS_DIR`, else
    /// `$DEKAF_CACHE_DIR/cluster-<base port>/tls` (`DEKAF_CACHE_DIR` defaulting to
    /// `~/.cache/dekaf-streams`), as `scripts/kafka-cluster.sh` makes it.
    pub fn tls_dir(&self) -> PathBuf {
        if let Ok(dir) = std::env::var("DEKAF_CLUSTER_TLS_DIR") {
            return dir.into();
        }
        let cache = std::env::var("DEKAF_CACHE_DIR").map_or_else(
            |_| {
                PathBuf::from(std::env::var("HOME").unwrap_or_default())
                    .join(".cache/dekaf-streams")
            },
            PathBuf::from,
        );
        cache.join(format!("cluster-{}/tls", self.base_port))
    }

    /// Copies each node's broker log (`server.log`) into `dir` as `broker-<node>.log`, for a
    /// run to look into after the cluster moved on (a later run's restarts overwrite them).
    pub fn save_broker_logs(&self, dir: &Path) {
        let Some(cluster_dir) = self.tls_dir().parent().map(Path::to_path_buf) else {
            return;
        };
        for node in 1..=3 {
            let from = cluster_dir.join(format!("node-{node}/logs/server.log"));
            let _ = std::fs::copy(&from, dir.join(format!("broker-{node}.log")));
        }
    }

    /// The librdkafka (and runtime) properties a client needs besides the bootstrap list to
    /// connect with `security`: none for plaintext; for SASL_SSL the protocol, SCRAM-SHA-512
    /// as `alice` and the test CA.
    pub fn client_properties(&self, security: Security) -> Vec<(&'static str, String)> {
        match security {
            Security::Plaintext => Vec::new(),
            Security::SaslSsl => vec![
                ("security.protocol", "SASL_SSL".into()),
                ("sasl.mechanism", "SCRAM-SHA-512".into()),
                ("sasl.username", "alice".into()),
                ("sasl.password", "alice-secret".into()),
                (
                    "ssl.ca.location",
                    self.tls_dir().join("ca.pem").display().to_string(),
                ),
            ],
        }
    }

    /// Starts the cluster if it does not run (idempotent).
    pub fn start(&self) -> Result<(), String> {
        self.script(&["start"])
    }

    /// SIGKILL of node `node`.
    pub fn kill_node(&self, node: u16) -> Result<(), String> {
        self.script(&["kill-node", &node.to_string()])
    }

    /// Clean stop of node `node`.
    pub fn stop_node(&self, node: u16) -> Result<(), String> {
        self.script(&["stop-node", &node.to_string()])
    }

    /// Starts node `node` and waits until it answers.
    pub fn start_node(&self, node: u16) -> Result<(), String> {
        self.script(&["start-node", &node.to_string()])
    }

    fn script(&self, args: &[&str]) -> Result<(), String> {
        let script = repo_root().join("scripts/kafka.sh");
        // A node SIGKILLed under load recovers its logs before it answers: on a loaded 2-core
        // machine one took 173 s (a clean-clone CI simulation, every fault test's topics on
        // it), past kafka.sh's default of 120 s. Waiting longer is waiting for the condition;
        // a node that never answers still fails the run.
        let start_timeout =
            std::env::var("DEKAF_KAFKA_START_TIMEOUT").unwrap_or_else(|_| "300".to_owned());
        let status = Command::new("bash")
            .arg(&script)
            .args(args)
            .args(["--brokers", &self.brokers.to_string()])
            .env("DEKAF_KAFKA_PORT", self.base_port.to_string())
            .env("DEKAF_KAFKA_START_TIMEOUT", start_timeout)
            .status()
            .map_err(|e| format!("running {}: {e}", script.display()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("kafka.sh {args:?} failed: {status}"))
        }
    }

    /// How many partitions `topic` has, from the cluster's metadata.
    pub fn partition_count(&self, topic: &str) -> Result<i32, String> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .create()
            .map_err(|e| e.to_string())?;
        let metadata = consumer
            .fetch_metadata(Some(topic), Duration::from_secs(10))
            .map_err(|e| format!("metadata of {topic}: {e}"))?;
        metadata
            .topics()
            .first()
            .map(|t| t.partitions().len() as i32)
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{topic} has no partitions"))
    }

    /// The node leading `topic`'s partition `partition`, from the cluster's metadata.
    pub fn leader_of(&self, topic: &str, partition: i32) -> Result<u16, String> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .create()
            .map_err(|e| e.to_string())?;
        // A node just restarted may not answer the first lookup.
        let mut attempts = 0;
        let metadata = loop {
            attempts += 1;
            match consumer.fetch_metadata(Some(topic), Duration::from_secs(10)) {
                Ok(m) => break m,
                Err(e) if attempts >= 3 => return Err(format!("metadata of {topic}: {e}")),
                Err(_) => std::thread::sleep(Duration::from_millis(500)),
            }
        };
        metadata
            .topics()
            .first()
            .and_then(|t| t.partitions().iter().find(|p| p.id() == partition))
            .ok_or_else(|| format!("{topic} has no partition {partition}"))
            .and_then(|p| {
                u16::try_from(p.leader())
                    .map_err(|_| format!("{topic}[{partition}] has no leader now"))
            })
    }

    /// The node coordinating the group `group_id` (FindCoordinator through the runtime's
    /// coordinator lookup: only where the fault goes, not what is verified).
    pub async fn coordinator_of(&self, group_id: &str) -> Result<u16, String> {
        let config =
            dekaf_streams::group::CoordinatorConfig::new(&self.bootstrap(), "fault-harness");
        let conn = dekaf_streams::group::connect_to_coordinator(&config, group_id)
            .await
            .map_err(|e| e.to_string())?;
        let port: u16 = conn
            .addr()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| format!("coordinator address {}", conn.addr()))?;
        (1..=self.brokers)
            .find(|&i| self.port(i) == port)
            .ok_or_else(|| format!("coordinator {} is not a node of this cluster", conn.addr()))
    }

    /// Waits until every voter of the metadata quorum (every node: they are combined
    /// broker-controllers) has caught up with the quorum's high watermark, at most `timeout`:
    /// a node just started that has not, is not a voter the quorum can count on yet, so killing
    /// another node then would leave the cluster without a metadata quorum.
    pub async fn await_quorum(&self, timeout: Duration) -> Result<(), String> {
        use kafka_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
        use kafka_protocol::messages::{DescribeQuorumRequest, DescribeQuorumResponse, TopicName};
        use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
        const DESCRIBE_QUORUM: i16 = 55;
        let request = DescribeQuorumRequest::default().with_topics(vec![
            TopicData::default()
                .with_topic_name(TopicName(StrBytes::from_static_str("__cluster_metadata")))
                .with_partitions(vec![PartitionData::default().with_partition_index(0)]),
        ]);
        let started = Instant::now();
        let mut last = String::from("no node answered");
        while started.elapsed() < timeout {
            for node in 1..=self.brokers {
                let addr = format!("127.0.0.1:{}", self.port(node));
                let security = dekaf_streams::security::ConnectionSecurity::default();
                let Ok(mut conn) = dekaf_streams::group::BrokerConnection::connect(
                    &addr,
                    "fault-harness",
                    Duration::from_secs(5),
                    &security,
                )
                .await
                else {
                    continue;
                };
                let Some(version) = conn.pick_version(DESCRIBE_QUORUM, (0, 2)) else {
                    last = format!("{addr} does not serve DescribeQuorum");
                    continue;
                };
                // The runtime decodes only the responses it uses itself: this harness encodes
                // and decodes DescribeQuorum (flexible in every version) with kafka-protocol.
                let mut body: Vec<u8> = Vec::new();
                if request.encode(&mut body, version).is_err() {
                    continue;
                }
                let Ok(mut answer) = conn
                    .send_flexible(DESCRIBE_QUORUM, version, &body, "DescribeQuorum")
                    .await
                else {
                    continue;
                };
                let Ok(response) = DescribeQuorumResponse::decode(&mut answer, version) else {
                    continue;
                };
                let Some(partition) = response.topics.first().and_then(|t| t.partitions.first())
                else {
                    continue;
                };
                let voters = &partition.current_voters;
                let caught_up = voters.len() == self.brokers as usize
                    && voters
                        .iter()
                        .all(|v| v.log_end_offset >= partition.high_watermark);
                if caught_up && partition.leader_id.0 >= 0 {
                    return Ok(());
                }
                last = format!(
                    "leader {}, high watermark {}, voters {:?}",
                    partition.leader_id.0,
                    partition.high_watermark,
                    voters
                        .iter()
                        .map(|v| (v.replica_id.0, v.log_end_offset))
                        .collect::<Vec<_>>()
                );
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        Err(format!(
            "the metadata quorum did not catch up within {timeout:?}: {last}"
        ))
    }

    /// Waits until every partition of `topics` has all `brokers` replicas in sync again (after a
    /// node came back), at most `timeout`.
    pub fn await_in_sync(&self, topics: &[&str], timeout: Duration) -> Result<(), String> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .create()
            .map_err(|e| e.to_string())?;
        let started = Instant::now();
        loop {
            let synced = topics.iter().all(|topic| {
                consumer
                    .fetch_metadata(Some(topic), Duration::from_secs(5))
                    .is_ok_and(|m| {
                        m.topics().first().is_some_and(|t| {
                            t.partitions()
                                .iter()
                                .all(|p| p.isr().len() == self.brokers as usize && p.leader() >= 0)
                        })
                    })
            });
            if synced {
                return Ok(());
            }
            if started.elapsed() > timeout {
                return Err(format!("{topics:?} not fully in sync after {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

/// The workspace root (scripts/ lives there), two levels above this crate (`examples/harness`).
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
