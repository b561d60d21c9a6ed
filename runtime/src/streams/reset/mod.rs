//! Resetting an application: deleting its streams group and its internal topics, so that a
//! changed topology can start under the same application id.
//!
//! Kafka 4.4 keeps a streams group's topology as long as the group exists and refuses a join with
//! another one. Resetting deletes the group (which forgets the topology and the committed
//! offsets: input is read again from the beginning) and the application's internal topics (so
//! state starts empty). Every instance must be stopped first.
//!
//! The internal topics are the ones the group's topology lists, as the coordinator describes it
//! (StreamsGroupDescribe): its repartition topics (foreign-key joins' subscription and response
//! topics among them) and changelog topics, taken as Kafka's `kafka-streams-groups.sh
//! --delete-all-internal-topics` takes them. Only when there is no group (or no topology) to
//! describe, they are found by Kafka Streams' naming ([`internal_topic_name`]): then a topic
//! whose name also fits another application id with a streams group on the cluster
//! (`orders-v2-counts-changelog` when resetting `orders`, with a group `orders-v2`) is kept and
//! reported. [`plan_reset`] shows what a reset would delete without deleting anything.

mod plan;

use std::collections::BTreeSet;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;

pub use self::plan::{KeepReason, KeptTopic, ResetPlan, TopicSource};
use crate::group::{CoordinatorConfig, GroupError, describe_streams_group_if_exists};
pub use crate::kafka::admin::internal_topic_name;
use crate::kafka::admin::{self, DeleteGroupError, GroupDeletion};
use crate::kafka::oauth::StreamsConsumerContext;
use crate::kafka::settings::{ClientSettings, SettingsError};

/// What a reset deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResetReport {
    /// Whether the group existed and was deleted.
    pub group_deleted: bool,
    /// The internal topics deleted.
    pub topics_deleted: Vec<String>,
    /// Topics kept although they looked like the application's, and why.
    pub topics_kept: Vec<KeptTopic>,
    /// How the internal topics were found.
    pub found_by: TopicSource,
}

/// Why a reset failed.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    /// The group could not be deleted.
    #[error(transparent)]
    Group(#[from] DeleteGroupError),
    /// The settings do not make a connection (TLS files, SASL).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A streams group could not be described.
    #[error(
        "resetting `{application_id}`: describing the streams group `{group}` failed: {source}; check that the brokers are reachable and run Kafka 4.4 or later"
    )]
    Describe {
        /// The application.
        application_id: String,
        /// The group described (the application's, or another application's whose topic names
        /// look like the application's).
        group: String,
        /// What went wrong.
        #[source]
        source: GroupError,
    },
    /// A Kafka call failed.
    #[error("resetting `{application_id}` failed: {source}; check that the brokers are reachable")]
    Kafka {
        /// The application.
        application_id: String,
        /// What librdkafka said.
        #[source]
        source: KafkaError,
    },
}

/// Deletes the streams group `application_id` and the application's internal topics (which
/// ones: [`plan_reset`]). Every instance must be stopped.
pub async fn reset_application(
    settings: &ClientSettings,
    application_id: &str,
) -> Result<ResetReport, ResetError> {
    let plan = plan_reset(settings, application_id).await?;
    execute_reset(settings, &plan).await
}

