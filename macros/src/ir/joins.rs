//! The joins with other tables that are no node of a stream's graph: global tables
//! (`crate::ops::global_table`) and foreign-key joins (`crate::ops::fk_join`), as plain data.

use syn::Expr;

use super::serde_ty::SerdeTy;

/// One global table of the topology.
#[derive(Clone)]
pub(crate) struct GlobalTable {
    pub topic: String,
    pub key: SerdeTy,
    pub value: SerdeTy,
    /// The store's name (`<topic>-STATE-STORE-0000000000` unless named).
    pub store: String,
    /// The source node's name (`KSTREAM-SOURCE-..`).
    pub source: String,
    /// The table processor's name (`KTABLE-SOURCE-..`).
    pub processor: String,
    /// The join nodes that read it.
    pub users: Vec<usize>,
    /// How many nodes were declared before it: where its node group falls among the others.
    pub after_nodes: usize,
    /// Its subtopology id (`describe()`), numbered with the others by `crate::build`'s partition.
    pub protocol_id: usize,
}

/// A stream's join with a global table.
#[derive(Clone)]
pub(crate) struct GlobalJoin {
    /// Index into `Model::globals`.
    pub global: usize,
    pub key_mapper: Expr,
    pub f: Expr,
    pub left: bool,
}

/// What a node of a foreign-key join does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FkRole {
    /// Subscribes on a left change (left task).
    Send,
    /// Reads the subscription topic (right task).
    SubscriptionSource,
    /// Registers a subscription (right task; the source's code does it).
    Receive,
    /// Answers a subscription (right task; the source's code does it).
    JoinForeign,
    /// Answers the subscribers of a changed right row (right task).
    ForeignChange,
    /// Reads the response topic (left task).
    ResponseSource,
    /// Drops stale responses and joins (left task; the source's code does it).
    Resolver,
    /// The result table.
    Output,
}

/// One node of a foreign-key join, with everything about the join.
#[derive(Clone)]
pub(crate) struct FkJoin {
    pub role: FkRole,
    pub left: bool,
    pub extractor: syn::Expr,
    pub joiner: syn::Expr,
    pub left_store: usize,
    pub right_store: usize,
    pub subscriptions: usize,
    pub subscription_topic: String,
    pub response_topic: String,
    /// The result node: its id names the task's buffers of this join.
    pub output: usize,
}

impl FkJoin {
    /// The internal topic a source node of the join reads.
    pub(crate) fn source_topic(&self) -> Option<&str> {
        match self.role {
            FkRole::SubscriptionSource => Some(&self.subscription_topic),
            FkRole::ResponseSource => Some(&self.response_topic),
            _ => None,
        }
    }
}

/// The grace period of a stream-table join (`join(table, f, grace(..))`, Kafka Streams'
/// `Joined.withGracePeriod`, KIP-923).
#[derive(Clone)]
pub(crate) struct JoinGrace {
    /// The grace period in milliseconds.
    pub ms: i64,
    /// The buffer store (`<join node>-Buffer`).
    pub buffer: usize,
    /// The stream's key and value serdes, to buffer its records.
    pub key: SerdeTy,
    pub value: SerdeTy,
}
