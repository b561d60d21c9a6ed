//! Timestamp order across a task's input partitions, as Kafka Streams' `PartitionGroup` keeps it.
//!
//! A task that reads several partitions (a stream joined with a table, two joined streams, a
//! merge, a foreign-key join's two sides) must see their records in timestamp order, or its
//! results depend on which partition the consumer happened to fetch first: a backlog of clicks
//! processed before the user table they join with finds no users. Kafka Streams buffers each
//! partition's fetched records (`RecordQueue`), always processes the head with the smallest
//! timestamp, and with the default `max.task.idle.ms = 0` processes only while every partition
//! has a record buffered or is known to be caught up (its fetched lag is 0); a partition that
//! lags holds the task back until its records arrive (`PartitionGroup.readyToProcess`).
//!
//! [`RecordQueues`] is that buffer for one task: one queue per source, records copied into
//! buffers that are reused (no allocation once the queues have grown), and [`RecordQueues::next`]
//! choosing the head to process. Whether an empty source is caught up is the caller's question
//! (the consumer's position against the partition's high watermark). As Kafka Streams pauses a
//! partition whose queue is full (`buffered.records.per.partition`), a source whose queue holds
//! [`MAX_BUFFERED`] records is paused in the consumer ([`RecordQueues::to_pause`]) and resumed
//! once half of it is processed ([`RecordQueues::to_resume`]), so memory stays bounded; a full
//! queue never jumps ahead of a source that may still have earlier records. (It once did, and a
//! backlog of orders fetched before its price table's partition joined a few orders with no
//! price.)
//!
//! Tasks with a single source never buffer: their records are processed as they are polled.

use std::collections::VecDeque;

use crate::record::{Headers, InputRecord};

/// The records one source's queue holds before its partition is paused.
pub(crate) const MAX_BUFFERED: usize = 10_000;

/// A fetched record waiting for its turn, owning copies of its bytes.
#[derive(Debug, Default)]
pub(crate) struct BufferedRecord {
    offset: i64,
    timestamp: i64,
    key: ReusedBytes,
    value: ReusedBytes,
    headers: Headers,
}

impl BufferedRecord {
    /// The record as a task reads it, from source `source` of `partition`.
    pub(crate) fn input(&self, source: usize, partition: i32) -> InputRecord<'_> {
        InputRecord {
            source,
            partition,
            offset: self.offset,
            key: self.key.get(),
            value: self.value.get(),
            timestamp: self.timestamp,
            headers: &self.headers,
        }
    }

    /// Its offset.
    #[cfg(test)]
    pub(crate) fn offset(&self) -> i64 {
        self.offset
    }
}

/// Optional bytes (a key or value; `None` is a null) in a buffer that outlives a null, so the
/// next record reuses it.
#[derive(Debug, Default)]
struct ReusedBytes {
    buf: Vec<u8>,
    present: bool,
}

impl ReusedBytes {
    fn set(&mut self, bytes: Option<&[u8]>) {
        self.buf.clear();
        self.present = bytes.is_some();
        if let Some(bytes) = bytes {
            self.buf.extend_from_slice(bytes);
        }
    }

    fn get(&self) -> Option<&[u8]> {
        self.present.then_some(self.buf.as_slice())
    }
}

/// One task's fetched records, a queue per source, handed out in timestamp order.
#[derive(Debug)]
pub(crate) struct RecordQueues {
    queues: Vec<VecDeque<BufferedRecord>>,
    /// Records already processed, kept for their buffers.
    spare: Vec<BufferedRecord>,
    /// Per source: whether its partition is paused in the consumer (its queue was full).
    paused: Vec<bool>,
}

impl RecordQueues {
    /// Queues for a task with `sources` sources.
    pub(crate) fn new(sources: usize) -> Self {
        RecordQueues {
            queues: (0..sources).map(|_| VecDeque::new()).collect(),
            spare: Vec::new(),
            paused: vec![false; sources],
        }
    }

