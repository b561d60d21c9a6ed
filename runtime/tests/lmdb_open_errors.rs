//! A store on disk that cannot be opened for a reason other than damage (here: no file
//! descriptor left) is an error that says what to do, and is kept as it is: deleting it would
//! throw away state that is as good as ever once the cause is fixed, and cost a full restore.
//! Only a store LMDB refuses as damaged is deleted and rebuilt (`store::lmdb` unit tests).
//!
//! In a test binary of its own: it lowers the process's open-file limit (with util-linux's
//! `prlimit`) and takes every descriptor left for a moment.

use std::fs::File;
use std::process::Command;

use dekaf_streams::store::{BackendFactory, LmdbStores, StoreBackend, StoreError};
use dekaf_streams::topology::{StoreInfo, StoreKind};

/// Sets this process's soft open-file limit (the hard one stays).
fn set_soft_open_files(limit: u64) {
    let status = Command::new("prlimit")
        .arg("--pid")
        .arg(std::process::id().to_string())
        .arg(format!("--nofile={limit}:"))
        .status()
        .expect("util-linux's prlimit runs");
    assert!(status.success(), "prlimit failed: {status}");
}

/// This process's soft open-file limit.
fn soft_open_files() -> u64 {
    let limits = std::fs::read_to_string("/proc/self/limits").expect("/proc/self/limits");
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .expect("the open-file limit")
}

#[test]
fn a_store_that_cannot_be_opened_for_lack_of_files_is_an_error_and_is_kept() {
    let root = std::env::temp_dir().join(format!("dekaf-lmdb-emfile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let info = StoreInfo {
        name: "counts",
        changelog_topic: "app-counts-changelog",
        logged: true,
        in_memory: false,
        kind: StoreKind::KeyValue,
    };
    let mut stores = LmdbStores::new(&root);
    {
        let mut store = stores.open("app", "0", 0, &info).expect("a new store");
        store.put(b"k", b"v").expect("put");
        store.flush_at(42).expect("flush");
    }

    let before = soft_open_files();
    set_soft_open_files(256);
    let mut taken = Vec::new();
    let refused = loop {
        match File::open("/dev/null") {
            Ok(file) => taken.push(file),
            Err(e) => break e,
        }
        assert!(taken.len() < 10_000, "the open-file limit did not apply");
    };
    assert_eq!(refused.raw_os_error(), Some(libc_emfile()), "{refused}");
    let opened = stores.open("app", "0", 0, &info);
    drop(taken);
    set_soft_open_files(before);

    let error = opened.expect_err("no descriptor was left to open the store with");
    assert!(
        matches!(error, StoreError::Backend(_)),
        "not damage, so not deleted: {error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("too many open files") && message.contains("ulimit -n"),
        "the error says what to do: {message}"
    );
    // The store is still there, with its state and its changelog offset.
    let store = stores.open("app", "0", 0, &info).expect("the store again");
    assert_eq!(store.changelog_offset(), Some(42));
    assert_eq!(store.get(b"k").expect("get"), Some(&b"v"[..]));
    drop(store);
    let _ = std::fs::remove_dir_all(&root);
}

/// `EMFILE` on Linux.
fn libc_emfile() -> i32 {
    24
}
