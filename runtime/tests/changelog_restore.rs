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

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dekaf_streams::kafka::restore::{
    CHECKPOINT_RECORDS, LogEnds, RestoreConsumer, RestoreError, RestorePartition, RestoreTarget,
    StoreTarget, each, restore, restore_consumer,
};
use dekaf_streams::store::{LmdbBackend, StoreBackend};
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

        let (consumer, ends) = restore_clients(&bootstrap, app);
        let partitions = [partition_from(topic, Offset::Beginning)];
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
                    each(|_, _, _, key, value, _| {
                        let key = String::from_utf8_lossy(key.unwrap_or_default()).into_owned();
                        let value = String::from_utf8_lossy(value.unwrap_or_default()).into_owned();
                        applied.push((key, value));
                        Ok(())
                    }),
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

/// Writes `n` committed records `k{i}` = `v{i}` to `topic` partition 0, in one transaction.
fn committed_records(bootstrap: &str, id: &str, topic: &str, n: usize) {
    let producer = transactional(bootstrap, id);
    producer.begin_transaction().expect("begin");
    for i in 0..n {
        loop {
            let key = format!("k{i}");
            let value = format!("v{i}");
            match producer.send(BaseRecord::to(topic).partition(0).key(&key).payload(&value)) {
                Ok(()) => break,
                // The local queue is full: let deliveries drain it.
                Err((_, _)) => {
                    producer.poll(Duration::from_millis(50));
                }
            }
        }
    }
    producer
        .commit_transaction(Duration::from_secs(60))
        .expect("commit");
}

/// Partition 0 of `topic`, restored from `from` to its end.
fn partition_from(topic: &str, from: Offset) -> RestorePartition {
    RestorePartition {
        topic: topic.to_owned(),
        partition: 0,
        from,
        until: None,
    }
}

