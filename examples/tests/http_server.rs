//! The query server without Kafka: health without and with a lifecycle, authentication,
//! size limits, the header-read and idle timeouts, the connection limit (counted in the
//! Prometheus exposition), paging parameters, TLS. The instance is built but never run (its
//! stores answer "not running"), so no broker is needed.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use dekaf_streams::KafkaStreams;
use dekaf_streams::http::{PrometheusHandle, QueryServer, prometheus_recorder};
use dekaf_streams::prelude::*;
use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{SslAcceptor, SslConnector, SslMethod};
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509, X509NameBuilder};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

topology! {
    /// Counts records per key (never run here).
    pub HttpPure = "http-server-pure" {
        stream("http-server-pure-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("http-server-pure-out", Utf8, I64);
    }
}

/// A generous bound for what must happen "soon" on a loaded machine.
const SOON: Duration = Duration::from_secs(30);

/// The process's Prometheus recorder (one per process).
fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| prometheus_recorder().expect("the first recorder of this process"))
        .clone()
}

fn streams() -> KafkaStreams<HttpPure> {
    KafkaStreams::builder(HttpPure)
        .bootstrap_servers("127.0.0.1:9")
        .build()
        .expect("valid settings")
}

/// Serves `server` on a free port of 127.0.0.1; its port.
async fn serve(server: QueryServer<HttpPure>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(server.serve(listener, std::future::pending()));
    port
}

/// An HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// Sends `raw` and reads the answer until the server closes.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, raw: &[u8]) -> Answer {
    stream.write_all(raw).await.expect("send");
    let mut bytes = Vec::new();
    let _ = tokio::time::timeout(SOON, stream.read_to_end(&mut bytes))
        .await
        .expect("an answer within the bound");
    parse(&bytes)
}

