//! The commit interval in progress: the part of a processing thread's state that processing adds
//! to (its transaction, its changelog records) and that a commit ([`commit`](super::commit)) or
//! an abort ([`abort`](super::abort)) ends.

use std::time::Instant;

use super::changelog_buffer::ChangelogBuffer;

/// The commit interval in progress, and how the last commits went: the part of a thread's state
/// that processing adds to (its transaction, its changelog records) and a commit or an abort
/// ends.
pub(super) struct Interval {
    /// Under exactly-once: the interval's transaction has begun.
    pub(super) txn_open: bool,
    /// Changelog records of the interval, one per key.
    pub(super) changelog: ChangelogBuffer,
    /// Commits aborted in a row.
    pub(super) failed_commits: u32,
    /// When the last commit ended.
    pub(super) last_commit: Instant,
    /// When committed repartition records were last purged.
    pub(super) last_purge: Instant,
    /// A shutdown came while a transactional call or a restore waited for an unreachable
    /// cluster, and the thread gave up on it: the interval's outcome is unknown, so the thread
    /// closes without committing or marking tasks closed (the broker aborts the open transaction
    /// after `transaction.timeout.ms`; the next producer with this transactional id aborts it at
    /// once).
    pub(super) interrupted: bool,
    /// A task asked for a commit (`ctx.commit()` of a processor): the thread commits once the
    /// batch in hand is done. Cleared when a commit begins or the interval is aborted.
    pub(super) commit_requested: bool,
}

impl Interval {
    /// The first interval of a thread running the topology of `info`.
    pub(super) fn new(info: &crate::topology::TopologyInfo) -> Self {
        Interval {
            txn_open: false,
            changelog: ChangelogBuffer::new(info),
            failed_commits: 0,
            last_commit: Instant::now(),
            last_purge: Instant::now(),
            interrupted: false,
            commit_requested: false,
        }
    }
}
