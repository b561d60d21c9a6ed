//! The word counts of the standby failover tests (`tests/standby_failover.rs`), as child
//! processes the tests can SIGKILL: `standby-instance <application id>` with application
//! `standby-failover`, `standby-midrun`, `standby-memory` or `standby-none`, input `<id>-in`,
//! output `<id>-out`, store `counts`. Settings from the environment (see
//! [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;

macro_rules! standby_word_count {
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

standby_word_count!(
    /// SIGKILL of an idle instance once its standbys caught up.
    StandbyFailover = "standby-failover", "standby-failover-in" -> "standby-failover-out"
);
standby_word_count!(
    /// SIGKILL of an instance in the middle of counting.
    StandbyMidRun = "standby-midrun", "standby-midrun-in" -> "standby-midrun-out"
);

standby_word_count!(
    /// SIGKILL of an idle instance, stores in memory.
    StandbyMemory = "standby-memory", "standby-memory-in" -> "standby-memory-out"
);
standby_word_count!(
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
