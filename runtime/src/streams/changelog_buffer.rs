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
//! reuses its buffers; a partition that grows past [`MAX_CLEAN_KEYS`] is emptied after its
//! flush.
//!
//! Per record, [`ChangelogBuffer::put`] costs one hash lookup (foldhash, see `fast_hash`) and
//! finds its partition without a scan when it is the one of the previous record (the common
//! case: a task's records come in runs of one partition). A commit touches only the slots
//! updated in its interval: each partition keeps the list of its dirty slots, and of those its
//! last flush sent, so neither [`flush`](ChangelogBuffer::flush) nor
//! [`committed`](ChangelogBuffer::committed) walks the clean ones. Records are produced in the
//! order their keys were first updated in the interval, never in hash order.

use std::hash::BuildHasher;

use crate::fast_hash::FastHash;
use crate::kafka::producer::StreamsProducer;
use rdkafka::error::KafkaError;

/// Keys kept per changelog partition between intervals before the map is emptied.
const MAX_CLEAN_KEYS: usize = 100_000;

#[derive(Debug, Default)]
struct Slot {
    key: Vec<u8>,
    value: Vec<u8>,
    tombstone: bool,
    timestamp: i64,
    dirty: bool,
    /// Produced by the last flush; its commit has not succeeded yet.
    sent: bool,
}

/// The latest record per key of one changelog partition.
#[derive(Debug, Default)]
struct PartitionBuffer {
    topic: &'static str,
    partition: i32,
    /// Whether the topic exists: `false` for the store of `with_logging_disabled()`, whose
    /// records are only handed to interactive queries at the commit, never produced.
    produced: bool,
    /// The index in `slots` of each key, hashed by `hasher` (the key itself is kept once, in
    /// its slot: a new key costs one allocation, not two).
    index: hashbrown::HashTable<usize>,
    hasher: FastHash,
    slots: Vec<Slot>,
    /// Indexes of the slots updated since the last flush.
    dirty: Vec<usize>,
    /// Indexes of the slots the last flush produced, waiting for their commit.
    sent: Vec<usize>,
}

impl PartitionBuffer {
    /// The index of `key`'s slot, added (clean, empty) when the key is new.
    #[inline]
    fn slot_of(&mut self, key: &[u8]) -> usize {
        let hash = self.hasher.hash_one(key);
        if let Some(at) = self.find(hash, key) {
            return at;
        }
        let at = self.slots.len();
        self.slots.push(Slot {
            key: key.to_vec(),
            ..Slot::default()
        });
        self.index_slot(hash, at);
        at
    }

    /// The slot of `key`, whose hash is `hash`.
    #[inline]
    fn find(&self, hash: u64, key: &[u8]) -> Option<usize> {
        self.index
            .find(hash, |&j| self.slots[j].key == key)
            .copied()
    }

    /// Indexes slot `at`, whose key's hash is `hash` (a key not indexed yet).
    fn index_slot(&mut self, hash: u64, at: usize) {
        let PartitionBuffer {
            index,
            hasher,
            slots,
            ..
        } = self;
        index.insert_unique(hash, at, |&j| hasher.hash_one(slots[j].key.as_slice()));
    }

    fn new(topic: &'static str, partition: i32, produced: bool) -> Self {
        PartitionBuffer {
            topic,
            partition,
            produced,
            ..Self::default()
        }
    }

    /// Drops every slot that is dirty or sent, keeping the clean ones (an abort).
    fn discard(&mut self) {
        if self.dirty.is_empty() && self.sent.is_empty() {
            return;
        }
        self.slots.retain(|s| !s.dirty && !s.sent);
        self.index.clear();
        for at in 0..self.slots.len() {
            let hash = self.hasher.hash_one(self.slots[at].key.as_slice());
            self.index_slot(hash, at);
        }
        self.dirty.clear();
        self.sent.clear();
    }
}

/// The changelog partitions of one thread, each a map from key to its latest record.
#[derive(Debug, Default)]
pub(crate) struct ChangelogBuffer {
    partitions: Vec<PartitionBuffer>,
    /// The changelog names of stores without a changelog (`with_logging_disabled()`).
    unlogged: Vec<&'static str>,
    /// The partition of the last `put`, tried first.
    last: usize,
    dirty: usize,
}

