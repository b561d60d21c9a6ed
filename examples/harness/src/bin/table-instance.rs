//! One instance of the table broker test (`tests/kafka_tables.rs`): a table-table join and a
//! re-grouped count of the same tables, run on Kafka with settings from the environment (see
//! [`dekaf_streams_examples::runner`]) until SIGTERM, or a SIGKILL by the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams_examples::runner::run_on_kafka;

topology! {
    /// Accounts joined with their owners' names, and the number of accounts per plan.
    pub TablesEos = "kt-eos" {
        let accounts = table("kt-accounts", Utf8, Utf8);
        let owners = table("kt-owners", Utf8, Utf8);
        accounts
            .join(owners, |plan: &String, owner: &String| format!("{plan}@{owner}"))
            .to_stream()
            .to("kt-joined", Utf8, Nullable::<Utf8>);
        accounts
            .group_by(|account: &String, plan: String| (plan, account.clone()), Utf8, Utf8)
            .count("kt-per-plan")
            .to_stream()
            .to("kt-plan-counts", Utf8, Nullable::<I64>);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(TablesEos).await
}
