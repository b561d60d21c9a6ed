//! Which topics a reset deletes: the decisions, without Kafka calls.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::kafka::admin::internal_topic_name;
use crate::protocol::describe::DescribedTopology;

/// How a reset found the application's internal topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicSource {
    /// The topology the group's coordinator stored, as StreamsGroupDescribe returns it: its
    /// repartition and changelog topics (foreign-key joins' subscription topics are repartition
    /// topics).
    Described,
    /// Kafka Streams' naming of internal topics, because the group has no topology to describe.
    NamingScheme {
        /// Why there was no topology: the group does not exist, or has none yet.
        why: String,
    },
}

impl fmt::Display for TopicSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopicSource::Described => f.write_str("the group's described topology"),
            TopicSource::NamingScheme { why } => write!(
                f,
                "Kafka Streams' naming of internal topics (<application id>-<name>-repartition, -changelog, -subscription-registration-topic, -subscription-response-topic, -KTABLE-FK-JOIN-SUBSCRIPTION-..-topic), because {why}"
            ),
        }
    }
}

/// A topic a reset leaves alone although it looked like one of the application's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptTopic {
    /// The topic.
    pub topic: String,
    /// Why it is kept.
    pub reason: KeepReason,
}

/// Why a reset keeps a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeepReason {
    /// The described topology lists it as internal, but it is not named like an internal topic
    /// of the application (Kafka's `kafka-streams-groups.sh` keeps such topics too).
    NotNamedAfterApplication,
    /// The described topology also reads it as a source topic: a user topic.
    SourceTopic,
    /// It is named like an internal topic of another application whose streams group is on the
    /// cluster (`orders-v2-counts-changelog` when resetting `orders`, with a group `orders-v2`).
    OtherApplication {
        /// The other application's id (its group).
        group: String,
        /// Whether that group's described topology lists the topic.
        listed: bool,
    },
}

impl fmt::Display for KeepReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeepReason::NotNamedAfterApplication => f.write_str(
                "the topology lists it, but it is not named <application id>-<name> with an internal topic's suffix; delete it by hand if it is the application's",
            ),
            KeepReason::SourceTopic => {
                f.write_str("the topology also reads it as a source topic (a user topic)")
            }
            KeepReason::OtherApplication {
                group,
                listed: true,
            } => write!(
                f,
                "it is an internal topic of the streams group `{group}` (its described topology lists it)"
            ),
            KeepReason::OtherApplication {
                group,
                listed: false,
            } => write!(
                f,
                "its name is also an internal topic's of the application `{group}`, whose streams group is on the cluster; delete it by hand if it is this application's"
            ),
        }
    }
}

/// What a reset deletes, found before anything is deleted: what `dekaf-streams-reset
/// --dry-run` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResetPlan {
    /// The application (and group) id.
    pub application_id: String,
    /// The group's members when it exists (`Some(0)`: empty), `None` when it does not.
    pub group_members: Option<usize>,
    /// How the topics were found.
    pub found_by: TopicSource,
    /// The internal topics to delete, sorted; only topics that exist.
    pub topics: Vec<String>,
    /// Topics kept although they looked like the application's, sorted by topic.
    pub kept: Vec<KeptTopic>,
}

impl fmt::Display for ResetPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let app = &self.application_id;
        match self.group_members {
            None => writeln!(f, "{app}: the streams group does not exist")?,
            Some(0) => writeln!(f, "{app}: would delete the streams group")?,
            Some(n) => writeln!(
                f,
                "{app}: would delete the streams group, but it has {n} member(s): stop every instance first, or the reset fails"
            )?,
        }
        writeln!(f, "{app}: internal topics found by {}", self.found_by)?;
        if self.topics.is_empty() {
            writeln!(f, "{app}: would delete no topic")?;
        }
        for topic in &self.topics {
            writeln!(f, "{app}: would delete topic {topic}")?;
        }
        for kept in &self.kept {
            writeln!(f, "{app}: would keep topic {}: {}", kept.topic, kept.reason)?;
        }
        Ok(())
    }
}

