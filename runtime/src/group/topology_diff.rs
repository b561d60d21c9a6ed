//! What differs between the topology a member declares and the one its streams group stored:
//! the coordinator refuses a changed topology with a bare "Topology updates are not supported
//! yet", so on that refusal the member describes the group and names the differences
//! (internal topic names and configurations, subtopology by subtopology).

use crate::protocol::TopicInfo;
use crate::protocol::describe::{DescribedSubtopology, DescribedTopology};
use crate::protocol::heartbeat::{Subtopology, Topology};

/// At most this many differences are named (the first ones, in subtopology order).
const MAX_DIFFERENCES: usize = 8;

/// The differences between `ours` and the group's stored topology `theirs`, one sentence each
/// (empty when the names and configurations agree, or when the group stores no topology).
pub(super) fn topology_differences(ours: &Topology, theirs: &DescribedTopology) -> Vec<String> {
    let Some(stored) = &theirs.subtopologies else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if stored.len() != ours.subtopologies.len() {
        out.push(format!(
            "the group has {} subtopologies, this program declares {}",
            stored.len(),
            ours.subtopologies.len()
        ));
    }
    for mine in &ours.subtopologies {
        let id = &mine.subtopology_id;
        match stored.iter().find(|s| &s.subtopology_id == id) {
            None => out.push(format!(
                "subtopology {id} (reading {}) is not in the group's topology",
                mine.source_topics
                    .iter()
                    .chain(mine.repartition_source_topics.iter().map(|t| &t.name))
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some(s) => subtopology_differences(id, mine, s, &mut out),
        }
    }
    for s in stored {
        if !ours
            .subtopologies
            .iter()
            .any(|m| m.subtopology_id == s.subtopology_id)
        {
            out.push(format!(
                "the group's subtopology {} is not declared by this program",
                s.subtopology_id
            ));
        }
    }
    out.truncate(MAX_DIFFERENCES);
    out
}

fn subtopology_differences(
    id: &str,
    mine: &Subtopology,
    theirs: &DescribedSubtopology,
    out: &mut Vec<String>,
) {
    name_differences(
        id,
        "source topics",
        mine.source_topics.iter(),
        theirs.source_topics.iter(),
        out,
    );
    name_differences(
        id,
        "repartition topics read",
        mine.repartition_source_topics.iter().map(|t| &t.name),
        theirs.repartition_source_topics.iter().map(|t| &t.name),
        out,
    );
    name_differences(
        id,
        "repartition topics written",
        mine.repartition_sink_topics.iter(),
        theirs.repartition_sink_topics.iter(),
        out,
    );
    name_differences(
        id,
        "changelog topics",
        mine.state_changelog_topics.iter().map(|t| &t.name),
        theirs.state_changelog_topics.iter().map(|t| &t.name),
        out,
    );
    config_differences(
        id,
        &mine.repartition_source_topics,
        &theirs.repartition_source_topics,
        out,
    );
    config_differences(
        id,
        &mine.state_changelog_topics,
        &theirs.state_changelog_topics,
        out,
    );
}

/// Names only one side has.
fn name_differences<'a>(
    id: &str,
    what: &str,
    mine: impl Iterator<Item = &'a String> + Clone,
    theirs: impl Iterator<Item = &'a String> + Clone,
    out: &mut Vec<String>,
) {
    let only_mine: Vec<&str> = mine
        .clone()
        .filter(|n| !theirs.clone().any(|t| t == *n))
        .map(String::as_str)
        .collect();
    let only_theirs: Vec<&str> = theirs
        .filter(|t| !mine.clone().any(|n| n == *t))
        .map(String::as_str)
        .collect();
    if only_mine.is_empty() && only_theirs.is_empty() {
        return;
    }
    out.push(format!(
        "subtopology {id}, {what}: the group has [{}], this program declares [{}]",
        only_theirs.join(", "),
        only_mine.join(", ")
    ));
}

/// Topics of the same name whose configurations or replication factors differ (an unset key
/// counts as a difference).
fn config_differences(id: &str, mine: &[TopicInfo], theirs: &[TopicInfo], out: &mut Vec<String>) {
    for m in mine {
        let Some(t) = theirs.iter().find(|t| t.name == m.name) else {
            continue;
        };
        let mut m_conf: Vec<_> = m.topic_configs.iter().collect();
        let mut t_conf: Vec<_> = t.topic_configs.iter().collect();
        m_conf.sort();
        t_conf.sort();
        if m_conf != t_conf {
            let show = |c: &[&crate::protocol::KeyValue]| {
                c.iter()
                    .map(|kv| format!("{}={}", kv.key, kv.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(format!(
                "subtopology {id}, topic `{}`: the group's configs are [{}], this program's [{}] \
                 (a Kafka Streams application's `topic.*` configs are the builder's \
                 internal_topic_config(..), a store's withLoggingEnabled(..) its \
                 with_logging_enabled([..]))",
                m.name,
                show(&t_conf),
                show(&m_conf)
            ));
        }
        if m.replication_factor != t.replication_factor {
            out.push(format!(
                "subtopology {id}, topic `{}`: the group's replication factor is {}, this \
                 program's {} (set the builder's replication_factor({}), as the Kafka Streams \
                 application's replication.factor)",
                m.name, t.replication_factor, m.replication_factor, t.replication_factor
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::KeyValue;

    fn topic(name: &str, configs: &[(&str, &str)]) -> TopicInfo {
        TopicInfo {
            name: name.to_owned(),
            partitions: 0,
            replication_factor: -1,
            topic_configs: configs
                .iter()
                .map(|(k, v)| KeyValue {
                    key: (*k).to_owned(),
                    value: (*v).to_owned(),
                })
                .collect(),
        }
    }

    fn ours(changelog: &str, policy: &str) -> Topology {
        Topology {
            epoch: 0,
            subtopologies: vec![Subtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["in".into()],
                state_changelog_topics: vec![topic(changelog, &[("cleanup.policy", policy)])],
                ..Subtopology::default()
            }],
        }
    }

    fn stored(changelog: &str, policy: &str) -> DescribedTopology {
        DescribedTopology {
            epoch: 0,
            subtopologies: Some(vec![DescribedSubtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["in".into()],
                state_changelog_topics: vec![topic(changelog, &[("cleanup.policy", policy)])],
                ..DescribedSubtopology::default()
            }]),
        }
    }

    #[test]
    fn equal_topologies_have_no_differences() {
        assert!(
            topology_differences(
                &ours("app-counts-changelog", "compact"),
                &stored("app-counts-changelog", "compact")
            )
            .is_empty()
        );
    }

    #[test]
    fn a_renamed_store_names_both_changelogs() {
        let d = topology_differences(
            &ours("app-counts-changelog", "compact"),
            &stored(
                "app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog",
                "compact",
            ),
        );
        assert_eq!(
            d,
            ["subtopology 0, changelog topics: the group has \
              [app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog], this program declares \
              [app-counts-changelog]"]
        );
    }

    #[test]
    fn differing_configs_are_named() {
        let d = topology_differences(
            &ours("app-c-changelog", "compact"),
            &stored("app-c-changelog", "compact,delete"),
        );
        assert_eq!(d.len(), 1);
        assert!(d[0].contains("cleanup.policy=compact,delete"), "{d:?}");
    }

    #[test]
    fn a_differing_replication_factor_is_named_with_the_fix() {
        let mut group = stored("app-c-changelog", "compact");
        if let Some(s) = group.subtopologies.as_mut() {
            s[0].state_changelog_topics[0].replication_factor = 3;
        }
        let d = topology_differences(&ours("app-c-changelog", "compact"), &group);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].contains("replication factor is 3, this program's -1")
                && d[0].contains("replication_factor(3)"),
            "{d:?}"
        );
    }

    #[test]
    fn missing_subtopologies_are_named() {
        let mut two = stored("app-c-changelog", "compact");
        if let Some(s) = two.subtopologies.as_mut() {
            let mut second = s[0].clone();
            second.subtopology_id = "1".into();
            s.push(second);
        }
        let d = topology_differences(&ours("app-c-changelog", "compact"), &two);
        assert!(d[0].contains("the group has 2 subtopologies"), "{d:?}");
        assert!(d[1].contains("subtopology 1 is not declared"), "{d:?}");
    }
}
