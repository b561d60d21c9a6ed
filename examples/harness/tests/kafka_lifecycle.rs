//! An instance's lifecycle on a real broker, as Kafka Streams 4.4 has it: states and their
//! listener, a failed thread replaced (`ThreadErrorResponse::ReplaceThread`) with the output
//! still exactly-once, a whole application stopped by one instance
//! (`ThreadErrorResponse::ShutdownApplication`, through the streams group's
//! `SHUTDOWN_APPLICATION` status), threads added and removed while it runs, and processing
//! paused and resumed.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dekaf_streams::prelude::*;
use dekaf_streams::{KafkaStreams, State, StreamsError, ThreadErrorResponse};
use dekaf_streams_harness::e2e::{
    InProcess, Reader, counts_reached, exactly_once_problems, fresh, wait_for_members_with_tasks,
};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};

/// How many times the replaced thread's topology met `boom`.
static REPLACE_BOOMS: AtomicUsize = AtomicUsize::new(0);
/// How many times the shut-down application's topology met `boom`.
static SHUTDOWN_BOOMS: AtomicUsize = AtomicUsize::new(0);

/// Panics the first time it meets `boom` (counted in `met`).
fn panic_once(value: &str, met: &AtomicUsize) {
    if value == "boom" && met.fetch_add(1, Ordering::SeqCst) == 0 {
        panic!("user code failed on the record `boom`");
    }
}

