//! The state directory: where an application keeps its LMDB stores and its process id.
//!
//! ```text
//! <state dir>/<application id>/
//!     .lock                  held by the running instance (another instance gets an error)
//!     process.id             this instance's process id, kept across restarts
//!     <subtopology>_<partition>/         one task (Kafka Streams names it the same way)
//!         .lock              held while the task runs on a thread of this instance
//!         .closed            written by a clean close (tells a restore's log why it is short)
//!         <store name>/      the store's LMDB environment (data.mdb, lock.mdb)
//! ```
//!
//! # What a restart trusts
//!
//! The changelog is the truth; a task directory is a cache of it. Each store's LMDB
//! environment records, in the same LMDB transaction as the data, the changelog offset its
//! contents reflect, and writes it only after a commit succeeded (see
//! `store::LmdbBackend`). So, whenever a task opens, **whatever the previous run ended
//! with** (a clean close, a `SIGKILL`, a power loss within LMDB's guarantees), every store
//! that holds an offset is kept and only the changelog records after it are restored
//! (`streams::state`). A store without an offset (it flushed uncommitted writes, or was never
//! completed), or whose offset does not fit the changelog (past its end or before its start,
//! as after the topic was deleted and recreated), makes the task's stores be emptied and
//! rebuilt from the changelogs. "The end" is the changelog's log end offset, transactions still
//! open included: the restore after the offset then waits for them to end
//! (`kafka::restore`).
//!
//! The whole directory can be deleted while the application is stopped; the next start
//! rebuilds it. Directories of tasks this instance no longer runs are deleted after
//! `state_cleanup_delay` (`KafkaStreams::builder(..).state_cleanup_delay(..)`, 10 minutes by
//! default), never while a thread of the instance holds them.
//!
//! # Locks
//!
//! Locks are `flock`s on the `.lock` files, released by the kernel when the process ends
//! (even by `SIGKILL`), so a crash never leaves a stale lock. A second instance started on the
//! same state directory fails with [`StateDirError::InUse`] and touches nothing. A task whose
//! directory is still locked by another thread of this instance (mid-handover) is waited for.

// The locks, process id and clean-close marks serve the Kafka runtime only: without the `kafka`
// feature just the layout and `delete_application_state` are used.
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file a clean close leaves in a task directory (taken when the task opens again).
pub const CLOSED_FILE: &str = ".closed";
/// The checkpoint file of earlier versions: deleted when found (the stores' own offsets
/// replaced it).
const LEGACY_CHECKPOINT_FILE: &str = ".checkpoint";
const LOCK_FILE: &str = ".lock";
const PROCESS_ID_FILE: &str = "process.id";

/// What went wrong with the state directory.
#[derive(Debug, thiserror::Error)]
pub enum StateDirError {
    /// Another running instance holds the application's state directory.
    #[error(
        "the state directory {path} is in use by another running instance of this application \
         ({holder}): give every instance its own state_dir, or stop the other one"
    )]
    InUse {
        /// The application's directory.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: String,
    },
    /// A task's directory stayed locked by another thread of this instance.
    #[error(
        "the task directory {path} stayed locked for {waited:?}: another thread of this instance \
         still runs the task; if this repeats, report it"
    )]
    TaskBusy {
        /// The task's directory.
        path: PathBuf,
        /// How long it was waited for.
        waited: Duration,
    },
    /// A file operation failed.
    #[error("state directory: {what} {path} failed: {source} (check the path and its permissions)")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

fn io_error<'p>(
    what: &'static str,
    path: &'p Path,
) -> impl FnOnce(io::Error) -> StateDirError + 'p {
    move |source| StateDirError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

/// The directory of the task (`subtopology`, `partition`) of `application_id` under `root`.
pub(crate) fn task_dir(
    root: &Path,
    application_id: &str,
    subtopology: &str,
    partition: i32,
) -> PathBuf {
    root.join(application_id)
        .join(format!("{subtopology}_{partition}"))
}