/// A `read_committed` restore consumer and its end-offsets client.
fn restore_clients(bootstrap: &str, group: &str) -> (RestoreConsumer, LogEnds) {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed");
    let consumer = restore_consumer(&config, Default::default()).expect("restore consumer");
    let ends = LogEnds::new(&config, Default::default()).expect("end-offsets client");
    (consumer, ends)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_that_keeps_making_progress_takes_as_long_as_it_needs() {
    // Before: the limit bounded the whole restore (600 s in the runtime), so a changelog of tens
    // of millions of records could never be restored. Here the restore takes about three times
    // the limit, with progress all along.
    let t = TestApp::new("restore-long", None).await;
    let topic = leak(format!("{}-store-changelog", t.app));
    t.admin.create_topic(topic, 1).await;
    let (bootstrap, app) = (t.bootstrap.clone(), t.app);
    tokio::task::spawn_blocking(move || {
        committed_records(&bootstrap, &format!("{app}-owner"), topic, 150);
        let (consumer, ends) = restore_clients(&bootstrap, app);
        let partitions = [partition_from(topic, Offset::Beginning)];
        let started = Instant::now();
        let summary = restore(
            &consumer,
            Some(&ends),
            &partitions,
            Duration::from_secs(1),
            &AtomicBool::new(false),
            each(|_, _, _, _, _, _| {
                std::thread::sleep(Duration::from_millis(20));
                Ok(())
            }),
        )
        .expect("a restore that makes progress is not timed out");
        assert_eq!(summary.records, 150);
        assert!(
            started.elapsed() > Duration::from_secs(3),
            "the restore was meant to outlast its limit"
        );
    })
    .await
    .expect("test thread");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_without_progress_fails_after_the_limit() {
    // A transaction that stays open below the changelog's end holds every committed record after
    // it back: no progress, so the restore fails after its limit with a message that says what
    // to check, rather than waiting forever.
    let t = TestApp::new("restore-stuck", None).await;
    let topic = leak(format!("{}-store-changelog", t.app));
    t.admin.create_topic(topic, 1).await;
    let (bootstrap, app) = (t.bootstrap.clone(), t.app);
    tokio::task::spawn_blocking(move || {
        let zombie = transactional(&bootstrap, &format!("{app}-zombie"));
        zombie.begin_transaction().expect("begin");
        send(&zombie, topic, "z", "never");
        zombie.flush(Duration::from_secs(30)).expect("flush");
        committed_records(&bootstrap, &format!("{app}-owner"), topic, 10);
        let (consumer, ends) = restore_clients(&bootstrap, app);
        let partitions = [partition_from(topic, Offset::Beginning)];
        let started = Instant::now();
        let error = restore(
            &consumer,
            Some(&ends),
            &partitions,
            Duration::from_secs(2),
            &AtomicBool::new(false),
            each(|_, _, _, _, _, _| Ok(())),
        )
        .expect_err("an open transaction blocks the restore");
        assert!(
            matches!(error, RestoreError::TimedOut { pending: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("no progress"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(30));
        zombie
            .abort_transaction(Duration::from_secs(30))
            .expect("abort");
    })
    .await
    .expect("test thread");
}

/// An LMDB store as a restore's target, recording progress as a task's stores do
/// ([`StoreTarget`]), that sets `stop` after `stop_after` records: the restore then stops as a
/// shutdown or crash would stop it.
struct Interrupting<'a> {
    store: StoreTarget<'a, LmdbBackend>,
    applied: u64,
    stop_after: u64,
    stop: &'a AtomicBool,
}

impl RestoreTarget for Interrupting<'_> {
    fn apply(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<(), String> {
        self.store
            .apply(topic, partition, offset, key, value, timestamp)?;
        self.applied += 1;
        if self.applied == self.stop_after {
            self.stop.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    fn checkpoint(&mut self, topic: &str, partition: i32, next: i64) -> Result<(), String> {
        self.store.checkpoint(topic, partition, next)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_restore_resumes_from_its_last_checkpoint() {
    // Before: a store on disk recorded its changelog offset only once the whole restore was done
    // (and a flush of a full write buffer on the way even removed it), so an interrupted restore
    // of a large changelog started over from the beginning every time.
    const N: u64 = 3 * CHECKPOINT_RECORDS + 500;
    let t = TestApp::new("restore-resume", None).await;
    let topic = leak(format!("{}-store-changelog", t.app));
    t.admin.create_topic(topic, 1).await;
    let (bootstrap, app) = (t.bootstrap.clone(), t.app);
    tokio::task::spawn_blocking(move || {
        committed_records(&bootstrap, &format!("{app}-owner"), topic, N as usize);
        let dir = std::env::temp_dir().join(format!("{app}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (consumer, ends) = restore_clients(&bootstrap, app);

        // Interrupted after two checkpoints and a half.
        let stop = AtomicBool::new(false);
        let mut store = LmdbBackend::open(&dir).expect("an LMDB store");
        let interrupted = restore(
            &consumer,
            Some(&ends),
            &[partition_from(topic, Offset::Beginning)],
            Duration::from_secs(60),
            &stop,
            Interrupting {
                store: StoreTarget(&mut store),
                applied: 0,
                stop_after: 2 * CHECKPOINT_RECORDS + CHECKPOINT_RECORDS / 2,
                stop: &stop,
            },
        );
        assert!(
            matches!(interrupted, Err(RestoreError::Stopped)),
            "{interrupted:?}"
        );
        // What was applied after the last checkpoint is lost, as in a crash.
        drop(store);

        let mut store = LmdbBackend::open(&dir).expect("the store again");
        let checkpoint = store
            .changelog_offset()
            .expect("the store recorded the restore's progress");
        assert_eq!(checkpoint, 2 * CHECKPOINT_RECORDS as i64);
        for i in [0, checkpoint - 1] {
            assert_eq!(
                store.get(format!("k{i}").as_bytes()).expect("get"),
                Some(format!("v{i}").as_bytes()),
                "record {i} is in the store with the checkpoint"
            );
        }

        // The restart reads only what follows the checkpoint.
        let never = AtomicBool::new(false);
        let summary = restore(
            &consumer,
            Some(&ends),
            &[partition_from(topic, Offset::Offset(checkpoint))],
            Duration::from_secs(60),
            &never,
            Interrupting {
                store: StoreTarget(&mut store),
                applied: 0,
                stop_after: u64::MAX,
                stop: &never,
            },
        )
        .expect("the resumed restore");
        assert_eq!(summary.records, N - checkpoint as u64);
        assert_eq!(store.changelog_offset(), Some(N as i64));
        assert_eq!(
            store.get(format!("k{}", N - 1).as_bytes()).expect("get"),
            Some(format!("v{}", N - 1).as_bytes())
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    })
    .await
    .expect("test thread");
}
