//! The query server over published snapshots, without a broker: each "instance" is a registry
//! its test publishes into (as the processing threads would) and a server on a free port of
//! 127.0.0.1; two instances know each other through the group's endpoints, as heartbeats
//! would tell them.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::QueryServer;
use crate::protocol::Endpoint;
use crate::protocol::heartbeat::{EndpointToPartitions, TopicPartitions};
use crate::query::registry::{Publisher, Registry};
use crate::query::tests::{
    App, COUNTS, INFO, PARTITIONS, RATES, SESSIONS, STORES, SUBS, i64_bytes, partition,
    publish_versioned, session_entry, words_in_two_partitions,
};
use crate::query::{HostInfo, Queries};
use crate::store::{MemoryBackend, StoreBackend};
use crate::table::global::GlobalStores;

/// One instance: its port, its publisher, and what stops its server.
struct Instance {
    port: u16,
    publisher: Publisher,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Instance {
    /// An instance serving the test topology's stores on a free port (its `application_server`).
    async fn start() -> Instance {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let host = HostInfo {
            host: "127.0.0.1".into(),
            port,
        };
        let registry = Arc::new(Registry::new(&INFO, Some(host), GlobalStores::default()));
        registry.set_partitions("0", PARTITIONS);
        let queries: Queries<App> = Queries::new(Arc::clone(&registry));
        let server = QueryServer::new(queries)
            .store(COUNTS)
            .session_store(SESSIONS)
            .versioned_store(RATES)
            .forward_timeout(Duration::from_secs(5));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server.serve(listener, async {
            let _ = stopped.await;
        }));
        Instance {
            port,
            publisher: Publisher::new(registry, 0),
            stop: Some(stop),
        }
    }

    /// Stops the server: its port refuses connections from then on.
    async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", self.port)).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the server on port {} did not stop", self.port);
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        get(self.port, path).await
    }
}

/// `GET path`: the status and the JSON body.
async fn get(port: u16, path: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut bytes))
        .await
        .expect("an answer")
        .expect("read");
    let text = String::from_utf8_lossy(&bytes);
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The group's endpoints as the heartbeats tell them: each instance's port with its active
/// and standby partitions (of the test topology's input, `words`).
fn endpoints(instances: &[(&Instance, &[i32], &[i32])]) -> Vec<EndpointToPartitions> {
    let tp = |ps: &[i32]| {
        vec![TopicPartitions {
            topic: "words".into(),
            partitions: ps.to_vec(),
        }]
    };
    instances
        .iter()
        .map(|(instance, active, standby)| EndpointToPartitions {
            user_endpoint: Endpoint {
                host: "127.0.0.1".into(),
                port: instance.port,
            },
            active_partitions: tp(active),
            standby_partitions: tp(standby),
        })
        .collect()
}

/// A key-value store's partition holding `entries`.
fn counts(entries: &[(&str, i64)]) -> MemoryBackend {
    let mut backend = MemoryBackend::new();
    for (k, v) in entries {
        backend.put(k.as_bytes(), &i64_bytes(*v)).expect("put");
    }
    backend
}

