//! A thread's standby tasks (see the runtime's `standby` module): taking them on and dropping
//! them as the member's assignment changes, keeping them up to date between records, and
//! reporting their offsets to the member's heartbeat.

use std::time::Duration;

use rdkafka::Offset;

use super::error::StreamsError;
use super::processing::StreamThread;
use super::tasks::ActiveTask;
use crate::group::TaskId;
use crate::kafka::restore::RestorePartition;
use crate::kafka::restore::{RestoreConsumer, restore_consumer, watermarks};
use crate::kafka::transient::{RetryError, retry};
use crate::standby::{ChangelogPosition, StandbyError, StandbyTask};
use crate::store::{BackendFactory, StoreBackend};
use crate::task::{Task, Topology};

/// How often the standbys are matched with the member's assignment when no event says it
/// changed (a standby that goes away comes with no event).
const SYNC_INTERVAL: Duration = Duration::from_millis(200);
/// How often the standbys' stores are written through to their backend.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
/// How often the changelogs' end offsets (for the lag) are looked up.
const END_REFRESH_INTERVAL: Duration = Duration::from_secs(2);
/// How long one attempt of the watermark lookup of a store's recorded offset may take when a
/// standby opens (transient failures are retried until the application stops).
const WATERMARKS_TIMEOUT: Duration = Duration::from_secs(5);

/// The standby task of a thread running `T` with stores from `F`.
type Standby<T, F> = StandbyTask<<T as Topology>::Task<<F as BackendFactory>::Backend>>;

impl<T: Topology, F: BackendFactory> StreamThread<T, F> {
    /// Takes on the standby tasks the member owns and drops those it no longer owns. A task
    /// still active on this thread (revoked, not yet closed) becomes a standby once it closed;
    /// a standby the member now owns as active stays until [`add`](Self::add) promotes it.
    fn sync_standbys(&mut self) -> Result<(), StreamsError> {
        let owned = self.member.assignment();
        let target = owned.standby;
        let held = self.standby.tasks.ids();
        for id in held.difference(&target) {
            if owned.active.contains(id) {
                continue;
            }
            if let Some(standby) = self.standby.tasks.take(*id) {
                self.publish_standby_closed(*id);
                self.close_standby(standby, true);
            }
        }
        let active = self.tasks.ids();
        let mut opened = 0;
        for id in target.difference(&held) {
            if active.contains(id) {
                continue;
            }
            // None: the application stops.
            let Some(standby) = self.open_standby(*id)? else {
                break;
            };
            self.publish_standby_opened(&standby)?;
            self.standby.tasks.insert(standby);
            opened += 1;
        }
        if opened > 0 || self.standby.tasks.len() != held.len() {
            metrics::gauge!("dekaf.streams.tasks.standby").set(self.standby.tasks.len() as f64);
            tracing::info!(standby = ?self.standby.tasks.ids().iter().map(ToString::to_string).collect::<Vec<_>>(), "standby tasks");
            self.member
                .report_task_offsets(self.standby.tasks.task_offsets());
            self.report_tasks();
        }
        Ok(())
    }

    /// Matches the standbys with the member's assignment (when `assignment_changed`, else at
    /// most every [`SYNC_INTERVAL`]), then applies their pending changelog records for at most
    /// `budget`, flushes their stores now and then and refreshes their lag and reported
    /// offsets. Returns how many records it applied.
    pub(super) fn maintain_standbys(
        &mut self,
        assignment_changed: bool,
        budget: Duration,
    ) -> Result<u64, StreamsError> {
        if assignment_changed || self.standby.synced.elapsed() >= SYNC_INTERVAL {
            self.standby.synced = std::time::Instant::now();
            self.sync_standbys()?;
        }
        if self.standby.tasks.is_empty() && self.standby.consumer.is_none() {
            return Ok(0);
        }
        // With no standbys left this empties the consumer's assignment once.
        self.standby_consumer()?;
        let queried = self.queried();
        let consumer = self.standby.consumer.as_ref().expect("created above");
        let publisher = &mut self.publisher;
        let result = self
            .standby
            .tasks
            .poll(
                consumer,
                budget,
                |topic, partition, key, value, timestamp| {
                    if queried {
                        publisher.standby_applied(topic, partition, key, value, timestamp);
                    }
                },
            )
            .and_then(|applied| {
                self.standby
                    .tasks
                    .flush_due(FLUSH_INTERVAL)
                    .map(|()| applied)
            });
        let applied = result.map_err(standby_error)?;
        let refreshed = !self.standby.tasks.is_empty()
            && self
                .standby
                .tasks
                .refresh_ends(consumer, END_REFRESH_INTERVAL);
        if refreshed {
            self.member
                .report_task_offsets(self.standby.tasks.task_offsets());
        }
        if queried && (applied > 0 || refreshed) {
            // What the standbys applied becomes their copies for stale queries, with their lag.
            self.publisher
                .publish_standbys(self.standby.tasks.lags().filter_map(|(id, lag)| {
                    Some((T::INFO.subtopology(id.subtopology)?, id.partition, lag))
                }));
        }
        Ok(applied)
    }

