//! Admin operations of the runtime: purging repartition topics, and deleting an application's
//! group and internal topics.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, TopicPartitionList};

use super::oauth::{OAuthRefresh, set_token};

/// The admin client of an application. With an OAUTHBEARER token provider, it sets a fresh token
/// before each operation once 80% of the last one's lifetime has passed (rdkafka's admin client
/// never handles librdkafka's token refresh).
pub(crate) struct Admin {
    client: AdminClient<DefaultClientContext>,
    oauth: OAuthRefresh,
    /// When to set the next token (ms since the Unix epoch); 0: now.
    refresh_at_ms: AtomicI64,
}

impl std::ops::Deref for Admin {
    type Target = AdminClient<DefaultClientContext>;

    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

impl Admin {
    /// Sets a new token when one is due. The provider runs on tokio's blocking pool (it may
    /// block), never on the worker that awaits this.
    async fn refresh_token(&self) {
        if !self.oauth.is_set() {
            return;
        }
        let now = crate::security::oauth::now_ms();
        if now < self.refresh_at_ms.load(Ordering::Relaxed) {
            return;
        }
        let oauth = self.oauth.clone();
        let token = tokio::task::spawn_blocking(move || oauth.token().map_err(|e| e.to_string()))
            .await
            .unwrap_or_else(|e| Err(format!("the token provider's task failed: {e}")));
        let set = token.and_then(|token| {
            set_token(self.client.inner(), &token)?;
            Ok(now + (token.lifetime_ms - now).max(0) * 8 / 10)
        });
        match set {
            Ok(next) => self.refresh_at_ms.store(next, Ordering::Relaxed),
            Err(why) => tracing::warn!(%why, "no OAUTHBEARER token for the admin client"),
        }
    }
}

/// Makes an admin client; OAUTHBEARER tokens come from `oauth`, asked for before each
/// operation (not here: this may run on a tokio worker, and the provider may block).
pub(crate) fn admin(config: &ClientConfig, oauth: OAuthRefresh) -> Result<Admin, KafkaError> {
    Ok(Admin {
        client: config.create()?,
        oauth,
        refresh_at_ms: AtomicI64::new(0),
    })
}

fn options(timeout: Duration) -> AdminOptions {
    AdminOptions::new()
        .operation_timeout(Some(timeout))
        .request_timeout(Some(timeout))
}

/// Deletes the records of repartition partitions below the given offsets (the committed ones),
/// so repartition topics don't grow forever. Failures are returned per call, not per partition:
/// a partition that could not be purged now is purged at a later commit.
pub(crate) async fn purge(
    admin: &Admin,
    below: &TopicPartitionList,
    timeout: Duration,
) -> Result<(), KafkaError> {
    if below.count() == 0 {
        return Ok(());
    }
    admin.refresh_token().await;
    admin
        .delete_records(below, &options(timeout))
        .await
        .map(|_| ())
}

/// Which of `topics` the cluster does not have (one metadata request, on tokio's blocking pool).
pub(crate) async fn missing_topics(
    admin: &std::sync::Arc<Admin>,
    topics: &'static [&'static str],
    timeout: Duration,
) -> Result<Vec<String>, KafkaError> {
    admin.refresh_token().await;
    let admin = std::sync::Arc::clone(admin);
    let metadata = tokio::task::spawn_blocking(move || {
        admin.inner().fetch_metadata(None, timeout).map(|m| {
            m.topics()
                .iter()
                .filter(|t| t.error().is_none())
                .map(|t| t.name().to_owned())
                .collect::<Vec<String>>()
        })
    })
    .await
    .unwrap_or_else(|joined| std::panic::resume_unwind(joined.into_panic()))?;
    Ok(topics
        .iter()
        .filter(|t| !metadata.iter().any(|m| m == *t))
        .map(|t| (*t).to_owned())
        .collect())
}

/// The suffixes of Kafka Streams' internal topics: `<application id>-<name><suffix>`.
const INTERNAL_SUFFIXES: [&str; 4] = [
    "-repartition",
    "-changelog",
    "-subscription-registration-topic",
    "-subscription-response-topic",
];