/// An application's state directory, locked by this instance while it exists.
#[derive(Debug)]
pub(crate) struct StateDirectory {
    root: PathBuf,
    application_id: String,
    process_id: uuid::Uuid,
    _lock: File,
    /// Held while a task directory is created and locked, and while the cleaner checks and
    /// deletes one: a directory is never deleted between a thread's creating and locking it.
    task_dirs: std::sync::Mutex<()>,
}

impl StateDirectory {
    /// Locks `<root>/<application_id>` for this instance (creating it) and reads or creates its
    /// process id.
    ///
    /// # Errors
    ///
    /// [`StateDirError::InUse`] when another instance holds it; [`StateDirError::Io`] when the
    /// directory cannot be created or read.
    pub(crate) fn open(root: &Path, application_id: &str) -> Result<Self, StateDirError> {
        let dir = root.join(application_id);
        fs::create_dir_all(&dir).map_err(io_error("creating", &dir))?;
        let lock_path = dir.join(LOCK_FILE);
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(io_error("opening", &lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = lock.read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => "holder unknown".to_owned(),
                    h => h.to_owned(),
                };
                return Err(StateDirError::InUse { path: dir, holder });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io_error("locking", &lock_path)(e)),
        }
        let about = format!("pid {} on {}", std::process::id(), hostname());
        lock.set_len(0)
            .and_then(|()| lock.write_all(about.as_bytes()))
            .map_err(io_error("writing", &lock_path))?;
        let process_id = read_or_create_process_id(&dir.join(PROCESS_ID_FILE))?;
        Ok(StateDirectory {
            root: root.to_owned(),
            application_id: application_id.to_owned(),
            process_id,
            _lock: lock,
            task_dirs: std::sync::Mutex::new(()),
        })
    }

    /// The process id of this instance, the same across restarts on this directory.
    pub(crate) fn process_id(&self) -> uuid::Uuid {
        self.process_id
    }

    /// Locks the directory of task (`subtopology`, `partition`), waiting up to `wait` while
    /// another thread of this instance holds it, and takes its clean-close mark.
    pub(crate) fn lock_task(
        &self,
        subtopology: &str,
        partition: i32,
        wait: Duration,
    ) -> Result<TaskDir, StateDirError> {
        let path = task_dir(&self.root, &self.application_id, subtopology, partition);
        let lock_path = path.join(LOCK_FILE);
        let started = Instant::now();
        let lock = loop {
            let guard = self.task_dirs.lock().unwrap_or_else(|p| p.into_inner());
            fs::create_dir_all(&path).map_err(io_error("creating", &path))?;
            let lock = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(io_error("opening", &lock_path))?;
            match lock.try_lock() {
                Ok(()) => break lock,
                Err(fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
                    drop(guard);
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(StateDirError::TaskBusy {
                        path,
                        waited: started.elapsed(),
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(io_error("locking", &lock_path)(e)),
            }
        };
        let closed_path = path.join(CLOSED_FILE);
        let closed_cleanly = match fs::remove_file(&closed_path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(io_error("removing", &closed_path)(e)),
        };
        let legacy = path.join(LEGACY_CHECKPOINT_FILE);
        if legacy.exists() {
            fs::remove_file(&legacy).map_err(io_error("removing", &legacy))?;
        }
        Ok(TaskDir {
            path,
            closed_cleanly,
            _lock: lock,
        })
    }

    /// Deletes the directory of every task that no thread of this instance runs (its lock is
    /// free) and that was not modified for `delay`, as Kafka Streams' state directory cleaner
    /// does every `state.cleanup.delay.ms` (`StateDirectory.cleanRemovedTasks`: lock the task,
    /// delete it when `now - delay > lastModified`). A task directory is modified when its
    /// task opens and when it closes cleanly, so `delay` counts from the task's last close.
    /// Returns the directories deleted; a directory that cannot be deleted is logged and
    /// left for the next round.
    pub(crate) fn clean_unowned(&self, delay: Duration) -> Vec<PathBuf> {
        let app_dir = self.root.join(&self.application_id);
        let Ok(entries) = fs::read_dir(&app_dir) else {
            return Vec::new();
        };
        let mut deleted = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let is_task = entry.file_type().is_ok_and(|t| t.is_dir())
                && entry
                    .file_name()
                    .to_str()
                    .and_then(|n| n.rsplit_once('_'))
                    .is_some_and(|(sub, p)| !sub.is_empty() && p.parse::<i32>().is_ok());
            if !is_task {
                continue;
            }
            let _guard = self.task_dirs.lock().unwrap_or_else(|p| p.into_inner());
            let Ok(lock) = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(path.join(LOCK_FILE))
            else {
                continue;
            };
            // Locked: a thread of this instance runs the task (or is handing it over).
            if lock.try_lock().is_err() {
                continue;
            }
            let idle = fs::metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| m.elapsed().ok());
            if idle.is_some_and(|idle| idle > delay) {
                match fs::remove_dir_all(&path) {
                    Ok(()) => {
                        tracing::info!(path = %path.display(), ?delay, "deleted the state of a task this instance no longer runs (state_cleanup_delay elapsed)");
                        deleted.push(path);
                    }
                    Err(error) => {
                        tracing::warn!(path = %path.display(), %error, "could not delete the state of a task this instance no longer runs; retrying at the next cleanup");
                    }
                }
            }
            drop(lock);
        }
        deleted
    }
}

