//! Runs one topology of [`dekaf_streams_harness::e2e`] on Kafka, in its own process, for the
//! end-to-end tests: `e2e-instance wc-two|wc-kill|wc-alos|wc-scale|wc-ctwo|wc-ckill|wc-state-kill|wc-recovery|join-kill`. Settings come from the
//! environment (see [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_harness::e2e::{
    WcAlos, WcCachedKill, WcCachedTwo, WcKill, WcRecovery, WcScale, WcStateKill, WcTwo,
};

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("wc-two") => run_on_kafka(WcTwo).await,
        Some("wc-kill") => run_on_kafka(WcKill).await,
        Some("wc-alos") => run_on_kafka(WcAlos).await,
        Some("wc-scale") => run_on_kafka(WcScale).await,
        Some("wc-state-kill") => run_on_kafka(WcStateKill).await,
        Some("wc-recovery") => run_on_kafka(WcRecovery).await,
        Some("wc-ctwo") => run_on_kafka(WcCachedTwo).await,
        Some("wc-ckill") => run_on_kafka(WcCachedKill).await,
        Some("join-kill") => run_on_kafka(dekaf_streams_examples::stream_joins::JoinKill).await,
        _ => {
            eprintln!(
                "usage: e2e-instance wc-two|wc-kill|wc-alos|wc-scale|wc-ctwo|wc-ckill|wc-state-kill|wc-recovery|join-kill"
            );
            ExitCode::from(2)
        }
    }
}
