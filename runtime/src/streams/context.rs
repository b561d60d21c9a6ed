//! What a processing thread is started with: its number, the application's settings, the
//! instance's process id, the tokio runtime for its async work, the stop flag and the state
//! directory.
//!
//! Its own module because the thread ([`processing`](super::processing)) and its group member
//! ([`membership`](super::membership)) both read it, and neither should depend on the other.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tokio::runtime::Handle;

use super::config::StreamsConfig;
use crate::state_dir::StateDirectory;

/// What a thread is started with.
#[derive(Clone)]
pub(crate) struct ThreadContext {
    /// Thread number within the instance.
    pub index: usize,
    /// How many threads of this number started before this one in this instance (a thread
    /// replaced after a failure, or removed and added again): 0 for the first. Part of the
    /// member id (see [`super::supervisor`]).
    pub generation: u32,
    /// How many processing threads the instance runs with this one: the record cache is shared
    /// out among them.
    pub live_threads: usize,
    /// The instance's lifecycle: thread states, pause, the application shutdown request.
    pub lifecycle: Arc<super::lifecycle::Shared>,
    /// The application's settings.
    pub config: StreamsConfig,
    /// The instance's process id (shared by its threads).
    pub process_id: uuid::Uuid,
    /// The tokio runtime the member's heartbeat and admin calls run on.
    pub handle: Handle,
    /// Set when this thread is to stop (the application shuts down, or the thread is removed).
    pub stop: Arc<AtomicBool>,
    /// The locked state directory, when stores live on disk.
    pub state: Option<Arc<StateDirectory>>,
    /// Where the thread publishes its stores' committed state and the group's endpoints for
    /// interactive queries.
    pub queries: Arc<crate::query::registry::Registry>,
    /// The instance's global tables, shared by its tasks (read by the global thread).
    pub globals: crate::task::GlobalStores,
    /// The instance's admin client, shared by its threads as Kafka Streams shares one among its
    /// stream threads (a librdkafka client per thread would cost its own threads, connections
    /// and buffers for a few purge calls per commit interval).
    pub admin: Arc<crate::kafka::admin::Admin>,
    /// Under exactly-once, the instance's client for changelogs' log end offsets (restores read
    /// to them, past transactions still open: see [`crate::kafka::restore`]), shared like the
    /// admin client. `None` under at-least-once: the restore consumer's own high watermark is
    /// the log end.
    pub log_ends: Option<Arc<crate::kafka::restore::LogEnds>>,
}
