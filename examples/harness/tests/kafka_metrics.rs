//! The runtime's metrics (through the `metrics` facade) on a real broker: records processed and
//! restored, commits, tasks. In its own test binary: the recorder is global to the process.

use std::collections::HashMap;
use std::time::Duration;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams_harness::e2e::{
    InProcess, Reader, WcMetrics, counts_reached, expected_counts, fresh, sentences,
};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

/// Totals of every instrument. The debugging recorder hands out what changed since the last
/// snapshot, so totals add the snapshots up.
struct Totals {
    snapshotter: Snapshotter,
    totals: HashMap<String, f64>,
}

impl Totals {
    fn read(&mut self) -> HashMap<String, f64> {
        for (name, v) in values(&self.snapshotter) {
            *self.totals.entry(name).or_insert(0.0) += v;
        }
        self.totals.clone()
    }
}

fn values(snapshotter: &Snapshotter) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let v = match value {
            DebugValue::Counter(c) => c as f64,
            DebugValue::Gauge(g) => g.into_inner(),
            DebugValue::Histogram(h) => h.len() as f64,
        };
        *out.entry(key.key().name().to_owned()).or_insert(0.0) += v;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_processed_and_restored_records_commits_and_tasks() {
    let recorder = DebuggingRecorder::new();
    let mut totals = Totals {
        snapshotter: recorder.snapshotter(),
        totals: HashMap::new(),
    };
    metrics::set_global_recorder(recorder).expect("the only recorder of this test binary");
    let servers = bootstrap();
    fresh(
        &servers,
        "e2e-wc-metrics",
        &[("e2e-wc-metrics-in", 2), ("e2e-wc-metrics-out", 2)],
    )
    .await;
    let input = sentences(1_000, 50, 9);
    let words: usize = input.iter().map(|s| s.split(' ').count()).sum();
    let expected = expected_counts(&input);
    let keys: Vec<String> = (0..input.len()).map(|i| format!("s{i}")).collect();
    produce(
        &servers,
        "e2e-wc-metrics-in",
        keys.iter()
            .zip(&input)
            .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce");

    let app = InProcess::start(WcMetrics, &servers, ProcessingGuarantee::ExactlyOnce);
    let mut reader = Reader::new(&servers, "e2e-wc-metrics-out").await;
    assert!(
        reader
            .read_until(Duration::from_secs(60), |r| counts_reached(r, &expected))
            .await,
        "counts not reached"
    );
    // The once-a-second report: poll count and latency, record lateness per task, lag per
    // partition.
    let reported = [
        "kafka.streams.stream_thread_metrics.poll_total",
        "kafka.streams.stream_thread_metrics.poll_latency_avg_seconds",
        "kafka.streams.stream_thread_metrics.poll_latency_max_seconds",
        "kafka.streams.stream_task_metrics.record_lateness_avg",
        "kafka.streams.stream_task_metrics.record_lateness_max",
        "kafka.consumer.consumer_fetch_manager_metrics.records_lag",
    ];
    let mut running = totals.read();
    for _ in 0..100 {
        if reported.iter().all(|name| running.contains_key(*name)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        running = totals.read();
    }
    for name in reported {
        assert!(
            running.contains_key(name),
            "{name} not reported: {running:?}"
        );
    }
    assert!(
        running["kafka.streams.stream_thread_metrics.poll_total"] >= 1.0,
        "{running:?}"
    );
    app.stop().await.expect("clean stop");
    let stopped = totals.read();
    // 2 partitions × 2 subtopologies.
    assert_eq!(
        running.get("dekaf.streams.tasks.active"),
        Some(&4.0),
        "{running:?}"
    );
    assert_eq!(
        stopped.get("dekaf.streams.tasks.active"),
        Some(&0.0),
        "{stopped:?}"
    );
    // Each sentence once in subtopology 0, each word once in subtopology 1.
    assert_eq!(
        stopped.get("dekaf.streams.records.processed"),
        Some(&((input.len() + words) as f64)),
        "{stopped:?}"
    );
    assert!(
        stopped
            .get("dekaf.streams.commits")
            .is_some_and(|c| *c >= 1.0),
        "{stopped:?}"
    );
    assert_eq!(
        stopped
            .get("dekaf.streams.commits.aborted")
            .copied()
            .unwrap_or(0.0),
        0.0,
        "{stopped:?}"
    );
    assert!(
        stopped
            .get("dekaf.streams.commit.duration")
            .is_some_and(|c| *c >= 1.0),
        "{stopped:?}"
    );

    // Kafka Streams' names (`streams::metrics`): the same counts, per thread and per task.
    let processed = (input.len() + words) as f64;
    for (name, value) in [
        (
            "kafka.streams.stream_thread_metrics.process_total",
            processed,
        ),
        ("kafka.streams.stream_task_metrics.process_total", processed),
        (
            "kafka.streams.stream_thread_metrics.task_created_total",
            4.0,
        ),
        ("kafka.streams.stream_thread_metrics.task_closed_total", 4.0),
        ("kafka.streams.stream_metrics.alive_stream_threads", 0.0),
    ] {
        assert_eq!(stopped.get(name), Some(&value), "{name}: {stopped:?}");
    }
    assert_eq!(
        running.get("kafka.streams.stream_metrics.alive_stream_threads"),
        Some(&1.0),
        "{running:?}"
    );
    assert_eq!(
        stopped.get("kafka.streams.stream_thread_metrics.commit_total"),
        stopped.get("dekaf.streams.commits"),
        "{stopped:?}"
    );
    assert_eq!(
        stopped
            .get("kafka.streams.stream_task_metrics.dropped_records_total")
            .copied()
            .unwrap_or(0.0),
        0.0,
        "{stopped:?}"
    );

    // In memory, a restart restores every changelog record. The changelog holds one record per
    // word and commit interval (updates of a key within one interval are folded), so at most one
    // per word.
    let mut changelog = Reader::new(&servers, "e2e-wc-metrics-counts-changelog").await;
    changelog.drain(Duration::from_secs(2)).await;
    let app = InProcess::start(WcMetrics, &servers, ProcessingGuarantee::ExactlyOnce);
    let started = std::time::Instant::now();
    while totals.read().get("dekaf.streams.tasks.active") != Some(&4.0)
        && started.elapsed() < Duration::from_secs(60)
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    app.stop().await.expect("clean stop");
    let restored = totals
        .read()
        .get("dekaf.streams.records.restored")
        .copied()
        .unwrap_or(0.0);
    assert_eq!(
        restored,
        changelog.records.len() as f64,
        "every changelog record restored once"
    );
    assert!(
        restored >= expected.len() as f64 && restored <= words as f64,
        "{restored} of {words} words"
    );
}
