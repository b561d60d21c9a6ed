//! The query server survives `accept()` failing with EMFILE (no file descriptors left): it logs,
//! counts, backs off and serves again once descriptors are free. The test lowers this
//! process's descriptor limit, so it is alone in its test binary. No broker is needed.

use std::time::{Duration, Instant};

use dekaf_streams::KafkaStreams;
use dekaf_streams::http::{QueryServer, prometheus_recorder};
use dekaf_streams::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

topology! {
    /// Counts records per key (never run here).
    pub HttpEmfile = "http-accept-errors" {
        stream("http-accept-errors-in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("http-accept-errors-out", Utf8, I64);
    }
}

fn open_descriptors() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64)
}

fn set_soft_limit(soft: u64) -> libc::rlimit {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut old), 0);
        let new = libc::rlimit {
            rlim_cur: soft,
            rlim_max: old.rlim_max,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &new), 0);
    }
    old
}

async fn live(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await else {
        return false;
    };
    if stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .is_err()
    {
        return false;
    }
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    text.starts_with("HTTP/1.1 200")
        && text
            .lines()
            .find_map(|l| l.strip_prefix("dekaf_streams_http_accept_errors "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .is_some_and(|n| n > 0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_survives_running_out_of_file_descriptors() {
    let handle = prometheus_recorder().expect("the process's recorder");
    let accept_errors = {
        let handle = handle.clone();
        move || {
            handle
                .render()
                .lines()
                .find_map(|l| l.strip_prefix("dekaf_streams_http_accept_errors "))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(0.0)
        }
    };
    let streams = KafkaStreams::builder(HttpEmfile)
        .bootstrap_servers("127.0.0.1:9")
        .build()
        .expect("valid settings");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(
        QueryServer::new(streams.queries())
            .prometheus(handle)
            .serve(listener, std::future::pending()),
    );
    // The clients' sockets are made first; then no descriptor is left, and their connections
    // wait in the listener's backlog, where accept() fails with EMFILE.
    let sockets: Vec<tokio::net::TcpSocket> = (0..8)
        .map(|_| tokio::net::TcpSocket::new_v4().expect("a socket"))
        .collect();
    let old = set_soft_limit(open_descriptors().saturating_sub(1));
    let mut clients = Vec::new();
    for socket in sockets {
        if let Ok(stream) = socket.connect(([127, 0, 0, 1], port).into()).await {
            clients.push(stream);
        }
    }
    // The accept loop meets the limit (read from the recorder: a scrape needs a descriptor).
    let deadline = Instant::now() + Duration::from_secs(60);
    while accept_errors() == 0.0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let failed = accept_errors();
    set_soft_limit(old.rlim_cur);
    assert!(
        failed > 0.0,
        "accept() never failed ({} clients connected)",
        clients.len()
    );
    eprintln!(
        "accept() failed {failed} times with {} clients connected",
        clients.len()
    );
    drop(clients);
    // Served again, and the failures counted.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !live(port).await {
        assert!(
            Instant::now() < deadline,
            "the server does not answer, or counted no accept error, after the descriptors came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
