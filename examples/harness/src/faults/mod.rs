//! A fault harness for a replicated cluster (`scripts/kafka.sh start --brokers 3`): word-count
//! instances as child processes ([`instance`]), broker control through the script's per-node
//! commands ([`cluster`]), and an independent exactly-once check written with plain rdkafka
//! clients, not the runtime's helpers ([`verify`]). [`scenario`] puts them together: input is
//! produced while a fault happens, then every key's output must be exactly `1..=n`, `n` being
//! its count in the input as a separate read_committed consumer reads it back.
//!
//! Used by `tests/cluster_faults.rs` (one test per fault) and the `fault-kill-loop` binary
//! (random SIGKILLs of instances, run after run).

pub mod cluster;
pub mod instance;
pub mod mixed;
pub mod proxy;
pub mod scenario;
pub mod verify;

use dekaf_streams::prelude::*;

// `word_count_topology!` comes from `e2e` (`#[macro_use]` in lib.rs).

word_count_topology!(
    /// SIGKILL of the broker leading the input partitions.
    LeaderKill = "fault-leader", "fault-leader-in" -> "fault-leader-out"
);
word_count_topology!(
    /// SIGKILL of the group coordinator's broker.
    CoordinatorKill = "fault-coord", "fault-coord-in" -> "fault-coord-out"
);
word_count_topology!(
    /// A rolling restart of every broker.
    Rolling = "fault-rolling", "fault-rolling-in" -> "fault-rolling-out"
);
word_count_topology!(
    /// Every broker down for 30 s.
    AllDown = "fault-alldown", "fault-alldown-in" -> "fault-alldown-out"
);
word_count_topology!(
    /// Started while no broker is reachable.
    NoBrokerAtStart = "fault-nostart", "fault-nostart-in" -> "fault-nostart-out"
);
word_count_topology!(
    /// A member fenced (paused past its session and transaction timeouts) at commit time.
    Fenced = "fault-fenced", "fault-fenced-in" -> "fault-fenced-out"
);
word_count_topology!(
    /// The group coordinator moving to another broker (a clean stop of its broker).
    CoordinatorMove = "fault-move", "fault-move-in" -> "fault-move-out"
);
word_count_topology!(
    /// The random instance SIGKILL loop.
    KillLoop = "fault-loop", "fault-loop-in" -> "fault-loop-out"
);

/// The application ids the `fault-instance` binary runs.
pub const APPLICATIONS: &[&str] = &[
    "fault-leader",
    "fault-coord",
    "fault-rolling",
    "fault-alldown",
    "fault-nostart",
    "fault-fenced",
    "fault-move",
    "fault-loop",
];
