//! The query server under load and abuse, against a real running application (127.0.0.1 only,
//! a bounded number of requests): concurrent keep-alive clients doing key queries and paged
//! scans, slowloris clients trickling a head byte by byte, oversized requests, more
//! connections than the limit. Meanwhile the instance's heartbeats are recorded (the runtime's
//! `dekaf_streams::heartbeat` trace events) and the group's epoch is compared before and
//! after: the member keeps its place and its tasks. The figures (requests served, p99 latency,
//! heartbeat spacing) are printed (`--nocapture`); only generous bounds are asserted.
//!
//! Also: a key hosted by the other instance is forwarded over TLS with the bearer token.
//!
//! Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092): `scripts/kafka.sh start`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use dekaf_streams::group::{CoordinatorConfig, describe_streams_group};
use dekaf_streams::http::{PrometheusHandle, QueryServer, prometheus_recorder};
use dekaf_streams::prelude::*;
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, State};
use dekaf_streams_harness::e2e::{InProcess, fresh, wait_for_members_with_tasks};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

topology! {
    /// Counts records per key.
    pub HttpLoad = "http-load" {
        stream("http-load-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("http-load-out", Utf8, I64);
    }
}

topology! {
    /// Counts records per key.
    pub HttpSecure = "http-secure" {
        stream("http-secure-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("http-secure-out", Utf8, I64);
    }
}

/// Distinct keys: `k{i}` counted `i % 5 + 1` times.
const KEYS: usize = 200;
/// Concurrent keep-alive clients, and the key queries each makes.
const CLIENTS: usize = 64;
const REQUESTS_PER_CLIENT: usize = 250;
/// Slowloris clients, oversized requests, connections opened over the limit.
const SLOW_CLIENTS: usize = 16;
const OVERSIZED: usize = 32;
const FLOOD: usize = 100;
/// The server's connection limit in the load test: the clients fit, the flood does not.
const MAX_CONNECTIONS: usize = CLIENTS + SLOW_CLIENTS + OVERSIZED + 8;
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(2);
/// A generous bound for what must happen "soon" on a loaded machine.
const SOON: Duration = Duration::from_secs(60);

fn expected() -> HashMap<String, i64> {
    (0..KEYS)
        .map(|i| (format!("k{i}"), (i % 5 + 1) as i64))
        .collect()
}

async fn produce_keys(topic: &str) {
    let mut records = Vec::new();
    for (key, n) in expected() {
        for _ in 0..n {
            records.push(key.clone());
        }
    }
    produce(
        &bootstrap(),
        topic,
        records
            .iter()
            .map(|k| (Some(k.as_bytes()), Some(k.as_bytes()))),
    )
    .await
    .expect("produce");
}

/// When each member sent its heartbeats (from the runtime's trace events).
#[derive(Clone, Default)]
struct Beats(Arc<Mutex<Vec<(Instant, String)>>>);

struct MemberField(String);

impl Visit for MemberField {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "member" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Beats {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut member = MemberField(String::new());
        event.record(&mut member);
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((Instant::now(), member.0));
    }
}

impl Beats {
    /// Per member: heartbeats sent in `[from, to]` and the gaps between them.
    fn gaps(&self, from: Instant, to: Instant) -> HashMap<String, (usize, Vec<Duration>)> {
        let beats = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut per: HashMap<String, Vec<Instant>> = HashMap::new();
        for (at, member) in beats {
            if at >= from && at <= to {
                per.entry(member).or_default().push(at);
            }
        }
        per.into_iter()
            .map(|(member, times)| {
                let gaps = times.windows(2).map(|w| w[1] - w[0]).collect();
                (member, (times.len(), gaps))
            })
            .collect()
    }
}

/// The test process's logs and heartbeat recording (one subscriber per process).
fn tracing() -> Beats {
    static BEATS: OnceLock<Beats> = OnceLock::new();
    BEATS
        .get_or_init(|| {
            let beats = Beats::default();
            let logs = tracing_subscriber::fmt::layer()
                .with_test_writer()
                .with_filter(
                    EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| EnvFilter::new("info,rdkafka=warn")),
                );
            let heartbeats = beats.clone().with_filter(
                Targets::new().with_target("dekaf_streams::heartbeat", tracing::Level::TRACE),
            );
            let _ = tracing_subscriber::registry()
                .with(logs)
                .with(heartbeats)
                .try_init();
            beats
        })
        .clone()
}

fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| prometheus_recorder().expect("the first recorder of this process"))
        .clone()
}