    /// Appends a fetched record of source `source`; `headers` are its headers in order.
    pub(crate) fn push<'h>(
        &mut self,
        source: usize,
        offset: i64,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: impl Iterator<Item = (&'h str, Option<&'h [u8]>)>,
    ) {
        let mut record = self.spare.pop().unwrap_or_default();
        record.offset = offset;
        record.timestamp = timestamp;
        record.key.set(key);
        record.value.set(value);
        record.headers.refill(headers);
        self.queues[source].push_back(record);
    }

    /// The source whose head comes next, when the task may process now: the head with the
    /// smallest timestamp (the lower source index on a tie, then arrival order within a
    /// source), provided every empty source is `caught_up`. `None`: nothing buffered, or an
    /// empty source may still have earlier records.
    pub(crate) fn next(&self, mut caught_up: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut best: Option<(i64, usize)> = None;
        for (source, queue) in self.queues.iter().enumerate() {
            match queue.front() {
                Some(head) if best.is_none_or(|(t, _)| head.timestamp < t) => {
                    best = Some((head.timestamp, source));
                }
                Some(_) => {}
                None if !caught_up(source) => return None,
                None => {}
            }
        }
        best.map(|(_, source)| source)
    }

    /// The sources whose queue is full and whose partition is not paused yet: pause them, then
    /// [`RecordQueues::set_paused`].
    pub(crate) fn to_pause(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.queues.len()).filter(|&s| !self.paused[s] && self.queues[s].len() >= MAX_BUFFERED)
    }

    /// The paused sources whose queue is down to half: resume them, then
    /// [`RecordQueues::set_paused`].
    pub(crate) fn to_resume(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.queues.len())
            .filter(|&s| self.paused[s] && self.queues[s].len() <= MAX_BUFFERED / 2)
    }

    /// Records whether `source`'s partition is paused in the consumer.
    pub(crate) fn set_paused(&mut self, source: usize, paused: bool) {
        self.paused[source] = paused;
    }

    /// Whether `source`'s partition is paused.
    pub(crate) fn is_paused(&self, source: usize) -> bool {
        self.paused[source]
    }

    /// Takes the head of `source`'s queue; give it back with [`RecordQueues::recycle`] once
    /// processed.
    pub(crate) fn pop(&mut self, source: usize) -> Option<BufferedRecord> {
        self.queues[source].pop_front()
    }

    /// Keeps a processed record's buffers for the next one.
    pub(crate) fn recycle(&mut self, record: BufferedRecord) {
        self.spare.push(record);
    }

    /// Whether `source` has records buffered: the consumer's position is then past records
    /// the task has not processed.
    pub(crate) fn holds(&self, source: usize) -> bool {
        !self.queues[source].is_empty()
    }

    /// Whether nothing is buffered.
    pub(crate) fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    /// Drops every buffered record (the consumer is moved back to the task's positions, and
    /// its partitions resumed).
    pub(crate) fn clear(&mut self) {
        for queue in &mut self.queues {
            self.spare.extend(queue.drain(..));
        }
        self.paused.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(q: &mut RecordQueues, source: usize, offset: i64, ts: i64) {
        q.push(
            source,
            offset,
            ts,
            Some(b"k"),
            Some(b"v"),
            std::iter::empty(),
        );
    }

    /// Processes everything `next` allows, returning (source, offset) in processing order.
    fn drain(q: &mut RecordQueues, caught_up: impl Fn(usize) -> bool) -> Vec<(usize, i64)> {
        let mut out = Vec::new();
        while let Some(source) = q.next(&caught_up) {
            let record = q.pop(source).expect("a head");
            out.push((source, record.offset()));
            q.recycle(record);
        }
        out
    }

    #[test]
    fn the_smallest_timestamp_goes_first_across_sources() {
        let mut q = RecordQueues::new(2);
        // The stream's records were fetched before the table's, with later timestamps.
        push(&mut q, 0, 0, 100);
        push(&mut q, 0, 1, 300);
        push(&mut q, 1, 0, 50);
        push(&mut q, 1, 1, 200);
        assert_eq!(
            drain(&mut q, |_| true),
            [(1, 0), (0, 0), (1, 1), (0, 1)],
            "in timestamp order"
        );
        assert!(q.is_empty());
    }

    #[test]
    fn an_empty_source_that_may_lag_holds_the_task_back() {
        let mut q = RecordQueues::new(2);
        push(&mut q, 0, 0, 100);
        assert_eq!(
            q.next(|_| false),
            None,
            "the table may still have earlier records"
        );
        assert!(q.holds(0));
        // Its records arrive: the earlier one goes first.
        push(&mut q, 1, 0, 10);
        assert_eq!(drain(&mut q, |_| false), [(1, 0)]);
        // The table is empty again and caught up: the stream goes on.
        assert_eq!(drain(&mut q, |source| source == 1), [(0, 0)]);
    }

    /// The versioned join bench lost 2 of 100,000 outputs once (run 20261207T161934, exactly
    /// once, run 2): a stream's queue that reached the bound while its table's partition had
    /// not been fetched yet was processed anyway, so a few orders found no price. A full queue
    /// now waits too; its partition is paused until the queue drains.
    #[test]
    fn a_full_queue_waits_for_a_lagging_source_and_its_partition_pauses() {
        let mut q = RecordQueues::new(2);
        for i in 0..MAX_BUFFERED as i64 {
            push(&mut q, 0, i, 1_000 + i);
        }
        assert_eq!(
            q.next(|_| false),
            None,
            "the table may still have earlier records"
        );
        assert_eq!(q.to_pause().collect::<Vec<_>>(), [0]);
        q.set_paused(0, true);
        assert_eq!(q.to_pause().count(), 0, "paused once");
        // The table's records arrive and go first; then the stream's, as the table is caught up.
        push(&mut q, 1, 0, 10);
        let order = drain(&mut q, |source| source == 1);
        assert_eq!(order.first(), Some(&(1, 0)));
        assert_eq!(order.len(), MAX_BUFFERED + 1);
        assert_eq!(
            q.to_resume().collect::<Vec<_>>(),
            [0],
            "drained: fetch again"
        );
        q.set_paused(0, false);
        assert_eq!(q.to_resume().count(), 0);
    }

    #[test]
    fn ties_go_to_the_lower_source_and_arrival_order_is_kept() {
        let mut q = RecordQueues::new(2);
        push(&mut q, 1, 0, 5);
        push(&mut q, 0, 0, 5);
        push(&mut q, 0, 1, 5);
        push(&mut q, 1, 1, 5);
        assert_eq!(drain(&mut q, |_| true), [(0, 0), (0, 1), (1, 0), (1, 1)]);
    }

    #[test]
    fn buffered_records_keep_their_bytes_and_null_parts() {
        let mut q = RecordQueues::new(2);
        q.push(
            1,
            7,
            42,
            None,
            Some(b"value"),
            [("h", Some(&b"x"[..])), ("n", None)].into_iter(),
        );
        let source = q.next(|_| true).expect("ready");
        let record = q.pop(source).expect("head");
        let input = record.input(source, 3);
        assert_eq!((input.source, input.partition, input.offset), (1, 3, 7));
        assert_eq!(input.key, None);
        assert_eq!(input.value, Some(&b"value"[..]));
        assert_eq!(input.timestamp, 42);
        let headers: Vec<_> = input.headers.iter().collect();
        assert_eq!(headers, [("h", Some(&b"x"[..])), ("n", None)]);
        q.recycle(record);
        // A reused buffer takes the next record's bytes, not the old ones.
        q.push(0, 8, 1, Some(b"k"), None, std::iter::empty());
        let record = q.pop(0).expect("head");
        let input = record.input(0, 3);
        assert_eq!((input.key, input.value), (Some(&b"k"[..]), None));
        assert!(input.headers.is_empty());
    }

    #[test]
    fn clear_drops_what_is_buffered() {
        let mut q = RecordQueues::new(2);
        push(&mut q, 0, 0, 1);
        push(&mut q, 1, 0, 1);
        q.clear();
        assert!(q.is_empty());
        assert_eq!(q.next(|_| true), None);
    }
}
