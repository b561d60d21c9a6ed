//! Turns a compiled topology's [`TopologyInfo`] into the heartbeat's `Topology`, with every list
//! sorted: the coordinator compares a joining member's topology with the stored one in order.

use crate::protocol::heartbeat::{CopartitionGroup, Subtopology, Topology};
use crate::protocol::{KeyValue, TopicInfo};
use crate::topology::{InternalTopicInfo, InternalTopicSettings, TopologyInfo};

use super::error::GroupError;
use super::java_order::{hash_set_order, string_hash, string_set_hash};

fn topic_info(t: &InternalTopicInfo, settings: &InternalTopicSettings) -> TopicInfo {
    TopicInfo {
        name: t.name.to_owned(),
        partitions: t.partitions,
        replication_factor: settings.replication_factor,
        topic_configs: t
            .declared_configs(settings)
            .into_iter()
            .map(|(key, value)| KeyValue { key, value })
            .collect(),
    }
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v.dedup();
    v
}

fn index_of(list: &[String], name: &str, what: &str, sub: &str) -> Result<i16, GroupError> {
    list.iter()
        .position(|n| n == name)
        .and_then(|i| i16::try_from(i).ok())
        .ok_or_else(|| {
            GroupError::InvalidTopologyInfo(format!(
                "copartition group of subtopology {sub} names {what} `{name}`, which the \
                 subtopology does not read"
            ))
        })
}

/// Orders subtopology ids numerically when they are numbers (`"2"` before `"10"`).
fn id_key(id: &str) -> (u64, &str) {
    (id.parse().unwrap_or(u64::MAX), id)
}