/// The `<name>` of `topic` when it is named as an internal topic of `application_id` by Kafka
/// Streams' scheme (the one `kafka-streams-groups.sh` recognizes): `<application id>-<name>`
/// followed by `-repartition`, `-changelog`, `-subscription-registration-topic` or
/// `-subscription-response-topic`, or a foreign-key join's numbered
/// `<application id>-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-<n>-topic`.
///
/// A name is not an application id: `orders-v2-counts-changelog` is named as `orders`'s topic
/// `v2-counts` and as `orders-v2`'s topic `counts`. See [`crate::streams::plan_reset`].
pub fn internal_topic_name<'t>(application_id: &str, topic: &'t str) -> Option<&'t str> {
    let rest = topic.strip_prefix(application_id)?.strip_prefix('-')?;
    if let Some(name) = INTERNAL_SUFFIXES
        .iter()
        .find_map(|suffix| rest.strip_suffix(suffix))
        .filter(|name| !name.is_empty())
    {
        return Some(name);
    }
    let name = rest.strip_suffix("-topic")?;
    let number = name
        .strip_prefix("KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-")
        .or_else(|| name.strip_prefix("KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-"))?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}

/// The outcome of deleting a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupDeletion {
    /// The group was deleted.
    Deleted,
    /// There was no such group.
    NotFound,
}

/// Why a group could not be deleted.
#[derive(Debug, thiserror::Error)]
pub enum DeleteGroupError {
    /// Members are still in the group.
    #[error(
        "the group `{0}` still has members: stop every instance of the application (or wait \
         for their session timeout) and try again"
    )]
    NotEmpty(String),
    /// Anything else.
    #[error("deleting the group `{group}` failed: {source}")]
    Coordinator {
        /// The group.
        group: String,
        /// What the coordinator (or the connection to it) said.
        #[source]
        source: crate::group::GroupError,
    },
}

/// Deletes the group `group_id` (the application id) at its coordinator, over this crate's own
/// connection (see `group::delete_group` for why not librdkafka's); the group must be empty.
pub(crate) async fn delete_group(
    coordinator: &crate::group::CoordinatorConfig,
    group_id: &str,
    timeout: Duration,
) -> Result<GroupDeletion, DeleteGroupError> {
    use crate::group::Deletion;
    match crate::group::delete_group(coordinator, group_id, timeout).await {
        Ok(Deletion::Deleted) => Ok(GroupDeletion::Deleted),
        Ok(Deletion::NotFound) => Ok(GroupDeletion::NotFound),
        Ok(Deletion::NotEmpty) => Err(DeleteGroupError::NotEmpty(group_id.to_owned())),
        Err(source) => Err(DeleteGroupError::Coordinator {
            group: group_id.to_owned(),
            source,
        }),
    }
}

/// Deletes `topics`; topics that no longer exist are not an error. Returns the topics deleted.
pub(crate) async fn delete_topics(
    admin: &Admin,
    topics: &[&str],
    timeout: Duration,
) -> Result<Vec<String>, KafkaError> {
    if topics.is_empty() {
        return Ok(Vec::new());
    }
    admin.refresh_token().await;
    let mut deleted = Vec::new();
    for result in admin.delete_topics(topics, &options(timeout)).await? {
        match result {
            Ok(t) => deleted.push(t),
            Err((_, RDKafkaErrorCode::UnknownTopicOrPartition)) => {}
            Err((_, code)) => return Err(KafkaError::AdminOp(code)),
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::internal_topic_name;

    #[test]
    fn internal_topics_are_recognized_by_kafka_streams_naming() {
        let name = internal_topic_name;
        assert_eq!(name("wc", "wc-counts-changelog"), Some("counts"));
        assert_eq!(name("wc", "wc-counts-repartition"), Some("counts"));
        assert_eq!(name("wc", "wc-a-b-changelog"), Some("a-b"));
        assert_eq!(
            name("wc", "wc-join-subscription-registration-topic"),
            Some("join")
        );
        assert_eq!(
            name("wc", "wc-join-subscription-response-topic"),
            Some("join")
        );
        assert_eq!(
            name(
                "wc",
                "wc-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
            ),
            Some("KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006")
        );
        assert_eq!(
            name(
                "wc",
                "wc-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic"
            ),
            Some("KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014")
        );
        assert_eq!(name("wc", "wc-changelog"), None);
        assert_eq!(name("wc", "wc2-counts-changelog"), None);
        assert_eq!(name("wc", "sentences"), None);
        assert_eq!(name("wc", "wc-counts"), None);
        assert_eq!(name("wc", "wc-other-topic"), None);
        assert_eq!(
            name("wc", "wc-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-x1-topic"),
            None
        );
        // Named for both: the reset decides with the groups on the cluster.
        assert_eq!(name("wc", "wc-v2-counts-changelog"), Some("v2-counts"));
        assert_eq!(name("wc-v2", "wc-v2-counts-changelog"), Some("counts"));
    }
}
