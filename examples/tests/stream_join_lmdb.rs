//! The stream-stream join gives the same results with its stores in LMDB (a state directory)
//! as in memory: the same task code over both backends, fed one input sequence with
//! out-of-order records and several window-store expiries, and for the outer join a restore.

use dekaf_streams::record::{Headers, InputRecord, OutgoingRecord, RecordSink, SinkError};
use dekaf_streams::store::{BackendFactory, LmdbStores, MemoryStores};
use dekaf_streams::task::{Task, Topology};
use dekaf_streams_examples::stream_joins::OuterJoin;

/// A changelog record: topic, key, value.
type ChangelogRecord = (&'static str, Vec<u8>, Option<Vec<u8>>);
/// An input record: source index, key, value, timestamp.
type Input = (usize, Vec<u8>, Vec<u8>, i64);

/// Keeps the join results and the changelog records.
#[derive(Default)]
struct Collect {
    results: Vec<(Vec<u8>, Vec<u8>, i64)>,
    changelog: Vec<ChangelogRecord>,
}

impl RecordSink for Collect {
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if r.kind.is_changelog() {
            self.changelog.push((
                r.topic,
                r.key.unwrap_or_default().to_vec(),
                r.value.map(<[u8]>::to_vec),
            ));
        } else {
            self.results.push((
                r.key.unwrap_or_default().to_vec(),
                r.value.unwrap_or_default().to_vec(),
                r.timestamp,
            ));
        }
        Ok(())
    }
}

/// 3 000 records on both sides over 300 s of event time, 20 keys, some out of order.
fn input() -> Vec<Input> {
    (0..3_000u64)
        .map(|i| {
            let mixed = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            let late = if mixed % 10 == 0 {
                (mixed % 30) as i64
            } else {
                0
            };
            (
                (mixed % 2) as usize,
                format!("k{}", mixed % 20).into_bytes(),
                format!("v{i}").into_bytes(),
                (i as i64) * 100 - late,
            )
        })
        .collect()
}

fn run<F: BackendFactory>(stores: &mut F) -> Collect {
    let mut task = <OuterJoin as Topology>::create_task("0", 0, stores).expect("task");
    let headers = Headers::new();
    let mut sink = Collect::default();
    let records = input();
    let (first, second) = records.split_at(1_800);
    let feed = |task: &mut <OuterJoin as Topology>::Task<F::Backend>,
                sink: &mut Collect,
                part: &[Input]| {
        for (n, (source, key, value, ts)) in part.iter().enumerate() {
            let record = InputRecord {
                source: *source,
                partition: 0,
                offset: n as i64,
                key: Some(key),
                value: Some(value),
                timestamp: *ts,
                headers: &headers,
            };
            task.process(&record, sink).expect("process");
        }
    };
    feed(&mut task, &mut sink, first);
    // Drop the state and rebuild it from the changelog, as a restarted task does.
    task.clear().expect("clear");
    for (topic, key, value) in sink.changelog.clone() {
        // A join window store's key carries the record's time: the timestamp is not read.
        task.restore(topic, &key, value.as_deref(), 0)
            .expect("restore");
    }
    feed(&mut task, &mut sink, second);
    sink
}

#[test]
fn lmdb_and_memory_stores_join_alike() {
    let memory = run(&mut MemoryStores);
    let dir = std::env::temp_dir().join(format!("dekaf-join-lmdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let lmdb = run(&mut LmdbStores::new(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        memory.results.len() > 1_000,
        "{} results",
        memory.results.len()
    );
    assert!(
        memory.results.iter().any(|r| r.1.ends_with(b"+null")),
        "unmatched records came out"
    );
    assert_eq!(memory.results.len(), lmdb.results.len());
    assert!(
        memory.results == lmdb.results,
        "LMDB results differ from memory's"
    );
    assert!(
        memory.changelog == lmdb.changelog,
        "LMDB changelog differs from memory's"
    );
}