/// Deletes the local state of `application_id` under `root` (Kafka Streams' `cleanUp()`):
/// every task directory and the process id. Says whether there was any.
///
/// # Errors
///
/// [`StateDirError::InUse`] while an instance runs on it: stop it first.
pub fn delete_application_state(root: &Path, application_id: &str) -> Result<bool, StateDirError> {
    let dir = root.join(application_id);
    if !dir.exists() {
        return Ok(false);
    }
    // Holding the instance lock proves no instance runs on it while it is deleted.
    let locked = StateDirectory::open(root, application_id)?;
    fs::remove_dir_all(&dir).map_err(io_error("deleting", &dir))?;
    drop(locked);
    Ok(true)
}

fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "this host".to_owned())
}

fn read_or_create_process_id(path: &Path) -> Result<uuid::Uuid, StateDirError> {
    match fs::read_to_string(path) {
        Ok(text) => {
            if let Ok(id) = text.trim().parse() {
                return Ok(id);
            }
            tracing::warn!(path = %path.display(), "unreadable process id; making a new one");
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("reading", path)(e)),
    }
    let id = uuid::Uuid::new_v4();
    write_durably(path, id.to_string().as_bytes())?;
    Ok(id)
}

/// Writes `bytes` to `path` through a temporary file, synced and renamed into place.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), StateDirError> {
    let tmp = path.with_extension("tmp");
    let mut file = File::create(&tmp).map_err(io_error("creating", &tmp))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(io_error("writing", &tmp))?;
    fs::rename(&tmp, path).map_err(io_error("renaming", &tmp))?;
    if let Some(parent) = path.parent()
        && let Ok(dir) = File::open(parent)
    {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The directory of one task, locked while this value lives.
#[derive(Debug)]
pub(crate) struct TaskDir {
    path: PathBuf,
    closed_cleanly: bool,
    _lock: File,
}

impl TaskDir {
    /// The directory.
    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the task's last run here ended with a clean close (the mark is taken when the
    /// task opens, so a crash after that reads `false` next time).
    pub(crate) fn closed_cleanly(&self) -> bool {
        self.closed_cleanly
    }

    /// Forgets the clean-close mark (the stores are being rebuilt, or replayed after an abort).
    pub(crate) fn forget_clean_close(&mut self) {
        self.closed_cleanly = false;
    }

    /// Leaves the clean-close mark for the next time the task opens.
    pub(crate) fn mark_closed(&self) -> Result<(), StateDirError> {
        write_durably(&self.path.join(CLOSED_FILE), b"closed after a commit\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "dekaf-state-dir-{name}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_second_instance_is_refused_and_the_process_id_survives_a_restart() {
        let root = temp_dir("in-use");
        let first = StateDirectory::open(&root, "app").expect("first");
        let second = StateDirectory::open(&root, "app").expect_err("second must be refused");
        let message = second.to_string();
        assert!(
            message.contains("in use by another running instance"),
            "{message}"
        );
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        let id = first.process_id();
        drop(first);
        let again = StateDirectory::open(&root, "app").expect("after the first stopped");
        assert_eq!(again.process_id(), id);
        let refused = delete_application_state(&root, "app").expect_err("running");
        assert!(matches!(refused, StateDirError::InUse { .. }), "{refused}");
        drop(again);
        assert!(delete_application_state(&root, "app").expect("stopped"));
        assert!(!root.join("app").exists());
        assert!(!delete_application_state(&root, "app").expect("nothing left"));
        let _ = fs::remove_dir_all(root);
    }

    #[test]
    fn a_task_keeps_its_stores_whether_or_not_it_closed_cleanly() {
        let root = temp_dir("task");
        let state = StateDirectory::open(&root, "app").expect("open");
        let task = state.lock_task("0", 1, Duration::ZERO).expect("lock");
        fs::create_dir_all(task.path().join("counts")).expect("store dir");
        fs::write(task.path().join("counts/data.mdb"), b"x").expect("data");
        fs::write(task.path().join(LEGACY_CHECKPOINT_FILE), b"old").expect("legacy");
        // Locked: another lock on the same task waits, then gives up.
        let busy = state
            .lock_task("0", 1, Duration::from_millis(50))
            .expect_err("busy");
        assert!(matches!(busy, StateDirError::TaskBusy { .. }), "{busy}");
        task.mark_closed().expect("mark");
        drop(task);

        let task = state.lock_task("0", 1, Duration::ZERO).expect("relock");
        assert!(task.closed_cleanly());
        assert!(task.path().join("counts/data.mdb").exists());
        assert!(
            !task.path().join(CLOSED_FILE).exists(),
            "taken when the task opens"
        );
        assert!(!task.path().join(LEGACY_CHECKPOINT_FILE).exists());
        drop(task);

        // No mark (as after a crash): the stores stay; their own offsets decide what is kept.
        let task = state.lock_task("0", 1, Duration::ZERO).expect("relock");
        assert!(!task.closed_cleanly());
        assert!(task.path().join("counts/data.mdb").exists());
        let _ = fs::remove_dir_all(root);
    }

    #[test]
    fn the_cleaner_deletes_idle_unlocked_task_directories_only() {
        let root = temp_dir("clean");
        let state = StateDirectory::open(&root, "app").expect("open");
        let running = state.lock_task("0", 0, Duration::ZERO).expect("lock");
        let moved = state.lock_task("0", 1, Duration::ZERO).expect("lock");
        fs::create_dir_all(moved.path().join("counts")).expect("store dir");
        let moved_path = moved.path().to_owned();
        drop(moved);
        fs::create_dir_all(root.join("app").join("not-a-task")).expect("other dir");
        // Not idle for long enough yet.
        assert!(state.clean_unowned(Duration::from_secs(600)).is_empty());
        std::thread::sleep(Duration::from_millis(30));
        let deleted = state.clean_unowned(Duration::from_millis(10));
        assert_eq!(
            deleted,
            std::slice::from_ref(&moved_path),
            "only the unlocked task directory"
        );
        assert!(!moved_path.exists());
        assert!(
            running.path().exists(),
            "a locked task directory is never deleted"
        );
        assert!(root.join("app").join("not-a-task").exists());
        assert!(root.join("app").join(PROCESS_ID_FILE).exists());
        // The task can come back afterwards.
        drop(state.lock_task("0", 1, Duration::ZERO).expect("relock"));
        drop(running);
        let _ = fs::remove_dir_all(root);
    }
}
