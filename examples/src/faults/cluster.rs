//! Broker control of the 3-node test cluster through `scripts/kafka.sh … --brokers 3`, and where
//! partition leaders and the group coordinator are (plain rdkafka metadata, FindCoordinator).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

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
        let status = Command::new("bash")
            .arg(&script)
            .args(args)
            .args(["--brokers", &self.brokers.to_string()])
            .env("DEKAF_KAFKA_PORT", self.base_port.to_string())
            .status()
            .map_err(|e| format!("running {}: {e}", script.display()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("kafka.sh {args:?} failed: {status}"))
        }
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
            .map(|p| p.leader() as u16)
            .ok_or_else(|| format!("{topic} has no partition {partition}"))
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

/// The workspace root (scripts/ lives there).
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}
