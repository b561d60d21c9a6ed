//! The word-count service example (`word-count-service`) run as an operator runs it: a process
//! on the broker, probed, scraped, queried, and stopped with SIGTERM.
//!
//! Needs the test broker (`DEKAF_BOOTSTRAP`) and the `service` feature (`scripts/test.sh`
//! turns it on).

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dekaf_streams_harness::e2e::{expected_counts, fresh, sentences};
use dekaf_streams_harness::http_client::{Answer, get};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};

const TOKEN: &str = "service-test-token";

/// A free port on 127.0.0.1 (bound, then released for the service to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The service's process, killed when dropped (a failed assertion does not leave it running).
struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(servers: &str, port: u16, log: &std::path::Path) -> Service {
    let log = std::fs::File::create(log).expect("the service's log");
    let child = Command::new(env!("CARGO_BIN_EXE_word-count-service"))
        .env("DEKAF_BOOTSTRAP", servers)
        .env("DEKAF_HTTP", format!("127.0.0.1:{port}"))
        .env("DEKAF_HTTP_TOKEN", TOKEN)
        .env("DEKAF_THREADS", "2")
        .env("DEKAF_CACHE_MAX_BYTES", "0")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start word-count-service");
    Service(child)
}

/// `GET path` with the service's bearer token.
async fn get_authorized(port: u16, path: &str) -> std::io::Result<Answer> {
    get(port, path, &format!("Authorization: Bearer {TOKEN}\r\n")).await
}

/// Waits (at most `timeout`) until `check` holds for the answer to `path`.
async fn wait_until(
    port: u16,
    path: &str,
    timeout: Duration,
    check: impl Fn(&Answer) -> bool,
) -> Option<Answer> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(answer) = get_authorized(port, path).await
            && check(&answer)
        {
            return Some(answer);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_is_probed_scraped_queried_and_stopped_with_sigterm() {
    let servers = bootstrap();
    fresh(
        &servers,
        "word-count",
        &[("sentences", 2), ("word-counts", 2)],
    )
    .await;
    let port = free_port();
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("word-count-service.log");
    let mut service = start(&servers, port, &log);
    let text = sentences(200, 30, 7);
    // Keyed: the word count's `group_by` closure takes the key, and `Utf8` has no null.
    produce(
        &servers,
        "sentences",
        text.iter()
            .map(|s| (Some(s.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce sentences");
    let expected: HashMap<String, i64> = expected_counts(&text);

    // Ready once it runs its tasks, restored; probes need no token.
    let ready = wait_until(port, "/health/ready", Duration::from_secs(120), |a| {
        a.status == 200
    })
    .await;
    assert!(
        ready.is_some(),
        "the service never became ready; its log: {}",
        log.display()
    );
    let live = get(port, "/health/live", "").await.expect("live probe");
    assert_eq!(
        (live.status, live.json()["state"].as_str()),
        (200, Some("RUNNING"))
    );

    // Every word's count, queried over HTTP.
    for (word, count) in expected.iter().take(10) {
        let path = format!("/stores/counts/keys/{word}");
        let answered = wait_until(port, &path, Duration::from_secs(60), |a| {
            a.status == 200 && a.json()["value"] == *count
        })
        .await;
        let last = get_authorized(port, &path).await;
        assert!(
            answered.is_some(),
            "{word} was not answered {count}: {last:?}"
        );
    }
    // Everything but the probes needs the token.
    for path in ["/stores/counts/keys/x", "/metrics", "/", "/status"] {
        let refused = get(port, path, "").await.expect("an answer");
        assert_eq!(refused.status, 401, "{path} without the token");
    }

    // Prometheus' text format, with Kafka Streams' names.
    let metrics = wait_until(port, "/metrics", Duration::from_secs(30), |a| {
        a.status == 200
            && a.body
                .contains("kafka_streams_stream_thread_metrics_process_total")
            && a.body
                .contains("kafka_consumer_consumer_fetch_manager_metrics_records_lag")
    })
    .await
    .expect("/metrics has the thread metrics and the consumer lag");
    let lines: Vec<&str> = metrics
        .body
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            l.starts_with("kafka_streams_stream_thread_metrics_process_total")
                || l.starts_with("kafka_consumer_consumer_fetch_manager_metrics_records_lag")
                || l.starts_with("kafka_streams_stream_metrics_alive_stream_threads")
        })
        .collect();
    eprintln!("curl /metrics (a few lines):\n{}", lines.join("\n"));
    assert!(
        metrics
            .body
            .contains("kafka_streams_stream_metrics_alive_stream_threads 2"),
        "two threads alive"
    );

    // The status page and its data.
    let page = get_authorized(port, "/").await.expect("the status page");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.body.contains("<svg") && page.body.contains("data-name=\"counts\""));
    let status = get_authorized(port, "/status")
        .await
        .expect("/status")
        .json();
    assert_eq!(status["state"], "RUNNING");
    assert_eq!(status["threads"].as_array().map(Vec::len), Some(2));

    // SIGTERM: a clean shutdown, exit code 0, and the server gone with it.
    let pid = i32::try_from(service.0.id()).expect("a pid");
    // SAFETY: `kill` only sends a signal to the child started above.
    let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(sent, 0, "SIGTERM sent");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = service.0.try_wait().expect("wait for the service") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the service did not stop within 60 s of SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        status.success(),
        "the service exited with {status} after SIGTERM; its log: {}",
        log.display()
    );
    assert!(
        get(port, "/health/live", "").await.is_err(),
        "the HTTP server still answers after the service stopped"
    );
}
