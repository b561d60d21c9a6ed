//! Interactive queries of session stores, and stale reads of standby replicas, on a real broker:
//!
//! - a session store answers each key's sessions (typed, oldest first, `find_sessions` with
//!   inclusive bounds, `fetch_session`) and over HTTP (`/stores/{store}/sessions/{key}`);
//! - in a group with `streams.num.standby.replicas` = 1, two instances: the instance that keeps
//!   only a standby of a key's task answers a query that enables stale stores from its standby
//!   (saying so), and refuses the same query without the opt-in (`NotLocal`, or `503` over
//!   HTTP when asked not to forward).
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::HashMap;
use std::ops::Bound;
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, set_standby_replicas};
use dekaf_streams::http::QueryServer;
use dekaf_streams::prelude::*;
use dekaf_streams::query::{Queries, QueryError, Replica};
use dekaf_streams::{KafkaStreams, ProcessingGuarantee};
use dekaf_streams_harness::e2e::{InProcess, fresh, wait_for_members_with_tasks};
use dekaf_streams_harness::http_client;
use dekaf_streams_harness::kafka_io::{NewRecord, bootstrap, produce_records, recent_minute};
use serde_json::{Value, json};
use tokio::net::TcpListener;

topology! {
    /// Counts records per key in sessions of 10 ms of inactivity.
    pub IqSessions = "iq-sessions" {
        stream("iq-sessions-in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(10).grace(3_600_000))
            .count("sessions")
            .to_stream()
            .to("iq-sessions-out", SessionWindowed::<Utf8>, I64);
    }
}

topology! {
    /// Counts records per key, in all and per session: two stores of one task.
    pub IqStale = "iq-stale" {
        let words = stream("iq-stale-in", Utf8, Utf8);
        words.group_by_key().count("counts").to_stream().to("iq-stale-out", Utf8, I64);
        words
            .group_by_key()
            .windowed_by(session(10).grace(3_600_000))
            .count("word-sessions")
            .to_stream()
            .to("iq-stale-sessions-out", SessionWindowed::<Utf8>, I64);
    }
}

/// Event time of the records: the test's start, to the minute. Recent on purpose: a session
/// store's changelog is also deleted by time (retention gap + grace + a day, as Kafka Streams
/// configures it), so records from long ago may be gone from it before a standby reads them.
fn base() -> i64 {
    static BASE: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| recent_minute(0))
}

/// One HTTP answer: status and JSON body.
async fn get(port: u16, path: &str, headers: &str) -> (u16, Value) {
    let answer = http_client::get(port, path, headers)
        .await
        .expect("an answer from the query server");
    (answer.status, answer.json())
}

/// Starts `topology` (exactly-once, no cache) with an HTTP query server (stores chosen by
/// `serve`) on a free port, that port its `application_server`.
async fn start<T: Topology + Send>(
    topology: T,
    serve: impl FnOnce(QueryServer<T>) -> QueryServer<T>,
) -> (
    InProcess,
    u16,
    tokio::task::JoinHandle<std::io::Result<()>>,
    Queries<T>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let streams = KafkaStreams::builder(topology)
        .bootstrap_servers(bootstrap())
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .application_server(format!("127.0.0.1:{port}"))
        .build()
        .expect("valid settings");
    let queries = streams.queries();
    let server = tokio::spawn(
        serve(QueryServer::new(streams.queries())).serve(listener, std::future::pending()),
    );
    (InProcess::run(streams), port, server, queries)
}

