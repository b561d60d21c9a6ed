//! The local views over published snapshots, without a broker: what a read sees, and the
//! errors that stand for "not here" and "not yet". The topology and helpers are shared with
//! the query server's tests (`http::tests`).

use std::ops::Bound;
use std::sync::Arc;

use super::registry::{Publisher, Registry};
use super::*;
use crate::serdes::Windowed;
use crate::serdes::{I64, Serde, Utf8};
use crate::store::{MemoryBackend, StoreBackend};
use crate::table::global::GlobalStores;
use crate::task::{SessionStoreRef, StoreRef, Task, TaskError, WindowStoreRef};
use crate::topology::{StoreInfo, StoreKind, SubtopologyInfo, TopologyInfo};

pub(crate) static STORES: [StoreInfo; 5] = [
    StoreInfo {
        name: "counts",
        changelog_topic: "app-counts-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::KeyValue,
    },
    StoreInfo {
        name: "views",
        changelog_topic: "app-views-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::Window {
            size_ms: 60_000,
            advance_ms: 60_000,
            grace_ms: 0,
            timestamped: false,
        },
    },
    StoreInfo {
        name: "window-counts",
        changelog_topic: "app-window-counts-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::Window {
            size_ms: 60_000,
            advance_ms: 60_000,
            grace_ms: 0,
            timestamped: true,
        },
    },
    StoreInfo {
        name: "sessions",
        changelog_topic: "app-sessions-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::Session {
            gap_ms: 10,
            grace_ms: 0,
        },
    },
    // A versioned table's store.
    StoreInfo {
        name: "rates",
        changelog_topic: "app-rates-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::TimestampedKeyValue,
    },
];

pub(crate) static SUBS: [SubtopologyInfo; 1] = [SubtopologyInfo {
    id: "0",
    source_topics: &["words"],
    repartition_source_topics: &[],
    repartition_sink_topics: &[],
    state_changelog_topics: &[],
    sink_topics: &[],
    copartition_groups: &[],
    stores: &STORES,
}];

pub(crate) static INFO: TopologyInfo = TopologyInfo {
    application_id: "app",
    subtopologies: &SUBS,
};

/// A stand-in topology type for the handle's type parameter.
pub(crate) struct App;

impl crate::task::Topology for App {
    const APPLICATION_ID: &'static str = "app";
    const INFO: &'static TopologyInfo = &INFO;
    const DESCRIPTION: &'static str = "";
    type Task<B: StoreBackend> = NoTask<B>;
    fn create_task<F: crate::store::BackendFactory>(
        subtopology: &str,
        _: i32,
        _: &mut F,
    ) -> Result<NoTask<F::Backend>, TaskError> {
        Err(TaskError::UnknownSubtopology(subtopology.to_owned()))
    }
}

/// Never made: `App` has no tasks of its own.
pub(crate) struct NoTask<B>(std::marker::PhantomData<B>, std::convert::Infallible);

impl<B: StoreBackend> Task for NoTask<B> {
    type Backend = B;
    fn subtopology(&self) -> &'static SubtopologyInfo {
        match self.1 {}
    }
    fn partition(&self) -> i32 {
        match self.1 {}
    }
    fn source_topics(&self) -> &'static [&'static str] {
        match self.1 {}
    }
    fn process<S: crate::task::RecordSink>(
        &mut self,
        _: &crate::task::InputRecord<'_>,
        _: &mut S,
    ) -> Result<(), TaskError> {
        match self.1 {}
    }
    fn restore(&mut self, _: &str, _: &[u8], _: Option<&[u8]>, _: i64) -> Result<(), TaskError> {
        match self.1 {}
    }
    fn clear(&mut self) -> Result<(), TaskError> {
        match self.1 {}
    }
    fn stream_time(&self) -> i64 {
        match self.1 {}
    }
    fn set_stream_time(&mut self, _: i64) {
        match self.1 {}
    }
    fn late_records_dropped(&self) -> u64 {
        match self.1 {}
    }
    fn records_skipped(&self) -> u64 {
        match self.1 {}
    }
    fn store(&self, _: &str) -> Option<&B> {
        match self.1 {}
    }
    fn for_each_store<E>(
        &mut self,
        _: impl FnMut(&'static StoreInfo, &mut B) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.1 {}
    }
}

pub(crate) const COUNTS: StoreRef<String, i64> = StoreRef::new::<Utf8, I64>("counts");
const VIEWS: WindowStoreRef<String, i64> = WindowStoreRef::new::<Utf8, I64>("views", 60_000);
pub(crate) const SESSIONS: SessionStoreRef<String, i64> =
    SessionStoreRef::new::<Utf8, I64>("sessions");
pub(crate) const RATES: StoreRef<String, i64> = StoreRef::timestamped::<Utf8, I64>("rates");
pub(crate) const PARTITIONS: i32 = 4;

pub(crate) fn partition(key: &str) -> i32 {
    view::partition_of(key.as_bytes(), PARTITIONS)
}

pub(crate) fn i64_bytes(v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    I64::serialize(&v, &mut out).expect("i64");
    out
}

