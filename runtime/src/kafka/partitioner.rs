//! The partitioner of a processing thread's producer: Kafka's default partitioner (murmur2 of
//! the serialized key), except for windowed keys written by `to(..)` with `TimeWindowed` or
//! `SessionWindowed`, which go by their inner key, as Kafka Streams' `WindowedStreamPartitioner`
//! does (`StreamSinkNode` uses it whenever the key serializer is a `WindowedSerializer` and no
//! partitioner is given): a window's result lands on the partition of the key's plain records.

use std::sync::atomic::{AtomicU32, Ordering};

use rdkafka::producer::Partitioner;

use crate::record::murmur2;
use crate::topology::WindowedSink;

/// Chooses the partition of a record librdkafka is to partition (every record sent without an
/// explicit partition: sinks, repartition topics, dead letters).
#[derive(Debug, Default)]
pub struct SinkPartitioner {
    windowed: &'static [WindowedSink],
    /// Round robin for null keys (librdkafka only asks for them with
    /// `sticky.partitioning.linger.ms=0`; otherwise it spreads them itself).
    next: AtomicU32,
}

impl SinkPartitioner {
    /// A partitioner for a topology writing windowed keys to `windowed`.
    pub fn new(windowed: &'static [WindowedSink]) -> Self {
        SinkPartitioner {
            windowed,
            next: AtomicU32::new(0),
        }
    }

    /// The bytes of `key` to hash for `topic`: the inner key of a windowed sink's key, else the
    /// whole key.
    fn hashed<'k>(&self, topic: &str, key: &'k [u8]) -> &'k [u8] {
        match self.windowed.iter().find(|w| w.topic == topic) {
            Some(w) if key.len() >= w.window_bytes => &key[..key.len() - w.window_bytes],
            _ => key,
        }
    }

    /// The partition out of `partitions` (positive) for `key` written to `topic`.
    pub fn partition_of(&self, topic: &str, key: Option<&[u8]>, partitions: i32) -> i32 {
        let partitions = partitions.max(1);
        match key {
            Some(key) => ((murmur2(self.hashed(topic, key)) & 0x7fff_ffff) as i32) % partitions,
            None => (self.next.fetch_add(1, Ordering::Relaxed) % partitions.unsigned_abs()) as i32,
        }
    }
}

impl Partitioner for SinkPartitioner {
    fn partition(
        &self,
        topic_name: &str,
        key: Option<&[u8]>,
        partition_cnt: i32,
        _is_partition_available: impl Fn(i32) -> bool,
    ) -> i32 {
        self.partition_of(topic_name, key, partition_cnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static WINDOWED: [WindowedSink; 2] = [
        WindowedSink {
            topic: "per-minute",
            window_bytes: 8,
        },
        WindowedSink {
            topic: "sessions",
            window_bytes: 16,
        },
    ];

    #[test]
    fn a_windowed_key_goes_where_its_inner_key_goes() {
        let p = SinkPartitioner::new(&WINDOWED);
        for key in ["alice", "bob", "carol", "dave", "21", "foobar"] {
            let plain = p.partition_of("plain", Some(key.as_bytes()), 7);
            let mut time = key.as_bytes().to_vec();
            time.extend_from_slice(&60_000_i64.to_be_bytes());
            assert_eq!(p.partition_of("per-minute", Some(&time), 7), plain, "{key}");
            let mut session = key.as_bytes().to_vec();
            session.extend_from_slice(&9_i64.to_be_bytes());
            session.extend_from_slice(&3_i64.to_be_bytes());
            assert_eq!(
                p.partition_of("sessions", Some(&session), 7),
                plain,
                "{key}"
            );
        }
    }

    #[test]
    fn other_keys_use_kafkas_default_partitioner() {
        let p = SinkPartitioner::new(&WINDOWED);
        // Kafka's UtilsTest: murmur2("21") = -973932308; Utils.toPositive clears the sign bit.
        let expected = ((-973_932_308_i32 as u32 & 0x7fff_ffff) % 3) as i32;
        assert_eq!(p.partition_of("plain", Some(b"21"), 3), expected);
        // A windowed topic's key is hashed whole by a topic that is not windowed.
        let mut time = b"21".to_vec();
        time.extend_from_slice(&0_i64.to_be_bytes());
        assert_eq!(
            p.partition_of("plain", Some(&time), 1000),
            ((murmur2(&time) & 0x7fff_ffff) % 1000) as i32
        );
    }

    #[test]
    fn null_keys_are_spread() {
        let p = SinkPartitioner::new(&[]);
        let seen: std::collections::BTreeSet<i32> =
            (0..6).map(|_| p.partition_of("t", None, 3)).collect();
        assert_eq!(seen.len(), 3);
    }
}
