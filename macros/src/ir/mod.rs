//! The intermediate representation: the operator graph as plain data (nodes, stores,
//! subtopologies, topics). Built by [`crate::build`], read by [`crate::check`] and
//! [`crate::codegen`].

use proc_macro2::Span;
use syn::{Expr, Ident};

pub(crate) mod joins;
mod serde_ty;
pub(crate) mod table;

pub(crate) use joins::{FkJoin, FkRole, GlobalJoin, GlobalTable, JoinGrace};
pub(crate) use serde_ty::SerdeTy;
pub(crate) use table::TableNode;

/// A window definition: tumbling when `advance == size`. For session windows `size` is the
/// inactivity gap, for sliding windows the time difference (and `advance == size` for both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WindowSpec {
    pub size: i64,
    pub advance: i64,
    pub grace: i64,
    pub kind: WindowKind,
    /// `with_retention(..)` on the aggregation's table (Kafka Streams' `Materialized.withRetention`):
    /// how long its store keeps windows, instead of the default.
    pub retention_ms: Option<i64>,
}

/// The kinds of windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WindowKind {
    /// Tumbling or hopping: `[start, start + size)`.
    Time,
    /// Sessions: `[first, last]` record, split by gaps of inactivity.
    Session,
    /// Sliding: `[start, start + size]` where records are.
    Sliding,
}

impl WindowSpec {
    /// Whether windowed keys are written with `TimeWindowed` (time and sliding windows) rather
    /// than `SessionWindowed`.
    pub(crate) fn time_keyed(&self) -> bool {
        self.kind != WindowKind::Session
    }

    /// How long after a window ends it closes (suppression): Kafka Streams adds the gap for
    /// sessions (`GraphGraceSearchUtil`).
    pub(crate) fn close_after(&self) -> i64 {
        match self.kind {
            WindowKind::Session => self.size.saturating_add(self.grace),
            _ => self.grace,
        }
    }

    /// The store's retention: the one given with `with_retention(..)`, else Kafka Streams'
    /// default ([`WindowSpec::default_retention`]).
    pub(crate) fn retention(&self) -> i64 {
        self.retention_ms
            .unwrap_or_else(|| self.default_retention())
    }

    /// Kafka Streams' default retention, also the least it accepts: size + grace for time
    /// windows, gap + grace for sessions, 2 × difference + grace for sliding windows.
    pub(crate) fn default_retention(&self) -> i64 {
        match self.kind {
            WindowKind::Sliding => self.size.saturating_mul(2).saturating_add(self.grace),
            _ => self.size.saturating_add(self.grace),
        }
    }
}

/// The aggregation of a stateful node.
// A few per expansion: their size does not matter, and boxing the closures would only add
// indirection to every read.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum AggOp {
    Count,
    Reduce(Expr),
    /// `merger`: a session-windowed aggregation's merger of two sessions' aggregates.
    Aggregate {
        init: Expr,
        f: Expr,
        merger: Option<Box<Expr>>,
    },
}

/// A source's timestamp extractor (`stream(.., timestamp(..))`, see the runtime's
/// `event_time`).
#[derive(Clone)]
pub(crate) enum Extractor {
    /// `|key: &K, value: &V, record_ts: i64, partition_time: i64| -> i64`.
    Closure(Box<Expr>),
    /// `WallClock`: Kafka Streams' `WallclockTimestampExtractor`.
    WallClock,
    /// `FailOnInvalid`: Kafka Streams' `FailOnInvalidTimestamp`.
    FailOnInvalid,
    /// `LogAndSkipOnInvalid`: Kafka Streams' `LogAndSkipOnInvalidTimestamp`.
    LogAndSkipOnInvalid,
    /// `UsePartitionTimeOnInvalid`: Kafka Streams' `UsePartitionTimeOnInvalidTimestamp`.
    UsePartitionTimeOnInvalid,
}

/// A source's offset reset (`stream(.., offset_reset(..))`, the runtime's `OffsetReset`).
#[derive(Clone)]
pub(crate) enum ResetSpec {
    Earliest,
    Latest,
    None,
    /// `by_duration(expr)`: a `Duration` expression, evaluated in a const.
    ByDuration(Box<Expr>),
}