/// Words that fall in distinct partitions: (word, partition).
pub(crate) fn words_in_two_partitions() -> ((String, i32), (String, i32)) {
    let first = "a".to_owned();
    let p = partition(&first);
    let second = (0..100)
        .map(|i| format!("w{i}"))
        .find(|w| partition(w) != p)
        .expect("a word in another partition");
    let q = partition(&second);
    ((first, p), (second, q))
}

pub(crate) fn setup() -> (Queries<App>, Publisher) {
    let registry = Arc::new(Registry::new(&INFO, None, GlobalStores::default()));
    (
        Queries::new(Arc::clone(&registry)),
        Publisher::new(registry, 0),
    )
}

#[test]
fn stores_are_published_only_once_a_query_handle_exists() {
    let registry = Arc::new(Registry::new(&INFO, None, GlobalStores::default()));
    assert!(
        !registry.is_queried(),
        "an application without a query handle keeps no snapshots"
    );
    let queries: Queries<App> = Queries::new(Arc::clone(&registry));
    assert!(registry.is_queried(), "a query handle turns publishing on");
    // Clones share the registry, which stays marked.
    drop(queries.clone());
    drop(queries);
    assert!(registry.is_queried());
}

#[test]
fn partition_is_the_producers_murmur2_partition() {
    // Kafka's UtilsTest.testMurmur2 vectors: murmur2("21") = -973932308, ("foobar") = -790332482.
    assert_eq!(
        view::partition_of(b"21", 1000),
        (-973_932_308i32 & 0x7fff_ffff) % 1000
    );
    assert_eq!(
        view::partition_of(b"foobar", 7),
        (-790_332_482i32 & 0x7fff_ffff) % 7
    );
}

#[test]
fn reads_wait_for_the_first_assignment_and_name_unknown_stores() {
    let (queries, _) = setup();
    let counts = queries.store(COUNTS).expect("a key-value store");
    assert!(matches!(
        counts.get(&"a".to_owned()),
        Err(QueryError::NotRunning { .. })
    ));
    let wrong = StoreRef::<String, i64>::new::<Utf8, I64>("nope");
    assert!(matches!(
        queries.store(wrong),
        Err(QueryError::UnknownStore { .. })
    ));
    // A window store is not a key-value store.
    let as_kv = StoreRef::<String, i64>::new::<Utf8, I64>("views");
    let err = queries.store(as_kv).expect_err("a window store");
    assert!(!err.is_retriable());
}