/// The heartbeat topology of `info` (topology epoch 0), its internal topics declared under
/// `settings`.
pub(super) fn heartbeat_topology(
    info: &TopologyInfo,
    settings: &InternalTopicSettings,
) -> Result<Topology, GroupError> {
    let mut subs: Vec<_> = info.subtopologies.iter().collect();
    subs.sort_by(|a, b| id_key(a.id).cmp(&id_key(b.id)));
    let mut subtopologies = Vec::with_capacity(subs.len());
    for s in subs {
        let source_topics = sorted(s.source_topics);
        let mut changelogs: Vec<TopicInfo> = s
            .state_changelog_topics
            .iter()
            .map(|t| topic_info(t, settings))
            .collect();
        changelogs.sort_by(|a, b| a.name.cmp(&b.name));
        let mut repartition_sources: Vec<TopicInfo> = s
            .repartition_source_topics
            .iter()
            .map(|t| topic_info(t, settings))
            .collect();
        repartition_sources.sort_by(|a, b| a.name.cmp(&b.name));
        let repartition_source_names: Vec<String> =
            repartition_sources.iter().map(|t| t.name.clone()).collect();
        // Kafka Streams declares the groups, and each group's topics, in `HashSet` order; the
        // coordinator compares them in order (see `java_order`).
        let mut named_groups = Vec::with_capacity(s.copartition_groups.len());
        for g in s.copartition_groups {
            let mut names: Vec<&str> = g
                .source_topics
                .iter()
                .chain(g.repartition_source_topics)
                .copied()
                .collect();
            names.sort_unstable();
            names.dedup();
            if !named_groups.contains(&names) {
                named_groups.push(names);
            }
        }
        let named_groups =
            hash_set_order(named_groups, |names| string_set_hash(names.iter().copied()));
        let mut groups = Vec::with_capacity(named_groups.len());
        for names in named_groups {
            let mut group = CopartitionGroup {
                source_topics: Vec::new(),
                source_topic_regex: Vec::new(),
                repartition_source_topics: Vec::new(),
            };
            for name in hash_set_order(names, |name| string_hash(name)) {
                if repartition_source_names.iter().any(|n| n == name) {
                    let i = index_of(&repartition_source_names, name, "repartition topic", s.id)?;
                    group.repartition_source_topics.push(i);
                } else {
                    group
                        .source_topics
                        .push(index_of(&source_topics, name, "source topic", s.id)?);
                }
            }
            groups.push(group);
        }
        subtopologies.push(Subtopology {
            subtopology_id: s.id.to_owned(),
            source_topics,
            source_topic_regex: Vec::new(),
            state_changelog_topics: changelogs,
            repartition_sink_topics: sorted(s.repartition_sink_topics),
            repartition_source_topics: repartition_sources,
            copartition_groups: groups,
        });
    }
    Ok(Topology {
        epoch: 0,
        subtopologies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{CopartitionGroup as Cg, DerivedConfig, SubtopologyInfo};

    static SUBS: [SubtopologyInfo; 2] = [
        SubtopologyInfo {
            id: "10",
            source_topics: &["b", "a"],
            repartition_source_topics: &[
                InternalTopicInfo {
                    name: "app-z-repartition",
                    partitions: 0,
                    configs: &[("a", "2"), ("z", "1")],
                    store_configs: &[],
                    derived: DerivedConfig::None,
                },
                InternalTopicInfo {
                    name: "app-y-repartition",
                    partitions: 0,
                    configs: &[],
                    store_configs: &[],
                    derived: DerivedConfig::None,
                },
            ],
            repartition_sink_topics: &[],
            state_changelog_topics: &[],
            sink_topics: &["out"],
            copartition_groups: &[Cg {
                source_topics: &["b"],
                repartition_source_topics: &["app-z-repartition", "app-y-repartition"],
            }],
            stores: &[],
        },
        SubtopologyInfo {
            id: "2",
            source_topics: &["in"],
            repartition_source_topics: &[],
            repartition_sink_topics: &["app-z-repartition", "app-y-repartition"],
            state_changelog_topics: &[],
            sink_topics: &[],
            copartition_groups: &[],
            stores: &[],
        },
    ];
    static INFO: TopologyInfo = TopologyInfo {
        application_id: "app",
        subtopologies: &SUBS,
    };

    #[test]
    fn topics_are_sorted_and_groups_are_indices_in_java_set_order() {
        let t = heartbeat_topology(&INFO, &InternalTopicSettings::default()).expect("valid");
        assert_eq!(t.subtopologies[0].subtopology_id, "2");
        assert_eq!(
            t.subtopologies[0].repartition_sink_topics,
            ["app-y-repartition", "app-z-repartition"]
        );
        let s = &t.subtopologies[1];
        assert_eq!(s.source_topics, ["a", "b"]);
        assert_eq!(s.repartition_source_topics[0].name, "app-y-repartition");
        assert_eq!(s.repartition_source_topics[1].topic_configs[0].key, "a");
        assert_eq!(s.copartition_groups[0].source_topics, [1]);
        // In Java `HashSet` order: "app-z-repartition" (index 1) before "app-y-repartition".
        assert_eq!(s.copartition_groups[0].repartition_source_topics, [1, 0]);
    }

    #[test]
    fn a_group_naming_an_unread_topic_is_an_error() {
        static BAD_SUBS: [SubtopologyInfo; 1] = [SubtopologyInfo {
            id: "0",
            source_topics: &["a"],
            repartition_source_topics: &[],
            repartition_sink_topics: &[],
            state_changelog_topics: &[],
            sink_topics: &[],
            copartition_groups: &[Cg {
                source_topics: &["nope"],
                repartition_source_topics: &[],
            }],
            stores: &[],
        }];
        let info = TopologyInfo {
            application_id: "app",
            subtopologies: &BAD_SUBS,
        };
        assert!(matches!(
            heartbeat_topology(&info, &InternalTopicSettings::default()),
            Err(GroupError::InvalidTopologyInfo(_))
        ));
    }

    /// Kafka Streams' rule (`InternalTopicConfig.properties`): its own configs < the
    /// application's `topic.*` < the store's own; a window changelog's `retention.ms` is the
    /// store's retention plus the additional retention unless the store's own configs set it
    /// (the application's `topic.retention.ms` does not); the replication factor is the
    /// application's.
    #[test]
    fn declared_configs_follow_kafka_streams_precedence() {
        let window = InternalTopicInfo {
            name: "app-w-changelog",
            partitions: 0,
            configs: &[
                ("cleanup.policy", "compact,delete"),
                ("message.timestamp.type", "CreateTime"),
            ],
            store_configs: &[("segment.ms", "600000")],
            derived: DerivedConfig::WindowRetention { retention_ms: 1000 },
        };
        let mut settings = InternalTopicSettings {
            replication_factor: 3,
            window_changelog_additional_retention_ms: 5,
            ..InternalTopicSettings::default()
        };
        for (k, v) in [
            ("cleanup.policy", "delete"),
            ("retention.ms", "1"),
            ("segment.ms", "1"),
            ("min.insync.replicas", "2"),
        ] {
            settings.configs.insert(k.to_owned(), v.to_owned());
        }
        let info = topic_info(&window, &settings);
        assert_eq!(info.replication_factor, 3);
        let got: Vec<(&str, &str)> = info
            .topic_configs
            .iter()
            .map(|kv| (kv.key.as_str(), kv.value.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("cleanup.policy", "delete"),
                ("message.timestamp.type", "CreateTime"),
                ("min.insync.replicas", "2"),
                ("retention.ms", "1005"),
                ("segment.ms", "600000"),
            ]
        );
        let own = InternalTopicInfo {
            store_configs: &[("retention.ms", "42")],
            ..window
        };
        assert_eq!(
            own.declared_configs(&InternalTopicSettings::default())
                .iter()
                .find(|(k, _)| k == "retention.ms")
                .map(|(_, v)| v.as_str()),
            Some("42")
        );
        let versioned = InternalTopicInfo {
            configs: &[("cleanup.policy", "compact")],
            store_configs: &[],
            derived: DerivedConfig::VersionedCompactionLag { history_ms: 1000 },
            ..window
        };
        assert_eq!(
            versioned.declared_configs(&InternalTopicSettings::default()),
            [
                ("cleanup.policy".to_owned(), "compact".to_owned()),
                ("min.compaction.lag.ms".to_owned(), "86401000".to_owned())
            ]
        );
    }
}
