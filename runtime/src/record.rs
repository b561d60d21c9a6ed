//! The records a task reads and writes, and the sink it writes them to.
//!
//! A runner hands a task each consumed record as an [`InputRecord`] and a [`RecordSink`]
//! that receives every record the task writes ([`OutgoingRecord`]): sink, repartition,
//! changelog and dead-letter records, each tagged with its [`TopicKind`] and its
//! [`Partitioning`]. Both the task code ([`crate::task`]) and the stores (which write their
//! changelog records) depend on this module; it depends on neither.

use std::fmt;

/// Record headers: an ordered list of (name, value) pairs; names may repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    entries: Vec<(String, Option<Vec<u8>>)>,
}

static EMPTY_HEADERS: Headers = Headers::new();

impl Headers {
    /// No headers.
    pub const fn new() -> Self {
        Headers {
            entries: Vec::new(),
        }
    }

    /// A shared empty header list.
    pub fn empty() -> &'static Headers {
        &EMPTY_HEADERS
    }

    /// Appends a header.
    pub fn add(&mut self, name: impl Into<String>, value: Option<impl Into<Vec<u8>>>) -> &mut Self {
        self.entries.push((name.into(), value.map(Into::into)));
        self
    }

    /// Replaces the headers with `items`, reusing the buffers of the names and values already
    /// held: a processing thread refills one list per record that has headers, so it allocates
    /// only when a record has more or longer headers than any before it.
    #[cfg_attr(not(feature = "kafka"), allow(dead_code))]
    pub(crate) fn refill<'a>(&mut self, items: impl Iterator<Item = (&'a str, Option<&'a [u8]>)>) {
        let mut n = 0;
        for (name, value) in items {
            match self.entries.get_mut(n) {
                Some((stored_name, stored_value)) => {
                    stored_name.clear();
                    stored_name.push_str(name);
                    match (stored_value.as_mut(), value) {
                        (Some(buf), Some(value)) => {
                            buf.clear();
                            buf.extend_from_slice(value);
                        }
                        (_, value) => *stored_value = value.map(<[u8]>::to_vec),
                    }
                }
                None => self
                    .entries
                    .push((name.to_owned(), value.map(<[u8]>::to_vec))),
            }
            n += 1;
        }
        self.entries.truncate(n);
    }

    /// Appends a header and returns the list (builder style).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        self.entries.push((name.into(), Some(value.into())));
        self
    }

    /// The value of the last header named `name`.
    pub fn last(&self, name: &str) -> Option<Option<&[u8]>> {
        self.entries
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_deref())
    }

    /// All headers in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&[u8]>)> {
        self.entries.iter().map(|(n, v)| (n.as_str(), v.as_deref()))
    }

    /// The number of headers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One consumed record, as the runner hands it to [`Task::process`](crate::task::Task::process).
#[derive(Debug, Clone, Copy)]
pub struct InputRecord<'a> {
    /// The index of the record's topic in [`Task::source_topics`](crate::task::Task::source_topics) (resolve it once per
    /// partition with [`Task::source_index`](crate::task::Task::source_index)).
    pub source: usize,
    /// The partition the record was read from.
    pub partition: i32,
    /// Its offset.
    pub offset: i64,
    /// Key bytes; `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` for a null value (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Timestamp in milliseconds since the epoch.
    pub timestamp: i64,
    /// Headers.
    pub headers: &'a Headers,
}

/// What a topic a task writes to is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopicKind {
    /// A user topic written by `to(...)`.
    Sink,
    /// An internal `-repartition` topic, read back by another subtopology.
    Repartition,
    /// A store's changelog (an internal `-changelog` topic).
    Changelog,
    /// The changelog of a store whose every write has a key of its own (a stream-stream join's
    /// window store: key, timestamp and sequence number), so keeping only the latest record per
    /// key until the commit would save nothing, or whose every write matters (a versioned
    /// table's: each put is a version): the runtime produces these records at once, as Kafka
    /// Streams' uncached stores do.
    AppendOnlyChangelog,
    /// A dead-letter topic chosen by `on_error`.
    DeadLetter,
}

impl TopicKind {
    /// Whether the topic is a store's changelog ([`TopicKind::Changelog`] or
    /// [`TopicKind::AppendOnlyChangelog`]).
    #[inline]
    pub fn is_changelog(self) -> bool {
        matches!(self, TopicKind::Changelog | TopicKind::AppendOnlyChangelog)
    }
}

/// How the partition of an outgoing record is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// By the serialized key with Kafka's default partitioner (murmur2, see
    /// [`Partitioning::partition`]), so Java clients agree; a null key may go to any partition.
    ByKey,
    /// Exactly this partition (changelog records go to the task's own partition).
    Exact(i32),
}

impl Partitioning {
    /// The partition out of `partitions` for a record with `key`; `None` for `ByKey` with a
    /// null key (the runner picks one) or no partitions.
    pub fn partition(self, key: Option<&[u8]>, partitions: i32) -> Option<i32> {
        match self {
            Partitioning::Exact(p) => Some(p),
            Partitioning::ByKey => {
                let key = key?;
                if partitions <= 0 {
                    return None;
                }
                Some(((murmur2(key) & 0x7fff_ffff) as i32) % partitions)
            }
        }
    }
}

