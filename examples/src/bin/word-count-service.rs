//! Word count run as a service: the word-count topology with its counts served over HTTP
//! (interactive queries), health probes, Prometheus metrics and the status page, and the
//! lifecycle choices a service makes (what a failed thread does, how long a shutdown waits).
//!
//! ```text
//! DEKAF_BOOTSTRAP=127.0.0.1:9092 DEKAF_HTTP=127.0.0.1:8080 \
//!   cargo run -p dekaf-streams-examples --features service --bin word-count-service
//! curl http://127.0.0.1:8080/health/ready
//! curl http://127.0.0.1:8080/stores/counts/keys/kafka
//! curl http://127.0.0.1:8080/metrics
//! open http://127.0.0.1:8080/      # the status page
//! ```
//!
//! Settings: those of [`dekaf_streams_examples::runner`] (`DEKAF_BOOTSTRAP`, `DEKAF_THREADS`,
//! `DEKAF_STATE_DIR`, ...), and:
//!
//! | variable | what | default |
//! |---|---|---|
//! | `DEKAF_HTTP` | where the HTTP server listens | `127.0.0.1:8080` |
//! | `DEKAF_APPLICATION_SERVER` | what other instances reach this one at (forwarded queries) | `DEKAF_HTTP` |
//! | `DEKAF_HTTP_TOKEN` | a bearer token required on every route but `/health/*` (and sent to the other instances) | unset: none |
//! | `DEKAF_ON_THREAD_ERROR` | `replace_thread`, `shutdown_client` or `shutdown_application` | `replace_thread` |
//! | `DEKAF_CLOSE_TIMEOUT_MS` | how long a shutdown may take to commit and leave the group | `30000` |
//!
//! SIGTERM or SIGINT shuts it down: the threads commit, close their tasks and leave the group,
//! then the HTTP server stops. The exit code is 0 after a clean shutdown, 1 after a fatal error
//! (the instance went to `ERROR`), 2 for bad settings.

use std::process::ExitCode;
use std::time::Duration;

use dekaf_streams::http::{QueryServer, prometheus_recorder};
use dekaf_streams::{State, ThreadErrorResponse, shutdown_signal};
use dekaf_streams_examples::runner::{builder_from_env, init_logging};
use dekaf_streams_examples::word_count::WordCount;
use tokio::net::TcpListener;

/// What a failed processing thread leads to, from `DEKAF_ON_THREAD_ERROR`.
fn thread_error_response() -> Result<ThreadErrorResponse, String> {
    match std::env::var("DEKAF_ON_THREAD_ERROR").as_deref() {
        Err(_) | Ok("replace_thread") => Ok(ThreadErrorResponse::ReplaceThread),
        Ok("shutdown_client") => Ok(ThreadErrorResponse::ShutdownClient),
        Ok("shutdown_application") => Ok(ThreadErrorResponse::ShutdownApplication),
        Ok(other) => Err(format!(
            "DEKAF_ON_THREAD_ERROR={other}: use replace_thread, shutdown_client or shutdown_application"
        )),
    }
}

fn close_timeout() -> Result<Duration, String> {
    match std::env::var("DEKAF_CLOSE_TIMEOUT_MS") {
        Err(_) => Ok(Duration::from_secs(30)),
        Ok(v) => v
            .parse()
            .map(Duration::from_millis)
            .map_err(|_| format!("DEKAF_CLOSE_TIMEOUT_MS={v}: expected milliseconds")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    init_logging();
    match serve().await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

async fn serve() -> Result<ExitCode, String> {
    // The recorder first: instruments recorded before it is installed are lost.
    let metrics = prometheus_recorder().map_err(|e| e.to_string())?;
    let http = std::env::var("DEKAF_HTTP").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let listener = TcpListener::bind(&http)
        .await
        .map_err(|e| format!("DEKAF_HTTP={http}: cannot listen there: {e}"))?;
    let application_server = std::env::var("DEKAF_APPLICATION_SERVER").unwrap_or(http.clone());
    let on_error = thread_error_response()?;
    let streams = builder_from_env(WordCount)?
        .application_server(application_server)
        .on_thread_error(move |error| {
            tracing::error!(%error, response = ?on_error, "a processing thread failed");
            on_error
        })
        .on_state_change(|from, to| tracing::info!(?from, ?to, "state changed"))
        .close_timeout(close_timeout()?)
        .build()
        .map_err(|e| e.to_string())?;
    let lifecycle = streams.lifecycle();
    let mut server = QueryServer::new(streams.queries())
        .store(WordCount::COUNTS)
        .lifecycle(streams.lifecycle())
        .prometheus(metrics);
    if let Ok(token) = std::env::var("DEKAF_HTTP_TOKEN") {
        server = server
            .bearer_token(&token)
            .map_err(|e| format!("DEKAF_HTTP_TOKEN: {e}"))?;
    }
    // The server stops once the instance has stopped (a shutdown, or a fatal error).
    let mut states = lifecycle.state_changes();
    let stopped = async move {
        let _ = states
            .wait_for(|s| matches!(s, State::NotRunning | State::Error))
            .await;
    };
    let http_server = tokio::spawn(server.serve(listener, stopped));
    tracing::info!(%http, "serving queries, health, metrics and the status page");
    let outcome = streams.run(shutdown_signal()).await;
    let _ = http_server.await;
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}
