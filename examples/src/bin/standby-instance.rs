//! The word count of the standby failover test (`tests/standby_failover.rs`), as a child
//! process the test can SIGKILL: application `standby-failover`, input `standby-failover-in`,
//! output `standby-failover-out`, store `counts`. Settings from the environment (see
//! [`dekaf_streams_examples::runner`]).

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;

topology! {
    /// Word count whose `counts` store the group keeps a standby replica of.
    pub StandbyFailover = "standby-failover" {
        stream("standby-failover-in", Utf8, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("standby-failover-out", Utf8, I64);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(StandbyFailover).await
}
