//! `/health/live` and `/health/ready`, from the instance's lifecycle.

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::json;

use super::reply::reply;
use crate::streams::{Lifecycle, State};

/// Kafka Streams' name of `state` (`KafkaStreams.State`).
pub(super) fn state_name(state: State) -> &'static str {
    match state {
        State::Created => "CREATED",
        State::Rebalancing => "REBALANCING",
        State::Running => "RUNNING",
        State::PendingShutdown => "PENDING_SHUTDOWN",
        State::NotRunning => "NOT_RUNNING",
        State::PendingError => "PENDING_ERROR",
        State::Error => "ERROR",
    }
}

/// `200` while the process serves, `503` once the instance is in `ERROR` (it stopped after a
/// fatal error and will not recover by itself: a restart is what helps).
pub(super) fn live(lifecycle: Option<&Lifecycle>) -> Response<Full<Bytes>> {
    match lifecycle.map(Lifecycle::state) {
        Some(State::Error) => reply(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({ "status": "dead", "state": "ERROR", "error": "the instance stopped after a fatal error: restart it" }),
        ),
        Some(state) => reply(
            StatusCode::OK,
            &json!({ "status": "live", "state": state_name(state) }),
        ),
        None => reply(StatusCode::OK, &json!({ "status": "live" })),
    }
}

/// `200` when the instance is `RUNNING` (every thread runs its tasks, restored), else `503`
/// with the state; `503` when the server was given no lifecycle.
pub(super) fn ready(lifecycle: Option<&Lifecycle>) -> Response<Full<Bytes>> {
    let Some(lifecycle) = lifecycle else {
        return reply(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({ "status": "unknown", "error": "no lifecycle given: serve with QueryServer::lifecycle(streams.lifecycle())" }),
        );
    };
    let state = lifecycle.state();
    if state == State::Running {
        reply(
            StatusCode::OK,
            &json!({ "status": "ready", "state": state_name(state) }),
        )
    } else {
        let why = match state {
            State::Created => "the instance has not started",
            State::Rebalancing => {
                "the instance is joining the group, taking on tasks or restoring state"
            }
            State::PendingShutdown | State::NotRunning => {
                "the instance is shutting down or stopped"
            }
            State::PendingError | State::Error => "the instance stopped after a fatal error",
            State::Running => "",
        };
        reply(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({ "status": "not ready", "state": state_name(state), "error": why }),
        )
    }
}
