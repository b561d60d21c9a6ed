//! The Prometheus recorder (feature `prometheus`): installed once per process, rendered by the
//! query server's `/metrics`.

use std::time::Duration;

use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusHandle};

/// The histogram buckets, in seconds, of every instrument whose name ends in `duration`
/// (commit, restore, request durations): 1 ms to 60 s.
pub const DURATION_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// How often the recorder's upkeep (draining histogram samples) runs between scrapes.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// The Prometheus recorder could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum PrometheusError {
    /// Building or installing the recorder failed: most often because a `metrics` recorder is
    /// already installed (a process has one).
    #[error(
        "installing the Prometheus recorder: {0} (a process has one `metrics` recorder: install it \
         once, before the streams start)"
    )]
    Install(#[from] BuildError),
    /// The thread that runs the recorder's upkeep could not start.
    #[error("starting the Prometheus recorder's upkeep thread: {0}")]
    Upkeep(#[source] std::io::Error),
}

/// Installs a Prometheus recorder as the process's `metrics` recorder, with histograms (buckets
/// [`DURATION_BUCKETS`]) for the duration instruments, and returns the handle the query server
/// renders `/metrics` with ([`QueryServer::prometheus`](super::QueryServer::prometheus)).
/// Call it once, before the streams start (instruments recorded before are lost).
///
/// # Errors
///
/// [`PrometheusError::Install`] when a recorder is already installed.
pub fn prometheus_recorder() -> Result<PrometheusHandle, PrometheusError> {
    let builder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("duration".into()), DURATION_BUCKETS)?;
    prometheus_recorder_with(builder)
}

/// [`prometheus_recorder`] with a builder of the application's (global labels, buckets,
/// quantiles, idle timeouts); its HTTP listener and push gateway are not compiled in, the
/// query server serves `/metrics`.
///
/// # Errors
///
/// As [`prometheus_recorder`].
pub fn prometheus_recorder_with(
    builder: PrometheusBuilder,
) -> Result<PrometheusHandle, PrometheusError> {
    let handle = builder.install_recorder()?;
    let upkeep = handle.clone();
    // Histogram samples are kept until upkeep drains them: without scrapes they would grow.
    std::thread::Builder::new()
        .name("dekaf-prometheus-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_INTERVAL);
                upkeep.run_upkeep();
            }
        })
        .map_err(PrometheusError::Upkeep)?;
    Ok(handle)
}
