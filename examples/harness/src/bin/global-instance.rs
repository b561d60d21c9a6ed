//! One instance of the global table broker test (`tests/kafka_global_table.rs`): orders joined
//! with a global table of customers, run on Kafka with settings from the environment (see
//! [`dekaf_streams_examples::runner`]) until SIGTERM, or a SIGKILL by the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams_examples::runner::run_on_kafka;

/// `"cust-3:item-17"` → `"cust-3"`.
fn customer_of(order: &str) -> String {
    order.split(':').next().unwrap_or_default().to_owned()
}

topology! {
    /// Orders (keyed by order id, on 3 partitions) enriched with their customer's name from a
    /// global table (on 2 partitions: no co-partitioning).
    pub GlobalEos = "kg-eos" {
        let customers = global_table("kg-customers", Utf8, Utf8);
        stream("kg-orders", Utf8, Utf8)
            .join(
                customers,
                |_order: &String, value: &String| customer_of(value),
                |value: String, name: String| format!("{value}@{name}"),
            )
            .to("kg-enriched", Utf8, Utf8);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(GlobalEos).await
}
