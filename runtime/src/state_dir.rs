//! The state directory: where an application keeps its LMDB stores, its process id, and the
//! checkpoints that let a restart skip the changelog.
//!
//! ```text
//! <state dir>/<application id>/
//!     .lock                  held by the running instance (another instance gets an error)
//!     process.id             this instance's process id, kept across restarts
//!     <subtopology>_<partition>/         one task (Kafka Streams names it the same way)
//!         .lock              held while the task runs on a thread of this instance
//!         .checkpoint        written by a clean close: the changelog offset of every store
//!         <store name>/      the store's LMDB environment (data.mdb, lock.mdb)
//! ```
//!
//! # Checkpoints
//!
//! The changelog is the truth; a task directory is a cache of it. A task that closes cleanly
//! (its tasks revoked after a commit, or the application shut down) syncs its stores to disk
//! and then writes `.checkpoint`: for every store, the changelog offset up to which the store
//! holds it: the offset just past the last record the task's producer wrote to the changelog,
//! as the broker acknowledged it (Kafka Streams checkpoints the same), not a read_committed end
//! offset, which can lag while the last transaction's markers are still being written. The
//! next time the task opens, it reads the checkpoint, **deletes it**, and restores
//! only the changelog records after those offsets. So:
//!
//! - after a clean shutdown, a restart restores nothing (or only what others wrote meanwhile);
//! - after a crash there is no checkpoint (it was deleted when the task opened), so the task
//!   directory is discarded and the stores rebuilt from the changelog, as exactly-once needs:
//!   the directory may hold writes of a transaction that never committed;
//! - a checkpoint that does not fit the changelog (an offset past its end or before its start,
//!   as after the topic was deleted and recreated) discards the directory too. A checkpoint
//!   past the last stable offset first waits a few seconds for that offset to catch up (the
//!   last transaction's markers may still be on their way); only a transaction marker after
//!   the checkpoint means nothing to restore.
//!
//! The whole directory can be deleted while the application is stopped; the next start
//! rebuilds it.
//!
//! # Locks
//!
//! Locks are `flock`s on the `.lock` files, released by the kernel when the process ends
//! (even by `SIGKILL`), so a crash never leaves a stale lock. A second instance started on the
//! same state directory fails with [`StateDirError::InUse`] and touches nothing. A task whose
//! directory is still locked by another thread of this instance (mid-handover) is waited for.

// The locks, process id and checkpoints serve the Kafka runtime only: without the `kafka`
// feature just the layout and `delete_application_state` are used.
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name of the checkpoint file in a task directory.
pub const CHECKPOINT_FILE: &str = ".checkpoint";
const LOCK_FILE: &str = ".lock";
const PROCESS_ID_FILE: &str = "process.id";
/// v2: window-store keys carry Kafka Streams' 4-byte sequence number; a v1 checkpoint is not
/// trusted, so its stores are rebuilt from their changelogs.
const CHECKPOINT_HEADER: &str = "dekaf-streams checkpoint v2";

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
}

impl StateDirectory {
    /// Locks `<root>/<application_id>` for this instance (creating it) and reads or creates its
    /// process id.
    ///
    /// # Errors
    ///
    /// [`StateDirError::InUse`] when another instance holds it; [`StateDirError::Io`] when the
    /// directory cannot be created or read.
    pub fn open(root: &Path, application_id: &str) -> Result<Self, StateDirError> {
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
        })
    }

    /// The process id of this instance, the same across restarts on this directory.
    pub fn process_id(&self) -> uuid::Uuid {
        self.process_id
    }

    /// Locks the directory of task (`subtopology`, `partition`), waiting up to `wait` while
    /// another thread of this instance holds it, and takes its checkpoint (see the module
    /// documentation): without one, the stores in it are deleted.
    pub fn lock_task(
        &self,
        subtopology: &str,
        partition: i32,
        wait: Duration,
    ) -> Result<TaskDir, StateDirError> {
        let path = task_dir(&self.root, &self.application_id, subtopology, partition);
        fs::create_dir_all(&path).map_err(io_error("creating", &path))?;
        let lock_path = path.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(io_error("opening", &lock_path))?;
        let started = Instant::now();
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
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
        }
        let checkpoint_path = path.join(CHECKPOINT_FILE);
        let checkpoint = match fs::read_to_string(&checkpoint_path) {
            Ok(text) => {
                fs::remove_file(&checkpoint_path)
                    .map_err(io_error("removing", &checkpoint_path))?;
                let parsed = Checkpoint::parse(&text);
                if parsed.is_none() {
                    tracing::warn!(path = %checkpoint_path.display(), "unreadable checkpoint; rebuilding the task's stores");
                }
                parsed
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error("reading", &checkpoint_path)(e)),
        };
        let dir = TaskDir {
            path,
            checkpoint,
            _lock: lock,
        };
        if dir.checkpoint.is_none() {
            dir.wipe_stores()?;
        }
        Ok(dir)
    }
}

/// Deletes the local state of `application_id` under `root` (Kafka Streams' `cleanUp()`):
/// every task directory, checkpoint and the process id. Says whether there was any.
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
    checkpoint: Option<Checkpoint>,
    _lock: File,
}

