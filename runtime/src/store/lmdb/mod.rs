//! The LMDB backend: a store on disk, in one LMDB environment per store of a task.
//!
//! # How a store reads and writes
//!
//! Writes go to a set of *pending* changes in memory, and reach LMDB in one write transaction
//! per flush: the runtime flushes after every Kafka commit, and a store flushes on its own when
//! its pending changes pass [`FLUSH_BYTES`] (a restore, a burst of new keys). Reads look at the
//! pending changes first, then at a read transaction opened at the last flush; values are
//! borrowed straight from LMDB's memory map, without a copy. A range scan merges both, in key
//! order.
//!
//! Memory therefore stays bounded by what changes between flushes; the state itself lives in the
//! file (the kernel's page cache keeps the hot part of it, and can drop it under pressure).
//!
//! # Keys
//!
//! LMDB refuses empty keys, which Kafka allows, so every key is stored after one `0x00` byte;
//! ordering is unchanged. The longest key is [`LmdbBackend::max_key_len`] bytes (about 2 KiB
//! with 4 KiB pages); a longer one is refused with [`StoreError::KeyTooLong`].
//!
//! # Committed state and the changelog offset
//!
//! The environment also records the changelog offset its contents reflect, written in the same
//! LMDB transaction as the data ([`meta`]): by [`StoreBackend::flush_at`], which the runtime
//! calls only after a commit succeeded. A flush the store makes on its own (pending writes past
//! [`FLUSH_BYTES`]) or a `clear` removes the offset in its transaction, so an environment that
//! may hold uncommitted writes is never taken for committed state. A restart keeps a store
//! with an offset and replays only the changelog after it; an aborted interval drops the
//! pending writes ([`StoreBackend::discard_pending`]) and keeps the store as of its offset.
//!
//! # The map
//!
//! The memory map starts at 64 MiB and doubles whenever the next write transaction might not
//! fit, or did not (LMDB's `MDB_MAP_FULL`: the transaction is redone in the larger map), so a
//! growing store never fails for want of space while the disk has room.

mod env;
mod meta;
mod pending;

use std::cell::RefCell;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, MdbError, RoTxn, WithoutTls};

use super::{BackendFactory, Entry, StoreBackend, StoreError, inverted};
use crate::topology::StoreInfo;
use pending::Pending;

/// Pending bytes (keys and values) past which a store flushes on its own.
pub(super) const FLUSH_BYTES: usize = 32 << 20;

/// The byte every stored key starts with (LMDB refuses empty keys).
const KEY_PREFIX: u8 = 0;

/// One store of one task, kept in an LMDB environment on disk.
pub struct LmdbBackend {
    env: Env<WithoutTls>,
    db: Database<'static, Bytes, Bytes>,
    /// What LMDB held at the last flush. `None` only inside a flush or a clear.
    snapshot: Option<RoTxn<'static, WithoutTls>>,
    pending: Pending,
    /// The prefixed key of the current read.
    scratch: RefCell<Vec<u8>>,
    max_key_len: usize,
    map_size: usize,
    path: PathBuf,
    /// The changelog offset recorded in the environment (see [`meta`]): `None` when LMDB may
    /// hold writes no commit confirmed, or never recorded one.
    offset: Option<i64>,
}

impl std::fmt::Debug for LmdbBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmdbBackend")
            .field("path", &self.path)
            .field("pending", &self.pending.len())
            .field("map_size", &self.map_size)
            .field("offset", &self.offset)
            .finish()
    }
}

fn lmdb_error<'p>(path: &'p Path, what: &'static str) -> impl Fn(heed::Error) -> StoreError + 'p {
    move |e| {
        StoreError::Backend(format!(
            "LMDB store at {}: {what} failed: {e} (the state directory is a cache of the \
             changelog: stop the application, delete the directory, and start it again)",
            path.display()
        ))
    }
}

