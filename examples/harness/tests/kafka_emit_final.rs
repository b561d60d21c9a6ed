//! Emit-final (`suppress_until_window_closes()`) on a real broker under exactly-once: a SIGKILL
//! of the instance between the two halves of the input, a restart that restores the buffers
//! from their changelogs, and an independent read_committed reader that must see exactly one
//! final result per window and key, equal to the TestDriver's, for tumbling windows and for
//! sessions (merged-away sessions never come out), and one settled count and one latest value
//! per key from `suppress_until_time_limit(..)` of an aggregation and of a table, whose
//! buffers hold every key across the kill.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::path::Path;

use dekaf_streams_harness::e2e::fresh;
use dekaf_streams_harness::kafka_io::bootstrap;
use dekaf_streams_harness::windows_e2e::{
    Expected, WinFinal, expected, input, per_key, run_with_sigkill, with_flush,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn final_results_are_emitted_exactly_once_across_a_sigkill() {
    let servers = bootstrap();
    let (app, input_topic) = ("e2e-win-final", "e2e-win-final-in");
    let (tumbling, sessions) = ("e2e-win-final-tumbling", "e2e-win-final-sessions");
    let (settled, latest) = ("e2e-win-final-settled", "e2e-win-final-latest");
    fresh(
        &servers,
        app,
        &[
            (input_topic, 4),
            (tumbling, 4),
            (sessions, 4),
            (settled, 4),
            (latest, 4),
        ],
    )
    .await;
    let records = with_flush(input(20_000, 200, 13), 4);
    let want_tumbling = per_key(
        expected::<WinFinal, _, _>(
            WinFinal::E2E_WIN_FINAL_IN,
            WinFinal::E2E_WIN_FINAL_TUMBLING,
            &records,
        ),
        8,
    );
    let want_sessions = per_key(
        expected::<WinFinal, _, _>(
            WinFinal::E2E_WIN_FINAL_IN,
            WinFinal::E2E_WIN_FINAL_SESSIONS,
            &records,
        ),
        16,
    );
    let want_settled = per_key(
        expected::<WinFinal, _, _>(
            WinFinal::E2E_WIN_FINAL_IN,
            WinFinal::E2E_WIN_FINAL_SETTLED,
            &records,
        ),
        0,
    );
    let want_latest = per_key(
        expected::<WinFinal, _, _>(
            WinFinal::E2E_WIN_FINAL_IN,
            WinFinal::E2E_WIN_FINAL_LATEST,
            &records,
        ),
        0,
    );
    assert!(!want_settled.is_empty() && !want_latest.is_empty());
    // One result per window (per key for the time limits): no key twice, no tombstone.
    for want in [&want_tumbling, &want_sessions, &want_settled, &want_latest] {
        for results in want.values() {
            let mut keys: Vec<&Vec<u8>> = results.iter().map(|(k, _)| k).collect();
            keys.sort();
            keys.dedup();
            assert_eq!(
                keys.len(),
                results.len(),
                "a window twice in the expectation"
            );
            assert!(results.iter().all(|(_, v)| v.is_some()));
        }
    }
    let problems = run_with_sigkill(
        &servers,
        app,
        Path::new(env!("CARGO_BIN_EXE_windows-instance")),
        input_topic,
        records,
        &[
            Expected {
                topic: tumbling,
                per_key: want_tumbling,
                suffix: 8,
            },
            Expected {
                topic: sessions,
                per_key: want_sessions,
                suffix: 16,
            },
            Expected {
                topic: settled,
                per_key: want_settled,
                suffix: 0,
            },
            Expected {
                topic: latest,
                per_key: want_latest,
                suffix: 0,
            },
        ],
    )
    .await;
    assert!(problems.is_empty(), "not exactly once: {problems:#?}");
}