impl ChangelogBuffer {
    /// A buffer for the stores of `info`: the records of a store without a changelog are kept
    /// for interactive queries but never produced.
    pub(crate) fn new(info: &crate::topology::TopologyInfo) -> Self {
        ChangelogBuffer {
            unlogged: info
                .subtopologies
                .iter()
                .flat_map(|s| s.stores)
                .filter(|s| !s.logged)
                .map(|s| s.changelog_topic)
                .collect(),
            ..ChangelogBuffer::default()
        }
    }

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
        let i = match self.partitions.get(self.last) {
            Some(p) if p.partition == partition && p.topic == topic => self.last,
            _ => self.find_or_add(topic, partition),
        };
        self.last = i;
        let buffer = &mut self.partitions[i];
        let at = buffer.slot_of(key);
        let slot = &mut buffer.slots[at];
        if !slot.dirty {
            slot.dirty = true;
            buffer.dirty.push(at);
            self.dirty += 1;
        }
        slot.value.clear();
        if let Some(v) = value {
            slot.value.extend_from_slice(v);
        }
        slot.tombstone = value.is_none();
        slot.timestamp = timestamp;
    }

    #[cold]
    fn find_or_add(&mut self, topic: &'static str, partition: i32) -> usize {
        match self
            .partitions
            .iter()
            .position(|p| p.partition == partition && p.topic == topic)
        {
            Some(i) => i,
            None => {
                let produced = !self.unlogged.contains(&topic);
                self.partitions
                    .push(PartitionBuffer::new(topic, partition, produced));
                self.partitions.len() - 1
            }
        }
    }

    /// Records waiting for the commit.
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.dirty
    }

    /// Produces every waiting record (a store without a changelog's are only marked sent, for
    /// [`committed`](Self::committed)); returns how many were produced.
    pub(crate) fn flush(&mut self, producer: &StreamsProducer) -> Result<usize, KafkaError> {
        let mut sent = 0;
        for buffer in &mut self.partitions {
            let PartitionBuffer {
                topic,
                partition,
                produced,
                slots,
                dirty,
                sent: sent_list,
                ..
            } = buffer;
            // A failed send leaves the rest dirty: the interval is aborted (`discard`) anyway.
            let mut done = 0;
            let mut failure = None;
            for &at in dirty.iter() {
                let slot = &mut slots[at];
                let value = (!slot.tombstone).then_some(slot.value.as_slice());
                if *produced
                    && let Err(e) = producer.produce(
                        topic,
                        Some(*partition),
                        Some(&slot.key),
                        value,
                        Some(slot.timestamp),
                        None,
                    )
                {
                    failure = Some(e);
                    break;
                }
                slot.dirty = false;
                if !slot.sent {
                    slot.sent = true;
                    sent_list.push(at);
                }
                done += 1;
            }
            dirty.drain(..done);
            if *produced {
                sent += done;
            }
            if let Some(e) = failure {
                return Err(e);
            }
        }
        self.dirty = 0;
        Ok(sent)
    }

    /// The commit that carried the flushed records succeeded: hands each to `f` (topic,
    /// partition, key, value; `None` a tombstone) and marks it clean.
    pub(crate) fn committed(
        &mut self,
        mut f: impl FnMut(&'static str, i32, &[u8], Option<&[u8]>, i64),
    ) {
        for buffer in &mut self.partitions {
            for at in buffer.sent.drain(..) {
                let slot = &mut buffer.slots[at];
                f(
                    buffer.topic,
                    buffer.partition,
                    &slot.key,
                    (!slot.tombstone).then_some(slot.value.as_slice()),
                    slot.timestamp,
                );
                slot.sent = false;
            }
            if buffer.slots.len() > MAX_CLEAN_KEYS && buffer.dirty.is_empty() {
                buffer.slots.clear();
                buffer.index.clear();
            }
        }
    }

    /// Drops every waiting record, and every flushed one not committed (the interval is
    /// aborted).
    pub(crate) fn discard(&mut self) {
        for buffer in &mut self.partitions {
            buffer.discard();
        }
        self.dirty = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ChangelogBuffer {
        /// The slot of `key` in `topic[partition]`.
        fn slot(&self, topic: &str, partition: i32, key: &[u8]) -> Option<&Slot> {
            let p = self
                .partitions
                .iter()
                .find(|p| p.topic == topic && p.partition == partition)?;
            p.find(p.hasher.hash_one(key), key).map(|i| &p.slots[i])
        }

        /// What `flush` does to the slots, without a producer: the keys it would produce, in
        /// order.
        fn flush_without_producer(&mut self) -> Vec<Vec<u8>> {
            let mut produced = Vec::new();
            for p in &mut self.partitions {
                for at in p.dirty.drain(..) {
                    let slot = &mut p.slots[at];
                    produced.push(slot.key.clone());
                    slot.dirty = false;
                    if !slot.sent {
                        slot.sent = true;
                        p.sent.push(at);
                    }
                }
            }
            self.dirty = 0;
            produced
        }
    }

    #[test]
    fn keeps_the_last_record_per_key_and_partition() {
        let mut b = ChangelogBuffer::default();
        b.put("c", 0, b"the", Some(b"1"), 10);
        b.put("c", 0, b"the", Some(b"2"), 11);
        b.put("c", 1, b"the", Some(b"7"), 12);
        b.put("c", 0, b"a", None, 13);
        assert_eq!(b.pending(), 3);
        let slot = b.slot("c", 0, b"the").expect("slot");
        assert_eq!(
            (slot.value.as_slice(), slot.timestamp, slot.tombstone),
            (&b"2"[..], 11, false)
        );
        assert_eq!(b.slot("c", 1, b"the").expect("slot").value, b"7");
        assert!(b.slot("c", 0, b"a").expect("slot").tombstone);
        b.discard();
        assert_eq!(b.pending(), 0);
        assert!(b.partitions.iter().all(|p| p.slots.is_empty()));
    }

    #[test]
    fn a_flush_produces_only_the_keys_updated_since_the_last_in_update_order() {
        let mut b = ChangelogBuffer::default();
        for k in [&b"c"[..], b"a", b"b", b"a"] {
            b.put("t", 0, k, Some(b"1"), 1);
        }
        assert_eq!(
            b.flush_without_producer(),
            [b"c".to_vec(), b"a".to_vec(), b"b".to_vec()]
        );
        b.committed(|_, _, _, _, _| {});
        // Clean slots stay (their buffers are reused) but are not produced again.
        b.put("t", 0, b"b", Some(b"2"), 2);
        assert_eq!(b.flush_without_producer(), [b"b".to_vec()]);
        let mut handed = Vec::new();
        b.committed(|_, _, k, v, _| handed.push((k.to_vec(), v.map(<[u8]>::to_vec))));
        assert_eq!(handed, [(b"b".to_vec(), Some(b"2".to_vec()))]);
        assert_eq!(b.partitions[0].slots.len(), 3);
    }

    #[test]
    fn a_buffer_committed_after_every_flush_stays_bounded_whatever_the_keys() {
        // A state of many more keys than the bound, a new set of keys each interval (the
        // `largestate-uniform-10m` benchmark): what the buffer keeps between intervals stays
        // below MAX_CLEAN_KEYS, as long as every successful commit is reported.
        let mut b = ChangelogBuffer::default();
        let per_interval = 10_000;
        for interval in 0..30u32 {
            for i in 0..per_interval {
                let key = (interval * per_interval + i).to_be_bytes();
                b.put("c", 0, &key, Some(b"1"), 1);
            }
            b.flush_without_producer();
            b.committed(|_, _, _, _, _| {});
            let kept = b.partitions[0].slots.len();
            assert!(
                kept <= MAX_CLEAN_KEYS + per_interval as usize,
                "{kept} keys kept after interval {interval}"
            );
        }
        // Flushed but never reported committed, the same keys are all kept: what the thread did
        // when nothing was queried.
        let mut leaky = ChangelogBuffer::default();
        for k in 0..(MAX_CLEAN_KEYS as u32 + 50_000) {
            leaky.put("c", 0, &k.to_be_bytes(), Some(b"1"), 1);
            if k % 10_000 == 0 {
                leaky.flush_without_producer();
            }
        }
        leaky.flush_without_producer();
        assert_eq!(leaky.partitions[0].slots.len(), MAX_CLEAN_KEYS + 50_000);
    }

    #[test]
    fn committed_hands_over_what_was_flushed_once() {
        let mut b = ChangelogBuffer::default();
        b.put("c", 0, b"a", Some(b"1"), 10);
        b.put("c", 0, b"b", None, 11);
        b.flush_without_producer();
        let mut seen = Vec::new();
        b.committed(|t, p, k, v, _| seen.push((t, p, k.to_vec(), v.map(<[u8]>::to_vec))));
        seen.sort();
        assert_eq!(
            seen,
            [
                ("c", 0, b"a".to_vec(), Some(b"1".to_vec())),
                ("c", 0, b"b".to_vec(), None)
            ]
        );
        let mut again = 0;
        b.committed(|_, _, _, _, _| again += 1);
        assert_eq!(again, 0);
        // A sent record of an aborted commit is dropped by `discard`; the clean one stays.
        b.put("c", 0, b"a", Some(b"2"), 12);
        b.flush_without_producer();
        b.discard();
        b.committed(|_, _, _, _, _| again += 1);
        assert_eq!(again, 0);
        assert!(b.slot("c", 0, b"a").is_none());
        assert_eq!(b.slot("c", 0, b"b").map(|s| s.tombstone), Some(true));
        // The rebuilt index still finds the kept slot.
        b.put("c", 0, b"b", Some(b"3"), 13);
        assert_eq!(b.flush_without_producer(), [b"b".to_vec()]);
    }
}
