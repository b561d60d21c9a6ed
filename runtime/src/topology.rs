//! What a compiled topology says about itself, as plain `'static` data.
//!
//! `topology!` emits one [`TopologyInfo`] per topology. The streams-group member sends it to the
//! group coordinator (which creates the internal topics from it and assigns tasks), the runtime
//! uses it to know which topics each task reads and writes, and `describe()` prints it.
//!
//! Every topic name here is the full name on the broker: internal topics carry the application
//! id as prefix and `-repartition` / `-changelog` as suffix, exactly as Kafka Streams names them
//! (`word-count-counts-repartition`, `word-count-counts-changelog`).

/// A user topic written with windowed keys, and how many bytes of window its keys end with:
/// 8 for `TimeWindowed` (start), 16 for `SessionWindowed` (end, start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowedSink {
    /// The topic.
    pub topic: &'static str,
    /// The bytes after the inner key.
    pub window_bytes: usize,
}

/// Where a source starts reading a partition for which the group has no committed offset
/// (Kafka Streams' `AutoOffsetReset`, KIP-1106, set per source with `Consumed`); the default
/// is [`OffsetReset::Earliest`], as Kafka Streams' `auto.offset.reset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetReset {
    /// The partition's first offset.
    Earliest,
    /// The partition's end (the last stable offset under exactly-once): only records written
    /// after the task started are read.
    Latest,
    /// The first record whose timestamp is at most this long before the task started (the end
    /// if there is none).
    ByDuration(std::time::Duration),
    /// No start without a committed offset: the application stops with
    /// [`StreamsError::NoCommittedOffset`](crate::streams::StreamsError::NoCommittedOffset).
    None,
}

/// A source topic with its own [`OffsetReset`] (`stream(.., offset_reset(..))`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceOffsetReset {
    /// The topic.
    pub topic: &'static str,
    /// Where its partitions start without a committed offset.
    pub reset: OffsetReset,
}

/// The static description of a topology: its application id and its subtopologies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopologyInfo {
    /// The application id: the streams group id and the prefix of every internal topic.
    pub application_id: &'static str,
    /// The subtopologies, in id order (`"0"`, `"1"`, …).
    pub subtopologies: &'static [SubtopologyInfo],
}

/// One subtopology: the part of a topology between repartition topics. It runs as one task per
/// input partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubtopologyInfo {
    /// The subtopology id as the streams group protocol carries it (`"0"`, `"1"`, …).
    pub id: &'static str,
    /// User topics this subtopology reads (sources and tables), sorted.
    pub source_topics: &'static [&'static str],
    /// Repartition topics this subtopology reads, sorted by name.
    pub repartition_source_topics: &'static [InternalTopicInfo],
    /// Repartition topics this subtopology writes, sorted.
    pub repartition_sink_topics: &'static [&'static str],
    /// Changelog topics of this subtopology's stores, sorted by name: a table read from a user
    /// topic declares that topic (Kafka Streams declares it so under
    /// `topology.optimization=reuse.ktable.source.topics`); a store whose logging is disabled
    /// has none.
    pub state_changelog_topics: &'static [InternalTopicInfo],
    /// User topics this subtopology writes (sinks and dead-letter topics), sorted.
    pub sink_topics: &'static [&'static str],
    /// Groups of topics that must have the same partition count (for example a stream and the
    /// table it joins).
    pub copartition_groups: &'static [CopartitionGroup],
    /// The state stores of this subtopology, in declaration order.
    pub stores: &'static [StoreInfo],
}