/// Kafka's murmur2 hash (`org.apache.kafka.common.utils.Utils.murmur2`), as the default
/// partitioner applies it to serialized keys.
pub fn murmur2(data: &[u8]) -> u32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let len = data.len();
    let mut h = SEED ^ (len as u32);
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

/// One record a task writes. The bytes are borrowed from the task's buffers: copy them before
/// `send` returns.
#[derive(Debug, Clone, Copy)]
pub struct OutgoingRecord<'a> {
    /// Full topic name.
    pub topic: &'static str,
    /// What the topic is for.
    pub kind: TopicKind,
    /// How to choose the partition.
    pub partitioning: Partitioning,
    /// Key bytes; `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` for a tombstone.
    pub value: Option<&'a [u8]>,
    /// Timestamp (the input record's).
    pub timestamp: i64,
    /// Headers (the input record's; none on changelog records).
    pub headers: &'a Headers,
}

impl<'a> OutgoingRecord<'a> {
    /// A store's changelog record: `key` with its new `value` (`None`: deleted) to partition
    /// `partition` of `changelog` (the task's partition), without headers.
    #[inline]
    pub fn changelog(
        changelog: &'static str,
        partition: i32,
        key: &'a [u8],
        value: Option<&'a [u8]>,
        timestamp: i64,
    ) -> Self {
        OutgoingRecord {
            topic: changelog,
            kind: TopicKind::Changelog,
            partitioning: Partitioning::Exact(partition),
            key: Some(key),
            value,
            timestamp,
            headers: Headers::empty(),
        }
    }

    /// A changelog record of a store whose every write has a key of its own
    /// ([`TopicKind::AppendOnlyChangelog`]): produced at once, not kept until the commit.
    #[inline]
    pub fn append_only_changelog(
        changelog: &'static str,
        partition: i32,
        key: &'a [u8],
        value: Option<&'a [u8]>,
        timestamp: i64,
    ) -> Self {
        OutgoingRecord {
            kind: TopicKind::AppendOnlyChangelog,
            ..OutgoingRecord::changelog(changelog, partition, key, value, timestamp)
        }
    }
}

/// A failure of the runner's sink (for example a producer that cannot send).
#[derive(Debug, thiserror::Error)]
#[error("record sink: {0}")]
pub struct SinkError(pub Box<dyn std::error::Error + Send + Sync>);

impl SinkError {
    /// A sink error with a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        SinkError(message.to_string().into())
    }
}

/// Where a task's output goes: the TestDriver collects it, the Kafka runtime produces it.
pub trait RecordSink {
    /// Takes one outgoing record (copy its bytes; they are the task's buffers).
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError>;

    /// A task asks for a commit as soon as possible (a processor's `ctx.commit()`, Kafka
    /// Streams' `ProcessorContext#commit`): the Kafka runtime commits once the batch of records
    /// being processed is done instead of waiting for the commit interval; the TestDriver
    /// flushes the record caches after the record. Sinks that cannot commit ignore it.
    #[inline]
    fn request_commit(&mut self) {}

    /// The partition count of `topic`, for a `partitioner(..)` (Kafka Streams'
    /// `StreamPartitioner` gets it with each record). The Kafka runtime asks the cluster once per
    /// topic and keeps the answer; the TestDriver answers its partition count. Sinks that cannot
    /// tell fail.
    fn partition_count(&mut self, topic: &'static str) -> Result<u32, SinkError> {
        Err(SinkError::msg(format_args!(
            "this sink does not know the partition count of {topic}, which a partitioner needs"
        )))
    }
}

impl<S: RecordSink + ?Sized> RecordSink for &mut S {
    #[inline]
    fn send(&mut self, record: OutgoingRecord<'_>) -> Result<(), SinkError> {
        (**self).send(record)
    }

    #[inline]
    fn request_commit(&mut self) {
        (**self).request_commit();
    }

    #[inline]
    fn partition_count(&mut self, topic: &'static str) -> Result<u32, SinkError> {
        (**self).partition_count(topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_matches_kafka() {
        // Values from Kafka's UtilsTest.testMurmur2.
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (data, expected) in cases {
            assert_eq!(
                murmur2(data) as i32,
                expected,
                "{:?}",
                std::str::from_utf8(data)
            );
        }
        assert_eq!(Partitioning::ByKey.partition(None, 3), None);
        assert_eq!(Partitioning::Exact(2).partition(None, 3), Some(2));
    }

    #[test]
    fn refilled_headers_are_the_new_record_s_whatever_came_before() {
        let mut h = Headers::new();
        h.refill([("a", Some(&b"1"[..])), ("b", None), ("c", Some(&b"33"[..]))].into_iter());
        let first: Vec<_> = h.iter().collect();
        assert_eq!(
            first,
            [("a", Some(&b"1"[..])), ("b", None), ("c", Some(&b"33"[..]))]
        );
        h.refill([("bb", Some(&b"2"[..])), ("a", None)].into_iter());
        let second: Vec<_> = h.iter().collect();
        assert_eq!(second, [("bb", Some(&b"2"[..])), ("a", None)]);
        h.refill(std::iter::empty());
        assert_eq!(h.len(), 0);
    }
}
