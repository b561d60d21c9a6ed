//! One instance of the versioned table broker test (`tests/kafka_versioned.rs`): orders joined
//! with the price valid when they were placed, through a grace buffer, run on Kafka with
//! settings from the environment (see [`dekaf_streams_examples::runner`]) until SIGTERM, or a
//! SIGKILL by the test.

use std::process::ExitCode;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams_examples::runner::run_on_kafka;

topology! {
    /// Each order (key: product, value: order number) with the product's price at the order's
    /// time; the price table's changes, so the test knows when all prices were read.
    pub VersionedEos = "kv-eos" {
        let prices = table("kv-prices", Utf8, I64, "kv-price-store")
            .versioned(Duration::from_mins(60));
        prices.to_stream().to("kv-price-changes", Utf8, Nullable::<I64>);
        stream("kv-orders", Utf8, I64)
            .left_join(
                prices,
                |order: i64, price: Option<i64>| format!("{order}:{}", price.map_or(-1, |p| p)),
                grace(Duration::from_secs(2)),
            )
            .to("kv-priced", Utf8, Utf8);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    run_on_kafka(VersionedEos).await
}
