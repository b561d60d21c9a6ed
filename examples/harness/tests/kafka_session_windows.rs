//! Session windows on a real broker under exactly-once: a SIGKILL of the instance between the
//! two halves of the input, a restart that restores the session store from its changelog, and
//! an independent read_committed reader that must see, per key, exactly the TestDriver's
//! updates and merge tombstones (no duplicate, no loss, sessions merged across the crash).
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::path::Path;

use dekaf_streams_harness::e2e::fresh;
use dekaf_streams_harness::kafka_io::bootstrap;
use dekaf_streams_harness::windows_e2e::{
    Expected, WinSession, expected, input, per_key, run_with_sigkill,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_exactly_once_across_a_sigkill() {
    let servers = bootstrap();
    let (app, input_topic, output) = (
        "e2e-win-session",
        "e2e-win-session-in",
        "e2e-win-session-out",
    );
    fresh(&servers, app, &[(input_topic, 4), (output, 4)]).await;
    let records = input(20_000, 200, 11);
    let want = per_key(
        expected::<WinSession, _, _>(
            WinSession::E2E_WIN_SESSION_IN,
            WinSession::E2E_WIN_SESSION_OUT,
            &records,
        ),
        16,
    );
    let tombstones = want.values().flatten().filter(|(_, v)| v.is_none()).count();
    assert!(
        tombstones > 1_000,
        "the input merges sessions: {tombstones} tombstones"
    );
    let problems = run_with_sigkill(
        &servers,
        app,
        Path::new(env!("CARGO_BIN_EXE_windows-instance")),
        input_topic,
        records,
        &[Expected {
            topic: output,
            per_key: want,
            suffix: 16,
        }],
    )
    .await;
    assert!(problems.is_empty(), "not exactly once: {problems:#?}");
}
