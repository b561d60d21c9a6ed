//! Restoring a changelog under exactly-once while another producer's transaction is open on it,
//! against a real broker (`DEKAF_BOOTSTRAP`).
//!
//! The open transaction holds the last stable offset below records that a later transaction
//! committed. Those records belong to the restored state (their input offsets were committed
//! with them), so the restore must wait for the open transaction to end and read them, not stop
//! at the last stable offset. Seen after a broker stall: a task rebuilt from a changelog whose
//! previous transaction was still being aborted went on from a state that lacked everything
//! committed after it, and the application's counts came out low.

mod group_support;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use dekaf_streams::kafka::restore::{LogEnds, RestorePartition, restore, restore_consumer};
use group_support::*;
use rdkafka::Offset;
use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

fn transactional(bootstrap: &str, id: &str) -> BaseProducer {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("transactional.id", id)
        .create()
        .expect("producer");
    producer
        .init_transactions(Duration::from_secs(30))
        .expect("init_transactions");
    producer
}

fn send(producer: &BaseProducer, topic: &str, key: &str, value: &str) {
    producer
        .send(BaseRecord::to(topic).partition(0).key(key).payload(value))
        .map_err(|(e, _)| e)
        .expect("send");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_waits_for_an_open_transaction_and_reads_what_committed_after_it() {
    let t = TestApp::new("restore-open-txn", None).await;
    let topic = leak(format!("{}-store-changelog", t.app));
    t.admin.create_topic(topic, 1).await;
    let (bootstrap, app) = (t.bootstrap.clone(), t.app);

    tokio::task::spawn_blocking(move || {
        let owner = transactional(&bootstrap, &format!("{app}-owner"));
        let zombie = transactional(&bootstrap, &format!("{app}-zombie"));
        // Committed: a=1.
        owner.begin_transaction().expect("begin");
        send(&owner, topic, "a", "1");
        owner
            .commit_transaction(Duration::from_secs(30))
            .expect("commit");
        // Open (a previous owner's transaction the broker has not aborted yet): z=never.
        zombie.begin_transaction().expect("begin");
        send(&zombie, topic, "z", "never");
        zombie.flush(Duration::from_secs(30)).expect("flush");
        // Committed after it, above the last stable offset: a=2, b=1.
        owner.begin_transaction().expect("begin");
        send(&owner, topic, "a", "2");
        send(&owner, topic, "b", "1");
        owner
            .commit_transaction(Duration::from_secs(30))
            .expect("commit");

        let mut config = ClientConfig::new();
        config
            .set("bootstrap.servers", &bootstrap)
            .set("group.id", app)
            .set("enable.auto.commit", "false")
            .set("isolation.level", "read_committed");
        let consumer = restore_consumer(&config, Default::default()).expect("restore consumer");
        let ends = LogEnds::new(&config, Default::default()).expect("end-offsets client");
        let partitions = [RestorePartition {
            topic: topic.to_owned(),
            partition: 0,
            from: Offset::Beginning,
            until: None,
        }];
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let restoring = scope.spawn(|| {
                let mut applied = Vec::new();
                let started = Instant::now();
                let summary = restore(
                    &consumer,
                    Some(&ends),
                    &partitions,
                    Duration::from_secs(120),
                    &stop,
                    |_, _, _, key, value, _| {
                        let key = String::from_utf8_lossy(key.unwrap_or_default()).into_owned();
                        let value = String::from_utf8_lossy(value.unwrap_or_default()).into_owned();
                        applied.push((key, value));
                        Ok(())
                    },
                )
                .expect("restore");
                (applied, summary, started.elapsed())
            });
            // The restore must still be waiting while the transaction is open.
            std::thread::sleep(Duration::from_secs(2));
            assert!(
                !restoring.is_finished(),
                "the restore ended while a transaction below the changelog's end was open"
            );
            zombie
                .abort_transaction(Duration::from_secs(30))
                .expect("abort");
            let (applied, summary, took) = restoring.join().expect("restore thread");
            let pairs: Vec<(&str, &str)> = applied
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            assert_eq!(
                pairs,
                [("a", "1"), ("a", "2"), ("b", "1")],
                "restored records"
            );
            assert_eq!(summary.records, 3);
            assert!(took < Duration::from_secs(60), "the restore took {took:?}");
        });
    })
    .await
    .expect("test thread");
}
