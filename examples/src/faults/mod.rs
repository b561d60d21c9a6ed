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
pub mod scenario;
pub mod verify;

use dekaf_streams::prelude::*;

/// Defines a word-count topology with its own application id and topics (`<id>-in`, `<id>-out`).
macro_rules! fault_word_count {
    ($(#[$meta:meta])* $name:ident = $app:tt, $input:tt -> $output:tt) => {
        topology! {
            $(#[$meta])*
            pub $name = $app {
                stream($input, Utf8, Utf8)
                    .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
                    .group_by(|_key, word| word.clone(), Utf8, Utf8)
                    .count("counts")
                    .to_stream()
                    .to($output, Utf8, I64);
            }
        }
    };
}

fault_word_count!(
    /// SIGKILL of the broker leading the input partitions.
    LeaderKill = "fault-leader", "fault-leader-in" -> "fault-leader-out"
);
fault_word_count!(
    /// SIGKILL of the group coordinator's broker.
    CoordinatorKill = "fault-coord", "fault-coord-in" -> "fault-coord-out"
);
fault_word_count!(
    /// A rolling restart of every broker.
    Rolling = "fault-rolling", "fault-rolling-in" -> "fault-rolling-out"
);
fault_word_count!(
    /// Every broker down for 30 s.
    AllDown = "fault-alldown", "fault-alldown-in" -> "fault-alldown-out"
);
fault_word_count!(
    /// Started while no broker is reachable.
    NoBrokerAtStart = "fault-nostart", "fault-nostart-in" -> "fault-nostart-out"
);
fault_word_count!(
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
    "fault-loop",
];
