//! The steps of [`KafkaStreams::run`](super::KafkaStreams::run) before the processing threads
//! start, each waiting off the tokio workers where it blocks: the state directory opened (and
//! locked), the cluster reached, the serdes checked against what they need outside the process
//! (schema compatibility), the global tables read to their end, and the clients the
//! instance's threads share created.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::config::{ProcessingGuarantee, StreamsConfig};
use super::error::StreamsError;
use super::global_thread::GlobalThread;
use crate::group::coordinator::{CoordinatorConfig, await_coordinator};
use crate::kafka::admin::Admin;
use crate::kafka::restore::LogEnds;
use crate::security::ConnectionSecurity;
use crate::serdes::StartCheckError;
use crate::state_dir::StateDirectory;
use crate::task::{GlobalStores, Topology};

/// Runs `f` on tokio's blocking pool; a panic in it is the caller's panic.
async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|joined| std::panic::resume_unwind(joined.into_panic()))
}

/// Opens the state directory, if the application has one. Opening locks a file and reads it
/// (and may wait for a lock a stopping thread still holds): off the tokio workers, which drive
/// the heartbeats of any other application on this runtime.
pub(super) async fn open_state_dir<T: Topology>(
    config: &StreamsConfig,
) -> Result<Option<Arc<StateDirectory>>, StreamsError> {
    let Some(dir) = config.state_dir.clone() else {
        return Ok(None);
    };
    let opened = blocking(move || StateDirectory::open(&dir, T::APPLICATION_ID)).await?;
    Ok(Some(Arc::new(opened)))
}

/// Waits until the group's coordinator answers, with the same TLS and SASL as every other
/// connection of the application: the cluster may be down or unreachable at start, so it waits
/// (logging) rather than exit. `false` when `shutdown` completed first.
pub(super) async fn await_cluster<T: Topology, S: Future<Output = ()>>(
    config: &StreamsConfig,
    security: ConnectionSecurity,
    shutdown: Pin<&mut S>,
) -> Result<bool, StreamsError> {
    let mut coordinator =
        CoordinatorConfig::new(config.settings.bootstrap_servers(), T::APPLICATION_ID);
    coordinator.connect_timeout = Duration::from_secs(10);
    coordinator.security = security;
    tokio::select! {
        ready = await_coordinator(&coordinator, T::APPLICATION_ID) => ready.map(|()| true).map_err(Into::into),
        () = shutdown => {
            tracing::info!("shutdown requested before the cluster answered");
            Ok(false)
        }
    }
}

/// Checks every serde of `T`'s user topics against what it needs outside the process (a schema
/// registry serde: its schema's compatibility with its subject, see
/// [`Serde::check_at_start`](crate::serdes::Serde::check_at_start)) before anything is read. An
/// incompatible one stops the application; one that cannot tell yet (its registry is down) is
/// asked again, with a log line, until it can. `false` when `shutdown` completed first.
pub(super) async fn check_serdes<T: Topology, S: Future<Output = ()>>(
    config: &StreamsConfig,
    mut shutdown: Pin<&mut S>,
) -> Result<bool, StreamsError> {
    let mut pause = Duration::from_millis(500);
    loop {
        let states = config.serde_states.clone();
        let checked = blocking(move || {
            let _entered = states.enter();
            T::check_serdes_at_start()
        });
        tokio::select! {
            checked = checked => match checked {
                Ok(()) => return Ok(true),
                Err(StartCheckError::Incompatible(reason)) => {
                    return Err(StreamsError::SerdeCheck { reason });
                }
                Err(StartCheckError::Unavailable(reason)) => {
                    tracing::warn!(%reason, retry_in = ?pause, "a serde cannot check its topic at start; checking again");
                }
            },
            () = shutdown.as_mut() => {
                tracing::info!("shutdown requested while the serdes were checked");
                return Ok(false);
            }
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = shutdown.as_mut() => return Ok(false),
        }
        pause = (pause * 2).min(Duration::from_secs(30));
    }
}

/// Checks that every topic a sink may choose per record exists (`Topology::CHOSEN_TOPICS`,
/// from `to(["a", "b"], chooser, ..)`), as the issue of the chooser's topics is better found
/// before the first record than at the first record sent to a missing one.
pub(super) async fn check_chosen_topics<T: Topology>(
    admin: &Arc<Admin>,
) -> Result<(), StreamsError> {
    if T::CHOSEN_TOPICS.is_empty() {
        return Ok(());
    }
    let missing =
        crate::kafka::admin::missing_topics(admin, T::CHOSEN_TOPICS, Duration::from_secs(30))
            .await
            .map_err(StreamsError::kafka(
                "looking up the topics sinks choose among",
            ))?;
    if missing.is_empty() {
        Ok(())
    } else {
        Err(StreamsError::MissingChosenTopics { topics: missing })
    }
}

