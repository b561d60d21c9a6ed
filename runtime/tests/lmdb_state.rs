//! An LMDB store holding 5 million keys keeps the process's own memory bounded: the state lives
//! in the file, and only the writes between two flushes are held in memory.

use std::io::Write as _;

use dekaf_streams::store::{LmdbBackend, StoreBackend};

/// Kibibytes of anonymous resident memory (the process's heap; LMDB's file pages are page
/// cache, counted apart as `RssFile`, and the kernel may drop them under pressure).
fn rss(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").trim().parse().ok())
        .expect("an RSS field")
}

#[test]
fn five_million_keys_keep_resident_memory_bounded() {
    const KEYS: u64 = 5_000_000;
    const FLUSH_EVERY: u64 = 100_000;
    let dir = std::env::temp_dir().join(format!("dekaf-lmdb-5m-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = LmdbBackend::open(&dir).expect("open");
    let before = rss("RssAnon:");
    let mut peak = before;
    let mut key = Vec::with_capacity(32);
    for i in 0..KEYS {
        key.clear();
        write!(key, "user-{i:012}").expect("key");
        store.put(&key, &i.to_be_bytes()).expect("put");
        // As the runtime does after each commit.
        if i % FLUSH_EVERY == FLUSH_EVERY - 1 {
            store.flush().expect("flush");
            peak = peak.max(rss("RssAnon:"));
        }
    }
    store.flush().expect("flush");
    // An update pass over a spread of keys, as aggregations do.
    for i in (0..KEYS).step_by(7) {
        key.clear();
        write!(key, "user-{i:012}").expect("key");
        let old = store.get(&key).expect("get").map(|v| v.to_vec());
        assert_eq!(old.as_deref(), Some(&i.to_be_bytes()[..]), "key {i}");
        store.put(&key, &(i + 1).to_be_bytes()).expect("put");
        if i % (FLUSH_EVERY * 7) == 0 {
            store.flush().expect("flush");
            peak = peak.max(rss("RssAnon:"));
        }
    }
    store.flush().expect("flush");
    peak = peak.max(rss("RssAnon:"));
    assert_eq!(store.len(), KEYS as usize);
    for i in [0u64, 1, 7, 4_999_999, 2_500_003] {
        key.clear();
        write!(key, "user-{i:012}").expect("key");
        let expected = if i % 7 == 0 { i + 1 } else { i };
        assert_eq!(
            store.get(&key).expect("get"),
            Some(&expected.to_be_bytes()[..])
        );
    }
    let grown_mib = (peak - before) / 1024;
    eprintln!(
        "5M keys: anonymous RSS grew {grown_mib} MiB (peak {} MiB); file pages resident now {} MiB",
        peak / 1024,
        rss("RssFile:") / 1024
    );
    // The same keys in the memory backend take about 700 MiB (benches/benches/state_store.rs).
    assert!(
        grown_mib < 160,
        "anonymous memory grew {grown_mib} MiB holding 5M keys in LMDB"
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