    /// Takes the standby of `id` out, to promote it to active, if this thread holds one.
    pub(super) fn take_standby(&mut self, id: TaskId) -> Option<StandbyTask<T::Task<F::Backend>>> {
        let standby = self.standby.tasks.take(id)?;
        metrics::gauge!("dekaf.streams.tasks.standby").set(self.standby.tasks.len() as f64);
        metrics::counter!("dekaf.streams.standby.promotions").increment(1);
        Some(standby)
    }

    /// Closes every standby (the thread ends); `clean` flushes their stores with their positions.
    pub(super) fn close_standbys(&mut self, clean: bool) {
        for standby in self.standby.tasks.drain() {
            self.publish_standby_closed(standby.id);
            self.close_standby(standby, clean);
        }
        metrics::gauge!("dekaf.streams.tasks.standby").set(0.0);
    }

    /// The consumer standbys read with, created on first use.
    fn standby_consumer(&mut self) -> Result<&RestoreConsumer, StreamsError> {
        if self.standby.consumer.is_none() {
            let settings = &self.ctx.config.settings;
            let consumer = restore_consumer(
                &settings.consumer(T::APPLICATION_ID, self.eos()),
                settings.oauth_refresh(),
            )
            .map_err(StreamsError::kafka("creating the standby consumer"))?;
            self.standby.consumer = Some(consumer);
        }
        Ok(self.standby.consumer.as_ref().expect("just created"))
    }

    /// Creates the standby of `id`: its stores (in its locked directory, when on disk) and its
    /// positions, from the changelog offsets its stores recorded with their last flush when
    /// every store has one that fits its changelog (as an active task's restore starts), else
    /// from the beginning (emptying the stores). `None` when the application stops while the
    /// changelogs' offsets are looked up.
    fn open_standby(&mut self, id: TaskId) -> Result<Option<Standby<T, F>>, StreamsError> {
        let mut dir = self.lock_task_dir(id.subtopology, id.partition)?;
        if let Some(d) = dir.as_mut() {
            d.forget_clean_close();
        }
        let mut task = T::create_task(id.subtopology, id.partition, &mut self.stores)
            .map_err(|source| StreamsError::task(id, source))?;
        let mut recorded: Vec<(&'static str, Option<i64>)> = Vec::new();
        let _ = task.for_each_store(|info, store| {
            recorded.push((info.changelog_topic, store.changelog_offset()));
            Ok::<(), ()>(())
        });
        let mut fits = dir.is_some() && !task.needs_full_restore();
        for (topic, offset) in &recorded {
            if !fits {
                break;
            }
            let Some(offset) = *offset else {
                fits = false;
                break;
            };
            // A broker restarting or a leader moving is waited out, not failed on.
            let looked_up = retry("reading changelog offsets", &self.ctx.stop, || {
                watermarks(
                    &self.clients.restore_consumer,
                    topic,
                    id.partition,
                    WATERMARKS_TIMEOUT,
                )
            });
            let (low, high) = match looked_up {
                Ok(marks) => marks,
                Err(RetryError::Stopped) => return Ok(None),
                Err(RetryError::Failed(e, _)) => {
                    return Err(StreamsError::kafka("reading changelog offsets")(e));
                }
            };
            if offset < low || offset > high {
                tracing::warn!(task = %id, topic, offset, low, high, "a store's changelog offset does not fit the changelog; the standby rebuilds its stores");
                fits = false;
            }
        }
        if !fits {
            task.clear()
                .map_err(|source| StreamsError::task(id, source))?;
        }
        let start = |topic: &str| {
            recorded
                .iter()
                .filter(|_| fits)
                .find(|(t, _)| *t == topic)
                .and_then(|(_, o)| *o)
        };
        let standby = StandbyTask::new(id, task, dir, start);
        tracing::info!(task = %id, kept_stores = fits, "standby task opened");
        Ok(Some(standby))
    }

    /// Closes a standby: when `clean` and on disk, flushes its stores with their positions,
    /// syncs them and marks the close as clean, so whoever opens the directory next starts
    /// from there. A failure only costs a longer restore, so it is logged.
    fn close_standby(&self, mut standby: StandbyTask<T::Task<F::Backend>>, clean: bool) {
        let id = standby.id;
        let Some(dir) = standby.dir.take() else {
            return;
        };
        if clean {
            let result = standby
                .flush()
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    standby
                        .task
                        .for_each_store(|_, store| store.sync())
                        .map_err(|e| e.to_string())
                })
                .and_then(|()| dir.mark_closed().map_err(|e| e.to_string()));
            if let Err(error) = result {
                tracing::warn!(task = %id, error, "closing the standby's stores failed; the next start checks what they hold");
            }
        }
        // The stores close before the directory is unlocked.
        drop(standby);
        drop(dir);
        tracing::info!(task = %id, "standby task closed");
    }
}

