//! Network faults between the application and the broker, injected by the test proxy
//! ([`dekaf_streams_examples::faults::proxy`]) at the exact step that matters.
//!
//! Needs a broker started by `scripts/kafka.sh` (it has the `PROXIED` listener):
//! `eval "$(scripts/kafka.sh env)"` exports `DEKAF_BOOTSTRAP`, `DEKAF_PROXIED_LISTENER` and
//! `DEKAF_PROXY_ADDRESS`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use dekaf_streams::ProcessingGuarantee;
use dekaf_streams::prelude::*;
use dekaf_streams_examples::e2e::{InProcess, fresh};
use dekaf_streams_examples::faults::proxy::{
    END_TXN, INIT_PRODUCER_ID, Proxy, Request, TXN_OFFSET_COMMIT,
};
use dekaf_streams_examples::kafka_io::{bootstrap, produce, read_all};

topology! {
    /// Copies every record: an input record lost or doubled shows in the output at once.
    pub StaleOffsets = "net-stale-offsets" {
        stream("net-stale-offsets-in", Utf8, Utf8)
            .map_values(|v| v.to_uppercase())
            .to("net-stale-offsets-out", Utf8, Utf8);
    }
}

/// The proxy's listen address and the broker's proxied listener, from the environment.
fn proxy_addresses() -> (SocketAddr, SocketAddr) {
    let var = |name: &str| {
        std::env::var(name)
            .unwrap_or_else(|_| {
                panic!(
                    "{name} is not set: start the broker with scripts/kafka.sh (it has the \
                     PROXIED listener) and export what `scripts/kafka.sh env` prints"
                )
            })
            .parse::<SocketAddr>()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    (var("DEKAF_PROXY_ADDRESS"), var("DEKAF_PROXIED_LISTENER"))
}

/// Records `k<from>..k<to>` with values `v<i>`.
fn records(from: usize, to: usize) -> Vec<(String, String)> {
    (from..to)
        .map(|i| (format!("k{i:05}"), format!("v{i}")))
        .collect()
}

async fn send(servers: &str, topic: &str, batch: &[(String, String)]) {
    produce(
        servers,
        topic,
        batch
            .iter()
            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
    )
    .await
    .expect("produce input");
}

/// Every output key with how often it was written (read_committed).
async fn output_counts(servers: &str, topic: &str) -> HashMap<String, usize> {
    let records = read_all(
        servers,
        topic,
        Duration::from_secs(2),
        Duration::from_secs(30),
    )
    .await
    .expect("read output");
    let mut counts = HashMap::new();
    for r in records {
        let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// The first partition error code of a `TxnOffsetCommit` response frame (v3: flexible
/// header, throttle time, topics with partitions), `None` when it does not parse.
fn txn_offset_commit_error(frame: &[u8]) -> Option<i16> {
    use kafka_protocol::messages::{ResponseHeader, TxnOffsetCommitResponse};
    use kafka_protocol::protocol::Decodable;
    let mut bytes = bytes::Bytes::copy_from_slice(frame.get(4..)?);
    ResponseHeader::decode(&mut bytes, 1).ok()?;
    let response = TxnOffsetCommitResponse::decode(&mut bytes, 3).ok()?;
    response
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| p.error_code)
        .next()
}

fn offset_commits_after(requests: &[Request], after: u64) -> Vec<Request> {
    requests
        .iter()
        .filter(|r| r.api_key == TXN_OFFSET_COMMIT && r.id > after)
        .cloned()
        .collect()
}

/// A `TxnOffsetCommit` of an aborted interval that reaches the group coordinator late, while
/// the next transaction of the same producer is open, must not commit: its offsets lie past
/// the aborted records, which would then never be processed again (the loss seen once in
/// twelve fault runs: every offset committed, a stretch of records never counted).
///
/// The proxy holds every `TxnOffsetCommit` until the application's commit gives up and aborts
/// the interval; holds the next transaction's `EndTxn`; lets that transaction's own
/// `TxnOffsetCommit` through; then delivers the held ones of the aborted interval, and lets the
/// transaction commit. Every input record must be in the output exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_offset_commit_of_an_aborted_interval_does_not_commit() {
    let servers = bootstrap();
    let (listen, proxied) = proxy_addresses();
    let (input, output) = ("net-stale-offsets-in", "net-stale-offsets-out");
    fresh(&servers, "net-stale-offsets", &[(input, 1), (output, 1)]).await;
    let proxy = Proxy::start(listen, proxied)
        .await
        .expect("start the proxy");
    let streams = dekaf_streams::KafkaStreams::builder(StaleOffsets)
        .bootstrap_servers(proxy.address().to_string())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        // Longer than the commit's own patience (30 s): the application gives up on the offsets
        // and aborts before the broker would abort the transaction for its timeout (which
        // bumps the epoch by itself).
        .transaction_timeout(Duration::from_secs(60))
        .cache_max_bytes(0)
        // A request unanswered for 6 s is given up (and its connection closed) by librdkafka:
        // the held offsets are retried a few times within the commit's 30 s.
        .property("socket.timeout.ms", "6000")
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);

    // Warm up: the first records go through.
    send(&servers, input, &records(0, 100)).await;
    let warm = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if output_counts(&servers, output).await.len() >= 100 {
                return;
            }
        }
    })
    .await;
    assert!(warm.is_ok(), "the first 100 records did not come through");

    // The interval's offsets never reach the coordinator in time: the commit gives up and the
    // interval is aborted. Nothing else is sent meanwhile (no new input, so no records are
    // produced behind the held request, whose timeout would make librdkafka bump the epoch
    // by itself): only the offsets are late.
    proxy.hold(TXN_OFFSET_COMMIT);
    let armed = proxy.requests().last().map_or(0, |r| r.id);
    send(&servers, input, &records(100, 150)).await;
    let first = proxy
        .wait_for(Duration::from_secs(60), "a held TxnOffsetCommit", |rs| {
            !offset_commits_after(rs, armed).is_empty()
        })
        .await
        .expect("the application commits");
    let first_held = offset_commits_after(&first, armed)[0].id;
    // The abort: EndTxn (abort_transaction) or InitProducerId (a new producer fencing the old).
    let ended = proxy
        .wait_for(Duration::from_secs(90), "the interval's abort", |rs| {
            rs.iter().any(|r| {
                r.id > first_held
                    && (r.api_key == END_TXN || r.api_key == INIT_PRODUCER_ID)
                    && r.forwarded
            })
        })
        .await
        .expect("the application aborts the interval");
    let abort = ended
        .iter()
        .find(|r| r.id > first_held && (r.api_key == END_TXN || r.api_key == INIT_PRODUCER_ID))
        .map(|r| r.id)
        .expect("the abort");
    // The redone interval covers more input than the aborted one: late offsets that commit
    // move the group back, and the records after them are written twice once the task starts
    // again from the group's offsets.
    send(&servers, input, &records(150, 200)).await;
    let redone = proxy
        .wait_for(
            Duration::from_secs(90),
            "the next transaction's TxnOffsetCommit",
            |rs| !offset_commits_after(rs, abort).is_empty(),
        )
        .await
        .expect("the application commits again");
    let next = offset_commits_after(&redone, abort)[0].id;
    let stale: Vec<u64> = offset_commits_after(&redone, armed)
        .iter()
        .filter(|r| r.id < abort)
        .map(|r| r.id)
        .collect();
    assert!(
        !stale.is_empty(),
        "no TxnOffsetCommit of the aborted interval was held"
    );
    // The next transaction's commit waits until the late offsets have been delivered.
    proxy.hold(END_TXN);
    proxy.pass(TXN_OFFSET_COMMIT);
    proxy.release(next);
    proxy
        .wait_for(
            Duration::from_secs(30),
            "the next transaction's EndTxn",
            |rs| {
                rs.iter()
                    .any(|r| r.api_key == END_TXN && r.id > next && r.held)
            },
        )
        .await
        .expect("the application ends the next transaction");
    for id in &stale {
        proxy.release(*id);
    }
    proxy
        .wait_for(Duration::from_secs(30), "the late offsets answered", |rs| {
            stale.iter().all(|id| rs[*id as usize].answered)
        })
        .await
        .expect("the broker answers the late offsets");
    // The broker must refuse them: the abort ended the producer epoch they carry. (With an
    // abort that keeps the epoch, Kafka 4.4 answers them with no error: they join the open
    // transaction, and their offsets commit with it.)
    for id in &stale {
        let request = &proxy.requests()[*id as usize];
        let code = request
            .response
            .as_deref()
            .and_then(txn_offset_commit_error);
        assert!(
            code.is_some_and(|c| c != 0),
            "the late TxnOffsetCommit {id} of the aborted interval was accepted into the next \
             transaction (error code {code:?}): its offsets would commit with it"
        );
    }
    proxy.pass(END_TXN);
    for r in proxy.requests().iter().filter(|r| r.held) {
        proxy.release(r.id);
    }
    // Caught up and idle: every record so far out once.
    let caught_up = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if output_counts(&servers, output).await.len() >= 200 {
                return;
            }
        }
    })
    .await;
    assert!(
        caught_up.is_ok(),
        "the first 200 records did not come through"
    );
    // The task starts again from the group's committed offsets (a restart, as after a crash
    // or a move to another instance), then the rest of the input comes.
    app.stop().await.expect("the application stops cleanly");
    let streams = dekaf_streams::KafkaStreams::builder(StaleOffsets)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .build()
        .expect("valid settings");
    let app = InProcess::run(streams);
    send(&servers, input, &records(200, 500)).await;

    // Every record exactly once, read by an independent read_committed consumer.
    let expected = 500;
    let mut counts = HashMap::new();
    for _ in 0..30 {
        counts = output_counts(&servers, output).await;
        if counts.len() >= expected {
            break;
        }
    }
    let stopped = app.stop().await;
    let missing: Vec<String> = records(0, expected)
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| !counts.contains_key(k))
        .collect();
    let doubled: Vec<&String> = counts
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, _)| k)
        .collect();
    assert!(
        missing.is_empty() && doubled.is_empty(),
        "not exactly once: {} records missing (first {:?}), {} doubled (e.g. {:?})",
        missing.len(),
        missing.first(),
        doubled.len(),
        doubled.first()
    );
    stopped.expect("the application stops cleanly");
}
