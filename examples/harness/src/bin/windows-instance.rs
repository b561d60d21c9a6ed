//! Runs one windowed topology of [`dekaf_streams_harness::windows_e2e`] on Kafka in its own
//! process, for the broker tests of session, sliding and emit-final windows and cogroup:
//! `windows-instance e2e-win-session|e2e-win-sliding|e2e-win-final|e2e-win-cogroup`. Settings come from the
//! environment (see [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams_examples::runner::run_on_kafka;
use dekaf_streams_harness::windows_e2e::{
    APPLICATIONS, WinCogroup, WinFinal, WinSession, WinSliding,
};

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("e2e-win-session") => run_on_kafka(WinSession).await,
        Some("e2e-win-sliding") => run_on_kafka(WinSliding).await,
        Some("e2e-win-final") => run_on_kafka(WinFinal).await,
        Some("e2e-win-cogroup") => run_on_kafka(WinCogroup).await,
        _ => {
            eprintln!("usage: windows-instance {}", APPLICATIONS.join("|"));
            ExitCode::from(2)
        }
    }
}