/// What a node does.
#[derive(Clone)]
pub(crate) enum NodeKind {
    Source {
        /// The first topic it reads.
        topic: String,
        /// The others, for `stream(["a", "b"], ..)` (Kafka Streams' `builder.stream(List)`): one
        /// node reading them all, as there.
        also: Vec<String>,
        key: SerdeTy,
        value: SerdeTy,
        /// `stream(.., timestamp(..))`: how the source stamps its records.
        timestamp: Option<Extractor>,
        /// `stream(.., offset_reset(..))`: where it starts without a committed offset.
        reset: Option<ResetSpec>,
    },
    /// `table(..)`: the node is Kafka Streams' `KTABLE-SOURCE-n` processor; `source` names the
    /// `KSTREAM-SOURCE-(n-1)` node before it, which reads the topic (one node here, two names
    /// and two indexes there, as `InternalStreamsBuilder#table` takes them).
    TableSource {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
        store: usize,
        source: String,
        /// `table(.., offset_reset(..))`: where it starts without a committed offset.
        reset: Option<ResetSpec>,
    },
    RepartitionSource {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
    },
    Filter {
        f: Expr,
        negate: bool,
    },
    Map {
        f: Expr,
        fallible: bool,
    },
    MapValues {
        f: Expr,
        with_key: bool,
        fallible: bool,
    },
    FlatMap {
        f: Expr,
    },
    FlatMapValues {
        f: Expr,
        with_key: bool,
    },
    SelectKey {
        f: Expr,
    },
    /// A node that is its operator's closure and nothing more (`peek`, `foreach`): `op` names the
    /// registry entry (`crate::ops::REGISTRY`) whose code generation answers for it, so such an
    /// operator needs no node kind of its own.
    Closure {
        op: &'static str,
        f: Expr,
    },
    /// Children are the arms, in predicate order.
    Branch {
        preds: Vec<Expr>,
    },
    BranchArm,
    /// `keys`: the key serdes of both merged streams, where both are known and differ as
    /// written (rustc checks that they serialize one type).
    Merge {
        keys: Option<(SerdeTy, SerdeTy)>,
    },
    RepartitionSink {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
        /// `repartition(.., partitioner(..))`: the closure that chooses each record's
        /// partitions (Kafka Streams' `Repartitioned.withStreamPartitioner`).
        partitioner: Option<Box<Expr>>,
    },
    Aggregate {
        store: usize,
        op: AggOp,
        /// One of a cogroup's aggregations (`crate::ops::cogroup`): it shares its store (and
        /// record cache) with the cogroup's others, keeps its own stream time for lateness (Kafka
        /// Streams' per-processor `observedStreamTime`), and forwards to the cogroup's merge
        /// node.
        cogrouped: bool,
    },
    ToStream,
    /// `suppress_until_window_closes(..)` (`limit` `None`) or `suppress_until_time_limit(..)`:
    /// `buffer` is its store, `windows` the aggregation's store (windowed for the first),
    /// `limits` its buffer config.
    Suppress {
        buffer: usize,
        windows: usize,
        limit: Option<i64>,
        limits: BufferSpec,
    },
    Join {
        store: usize,
        f: Expr,
        left: bool,
        /// `grace(..)`: stream records wait in a buffer until that much stream time passed
        /// (KIP-923), for a versioned table.
        grace: Option<Box<JoinGrace>>,
    },
    Process {
        f: Expr,
        stores: Vec<usize>,
        /// `process_values(..)`: the closure gets the key by reference and returns values; the
        /// key is kept (Kafka Streams' `processValues`, a `FixedKeyProcessor`).
        values: bool,
        /// Its punctuations, `schedule(..)` after the closure.
        schedules: Vec<Schedule>,
    },
    /// Kafka Streams' `KSTREAM-WINDOWED-` node of one side of a stream-stream join: passes the
    /// record on to its side's join node (which also stores it in `store`).
    JoinWindowed {
        store: usize,
    },
    /// One side of a stream-stream join (`KSTREAM-JOINTHIS-`, `-OUTEROTHER-`, ..).
    StreamJoin(Box<StreamJoinSide>),
    Sink {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
        /// `to(["a", "b"], chooser, ..)` (Kafka Streams' `TopicNameExtractor`): the closure
        /// that names each record's topic, and the declared topics after `topic` (the first).
        chosen: Option<Box<ChosenTopics>>,
        /// `to(.., partitioner(..))`: the closure that chooses each record's partitions (Kafka
        /// Streams' `Produced.streamPartitioner`).
        partitioner: Option<Box<Expr>>,
    },
    /// A table operator (`crate::ops::table`).
    Table(TableNode),
    /// A stream's join with a global table (`crate::ops::global_table`).
    GlobalJoin(Box<GlobalJoin>),
    /// A node of a foreign-key table-table join (`crate::ops::fk_join`).
    FkJoin(Box<FkJoin>),
}

/// Inner, left or outer stream-stream join.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum JoinKind {
    Inner,
    Left,
    Outer,
}

/// The time bounds of a stream-stream join (Kafka Streams' `JoinWindows`), in ms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JoinWindowSpec {
    pub before: i64,
    pub after: i64,
    pub grace: i64,
}

