//! `cogroup` on a real broker under exactly-once: two input topics (clicks and views) cogrouped
//! into one `(clicks, views)` pair per key, in total and per tumbling window of 1 s, a SIGKILL
//! of the instance between the two halves of the input, and a restart that restores the shared
//! stores from their changelogs. An independent read_committed reader checks every key's (and
//! window's) results: one per input record, each adding exactly one click or one view to the one
//! before (so a repeat is a duplicate, a gap a loss, whatever order the task took the two topics
//! in), ending at the input's counts.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dekaf_streams_harness::e2e::{Reader, fresh};
use dekaf_streams_harness::kafka_io::{ReadRecord, bootstrap, off_workers};
use dekaf_streams_harness::windows_e2e::{Input, input, instance, produce_inputs};

const APP: &str = "e2e-win-cogroup";
const CLICKS: &str = "e2e-win-cogroup-clicks";
const VIEWS: &str = "e2e-win-cogroup-views";
const TOTALS: &str = "e2e-win-cogroup-totals";
const PER_SECOND: &str = "e2e-win-cogroup-per-second";

/// Per result key (the key, or the key and the window start for `window`), the input's
/// `(clicks, views)`.
fn counts(clicks: &[Input], views: &[Input], window: Option<i64>) -> BTreeMap<Vec<u8>, (i64, i64)> {
    let mut out: BTreeMap<Vec<u8>, (i64, i64)> = BTreeMap::new();
    for (records, is_click) in [(clicks, true), (views, false)] {
        for r in records {
            let mut key = r.key.as_bytes().to_vec();
            if let Some(size) = window {
                // `TimeWindowed` keys: the key, then the window start (big-endian i64).
                key.extend_from_slice(&(r.timestamp - r.timestamp.rem_euclid(size)).to_be_bytes());
            }
            let entry = out.entry(key).or_default();
            if is_click {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
    }
    out
}

/// The problems of `records` (one topic's, read back) against the expected final counts.
fn check(topic: &str, records: &[ReadRecord], want: &BTreeMap<Vec<u8>, (i64, i64)>) -> Vec<String> {
    let mut per_key: BTreeMap<Vec<u8>, Vec<(i64, i64)>> = BTreeMap::new();
    let mut problems = Vec::new();
    for r in records {
        let key = r.key.clone().unwrap_or_default();
        let Some(value) = r
            .value
            .as_deref()
            .and_then(|v| serde_json::from_slice::<(i64, i64)>(v).ok())
        else {
            problems.push(format!("{topic}: a record without a (clicks, views) value"));
            continue;
        };
        per_key.entry(key).or_default().push(value);
    }
    for (key, results) in &per_key {
        let name = String::from_utf8_lossy(key);
        let mut before = (0, 0);
        for (i, &(c, v)) in results.iter().enumerate() {
            let step = (c - before.0, v - before.1);
            if step != (1, 0) && step != (0, 1) {
                problems.push(format!(
                    "{topic}: {name:?} result {i} is {:?} after {before:?}: not one record more (a duplicate or a loss)",
                    (c, v)
                ));
                break;
            }
            before = (c, v);
        }
        if want.get(key) != Some(&before) {
            problems.push(format!(
                "{topic}: {name:?} ends at {before:?}, the input has {:?}",
                want.get(key)
            ));
        }
    }
    for key in want.keys().filter(|k| !per_key.contains_key(*k)) {
        problems.push(format!(
            "{topic}: no result for {:?}",
            String::from_utf8_lossy(key)
        ));
    }
    problems.truncate(10);
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cogrouped_results_are_exactly_once_across_a_sigkill() {
    let servers = bootstrap();
    fresh(
        &servers,
        APP,
        &[(CLICKS, 4), (VIEWS, 4), (TOTALS, 4), (PER_SECOND, 4)],
    )
    .await;
    // Every third record is a view; both topics in timestamp order.
    let records = input(12_000, 150, 31);
    let (mut clicks, mut views) = (Vec::new(), Vec::new());
    for (i, r) in records.into_iter().enumerate() {
        if i % 3 == 0 {
            views.push(r);
        } else {
            clicks.push(r);
        }
    }
    let want_totals = counts(&clicks, &views, None);
    let want_per_second = counts(&clicks, &views, Some(1_000));
    let total = |want: &BTreeMap<Vec<u8>, (i64, i64)>| -> usize {
        want.values()
            .map(|(c, v)| usize::try_from(c + v).unwrap_or(0))
            .sum()
    };
    let (n_totals, n_per_second) = (total(&want_totals), total(&want_per_second));
    assert_eq!(n_totals, clicks.len() + views.len());
    assert_eq!(n_per_second, n_totals);

    let binary = Path::new(env!("CARGO_BIN_EXE_windows-instance"));
    let halves = |v: &[Input]| {
        let half = v.len() / 2;
        (v[..half].to_vec(), v[half..].to_vec())
    };
    let ((c1, c2), (v1, v2)) = (halves(&clicks), halves(&views));
    let s = servers.clone();
    off_workers(move || {
        produce_inputs(&s, CLICKS, &c1);
        produce_inputs(&s, VIEWS, &v1);
    })
    .await;
    let mut victim = instance(binary, APP, &servers);
    let mut reader = Reader::new(&servers, TOTALS).await;
    let started = reader
        .read_until(Duration::from_secs(120), |r| r.len() > 100)
        .await;
    drop(reader);
    // SIGKILL: no clean shutdown; the open transaction is aborted by the broker.
    off_workers(move || {
        let _ = victim.kill();
        let _ = victim.wait();
    })
    .await;
    assert!(started, "no committed output before the kill");
    let s = servers.clone();
    off_workers(move || {
        produce_inputs(&s, CLICKS, &c2);
        produce_inputs(&s, VIEWS, &v2);
    })
    .await;
    let mut restarted = instance(binary, APP, &servers);
    let mut problems = Vec::new();
    for (topic, want, n) in [
        (TOTALS, &want_totals, n_totals),
        (PER_SECOND, &want_per_second, n_per_second),
    ] {
        let mut reader = Reader::new(&servers, topic).await;
        let done = reader
            .read_until(Duration::from_secs(240), |r| r.len() >= n)
            .await;
        // Anything more (a duplicate) shows up within a few seconds.
        reader.drain(Duration::from_secs(3)).await;
        if !done {
            problems.push(format!(
                "{topic}: {} of {n} records read within the limit",
                reader.records.len()
            ));
        }
        problems.extend(check(topic, &reader.records, want));
    }
    let status = off_workers(move || {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(restarted.id().to_string())
            .status();
        restarted.wait().expect("wait for the instance")
    })
    .await;
    assert!(
        status.success(),
        "the restarted instance exited with {status}"
    );
    assert!(problems.is_empty(), "not exactly once: {problems:#?}");
}
