//! Resetting an application: deleting its streams group and its internal topics, so that a
//! changed topology can start under the same application id.
//!
//! Kafka 4.4 keeps a streams group's topology as long as the group exists and refuses a join with
//! another one. Resetting deletes the group (which forgets the topology and the committed
//! offsets: input is read again from the beginning) and every repartition and changelog topic of
//! the application (so state starts empty). Every instance must be stopped first.

use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;

use crate::kafka::admin::{self, DeleteGroupError, GroupDeletion};
use crate::kafka::oauth::StreamsConsumerContext;
use crate::kafka::settings::ClientSettings;

/// What a reset deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResetReport {
    /// Whether the group existed and was deleted.
    pub group_deleted: bool,
    /// The internal topics deleted.
    pub topics_deleted: Vec<String>,
}

/// Why a reset failed.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    /// The group could not be deleted.
    #[error(transparent)]
    Group(#[from] DeleteGroupError),
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

/// Deletes the streams group `application_id` and all its internal topics
/// (`<application id>-*-repartition`, `<application id>-*-changelog`).
pub async fn reset_application(
    settings: &ClientSettings,
    application_id: &str,
) -> Result<ResetReport, ResetError> {
    let timeout = Duration::from_secs(30);
    let kafka = |source| ResetError::Kafka {
        application_id: application_id.to_owned(),
        source,
    };
    let admin = admin::admin(&settings.admin(), settings.oauth_refresh()).map_err(kafka)?;
    let group_deleted =
        admin::delete_group(&admin, application_id, timeout).await? == GroupDeletion::Deleted;
    let config = settings.base();
    let oauth = settings.oauth_refresh();
    let topics = tokio::task::spawn_blocking(move || -> Result<Vec<String>, KafkaError> {
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
    .map_err(|_| kafka(KafkaError::Canceled))?
    .map_err(kafka)?;
    let internal: Vec<&str> = topics
        .iter()
        .map(String::as_str)
        .filter(|t| admin::is_internal_topic(application_id, t))
        .collect();
    let topics_deleted = admin::delete_topics(&admin, &internal, timeout)
        .await
        .map_err(kafka)?;
    tracing::info!(application_id, group_deleted, topics = ?topics_deleted, "application reset");
    Ok(ResetReport {
        group_deleted,
        topics_deleted,
    })
}
