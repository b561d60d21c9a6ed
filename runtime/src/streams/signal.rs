//! Shutting down on a signal.

/// Completes when the process receives SIGINT (Ctrl-C) or SIGTERM, whichever comes first. Pass
/// it to `run`: the application then commits, closes its tasks and leaves the group.
///
/// If a signal handler cannot be installed, the future waits for the other signal only; if
/// neither can, it never completes (the process is then stopped the hard way, which exactly-once
/// processing tolerates).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received: shutting down"),
        () = terminate => tracing::info!("SIGTERM received: shutting down"),
    }
}
