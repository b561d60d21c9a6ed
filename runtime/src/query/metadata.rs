//! Which instance hosts a key: the group's partitions by endpoint (KIP-1071 user endpoints).
//!
//! Every member sends its instance's `application_server` as its user endpoint in the
//! StreamsGroupHeartbeat. When the group's assignment changes, the coordinator bumps the group's
//! *endpoint-information epoch*; a member whose last known epoch is older receives, in its next
//! heartbeat response, the source partitions of the active and standby tasks of every endpoint
//! (`PartitionsByUserEndpoint`), as Kafka's `StreamsGroupHeartbeatRequestManager` keeps them in
//! `StreamsRebalanceData.partitionsByHost`. A key's partition is the producer's (murmur2 of the
//! serialized key, modulo the input's partition count), and its owner is the endpoint whose
//! active partitions contain it.

use std::fmt;

use crate::protocol::heartbeat::EndpointToPartitions;

/// A host and port of an instance's `application_server` (Kafka Streams' `HostInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostInfo {
    /// The host name or address.
    pub host: String,
    /// The port.
    pub port: u16,
}

impl HostInfo {
    /// Parses `host:port` (the last `:` splits, so a bracketed IPv6 address works too).
    pub fn parse(endpoint: &str) -> Option<HostInfo> {
        let (host, port) = endpoint.rsplit_once(':')?;
        if host.is_empty() {
            return None;
        }
        Some(HostInfo {
            host: host.to_owned(),
            port: port.parse().ok()?,
        })
    }
}

impl fmt::Display for HostInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// Where a key of a store lives (Kafka Streams' `KeyQueryMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyQueryMetadata {
    /// The instance whose active task hosts the key.
    pub active: HostInfo,
    /// Instances with a standby (or warm-up) copy of the key's task, as the coordinator reports
    /// them: a view with stale stores enabled (`enable_stale_stores`) answers the key there
    /// from the standby's copy, which may lag behind the active task.
    pub standbys: Vec<HostInfo>,
    /// The key's partition (its task's partition).
    pub partition: i32,
}

/// The group's partitions by endpoint as of an endpoint-information epoch.
#[derive(Debug, Default)]
pub(crate) struct Endpoints {
    pub(crate) epoch: i32,
    hosts: Vec<EndpointToPartitions>,
}

impl Endpoints {
    pub(crate) fn new(epoch: i32, hosts: Vec<EndpointToPartitions>) -> Self {
        Endpoints { epoch, hosts }
    }

    /// The host whose active tasks read `partition` of one of `topics`, and the hosts with a
    /// standby of it.
    pub(crate) fn owners(
        &self,
        topics: &[&str],
        partition: i32,
    ) -> (Option<HostInfo>, Vec<HostInfo>) {
        let has = |tps: &[crate::protocol::heartbeat::TopicPartitions]| {
            tps.iter()
                .any(|tp| topics.contains(&tp.topic.as_str()) && tp.partitions.contains(&partition))
        };
        let host = |e: &EndpointToPartitions| HostInfo {
            host: e.user_endpoint.host.clone(),
            port: e.user_endpoint.port,
        };
        let active = self
            .hosts
            .iter()
            .find(|e| has(&e.active_partitions))
            .map(host);
        let standbys = self
            .hosts
            .iter()
            .filter(|e| has(&e.standby_partitions))
            .map(host)
            .collect();
        (active, standbys)
    }

    /// Every endpoint of the group.
    pub(crate) fn hosts(&self) -> Vec<HostInfo> {
        self.hosts
            .iter()
            .map(|e| HostInfo {
                host: e.user_endpoint.host.clone(),
                port: e.user_endpoint.port,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Endpoint;
    use crate::protocol::heartbeat::TopicPartitions;

    fn endpoint(port: u16, active: &[i32], standby: &[i32]) -> EndpointToPartitions {
        let tp = |ps: &[i32]| {
            vec![TopicPartitions {
                topic: "words".into(),
                partitions: ps.to_vec(),
            }]
        };
        EndpointToPartitions {
            user_endpoint: Endpoint {
                host: "127.0.0.1".into(),
                port,
            },
            active_partitions: tp(active),
            standby_partitions: tp(standby),
        }
    }

    #[test]
    fn the_owner_is_the_endpoint_with_the_active_partition() {
        let e = Endpoints::new(3, vec![endpoint(1, &[0, 2], &[1]), endpoint(2, &[1], &[0])]);
        let (active, standbys) = e.owners(&["words"], 1);
        assert_eq!(active.map(|h| h.port), Some(2));
        assert_eq!(standbys.iter().map(|h| h.port).collect::<Vec<_>>(), [1]);
        assert_eq!(e.owners(&["other"], 1).0, None);
        assert_eq!(e.owners(&["words"], 5).0, None);
    }

    #[test]
    fn host_info_parses_host_and_port() {
        assert_eq!(
            HostInfo::parse("127.0.0.1:8080"),
            Some(HostInfo {
                host: "127.0.0.1".into(),
                port: 8080
            })
        );
        assert_eq!(
            HostInfo::parse("[::1]:80").map(|h| h.host),
            Some("[::1]".into())
        );
        assert_eq!(HostInfo::parse("nohost"), None);
        assert_eq!(HostInfo::parse(":80"), None);
        assert_eq!(HostInfo::parse("h:99999"), None);
    }
}