impl TaskDir {
    /// The directory.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checkpoint found when the task opened (already deleted from disk), if any.
    pub fn checkpoint(&self) -> Option<&Checkpoint> {
        self.checkpoint.as_ref()
    }

    /// Forgets the checkpoint (the stores are being rebuilt from the changelog).
    pub fn discard_checkpoint(&mut self) {
        self.checkpoint = None;
    }

    /// Writes `checkpoint`, durably, for the next time the task opens.
    pub fn write_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), StateDirError> {
        write_durably(
            &self.path.join(CHECKPOINT_FILE),
            checkpoint.format().as_bytes(),
        )
    }

    /// Deletes every store of the task (its subdirectories).
    pub fn wipe_stores(&self) -> Result<(), StateDirError> {
        let entries = fs::read_dir(&self.path).map_err(io_error("listing", &self.path))?;
        for entry in entries {
            let entry = entry.map_err(io_error("listing", &self.path))?;
            let path = entry.path();
            if path.is_dir() {
                fs::remove_dir_all(&path).map_err(io_error("deleting", &path))?;
            }
        }
        Ok(())
    }
}

/// The changelog offsets a task's stores hold: for each changelog partition, the offset of the
/// first record the stores do **not** hold yet (where a restore starts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    offsets: Vec<(String, i32, i64)>,
}

impl Checkpoint {
    /// Records that the stores hold `topic`/`partition` up to (not including) `offset`.
    pub fn set(&mut self, topic: &str, partition: i32, offset: i64) {
        match self
            .offsets
            .iter_mut()
            .find(|(t, p, _)| t == topic && *p == partition)
        {
            Some(entry) => entry.2 = offset,
            None => self.offsets.push((topic.to_owned(), partition, offset)),
        }
    }

    /// Where the restore of `topic`/`partition` starts, if checkpointed.
    pub fn offset(&self, topic: &str, partition: i32) -> Option<i64> {
        self.offsets
            .iter()
            .find(|(t, p, _)| t == topic && *p == partition)
            .map(|e| e.2)
    }

    /// The file's text.
    fn format(&self) -> String {
        let mut out = String::from(CHECKPOINT_HEADER);
        out.push('\n');
        for (topic, partition, offset) in &self.offsets {
            out.push_str(&format!("{topic} {partition} {offset}\n"));
        }
        out
    }

    /// Parses a checkpoint file; `None` if it is not one.
    fn parse(text: &str) -> Option<Checkpoint> {
        let mut lines = text.lines();
        if lines.next()? != CHECKPOINT_HEADER {
            return None;
        }
        let mut checkpoint = Checkpoint::default();
        for line in lines.filter(|l| !l.trim().is_empty()) {
            let mut fields = line.split(' ');
            let (topic, partition, offset) = (fields.next()?, fields.next()?, fields.next()?);
            if fields.next().is_some() {
                return None;
            }
            checkpoint.set(topic, partition.parse().ok()?, offset.parse().ok()?);
        }
        Some(checkpoint)
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
    fn checkpoints_round_trip_and_garbage_is_refused() {
        let mut c = Checkpoint::default();
        c.set("app-counts-changelog", 3, 1_000_000);
        c.set("orders", 0, 7);
        c.set("orders", 0, 8);
        assert_eq!(Checkpoint::parse(&c.format()), Some(c.clone()));
        assert_eq!(c.offset("orders", 0), Some(8));
        assert_eq!(c.offset("orders", 1), None);
        for bad in [
            "",
            "x\n",
            "dekaf-streams checkpoint v2\nt 1\n",
            "dekaf-streams checkpoint v2\nt a 1\n",
            // Written before window keys had their sequence number: rebuilt, not trusted.
            "dekaf-streams checkpoint v1\nt 0 1\n",
        ] {
            assert_eq!(Checkpoint::parse(bad), None, "{bad:?}");
        }
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
    fn a_task_without_checkpoint_loses_its_stores_and_one_with_keeps_them() {
        let root = temp_dir("task");
        let state = StateDirectory::open(&root, "app").expect("open");
        let task = state.lock_task("0", 1, Duration::ZERO).expect("lock");
        fs::create_dir_all(task.path().join("counts")).expect("store dir");
        fs::write(task.path().join("counts/data.mdb"), b"x").expect("data");
        // Locked: another lock on the same task waits, then gives up.
        let busy = state
            .lock_task("0", 1, Duration::from_millis(50))
            .expect_err("busy");
        assert!(matches!(busy, StateDirError::TaskBusy { .. }), "{busy}");
        let mut checkpoint = Checkpoint::default();
        checkpoint.set("app-counts-changelog", 1, 42);
        task.write_checkpoint(&checkpoint).expect("checkpoint");
        drop(task);

        let task = state.lock_task("0", 1, Duration::ZERO).expect("relock");
        assert_eq!(task.checkpoint(), Some(&checkpoint));
        assert!(task.path().join("counts/data.mdb").exists());
        assert!(
            !task.path().join(CHECKPOINT_FILE).exists(),
            "taken when the task opens"
        );
        drop(task);

        // No checkpoint (as after a crash): the stores are deleted.
        let task = state.lock_task("0", 1, Duration::ZERO).expect("relock");
        assert_eq!(task.checkpoint(), None);
        assert!(!task.path().join("counts").exists());
        let _ = fs::remove_dir_all(root);
    }
}