fn parse(bytes: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

async fn get_with(port: u16, path: &str, headers: &str) -> Answer {
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let raw =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{headers}\r\n");
    exchange(stream, raw.as_bytes()).await
}

async fn get(port: u16, path: &str) -> Answer {
    get_with(port, path, "").await
}

/// Waits until the server closes `stream` (reading whatever it sends); how long it took.
async fn closed_after(stream: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(SOON, stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => {}
            Err(_) => panic!("the server did not close the connection within {SOON:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_from_the_lifecycle_and_ready_needs_one() {
    let streams = streams();
    let without = serve(QueryServer::new(streams.queries())).await;
    let live = get(without, "/health/live").await;
    assert_eq!(live.status, 200, "{live:?}");
    let ready = get(without, "/health/ready").await;
    assert_eq!(ready.status, 503, "{ready:?}");
    assert!(
        ready.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("no lifecycle given")),
        "{ready:?}"
    );

    let with = serve(QueryServer::new(streams.queries()).lifecycle(streams.lifecycle())).await;
    let ready = get(with, "/health/ready").await;
    assert_eq!(ready.status, 503, "{ready:?}");
    assert_eq!(ready.json()["state"], "CREATED", "{ready:?}");
    let live = get(with, "/health/live").await;
    assert_eq!(live.status, 200, "{live:?}");
    assert_eq!(live.json()["state"], "CREATED", "{live:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_guards_stores_and_metrics_but_not_health() {
    let streams = streams();
    assert!(
        QueryServer::new(streams.queries())
            .bearer_token("has space")
            .is_err()
    );
    let server = QueryServer::new(streams.queries())
        .store(HttpPure::COUNTS)
        .prometheus(prometheus())
        .bearer_token("t0ps3cret")
        .expect("a valid token");
    let port = serve(server).await;
    let none = get(port, "/stores/counts/keys/a").await;
    assert_eq!(none.status, 401, "{none:?}");
    assert!(
        none.head
            .to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{none:?}"
    );
    let wrong = get_with(
        port,
        "/stores/counts/keys/a",
        "Authorization: Bearer nope\r\n",
    )
    .await;
    assert_eq!(wrong.status, 401, "{wrong:?}");
    let metrics = get(port, "/metrics").await;
    assert_eq!(metrics.status, 401, "{metrics:?}");
    // With the token: past authentication (the instance is not running: 503, retry).
    let good = get_with(
        port,
        "/stores/counts/keys/a",
        "Authorization: Bearer t0ps3cret\r\n",
    )
    .await;
    assert_eq!(good.status, 503, "{good:?}");
    let metrics = get_with(port, "/metrics", "Authorization: Bearer t0ps3cret\r\n").await;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert!(metrics.head.contains("text/plain"), "{metrics:?}");
    let live = get(port, "/health/live").await;
    assert_eq!(live.status, 200, "{live:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_requests_and_bad_parameters_are_refused() {
    let streams = streams();
    let port = serve(
        QueryServer::new(streams.queries())
            .store(HttpPure::COUNTS)
            .max_request_body(1024)
            .max_header_bytes(4096)
            .max_page_size(50),
    )
    .await;
    // A declared body over the limit: 413 before anything is read.
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let big = exchange(
        stream,
        b"GET /stores/counts/all HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1048576\r\n\r\n",
    )
    .await;
    assert_eq!(big.status, 413, "{big:?}");
    // A chunked body over the limit: 413 once the limit is passed.
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut raw = b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    raw.extend_from_slice(b"800\r\n");
    raw.extend_from_slice(&[b'x'; 0x800]);
    raw.extend_from_slice(b"\r\n0\r\n\r\n");
    let chunked = exchange(stream, &raw).await;
    assert_eq!(chunked.status, 413, "{chunked:?}");
    // A head over the limit: 431.
    let huge_header = format!("X-Filler: {}\r\n", "y".repeat(8192));
    let head = get_with(port, "/health/live", &huge_header).await;
    assert_eq!(head.status, 431, "{head:?}");
    // Paging parameters.
    let limit = get(port, "/stores/counts/all?limit=51").await;
    assert_eq!(limit.status, 400, "{limit:?}");
    let zero = get(port, "/stores/counts/all?limit=0").await;
    assert_eq!(zero.status, 400, "{zero:?}");
    let token = get(port, "/stores/counts/all?after=%21%21").await;
    assert_eq!(token.status, 400, "{token:?}");
    let fine = get(port, "/stores/counts/all?limit=50").await;
    assert_eq!(fine.status, 503, "not running yet: {fine:?}");
    // Not a GET.
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let post = exchange(
        stream,
        b"POST /stores/counts/all HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    )
    .await;
    assert_eq!(post.status, 405, "{post:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_connections_are_closed() {
    let streams = streams();
    let header_timeout = Duration::from_millis(800);
    let port = serve(
        QueryServer::new(streams.queries())
            .header_read_timeout(header_timeout)
            .idle_timeout(Duration::from_millis(1500)),
    )
    .await;
    // Slowloris: a head trickled byte by byte, never finished.
    let mut slow = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let trickle = tokio::spawn(async move {
        let started = Instant::now();
        for b in b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
            .iter()
            .cycle()
        {
            if slow.write_all(&[*b]).await.is_err() {
                return (started.elapsed(), true);
            }
            // Probing whether the server closed: a read that ends says so.
            let mut buf = [0u8; 64];
            if let Ok(Ok(0) | Err(_)) =
                tokio::time::timeout(Duration::from_millis(100), slow.read(&mut buf)).await
            {
                return (started.elapsed(), true);
            }
            if started.elapsed() > SOON {
                return (started.elapsed(), false);
            }
        }
        (started.elapsed(), false)
    });
    let (took, cut) = trickle.await.expect("the trickling task");
    assert!(cut, "the slow client was not cut off within {SOON:?}");
    assert!(took >= header_timeout, "cut before the timeout: {took:?}");
    eprintln!("slowloris client cut off after {took:?} (header-read timeout {header_timeout:?})");

    // An idle connection (no byte at all), and one idle after an answer (keep-alive).
    let mut idle = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let took = closed_after(&mut idle).await;
    eprintln!("idle connection closed after {took:?}");
    let mut kept = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    kept.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    let took = closed_after(&mut kept).await;
    assert!(
        took >= Duration::from_millis(1000),
        "a kept-alive connection is kept until its idle timeout: {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_limit_are_refused_and_counted() {
    let streams = streams();
    let port = serve(
        QueryServer::new(streams.queries())
            .prometheus(prometheus())
            .max_connections(3),
    )
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        // A full request-response on each, so each holds a slot for sure.
        stream
            .write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("send");
        let mut buf = [0u8; 512];
        let n = stream.read(&mut buf).await.expect("an answer");
        assert!(parse(&buf[..n]).status == 200);
        held.push(stream);
    }
    let mut refused = 0;
    for _ in 0..5 {
        let over = get(port, "/health/live").await;
        if over.status == 503 {
            refused += 1;
        }
    }
    assert_eq!(refused, 5, "every connection over the limit is refused");
    drop(held);
    // Slots free again once the held connections close: poll until answered.
    let deadline = Instant::now() + SOON;
    let metrics = loop {
        let answer = get(port, "/metrics").await;
        if answer.status == 200 {
            break answer;
        }
        assert!(Instant::now() < deadline, "no slot came free: {answer:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let counted: f64 = metrics
        .body
        .lines()
        .find_map(|l| l.strip_prefix("dekaf_streams_http_connections_refused "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the refused connections counter");
    assert!(counted >= 5.0, "{}", metrics.body);
}

/// A self-signed certificate for 127.0.0.1 and its key.
fn self_signed() -> (PKey<Private>, X509) {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("P-256");
    let key = PKey::from_ec_key(EcKey::generate(&group).expect("a key")).expect("a key");
    let mut name = X509NameBuilder::new().expect("a name");
    name.append_entry_by_text("CN", "127.0.0.1").expect("CN");
    let name = name.build();
    let mut cert = X509::builder().expect("a certificate");
    cert.set_version(2).expect("v3");
    let serial = BigNum::from_u32(1)
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
    (key, cert.build())
}

/// The server side and the client side of TLS with a self-signed certificate.
fn tls_pair() -> (SslAcceptor, SslConnector) {
    let (key, cert) = self_signed();
    let mut acceptor =
        SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).expect("acceptor");
    acceptor.set_private_key(&key).expect("key");
    acceptor.set_certificate(&cert).expect("certificate");
    let mut connector = SslConnector::builder(SslMethod::tls_client()).expect("connector");
    connector.cert_store_mut().add_cert(cert).expect("trust");
    (acceptor.build(), connector.build())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_is_served_and_plaintext_is_not() {
    let streams = streams();
    let (acceptor, connector) = tls_pair();
    let port = serve(
        QueryServer::new(streams.queries())
            .lifecycle(streams.lifecycle())
            .tls(acceptor, connector.clone()),
    )
    .await;
    let tcp = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let ssl = connector
        .configure()
        .and_then(|c| c.into_ssl("127.0.0.1"))
        .expect("client TLS");
    let mut tls = tokio_openssl::SslStream::new(ssl, tcp).expect("TLS stream");
    std::pin::Pin::new(&mut tls)
        .connect()
        .await
        .expect("a TLS handshake the certificate verifies");
    let answer = exchange(
        tls,
        b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json()["state"], "CREATED", "{answer:?}");
    // Plaintext HTTP gets no HTTP answer.
    let plain = get(port, "/health/live").await;
    assert_eq!(plain.status, 0, "{plain:?}");
}