/// Polls `check` every 200 ms until it returns `Some`, at most `timeout`.
async fn poll_until<R>(timeout: Duration, mut check: impl AsyncFnMut() -> Option<R>) -> Option<R> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(r) = check().await {
            return Some(r);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Each user's records are at +0, +5, +30, +100 and +104 ms: sessions [0, 5] (2 records),
/// [30, 30] (1) and [100, 104] (2), with a gap of 10 ms.
const OFFSETS: [i64; 5] = [0, 5, 30, 100, 104];

fn user_sessions(user: &str) -> Vec<(String, i64, i64, i64)> {
    [(0, 5, 2), (30, 30, 1), (100, 104, 2)]
        .into_iter()
        .map(|(s, e, n)| (user.to_owned(), base() + s, base() + e, n))
        .collect()
}

fn sessions_of<I>(iter: I) -> Vec<(String, i64, i64, i64)>
where
    I: Iterator<Item = Result<(Windowed<String>, i64), QueryError>>,
{
    iter.map(|e| {
        let (w, n) = e.expect("a session");
        (w.key, w.window.start, w.window.end, n)
    })
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_store_queries_return_each_keys_sessions_typed_and_over_http() {
    let servers = bootstrap();
    fresh(
        &servers,
        "iq-sessions",
        &[("iq-sessions-in", 2), ("iq-sessions-out", 2)],
    )
    .await;
    let users: Vec<String> = (0..10).map(|i| format!("u{i}")).collect();
    let mut records = Vec::new();
    for offset in OFFSETS {
        for user in &users {
            records.push(NewRecord {
                key: Some(user.as_bytes()),
                value: Some(b"click"),
                timestamp: Some(base() + offset),
                ..NewRecord::default()
            });
        }
    }
    let n = produce_records(&servers, "iq-sessions-in", records.clone())
        .await
        .expect("produce");
    assert_eq!(n as usize, records.len());
    let (app, port, server, queries) =
        start(IqSessions, |s| s.session_store(IqSessions::SESSIONS)).await;
    let sessions = queries
        .session_store(IqSessions::SESSIONS)
        .expect("a session store");
    // Every user's three sessions, once processed and committed.
    let all_seen = poll_until(Duration::from_secs(90), async || {
        let all = users.iter().all(|u| {
            sessions
                .fetch(u)
                .is_ok_and(|it| sessions_of(it) == user_sessions(u))
        });
        all.then_some(())
    })
    .await;
    assert!(all_seen.is_some(), "every user's sessions are answered");
    let u3 = "u3".to_owned();
    let want = user_sessions(&u3);
    assert_eq!(
        sessions_of(sessions.backward_fetch(&u3).expect("backward")),
        want.iter().rev().cloned().collect::<Vec<_>>()
    );
    // findSessions: end >= base + 5 and start <= base + 30, both inclusive.
    assert_eq!(
        sessions_of(
            sessions
                .find_sessions(&u3, base() + 5, base() + 30)
                .expect("find")
        ),
        want[..2]
    );
    assert!(
        sessions_of(
            sessions
                .find_sessions(&u3, base() + 6, base() + 29)
                .expect("find")
        )
        .is_empty()
    );
    assert_eq!(
        sessions
            .fetch_session(&u3, base(), base() + 5)
            .expect("read"),
        Some(2)
    );
    // The merged-away first session [0, 0] is gone.
    assert_eq!(
        sessions.fetch_session(&u3, base(), base()).expect("read"),
        None
    );
    // The whole store (one instance: every partition), each key's sessions oldest first.
    let mut by_key: HashMap<String, Vec<(String, i64, i64, i64)>> = HashMap::new();
    for s in sessions_of(
        sessions
            .fetch_range(Bound::Unbounded, Bound::Unbounded)
            .expect("range"),
    ) {
        by_key.entry(s.0.clone()).or_default().push(s);
    }
    assert_eq!(by_key.len(), users.len());
    for u in &users {
        assert_eq!(by_key[u], user_sessions(u), "{u}");
    }
    // Over HTTP: all of a key's sessions, then those overlapping [from, to].
    let (status, body) = get(port, "/stores/sessions/sessions/u3", "").await;
    assert_eq!(status, 200, "{body}");
    let json_sessions: Vec<Value> = want
        .iter()
        .map(|(_, s, e, n)| json!({ "start": s, "end": e, "value": n }))
        .collect();
    assert_eq!(body, json!({ "key": "u3", "sessions": json_sessions }));
    let (status, body) = get(
        port,
        &format!(
            "/stores/sessions/sessions/u3?from={}&to={}",
            base() + 5,
            base() + 30
        ),
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sessions"], Value::from(json_sessions[..2].to_vec()));
    // The wrong routes say which one to use.
    let (status, body) = get(port, "/stores/sessions/keys/u3", "").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("/sessions/")),
        "{body}"
    );
    // The sessions of a key range (Kafka Streams' fetch(keyFrom, keyTo)), in pages: every
    // user's, each user's oldest first.
    let mut entries = Vec::new();
    let mut path = "/stores/sessions/all?limit=7".to_owned();
    loop {
        let (status, body) = get(port, &path, "").await;
        assert_eq!(status, 200, "{body}");
        entries.extend(body["entries"].as_array().expect("entries").iter().cloned());
        match body["next"].as_str() {
            Some(next) => path = format!("/stores/sessions/all?limit=7&after={next}"),
            None => break,
        }
    }
    assert_eq!(entries.len(), users.len() * 3, "{entries:?}");
    let (status, body) = get(port, "/stores/sessions/range?from=u3&to=u3", "").await;
    assert_eq!(status, 200, "{body}");
    let u3_sessions: Vec<Value> = want
        .iter()
        .map(|(k, s, e, n)| json!({ "key": k, "start": s, "end": e, "value": n }))
        .collect();
    assert_eq!(body["entries"], Value::from(u3_sessions));
    app.stop().await.expect("the instance stops cleanly");
    server.abort();
}

/// Word `w{i}` is produced `i % 3 + 1` times, all at `base()`: its count, and its one session's.
fn word_counts() -> HashMap<String, i64> {
    (0..20)
        .map(|i| (format!("w{i}"), (i % 3 + 1) as i64))
        .collect()
}

/// How one instance answers `word` strictly and with stale stores: `Some(true)` when it holds
/// the active task (both answer `n` from it), `Some(false)` when it holds a caught-up standby
/// (the strict read is refused as not local, the stale one answers `n` from the standby),
/// `None` otherwise (not yet).
fn holds(queries: &Queries<IqStale>, word: &String, n: i64) -> Option<bool> {
    let strict = queries.store(IqStale::COUNTS).expect("store");
    let stale = strict.clone().enable_stale_stores();
    match (strict.get(word), stale.get_with_replica(word)) {
        (Ok(Some(v)), Ok((Some(w), Replica::Active))) if v == n && w == n => Some(true),
        (
            Err(QueryError::NotLocal { stale: false, .. }),
            Ok((Some(w), Replica::Standby { .. })),
        ) if w == n => Some(false),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_query_is_answered_by_the_instance_holding_only_a_standby() {
    let servers = bootstrap();
    let app = "iq-stale";
    fresh(
        &servers,
        app,
        &[
            ("iq-stale-in", 2),
            ("iq-stale-out", 2),
            ("iq-stale-sessions-out", 2),
        ],
    )
    .await;
    let admin = CoordinatorConfig::new(&servers, "iq-stale-test");
    set_standby_replicas(&admin, app, 1)
        .await
        .expect("set the group's streams.num.standby.replicas");
    let counts = word_counts();
    let mut records = Vec::new();
    for (word, n) in &counts {
        for _ in 0..*n {
            records.push(NewRecord {
                key: Some(word.as_bytes()),
                value: Some(word.as_bytes()),
                timestamp: Some(base()),
                ..NewRecord::default()
            });
        }
    }
    let n = produce_records(&servers, "iq-stale-in", records.clone())
        .await
        .expect("produce");
    assert_eq!(n as usize, records.len());
    let serve = |s: QueryServer<IqStale>| {
        s.store(IqStale::COUNTS)
            .session_store(IqStale::WORD_SESSIONS)
    };
    let (a, port_a, server_a, queries_a) = start(IqStale, serve).await;
    let (b, port_b, server_b, queries_b) = start(IqStale, serve).await;
    assert!(
        wait_for_members_with_tasks(&servers, app, 2, Duration::from_secs(60)).await,
        "both instances run tasks"
    );
    // Each word: one instance runs its task, the other keeps a standby that caught up.
    let standby_of = poll_until(Duration::from_secs(90), async || {
        let mut standby_of: HashMap<String, usize> = HashMap::new();
        for (word, n) in &counts {
            match (holds(&queries_a, word, *n), holds(&queries_b, word, *n)) {
                (Some(true), Some(false)) => standby_of.insert(word.clone(), 1),
                (Some(false), Some(true)) => standby_of.insert(word.clone(), 0),
                _ => return None,
            };
        }
        Some(standby_of)
    })
    .await
    .expect("every word is answered by its active instance and, stale, by the other's standby");
    assert!(
        standby_of.values().any(|&i| i == 0) && standby_of.values().any(|&i| i == 1),
        "each instance keeps standbys: {standby_of:?}"
    );
    let queries = [&queries_a, &queries_b];
    let ports = [port_a, port_b];
    // The session store of the same task: refused strictly, answered stale from the standby.
    for (word, n) in &counts {
        let on = standby_of[word];
        let strict = queries[on]
            .session_store(IqStale::WORD_SESSIONS)
            .expect("store");
        assert!(
            matches!(
                strict.fetch(word),
                Err(QueryError::NotLocal { stale: false, .. })
            ),
            "{word}: a strict session read on the standby's instance is refused"
        );
        let stale = strict.enable_stale_stores();
        let mut last = String::new();
        let found = poll_until(Duration::from_secs(30), async || {
            let it = match stale.fetch(word) {
                Ok(it) => it,
                Err(e) => {
                    last = e.to_string();
                    return None;
                }
            };
            let replica = it.replicas().first().map(|(_, r)| *r)?;
            let got = sessions_of(it);
            last = format!("{replica:?}: {got:?}");
            (got == [(word.clone(), base(), base(), *n)]).then_some(replica)
        })
        .await;
        assert!(
            found.is_some_and(|r| r.is_standby()),
            "{word}: the stale session read answers from the standby; last answer: {last}"
        );
    }
    // Over HTTP, asked not to forward (as one instance asks another): the standby's instance
    // answers a stale read, saying so, and refuses a strict one.
    let word = counts.keys().min().expect("a word").clone();
    let n = counts[&word];
    let port = ports[standby_of[&word]];
    let forwarded = "x-dekaf-forwarded: 1\r\n";
    let (status, body) = get(
        port,
        &format!("/stores/counts/keys/{word}?stale=true"),
        forwarded,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["key"], &body["value"], &body["standby"]),
        (
            &Value::from(word.clone()),
            &Value::from(n),
            &Value::Bool(true)
        ),
        "{body}"
    );
    assert!(body.get("lag").is_some(), "{body}");
    let (status, body) = get(port, &format!("/stores/counts/keys/{word}"), forwarded).await;
    assert_eq!(
        status, 503,
        "a strict read is not answered from a standby: {body}"
    );
    let (status, body) = get(
        port,
        &format!("/stores/word-sessions/sessions/{word}?stale=true"),
        forwarded,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["standby"], Value::Bool(true), "{body}");
    assert_eq!(
        body["sessions"],
        json!([{ "start": base(), "end": base(), "value": n }])
    );
    // Not forwarded: the strict read is forwarded to the active instance, and says nothing
    // of replicas; a stale read on the active instance says it came from the active task.
    let (status, body) = get(port, &format!("/stores/counts/keys/{word}"), "").await;
    assert_eq!((status, &body["value"]), (200, &Value::from(n)), "{body}");
    assert!(body.get("standby").is_none(), "{body}");
    let active_port = ports[1 - standby_of[&word]];
    let (status, body) = get(
        active_port,
        &format!("/stores/counts/keys/{word}?stale=true"),
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["standby"], Value::Bool(false), "{body}");
    // A stale scan reads every partition once, from the active tasks while both answer.
    let (status, body) = get(port, "/stores/counts/all?stale=true", "").await;
    assert_eq!(status, 200, "{body}");
    let scanned: HashMap<String, i64> = body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["key"].as_str().expect("key").to_owned(),
                e["value"].as_i64().expect("value"),
            )
        })
        .collect();
    assert_eq!(scanned, counts, "{body}");
    assert_eq!(
        body["entries"].as_array().map(Vec::len),
        Some(counts.len()),
        "each word once: {body}"
    );
    assert!(
        body["replicas"]
            .as_array()
            .is_some_and(|r| r.len() == 2 && r.iter().all(|r| r["standby"] == false)),
        "{body}"
    );
    // A bad flag is refused.
    assert_eq!(
        get(port, &format!("/stores/counts/keys/{word}?stale=maybe"), "")
            .await
            .0,
        400
    );
    // A leaves: B promotes its standbys and answers every word from active tasks.
    a.stop().await.expect("A stops cleanly");
    server_a.abort();
    let promoted = poll_until(Duration::from_secs(90), async || {
        counts
            .iter()
            .all(|(word, n)| holds(&queries_b, word, *n) == Some(true))
            .then_some(())
    })
    .await;
    assert!(
        promoted.is_some(),
        "B answers every word from its active tasks after A left"
    );
    b.stop().await.expect("B stops cleanly");
    server_b.abort();
}
