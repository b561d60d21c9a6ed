//! Connections of the query server: the accept loop (limit, backoff on errors), TLS, and the
//! header-read and idle timeouts of each connection.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::QueryServer;
use crate::task::Topology;

/// The first wait after a failed `accept()`; it doubles up to [`ACCEPT_BACKOFF_MAX`].
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
/// The longest wait after failed `accept()`s.
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// What a connection over the limit is told before it is closed.
const REFUSED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\
Content-Type: application/json\r\nRetry-After: 1\r\nContent-Length: 69\r\n\r\n\
{\"error\": \"too many connections to this query server: retry later\"}\r\n";

/// The accept loop of [`QueryServer::serve`].
pub(super) async fn serve<T: Topology>(
    server: QueryServer<T>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let slots = Arc::new(Semaphore::new(server.settings.max_connections));
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => {
                backoff = ACCEPT_BACKOFF_MIN;
                tcp
            }
            Err(e) => {
                // EMFILE/ENFILE (no descriptors left), ENOBUFS, ECONNABORTED, ...: the listener
                // stays usable; waiting lets connections close and descriptors free up.
                metrics::counter!("dekaf.streams.http.accept.errors").increment(1);
                tracing::warn!(error = %e, retry_in = ?backoff, "the query server could not accept a connection; retrying");
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = &mut shutdown => return,
                }
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            metrics::counter!("dekaf.streams.http.connections.refused").increment(1);
            tracing::debug!(
                limit = server.settings.max_connections,
                "query connection refused: at the connection limit"
            );
            if server.settings.tls.is_none() {
                // Best effort, never waiting: the socket's send buffer takes this at once.
                let _ = tcp.try_write(REFUSED);
            }
            drop(tcp);
            continue;
        };
        let _ = tcp.set_nodelay(true);
        tokio::spawn(connection(server.clone(), tcp, permit));
    }
}

/// When the connection last did what, in nanoseconds since `base` (0: never).
struct Activity {
    base: Instant,
    /// Requests being answered.
    in_flight: AtomicUsize,
    /// When the first byte of the next request head arrived (0: none yet).
    head_started: AtomicU64,
    /// When the connection last became idle (accepted, or a request answered).
    idle_since: AtomicU64,
    /// Told when a head's first byte arrives: the header-read deadline starts then.
    head: tokio::sync::Notify,
}

impl Activity {
    fn new() -> Self {
        Activity {
            base: Instant::now(),
            in_flight: AtomicUsize::new(0),
            head_started: AtomicU64::new(0),
            idle_since: AtomicU64::new(1),
            head: tokio::sync::Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    fn at(&self, nanos: u64) -> Instant {
        self.base + Duration::from_nanos(nanos)
    }

    /// Bytes arrived.
    fn read(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0
            && self.head_started.load(Ordering::Relaxed) == 0
            && self
                .head_started
                .compare_exchange(0, self.now(), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.head.notify_one();
        }
    }

    /// A request head was read: it is being answered.
    fn begin(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(0, Ordering::Relaxed);
        InFlight(Arc::clone(self))
    }
}

/// A request being answered; ends when dropped (also when the connection is dropped under it).
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.idle_since.store(self.0.now(), Ordering::Relaxed);
        self.0.head_started.store(0, Ordering::Relaxed);
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why a connection was closed by the server.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// A request head took longer than the header-read timeout (slow clients, slowloris).
    Header,
    /// Nothing happened for the idle timeout.
    Idle,
}

/// Resolves when the connection must be closed.
async fn watch(activity: &Activity, header_read: Duration, idle: Duration) -> Cut {
    loop {
        if activity.in_flight.load(Ordering::Acquire) > 0 {
            // The request timeout bounds the answer; look again later.
            tokio::time::sleep(header_read.min(idle)).await;
            continue;
        }
        let head = activity.head_started.load(Ordering::Relaxed);
        let (deadline, cut) = if head != 0 {
            (activity.at(head) + header_read, Cut::Header)
        } else {
            let since = activity.idle_since.load(Ordering::Relaxed);
            (activity.at(since) + idle, Cut::Idle)
        };
        if Instant::now() >= deadline {
            // Checked again: a request may have begun meanwhile.
            if activity.in_flight.load(Ordering::Acquire) == 0 {
                return cut;
            }
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep_until(deadline) => {}
            () = activity.head.notified() => {}
        }
    }
}

/// A stream that tells [`Activity`] when bytes arrive.
struct Watched<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// Counts an open connection while it lives.
struct Open;

impl Open {
    fn new() -> Self {
        metrics::gauge!("dekaf.streams.http.connections.open").increment(1.0);
        Open
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        metrics::gauge!("dekaf.streams.http.connections.open").decrement(1.0);
    }
}

/// One connection: TLS if configured, then HTTP/1.1 until the client closes, a timeout cuts
/// it, or it fails.
async fn connection<T: Topology>(
    server: QueryServer<T>,
    tcp: TcpStream,
    _permit: OwnedSemaphorePermit,
) {
    let _open = Open::new();
    let activity = Arc::new(Activity::new());
    let watched = Watched {
        inner: tcp,
        activity: Arc::clone(&activity),
    };
    match server.settings.tls.clone() {
        None => http(server, watched, activity).await,
        Some(acceptor) => {
            let handshake = async {
                let ssl = openssl::ssl::Ssl::new(acceptor.context()).map_err(|e| e.to_string())?;
                let mut stream =
                    tokio_openssl::SslStream::new(ssl, watched).map_err(|e| e.to_string())?;
                Pin::new(&mut stream)
                    .accept()
                    .await
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>(stream)
            };
            match tokio::time::timeout(server.settings.header_read_timeout, handshake).await {
                Ok(Ok(stream)) => http(server, stream, activity).await,
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "TLS handshake of a query connection failed")
                }
                Err(_) => {
                    metrics::counter!("dekaf.streams.http.connections.timed_out", "reason" => "header")
                        .increment(1);
                    tracing::debug!("TLS handshake of a query connection timed out");
                }
            }
        }
    }
}

async fn http<T, S>(server: QueryServer<T>, stream: S, activity: Arc<Activity>)
where
    T: Topology,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let settings = Arc::clone(&server.settings);
    let on_request = Arc::clone(&activity);
    let service = service_fn(move |request| {
        let server = server.clone();
        let in_flight = on_request.begin();
        async move {
            let response = server.respond(request).await;
            drop(in_flight);
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .keep_alive(true)
        // The server's own header-read timeout applies (counted from a head's first byte).
        .header_read_timeout(None)
        .max_header_size(settings.max_header_bytes)
        .max_headers(100);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let cut = tokio::select! {
        ended = conn.as_mut() => {
            if let Err(e) = ended {
                tracing::debug!(error = %e, "query connection failed");
            }
            return;
        }
        cut = watch(&activity, settings.header_read_timeout, settings.idle_timeout) => cut,
    };
    match cut {
        Cut::Header => {
            metrics::counter!("dekaf.streams.http.connections.timed_out", "reason" => "header")
                .increment(1);
            tracing::debug!(timeout = ?settings.header_read_timeout, "query connection closed: its request head did not arrive in time");
            // Dropped: closed at once.
        }
        Cut::Idle => {
            metrics::counter!("dekaf.streams.http.connections.timed_out", "reason" => "idle")
                .increment(1);
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(settings.header_read_timeout, conn).await;
        }
    }
}
