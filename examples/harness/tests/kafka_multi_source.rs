//! A source of several topics (`stream(["a", "b"], ..)`, Kafka Streams' `builder.stream(List)`)
//! whose topics have different partition counts, on a real broker: the coordinator makes as
//! many tasks as the larger topic has partitions, and the task of a partition only one topic
//! has reads that one and is not held back waiting for the other topic's partition, which does
//! not exist. Every record is processed.
//!
//! Needs a broker (`DEKAF_BOOTSTRAP`, see `scripts/kafka.sh`).

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::prelude::*;
use dekaf_streams::task::Partitioning;
use dekaf_streams_harness::e2e::{InProcess, fresh, read_values};
use dekaf_streams_harness::kafka_io::{NewRecord, bootstrap, produce_records};

topology! {
    /// Clicks from the web (3 partitions) and the app (1 partition), merged.
    pub Merged = "e2e-multi-source" {
        stream(["ms-web", "ms-app"], Utf8, Utf8).to("ms-out", Utf8, Utf8);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_only_one_topic_has_is_processed() {
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-multi-source",
        &[("ms-web", 3), ("ms-app", 1), ("ms-out", 1)],
    )
    .await;
    // Four records on each partition of each topic (keys chosen by their partition).
    let mut sent = Vec::new();
    for (topic, partitions) in [("ms-web", 3), ("ms-app", 1)] {
        let mut records: Vec<(String, String)> = Vec::new();
        for p in 0..partitions {
            let keys = (0..)
                .map(|i| format!("k{i}"))
                .filter(|k| {
                    Partitioning::ByKey.partition(Some(k.as_bytes()), partitions) == Some(p)
                })
                .take(4);
            for (i, key) in keys.enumerate() {
                records.push((key, format!("{topic}-{p}-{i}")));
            }
        }
        produce_records(
            &servers,
            topic,
            records.iter().map(|(k, v)| NewRecord {
                key: Some(k.as_bytes()),
                value: Some(v.as_bytes()),
                ..NewRecord::default()
            }),
        )
        .await
        .expect("produce");
        sent.extend(records.into_iter().map(|(_, v)| v));
    }
    let app = InProcess::start(Merged, &servers, ProcessingGuarantee::ExactlyOnce);
    let mut got = read_values("ms-out", 16).await;
    app.stop().await.expect("clean stop");
    got.sort();
    sent.sort();
    assert_eq!(got, sent);
}