/// An internal topic (repartition or changelog) that the group coordinator creates.
///
/// Its configuration is declared as Kafka Streams declares it (`InternalTopicConfig`), in
/// three layers, each overriding the one before: Kafka Streams' own configs for this kind of
/// topic ([`configs`](Self::configs)), the application's configs for every internal topic
/// ([`InternalTopicSettings::configs`], Kafka Streams' `topic.*`), and the store's own
/// ([`store_configs`](Self::store_configs), `with_logging_enabled([..])`); then the
/// [`derived`](Self::derived) config, unless the store's own configs set it.
/// [`declared_configs`](Self::declared_configs) merges them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InternalTopicInfo {
    /// Full topic name.
    pub name: &'static str,
    /// Partition count; `0` lets the coordinator decide (always `0` for changelogs).
    pub partitions: i32,
    /// Kafka Streams' own configs for this kind of topic, sorted by key.
    pub configs: &'static [(&'static str, &'static str)],
    /// The store's own changelog configs (`with_logging_enabled([..])`), sorted by key.
    pub store_configs: &'static [(&'static str, &'static str)],
    /// A config computed from the store.
    pub derived: DerivedConfig,
}

/// A topic config computed from its store, set unless the store's own configs set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DerivedConfig {
    /// None.
    None,
    /// A window store's changelog: `retention.ms` is the store's retention plus
    /// [`InternalTopicSettings::window_changelog_additional_retention_ms`] (Kafka Streams'
    /// `WindowedChangelogTopicConfig`).
    WindowRetention {
        /// How long the store keeps a window, in milliseconds.
        retention_ms: i64,
    },
    /// A versioned store's changelog: `min.compaction.lag.ms` is the history retention plus
    /// a day (Kafka Streams' `VersionedChangelogTopicConfig`).
    VersionedCompactionLag {
        /// How long the store keeps old versions, in milliseconds.
        history_ms: i64,
    },
}

/// One day in milliseconds: what a versioned store's changelog keeps beyond its history.
const VERSIONED_ADDITIONAL_COMPACTION_LAG_MS: i64 = 24 * 60 * 60 * 1000;

impl InternalTopicInfo {
    /// The configs this topic is declared with under `settings`, sorted by key: Kafka
    /// Streams' defaults, overridden by the application's `topic.*` configs, overridden by
    /// the store's own, then the derived config unless the store's own set it.
    pub fn declared_configs(&self, settings: &InternalTopicSettings) -> Vec<(String, String)> {
        let mut merged: std::collections::BTreeMap<String, String> = self
            .configs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        merged.extend(settings.configs.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged.extend(
            self.store_configs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        let own = |key: &str| self.store_configs.iter().any(|(k, _)| *k == key);
        match self.derived {
            DerivedConfig::None => {}
            DerivedConfig::WindowRetention { retention_ms } if !own("retention.ms") => {
                let ms = retention_ms
                    .checked_add(settings.window_changelog_additional_retention_ms)
                    .unwrap_or(i64::MAX);
                merged.insert("retention.ms".to_owned(), ms.to_string());
            }
            DerivedConfig::VersionedCompactionLag { history_ms }
                if !own("min.compaction.lag.ms") =>
            {
                let ms = history_ms
                    .checked_add(VERSIONED_ADDITIONAL_COMPACTION_LAG_MS)
                    .unwrap_or(i64::MAX);
                merged.insert("min.compaction.lag.ms".to_owned(), ms.to_string());
            }
            DerivedConfig::WindowRetention { .. }
            | DerivedConfig::VersionedCompactionLag { .. } => {}
        }
        merged.into_iter().collect()
    }
}

/// What an application declares for every internal topic it has the coordinator create
/// (Kafka Streams' `replication.factor`, `topic.*` and
/// `windowstore.changelog.additional.retention.ms`). The coordinator compares a joining
/// member's topology with the group's field by field, so an application that takes over a
/// Kafka Streams application's group must declare what that application declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTopicSettings {
    /// The replication factor of every internal topic; `-1` (the default, as Kafka Streams'
    /// `replication.factor`) lets the broker choose (`default.replication.factor`).
    pub replication_factor: i16,
    /// Configs of every internal topic (Kafka Streams' `topic.`-prefixed configs, without the
    /// prefix), by key.
    pub configs: std::collections::BTreeMap<String, String>,
    /// What a window store's changelog keeps beyond the store's retention, in milliseconds
    /// (one day by default, as Kafka Streams'
    /// `windowstore.changelog.additional.retention.ms`).
    pub window_changelog_additional_retention_ms: i64,
}

impl Default for InternalTopicSettings {
    fn default() -> Self {
        InternalTopicSettings {
            replication_factor: -1,
            configs: std::collections::BTreeMap::new(),
            window_changelog_additional_retention_ms: 24 * 60 * 60 * 1000,
        }
    }
}

/// Topics that must be co-partitioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopartitionGroup {
    /// User source topics of the group, sorted.
    pub source_topics: &'static [&'static str],
    /// Repartition source topics of the group, sorted.
    pub repartition_source_topics: &'static [&'static str],
}

