//! Assignment changes in quick succession on a real consumer against a real broker
//! (`DEKAF_BOOTSTRAP`): `kafka::assignment` must never make librdkafka 2.12 stop a partition's
//! fetcher twice, which aborts the whole process (librdkafka issue #5573). With full `assign`
//! calls in the same sequence, this test process aborted on `rd_kafka_assignment.c:926`.

mod group_support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use dekaf_streams::kafka::assignment::{reassign, rewind};
use group_support::*;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::BaseConsumer;
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};

const PARTITIONS: i32 = 8;
const PER_PARTITION: i64 = 200;
const ROUNDS: usize = 100;

fn at(
    topic: &str,
    partitions: impl IntoIterator<Item = i32>,
    offset: Offset,
) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for p in partitions {
        tpl.add_partition_offset(topic, p, offset).expect("offset");
    }
    tpl
}

/// Polls until a record arrives (so fetchers have started), or 10 s pass.
fn poll_one(consumer: &BaseConsumer) -> Option<(i32, i64)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(50)) {
            return Some((m.partition(), m.offset()));
        }
    }
    None
}

/// Redo-then-fence, revoke-then-add and add-then-lose, back to back, many times: each change
/// comes before the previous one's fetcher stops are answered. Afterwards a rewind to the start
/// reads every partition from offset 0 with nothing skipped or repeated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_assignment_changes_never_stop_a_fetcher_twice_and_rewinds_are_exact() {
    let t = TestApp::new("assignment-churn", Some(PARTITIONS)).await;
    let (bootstrap, app, topic) = (t.bootstrap.clone(), t.app, t.input);

    tokio::task::spawn_blocking(move || {
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .create()
            .expect("producer");
        for p in 0..PARTITIONS {
            for i in 0..PER_PARTITION {
                let value = format!("{p}-{i}");
                producer
                    .send(BaseRecord::<(), _>::to(topic).partition(p).payload(&value))
                    .expect("send");
            }
        }
        producer.flush(Duration::from_secs(30)).expect("flush");

        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .set("group.id", app)
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false")
            .create()
            .expect("consumer");
        let all = || at(topic, 0..PARTITIONS, Offset::Beginning);
        let half = || at(topic, 0..PARTITIONS / 2, Offset::Beginning);
        for round in 0..ROUNDS {
            reassign(&consumer, &all()).expect("assign all");
            assert!(
                poll_one(&consumer).is_some(),
                "round {round}: no record fetched"
            );
            // A redone interval, then a fence: rewind, then drop everything at once.
            rewind(&consumer, &all(), Duration::from_secs(10)).expect("rewind");
            reassign(&consumer, &TopicPartitionList::new()).expect("lose all");
            // Tasks back, half revoked, the rest added again, all lost: no pause between.
            reassign(&consumer, &all()).expect("assign all again");
            reassign(&consumer, &half()).expect("revoke half");
            reassign(&consumer, &all()).expect("add the rest");
            reassign(&consumer, &TopicPartitionList::new()).expect("lose all again");
        }

        reassign(&consumer, &all()).expect("final assignment");
        assert!(poll_one(&consumer).is_some(), "no record after the churn");
        rewind(&consumer, &all(), Duration::from_secs(10)).expect("final rewind");
        let mut next: BTreeMap<i32, i64> = (0..PARTITIONS).map(|p| (p, 0)).collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        while next.values().any(|n| *n < PER_PARTITION) {
            assert!(
                Instant::now() < deadline,
                "not every record came back: {next:?}"
            );
            let Some(polled) = consumer.poll(Duration::from_millis(100)) else {
                continue;
            };
            let m = polled.expect("record");
            let expected = next.get_mut(&m.partition()).expect("partition");
            assert_eq!(
                m.offset(),
                *expected,
                "partition {}: after the rewind to the start, offsets must follow on",
                m.partition()
            );
            *expected += 1;
        }
    })
    .await
    .expect("the churn ran");
}
