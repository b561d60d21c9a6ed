//! Why a query could not be answered.

use crate::serdes::SerdeError;

/// Why a query could not be answered. Every variant but [`QueryError::UnknownStore`] and
/// [`QueryError::Serde`] is transient: ask again later, or ask the instance
/// [`metadata_for_key`](super::Queries::metadata_for_key) names.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The topology has no store of this name (or of this kind).
    #[error(
        "the topology has no {kind} store named `{store}`: query it by the handle `topology!` \
         generated (e.g. `WordCount::COUNTS`)"
    )]
    UnknownStore {
        /// The store asked for.
        store: String,
        /// `key-value`, `window` or `session`.
        kind: &'static str,
    },
    /// The application is not running yet, or its processing threads have not yet learned the
    /// partition count of the store's input (before their first assignment).
    #[error(
        "store `{store}` cannot be queried yet: the application is not running or has no \
         assignment yet; retry once `KafkaStreams::run` has started and tasks are assigned"
    )]
    NotRunning {
        /// The store.
        store: String,
    },
    /// The key's task (the store's partition) is not an active task of this instance (nor, for
    /// a view with stale stores enabled, a standby replica of it): it runs elsewhere, or is
    /// moving here or away during a rebalance. (Kafka Streams throws
    /// `InvalidStateStoreException` here, and `queryMetadataForKey` names the right host.)
    #[error("{}", not_local(store, *partition, *stale))]
    NotLocal {
        /// The store.
        store: String,
        /// The store's partition (the key's task).
        partition: i32,
        /// Whether the view read standby replicas too (stale stores enabled).
        stale: bool,
    },
    /// The key's task is assigned to this instance but still restores its state from the
    /// changelog.
    #[error(
        "partition {partition} of store `{store}` is restoring its state on this instance: \
         retry when the restore is done"
    )]
    Restoring {
        /// The store.
        store: String,
        /// The store's partition.
        partition: i32,
    },
    /// No instance of the group owns the key's partition right now (a rebalance is under way,
    /// or the instances set no `application_server`).
    #[error(
        "no instance with an application_server owns partition {partition} of store `{store}` \
         right now (a rebalance may be under way, or the instances set no \
         `application_server`): retry"
    )]
    NotAvailable {
        /// The store.
        store: String,
        /// The store's partition.
        partition: i32,
    },
    /// A key or value did not (de)serialize with the store's serdes.
    #[error("store serde: {0}")]
    Serde(#[from] SerdeError),
}

fn not_local(store: &str, partition: i32, stale: bool) -> String {
    if stale {
        format!(
            "partition {partition} of store `{store}` is neither an active task nor a standby \
             replica on this instance (it runs on other instances, or is moving during a \
             rebalance): ask an instance that `metadata_for_key` names (its active or one of its \
             standbys), or retry"
        )
    } else {
        format!(
            "partition {partition} of store `{store}` is not hosted by this instance (it runs on \
             another instance, or is moving during a rebalance): ask the instance that \
             `metadata_for_key` names, or retry (or enable stale stores to read a standby \
             replica of it here, if this instance keeps one)"
        )
    }
}

impl QueryError {
    /// Whether asking again later (or elsewhere) may succeed: false only for an unknown store
    /// and a serde failure.
    pub fn is_retriable(&self) -> bool {
        !matches!(self, QueryError::UnknownStore { .. } | QueryError::Serde(_))
    }
}