impl JoinWindowSpec {
    /// How long the window stores keep records: before + after + grace, as Kafka Streams sets it.
    pub(crate) fn retention(&self) -> i64 {
        self.before + self.after + self.grace
    }
}

/// One side's node of a stream-stream join.
#[derive(Clone)]
pub(crate) struct StreamJoinSide {
    pub kind: JoinKind,
    /// Whether this is the left (`this`) side.
    pub left: bool,
    pub window: JoinWindowSpec,
    /// This side's window store (written) and the other side's (read).
    pub this_store: usize,
    pub other_store: usize,
    /// The shared outer store of a left or outer join.
    pub shared: Option<usize>,
    /// The `this` side's node, whose id names the task's join state.
    pub state: usize,
    pub f: Expr,
    pub key: SerdeTy,
    pub right_key: SerdeTy,
    pub left_value: SerdeTy,
    pub right_value: SerdeTy,
}

/// One operator.
#[derive(Clone)]
pub(crate) struct Node {
    pub id: usize,
    /// Kafka Streams style name (`KSTREAM-FILTER-0000000001`).
    pub name: String,
    pub kind: NodeKind,
    pub span: Span,
    pub parents: Vec<usize>,
    pub children: Vec<usize>,
    pub sub: usize,
}

/// Who creates a store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum StoreOwner {
    Aggregate,
    Table,
    Declared,
    /// The buffer of `suppress_until_window_closes(..)` or `suppress_until_time_limit(..)`.
    Suppress,
    /// One side's window store of a stream-stream join.
    JoinWindow(JoinWindowSpec),
    /// The shared outer store of a left or outer stream-stream join.
    JoinShared,
    /// The subscription store of a foreign-key join (its internal layout: no typed handle).
    FkSubscription,
    /// The buffer of a stream-table join with a grace period (`<join>-Buffer`).
    JoinBuffer,
}

/// A state store.
#[derive(Clone)]
pub(crate) struct Store {
    pub name: String,
    pub span: Span,
    pub key: SerdeTy,
    pub value: SerdeTy,
    pub window: Option<WindowSpec>,
    /// Full changelog topic name (the source topic for a table).
    pub changelog: String,
    /// Whether the task writes the changelog (false for a table read from its topic).
    pub logged: bool,
    pub owner: StoreOwner,
    pub sub: usize,
    /// The nodes that use it.
    pub users: Vec<usize>,
    /// Whether the record cache holds back its updates (where the store has one: aggregations
    /// and tables read from a topic); `with_caching_disabled()` turns it off.
    pub cached: bool,
    /// A versioned table's history retention in milliseconds (`versioned(..)`): the store keeps
    /// past values that long, and a stream-table join reads it as of the stream record's time.
    pub versioned: Option<i64>,
    /// Its changelog: with the store's own topic configs (`with_logging_enabled([..])`), or
    /// none (`with_logging_disabled()`).
    pub logging: Logging,
    /// Kept in memory even when the application keeps its stores on disk (`in_memory()`).
    pub in_memory: bool,
}

/// A store's changelog, as Kafka Streams' `Materialized.withLoggingEnabled(Map)` /
/// `withLoggingDisabled()` set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Logging {
    /// A changelog, with these topic configs of the store's own (sorted by key) over Kafka
    /// Streams' defaults and the application's `topic.*`.
    Enabled(Vec<(String, String)>),
    /// No changelog: the store is not restored after a failure or a move.
    Disabled,
}

impl Default for Logging {
    fn default() -> Self {
        Logging::Enabled(Vec::new())
    }
}

impl Store {
    /// A key-value store of `owner` that writes `changelog`, with every option at its default:
    /// unwindowed, cached, unversioned, logged with the application's topic configs, kept
    /// where the application keeps its stores, used by no node yet. Callers override what
    /// differs with struct update syntax (`Store { window, ..Store::new(..) }`).
    pub(crate) fn new(
        name: String,
        span: Span,
        key: SerdeTy,
        value: SerdeTy,
        changelog: String,
        owner: StoreOwner,
    ) -> Store {
        Store {
            name,
            span,
            key,
            value,
            window: None,
            changelog,
            logged: true,
            owner,
            sub: 0,
            users: Vec::new(),
            cached: true,
            versioned: None,
            logging: Logging::default(),
            in_memory: false,
        }
    }

    /// Whether the store has a changelog topic (a table read from a topic has its topic).
    pub(crate) fn has_changelog(&self) -> bool {
        self.logging != Logging::Disabled
    }
}