/// Finds what [`reset_application`] would delete, deleting nothing: the dry run.
pub async fn plan_reset(
    settings: &ClientSettings,
    application_id: &str,
) -> Result<ResetPlan, ResetError> {
    let mut coordinator =
        CoordinatorConfig::new(settings.bootstrap_servers(), "dekaf-streams-reset");
    coordinator.security = settings.connection_security()?;
    let describe = |group: String| {
        let coordinator = coordinator.clone();
        async move {
            describe_streams_group_if_exists(&coordinator, &group)
                .await
                .map_err(|source| ResetError::Describe {
                    application_id: application_id.to_owned(),
                    group,
                    source,
                })
        }
    };
    let group = describe(application_id.to_owned()).await?;
    let existing = cluster_topics(settings, application_id).await?;
    let group_members = group.as_ref().map(|g| g.members.len());
    let topology = group
        .as_ref()
        .and_then(|g| g.topology.as_ref())
        .filter(|t| t.subtopologies.is_some());
    if let Some(topology) = topology {
        let (topics, kept) = plan::described_topics(application_id, topology, &existing);
        return Ok(ResetPlan {
            application_id: application_id.to_owned(),
            group_members,
            found_by: TopicSource::Described,
            topics,
            kept,
        });
    }
    let why = if group.is_some() {
        format!("the streams group `{application_id}` has no topology yet")
    } else {
        format!("there is no streams group `{application_id}` to describe")
    };
    let named = plan::named_topics(application_id, &existing);
    // The other application ids the names fit, described once each.
    let others: BTreeSet<&String> = named.values().flatten().collect();
    let mut other_groups = Vec::new();
    for other in others {
        if let Some(group) = describe(other.clone()).await? {
            other_groups.push((other.clone(), group));
        }
    }
    let (mut topics, mut kept) = (Vec::new(), Vec::new());
    for (topic, candidates) in named {
        // The longest id first: the most specific owner.
        let owner = candidates
            .iter()
            .rev()
            .find_map(|c| other_groups.iter().find(|(id, _)| id == c));
        match owner {
            None => topics.push(topic.to_owned()),
            Some((other, group)) => kept.push(KeptTopic {
                topic: topic.to_owned(),
                reason: KeepReason::OtherApplication {
                    group: other.clone(),
                    listed: group.topology.as_ref().is_some_and(|t| {
                        plan::described_topics(other, t, &existing)
                            .0
                            .iter()
                            .any(|t| t == topic)
                    }),
                },
            }),
        }
    }
    Ok(ResetPlan {
        application_id: application_id.to_owned(),
        group_members,
        found_by: TopicSource::NamingScheme { why },
        topics,
        kept,
    })
}

/// Deletes the group and the topics of `plan` (made by [`plan_reset`]).
pub async fn execute_reset(
    settings: &ClientSettings,
    plan: &ResetPlan,
) -> Result<ResetReport, ResetError> {
    let application_id = plan.application_id.as_str();
    let timeout = Duration::from_secs(30);
    let kafka = |source| ResetError::Kafka {
        application_id: application_id.to_owned(),
        source,
    };
    let admin = admin::admin(&settings.admin(), settings.oauth_refresh()).map_err(kafka)?;
    let mut coordinator =
        CoordinatorConfig::new(settings.bootstrap_servers(), "dekaf-streams-reset");
    coordinator.security = settings.connection_security()?;
    // The group first: it fails while instances run, before any state is gone.
    let group_deleted =
        admin::delete_group(&coordinator, application_id, timeout).await? == GroupDeletion::Deleted;
    let topics: Vec<&str> = plan.topics.iter().map(String::as_str).collect();
    let topics_deleted = admin::delete_topics(&admin, &topics, timeout)
        .await
        .map_err(kafka)?;
    tracing::info!(
        application_id,
        group_deleted,
        topics = ?topics_deleted,
        kept = ?plan.kept,
        found_by = %plan.found_by,
        "application reset"
    );
    Ok(ResetReport {
        group_deleted,
        topics_deleted,
        topics_kept: plan.kept.clone(),
        found_by: plan.found_by.clone(),
    })
}

/// Every topic of the cluster.
async fn cluster_topics(
    settings: &ClientSettings,
    application_id: &str,
) -> Result<BTreeSet<String>, ResetError> {
    let config = settings.base();
    let oauth = settings.oauth_refresh();
    tokio::task::spawn_blocking(move || -> Result<BTreeSet<String>, KafkaError> {
        let consumer: BaseConsumer<StreamsConsumerContext> =
            config.create_with_context(StreamsConsumerContext::new(oauth.clone()))?;
        crate::kafka::oauth::fetch_first_token(&consumer, &oauth);
        let metadata = consumer.fetch_metadata(None, Duration::from_secs(30))?;
        Ok(metadata
            .topics()
            .iter()
            .map(|t| t.name().to_owned())
            .collect())
    })
    .await
    .unwrap_or(Err(KafkaError::Canceled))
    .map_err(|source| ResetError::Kafka {
        application_id: application_id.to_owned(),
        source,
    })
}
