//! One word-count instance of the fault harness ([`dekaf_streams_harness::faults`]):
//! `fault-instance <application id>`, settings from the environment (see
//! [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_harness::faults::{
    APPLICATIONS, AllDown, CoordinatorKill, CoordinatorMove, Fenced, KillLoop, LeaderKill,
    NoBrokerAtStart, Rolling,
};

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("fault-leader") => run_on_kafka(LeaderKill).await,
        Some("fault-coord") => run_on_kafka(CoordinatorKill).await,
        Some("fault-rolling") => run_on_kafka(Rolling).await,
        Some("fault-alldown") => run_on_kafka(AllDown).await,
        Some("fault-nostart") => run_on_kafka(NoBrokerAtStart).await,
        Some("fault-fenced") => run_on_kafka(Fenced).await,
        Some("fault-move") => run_on_kafka(CoordinatorMove).await,
        Some("fault-loop") => run_on_kafka(KillLoop).await,
        _ => {
            eprintln!("usage: fault-instance {}", APPLICATIONS.join("|"));
            ExitCode::from(2)
        }
    }
}