/// The internal topics `topology` lists for `application_id`, as Kafka's
/// `kafka-streams-groups.sh --delete-all-internal-topics` takes them: every repartition and
/// changelog topic that no subtopology reads as a source topic and that is named like an internal
/// topic of the application. Returns those that exist in `existing`, and the kept ones.
pub(crate) fn described_topics(
    application_id: &str,
    topology: &DescribedTopology,
    existing: &BTreeSet<String>,
) -> (Vec<String>, Vec<KeptTopic>) {
    let subtopologies = topology.subtopologies.as_deref().unwrap_or_default();
    let sources: BTreeSet<&str> = subtopologies
        .iter()
        .flat_map(|s| s.source_topics.iter().map(String::as_str))
        .collect();
    let listed: BTreeSet<&str> = subtopologies
        .iter()
        .flat_map(|s| {
            s.repartition_sink_topics
                .iter()
                .map(String::as_str)
                .chain(s.repartition_source_topics.iter().map(|t| t.name.as_str()))
                .chain(s.state_changelog_topics.iter().map(|t| t.name.as_str()))
        })
        .collect();
    let (mut delete, mut kept) = (Vec::new(), Vec::new());
    for topic in listed.into_iter().filter(|t| existing.contains(*t)) {
        let reason = if sources.contains(topic) {
            KeepReason::SourceTopic
        } else if internal_topic_name(application_id, topic).is_none() {
            KeepReason::NotNamedAfterApplication
        } else {
            delete.push(topic.to_owned());
            continue;
        };
        kept.push(KeptTopic {
            topic: topic.to_owned(),
            reason,
        });
    }
    (delete, kept)
}

/// The topics of `existing` named like internal topics of `application_id`, each with the other
/// application ids it is also named after (`orders-v2-counts-changelog`: `orders-v2`), which the
/// reset looks for as streams groups before deleting it.
pub(crate) fn named_topics<'t>(
    application_id: &str,
    existing: &'t BTreeSet<String>,
) -> BTreeMap<&'t str, Vec<String>> {
    existing
        .iter()
        .filter_map(|topic| {
            let name = internal_topic_name(application_id, topic)?;
            let others = name
                .match_indices('-')
                .map(|(i, _)| format!("{application_id}-{}", &name[..i]))
                .filter(|other| internal_topic_name(other, topic).is_some())
                .collect();
            Some((topic.as_str(), others))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TopicInfo;
    use crate::protocol::describe::DescribedSubtopology;

    fn set(topics: &[&str]) -> BTreeSet<String> {
        topics.iter().map(|t| (*t).to_owned()).collect()
    }

    fn info(name: &str) -> TopicInfo {
        TopicInfo {
            name: name.to_owned(),
            ..TopicInfo::default()
        }
    }

    #[test]
    fn described_topics_are_the_internal_ones_that_exist() {
        let topology = DescribedTopology {
            epoch: 0,
            subtopologies: Some(vec![
                DescribedSubtopology {
                    subtopology_id: "0".into(),
                    source_topics: vec!["orders-input".into(), "orders-reused-changelog".into()],
                    repartition_sink_topics: vec!["orders-by-customer-repartition".into()],
                    state_changelog_topics: vec![info("orders-reused-changelog")],
                    repartition_source_topics: vec![],
                },
                DescribedSubtopology {
                    subtopology_id: "1".into(),
                    source_topics: vec![],
                    repartition_sink_topics: vec![],
                    state_changelog_topics: vec![
                        info("orders-counts-changelog"),
                        info("orders-gone-changelog"),
                        info("elsewhere-changelog"),
                    ],
                    repartition_source_topics: vec![
                        info("orders-by-customer-repartition"),
                        info("orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"),
                    ],
                },
            ]),
        };
        let existing = set(&[
            "orders-input",
            "orders-reused-changelog",
            "orders-by-customer-repartition",
            "orders-counts-changelog",
            "orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic",
            "elsewhere-changelog",
            "orders-v2-counts-changelog",
        ]);
        let (delete, kept) = described_topics("orders", &topology, &existing);
        assert_eq!(
            delete,
            [
                "orders-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic",
                "orders-by-customer-repartition",
                "orders-counts-changelog",
            ]
        );
        assert_eq!(
            kept,
            [
                KeptTopic {
                    topic: "elsewhere-changelog".into(),
                    reason: KeepReason::NotNamedAfterApplication
                },
                KeptTopic {
                    topic: "orders-reused-changelog".into(),
                    reason: KeepReason::SourceTopic
                },
            ]
        );
    }

    #[test]
    fn named_topics_know_the_other_applications_they_could_belong_to() {
        let existing = set(&[
            "orders-counts-changelog",
            "orders-v2-counts-changelog",
            "orders-v2-by-x-repartition",
            "orders-v2",
            "orders-input",
            "ordersx-counts-changelog",
            "orders-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic",
        ]);
        let named = named_topics("orders", &existing);
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            named.into_iter().collect::<Vec<_>>(),
            [
                (
                    "orders-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic",
                    s(&[])
                ),
                ("orders-counts-changelog", s(&[])),
                (
                    "orders-v2-by-x-repartition",
                    s(&["orders-v2", "orders-v2-by"])
                ),
                ("orders-v2-counts-changelog", s(&["orders-v2"])),
            ]
        );
    }
}
