//! Changelog records held until the commit, one per key.
//!
//! A changelog is compacted: only the last value of each key matters to a restore. Within one
//! commit interval a hot key (a word count's `the`) is updated many times, so the thread keeps
//! only the last changelog record per key and produces it at the commit, inside the same
//! transaction as everything else (Kafka Streams' record cache does the same for changelogs).
//! Under exactly-once nothing changes for readers: the interval's records become visible
//! together anyway. An abort drops the buffer with the rest of the interval's work.
//!
//! A flushed record stays marked *sent* until the commit that carries it succeeds: then
//! [`ChangelogBuffer::committed`] hands it to interactive queries (the committed state's change)
//! and marks it clean; an abort drops it with the rest.
//!
//! Slots are kept after a flush (marked clean) so that a key updated again in a later interval
//! reuses its buffers; a map that grows past [`MAX_CLEAN_KEYS`] is emptied after its flush.

use std::collections::HashMap;

use crate::kafka::producer::{self, StreamsProducer};
use rdkafka::error::KafkaError;

/// Keys kept per changelog partition between intervals before the map is emptied.
const MAX_CLEAN_KEYS: usize = 100_000;

#[derive(Debug, Default)]
struct Slot {
    value: Vec<u8>,
    tombstone: bool,
    timestamp: i64,
    dirty: bool,
    /// Produced by the last flush; its commit has not succeeded yet.
    sent: bool,
}

/// The changelog partitions of one thread, each a map from key to its latest record.
/// The latest record per key of one changelog partition.
type PartitionBuffer = HashMap<Vec<u8>, Slot>;

#[derive(Debug, Default)]
pub(crate) struct ChangelogBuffer {
    partitions: Vec<((&'static str, i32), PartitionBuffer)>,
    dirty: usize,
}

impl ChangelogBuffer {
    /// Keeps `value` (`None`: a tombstone) as the latest record of `key` in `topic[partition]`.
    #[inline]
    pub(crate) fn put(
        &mut self,
        topic: &'static str,
        partition: i32,
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) {
        let i = match self
            .partitions
            .iter()
            .position(|((t, p), _)| *p == partition && *t == topic)
        {
            Some(i) => i,
            None => {
                self.partitions.push(((topic, partition), HashMap::new()));
                self.partitions.len() - 1
            }
        };
        let map = &mut self.partitions[i].1;
        let slot = match map.get_mut(key) {
            Some(slot) => slot,
            None => map.entry(key.to_vec()).or_default(),
        };
        if !slot.dirty {
            slot.dirty = true;
            self.dirty += 1;
        }
        slot.value.clear();
        if let Some(v) = value {
            slot.value.extend_from_slice(v);
        }
        slot.tombstone = value.is_none();
        slot.timestamp = timestamp;
    }

    /// Records waiting for the commit.
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.dirty
    }

    /// Produces every waiting record; returns how many.
    pub(crate) fn flush(&mut self, producer: &StreamsProducer) -> Result<usize, KafkaError> {
        let mut sent = 0;
        for ((topic, partition), map) in &mut self.partitions {
            for (key, slot) in map.iter_mut().filter(|(_, s)| s.dirty) {
                let value = (!slot.tombstone).then_some(slot.value.as_slice());
                producer::send(
                    producer,
                    topic,
                    Some(*partition),
                    Some(key),
                    value,
                    Some(slot.timestamp),
                    None,
                )?;
                slot.dirty = false;
                slot.sent = true;
                sent += 1;
            }
        }
        self.dirty = 0;
        Ok(sent)
    }

    /// The commit that carried the flushed records succeeded: hands each to `f` (topic,
    /// partition, key, value; `None` a tombstone) and marks it clean.
    pub(crate) fn committed(&mut self, mut f: impl FnMut(&'static str, i32, &[u8], Option<&[u8]>)) {
        for ((topic, partition), map) in &mut self.partitions {
            for (key, slot) in map.iter_mut().filter(|(_, s)| s.sent) {
                f(
                    topic,
                    *partition,
                    key,
                    (!slot.tombstone).then_some(slot.value.as_slice()),
                );
                slot.sent = false;
            }
            if map.len() > MAX_CLEAN_KEYS {
                map.clear();
            }
        }
    }

    /// Drops every waiting record, and every flushed one not committed (the interval is
    /// aborted).
    pub(crate) fn discard(&mut self) {
        for (_, map) in &mut self.partitions {
            map.retain(|_, s| !s.dirty && !s.sent);
        }
        self.dirty = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_record_per_key_and_partition() {
        let mut b = ChangelogBuffer::default();
        b.put("c", 0, b"the", Some(b"1"), 10);
        b.put("c", 0, b"the", Some(b"2"), 11);
        b.put("c", 1, b"the", Some(b"7"), 12);
        b.put("c", 0, b"a", None, 13);
        assert_eq!(b.pending(), 3);
        let slot = &b.partitions[0].1[&b"the"[..]];
        assert_eq!(
            (slot.value.as_slice(), slot.timestamp, slot.tombstone),
            (&b"2"[..], 11, false)
        );
        assert!(b.partitions[0].1[&b"a"[..]].tombstone);
        b.discard();
        assert_eq!(b.pending(), 0);
        assert!(b.partitions.iter().all(|(_, m)| m.is_empty()));
    }

    #[test]
    fn committed_hands_over_what_was_flushed_once() {
        let mut b = ChangelogBuffer::default();
        b.put("c", 0, b"a", Some(b"1"), 10);
        b.put("c", 0, b"b", None, 11);
        // What `flush` does to the slots, without a producer.
        for (_, map) in &mut b.partitions {
            for slot in map.values_mut() {
                slot.dirty = false;
                slot.sent = true;
            }
        }
        b.dirty = 0;
        let mut seen = Vec::new();
        b.committed(|t, p, k, v| seen.push((t, p, k.to_vec(), v.map(<[u8]>::to_vec))));
        seen.sort();
        assert_eq!(
            seen,
            [
                ("c", 0, b"a".to_vec(), Some(b"1".to_vec())),
                ("c", 0, b"b".to_vec(), None)
            ]
        );
        let mut again = 0;
        b.committed(|_, _, _, _| again += 1);
        assert_eq!(again, 0);
        // A sent record of an aborted commit is dropped by `discard`.
        b.put("c", 0, b"a", Some(b"2"), 12);
        for (_, map) in &mut b.partitions {
            for slot in map.values_mut().filter(|s| s.dirty) {
                slot.dirty = false;
                slot.sent = true;
            }
        }
        b.discard();
        b.committed(|_, _, _, _| again += 1);
        assert_eq!(again, 0);
    }
}
