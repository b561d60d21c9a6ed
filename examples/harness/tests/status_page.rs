//! The query server's status page (`GET /`) in a real browser: headless Chromium loads the page
//! of a running application, runs its script, and the test reads the rendered DOM. Every
//! subtopology, processor, store and topic of the topology must be drawn, and the instance's
//! tasks must be listed with their thread's state and their lag; a screenshot is saved.
//!
//! Needs Chromium (Debian's `chromium`, installed by `scripts/test.sh`) and the test broker;
//! without Chromium the test is skipped with a message, except under `CI=true`, where it fails.
//! The screenshot goes to `$DEKAF_PICTURE_DIR/status-page.png`, or the test's target directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dekaf_streams::http::QueryServer;
use dekaf_streams::picture::Description;
use dekaf_streams::prelude::*;
use dekaf_streams::task::Topology;
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, State};
use dekaf_streams_harness::e2e::{InProcess, fresh};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};
use tokio::net::TcpListener;

topology! {
    /// Counts words per first letter: two subtopologies joined by a repartition topic, and a
    /// store.
    pub LetterCounts = "status-page" {
        stream("status-page-words", Utf8, Utf8)
            .group_by(|_key, word| word.chars().next().map(String::from).unwrap_or_default(), Utf8, Utf8)
            .count("letter-counts")
            .to_stream()
            .to("status-page-counts", Utf8, I64);
    }
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The Chromium binary, if there is one.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Headless Chromium's arguments common to both runs: no sandbox (tests may run as root), a
/// profile of its own, the page's script given time to fetch `/status` and render.
fn headless(browser: &str, profile: &Path) -> Command {
    let mut command = Command::new(browser);
    command.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        "--window-size=1400,1000",
        "--virtual-time-budget=8000",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// The DOM of `url` after its script ran, as Chromium serialises it.
async fn rendered_dom(browser: &'static str, profile: PathBuf, url: String) -> String {
    tokio::task::spawn_blocking(move || {
        let output = headless(browser, &profile)
            .arg("--dump-dom")
            .arg(&url)
            .output()
            .expect("run chromium");
        assert!(
            output.status.success(),
            "chromium --dump-dom failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("the DOM is UTF-8")
    })
    .await
    .expect("the browser thread does not panic")
}

/// Saves a screenshot of `url` to `file`.
async fn screenshot(browser: &'static str, profile: PathBuf, url: String, file: PathBuf) {
    tokio::task::spawn_blocking(move || {
        let output = headless(browser, &profile)
            .arg(format!("--screenshot={}", file.display()))
            .arg(&url)
            .output()
            .expect("run chromium");
        assert!(
            output.status.success() && file.exists(),
            "chromium --screenshot failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    })
    .await
    .expect("the browser thread does not panic");
}

/// The `<tr class="task" ...>` start tags of the rendered table.
fn task_rows(dom: &str) -> Vec<&str> {
    dom.match_indices("<tr class=\"task\"")
        .map(|(at, _)| &dom[at..at + dom[at..].find('>').unwrap_or(0)])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_page_draws_the_topology_and_the_tasks_in_a_browser() {
    let Some(browser) = chromium() else {
        assert!(
            !in_ci(),
            "no Chromium: scripts/test.sh installs Debian's `chromium`"
        );
        eprintln!("skipped: no Chromium (apt-get install chromium)");
        return;
    };
    let servers = bootstrap();
    let (input, output) = ("status-page-words", "status-page-counts");
    fresh(&servers, "status-page", &[(input, 2), (output, 1)]).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let streams = KafkaStreams::builder(LetterCounts)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .threads(2)
        .application_server(format!("127.0.0.1:{port}"))
        .build()
        .expect("valid settings");
    let lifecycle = streams.lifecycle();
    let server = tokio::spawn(
        QueryServer::new(streams.queries())
            .store(LetterCounts::LETTER_COUNTS)
            .lifecycle(streams.lifecycle())
            .serve(listener, std::future::pending()),
    );
    let app = InProcess::run(streams);
    let words = [
        "apple",
        "avocado",
        "banana",
        "cherry",
        "blueberry",
        "apricot",
    ];
    produce(
        &servers,
        input,
        words
            .iter()
            .map(|w| (Some(w.as_bytes()), Some(w.as_bytes()))),
    )
    .await
    .expect("produce the words");
    let running = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let threads = lifecycle.local_threads();
            let offsets_known = threads
                .iter()
                .flat_map(|t| &t.task_offsets)
                .filter(|t| t.lag().is_some())
                .count();
            // Every task (2 input partitions, 2 subtopologies) runs and reported its lag.
            if lifecycle.state() == State::Running && offsets_known == 4 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        running.is_ok(),
        "the application did not run its 4 tasks with their lag known: {:?}",
        lifecycle.local_threads()
    );

    let url = format!("http://127.0.0.1:{port}/");
    let profile = std::env::temp_dir().join(format!("dekaf-status-page-{}", std::process::id()));
    let started = Instant::now();
    let dom = rendered_dom(browser, profile.clone(), url.clone()).await;
    eprintln!(
        "chromium rendered the page in {:?} ({} bytes of DOM)",
        started.elapsed(),
        dom.len()
    );
    assert!(
        dom.contains("data-loaded=\"true\""),
        "the page's script did not render /status: {dom}"
    );
    assert!(
        dom.contains("<span id=\"state\" class=\"RUNNING\">RUNNING</span>"),
        "{dom}"
    );

    // Every subtopology, processor, store and topic of the topology is drawn.
    let description = Description::parse(LetterCounts::describe()).expect("our description parses");
    assert_eq!(description.subtopologies.len(), 2);
    for sub in &description.subtopologies {
        assert!(
            dom.contains(&format!(
                "class=\"subtopology hosted\" data-id=\"{}\"",
                sub.id
            )),
            "subtopology {} is not drawn as one this instance runs tasks of: {dom}",
            sub.id
        );
        for node in &sub.nodes {
            let mut names = vec![node.name.clone()];
            names.extend(node.topics.iter().cloned());
            names.extend(node.stores.iter().cloned());
            for name in names {
                assert!(
                    dom.contains(&format!("data-name=\"{name}\"")),
                    "{name} of subtopology {} is not drawn",
                    sub.id
                );
            }
        }
    }
    // Every task is listed with its thread's state and a lag.
    let rows = task_rows(&dom);
    for task in ["0_0", "0_1", "1_0", "1_1"] {
        let row = rows
            .iter()
            .find(|r| r.contains(&format!("data-task=\"{task}\"")))
            .unwrap_or_else(|| panic!("task {task} is not listed: {rows:?}"));
        assert!(row.contains("data-thread-state=\"RUNNING\""), "{row}");
        assert!(row.contains("data-kind=\"active\""), "{row}");
    }
    let lags = dom.matches("<td class=\"lag\">").count();
    let numeric_lags = dom
        .match_indices("<td class=\"lag\">")
        .filter(|(at, m)| {
            dom[at + m.len()..]
                .split('<')
                .next()
                .is_some_and(|text| text.parse::<i64>().is_ok())
        })
        .count();
    assert_eq!(
        (lags, numeric_lags),
        (4, 4),
        "each task's lag is shown as a number"
    );

    let dir = std::env::var("DEKAF_PICTURE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")));
    std::fs::create_dir_all(&dir).expect("the screenshot's directory");
    let file = dir.join("status-page.png");
    screenshot(browser, profile.clone(), url, file.clone()).await;
    eprintln!("screenshot: {}", file.display());
    let _ = std::fs::remove_dir_all(&profile);

    server.abort();
    app.stop().await.expect("the application stops cleanly");
}
