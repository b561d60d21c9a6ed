//! An aborted commit interval on LMDB stores: the task drops the interval's writes and record
//! cache and is exactly as of its last committed flush, without a rebuild; redoing the interval
//! gives the same results as doing it once. Stores in memory cannot drop an interval (the
//! runtime clears and restores them).

use dekaf_streams::record::{Headers, InputRecord, OutgoingRecord, RecordSink, SinkError};
use dekaf_streams::store::{LmdbStores, MemoryStores, StoreBackend};
use dekaf_streams::task::{Task, Topology};
use dekaf_streams_examples::page_views::PageViews;
use dekaf_streams_examples::word_count::WordCount;

/// Keeps the output records (key, value) and counts the changelog records.
#[derive(Default)]
struct Collect {
    output: Vec<(Vec<u8>, Vec<u8>)>,
    changelog: usize,
}

impl RecordSink for Collect {
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if r.kind.is_changelog() {
            self.changelog += 1;
        } else {
            self.output.push((
                r.key.unwrap_or_default().to_vec(),
                r.value.unwrap_or_default().to_vec(),
            ));
        }
        Ok(())
    }
}

/// Feeds `(key, value, timestamp)` records to source 0 of `task`.
fn feed<K: Task>(task: &mut K, sink: &mut Collect, records: &[(String, String, i64)]) {
    let headers = Headers::new();
    for (n, (key, value, ts)) in records.iter().enumerate() {
        let record = InputRecord {
            source: 0,
            partition: 0,
            offset: n as i64,
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            timestamp: *ts,
            headers: &headers,
        };
        task.process(&record, sink).expect("process");
    }
}

/// What every store of `task` holds, in order.
fn contents<K: Task>(task: &mut K) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut all = Vec::new();
    task.for_each_store(|_, store| {
        let entries = store
            .range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)?
            .map(|e| e.map(|(k, v)| (k.to_vec(), v.to_vec())))
            .collect::<Result<Vec<_>, _>>()?;
        all.push(entries);
        Ok::<(), dekaf_streams::store::StoreError>(())
    })
    .expect("read stores");
    all
}

/// A commit: every store flushed with a changelog offset.
fn commit<K: Task>(task: &mut K, offset: i64) {
    task.for_each_store(|_, store| store.flush_at(offset))
        .expect("flush_at");
}

fn words(range: std::ops::Range<u32>) -> Vec<(String, String, i64)> {
    range
        .map(|i| {
            let w = format!("w{}", i % 50);
            (w.clone(), w, i64::from(i))
        })
        .collect()
}

#[test]
fn an_aborted_interval_on_lmdb_drops_its_writes_and_cache_without_a_rebuild() {
    let dir = std::env::temp_dir().join(format!("dekaf-abort-lmdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut stores = LmdbStores::new(&dir);
    // The counting subtopology of word count, with a record cache.
    let mut task = <WordCount as Topology>::create_task("1", 0, &mut stores).expect("task");
    task.set_cache_max_bytes(1 << 20);
    let mut sink = Collect::default();
    feed(&mut task, &mut sink, &words(0..1_000));
    task.flush_cache(&mut sink).expect("flush cache");
    commit(&mut task, 1_000);
    let committed = contents(&mut task);

    // An interval that is aborted: store writes and dirty cache keys.
    let mut aborted = Collect::default();
    feed(&mut task, &mut aborted, &words(1_000..1_700));
    assert!(task.cache_bytes() > 0, "the interval left dirty keys");
    assert_ne!(contents(&mut task), committed);
    assert!(
        task.discard_uncommitted().expect("discard"),
        "nothing of the interval reached LMDB: the task keeps its stores"
    );
    assert_eq!(task.cache_bytes(), 0, "the dirty keys are dropped");
    assert_eq!(contents(&mut task), committed);
    let mut redone = Collect::default();
    task.flush_cache(&mut redone).expect("flush cache");
    assert!(
        redone.output.is_empty(),
        "nothing of the aborted interval is forwarded"
    );

    // Redoing the interval counts every word once.
    feed(&mut task, &mut redone, &words(1_000..1_700));
    task.flush_cache(&mut redone).expect("flush cache");
    commit(&mut task, 2_000);
    let store = task.store("counts").expect("store");
    let count = |w: &str| {
        store
            .get(w.as_bytes())
            .expect("get")
            // Kafka Streams' timestamped entry: the aggregate's timestamp, then the count.
            .map(|v| i64::from_be_bytes(v[8..].try_into().expect("8 + 8 bytes")))
    };
    assert_eq!(
        count("w0"),
        Some(34),
        "1 700 words over 50 keys: w0 seen 34 times"
    );
    assert_eq!(count("w49"), Some(34));
    drop(task);

    // Reopened (a restart), the stores hold what the last commit flushed, with its offset.
    let mut task = <WordCount as Topology>::create_task("1", 0, &mut stores).expect("reopen");
    let mut offsets = Vec::new();
    task.for_each_store(|_, s| {
        offsets.push(s.changelog_offset());
        Ok::<(), ()>(())
    })
    .expect("offsets");
    assert_eq!(offsets, [Some(2_000)]);
    assert_eq!(
        task.store("counts")
            .expect("store")
            .get(b"w0")
            .expect("get")
            .map(<[u8]>::len),
        Some(16),
        "the aggregate's timestamp, then the count"
    );
    drop(task);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_windowed_task_rebuilds_its_time_index_after_dropping_an_interval() {
    let dir = std::env::temp_dir().join(format!("dekaf-abort-window-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut stores = LmdbStores::new(&dir);
    // The windowed count of page views (subtopology 1: reads the repartitioned pages).
    let mut task = <PageViews as Topology>::create_task("1", 0, &mut stores).expect("task");
    let views = |from: i64, to: i64| -> Vec<(String, String, i64)> {
        (from..to)
            .map(|i| (format!("p{}", i % 7), format!("p{}", i % 7), i * 1_000))
            .collect()
    };
    let mut sink = Collect::default();
    feed(&mut task, &mut sink, &views(0, 120));
    commit(&mut task, 10);
    let committed = contents(&mut task);
    // Windows far ahead in the aborted interval: its purge must not be remembered.
    feed(&mut task, &mut Collect::default(), &views(600, 700));
    assert!(task.discard_uncommitted().expect("discard"));
    assert_eq!(contents(&mut task), committed);
    // Processing goes on from the committed state: a record of an open window still counts.
    task.set_stream_time(119_000);
    let mut after = Collect::default();
    feed(&mut task, &mut after, &views(119, 120));
    assert!(
        !after.output.is_empty(),
        "the window of the committed state is still open after the discard"
    );
    drop(task);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stores_in_memory_cannot_drop_an_interval() {
    let mut task = <WordCount as Topology>::create_task("1", 0, &mut MemoryStores).expect("task");
    feed(&mut task, &mut Collect::default(), &words(0..10));
    assert!(!task.discard_uncommitted().expect("discard"));
}

#[test]
fn a_task_with_a_stream_stream_join_is_always_restored_from_the_start() {
    let mut join = <dekaf_streams_examples::stream_joins::OuterJoin as Topology>::create_task(
        "0",
        0,
        &mut MemoryStores,
    )
    .expect("task");
    assert!(join.needs_full_restore());
    assert!(!join.discard_uncommitted().expect("discard"));
    let count = <WordCount as Topology>::create_task("1", 0, &mut MemoryStores).expect("task");
    assert!(!count.needs_full_restore());
}
