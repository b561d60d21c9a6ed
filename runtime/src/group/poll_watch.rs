//! The bound on how long a member's owner may stay away from its loop: Kafka's
//! `max.poll.interval.ms`.
//!
//! A member heartbeats from a tokio task of its own, so an owner stuck in user code (a closure
//! that blocks) would keep the member, and its tasks, alive forever. The owner
//! [`touch`](PollWatch::touch)es the watch each time it comes back to its loop (it polls); the
//! member checks it, and when the owner has not polled for the bound it leaves the group (as
//! Kafka's consumer does when `max.poll.interval.ms` expires) so the coordinator gives the tasks
//! to others, and [marks](PollWatch::expired) the watch. The owner, once back, sees the mark,
//! drops its tasks without committing and has the member rejoin.
//!
//! Long before the bound, once the owner has been away for a fifth of it, the member warns
//! (once per absence) and names what the owner was last doing ([`Phase`], which the owner sets
//! as it goes): a thread stuck anywhere shows in the log while it is stuck, not only when the
//! bound passes.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The default bound: 300 s, Kafka's `max.poll.interval.ms` default.
pub const DEFAULT_MAX_POLL_INTERVAL: Duration = Duration::from_secs(300);

#[derive(Debug)]
struct Shared {
    /// What `last_ms` counts from.
    origin: Instant,
    /// When the owner last polled, in ms since `origin`.
    last_ms: AtomicU64,
    /// The bound.
    max: Duration,
    /// Set when the member left because the bound passed; cleared by the owner.
    expired: AtomicBool,
    /// What the owner is doing ([`Phase`] as a number).
    phase: AtomicU8,
}

/// What a processing thread is doing, as its watch last heard: named in the warning about a
/// thread that stays away from its loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Polling records and passing them through the tasks (user code included).
    Processing = 0,
    /// Committing: flushing caches and changelogs, waiting for acknowledgements, committing
    /// offsets (or the transaction).
    Committing = 1,
    /// Taking on newly assigned tasks: committed offsets, restoring their stores.
    Assigning = 2,
    /// Handing over revoked tasks: committing and closing them.
    Revoking = 3,
    /// Running wall-clock punctuators (user code).
    Punctuating = 4,
    /// Aborting an interval and rewinding to the committed offsets.
    Rewinding = 5,
}

impl Phase {
    const ALL: [Phase; 6] = [
        Phase::Processing,
        Phase::Committing,
        Phase::Assigning,
        Phase::Revoking,
        Phase::Punctuating,
        Phase::Rewinding,
    ];

    /// A few words for the log.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Processing => "processing records",
            Phase::Committing => "committing",
            Phase::Assigning => "taking on assigned tasks (offsets, restore)",
            Phase::Revoking => "committing and closing revoked tasks",
            Phase::Punctuating => "running wall-clock punctuators",
            Phase::Rewinding => "aborting and rewinding to the committed offsets",
        }
    }
}

/// When a member's owner last came back to its loop, shared by the owner and the member.
#[derive(Debug, Clone)]
pub struct PollWatch(Arc<Shared>);

thread_local! {
    /// The watch of the owner running on this thread, for waits deep in the runtime (restores,
    /// retried lookups) that are not user code and count as polling.
    static CURRENT: RefCell<Option<PollWatch>> = const { RefCell::new(None) };
}

impl PollWatch {
    /// A watch with bound `max`, polled now.
    pub fn new(max: Duration) -> Self {
        PollWatch(Arc::new(Shared {
            origin: Instant::now(),
            last_ms: AtomicU64::new(0),
            max,
            expired: AtomicBool::new(false),
            phase: AtomicU8::new(Phase::Processing as u8),
        }))
    }

    /// The bound.
    pub fn max(&self) -> Duration {
        self.0.max
    }

    /// The owner polled: one relaxed atomic store.
    #[inline]
    pub fn touch(&self) {
        let ms = u64::try_from(self.0.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.last_ms.store(ms, Ordering::Relaxed);
    }

    /// The owner is now doing `phase`: one relaxed atomic store.
    #[inline]
    pub fn set_phase(&self, phase: Phase) {
        self.0.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// What the owner said it is doing.
    pub fn phase(&self) -> Phase {
        let n = usize::from(self.0.phase.load(Ordering::Relaxed));
        Phase::ALL.get(n).copied().unwrap_or(Phase::Processing)
    }

    /// After how long away the member warns: a fifth of the bound.
    pub fn warn_after(&self) -> Duration {
        self.0.max / 5
    }

    /// When the owner last polled.
    pub fn last_poll(&self) -> Instant {
        self.0.origin + Duration::from_millis(self.0.last_ms.load(Ordering::Relaxed))
    }

    /// How long since the owner last polled.
    pub fn since_poll(&self) -> Duration {
        self.last_poll().elapsed()
    }

    /// Whether the member left the group because the bound passed, and the owner has not
    /// taken note yet.
    pub fn expired(&self) -> bool {
        self.0.expired.load(Ordering::Acquire)
    }

    /// Marks the watch expired (the member left).
    pub(crate) fn expire(&self) {
        self.0.expired.store(true, Ordering::Release);
    }

    /// Takes note of an expiry: clears the mark, returning whether it was set.
    pub fn take_expired(&self) -> bool {
        self.0.expired.swap(false, Ordering::AcqRel)
    }

    /// Makes this the watch of the owner running on this thread (the runtime's own long waits touch it).
    pub fn install(&self) {
        CURRENT.with(|current| *current.borrow_mut() = Some(self.clone()));
    }
}

/// Touches the watch of the owner running on this thread, if any: for the runtime's own long
/// waits (a restore, a lookup retried while a broker restarts), which are not user code stuck.
pub(crate) fn touch_current() {
    CURRENT.with(|current| {
        if let Some(watch) = current.borrow().as_ref() {
            watch.touch();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_measures_the_time_since_the_last_poll_and_keeps_its_mark_until_taken() {
        let watch = PollWatch::new(Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(60));
        assert!(watch.since_poll() >= Duration::from_millis(50));
        watch.install();
        touch_current();
        assert!(watch.since_poll() < Duration::from_millis(50));
        assert!(!watch.expired());
        watch.expire();
        assert!(watch.expired());
        assert!(watch.take_expired());
        assert!(!watch.expired() && !watch.take_expired());
    }

    #[test]
    fn a_watch_names_the_phase_its_owner_set_last() {
        let watch = PollWatch::new(Duration::from_secs(300));
        assert_eq!(watch.phase(), Phase::Processing);
        for phase in Phase::ALL {
            watch.set_phase(phase);
            assert_eq!(watch.phase(), phase);
        }
        assert_eq!(watch.warn_after(), Duration::from_secs(60));
    }
}