/// The error of opening the store at `path`: [`StoreError::Damaged`] when LMDB refuses the
/// file itself (so that deleting and restoring it helps), else [`StoreError::Backend`] with what
/// to do about the cause.
fn open_error<'p>(path: &'p Path, what: &'static str) -> impl Fn(heed::Error) -> StoreError + 'p {
    move |e| {
        let damaged = matches!(
            e,
            heed::Error::Mdb(
                MdbError::Corrupted
                    | MdbError::Invalid
                    | MdbError::VersionMismatch
                    | MdbError::PageNotFound
                    | MdbError::Panic
                    | MdbError::Incompatible
                    | MdbError::BadDbi
            )
        );
        if damaged {
            return StoreError::Damaged {
                path: path.display().to_string(),
                reason: format!("{what}: {e}"),
            };
        }
        let os_error = match &e {
            heed::Error::Io(io) => io.raw_os_error(),
            heed::Error::Mdb(MdbError::Other(code)) => Some(*code),
            _ => None,
        };
        match os_error.and_then(os_error_hint) {
            Some(hint) => StoreError::Backend(format!(
                "cannot open the LMDB store at {}: {what} failed: {e}: {hint}",
                path.display()
            )),
            None => lmdb_error(path, what)(e),
        }
    }
}

/// What to do about an operating-system error that keeps a store from opening.
fn os_error_hint(code: i32) -> Option<&'static str> {
    Some(match code {
        libc::EACCES | libc::EPERM => {
            "the state directory must be readable and writable by the application's user \
             (check its owner and mode)"
        }
        libc::EMFILE | libc::ENFILE => {
            "too many open files: each store on disk keeps two files open; raise the open-file \
             limit (ulimit -n, systemd's LimitNOFILE) or run fewer tasks per instance"
        }
        libc::ENOSPC | libc::EDQUOT => {
            "the state directory's file system is full: free space or give it more"
        }
        libc::EROFS => "the state directory is on a read-only file system",
        libc::ENOMEM => "not enough memory or address space to map the store",
        _ => return None,
    })
}