/// A keep-alive HTTP/1.1 client of one connection.
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    async fn connect(port: u16) -> std::io::Result<Client> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        Ok(Client {
            stream,
            buf: Vec::new(),
        })
    }

    /// `GET path` with `headers`: status and body, or why the connection failed.
    async fn get(&mut self, path: &str, headers: &str) -> std::io::Result<(u16, Vec<u8>)> {
        let raw = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n");
        self.stream.write_all(raw.as_bytes()).await?;
        let eof = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed");
        let head_end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 4096];
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(eof());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_ascii_lowercase();
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while self.buf.len() < head_end + length {
            let mut chunk = [0u8; 16384];
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(eof());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
        let body = self.buf[head_end..head_end + length].to_vec();
        self.buf.drain(..head_end + length);
        Ok((status, body))
    }
}

/// One answer over a fresh connection.
async fn get_once(port: u16, path: &str) -> (u16, Value) {
    let Ok(mut client) = Client::connect(port).await else {
        return (0, Value::Null);
    };
    match client.get(path, "Connection: close\r\n").await {
        Ok((status, body)) => (status, serde_json::from_slice(&body).unwrap_or(Value::Null)),
        Err(_) => (0, Value::Null),
    }
}

async fn wait_all_answered(port: u16, path: impl Fn(&str) -> String) -> bool {
    let deadline = Instant::now() + SOON;
    let expected = expected();
    loop {
        let mut all = true;
        for (key, n) in &expected {
            let (status, body) = get_once(port, &path(key)).await;
            if status != 200 || body["value"] != *n {
                all = false;
                break;
            }
        }
        if all {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// What the abusive and the honest clients saw.
#[derive(Debug, Default)]
struct LoadReport {
    served: usize,
    wrong: usize,
    failed: usize,
    latencies: Vec<Duration>,
    scans: usize,
    scan_entries: usize,
    slow_cut: Vec<Duration>,
    slow_not_cut: usize,
    oversized_413: usize,
    flood_refused: usize,
    flood_accepted: usize,
    took: Duration,
}

/// The load, on a runtime of its own (the clients are not the server's threads).
async fn load(port: u16) -> LoadReport {
    let started = Instant::now();
    let expected = Arc::new(expected());
    let keys: Arc<Vec<String>> = Arc::new(expected.keys().cloned().collect());
    // Every client but the flood connects first: they hold their slots under the limit.
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(
            Client::connect(port)
                .await
                .expect("a client under the limit"),
        );
    }
    let (go, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut honest = Vec::new();
    for (c, mut client) in clients.into_iter().enumerate() {
        let (expected, keys, mut go) = (Arc::clone(&expected), Arc::clone(&keys), go.subscribe());
        honest.push(tokio::spawn(async move {
            let _ = go.recv().await;
            let mut report = LoadReport::default();
            for r in 0..REQUESTS_PER_CLIENT {
                // Every 50th request of every 8th client walks the whole store in pages.
                if c % 8 == 0 && r % 50 == 0 {
                    let mut after = String::new();
                    loop {
                        let path = format!("/stores/counts/all?limit=64{after}");
                        match client.get(&path, "").await {
                            Ok((200, body)) => {
                                let body: Value = serde_json::from_slice(&body).unwrap_or_default();
                                report.scan_entries +=
                                    body["entries"].as_array().map_or(0, Vec::len);
                                match body["next"].as_str() {
                                    Some(next) => after = format!("&after={next}"),
                                    None => break,
                                }
                            }
                            _ => {
                                report.failed += 1;
                                break;
                            }
                        }
                    }
                    report.scans += 1;
                    continue;
                }
                let key = &keys[(c * 31 + r * 7) % keys.len()];
                let sent = Instant::now();
                match client.get(&format!("/stores/counts/keys/{key}"), "").await {
                    Ok((200, body)) => {
                        report.latencies.push(sent.elapsed());
                        let body: Value = serde_json::from_slice(&body).unwrap_or_default();
                        if body["value"] == expected[key] {
                            report.served += 1;
                        } else {
                            report.wrong += 1;
                        }
                    }
                    Ok(_) => report.failed += 1,
                    Err(_) => {
                        report.failed += 1;
                        match Client::connect(port).await {
                            Ok(again) => client = again,
                            Err(_) => break,
                        }
                    }
                }
            }
            report
        }));
    }
    // Slowloris: a head trickled a byte at a time, never finished.
    let mut slow = Vec::new();
    for _ in 0..SLOW_CLIENTS {
        let mut go = go.subscribe();
        let stream = TcpStream::connect(("127.0.0.1", port)).await;
        slow.push(tokio::spawn(async move {
            let _ = go.recv().await;
            let Ok(mut stream) = stream else {
                return None;
            };
            let started = Instant::now();
            let head = b"GET /stores/counts/keys/k1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
            for b in head.iter().chain(std::iter::repeat(&b'z')) {
                if stream.write_all(&[*b]).await.is_err() {
                    return Some(started.elapsed());
                }
                let mut buf = [0u8; 256];
                if let Ok(Ok(0) | Err(_)) =
                    tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await
                {
                    return Some(started.elapsed());
                }
                if started.elapsed() > SOON {
                    return None;
                }
            }
            None
        }));
    }
    // Oversized requests: a declared body of 10 MiB.
    let mut oversized = Vec::new();
    for _ in 0..OVERSIZED {
        let mut go = go.subscribe();
        let client = Client::connect(port).await;
        oversized.push(tokio::spawn(async move {
            let _ = go.recv().await;
            let Ok(mut client) = client else {
                return 0;
            };
            match client
                .get(
                    "/stores/counts/keys/k1",
                    "Content-Length: 10485760\r\nConnection: close\r\n",
                )
                .await
            {
                Ok((status, _)) => status,
                Err(_) => 0,
            }
        }));
    }
    let _ = go.send(());
    // The flood: connections over the limit while the others run. Each either gets the 503 of
    // a refused connection or (if a slot is free at that moment) is answered.
    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        flood.push(tokio::spawn(async move {
            let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await else {
                return false;
            };
            let _ = stream
                .write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .await;
            let mut raw = Vec::new();
            let _ = tokio::time::timeout(SOON, stream.read_to_end(&mut raw)).await;
            raw.starts_with(b"HTTP/1.1 503")
        }));
    }
    let mut report = LoadReport::default();
    for refused in flood {
        if refused.await.unwrap_or(false) {
            report.flood_refused += 1;
        } else {
            report.flood_accepted += 1;
        }
    }
    for status in oversized {
        if status.await.unwrap_or(0) == 413 {
            report.oversized_413 += 1;
        }
    }
    for cut in slow {
        match cut.await.ok().flatten() {
            Some(after) => report.slow_cut.push(after),
            None => report.slow_not_cut += 1,
        }
    }
    for client in honest {
        let r = client.await.expect("a client task");
        report.served += r.served;
        report.wrong += r.wrong;
        report.failed += r.failed;
        report.scans += r.scans;
        report.scan_entries += r.scan_entries;
        report.latencies.extend(r.latencies);
    }
    report.took = started.elapsed();
    report
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_and_abuse_leave_the_heartbeats_and_the_answers_intact() {
    let beats = tracing();
    let servers = bootstrap();
    fresh(
        &servers,
        "http-load",
        &[("http-load-in", 4), ("http-load-out", 4)],
    )
    .await;
    produce_keys("http-load-in").await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let streams = KafkaStreams::builder(HttpLoad)
        .bootstrap_servers(&servers)
        .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
        .cache_max_bytes(0)
        .application_server(format!("127.0.0.1:{port}"))
        .build()
        .expect("valid settings");
    let lifecycle = streams.lifecycle();
    let server = QueryServer::new(streams.queries())
        .store(HttpLoad::COUNTS)
        .lifecycle(lifecycle.clone())
        .prometheus(prometheus())
        .max_connections(MAX_CONNECTIONS)
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let serving = tokio::spawn(server.serve(listener, std::future::pending()));
    let app = InProcess::run(streams);
    assert!(
        wait_for_members_with_tasks(&servers, "http-load", 1, SOON).await,
        "the instance runs its tasks"
    );
    assert!(
        wait_all_answered(port, |k| format!("/stores/counts/keys/{k}")).await,
        "every key answers its count"
    );
    assert_eq!(lifecycle.wait_for(State::Running).await, State::Running);
    let (ready, _) = get_once(port, "/health/ready").await;
    assert_eq!(ready, 200, "ready once running");

    let describe = CoordinatorConfig::new(&servers, "http-load-describe");
    let before = describe_streams_group(&describe, "http-load")
        .await
        .expect("the group");
    let mut states = lifecycle.state_changes();
    let _ = states.borrow_and_update();

    // The load runs on threads of its own; this runtime's two workers serve it and beat.
    let load_started = Instant::now();
    let (done, report) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the clients' runtime");
        let _ = done.send(runtime.block_on(load(port)));
    });
    let report = report.await.expect("the load");
    let load_ended = Instant::now();

    let after = describe_streams_group(&describe, "http-load")
        .await
        .expect("the group");
    let state_changed = states.has_changed().unwrap_or(true);
    let mut latencies = report.latencies.clone();
    latencies.sort();
    let gaps = beats.gaps(load_started, load_ended);
    let mut all_gaps: Vec<Duration> = gaps.values().flat_map(|(_, g)| g.clone()).collect();
    all_gaps.sort();
    let heartbeats: usize = gaps.values().map(|(n, _)| n).sum();
    let metrics = {
        let mut client = Client::connect(port).await.expect("connect");
        let (_, body) = client
            .get("/metrics", "Connection: close\r\n")
            .await
            .expect("metrics");
        String::from_utf8_lossy(&body).into_owned()
    };
    let metric = |name: &str| -> f64 {
        metrics
            .lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    eprintln!(
        "load: {} key queries served in {:?} by {CLIENTS} keep-alive clients ({} wrong, {} failed), \
         p50 {:?}, p99 {:?}, max {:?}; {} paged full scans ({} entries); \
         slowloris: {}/{SLOW_CLIENTS} cut off after {:?}..{:?} (header-read timeout {HEADER_READ_TIMEOUT:?}); \
         oversized: {}/{OVERSIZED} answered 413; flood: {}/{FLOOD} refused over the limit of {MAX_CONNECTIONS} \
         (counter dekaf_streams_http_connections_refused = {}, timed out (header) = {})",
        report.served,
        report.took,
        report.wrong,
        report.failed,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or_default(),
        report.scans,
        report.scan_entries,
        report.slow_cut.len(),
        report.slow_cut.iter().min().copied().unwrap_or_default(),
        report.slow_cut.iter().max().copied().unwrap_or_default(),
        report.oversized_413,
        report.flood_refused,
        metric("dekaf_streams_http_connections_refused"),
        metric("dekaf_streams_http_connections_timed_out{reason=\"header\"}"),
    );
    eprintln!(
        "heartbeats during the load: {heartbeats} from {} member(s) (broker interval 500 ms), \
         spacing p50 {:?}, p99 {:?}, max {:?}; group epoch {} -> {}, members {:?} -> {:?}, \
         instance state changed: {state_changed}",
        gaps.len(),
        percentile(&all_gaps, 0.5),
        percentile(&all_gaps, 0.99),
        all_gaps.last().copied().unwrap_or_default(),
        before.group_epoch,
        after.group_epoch,
        before
            .members
            .iter()
            .map(|m| (&m.member_id, m.member_epoch))
            .collect::<Vec<_>>(),
        after
            .members
            .iter()
            .map(|m| (&m.member_id, m.member_epoch))
            .collect::<Vec<_>>(),
    );

    // Correctness, not timing: every answer right, every abuse handled.
    assert_eq!(report.wrong, 0, "no wrong value");
    assert_eq!(
        report.served + report.failed + report.scans,
        CLIENTS * REQUESTS_PER_CLIENT,
        "every request accounted for"
    );
    assert_eq!(report.failed, 0, "no honest request failed");
    assert_eq!(
        report.scan_entries,
        report.scans * KEYS,
        "scans see every key once"
    );
    assert_eq!(report.slow_not_cut, 0, "every slow client cut off");
    assert!(
        report.slow_cut.iter().all(|d| *d >= HEADER_READ_TIMEOUT),
        "none before the header-read timeout: {:?}",
        report.slow_cut
    );
    assert_eq!(
        report.oversized_413, OVERSIZED,
        "every oversized request: 413"
    );
    assert!(
        report.flood_refused > 0,
        "connections over the limit refused"
    );
    // The member kept its place: no rebalance, no state change, heartbeats kept coming
    // (generous: well under the session timeout of 10 s).
    assert_eq!(before.group_epoch, after.group_epoch, "no rebalance");
    assert!(!state_changed, "the instance stayed RUNNING");
    assert!(heartbeats > 0, "heartbeats were sent during the load");
    assert!(
        all_gaps
            .last()
            .is_none_or(|max| *max < Duration::from_secs(8)),
        "a heartbeat gap near the session timeout: {:?}",
        all_gaps.last()
    );
    app.stop().await.expect("a clean stop");
    serving.abort();
}

/// The server side and the client side of TLS with a self-signed certificate for 127.0.0.1.
fn tls_pair() -> (openssl::ssl::SslAcceptor, openssl::ssl::SslConnector) {
    use openssl::asn1::Asn1Time;
    use openssl::bn::BigNum;
    use openssl::ec::{EcGroup, EcKey};
    use openssl::hash::MessageDigest;
    use openssl::nid::Nid;
    use openssl::pkey::PKey;
    use openssl::ssl::{SslAcceptor, SslConnector, SslMethod};
    use openssl::x509::extension::SubjectAlternativeName;
    use openssl::x509::{X509, X509NameBuilder};
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("P-256");
    let key = PKey::from_ec_key(EcKey::generate(&group).expect("a key")).expect("a key");
    let mut name = X509NameBuilder::new().expect("a name");
    name.append_entry_by_text("CN", "127.0.0.1").expect("CN");
    let name = name.build();
    let mut cert = X509::builder().expect("a certificate");
    cert.set_version(2).expect("v3");
    let serial = BigNum::from_u32(7)
        .and_then(|n| n.to_asn1_integer())
        .expect("serial");
    cert.set_serial_number(&serial).expect("serial");
    cert.set_subject_name(&name).expect("subject");
    cert.set_issuer_name(&name).expect("issuer");
    cert.set_pubkey(&key).expect("key");
    cert.set_not_before(&Asn1Time::days_from_now(0).expect("now"))
        .expect("not before");
    cert.set_not_after(&Asn1Time::days_from_now(1).expect("tomorrow"))
        .expect("not after");
    let san = SubjectAlternativeName::new()
        .ip("127.0.0.1")
        .build(&cert.x509v3_context(None, None))
        .expect("SAN");
    cert.append_extension(san).expect("SAN");
    cert.sign(&key, MessageDigest::sha256()).expect("sign");
    let cert = cert.build();
    let mut acceptor =
        SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).expect("acceptor");
    acceptor.set_private_key(&key).expect("key");
    acceptor.set_certificate(&cert).expect("certificate");
    let mut connector = SslConnector::builder(SslMethod::tls_client()).expect("connector");
    connector.cert_store_mut().add_cert(cert).expect("trust");
    (acceptor.build(), connector.build())
}

/// `GET path` over TLS with `headers`: status and JSON body.
async fn get_tls(
    connector: &openssl::ssl::SslConnector,
    port: u16,
    path: &str,
    headers: &str,
) -> (u16, Value) {
    let tcp = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let ssl = connector
        .configure()
        .and_then(|c| c.into_ssl("127.0.0.1"))
        .expect("client TLS");
    let mut tls = tokio_openssl::SslStream::new(ssl, tcp).expect("TLS stream");
    if std::pin::Pin::new(&mut tls).connect().await.is_err() {
        return (0, Value::Null);
    }
    let raw =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{headers}\r\n");
    if tls.write_all(raw.as_bytes()).await.is_err() {
        return (0, Value::Null);
    }
    let mut bytes = Vec::new();
    let _ = tokio::time::timeout(SOON, tls.read_to_end(&mut bytes)).await;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_forwarded_over_tls_with_the_bearer_token() {
    let _ = tracing();
    let servers = bootstrap();
    fresh(
        &servers,
        "http-secure",
        &[("http-secure-in", 4), ("http-secure-out", 4)],
    )
    .await;
    produce_keys("http-secure-in").await;
    let (acceptor, connector) = tls_pair();
    let mut instances = Vec::new();
    for _ in 0..2 {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let streams = KafkaStreams::builder(HttpSecure)
            .bootstrap_servers(&servers)
            .cache_max_bytes(0)
            .application_server(format!("127.0.0.1:{port}"))
            .build()
            .expect("valid settings");
        let server = QueryServer::new(streams.queries())
            .store(HttpSecure::COUNTS)
            .tls(acceptor.clone(), connector.clone())
            .bearer_token("s3cret-token")
            .expect("a valid token");
        let serving = tokio::spawn(server.serve(listener, std::future::pending()));
        instances.push((InProcess::run(streams), port, serving));
    }
    assert!(
        wait_for_members_with_tasks(&servers, "http-secure", 2, SOON).await,
        "both instances run tasks"
    );
    let port = instances[0].1;
    let auth = "Authorization: Bearer s3cret-token\r\n";
    // Every key through instance 0: half of them hosted by instance 1, forwarded over TLS with
    // the token (instance 1 refuses requests without it).
    let deadline = Instant::now() + SOON;
    let expected = expected();
    loop {
        let mut wrong = Vec::new();
        for (key, n) in &expected {
            let (status, body) = get_tls(
                &connector,
                port,
                &format!("/stores/counts/keys/{key}"),
                auth,
            )
            .await;
            if status != 200 || body["value"] != *n {
                wrong.push((key.clone(), status, body));
            }
        }
        if wrong.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "keys not answered through forwarding: {:?}",
            &wrong[..wrong.len().min(5)]
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The paged full scan crosses both instances too.
    let mut seen = 0;
    let mut after = String::new();
    loop {
        let (status, body) = get_tls(
            &connector,
            port,
            &format!("/stores/counts/all?limit=37{after}"),
            auth,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        seen += body["entries"].as_array().map_or(0, Vec::len);
        match body["next"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => break,
        }
    }
    assert_eq!(seen, KEYS, "every key once across the pages");
    // Without the token: 401, and nothing about the peers.
    let (status, body) = get_tls(&connector, port, "/stores/counts/keys/k1", "").await;
    assert_eq!(status, 401, "{body}");
    for (app, _, serving) in instances {
        app.stop().await.expect("a clean stop");
        serving.abort();
    }
}
