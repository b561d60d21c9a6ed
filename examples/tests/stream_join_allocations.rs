//! The join path allocates nothing of its own per record: with `I64` keys and values (whose
//! serdes and joiner allocate nothing) a task that joins 200 000 records in steady state
//! allocates only for what its window stores keep (the memory backend's ordered layout keeps a
//! stored record's key and value in one allocation) and, rarely, when a collection grows (the
//! store's B-tree splits a node). Counted with a global counting allocator, so this file holds
//! one test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use dekaf_streams::prelude::*;
use dekaf_streams::record::{Headers, InputRecord, OutgoingRecord, RecordSink, SinkError};
use dekaf_streams::store::MemoryStores;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts them.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

topology! {
    /// An inner join of two `I64` streams, 1-minute window.
    pub AllocJoin = "alloc-join" {
        let right = stream("alloc-right", I64, I64);
        stream("alloc-left", I64, I64)
            .join(right, |l, r| l + r, join_window(Duration::from_mins(1)))
            .to("alloc-out", I64, I64);
    }
}

/// Counts the records sent, allocates nothing.
#[derive(Default)]
struct Sink {
    outputs: u64,
    changelog: u64,
}

impl RecordSink for Sink {
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if r.topic == "alloc-out" {
            self.outputs += 1;
        } else {
            self.changelog += 1;
        }
        Ok(())
    }
}

fn run(task: &mut impl Task, sink: &mut Sink, from: u64, to: u64, headers: &Headers) {
    for i in from..to {
        // 10 000 keys, one record per millisecond, alternating sides: about 6 partners each.
        let key = ((i / 2) % 10_000).to_be_bytes();
        let value = i.to_be_bytes();
        let record = InputRecord {
            source: (i % 2) as usize,
            partition: 0,
            offset: i as i64,
            key: Some(&key),
            value: Some(&value),
            timestamp: i as i64,
            headers,
        };
        task.process(&record, sink).expect("process");
    }
}

#[test]
fn the_join_path_allocates_only_for_stored_records() {
    let mut stores = MemoryStores;
    let mut task = <AllocJoin as Topology>::create_task("0", 0, &mut stores).expect("task");
    assert_eq!(task.source_topics(), ["alloc-left", "alloc-right"]);
    let headers = Headers::new();
    let mut sink = Sink::default();
    // Warm up past several expiries (retention 2 min, segments of 1 min).
    run(&mut task, &mut sink, 0, 400_000, &headers);
    let (outputs, stored) = (sink.outputs, sink.changelog);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let started = std::time::Instant::now();
    run(&mut task, &mut sink, 400_000, 600_000, &headers);
    let elapsed = started.elapsed();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let (outputs, stored) = (sink.outputs - outputs, sink.changelog - stored);
    let per_record = allocations as f64 / 200_000.0;
    println!(
        "200000 records: {outputs} join results, {stored} records stored, {allocations} \
         allocations ({per_record:.3} per record), {:.2} µs per record",
        elapsed.as_secs_f64() * 1e6 / 200_000.0
    );
    assert!(outputs > 500_000, "the join found its partners: {outputs}");
    assert_eq!(stored, 200_000, "every record is stored once");
    // The memory backend allocates one entry per stored record (1.10 measured: the rest are
    // B-tree node splits). Anything of ours per record would add at least 1 more.
    assert!(
        per_record < 1.5,
        "{per_record:.3} allocations per record: the join path allocates"
    );
}
