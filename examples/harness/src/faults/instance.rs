//! Word-count instances as child processes of the `fault-instance` binary.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};

/// How an instance runs besides its application and cluster.
#[derive(Debug, Clone)]
pub struct InstanceSettings {
    /// `exactly_once` or `at_least_once`.
    pub guarantee: &'static str,
    /// Processing threads (group members).
    pub threads: usize,
    /// Keep the stores in LMDB under this directory (in memory when `None`).
    pub state_dir: Option<std::path::PathBuf>,
    /// More client properties (`DEKAF_PROPERTIES`), e.g. SASL_SSL's from
    /// [`Cluster::client_properties`](super::cluster::Cluster::client_properties).
    pub properties: Vec<(&'static str, String)>,
}

impl Default for InstanceSettings {
    /// Exactly once, one thread, stores in memory.
    fn default() -> Self {
        InstanceSettings {
            guarantee: "exactly_once",
            threads: 1,
            state_dir: None,
            properties: Vec::new(),
        }
    }
}

/// One running instance.
#[derive(Debug)]
pub struct Instance {
    child: Child,
    /// What it was started with, to start it again.
    application: String,
    bootstrap: String,
    log: std::path::PathBuf,
    settings: InstanceSettings,
}

/// A test that fails mid-fault drops its instances: they must not outlive it (they would keep
/// running in the next run's group).
impl Drop for Instance {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Instance {
    /// Starts `fault-instance <application>` (the binary at `binary`) on `bootstrap`, exactly
    /// once with a 5 s transaction timeout and no record cache (every count update is checked);
    /// its log goes to `log` (appended). `DEKAF_FAULT_RUST_LOG` overrides its log filter
    /// (default `info,rdkafka=warn`); `DEKAF_RDKAFKA_DEBUG` passes through (librdkafka `debug`).
    pub fn start(binary: &Path, application: &str, bootstrap: &str, log: &Path) -> Instance {
        Instance::start_with(
            binary,
            application,
            bootstrap,
            log,
            InstanceSettings::default(),
        )
    }

    /// [`start`](Self::start) with other [`InstanceSettings`].
    pub fn start_with(
        binary: &Path,
        application: &str,
        bootstrap: &str,
        log: &Path,
        settings: InstanceSettings,
    ) -> Instance {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the instance log");
        let err = out.try_clone().expect("clone the log file");
        let mut command = Command::new(binary);
        if let Some(dir) = &settings.state_dir {
            command.env("DEKAF_STATE_DIR", dir);
        }
        if !settings.properties.is_empty() {
            let lines: Vec<String> = settings
                .properties
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            command.env("DEKAF_PROPERTIES", lines.join("\n"));
        }
        let child = command
            .arg(application)
            .env("DEKAF_BOOTSTRAP", bootstrap)
            .env("DEKAF_GUARANTEE", settings.guarantee)
            .env("DEKAF_THREADS", settings.threads.to_string())
            .env("DEKAF_TRANSACTION_TIMEOUT_MS", "5000")
            .env("DEKAF_CACHE_MAX_BYTES", "0")
            .env(
                "RUST_LOG",
                std::env::var("DEKAF_FAULT_RUST_LOG")
                    .unwrap_or_else(|_| "info,rdkafka=warn".into()),
            )
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("start fault-instance");
        Instance {
            child,
            application: application.to_owned(),
            bootstrap: bootstrap.to_owned(),
            log: log.to_owned(),
            settings,
        }
    }

    /// SIGKILL, then starts it again with the same settings.
    pub fn kill_and_restart(&mut self, binary: &Path) {
        self.kill();
        *self = Instance::start_with(
            binary,
            &self.application,
            &self.bootstrap,
            &self.log,
            self.settings.clone(),
        );
    }

    /// SIGSTOP: the whole process freezes (processing thread and heartbeats), as a long GC
    /// pause or a stalled VM would.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT after [`pause`](Self::pause).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    /// The process id it logged last at start (`starting … process_id=…`): with the thread's
    /// index, its threads' transactional ids are `<application>-<process id>-<index>`.
    pub fn process_id(&self) -> Option<String> {
        let log = std::fs::read_to_string(&self.log).ok()?;
        let plain = crate::e2e::strip_ansi(&log);
        let line = plain.lines().rev().find(|l| l.contains("process_id="))?;
        let rest = line.split("process_id=").nth(1)?;
        Some(rest.split_whitespace().next()?.to_owned())
    }

    /// Waits (up to `limit`) until the instance runs tasks as a member of the group: its log
    /// says "tasks restored and running" (or its process exited). A fault meant for a member
    /// (a freeze past the session timeout) lands on one, not on an instance still starting on
    /// a loaded machine. Returns whether it got there.
    pub fn await_running(&mut self, limit: std::time::Duration) -> bool {
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            if log.contains("tasks restored and running") {
                return true;
            }
            if self.exited().is_some() {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        false
    }

    /// Writes every thread's stack to `to` with `gdb` (attached for the moment it takes; the
    /// process goes on after), so a run that stalled shows where each thread was. Says why
    /// not when gdb is missing or cannot attach.
    pub fn dump_stacks(&self, to: &Path) -> Result<(), String> {
        let out = Command::new("gdb")
            .args(["-batch", "-nx", "-ex", "set pagination off"])
            .args(["-ex", "thread apply all bt"])
            .args(["-p", &self.child.id().to_string()])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("gdb could not be run (is it installed?): {e}"))?;
        let mut text = out.stdout;
        text.extend_from_slice(&out.stderr);
        std::fs::write(to, text).map_err(|e| format!("writing {}: {e}", to.display()))
    }

    /// Its log file.
    pub fn log(&self) -> &Path {
        &self.log
    }

    fn signal(&self, signal: &str) {
        let _ = Command::new("kill")
            .arg(signal)
            .arg(self.child.id().to_string())
            .status();
    }

    /// SIGKILL (a crash) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Its exit status if it has exited (it should not, whatever the brokers do).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Why it stopped, as its log says: the last line the runner printed for the error that
    /// ended it (`error: …`) and the last `ERROR` line of the library before it, so a test's
    /// failure message names the cause without the log at hand.
    pub fn exit_reason(&self) -> String {
        let Ok(log) = std::fs::read_to_string(&self.log) else {
            return format!("(no log at {})", self.log.display());
        };
        let plain = crate::e2e::strip_ansi(&log);
        let last =
            |keep: fn(&str) -> bool| plain.lines().rev().find(|l| keep(l)).map(str::to_owned);
        let runner = last(|l| l.starts_with("error: "));
        let library = last(|l| l.contains(" ERROR ") && l.contains("dekaf_streams"));
        match (runner, library) {
            (Some(r), Some(l)) => format!("{r} (last library error: {l})"),
            (Some(r), None) => r,
            (None, Some(l)) => l,
            (None, None) => format!("(no error in {})", self.log.display()),
        }
    }

    /// SIGTERM, and its exit status if it exits within `limit` (else SIGKILL and an error saying
    /// how long it ignored the SIGTERM).
    pub fn terminate_within(mut self, limit: std::time::Duration) -> Result<ExitStatus, String> {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.exited() {
                return Ok(status);
            }
            if started.elapsed() > limit {
                self.kill();
                return Err(format!("the instance ignored SIGTERM for {limit:?}"));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// SIGTERM (a clean shutdown) and its exit status.
    pub fn terminate(mut self) -> ExitStatus {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        self.child.wait().expect("wait for the instance")
    }
}
