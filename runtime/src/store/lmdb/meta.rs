//! The changelog offset an LMDB store's contents reflect, kept in the store's own environment.
//!
//! Every data key of a store starts with the byte `0x00` ([`super::KEY_PREFIX`]); the one meta
//! key starts with `0x01`, so it sorts after every data key and the store's scans stop before
//! it. It holds the offset of the first changelog record the store does **not** reflect yet
//! (where a restore resumes), 8 bytes big-endian.
//!
//! The offset is written in the same LMDB write transaction as the store writes it describes,
//! and only by a flush the runtime makes after a commit succeeded
//! ([`LmdbBackend::flush_at`](super::LmdbBackend)), so it never names writes that Kafka did not
//! commit. Any other write transaction (a store flushing on its own because its pending
//! writes grew large, a `clear`) deletes the offset in the same transaction: from then until
//! the next `flush_at` the environment may hold uncommitted writes and counts as untrusted
//! (rebuilt from the changelog after a crash). LMDB's commit is atomic, so data and offset
//! never disagree on disk, whatever point a process is killed at.
//!
//! The key's name carries a format version: environments written by older versions (with no
//! offset, or one of another format) are rebuilt.

use heed::types::Bytes;
use heed::{Database, RoTxn, RwTxn, WithoutTls};

/// The meta key: after every data key (those start with `0x00`).
pub(super) const OFFSET_KEY: &[u8] = b"\x01dekaf-streams changelog offset v1";

/// The first byte no data key has: the exclusive upper bound of an unbounded scan.
pub(super) const DATA_END: &[u8] = &[0x01];

/// The offset recorded in the environment, if any (a malformed value counts as none).
pub(super) fn read_offset(
    db: &Database<'static, Bytes, Bytes>,
    txn: &RoTxn<'_, WithoutTls>,
) -> heed::Result<Option<i64>> {
    Ok(db
        .get(txn, OFFSET_KEY)?
        .and_then(|v| <[u8; 8]>::try_from(v).ok())
        .map(i64::from_be_bytes)
        .filter(|o| *o >= 0))
}

/// Records `offset` in `wtxn`, or removes the record (`None`: the contents are untrusted).
pub(super) fn write_offset(
    db: &Database<'static, Bytes, Bytes>,
    wtxn: &mut RwTxn<'_>,
    offset: Option<i64>,
) -> heed::Result<()> {
    match offset {
        Some(offset) => db.put(wtxn, OFFSET_KEY, &offset.to_be_bytes()),
        None => db.delete(wtxn, OFFSET_KEY).map(|_| ()),
    }
}
