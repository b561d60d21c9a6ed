//! The status page (`GET /`) and its data (`GET /status`): the topology drawn as SVG, with the
//! instance's threads, their tasks, and each task's lag.
//!
//! The page is one HTML document with the SVG inline (drawn once, when the server is made,
//! by [`Description::to_svg`]) and a small script that reads `/status` every two seconds,
//! fills the task table, and marks the subtopologies this instance runs active tasks of. It
//! loads nothing from elsewhere, so it works where the server is reachable and nothing else.

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::health::state_name;
use super::reply::reply;
use crate::picture::Description;
use crate::picture::escape;
use crate::streams::{Lifecycle, TaskOffsets, ThreadState};

/// The page, with `{{APPLICATION}}` and `{{SVG}}` to fill.
const TEMPLATE: &str = include_str!("status.html");

/// The status page of application `application_id` whose `describe()` text is `description`.
pub(super) fn page(application_id: &str, description: &str) -> String {
    let svg = match Description::parse(description) {
        Ok(d) => d.to_svg(),
        Err(e) => format!(
            "<p id=\"no-picture\">The topology could not be drawn: {}</p>",
            escape(&e.to_string())
        ),
    };
    TEMPLATE
        .replace("{{APPLICATION}}", &escape(application_id))
        .replace("{{SVG}}", &svg)
}

/// `200` with the page.
pub(super) fn html(page: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::copy_from_slice(page.as_bytes())));
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // Inline script and style only, nothing from elsewhere, no framing by other sites.
    headers.insert(
        hyper::header::CONTENT_SECURITY_POLICY,
        hyper::header::HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
        ),
    );
    response
}

/// `200` with the instance's state and threads as JSON (`state` null when the server was
/// given no lifecycle).
pub(super) fn status(application_id: &str, lifecycle: Option<&Lifecycle>) -> Response<Full<Bytes>> {
    let Some(lifecycle) = lifecycle else {
        return reply(
            StatusCode::OK,
            &json!({
                "application_id": application_id,
                "state": null,
                "paused": false,
                "threads": [],
                "error": "no lifecycle given: serve with QueryServer::lifecycle(streams.lifecycle())",
            }),
        );
    };
    let threads: Vec<Value> = lifecycle
        .local_threads()
        .iter()
        .map(|t| {
            let active: Vec<Value> = t
                .active_tasks
                .iter()
                .map(|id| task_json(id, t.task_offsets.iter().find(|o| &o.task == id)))
                .collect();
            json!({
                "name": t.name,
                "state": thread_state_name(t.state),
                "active_tasks": active,
                "standby_tasks": t.standby_tasks,
            })
        })
        .collect();
    reply(
        StatusCode::OK,
        &json!({
            "application_id": application_id,
            "state": state_name(lifecycle.state()),
            "paused": lifecycle.is_paused(),
            "threads": threads,
        }),
    )
}

/// A task with its input partitions and lag (`null` where not known yet).
fn task_json(id: &str, offsets: Option<&TaskOffsets>) -> Value {
    let partitions: Vec<Value> = offsets
        .map(|o| {
            o.partitions
                .iter()
                .map(|p| {
                    json!({
                        "topic": p.topic,
                        "partition": p.partition,
                        "position": p.position,
                        "end": p.end,
                        "lag": p.lag(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "task": id,
        "partitions": partitions,
        "lag": offsets.and_then(TaskOffsets::lag),
    })
}

/// Kafka Streams' name of a thread state (`StreamThread.State`, folded).
fn thread_state_name(state: ThreadState) -> &'static str {
    match state {
        ThreadState::Starting => "STARTING",
        ThreadState::Rebalancing => "PARTITIONS_ASSIGNED",
        ThreadState::Running => "RUNNING",
        ThreadState::Dead => "DEAD",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_draws_the_topology_and_escapes_the_name() {
        let description = "Topologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [in])\n      --> KSTREAM-SINK-0000000001\n    Sink: KSTREAM-SINK-0000000001 (topic: out)\n      <-- KSTREAM-SOURCE-0000000000\n\n";
        let page = page("a<b", description);
        assert!(page.contains("<title>a&lt;b: dekaf-streams</title>"));
        assert!(page.contains("<svg"), "{page}");
        assert!(page.contains("data-name=\"in\""), "{page}");
        assert!(!page.contains("{{"), "a placeholder was left: {page}");
    }

    #[test]
    fn a_description_that_does_not_parse_says_so_on_the_page() {
        let page = page("app", "not a description");
        assert!(page.contains("id=\"no-picture\""), "{page}");
    }
}
