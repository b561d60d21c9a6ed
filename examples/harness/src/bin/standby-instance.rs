//! The word counts of the standby failover tests (`tests/standby_failover.rs`), as child
//! processes the tests can SIGKILL: `standby-instance <application id>` with application
//! `standby-failover`, `standby-midrun`, `standby-memory` or `standby-none`, input `<id>-in`,
//! output `<id>-out`, store `counts`. Settings from the environment (see
//! [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_harness::word_count_topology;

word_count_topology!(
    /// SIGKILL of an idle instance once its standbys caught up.
    StandbyFailover = "standby-failover", "standby-failover-in" -> "standby-failover-out"
);
word_count_topology!(
    /// SIGKILL of an instance in the middle of counting.
    StandbyMidRun = "standby-midrun", "standby-midrun-in" -> "standby-midrun-out"
);

word_count_topology!(
    /// SIGKILL of an idle instance, stores in memory.
    StandbyMemory = "standby-memory", "standby-memory-in" -> "standby-memory-out"
);
word_count_topology!(
    /// The same SIGKILL without standby replicas.
    StandbyNone = "standby-none", "standby-none-in" -> "standby-none-out"
);

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("standby-failover") => run_on_kafka(StandbyFailover).await,
        Some("standby-midrun") => run_on_kafka(StandbyMidRun).await,
        Some("standby-memory") => run_on_kafka(StandbyMemory).await,
        Some("standby-none") => run_on_kafka(StandbyNone).await,
        _ => {
            eprintln!(
                "usage: standby-instance standby-failover|standby-midrun|standby-memory|standby-none"
            );
            ExitCode::from(2)
        }
    }
}