impl LmdbBackend {
    /// Opens (or creates) the store in directory `dir`, creating the directory if needed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Damaged`] when LMDB refuses the store's file as damaged;
    /// [`StoreError::Backend`] for every other failure (permissions, open files, a full disk),
    /// saying what to do.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            let hint = e.raw_os_error().and_then(os_error_hint).unwrap_or("");
            StoreError::Backend(format!(
                "cannot create the store directory {}: {e} {hint}",
                dir.display()
            ))
        })?;
        let err = |what| open_error(dir, what);
        let env = env::open(dir, env::INITIAL_MAP_SIZE, false).map_err(err("opening"))?;
        let wtxn = env.write_txn().map_err(err("a write transaction"))?;
        let db: Database<'static, Bytes, Bytes> = env
            .create_databases_and_commit(wtxn, |opener, wtxn| {
                opener
                    .create_database(wtxn, None)
                    .map(CommitOrAbort::<_, ()>::Commit)
            })
            .map_err(err("opening the database"))
            .and_then(|opened| match opened {
                CommitOrAbort::Commit(db) => Ok(db),
                CommitOrAbort::Abort(()) => Err(err("opening the database")(heed::Error::Mdb(
                    MdbError::Incompatible,
                ))),
            })?;
        let snapshot = env
            .clone()
            .static_read_txn()
            .map_err(err("a read transaction"))?;
        let offset = meta::read_offset(&db, &snapshot).map_err(err("reading the offset"))?;
        Ok(LmdbBackend {
            offset,
            max_key_len: env.max_key_size().saturating_sub(1),
            map_size: env.info().map_size,
            env,
            db,
            snapshot: Some(snapshot),
            pending: Pending::default(),
            scratch: RefCell::new(Vec::with_capacity(64)),
            path: dir.to_owned(),
        })
    }

    /// The longest key this store takes, in bytes.
    pub fn max_key_len(&self) -> usize {
        self.max_key_len
    }

    /// The directory of the store.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn snapshot(&self) -> Result<&RoTxn<'static, WithoutTls>, StoreError> {
        self.snapshot.as_ref().ok_or_else(|| {
            StoreError::Backend(format!(
                "LMDB store at {}: used after a failed flush; restart the task",
                self.path.display()
            ))
        })
    }

    fn check_key(&self, key: &[u8]) -> Result<(), StoreError> {
        if key.len() > self.max_key_len {
            return Err(StoreError::KeyTooLong {
                len: key.len(),
                max: self.max_key_len,
            });
        }
        Ok(())
    }

    /// The value LMDB held for `key` at the last flush.
    fn stored(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError> {
        if key.len() > self.max_key_len {
            // Never stored: a put of it was refused.
            return Ok(None);
        }
        let snapshot = self.snapshot()?;
        let mut scratch = self.scratch.borrow_mut();
        prefixed(&mut scratch, key);
        self.db
            .get(snapshot, &scratch)
            .map_err(lmdb_error(&self.path, "a read"))
    }

    /// Drops the snapshot, runs `write` in write transactions until one commits (growing the
    /// map after `MDB_MAP_FULL`), and takes a new snapshot.
    fn write(
        &mut self,
        mut write: impl FnMut(
            &Database<'static, Bytes, Bytes>,
            &mut heed::RwTxn<'_>,
        ) -> heed::Result<()>,
        room: usize,
    ) -> Result<(), StoreError> {
        self.snapshot = None;
        let result = self.write_unsnapshotted(&mut write, room);
        let snapshot = self
            .env
            .clone()
            .static_read_txn()
            .map_err(lmdb_error(&self.path, "a read transaction"))?;
        self.snapshot = Some(snapshot);
        result
    }

    fn write_unsnapshotted(
        &mut self,
        write: &mut impl FnMut(
            &Database<'static, Bytes, Bytes>,
            &mut heed::RwTxn<'_>,
        ) -> heed::Result<()>,
        room: usize,
    ) -> Result<(), StoreError> {
        let info = self.env.info();
        let used = info.last_page_number.saturating_add(1).saturating_mul(4096);
        let wanted = used
            .saturating_add(room.saturating_mul(3))
            .saturating_add(1 << 20);
        if wanted > self.map_size {
            self.grow(wanted)?;
        }
        loop {
            let mut wtxn = self
                .env
                .write_txn()
                .map_err(lmdb_error(&self.path, "a write transaction"))?;
            let result = write(&self.db, &mut wtxn).and_then(|()| wtxn.commit());
            match result {
                Ok(()) => return Ok(()),
                Err(heed::Error::Mdb(MdbError::MapFull)) => {
                    let doubled = self.map_size.saturating_mul(2);
                    self.grow(doubled)?;
                }
                Err(e) => return Err(lmdb_error(&self.path, "a write")(e)),
            }
        }
    }

    /// Grows the map to at least `wanted` bytes (at least double), in whole MiB.
    fn grow(&mut self, wanted: usize) -> Result<(), StoreError> {
        const MIB: usize = 1 << 20;
        let size = wanted
            .max(self.map_size.saturating_mul(2))
            .div_ceil(MIB)
            .saturating_mul(MIB);
        // SAFETY: this backend owns the environment alone, its snapshot is dropped (`write`)
        // and no write transaction is open (the failed one was dropped, which aborts it).
        unsafe { env::resize(&self.env, size) }
            .map_err(lmdb_error(&self.path, "growing the map"))?;
        tracing::debug!(path = %self.path.display(), size, "LMDB map grown");
        self.map_size = size;
        Ok(())
    }
}

/// Opens (creating `dir` and the environment if needed) a bare LMDB environment with the flags of
/// an [`LmdbBackend`]'s (see the `env` module), for driving LMDB directly through `heed`:
/// `bench-state` compares the backend with LMDB alone, so that what the backend adds to
/// LMDB's own cost shows. `write_map` adds `MDB_WRITEMAP`, which the backend does not use.
///
/// The map is `map_size` bytes and does not grow. As with [`LmdbBackend::open`], nothing else
/// may write the files in `dir` while the environment is open.
pub fn open_raw_env(
    dir: &Path,
    map_size: usize,
    write_map: bool,
) -> Result<Env<WithoutTls>, StoreError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        StoreError::Backend(format!(
            "cannot create the directory {}: {e}",
            dir.display()
        ))
    })?;
    env::open(dir, map_size, write_map).map_err(lmdb_error(dir, "opening"))
}

fn prefixed(out: &mut Vec<u8>, key: &[u8]) {
    out.clear();
    out.push(KEY_PREFIX);
    out.extend_from_slice(key);
}

/// The bound of stored keys for `bound` of a scan's upper end: an unbounded end stops before
/// the meta key.
fn prefixed_upper(bound: Bound<&[u8]>) -> Bound<Vec<u8>> {
    match bound {
        Bound::Unbounded => Bound::Excluded(meta::DATA_END.to_vec()),
        bound => prefixed_bound(bound),
    }
}