/// Every page of a scan from `path` (which has a `?`), `next` after `next`: the entries in
/// order, and the last page's body.
async fn all_pages(instance: &Instance, path: &str) -> (Vec<Value>, Value) {
    let mut entries = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..100 {
        let url = match &after {
            Some(token) => format!("{path}&after={token}"),
            None => path.to_owned(),
        };
        let (status, body) = instance.get(&url).await;
        assert_eq!(status, 200, "{url}: {body}");
        entries.extend(body["entries"].as_array().expect("entries").iter().cloned());
        match body["next"].as_str() {
            Some(token) => after = Some(token.to_owned()),
            None => return (entries, body),
        }
    }
    panic!("{path}: more than 100 pages");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_stores_key_range_is_served_in_pages_oldest_session_first() {
    let instance = Instance::start().await;
    // Keys a..e, each with two sessions (the second also matching [100, 150]); "cc" sorts
    // between "c" and "d" and shares the bytes of "c".
    let keys = ["a", "b", "c", "cc", "d", "e"];
    let mut backends: Vec<MemoryBackend> = (0..PARTITIONS).map(|_| MemoryBackend::new()).collect();
    for (i, key) in keys.iter().enumerate() {
        let p = partition(key) as usize;
        let n = i as i64;
        backends[p]
            .put(&session_entry(key, 10, 20), &i64_bytes(n))
            .expect("put");
        backends[p]
            .put(&session_entry(key, 100 + n, 120 + n), &i64_bytes(10 + n))
            .expect("put");
    }
    for (p, backend) in backends.iter().enumerate() {
        instance
            .publisher
            .publish_whole(&STORES[3], p as i32, backend, None)
            .expect("publish");
    }
    // What Kafka Streams' fetch(keyFrom, keyTo) returns here: partition after partition, key
    // after key, each key's sessions oldest first.
    let expected = |wanted: &dyn Fn(&str, i64, i64) -> bool| -> Vec<Value> {
        let mut all: Vec<(i32, &str, i64, i64, i64)> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let n = i as i64;
            for (start, end, value) in [(10, 20, n), (100 + n, 120 + n, 10 + n)] {
                if wanted(key, start, end) {
                    all.push((partition(key), key, end, start, value));
                }
            }
        }
        all.sort();
        all.into_iter()
            .map(|(_, key, end, start, value)| {
                json!({ "key": key, "start": start, "end": end, "value": value })
            })
            .collect()
    };
    let (entries, last) = all_pages(&instance, "/stores/sessions/all?limit=3").await;
    assert_eq!(entries, expected(&|_, _, _| true));
    assert_eq!(last["partitions"], json!([0, 1, 2, 3]));
    // A key range, both bounds inclusive ("cc" is in it, and only once).
    let (entries, _) = all_pages(&instance, "/stores/sessions/range?from=b&to=cc&limit=2").await;
    assert_eq!(
        entries,
        expected(&|k, _, _| ("b"..="cc").contains(&k)),
        "keys b..=cc"
    );
    // findSessions over a key range: end >= earliest_end and start <= latest_start.
    let (entries, _) = all_pages(
        &instance,
        "/stores/sessions/range?from=a&to=d&earliest_end=121&latest_start=150",
    )
    .await;
    assert_eq!(
        entries,
        expected(&|k, _, end| ("a"..="d").contains(&k) && end >= 121)
    );
    assert_eq!(entries.len(), 4, "b, c, cc and d end at 121 or later");
    // Bad requests say what to do.
    let (status, body) = instance.get("/stores/sessions/all?earliest_end=soon").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("milliseconds")),
        "{body}"
    );
    let (status, body) = instance.get("/stores/counts/all?latest_start=5").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("session store")),
        "{body}"
    );
    let (status, body) = instance.get("/stores/sessions/all?partitions=0").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("scope=local")),
        "{body}"
    );
    // One instance's page of some of its partitions.
    let (status, body) = instance
        .get("/stores/sessions/all?scope=local&partitions=1,3")
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["partitions"], json!([1, 3]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_scan_reads_each_partition_once_preferring_active_tasks() {
    let mut a = Instance::start().await;
    let b = Instance::start().await;
    // A: active 0 and 1, standbys of 2 and 3. B: active 2, 3 restoring, a standby of 0.
    let keys: Vec<String> = (0..40).map(|i| format!("k{i:02}")).collect();
    let of = |p: i32| -> Vec<(&str, i64)> {
        keys.iter()
            .filter(|k| partition(k) == p)
            .map(|k| (k.as_str(), 1))
            .collect()
    };
    let stale_of =
        |p: i32| -> Vec<(&str, i64)> { of(p).into_iter().map(|(k, _)| (k, 0)).collect() };
    for p in [0, 1] {
        a.publisher
            .publish_whole(&STORES[0], p, &counts(&of(p)), None)
            .expect("publish");
    }
    a.publisher
        .publish_standby_all(&STORES[0], 2, &counts(&stale_of(2)), Some(7))
        .expect("publish");
    a.publisher
        .publish_standby_all(&STORES[0], 3, &counts(&of(3)), Some(2))
        .expect("publish");
    b.publisher
        .publish_whole(&STORES[0], 2, &counts(&of(2)), None)
        .expect("publish");
    b.publisher.restoring(&SUBS[0], 3);
    b.publisher
        .publish_standby_all(&STORES[0], 0, &counts(&stale_of(0)), None)
        .expect("publish");
    let group = endpoints(&[(&a, &[0, 1], &[2, 3]), (&b, &[2, 3], &[0])]);
    a.publisher.registry().set_endpoints(1, group.clone());
    b.publisher.registry().set_endpoints(1, group);

    // Strict: partition 3 restores on B, so no answer covers it.
    let (status, body) = a.get("/stores/counts/all").await;
    assert_eq!(status, 503, "{body}");
    // Stale, from either instance: every key once, from the active tasks where they are ready
    // (value 1: never a standby's 0 when the active task answers), partition 3 from A's
    // standby; in pages that together hold each key once.
    let mut expected: Vec<(i32, &String)> = keys.iter().map(|k| (partition(k), k)).collect();
    expected.sort();
    let expected: Vec<Value> = expected
        .into_iter()
        .map(|(_, k)| json!({ "key": k, "value": 1 }))
        .collect();
    for (name, instance) in [("A", &a), ("B", &b)] {
        for limit in [3, 1000] {
            let (entries, last) = all_pages(
                instance,
                &format!("/stores/counts/all?stale=true&limit={limit}"),
            )
            .await;
            assert_eq!(entries, expected, "asked {name}, limit {limit}");
            assert_eq!(
                last["replicas"],
                json!([
                    { "partition": 0, "standby": false, "lag": null },
                    { "partition": 1, "standby": false, "lag": null },
                    { "partition": 2, "standby": false, "lag": null },
                    { "partition": 3, "standby": true, "lag": 2 },
                ]),
                "asked {name}"
            );
        }
    }
    let (status, body) = b
        .get("/stores/counts/range?from=k10&to=k19&stale=true")
        .await;
    assert_eq!(status, 200, "{body}");
    let mut got: Vec<String> = body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["key"].as_str().expect("key").to_owned())
        .collect();
    got.sort();
    assert_eq!(got, keys[10..20]);
    // One instance alone (`scope=local`) names the copies it read.
    let (status, body) = b.get("/stores/counts/all?stale=true&scope=local").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["replicas"],
        json!([
            { "partition": 0, "standby": true, "lag": null },
            { "partition": 2, "standby": false, "lag": null },
        ])
    );

    // A stops answering: B alone cannot cover partitions 1 and 3.
    a.stop().await;
    let (status, body) = b.get("/stores/counts/all?stale=true").await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| e.contains("[1, 3]")),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_scan_falls_back_to_standbys_when_an_instance_does_not_answer() {
    let a = Instance::start().await;
    let mut b = Instance::start().await;
    // A: active 0 and 1 and standbys of 2 and 3 (lag 4 for both); B: active 2 and 3.
    let of = |p: i32, v: i64| -> MemoryBackend {
        let keys: Vec<String> = (0..20)
            .map(|i| format!("w{i}"))
            .filter(|k| partition(k) == p)
            .collect();
        counts(&keys.iter().map(|k| (k.as_str(), v)).collect::<Vec<_>>())
    };
    for p in [0, 1] {
        a.publisher
            .publish_whole(&STORES[0], p, &of(p, 1), None)
            .expect("publish");
    }
    for p in [2, 3] {
        a.publisher
            .publish_standby_all(&STORES[0], p, &of(p, 0), Some(4))
            .expect("publish");
        b.publisher
            .publish_whole(&STORES[0], p, &of(p, 1), None)
            .expect("publish");
    }
    let group = endpoints(&[(&a, &[0, 1], &[2, 3]), (&b, &[2, 3], &[])]);
    a.publisher.registry().set_endpoints(1, group.clone());
    b.publisher.registry().set_endpoints(1, group);
    let (status, body) = a.get("/stores/counts/all?stale=true").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .all(|e| e["value"] == 1),
        "B's active tasks answer for 2 and 3: {body}"
    );
    b.stop().await;
    // B is gone (its member not yet out of the group): strictly no answer, stale from A's
    // standbys, which say so.
    let (status, body) = a.get("/stores/counts/all").await;
    assert_eq!(status, 503, "{body}");
    let (status, body) = a.get("/stores/counts/all?stale=true").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["entries"].as_array().expect("entries").len(), 20);
    assert_eq!(
        body["replicas"][2],
        json!({ "partition": 2, "standby": true, "lag": 4 })
    );
    assert_eq!(
        body["replicas"][3],
        json!({ "partition": 3, "standby": true, "lag": 4 })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_versioned_stores_history_is_served_and_forwarded_to_the_keys_owner() {
    let a = Instance::start().await;
    let b = Instance::start().await;
    let ((eur, p), (usd, q)) = words_in_two_partitions();
    // A hosts eur's partition, B usd's.
    let (e, u) = (eur.as_str(), usd.as_str());
    publish_versioned(
        &a.publisher,
        p,
        &[
            (e, Some(110), 10),
            (e, Some(120), 20),
            (e, None, 30),
            (e, Some(140), 40),
        ],
        1_000,
    );
    publish_versioned(
        &b.publisher,
        q,
        &[(u, Some(90), 5), (u, Some(95), 15)],
        1_000,
    );
    let group = endpoints(&[(&a, &[p], &[]), (&b, &[q], &[])]);
    a.publisher.registry().set_endpoints(1, group.clone());
    b.publisher.registry().set_endpoints(1, group);

    let (status, body) = a.get(&format!("/stores/rates/versions/{eur}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "key": eur, "value": 140, "timestamp": 40, "valid_to": null })
    );
    let (status, body) = a
        .get(&format!("/stores/rates/versions/{eur}?as_of=25"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "key": eur, "value": 120, "timestamp": 20, "valid_to": 30 })
    );
    // Deleted then, and before the first version: no version.
    for as_of in [35, 9] {
        let (status, body) = a
            .get(&format!("/stores/rates/versions/{eur}?as_of={as_of}"))
            .await;
        assert_eq!(status, 404, "as of {as_of}: {body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("valid at")),
            "{body}"
        );
    }
    let (status, body) = a
        .get(&format!("/stores/rates/versions/{eur}?from=15&to=40"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "key": eur, "versions": [
            { "value": 110, "timestamp": 10, "valid_to": 20 },
            { "value": 120, "timestamp": 20, "valid_to": 30 },
            { "value": 140, "timestamp": 40, "valid_to": null },
        ] })
    );
    let (status, body) = a
        .get(&format!("/stores/rates/versions/{eur}?from=31&to=39"))
        .await;
    assert_eq!((status, &body["versions"]), (200, &json!([])), "{body}");
    // The latest value as a key-value store's.
    let (status, body) = a.get(&format!("/stores/rates/keys/{eur}")).await;
    assert_eq!((status, body), (200, json!({ "key": eur, "value": 140 })));
    // usd lives on B: A forwards, and relays B's answer.
    let (status, body) = a
        .get(&format!("/stores/rates/versions/{usd}?as_of=10"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "key": usd, "value": 90, "timestamp": 5, "valid_to": 15 })
    );
    // What does not fit is refused, saying what to do.
    for (path, says) in [
        (
            format!("/stores/rates/versions/{eur}?as_of=5&to=9"),
            "one or the other",
        ),
        (
            format!("/stores/rates/versions/{eur}?as_of=noon"),
            "milliseconds",
        ),
        (
            format!("/stores/rates/versions/{eur}?stale=true"),
            "leave `stale` out",
        ),
        ("/stores/counts/versions/a".to_owned(), "versioned_store"),
        ("/stores/rates/sessions/a".to_owned(), "/versions/{key}"),
    ] {
        let (status, body) = a.get(&path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(says)),
            "{path}: {body}"
        );
    }
}