/// Where the global tables stand once [`start_globals`] returns.
pub(super) enum Globals {
    /// Every global table is read to its end; the thread (if there are global tables) keeps
    /// them up to date.
    Running(Option<GlobalThread>),
    /// The application stopped (a shutdown while the tables were read) before they were.
    Stopped,
}

/// Reads the global tables of `T` into `globals` to their end before any task processes a
/// record. `failed_later` is told if the global thread fails afterwards. A shutdown meanwhile
/// sets `stop` and waits for the thread to end.
pub(super) async fn start_globals<T: Topology, S: Future<Output = ()>>(
    config: &StreamsConfig,
    globals: &GlobalStores,
    stop: &Arc<AtomicBool>,
    failed_later: tokio::sync::oneshot::Sender<()>,
    shutdown: Pin<&mut S>,
) -> Result<Globals, StreamsError> {
    if globals.is_empty() {
        return Ok(Globals::Running(None));
    }
    let (config, shared, flag) = (config.clone(), globals.clone(), stop.clone());
    let started = blocking(move || GlobalThread::start::<T>(&config, shared, flag, failed_later));
    tokio::pin!(started);
    let thread = tokio::select! {
        started = &mut started => started?,
        () = shutdown => {
            tracing::info!("shutdown requested while the global tables were restored");
            stop.store(true, Ordering::Relaxed);
            if let Some(thread) = started.await? {
                thread.join()?;
            }
            return Ok(Globals::Stopped);
        }
    };
    Ok(match thread {
        Some(thread) => Globals::Running(Some(thread)),
        None => Globals::Stopped,
    })
}

/// Stops the global thread, if any, and waits for it (off the tokio workers): its error, if it
/// failed.
pub(super) async fn stop_globals(
    thread: Option<GlobalThread>,
    stop: &AtomicBool,
) -> Result<(), StreamsError> {
    stop.store(true, Ordering::Relaxed);
    match thread {
        Some(thread) => blocking(move || thread.join()).await,
        None => Ok(()),
    }
}

/// The clients an instance's processing threads share: one admin client (as Kafka Streams
/// has: KafkaStreams' `adminClient`, "shared among threads"), and under exactly-once the
/// consumer that reads the changelogs' end offsets.
pub(super) async fn shared_clients<T: Topology>(
    config: &StreamsConfig,
) -> Result<(Arc<Admin>, Option<Arc<LogEnds>>), StreamsError> {
    let admin =
        crate::kafka::admin::admin(&config.settings.admin(), config.settings.oauth_refresh())
            .map_err(StreamsError::kafka("creating the admin client"))?;
    if config.guarantee != ProcessingGuarantee::ExactlyOnce {
        return Ok((Arc::new(admin), None));
    }
    // Off the tokio workers: its first OAUTHBEARER token is fetched now, and the token provider
    // may block.
    let (consumer, oauth) = (
        config.settings.consumer(T::APPLICATION_ID, true),
        config.settings.oauth_refresh(),
    );
    let ends = blocking(move || LogEnds::new(&consumer, oauth))
        .await
        .map_err(StreamsError::kafka(
            "creating the changelog end-offsets client",
        ))?;
    Ok((Arc::new(admin), Some(Arc::new(ends))))
}

/// Deletes the directories of tasks this instance no longer runs, every `state_cleanup_delay`
/// (on the blocking pool); stops when dropped.
pub(super) struct StateCleaner(tokio::task::JoinHandle<()>);

impl StateCleaner {
    /// Starts cleaning `state` every `delay` (at least every second).
    pub(super) fn start(state: Arc<StateDirectory>, delay: Duration) -> StateCleaner {
        // At least a second between rounds, whatever the delay.
        let period = delay.max(Duration::from_secs(1));
        StateCleaner(tokio::spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let state = state.clone();
                let _ = tokio::task::spawn_blocking(move || state.clean_unowned(delay)).await;
            }
        }))
    }
}

impl Drop for StateCleaner {
    fn drop(&mut self) {
        self.0.abort();
    }
}
