//! Thin wrappers over librdkafka (through `rdkafka`) for what the runtime needs and the safe API
//! lacks: client settings shared by every client of an application, a transactional offset commit
//! made on behalf of a streams-group member, and batch consumption.

pub(crate) mod admin;
pub mod assignment;
pub mod batch;
pub(crate) mod metadata;
pub(crate) mod oauth;
pub mod partitioner;
pub mod producer;
pub mod restore;
pub mod settings;
pub(crate) mod topic_configs;
mod topic_handles;
pub mod transient;
pub(crate) mod txn_fence;
pub mod txn_offsets;
pub mod watermarks;

pub use settings::ClientSettings;
pub use txn_offsets::{MemberIdentity, TxnOffsetsError, send_offsets_to_transaction};
