//! The only `unsafe` of the LMDB stores: opening an environment and resizing its map.
//!
//! heed marks both `unsafe` because LMDB memory-maps its file:
//!
//! - **Opening** is undefined behaviour if the file is modified behind LMDB's back (another
//!   process writing it without LMDB's lock, a truncation, a network file system). Every
//!   environment lives in a task directory that the runtime locks for the time the task runs
//!   ([`crate::state_dir`]), and one state directory is locked by one running application,
//!   so nothing else of ours opens or writes it; LMDB's own lock file covers readers. The
//!   bare environments of [`super::open_raw_env`] (a benchmark's, in a directory of its own)
//!   are under the same rule, which that function's documentation passes on to its caller, as
//!   [`super::LmdbBackend::open`]'s does.
//! - **Resizing** is undefined behaviour while a transaction of this process is active on the
//!   environment. Each environment belongs to exactly one [`super::LmdbBackend`] (one store of
//!   one task), which resizes only from `&mut self` after it has dropped its read
//!   transaction and before it opens a write transaction.

use std::path::Path;

use heed::{Env, EnvFlags, EnvOpenOptions, WithoutTls};

/// The map size a new environment starts with. The map grows as the store does.
pub(super) const INITIAL_MAP_SIZE: usize = 64 << 20;

/// Opens (creating if needed) the environment in `dir`, which must exist.
///
/// # Sync flags and what survives what
///
/// The environment records, with every committed flush, the changelog offset its contents
/// reflect (see `meta`), and the runtime trusts a store after a restart only through that
/// offset. The flags are chosen so that the offset can never be ahead of, or disagree with,
/// the data on disk:
///
/// - `NO_META_SYNC`: a write transaction's data pages are written and `fdatasync`ed at commit,
///   its meta page (which points at the new root) is written but not synced; the next commit
///   or the kernel's writeback syncs it. LMDB's documentation: "a system crash can undo the last
///   committed transaction. I.e. it preserves the ACI (atomicity, consistency, isolation) but
///   not D (durability) database property."
/// - Not `NO_SYNC`, not `WRITE_MAP` + `MAP_ASYNC`: with those, a power loss can leave the file
///   corrupt (pages of a newer transaction referenced, or missing), not merely older.
/// - Not `WRITE_MAP` alone either, though it would keep all of the above: LMDB then changes
///   the pages in a writable map, `msync`s (`MS_SYNC`) the file's used part at commit and only
///   after that stores the meta page in the map, its transaction id last (`mdb_env_sync0`,
///   `mdb_env_write_meta` in `mdb.c`), so data still reaches the disk before the meta that
///   names it; pages of an unfinished transaction are free pages that neither kept meta names.
///   It writes the same pages; `bench-state` (4 December 2026, LMDB driven directly) measured
///   it 1.09x to 1.12x faster on a quiet machine (its commits 28% shorter) and 0.91x to 1.06x,
///   within the noise, on a loaded one. Not adopted for what it costs: the file is extended to
///   the whole map size (sparse), and a full disk kills the process with `SIGBUS` on a write
///   into the map instead of failing the flush with an error.
///
/// So: a **process crash** (`SIGKILL`, panic, OOM kill) loses nothing LMDB committed: its pages
/// are in the kernel's page cache. A **power loss or kernel crash** can roll the environment
/// back to an earlier committed transaction (the last one or a few), data and offset together,
/// never to a mix; the restore then replays a longer changelog tail. A file damaged anyway
/// (a disk failing) that LMDB refuses to open is deleted and rebuilt from the changelog
/// ([`super::LmdbStores`]).
///
/// Also: no read-ahead (state larger than memory is read at random), and read transactions not
/// bound to a thread (`WithoutTls`).
///
/// `write_map` adds `MDB_WRITEMAP` (only the benchmark's direct passes ask for it, see
/// [`super::open_raw_env`]): the transaction's pages are written into a writable map and
/// `msync`ed (`MS_SYNC`) at commit instead of `pwrite` + `fdatasync`.
pub(super) fn open(dir: &Path, map_size: usize, write_map: bool) -> heed::Result<Env<WithoutTls>> {
    let mut options = EnvOpenOptions::new().read_txn_without_tls();
    options.map_size(map_size).max_dbs(0).max_readers(8);
    let mut flags = EnvFlags::NO_META_SYNC | EnvFlags::NO_READ_AHEAD;
    if write_map {
        flags |= EnvFlags::WRITE_MAP;
    }
    // SAFETY: the flags change durability, not memory safety (`WRITE_MAP` too: a write
    // transaction writes only pages that no live read transaction can see).
    unsafe {
        options.flags(flags);
    }
    // SAFETY: `dir` is inside a task directory locked by this process for as long as the
    // environment is open (see the module documentation); nothing else maps or writes it.
    unsafe { options.open(dir) }
}

/// Grows the map of `env` to `new_size` bytes (a multiple of the page size).
///
/// # Safety
///
/// No transaction of this process may be active on `env`. The caller owns the environment
/// alone ([`super::LmdbBackend`]) and has dropped its read transaction.
pub(super) unsafe fn resize(env: &Env<WithoutTls>, new_size: usize) -> heed::Result<()> {
    // SAFETY: upheld by the caller.
    unsafe { env.resize(new_size) }
}