/// A state store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreInfo {
    /// The store's name as written in the topology.
    pub name: &'static str,
    /// The topic that records every update of the store: `<app>-<store>-changelog`, or the
    /// source topic for a table read from a topic.
    pub changelog_topic: &'static str,
    /// Whether the store has that changelog. `false` for a store whose logging is disabled
    /// (`with_logging_disabled()`): its `changelog_topic` still names it (interactive queries
    /// find it by that name), but no such topic exists; nothing is written there or restored
    /// from there.
    pub logged: bool,
    /// Whether the store is kept in memory even when the application keeps its stores on disk
    /// (`in_memory()`, Kafka Streams' `Stores.inMemoryKeyValueStore`): restored from its
    /// changelog's start whenever its task starts.
    pub in_memory: bool,
    /// What kind of store it is.
    pub kind: StoreKind,
}

/// The kind of a state store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// A key-value store.
    KeyValue,
    /// A key-value store of a table (a table source, `to_table`, a re-grouped table's
    /// aggregation), as Kafka Streams' timestamped key-value store: each stored value is the
    /// 8-byte big-endian timestamp of the update that wrote it, then the value's bytes. Its
    /// changelog carries the plain value, stamped with that timestamp, so a restore takes the
    /// timestamp from the changelog record.
    TimestampedKeyValue,
    /// A window store of fixed-size windows (tumbling when `advance_ms == size_ms`).
    Window {
        /// Window length in milliseconds.
        size_ms: i64,
        /// Distance between window starts in milliseconds.
        advance_ms: i64,
        /// How long after a window ends late records are still accepted, in milliseconds.
        grace_ms: i64,
        /// Whether each stored value is the 8-byte big-endian timestamp of the window's latest
        /// update, then the value's bytes: a time-window aggregation's store, as Kafka Streams'
        /// `TimestampedWindowStore`. Its changelog carries the plain value, stamped with that
        /// timestamp, so a restore (and a query's published copy) takes the timestamp from the
        /// changelog record.
        timestamped: bool,
    },
    /// A session store: sessions of activity separated by gaps of inactivity.
    Session {
        /// The inactivity gap that ends a session, in milliseconds.
        gap_ms: i64,
        /// How long after a session's end plus gap late records are still accepted.
        grace_ms: i64,
    },
    /// A sliding-window store: windows `[start, start + time_difference_ms]`, both ends
    /// inclusive, where records are.
    Sliding {
        /// The largest time difference of two records in one window, in milliseconds.
        time_difference_ms: i64,
        /// How long after a window ends late records are still accepted, in milliseconds.
        grace_ms: i64,
    },
    /// The window store of one side of a stream-stream join: it keeps every record (duplicates
    /// too) for `before + after + grace`.
    JoinWindow {
        /// How much earlier a right record may be and still join a left one, in milliseconds.
        before_ms: i64,
        /// How much later a right record may be and still join a left one, in milliseconds.
        after_ms: i64,
        /// How long after its window closes a late record is still joined, in milliseconds.
        grace_ms: i64,
    },
}

impl TopologyInfo {
    /// The subtopology with this id.
    pub fn subtopology(&self, id: &str) -> Option<&'static SubtopologyInfo> {
        self.subtopologies.iter().find(|s| s.id == id)
    }
}