fn prefixed_bound(bound: Bound<&[u8]>) -> Bound<Vec<u8>> {
    let prefix = |key: &[u8]| {
        let mut out = Vec::with_capacity(key.len() + 1);
        prefixed(&mut out, key);
        out
    };
    match bound {
        Bound::Included(k) => Bound::Included(prefix(k)),
        Bound::Excluded(k) => Bound::Excluded(prefix(k)),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// A pending change: key, and value or `None` for a deletion.
type PendingEntry<'a> = (&'a [u8], Option<&'a [u8]>);

/// The iterator of [`LmdbBackend::range`]: LMDB's entries as of the last flush, merged with the
/// pending changes, in key order.
pub struct LmdbRange<'a> {
    stored: Option<heed::RoRange<'a, Bytes, Bytes>>,
    next_stored: Option<(&'a [u8], &'a [u8])>,
    pending: std::iter::Peekable<std::vec::IntoIter<PendingEntry<'a>>>,
    path: &'a Path,
}

impl<'a> LmdbRange<'a> {
    fn pull_stored(&mut self) -> Result<(), StoreError> {
        if self.next_stored.is_none()
            && let Some(range) = self.stored.as_mut()
        {
            match range.next() {
                Some(Ok((k, v))) => self.next_stored = Some((k.get(1..).unwrap_or_default(), v)),
                Some(Err(e)) => {
                    self.stored = None;
                    return Err(lmdb_error(self.path, "a range scan")(e));
                }
                None => self.stored = None,
            }
        }
        Ok(())
    }
}

impl<'a> Iterator for LmdbRange<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        loop {
            if let Err(e) = self.pull_stored() {
                return Some(Err(e));
            }
            let take_pending = match (self.next_stored, self.pending.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((sk, _)), Some((pk, _))) => {
                    if *pk == sk {
                        // The pending change replaces the stored entry.
                        self.next_stored = None;
                    }
                    *pk <= sk
                }
            };
            if take_pending {
                if let Some((k, Some(v))) = self.pending.next() {
                    return Some(Ok((k, v)));
                }
            } else if let Some(entry) = self.next_stored.take() {
                return Some(Ok(entry));
            }
        }
    }
}

impl StoreBackend for LmdbBackend {
    type Range<'a> = LmdbRange<'a>;

    #[inline]
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError> {
        match self.pending.get(key) {
            Some(value) => Ok(value),
            None => self.stored(key),
        }
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.check_key(key)?;
        self.pending.set(key, Some(value));
        if self.pending.bytes() > FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<bool, StoreError> {
        let present = self.get(key)?.is_some();
        if present {
            self.pending.set(key, None);
        }
        Ok(present)
    }

    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<LmdbRange<'a>, StoreError> {
        let pending = self.pending.sorted(from, to).into_iter().peekable();
        let stored = if inverted(&from, &to) {
            None
        } else {
            let bounds = (prefixed_bound(from), prefixed_upper(to));
            let bounds = (
                bounds.0.as_ref().map(Vec::as_slice),
                bounds.1.as_ref().map(Vec::as_slice),
            );
            Some(
                self.db
                    .range(self.snapshot()?, &bounds)
                    .map_err(lmdb_error(&self.path, "a range scan"))?,
            )
        };
        Ok(LmdbRange {
            stored,
            next_stored: None,
            pending,
            path: &self.path,
        })
    }

    fn clear(&mut self) -> Result<(), StoreError> {
        self.pending.clear();
        // Clearing removes the offset too: an empty store reflects no changelog position.
        self.offset = None;
        self.write(|db, wtxn| db.clear(wtxn), 0)
    }

    fn len(&self) -> usize {
        let Ok(snapshot) = self.snapshot() else {
            return 0;
        };
        let meta = u64::from(matches!(
            self.db.get(snapshot, meta::OFFSET_KEY),
            Ok(Some(_))
        ));
        let stored = self.db.len(snapshot).unwrap_or(0).saturating_sub(meta);
        let mut len = i64::try_from(stored).unwrap_or(i64::MAX);
        for (key, value) in self.pending.sorted(Bound::Unbounded, Bound::Unbounded) {
            let was = matches!(self.stored(key), Ok(Some(_)));
            len += i64::from(value.is_some()) - i64::from(was);
        }
        usize::try_from(len).unwrap_or(0)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        if self.pending.len() == 0 {
            return Ok(());
        }
        // No commit confirms these writes: the offset goes in the same transaction.
        self.write_pending(None)
    }