/// The topics a sink chooses among per record (`to(["a", "b"], |key, value| .., ..)`).
#[derive(Clone)]
pub(crate) struct ChosenTopics {
    /// The declared topics after the sink's first.
    pub also: Vec<String>,
    /// `|key: &K, value: &V| -> impl AsRef<str>`, or with the record's context as a third
    /// parameter.
    pub f: Expr,
    /// Whether `f` takes the record's context (`|key, value, ctx: &RecordContext<'_>|`).
    pub with_context: bool,
}

/// A suppression's buffer config (Kafka Streams' `BufferConfig`): `None` is no bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BufferSpec {
    pub max_records: Option<u64>,
    pub max_bytes: Option<u64>,
    /// `emit_early_when_full()` (`EagerBufferConfig`), else `shut_down_when_full()`.
    pub emit_early: bool,
    /// The config as written, for the error of a full buffer.
    pub text: String,
}

impl BufferSpec {
    /// `unbounded()`.
    pub(crate) fn unbounded() -> Self {
        BufferSpec {
            max_records: None,
            max_bytes: None,
            emit_early: false,
            text: "unbounded()".to_owned(),
        }
    }
}

/// A subtopology.
#[derive(Clone, Default)]
pub(crate) struct Sub {
    /// Its index in `Model::subs` (and in `TopologyInfo::subtopologies`).
    pub id: usize,
    /// Its id in the streams group protocol and in `describe()`: Kafka Streams numbers node
    /// groups in the order of their first node, a global table's too (which makes no task), so
    /// a global table declared first takes id 0 (`crate::build`'s partition).
    pub protocol_id: usize,
    pub nodes: Vec<usize>,
    /// User topics read, sorted; each with its source node.
    pub source_topics: Vec<(String, usize)>,
    /// Repartition topics read, sorted.
    pub repartition_sources: Vec<(String, usize)>,
    pub repartition_sinks: Vec<String>,
    pub sink_topics: Vec<String>,
    pub stores: Vec<usize>,
    pub copartition_groups: Vec<(Vec<String>, Vec<String>)>,
}

/// A user topic and how the topology uses it.
#[derive(Clone)]
pub(crate) struct TopicUse {
    pub name: String,
    pub span: Span,
    pub role: TopicRole,
    pub key: Option<SerdeTy>,
    pub value: Option<SerdeTy>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TopicRole {
    Source,
    Table,
    Sink,
    DeadLetter,
}

/// The whole topology.
pub(crate) struct Model {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: Ident,
    pub app_id: String,
    pub app_span: Span,
    pub nodes: Vec<Node>,
    pub stores: Vec<Store>,
    pub subs: Vec<Sub>,
    pub on_error: Option<Expr>,
    pub topics: Vec<TopicUse>,
    /// The global tables, outside every subtopology.
    pub globals: Vec<GlobalTable>,
    /// The partition count of each repartition topic that has one (`partitions(n)`); the
    /// coordinator derives the others'.
    pub repartition_partitions: std::collections::BTreeMap<String, u32>,
}

impl Model {
    /// Whether store `s` is a table's store (a table source, `to_table`, a re-grouped table's
    /// aggregation): Kafka Streams' timestamped key-value store, whose entries keep the
    /// update's timestamp before the value (`dekaf_streams::__private::get_timestamped`).
    pub(crate) fn timestamped(&self, s: usize) -> bool {
        let st = &self.stores[s];
        st.owner == StoreOwner::Table
            // A stream aggregation's key-value store: `TimestampedKeyValueStore`, as Kafka
            // Streams' (`__private::store_update_stamped`).
            || (st.owner == StoreOwner::Aggregate && st.window.is_none())
            || st.users.iter().any(|&n| {
                matches!(
                    self.nodes[n].kind,
                    NodeKind::Table(TableNode::ToTable { .. } | TableNode::Aggregate { .. })
                )
            })
    }

    /// Whether window store `s` is a time-window aggregation's: Kafka Streams'
    /// `TimestampedWindowStore`, whose entries keep the window's latest update timestamp before
    /// the value (`__private::store_update_stamped`). Session and sliding stores are not.
    pub(crate) fn timestamped_window(&self, s: usize) -> bool {
        let st = &self.stores[s];
        st.owner == StoreOwner::Aggregate && st.window.is_some_and(|w| w.kind == WindowKind::Time)
    }
}

/// One punctuation of a `process(..)` node.
#[derive(Clone)]
pub(crate) struct Schedule {
    /// Milliseconds, at least 1.
    pub interval: i64,
    /// `WallClock` rather than `StreamTime`.
    pub wall_clock: bool,
    /// The callback `|ctx, timestamp| -> Result<impl IntoIterator<Item = (K, V)>, ProcessError>`.
    pub f: Expr,
    pub span: Span,
}