#[test]
fn a_read_sees_the_last_commit_and_refuses_keys_it_does_not_host() {
    let (queries, mut publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let ((a, pa), (b, pb)) = words_in_two_partitions();
    let counts = queries.store(COUNTS).expect("store");
    // The key's task is elsewhere: never a `None` that looks like "no such key".
    assert!(matches!(
        counts.get(&a),
        Err(QueryError::NotLocal { partition, .. }) if partition == pa
    ));
    publisher.restoring(&SUBS[0], pa);
    assert!(matches!(counts.get(&a), Err(QueryError::Restoring { .. })));
    assert!(matches!(counts.all(), Err(QueryError::Restoring { .. })));

    let mut backend = MemoryBackend::new();
    backend.put(a.as_bytes(), &i64_bytes(3)).expect("put");
    publisher
        .publish_whole(&STORES[0], pa, &backend, None)
        .expect("publish");
    assert_eq!(counts.get(&a).expect("hosted"), Some(3));
    assert!(matches!(counts.get(&b), Err(QueryError::NotLocal { .. })));

    // Another key of the same task.
    let zz = (0..1000)
        .map(|i| format!("z{i}"))
        .find(|w| partition(w) == pa)
        .expect("a key of the same partition");
    // A commit's changes are invisible until the commit is published...
    let before = counts.all().expect("all");
    publisher.committed(
        "app-counts-changelog",
        pa,
        a.as_bytes(),
        Some(&i64_bytes(4)),
        0,
    );
    publisher.committed(
        "app-counts-changelog",
        pa,
        zz.as_bytes(),
        Some(&i64_bytes(1)),
        0,
    );
    // (records of a changelog partition not hosted here are ignored)
    publisher.committed(
        "app-counts-changelog",
        pb,
        b.as_bytes(),
        Some(&i64_bytes(9)),
        0,
    );
    assert_eq!(counts.get(&a).expect("hosted"), Some(3));
    publisher.publish();
    // ... then visible at once; an iterator made before keeps its snapshot.
    assert_eq!(counts.get(&a).expect("hosted"), Some(4));
    assert_eq!(counts.get(&zz).expect("hosted"), Some(1));
    let old: Vec<(String, i64)> = before.map(|e| e.expect("entry")).collect();
    assert_eq!(old, [(a.clone(), 3)]);
    assert_eq!(counts.approximate_len().expect("len"), 2);
    assert!(matches!(counts.get(&b), Err(QueryError::NotLocal { .. })));

    // A tombstone removes the key.
    publisher.committed("app-counts-changelog", pa, zz.as_bytes(), None, 0);
    publisher.publish();
    assert_eq!(counts.get(&zz).expect("hosted"), None);

    // The task moves away: its keys are refused again.
    publisher.closed(&SUBS[0], pa);
    assert!(matches!(counts.get(&a), Err(QueryError::NotLocal { .. })));
    // A commit published after the close does not bring it back.
    publisher.committed(
        "app-counts-changelog",
        pa,
        a.as_bytes(),
        Some(&i64_bytes(5)),
        0,
    );
    publisher.publish();
    assert!(matches!(counts.get(&a), Err(QueryError::NotLocal { .. })));
}

#[test]
fn ranges_iterate_every_local_partition_in_key_order_lazily() {
    let (queries, publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let counts = queries.store(COUNTS).expect("store");
    // 300 keys over all partitions, more than one batch per partition.
    let mut backends: Vec<MemoryBackend> = (0..PARTITIONS).map(|_| MemoryBackend::new()).collect();
    for i in 0..300i64 {
        let key = format!("k{i:03}");
        let p = partition(&key) as usize;
        backends[p].put(key.as_bytes(), &i64_bytes(i)).expect("put");
    }
    for (p, backend) in backends.iter().enumerate() {
        publisher
            .publish_whole(&STORES[0], p as i32, backend, None)
            .expect("publish");
    }
    assert_eq!(counts.approximate_len().expect("len"), 300);
    let all: Vec<(String, i64)> = counts
        .all()
        .expect("all")
        .map(|e| e.expect("entry"))
        .collect();
    assert_eq!(all.len(), 300);
    // Partition after partition, each in key order.
    let mut expected: Vec<(usize, String, i64)> = (0..300i64)
        .map(|i| {
            let key = format!("k{i:03}");
            (partition(&key) as usize, key, i)
        })
        .collect();
    expected.sort();
    assert_eq!(
        all,
        expected
            .into_iter()
            .map(|(_, k, v)| (k, v))
            .collect::<Vec<_>>()
    );
    let from = "k100".to_owned();
    let to = "k199".to_owned();
    let mut ranged: Vec<i64> = counts
        .range(Bound::Included(&from), Bound::Excluded(&to))
        .expect("range")
        .map(|e| e.expect("entry").1)
        .collect();
    ranged.sort_unstable();
    assert_eq!(ranged, (100..199).collect::<Vec<_>>());
    assert_eq!(
        counts
            .range(Bound::Included(&to), Bound::Included(&from))
            .expect("range")
            .count(),
        0
    );
    // Lazy: taking two entries does not walk the rest.
    assert_eq!(counts.all().expect("all").take(2).count(), 2);
}

#[test]
fn window_fetch_returns_the_keys_windows_in_the_time_range_only() {
    let (queries, publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let views = queries.window_store(VIEWS).expect("window store");
    let key = "a".to_owned();
    let p = partition(&key);
    let mut backend = MemoryBackend::new();
    for (k, start, v) in [
        ("a", 0, 1),
        ("a", 60_000, 2),
        ("a", 120_000, 3),
        ("ab", 60_000, 9),
    ] {
        let mut bytes = k.as_bytes().to_vec();
        crate::store::window_key(&mut bytes, start);
        backend.put(&bytes, &i64_bytes(v)).expect("put");
    }
    // "ab"'s windows sit in "a"'s byte range only if their bytes compare between; put one
    // there on purpose: key "a" followed by bytes that look like a start.
    let mut tricky = b"a".to_vec();
    tricky.extend_from_slice(&60_000i64.to_be_bytes());
    tricky.push(b'x');
    crate::store::window_key(&mut tricky, 0);
    backend.put(&tricky, &i64_bytes(42)).expect("put");
    publisher
        .publish_whole(&STORES[1], p, &backend, None)
        .expect("publish");
    let got: Vec<(i64, i64)> = views
        .fetch(&key, 0, 60_000)
        .expect("fetch")
        .map(|e| e.expect("window"))
        .collect();
    assert_eq!(got, [(0, 1), (60_000, 2)]);
    assert_eq!(
        views.fetch(&key, 60_001, 200_000).expect("fetch").count(),
        1
    );
    assert_eq!(views.fetch(&key, 10, 5).expect("fetch").count(), 0);
}

#[test]
fn a_timestamped_window_stores_committed_records_are_read_past_their_timestamp() {
    // A time-window aggregation's store holds timestamp ‖ value, its changelog the value alone:
    // the published copy must hold what the store holds, or the handle (which skips 8 bytes)
    // reads the value's tail.
    const WINDOW_COUNTS: WindowStoreRef<String, i64> =
        WindowStoreRef::timestamped::<Utf8, I64>("window-counts", 60_000);
    let (queries, mut publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let counts = queries.window_store(WINDOW_COUNTS).expect("window store");
    let key = "a".to_owned();
    let p = partition(&key);
    publisher
        .publish_whole(&STORES[2], p, &MemoryBackend::new(), None)
        .expect("publish");
    for (start, count, timestamp) in [(0, 3, 59_000), (60_000, 5, 61_500)] {
        let mut windowed = key.as_bytes().to_vec();
        crate::store::window_key(&mut windowed, start);
        let value = i64_bytes(count);
        publisher.committed(
            STORES[2].changelog_topic,
            p,
            &windowed,
            Some(&value),
            timestamp,
        );
    }
    publisher.publish();
    let got: Vec<(i64, i64)> = counts
        .fetch(&key, 0, 120_000)
        .expect("fetch")
        .map(|e| e.expect("window"))
        .collect();
    assert_eq!(got, [(0, 3), (60_000, 5)]);
}

#[test]
fn metadata_names_the_owner_of_the_keys_partition() {
    use crate::protocol::Endpoint;
    use crate::protocol::heartbeat::{EndpointToPartitions, TopicPartitions};
    let (queries, publisher) = setup();
    assert!(matches!(
        queries.metadata_for_key(COUNTS, &"a".to_owned()),
        Err(QueryError::NotRunning { .. })
    ));
    publisher.registry().set_partitions("0", PARTITIONS);
    let key = "a".to_owned();
    let p = partition(&key);
    assert!(matches!(
        queries.metadata_for_key(COUNTS, &key),
        Err(QueryError::NotAvailable { partition, .. }) if partition == p
    ));
    let host = |port: u16, active: Vec<i32>, standby: Vec<i32>| EndpointToPartitions {
        user_endpoint: Endpoint {
            host: "127.0.0.1".into(),
            port,
        },
        active_partitions: vec![TopicPartitions {
            topic: "words".into(),
            partitions: active,
        }],
        standby_partitions: vec![TopicPartitions {
            topic: "words".into(),
            partitions: standby,
        }],
    };
    let others: Vec<i32> = (0..PARTITIONS).filter(|q| *q != p).collect();
    publisher.registry().set_endpoints(
        2,
        vec![host(1, others.clone(), vec![p]), host(2, vec![p], others)],
    );
    let meta = queries.metadata_for_key(COUNTS, &key).expect("an owner");
    assert_eq!(meta.partition, p);
    assert_eq!(meta.active.port, 2);
    assert_eq!(
        meta.standbys.iter().map(|h| h.port).collect::<Vec<_>>(),
        [1]
    );
    // An older epoch does not replace a newer one.
    publisher.registry().set_endpoints(1, vec![]);
    assert_eq!(queries.all_hosts().len(), 2);
}

#[test]
fn an_lmdb_store_publishes_its_flushed_and_pending_state_alike() {
    let dir = std::env::temp_dir().join(format!(
        "dekaf-query-lmdb-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let (queries, publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let counts = queries.store(COUNTS).expect("store");
    let key = "a".to_owned();
    let p = partition(&key);
    let other = (0..1000)
        .map(|i| format!("b{i}"))
        .find(|w| partition(w) == p)
        .expect("a key of the same partition");
    {
        let mut backend = crate::store::LmdbBackend::open(&dir).expect("open LMDB");
        backend.put(key.as_bytes(), &i64_bytes(7)).expect("put");
        backend.flush().expect("flush");
        // Written after the flush: still pending in memory, read through the same backend.
        backend.put(other.as_bytes(), &i64_bytes(8)).expect("put");
        publisher
            .publish_whole(&STORES[0], p, &backend, None)
            .expect("publish");
    }
    assert_eq!(counts.get(&key).expect("hosted"), Some(7));
    assert_eq!(counts.get(&other).expect("hosted"), Some(8));
    assert_eq!(counts.approximate_len().expect("len"), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

static JOIN_STORES: [StoreInfo; 1] = [StoreInfo {
    name: "KSTREAM-JOINTHIS-0000000004-store",
    changelog_topic: "app-KSTREAM-JOINTHIS-0000000004-store-changelog",
    logged: true,
    in_memory: false,
    kind: StoreKind::JoinWindow {
        before_ms: 60_000,
        after_ms: 60_000,
        grace_ms: 0,
    },
}];

static JOIN_SUBS: [SubtopologyInfo; 1] = [SubtopologyInfo {
    id: "0",
    source_topics: &["orders", "payments"],
    repartition_source_topics: &[],
    repartition_sink_topics: &[],
    state_changelog_topics: &[],
    sink_topics: &[],
    copartition_groups: &[],
    stores: &JOIN_STORES,
}];

static JOIN_INFO: TopologyInfo = TopologyInfo {
    application_id: "app",
    subtopologies: &JOIN_SUBS,
};

#[test]
fn a_joins_window_stores_are_not_copied_for_queries() {
    // No query reads them; a copy would double the join's memory.
    let registry = Arc::new(Registry::new(&JOIN_INFO, None, GlobalStores::default()));
    let mut publisher = Publisher::new(Arc::clone(&registry), 0);
    let store = JOIN_STORES[0].name;
    publisher.restoring(&JOIN_SUBS[0], 0);
    assert!(registry.hosted(store, 0).is_none());
    let mut backend = MemoryBackend::ordered();
    backend.put(b"k", b"v").expect("put");
    publisher
        .publish_whole(&JOIN_STORES[0], 0, &backend, None)
        .expect("publish");
    publisher.committed(JOIN_STORES[0].changelog_topic, 0, b"k", Some(b"w"), 0);
    publisher.publish();
    assert!(registry.hosted(store, 0).is_none());
    assert!(registry.ready(store).is_empty());
}

#[test]
fn a_global_store_answers_every_key_from_the_instances_copy_once_read() {
    use crate::table::global::GlobalTableInfo;
    static GLOBALS: [GlobalTableInfo; 1] = [GlobalTableInfo {
        topic: "regions",
        store: "regions-store",
    }];
    let globals = GlobalStores::new(&GLOBALS);
    let registry = Arc::new(Registry::new(&INFO, None, globals.clone()));
    let queries: Queries<App> = Queries::new(Arc::clone(&registry));
    const REGIONS: StoreRef<String, String> = StoreRef::new::<Utf8, Utf8>("regions-store");
    let regions = queries
        .store(REGIONS)
        .expect("a global store is a key-value store");
    // Before the global tables were read to their end, as before the tasks start.
    assert!(matches!(
        regions.get(&"eu".to_owned()),
        Err(QueryError::NotRunning { .. })
    ));
    for (k, v) in [("us", "Americas"), ("eu", "Europe"), ("ap", "Asia")] {
        globals.apply("regions", Some(k.as_bytes()), Some(v.as_bytes()));
    }
    globals.apply("regions", None, Some(b"dropped"));
    registry.set_globals_ready(true);
    assert_eq!(
        regions.get(&"eu".to_owned()).expect("read"),
        Some("Europe".to_owned())
    );
    assert_eq!(regions.get(&"zz".to_owned()).expect("read"), None);
    // Every key, in key-byte order, with no partition.
    let (partitions, all) = regions
        .range_of_partitions(Bound::Unbounded, Bound::Unbounded)
        .expect("range");
    assert!(partitions.is_empty());
    let all: Vec<(String, String)> = all.map(|e| e.expect("entry")).collect();
    assert_eq!(
        all,
        [
            ("ap".to_owned(), "Asia".to_owned()),
            ("eu".to_owned(), "Europe".to_owned()),
            ("us".to_owned(), "Americas".to_owned()),
        ]
    );
    let some: Vec<String> = regions
        .range(
            Bound::Excluded(&"ap".to_owned()),
            Bound::Included(&"eu".to_owned()),
        )
        .expect("range")
        .map(|e| e.expect("entry").0)
        .collect();
    assert_eq!(some, ["eu".to_owned()]);
    assert_eq!(regions.approximate_len().expect("len"), 3);
    assert_eq!(regions.partitions().expect("partitions"), 1);
    // A tombstone of the topic deletes the key for queries too.
    globals.apply("regions", Some(b"us"), None);
    assert_eq!(regions.get(&"us".to_owned()).expect("read"), None);
}

/// The sessions of the Kafka Streams 4.4 check (gap 10 ms): a: [0,5]=2, [30,30]=1,
/// [100,104]=2; aa: [3,3]=1; b: [2,2]=1, [50,50]=1; c: [7,7]=1.
const KS_SESSIONS: [(&str, i64, i64, i64); 7] = [
    ("a", 0, 5, 2),
    ("a", 30, 30, 1),
    ("a", 100, 104, 2),
    ("aa", 3, 3, 1),
    ("b", 2, 2, 1),
    ("b", 50, 50, 1),
    ("c", 7, 7, 1),
];

pub(crate) fn session_entry(key: &str, start: i64, end: i64) -> Vec<u8> {
    let mut bytes = key.as_bytes().to_vec();
    crate::window::session_key(&mut bytes, start, end);
    bytes
}

fn shown(iter: SessionIter<String, i64>) -> Vec<(String, i64, i64, i64)> {
    iter.map(|e| {
        let (w, v): (Windowed<String>, i64) = e.expect("session");
        (w.key, w.window.start, w.window.end, v)
    })
    .collect()
}

fn ks(picked: &[usize]) -> Vec<(String, i64, i64, i64)> {
    picked
        .iter()
        .map(|&i| {
            let (k, s, e, v) = KS_SESSIONS[i];
            (k.to_owned(), s, e, v)
        })
        .collect()
}

#[test]
fn session_reads_return_what_kafka_streams_4_4_returns_in_its_order() {
    let (queries, publisher) = setup();
    // One partition: the whole store is one task, as in Kafka Streams' TopologyTestDriver,
    // whose RocksDB session store gave the orders asserted here.
    publisher.registry().set_partitions("0", 1);
    let sessions = queries.session_store(SESSIONS).expect("a session store");
    let mut backend = MemoryBackend::new();
    for (k, start, end, v) in KS_SESSIONS {
        backend
            .put(&session_entry(k, start, end), &i64_bytes(v))
            .expect("put");
    }
    publisher
        .publish_whole(&STORES[3], 0, &backend, None)
        .expect("publish");
    let a = "a".to_owned();
    let (from, to) = ("a".to_owned(), "c".to_owned());
    // fetch(a): oldest first, and not "aa"'s sessions; backwardFetch(a): newest first.
    assert_eq!(shown(sessions.fetch(&a).expect("fetch")), ks(&[0, 1, 2]));
    assert_eq!(
        shown(sessions.backward_fetch(&a).expect("fetch")),
        ks(&[2, 1, 0])
    );
    // fetch(a, c): key after key by bytes, each key's sessions oldest first.
    let range = || (Bound::Included(&from), Bound::Included(&to));
    assert_eq!(
        shown(sessions.fetch_range(range().0, range().1).expect("range")),
        ks(&[0, 1, 2, 3, 4, 5, 6])
    );
    assert_eq!(
        shown(
            sessions
                .backward_fetch_range(range().0, range().1)
                .expect("range")
        ),
        ks(&[6, 5, 4, 3, 2, 1, 0])
    );
    assert_eq!(
        shown(
            sessions
                .fetch_range(Bound::Unbounded, Bound::Unbounded)
                .expect("range")
        ),
        ks(&[0, 1, 2, 3, 4, 5, 6])
    );
    assert_eq!(
        shown(
            sessions
                .fetch_range(Bound::Excluded(&a), Bound::Excluded(&to))
                .expect("range")
        ),
        ks(&[3, 4, 5])
    );
    // findSessions: end >= earliest end and start <= latest start, both inclusive.
    assert_eq!(
        shown(sessions.find_sessions(&a, 5, 30).expect("find")),
        ks(&[0, 1])
    );
    assert!(shown(sessions.find_sessions(&a, 6, 29).expect("find")).is_empty());
    assert!(shown(sessions.find_sessions(&a, 50, 10).expect("find")).is_empty());
    assert_eq!(
        shown(sessions.find_sessions(&a, 0, i64::MAX).expect("find")),
        ks(&[0, 1, 2])
    );
    assert_eq!(
        shown(
            sessions
                .backward_find_sessions(&a, 0, i64::MAX)
                .expect("find")
        ),
        ks(&[2, 1, 0])
    );
    assert_eq!(
        shown(
            sessions
                .find_sessions_range(range().0, range().1, 5, 50)
                .expect("find")
        ),
        ks(&[0, 1, 5, 6])
    );
    assert_eq!(
        shown(
            sessions
                .backward_find_sessions_range(range().0, range().1, 5, 50)
                .expect("find")
        ),
        ks(&[6, 5, 1, 0])
    );
    // fetchSession: exactly those bounds.
    assert_eq!(sessions.fetch_session(&a, 0, 5).expect("session"), Some(2));
    assert_eq!(sessions.fetch_session(&a, 0, 4).expect("session"), None);
    // A session store is none of the other kinds, and the other stores are not session stores.
    let as_kv = StoreRef::<String, i64>::new::<Utf8, I64>("sessions");
    assert!(matches!(
        queries.store(as_kv),
        Err(QueryError::UnknownStore { .. })
    ));
    let as_session = SessionStoreRef::<String, i64>::new::<Utf8, I64>("counts");
    assert!(matches!(
        queries.session_store(as_session),
        Err(QueryError::UnknownStore {
            kind: "session",
            ..
        })
    ));
}

#[test]
fn session_reads_cover_many_batches_forward_and_backward_and_see_commits() {
    let (queries, mut publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let sessions = queries.session_store(SESSIONS).expect("a session store");
    let key = "user".to_owned();
    let p = partition(&key);
    assert!(matches!(
        sessions.fetch(&key),
        Err(QueryError::NotLocal { partition, stale: false, .. }) if partition == p
    ));
    // 300 sessions of the key (more than a batch of 64), and a longer key sharing its bytes.
    let mut backend = MemoryBackend::new();
    for i in 0..300i64 {
        backend
            .put(&session_entry("user", i * 100, i * 100 + 5), &i64_bytes(i))
            .expect("put");
    }
    backend
        .put(&session_entry("users", 0, 0), &i64_bytes(-1))
        .expect("put");
    publisher
        .publish_whole(&STORES[3], p, &backend, None)
        .expect("publish");
    let forward: Vec<i64> = shown(sessions.fetch(&key).expect("fetch"))
        .into_iter()
        .map(|(_, _, _, v)| v)
        .collect();
    assert_eq!(forward, (0..300).collect::<Vec<_>>());
    let backward: Vec<i64> = shown(sessions.backward_fetch(&key).expect("fetch"))
        .into_iter()
        .map(|(_, _, _, v)| v)
        .collect();
    assert_eq!(backward, (0..300).rev().collect::<Vec<_>>());
    // The sessions overlapping [1_000, 1_500]: ends 1_005 .. 1_405 and the one starting there.
    let found: Vec<(i64, i64)> = shown(sessions.find_sessions(&key, 1_000, 1_500).expect("find"))
        .into_iter()
        .map(|(_, s, e, _)| (s, e))
        .collect();
    assert_eq!(found.first(), Some(&(1_000, 1_005)));
    assert_eq!(found.last(), Some(&(1_500, 1_505)));
    assert_eq!(found.len(), 6);
    // A commit's merge: two sessions deleted, one merged session written.
    publisher.committed(
        "app-sessions-changelog",
        p,
        &session_entry("user", 0, 5),
        None,
        0,
    );
    publisher.committed(
        "app-sessions-changelog",
        p,
        &session_entry("user", 100, 105),
        None,
        0,
    );
    publisher.committed(
        "app-sessions-changelog",
        p,
        &session_entry("user", 0, 105),
        Some(&i64_bytes(7)),
        0,
    );
    publisher.publish();
    assert_eq!(
        shown(sessions.find_sessions(&key, 0, 150).expect("find")),
        [("user".to_owned(), 0, 105, 7)]
    );
    assert_eq!(sessions.fetch_session(&key, 0, 5).expect("read"), None);
}

#[test]
fn stale_views_answer_from_a_standby_copy_and_say_so() {
    let (queries, mut publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let ((a, pa), (b, pb)) = words_in_two_partitions();
    let counts = queries.store(COUNTS).expect("store");
    let stale = counts.clone().enable_stale_stores();
    assert!(stale.stale_stores_enabled() && !counts.stale_stores_enabled());
    // Neither active nor standby here: refused either way, and the error says which.
    assert!(matches!(
        stale.get(&a),
        Err(QueryError::NotLocal { stale: true, .. })
    ));
    // A standby of pa (state from its directory), the active task of pb.
    let mut standby = MemoryBackend::new();
    standby.put(a.as_bytes(), &i64_bytes(1)).expect("put");
    publisher
        .publish_standby_all(&STORES[0], pa, &standby, None)
        .expect("publish");
    let mut active = MemoryBackend::new();
    active.put(b.as_bytes(), &i64_bytes(10)).expect("put");
    publisher
        .publish_whole(&STORES[0], pb, &active, None)
        .expect("publish");
    // Without the opt-in a standby never answers.
    let err = counts.get(&a).expect_err("not active here");
    assert!(matches!(err, QueryError::NotLocal { stale: false, .. }));
    assert!(err.to_string().contains("enable stale stores"), "{err}");
    assert_eq!(
        stale.get_with_replica(&a).expect("standby"),
        (Some(1), Replica::Standby { lag: None })
    );
    assert_eq!(
        stale.get_with_replica(&b).expect("active"),
        (Some(10), Replica::Active)
    );
    // A range reads the active tasks, and with the opt-in the standby copies too.
    assert_eq!(counts.all().expect("all").count(), 1);
    let all = stale.all().expect("all");
    let mut replicas = vec![(pa, Replica::Standby { lag: None }), (pb, Replica::Active)];
    replicas.sort_by_key(|(p, _)| *p);
    assert_eq!(all.replicas(), replicas.as_slice());
    assert_eq!(all.count(), 2);
    assert_eq!(stale.approximate_len().expect("len"), 2);
    // Changelog records the standby applied show after the round's publish, with its lag.
    publisher.standby_applied(
        "app-counts-changelog",
        pa,
        a.as_bytes(),
        Some(&i64_bytes(2)),
        0,
    );
    assert_eq!(stale.get(&a).expect("standby"), Some(1));
    publisher.publish_standbys([(&SUBS[0], pa, Some(3))].into_iter());
    assert_eq!(
        stale.get_with_replica(&a).expect("standby"),
        (Some(2), Replica::Standby { lag: Some(3) })
    );
    // Promoted: while the active task restores, the standby copy still answers stale reads
    // (and the strict view says restoring); once restored, the active task answers.
    publisher.restoring(&SUBS[0], pa);
    assert!(matches!(counts.get(&a), Err(QueryError::Restoring { .. })));
    assert!(matches!(counts.all(), Err(QueryError::Restoring { .. })));
    assert!(stale.get_with_replica(&a).expect("standby").1.is_standby());
    assert_eq!(stale.all().expect("all").count(), 2);
    let mut restored = MemoryBackend::new();
    restored.put(a.as_bytes(), &i64_bytes(5)).expect("put");
    publisher
        .publish_whole(&STORES[0], pa, &restored, None)
        .expect("publish");
    publisher.standby_closed(&SUBS[0], pa);
    assert_eq!(
        stale.get_with_replica(&a).expect("active"),
        (Some(5), Replica::Active)
    );
    // A closed standby answers no more; records applied after are ignored.
    publisher.closed(&SUBS[0], pa);
    publisher.standby_applied(
        "app-counts-changelog",
        pa,
        a.as_bytes(),
        Some(&i64_bytes(9)),
        0,
    );
    publisher.publish_standbys(std::iter::empty());
    assert!(matches!(
        stale.get(&a),
        Err(QueryError::NotLocal { stale: true, .. })
    ));
}

#[test]
fn stale_window_and_session_views_read_standby_copies() {
    let (queries, mut publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let key = "a".to_owned();
    let p = partition(&key);
    let mut windows = MemoryBackend::new();
    let mut bytes = key.as_bytes().to_vec();
    crate::store::window_key(&mut bytes, 60_000);
    windows.put(&bytes, &i64_bytes(4)).expect("put");
    publisher
        .publish_standby_all(&STORES[1], p, &windows, Some(0))
        .expect("publish");
    let mut sessions = MemoryBackend::new();
    sessions
        .put(&session_entry("a", 10, 20), &i64_bytes(2))
        .expect("put");
    publisher
        .publish_standby_all(&STORES[3], p, &sessions, Some(0))
        .expect("publish");
    let views = queries.window_store(VIEWS).expect("window store");
    assert!(matches!(
        views.fetch(&key, 0, i64::MAX),
        Err(QueryError::NotLocal { .. })
    ));
    let views = views.enable_stale_stores();
    let fetched = views.fetch(&key, 0, i64::MAX).expect("standby");
    assert_eq!(
        (fetched.key_partition(), fetched.replica()),
        (p, Replica::Standby { lag: Some(0) })
    );
    assert_eq!(
        fetched.map(|w| w.expect("window")).collect::<Vec<_>>(),
        [(60_000, 4)]
    );

    let store = queries.session_store(SESSIONS).expect("session store");
    assert!(matches!(
        store.fetch(&key),
        Err(QueryError::NotLocal { .. })
    ));
    let store = store.enable_stale_stores();
    let fetched = store.fetch(&key).expect("standby");
    assert_eq!(fetched.replicas(), [(p, Replica::Standby { lag: Some(0) })]);
    assert_eq!(shown(fetched), [("a".to_owned(), 10, 20, 2)]);
    // The standby applies a merge from the changelog.
    publisher.standby_applied(
        "app-sessions-changelog",
        p,
        &session_entry("a", 10, 20),
        None,
        0,
    );
    publisher.standby_applied(
        "app-sessions-changelog",
        p,
        &session_entry("a", 10, 25),
        Some(&i64_bytes(3)),
        0,
    );
    publisher.publish_standbys(std::iter::empty());
    assert_eq!(
        store
            .fetch_session_with_replica(&key, 10, 25)
            .expect("standby"),
        (Some(3), Replica::Standby { lag: Some(0) })
    );
    assert_eq!(
        shown(
            store
                .fetch_range(Bound::Unbounded, Bound::Unbounded)
                .expect("range")
        ),
        [("a".to_owned(), 10, 25, 3)]
    );
}

#[test]
fn a_standby_copy_is_removed_only_by_the_thread_that_keeps_it() {
    let (queries, publisher) = setup();
    let registry = Arc::clone(publisher.registry());
    registry.set_partitions("0", PARTITIONS);
    let other_thread = Publisher::new(Arc::clone(&registry), 1);
    let a = "a".to_owned();
    let pa = partition(&a);
    let stale = queries.store(COUNTS).expect("store").enable_stale_stores();
    let mut backend = MemoryBackend::new();
    backend.put(a.as_bytes(), &i64_bytes(1)).expect("put");
    publisher
        .publish_standby_all(&STORES[0], pa, &backend, Some(0))
        .expect("publish");
    // Another thread's active task of the partition closes after this thread's standby
    // opened (a revocation and a standby assignment crossing): the copy stays.
    other_thread.closed(&SUBS[0], pa);
    other_thread.standby_closed(&SUBS[0], pa);
    other_thread.forget_standbys();
    assert_eq!(stale.get(&a).expect("standby"), Some(1));
    // The keeping thread ends: its copies go.
    publisher.forget_standbys();
    assert!(matches!(
        stale.get(&a),
        Err(QueryError::NotLocal { stale: true, .. })
    ));
}

/// A versioned table's store on `partition`: `versions` (key, value or tombstone, timestamp)
/// put in order, with `retention` of history, published as a commit publishes it.
pub(crate) fn publish_versioned(
    publisher: &Publisher,
    partition: i32,
    versions: &[(&str, Option<i64>, i64)],
    retention: i64,
) {
    let mut store = MemoryBackend::new();
    let mut history = crate::table::versioned::VersionHistory::new(retention);
    for (key, value, ts) in versions {
        crate::table::versioned::put_versioned(
            &mut store,
            &mut history,
            key.as_bytes(),
            value.map(i64_bytes).as_deref(),
            *ts,
            &mut Vec::new(),
        )
        .expect("put");
    }
    publisher
        .publish_whole(&STORES[4], partition, &store, Some(&history))
        .expect("publish");
}

#[test]
fn a_versioned_view_reads_values_as_of_a_time_and_versions_in_a_range() {
    let (queries, publisher) = setup();
    publisher.registry().set_partitions("0", PARTITIONS);
    let ((eur, p), (other, _)) = words_in_two_partitions();
    let rates = queries.versioned_store(RATES).expect("a versioned store");
    assert!(matches!(
        rates.get(&eur),
        Err(QueryError::NotLocal { stale: false, .. })
    ));
    publisher.restoring(&SUBS[0], p);
    assert!(matches!(rates.get(&eur), Err(QueryError::Restoring { .. })));
    let e = eur.as_str();
    publish_versioned(
        &publisher,
        p,
        &[
            (e, Some(110), 10),
            (e, Some(120), 20),
            (e, None, 30),
            (e, Some(140), 40),
        ],
        1_000,
    );
    let at = |value, timestamp, valid_to| VersionedRecord {
        value,
        timestamp,
        valid_to,
    };
    assert_eq!(rates.get(&eur).expect("read"), Some(at(140, 40, None)));
    assert_eq!(
        rates.get_as_of(&eur, 25).expect("read"),
        Some(at(120, 20, Some(30)))
    );
    assert_eq!(
        rates.get_as_of(&eur, 35).expect("read"),
        None,
        "deleted then"
    );
    assert_eq!(
        rates.get_as_of(&eur, 9).expect("read"),
        None,
        "before the first"
    );
    assert_eq!(
        rates.versions(&eur, 15, 40).expect("read"),
        [
            at(110, 10, Some(20)),
            at(120, 20, Some(30)),
            at(140, 40, None)
        ]
    );
    assert!(rates.versions(&eur, 31, 39).expect("read").is_empty());
    // Its latest values read as a key-value store's too; another key's task is not here.
    assert_eq!(
        queries
            .store(RATES)
            .expect("store")
            .get(&eur)
            .expect("read"),
        Some(140)
    );
    assert!(matches!(
        rates.get(&other),
        Err(QueryError::NotLocal { .. })
    ));
    // A store that is not versioned is refused.
    assert!(matches!(
        queries.versioned_store(COUNTS),
        Err(QueryError::UnknownStore { .. })
    ));
}