    fn flush_at(&mut self, changelog_offset: i64) -> Result<(), StoreError> {
        if self.pending.len() == 0 && self.offset == Some(changelog_offset) {
            return Ok(());
        }
        self.write_pending(Some(changelog_offset))
    }

    fn changelog_offset(&self) -> Option<i64> {
        self.offset
    }

    fn discard_pending(&mut self) -> Result<bool, StoreError> {
        self.pending.clear();
        Ok(self.offset.is_some())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.flush()?;
        self.env
            .force_sync()
            .map_err(lmdb_error(&self.path, "syncing to disk"))
    }
}

impl LmdbBackend {
    /// Writes the pending changes and `offset` (`None`: removes it) in one write transaction.
    fn write_pending(&mut self, offset: Option<i64>) -> Result<(), StoreError> {
        let pending = std::mem::take(&mut self.pending);
        let room = pending.bytes();
        let entries = pending.sorted(Bound::Unbounded, Bound::Unbounded);
        let mut key = Vec::with_capacity(64);
        let result = self.write(
            |db, wtxn| {
                for (k, v) in &entries {
                    prefixed(&mut key, k);
                    match v {
                        Some(v) => db.put(wtxn, &key, v)?,
                        None => {
                            db.delete(wtxn, &key)?;
                        }
                    }
                }
                meta::write_offset(db, wtxn, offset)
            },
            room,
        );
        drop(entries);
        self.pending = pending;
        if result.is_ok() {
            self.pending.clear();
            self.offset = offset;
        }
        result
    }
}

/// Opens an [`LmdbBackend`] for every store, under
/// `<state dir>/<application id>/<subtopology>_<partition>/<store name>`.
///
/// The runtime locks the task directory (`<subtopology>_<partition>`) before the task's stores
/// are opened; see [`crate::state_dir`].
#[derive(Debug, Clone)]
pub struct LmdbStores {
    root: PathBuf,
}

impl LmdbStores {
    /// Stores under the state directory `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LmdbStores { root: root.into() }
    }

    /// The directory of `store` of the task (`subtopology`, `partition`) of `application_id`.
    pub fn store_dir(
        &self,
        application_id: &str,
        subtopology: &str,
        partition: i32,
        store: &str,
    ) -> PathBuf {
        crate::state_dir::task_dir(&self.root, application_id, subtopology, partition).join(store)
    }
}

impl BackendFactory for LmdbStores {
    type Backend = super::MixedBackend;
    /// Opens the store's LMDB environment, or a store in memory for one the topology keeps
    /// there (`in_memory()`).
    fn open(
        &mut self,
        application_id: &str,
        subtopology: &str,
        partition: i32,
        store: &StoreInfo,
    ) -> Result<super::MixedBackend, StoreError> {
        if store.in_memory {
            return super::MemoryStores
                .open(application_id, subtopology, partition, store)
                .map(super::MixedBackend::Memory);
        }
        self.open_on_disk(application_id, subtopology, partition, store)
            .map(super::MixedBackend::Lmdb)
    }
}

impl LmdbStores {
    /// Opens (or creates) the LMDB environment of `store` in its task's directory.
    fn open_on_disk(
        &mut self,
        application_id: &str,
        subtopology: &str,
        partition: i32,
        store: &StoreInfo,
    ) -> Result<LmdbBackend, StoreError> {
        let dir = self.store_dir(application_id, subtopology, partition, store.name);
        match LmdbBackend::open(&dir) {
            // A damaged environment is a cache of the changelog: delete it and rebuild. Nothing
            // else is answered by deleting: a store that cannot be opened for lack of
            // permissions, files or space is as good as ever once the cause is fixed.
            Err(StoreError::Damaged { reason, .. }) => {
                tracing::warn!(path = %dir.display(), reason, "the store's LMDB environment is damaged; deleting it and rebuilding the store from its changelog");
                std::fs::remove_dir_all(&dir).map_err(|e| {
                    StoreError::Backend(format!(
                        "cannot delete the damaged store directory {}: {e} (delete it by hand \
                         while the application is stopped)",
                        dir.display()
                    ))
                })?;
                LmdbBackend::open(&dir)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests;
