//! Sliding windows on a real broker under exactly-once: a SIGKILL of the instance between the
//! two halves of the input, a restart that restores the window store from its changelog, and
//! an independent read_committed reader that must see, per key, exactly the TestDriver's
//! window updates (no duplicate, no loss, windows spanning the crash).
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::path::Path;

use dekaf_streams_harness::e2e::fresh;
use dekaf_streams_harness::kafka_io::bootstrap;
use dekaf_streams_harness::windows_e2e::{
    Expected, WinSliding, expected, input, per_key, run_with_sigkill,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sliding_windows_are_exactly_once_across_a_sigkill() {
    let servers = bootstrap();
    let (app, input_topic, output) = (
        "e2e-win-sliding",
        "e2e-win-sliding-in",
        "e2e-win-sliding-out",
    );
    fresh(&servers, app, &[(input_topic, 4), (output, 4)]).await;
    let records = input(20_000, 200, 12);
    let want = per_key(
        expected::<WinSliding, _, _>(
            WinSliding::E2E_WIN_SLIDING_IN,
            WinSliding::E2E_WIN_SLIDING_OUT,
            &records,
        ),
        8,
    );
    let updates: usize = want.values().map(Vec::len).sum();
    assert!(updates > 30_000, "records share windows: {updates} updates");
    let problems = run_with_sigkill(
        &servers,
        app,
        Path::new(env!("CARGO_BIN_EXE_windows-instance")),
        input_topic,
        records,
        &[Expected {
            topic: output,
            per_key: want,
            suffix: 8,
        }],
    )
    .await;
    assert!(problems.is_empty(), "not exactly once: {problems:#?}");
}