/// Points the restore of a promoted standby at the standby's positions. A table read from its
/// source topic is restored only up to the group's committed offset of that topic (processing
/// resumes there); a standby that read past it holds state the active task must not see yet,
/// so then the task's stores are emptied and restored from the beginning instead.
pub(super) fn resume_from_standby<T: Topology, F: BackendFactory>(
    active: &mut ActiveTask<T, F>,
    partitions: &mut [RestorePartition],
    positions: &[ChangelogPosition],
) -> Result<(), StreamsError> {
    let ahead = positions.iter().find(|c| {
        active
            .task
            .source_index(c.topic)
            .is_some_and(|i| c.next.unwrap_or(0) > active.committed[i].unwrap_or(0))
    });
    if let Some(c) = ahead {
        tracing::info!(task = %active.id, topic = c.topic, "the standby read its source-topic table past the committed offset; rebuilding the task's stores");
        let id = active.id;
        return active
            .task
            .clear()
            .map_err(|source| StreamsError::task(id, source));
    }
    for p in partitions.iter_mut() {
        if let Some(c) = positions
            .iter()
            .find(|c| c.topic == p.topic && c.partition == p.partition)
        {
            p.from = c.next.map_or(Offset::Beginning, Offset::Offset);
        }
    }
    Ok(())
}

/// A promoted standby's lag as last looked up (`-1`: not known yet).
pub(super) fn standby_lag(positions: &[ChangelogPosition]) -> i64 {
    positions
        .iter()
        .try_fold(0i64, |sum, c| {
            c.end
                .map(|end| sum.saturating_add((end - c.next.unwrap_or(0)).max(0)))
        })
        .unwrap_or(-1)
}

fn standby_error(e: StandbyError) -> StreamsError {
    match e {
        StandbyError::Kafka(source) => {
            StreamsError::kafka("reading the changelogs of standby tasks")(source)
        }
        StandbyError::Apply { task, source, .. } | StandbyError::Flush { task, source } => {
            StreamsError::task(task, *source)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(next: Option<i64>, end: Option<i64>) -> ChangelogPosition {
        ChangelogPosition {
            topic: "app-counts-changelog",
            partition: 0,
            next,
            end,
        }
    }

    #[test]
    fn a_promoted_standbys_lag_sums_its_changelogs_and_is_unknown_before_a_lookup() {
        assert_eq!(
            standby_lag(&[at(Some(90), Some(100)), at(None, Some(7))]),
            17
        );
        // A position past a stale end counts as caught up, not as negative lag.
        assert_eq!(standby_lag(&[at(Some(120), Some(100))]), 0);
        assert_eq!(
            standby_lag(&[at(Some(90), Some(100)), at(Some(3), None)]),
            -1
        );
        assert_eq!(standby_lag(&[]), 0);
    }
}
