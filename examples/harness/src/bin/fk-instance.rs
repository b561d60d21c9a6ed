//! One instance of the foreign-key join broker test (`tests/kafka_fk_join.rs`): orders joined
//! with their customers by the customer id in the order's value, run on Kafka with settings
//! from the environment (see [`dekaf_streams_examples::runner`]) until SIGTERM, or a SIGKILL by
//! the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams_examples::runner::run_on_kafka;

/// `"cust-3:item-17"` → `"cust-3"`.
fn customer_of(order: &str) -> String {
    order.split(':').next().unwrap_or_default().to_owned()
}

topology! {
    /// Orders (on 2 partitions) joined with customers (on 3 partitions) by foreign key.
    pub FkEos = "kfk-eos" {
        let orders = table("kfk-orders", Utf8, Utf8, "kfk-orders-store");
        let customers = table("kfk-customers", Utf8, Utf8, "kfk-customers-store");
        orders
            .join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, name: &String| format!("{order}@{name}"),
            )
            .to_stream()
            .to("kfk-joined", Utf8, Nullable::<Utf8>);
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| customer_of(order),
                |order: &String, name: Option<&String>| {
                    format!("{order}@{}", name.map_or("-", |n| n.as_str()))
                },
            )
            .to_stream()
            .to("kfk-left-joined", Utf8, Nullable::<Utf8>);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(FkEos).await
}
