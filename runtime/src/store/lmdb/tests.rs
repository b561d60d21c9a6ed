use std::ops::Bound;
use std::path::PathBuf;

use super::*;
use crate::store::MemoryBackend;

fn temp_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "dekaf-lmdb-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ))
}

fn all<B: StoreBackend>(
    store: &B,
    from: Bound<&[u8]>,
    to: Bound<&[u8]>,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    store
        .range(from, to)
        .expect("range")
        .map(|e| {
            let (k, v) = e.expect("entry");
            (k.to_vec(), v.to_vec())
        })
        .collect()
}

/// A small deterministic generator (xorshift), so failures replay.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn lmdb_agrees_with_memory_across_flushes_reopens_and_ranges() {
    let dir = temp_dir("agree");
    let mut lmdb = LmdbBackend::open(&dir).expect("open");
    let mut memory = MemoryBackend::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for step in 0..20_000u32 {
        // Keys of 0..3 bytes, including the empty key, so ranges and prefixes interleave.
        let len = (rng.next() % 4) as usize;
        let key: Vec<u8> = (0..len).map(|_| (rng.next() % 4) as u8).collect();
        match rng.next() % 10 {
            0..=5 => {
                let value = step.to_be_bytes();
                lmdb.put(&key, &value).expect("put");
                memory.put(&key, &value).expect("put");
            }
            6 | 7 => {
                assert_eq!(
                    lmdb.delete(&key).expect("delete"),
                    memory.delete(&key).expect("delete")
                );
            }
            8 => assert_eq!(lmdb.get(&key).expect("get"), memory.get(&key).expect("get")),
            _ => {
                let other: Vec<u8> = (0..(rng.next() % 3))
                    .map(|_| (rng.next() % 4) as u8)
                    .collect();
                let bounds = [
                    Bound::Included(&key[..]),
                    Bound::Excluded(&key[..]),
                    Bound::Unbounded,
                ];
                let ends = [
                    Bound::Included(&other[..]),
                    Bound::Excluded(&other[..]),
                    Bound::Unbounded,
                ];
                let (from, to) = (
                    bounds[(rng.next() % 3) as usize],
                    ends[(rng.next() % 3) as usize],
                );
                assert_eq!(all(&lmdb, from, to), all(&memory, from, to), "step {step}");
            }
        }
        if step % 997 == 0 {
            lmdb.flush().expect("flush");
        }
        if step % 4_999 == 0 {
            lmdb.sync().expect("sync");
            drop(lmdb);
            lmdb = LmdbBackend::open(&dir).expect("reopen");
        }
        if step % 1_000 == 0 {
            assert_eq!(lmdb.len(), memory.len(), "step {step}");
        }
    }
    assert_eq!(
        all(&lmdb, Bound::Unbounded, Bound::Unbounded),
        all(&memory, Bound::Unbounded, Bound::Unbounded)
    );
    lmdb.clear().expect("clear");
    assert!(lmdb.is_empty());
    assert_eq!(all(&lmdb, Bound::Unbounded, Bound::Unbounded), []);
    drop(lmdb);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_map_grows_instead_of_failing_and_long_keys_get_a_clear_error() {
    let dir = temp_dir("grow");
    let mut lmdb = LmdbBackend::open(&dir).expect("open");
    let value = vec![7u8; 4_000];
    // 40,000 values of 4 KB: 160 MB, well past the initial 64 MiB map.
    for i in 0..40_000u32 {
        lmdb.put(&i.to_be_bytes(), &value).expect("put");
        if i % 5_000 == 4_999 {
            lmdb.flush().expect("flush");
        }
    }
    lmdb.flush().expect("flush");
    assert_eq!(lmdb.len(), 40_000);
    assert_eq!(
        lmdb.get(&39_999u32.to_be_bytes()).expect("get"),
        Some(&value[..])
    );
    assert!(lmdb.map_size > env::INITIAL_MAP_SIZE);

    let max = lmdb.max_key_len();
    assert!(
        max >= 1_000,
        "longer-keys gives about 2 KiB keys, got {max}"
    );
    lmdb.put(&vec![1u8; max], b"fits")
        .expect("the longest key fits");
    let err = lmdb.put(&vec![1u8; max + 1], b"x").expect_err("too long");
    assert!(err.to_string().contains("longer than"), "{err}");
    assert_eq!(lmdb.get(&vec![1u8; max + 1]).expect("get"), None);
    assert!(!lmdb.delete(&vec![1u8; max + 1]).expect("delete"));
    lmdb.flush().expect("flush");
    drop(lmdb);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_changelog_offset_commits_with_the_data_and_a_spill_or_clear_removes_it() {
    let dir = temp_dir("offset");
    let mut store = LmdbBackend::open(&dir).expect("open");
    assert_eq!(
        store.changelog_offset(),
        None,
        "a new store reflects no offset"
    );
    store.put(b"a", b"1").expect("put");
    store.put(b"", b"empty key").expect("put");
    store.flush_at(7).expect("flush_at");
    assert_eq!(store.changelog_offset(), Some(7));
    // The meta key is no entry: not counted, not scanned.
    assert_eq!(store.len(), 2);
    assert_eq!(
        all(&store, Bound::Unbounded, Bound::Unbounded),
        [
            (b"".to_vec(), b"empty key".to_vec()),
            (b"a".to_vec(), b"1".to_vec())
        ]
    );
    assert_eq!(all(&store, Bound::Excluded(b"a"), Bound::Unbounded), []);

    // An aborted interval: its pending writes go, the store is as of offset 7 again.
    store.put(b"a", b"2").expect("put");
    store.put(b"b", b"3").expect("put");
    assert!(
        store.discard_pending().expect("discard"),
        "nothing reached LMDB"
    );
    assert_eq!(store.get(b"a").expect("get"), Some(&b"1"[..]));
    assert_eq!(store.get(b"b").expect("get"), None);
    drop(store);

    // The offset and the data survive a reopen together (a crash after the flush).
    let mut store = LmdbBackend::open(&dir).expect("reopen");
    assert_eq!(store.changelog_offset(), Some(7));
    assert_eq!(store.get(b"a").expect("get"), Some(&b"1"[..]));

    // A flush no commit confirmed (a spill) takes the offset away in the same transaction.
    store.put(b"c", b"4").expect("put");
    store.flush().expect("spill");
    assert_eq!(store.changelog_offset(), None);
    assert!(
        !store.discard_pending().expect("discard"),
        "writes of the interval reached LMDB: the store must be rebuilt"
    );
    drop(store);
    let mut store = LmdbBackend::open(&dir).expect("reopen");
    assert_eq!(
        store.changelog_offset(),
        None,
        "a spilled store is untrusted after a crash"
    );
    store.flush_at(9).expect("flush_at");
    assert_eq!(store.changelog_offset(), Some(9));
    store.clear().expect("clear");
    assert_eq!(store.changelog_offset(), None);
    assert_eq!(store.len(), 0);
    drop(store);
    assert_eq!(
        LmdbBackend::open(&dir).expect("reopen").changelog_offset(),
        None
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_large_interval_spills_and_leaves_the_store_untrusted() {
    let dir = temp_dir("spill");
    let mut store = LmdbBackend::open(&dir).expect("open");
    store.flush_at(1).expect("flush_at");
    let value = vec![7u8; 1 << 16];
    let mut i = 0u32;
    while store.changelog_offset().is_some() {
        store.put(&i.to_be_bytes(), &value).expect("put");
        i += 1;
        assert!(i < 10_000, "never spilled");
    }
    assert!(!store.discard_pending().expect("discard"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_damaged_environment_is_deleted_and_reopened_empty() {
    let root = temp_dir("damaged");
    let mut stores = LmdbStores::new(&root);
    let info = crate::topology::StoreInfo {
        name: "counts",
        changelog_topic: "app-counts-changelog",
        logged: true,
        in_memory: false,
        kind: crate::topology::StoreKind::KeyValue,
    };
    let dir = stores.store_dir("app", "0", 0, "counts");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("data.mdb"), vec![0xAB; 64 << 10]).expect("garbage");
    let store = stores.open("app", "0", 0, &info).expect("rebuilt");
    assert_eq!((store.len(), store.changelog_offset()), (0, None));
    let _ = std::fs::remove_dir_all(root);
}