topology! {
    /// Counts values; the first `boom` panics.
    pub Replaced = "lifecycle-replace" {
        stream("lifecycle-replace-in", Utf8, Utf8)
            .map_values(|v| {
                panic_once(&v, &REPLACE_BOOMS);
                v
            })
            .group_by(|_key, value| value.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("lifecycle-replace-out", Utf8, I64);
    }
}

topology! {
    /// Copies values; the first `boom` panics (in one instance: the other, taking the task
    /// over, processes it).
    pub ShutDown = "lifecycle-shutdown-app" {
        stream("lifecycle-shutdown-app-in", Utf8, Utf8)
            .map_values(|v| {
                panic_once(&v, &SHUTDOWN_BOOMS);
                v
            })
            .to("lifecycle-shutdown-app-out", Utf8, Utf8);
    }
}

topology! {
    /// Copies values; every `poison` panics, however often it is processed again.
    pub Poisoned = "lifecycle-poison" {
        stream("lifecycle-poison-in", Utf8, Utf8)
            .map_values(|v| {
                assert!(v != "poison", "user code fails on every `poison`");
                v
            })
            .to("lifecycle-poison-out", Utf8, Utf8);
    }
}

topology! {
    /// Counts values.
    pub Scaled = "lifecycle-threads" {
        stream("lifecycle-threads-in", Utf8, Utf8)
            .group_by(|_key, value| value.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("lifecycle-threads-out", Utf8, I64);
    }
}

topology! {
    /// Copies values.
    pub Paused = "lifecycle-pause" {
        stream("lifecycle-pause-in", Utf8, Utf8).to("lifecycle-pause-out", Utf8, Utf8);
    }
}

/// Every state change a listener saw.
type Seen = Arc<Mutex<Vec<(State, State)>>>;

fn listener() -> (Seen, impl Fn(State, State) + Send + Sync + 'static) {
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    (seen, move |old, new| {
        log.lock().expect("not poisoned").push((old, new))
    })
}

/// `n` records `k<i>` -> `w<i % words>` on `topic`, after `first` earlier ones.
async fn produce_words(topic: &str, first: usize, n: usize, words: usize) {
    let records: Vec<(String, String)> = (first..first + n)
        .map(|i| (format!("k{i}"), format!("w{}", i % words)))
        .collect();
    let produced = produce(
        &bootstrap(),
        topic,
        records
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
    )
    .await
    .expect("produce");
    assert_eq!(produced as usize, n);
}

async fn produce_one(topic: &str, key: &str, value: &str) {
    produce(
        &bootstrap(),
        topic,
        [(Some(key.as_bytes()), Some(value.as_bytes()))],
    )
    .await
    .expect("produce");
}

/// Runs `streams` and waits (at most 60 s) until it is `Running`.
async fn run_until_running<T: dekaf_streams::task::Topology + Send>(
    streams: KafkaStreams<T>,
) -> (InProcess, dekaf_streams::Lifecycle) {
    let lifecycle = streams.lifecycle();
    let app = InProcess::run(streams);
    let running = tokio::time::timeout(Duration::from_secs(60), lifecycle.wait_for(State::Running));
    assert_eq!(running.await, Ok(State::Running), "running within 60 s");
    (app, lifecycle)
}

/// The counts `n` records of [`produce_words`] (from 0) make.
fn word_counts(n: usize, words: usize) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for i in 0..n {
        *counts.entry(format!("w{}", i % words)).or_insert(0) += 1;
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_that_panics_is_replaced_and_its_interval_redone_exactly_once() {
    let servers = bootstrap();
    fresh(
        &servers,
        "lifecycle-replace",
        &[("lifecycle-replace-in", 2), ("lifecycle-replace-out", 2)],
    )
    .await;
    let (seen, on_change) = listener();
    let streams = KafkaStreams::builder(Replaced)
        .bootstrap_servers(&servers)
        .cache_max_bytes(0)
        .transaction_timeout(Duration::from_secs(5))
        .on_state_change(on_change)
        .on_thread_error(|_| ThreadErrorResponse::ReplaceThread)
        .build()
        .expect("valid settings");
    assert_eq!(streams.lifecycle().state(), State::Created);
    let (app, lifecycle) = run_until_running(streams).await;
    produce_words("lifecycle-replace-in", 0, 200, 10).await;
    produce_one("lifecycle-replace-in", "kboom", "boom").await;
    produce_words("lifecycle-replace-in", 200, 200, 10).await;
    let mut expected = word_counts(400, 10);
    expected.insert("boom".into(), 1);
    let mut reader = Reader::new(&servers, "lifecycle-replace-out").await;
    let done = reader
        .read_until(Duration::from_secs(120), |r| counts_reached(r, &expected))
        .await;
    let state_before_stop = lifecycle.state();
    let stopped = app.stop().await;
    reader.drain(Duration::from_secs(1)).await;
    assert!(done, "every count reached within 120 s of the panic");
    assert!(
        REPLACE_BOOMS.load(Ordering::SeqCst) >= 2,
        "the record that panicked was processed again by the replacement"
    );
    assert_eq!(state_before_stop, State::Running, "the replacement runs");
    stopped.expect("a replaced thread does not stop the instance");
    let problems = exactly_once_problems(&reader.records, &expected);
    assert!(problems.is_empty(), "not exactly once: {problems:?}");
    let seen = seen.lock().expect("not poisoned").clone();
    use State::*;
    assert_eq!(
        seen[..2],
        [(Created, Rebalancing), (Rebalancing, Running)],
        "{seen:?}"
    );
    assert_eq!(
        seen[seen.len() - 2..],
        [(Running, PendingShutdown), (PendingShutdown, NotRunning)],
        "{seen:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|(_, new)| matches!(new, PendingError | Error)),
        "{seen:?}"
    );
    assert_eq!(lifecycle.state(), NotRunning);
}

/// A record that fails every time (a poison pill) under `ReplaceThread`: the thread is
/// replaced at once the first time, then after a backoff doubling from 0.5 s, so the instance
/// does not spin re-joining the group and re-failing, and it still shuts down cleanly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_failing_on_every_start_is_replaced_with_a_growing_backoff() {
    let servers = bootstrap();
    fresh(
        &servers,
        "lifecycle-poison",
        &[("lifecycle-poison-in", 1), ("lifecycle-poison-out", 1)],
    )
    .await;
    let failures: Arc<Mutex<Vec<std::time::Instant>>> = Arc::default();
    let log = Arc::clone(&failures);
    let streams = KafkaStreams::builder(Poisoned)
        .bootstrap_servers(&servers)
        .transaction_timeout(Duration::from_secs(5))
        .on_thread_error(move |_| {
            log.lock()
                .expect("not poisoned")
                .push(std::time::Instant::now());
            ThreadErrorResponse::ReplaceThread
        })
        .build()
        .expect("valid settings");
    let (app, _lifecycle) = run_until_running(streams).await;
    produce_one("lifecycle-poison-in", "k", "poison").await;
    // Six failures: the thread replaced at once, then after 0.5 s, 1 s, 2 s and 4 s. (Replaced
    // at once each time, the gaps are a join and a restart: well under a second here.)
    let six = tokio::time::timeout(Duration::from_secs(120), async {
        while failures.lock().expect("not poisoned").len() < 6 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let times = failures.lock().expect("not poisoned").clone();
    assert!(
        six.is_ok(),
        "the poison record failed {} times",
        times.len()
    );
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    for (gap, least) in [(1, 500), (2, 1000), (3, 2000), (4, 4000)] {
        assert!(
            gaps[gap] >= Duration::from_millis(least),
            "failure {} came {:?} after the one before, under a {least} ms backoff: {gaps:?}",
            gap + 2,
            gaps[gap]
        );
    }
    eprintln!("gaps between failures: {gaps:?}");
    app.stop()
        .await
        .expect("an instance replacing a thread shuts down cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_application_stops_every_instance_through_the_group() {
    let servers = bootstrap();
    fresh(
        &servers,
        "lifecycle-shutdown-app",
        &[
            ("lifecycle-shutdown-app-in", 2),
            ("lifecycle-shutdown-app-out", 2),
        ],
    )
    .await;
    let instance = || {
        let (seen, on_change) = listener();
        let streams = KafkaStreams::builder(ShutDown)
            .bootstrap_servers(&servers)
            .on_state_change(on_change)
            .on_thread_error(|_| ThreadErrorResponse::ShutdownApplication)
            .build()
            .expect("valid settings");
        let lifecycle = streams.lifecycle();
        (InProcess::run(streams), lifecycle, seen)
    };
    let (first, first_lifecycle, first_seen) = instance();
    let (second, second_lifecycle, second_seen) = instance();
    assert!(
        wait_for_members_with_tasks(
            &servers,
            "lifecycle-shutdown-app",
            2,
            Duration::from_secs(60)
        )
        .await,
        "both instances hold a task within 60 s"
    );
    produce_one("lifecycle-shutdown-app-in", "kboom", "boom").await;
    // Both stop by themselves: the one whose thread failed asks, the other is told.
    let (first, second) = tokio::join!(
        first.finished(Duration::from_secs(120)),
        second.finished(Duration::from_secs(120))
    );
    let results = [
        first.expect("the first instance stopped within 120 s"),
        second.expect("the second instance stopped within 120 s"),
    ];
    assert!(
        SHUTDOWN_BOOMS.load(Ordering::SeqCst) >= 1,
        "a thread failed"
    );
    // The panic is the record's error (`on_error` chose `Fail`): the failed thread's error.
    let panicked = results
        .iter()
        .filter(|r| matches!(r, Err(e) if !matches!(e, StreamsError::ApplicationShutdown { .. })))
        .count();
    let told = results
        .iter()
        .filter(|r| matches!(r, Err(StreamsError::ApplicationShutdown { .. })))
        .count();
    assert_eq!(
        (panicked, told),
        (1, 1),
        "the failed instance returns its error, the other the shutdown request: {results:?}"
    );
    for (lifecycle, seen) in [
        (first_lifecycle, first_seen),
        (second_lifecycle, second_seen),
    ] {
        assert_eq!(lifecycle.state(), State::Error);
        let seen = seen.lock().expect("not poisoned").clone();
        // From Running, or from Rebalancing when the failed instance's asking thread took tasks.
        assert_eq!(seen[seen.len() - 2].1, State::PendingError, "{seen:?}");
        assert_eq!(
            seen[seen.len() - 1],
            (State::PendingError, State::Error),
            "{seen:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threads_added_and_removed_at_run_time_take_and_give_up_tasks() {
    let servers = bootstrap();
    fresh(
        &servers,
        "lifecycle-threads",
        &[("lifecycle-threads-in", 4), ("lifecycle-threads-out", 4)],
    )
    .await;
    let streams = KafkaStreams::builder(Scaled)
        .bootstrap_servers(&servers)
        .cache_max_bytes(0)
        .build()
        .expect("valid settings");
    let (app, lifecycle) = run_until_running(streams).await;
    produce_words("lifecycle-threads-in", 0, 100, 20).await;
    assert_eq!(
        lifecycle.add_thread().await,
        Ok(1),
        "the lowest free number"
    );
    assert!(
        wait_for_members_with_tasks(&servers, "lifecycle-threads", 2, Duration::from_secs(60))
            .await,
        "the added thread is a member with tasks within 60 s"
    );
    // Each thread reports its tasks: together the 8 tasks (2 subtopologies × 4 partitions).
    let mut threads = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        threads = lifecycle.local_threads();
        let mut tasks: Vec<String> = threads
            .iter()
            .flat_map(|t| t.active_tasks.clone())
            .collect();
        tasks.sort();
        if threads.len() == 2
            && tasks.len() == 8
            && threads.iter().all(|t| !t.active_tasks.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        threads.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["lifecycle-threads-0", "lifecycle-threads-1"]
    );
    assert_eq!(
        threads.iter().map(|t| t.active_tasks.len()).sum::<usize>(),
        8,
        "{threads:?}"
    );
    produce_words("lifecycle-threads-in", 100, 100, 20).await;
    assert_eq!(
        lifecycle.remove_thread(Duration::from_secs(60)).await,
        Ok(1),
        "the highest-numbered thread stopped"
    );
    assert!(
        wait_for_members_with_tasks(&servers, "lifecycle-threads", 1, Duration::from_secs(60))
            .await,
        "one member holds every task within 60 s"
    );
    produce_words("lifecycle-threads-in", 200, 100, 20).await;
    let expected = word_counts(300, 20);
    let mut reader = Reader::new(&servers, "lifecycle-threads-out").await;
    let done = reader
        .read_until(Duration::from_secs(90), |r| counts_reached(r, &expected))
        .await;
    let state = lifecycle.state();
    let stopped = app.stop().await;
    reader.drain(Duration::from_secs(1)).await;
    assert!(done, "every count reached within 90 s");
    assert_eq!(state, State::Running);
    stopped.expect("stops cleanly");
    let problems = exactly_once_problems(&reader.records, &expected);
    assert!(problems.is_empty(), "not exactly once: {problems:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_instance_processes_nothing_until_resumed() {
    let servers = bootstrap();
    fresh(
        &servers,
        "lifecycle-pause",
        &[("lifecycle-pause-in", 2), ("lifecycle-pause-out", 2)],
    )
    .await;
    let streams = KafkaStreams::builder(Paused)
        .bootstrap_servers(&servers)
        .build()
        .expect("valid settings");
    let lifecycle = streams.lifecycle();
    // Paused before it starts, as Kafka Streams allows: it joins and takes its tasks.
    lifecycle.pause();
    let app = InProcess::run(streams);
    let running = tokio::time::timeout(Duration::from_secs(60), lifecycle.wait_for(State::Running));
    assert_eq!(
        running.await,
        Ok(State::Running),
        "running (paused) within 60 s"
    );
    produce_words("lifecycle-pause-in", 0, 50, 50).await;
    let mut reader = Reader::new(&servers, "lifecycle-pause-out").await;
    // An absence is checked over a span: nothing may come out in 3 s while paused.
    let early = reader
        .read_until(Duration::from_secs(3), |r| !r.is_empty())
        .await;
    assert!(
        !early,
        "nothing is processed while paused: {:?}",
        reader.records
    );
    assert!(lifecycle.is_paused());
    lifecycle.resume();
    let done = reader
        .read_until(Duration::from_secs(60), |r| r.len() >= 50)
        .await;
    let stopped = app.stop().await;
    assert!(done, "every record came out within 60 s of resume()");
    stopped.expect("stops cleanly");
    assert_eq!(reader.records.len(), 50);
}
