//! The systems under test and how their processes are run and watched.
//!
//! Every system is a separate process that speaks the "system command line" contract of
//! `benches/WORKLOADS.md` (flags from [`SystemArgs`], JSON event lines on stdout, a clean stop
//! on SIGTERM). **dekaf-streams plugs in here**: [`SystemKind::Dekaf`] runs the binary
//! `dekaf-bench-app` (`src/bin/dekaf_app.rs`), whose `run_workload` is the one function the
//! runtime's owner fills in.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use crate::args::SystemArgs;
use crate::procstat::{ProcSample, sample};
use crate::workload::Workload;

/// A system under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SystemKind {
    /// dekaf-streams, through `dekaf-bench-app` (the slot the runtime's owner fills in).
    Dekaf,
    /// Apache Kafka Streams 4.4, through `benches/kstreams/target/kstreams-bench.jar`.
    KafkaStreams,
    /// The raw rdkafka consume→produce loop (`bench-ceiling`); stateless workload only.
    Ceiling,
}

impl SystemKind {
    /// All systems, in report order.
    pub const ALL: [SystemKind; 3] = [
        SystemKind::Dekaf,
        SystemKind::KafkaStreams,
        SystemKind::Ceiling,
    ];

    /// Short name for command lines, topic names and reports: `dekaf`, `kstreams`, `ceiling`.
    pub fn tag(self) -> &'static str {
        match self {
            SystemKind::Dekaf => "dekaf",
            SystemKind::KafkaStreams => "kstreams",
            SystemKind::Ceiling => "ceiling",
        }
    }

    /// Whether the system implements `workload`.
    pub fn supports(self, workload: Workload) -> bool {
        match self {
            SystemKind::Ceiling => workload == Workload::Stateless,
            SystemKind::Dekaf | SystemKind::KafkaStreams => true,
        }
    }

    /// Whether the system restores stores (so has a restore rate).
    pub fn restores(self) -> bool {
        !matches!(self, SystemKind::Ceiling)
    }
}

impl std::str::FromStr for SystemKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "dekaf" | "dekaf-streams" => SystemKind::Dekaf,
            "kstreams" | "kafka-streams" => SystemKind::KafkaStreams,
            "ceiling" => SystemKind::Ceiling,
            _ => bail!("unknown system {s:?}; use dekaf, kstreams or ceiling"),
        })
    }
}

/// Where the systems' programs are.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// The `java` executable.
    pub java: String,
    /// Extra JVM options for Kafka Streams (e.g. `-Xmx1g`); empty = the JVM's defaults.
    pub java_opts: Vec<String>,
    /// The Kafka Streams benchmark jar.
    pub kstreams_jar: PathBuf,
    /// The directory holding `bench-ceiling` and `dekaf-bench-app`.
    pub bin_dir: PathBuf,
}

impl Launcher {
    /// The command line that runs `kind` with `args`.
    pub fn command(&self, kind: SystemKind, args: &SystemArgs) -> Command {
        let mut c = match kind {
            SystemKind::KafkaStreams => {
                let mut c = Command::new(&self.java);
                c.args(&self.java_opts).arg("-jar").arg(&self.kstreams_jar);
                c
            }
            SystemKind::Ceiling => Command::new(self.bin_dir.join("bench-ceiling")),
            // The dekaf-streams slot: same contract as the others.
            SystemKind::Dekaf => Command::new(self.bin_dir.join("dekaf-bench-app")),
        };
        c.args(args.to_args());
        c
    }

    /// Fails with what to do when a system's program is missing.
    pub fn check(&self, kind: SystemKind) -> Result<()> {
        let (path, how) = match kind {
            SystemKind::KafkaStreams => {
                (self.kstreams_jar.clone(), "run benches/kstreams/build.sh")
            }
            SystemKind::Ceiling => (
                self.bin_dir.join("bench-ceiling"),
                "cargo build --release -p dekaf-streams-benches",
            ),
            SystemKind::Dekaf => (
                self.bin_dir.join("dekaf-bench-app"),
                "cargo build --release -p dekaf-streams-benches",
            ),
        };
        if !path.exists() {
            bail!("{} not found: {how}", path.display());
        }
        Ok(())
    }
}

/// One JSON event line a system printed.
pub type Event = serde_json::Value;

/// A running system process, its events and its resource use.
pub struct Running {
    child: Child,
    events: Receiver<Event>,
    peak: Arc<Mutex<ProcSample>>,
    stop_sampler: Arc<AtomicBool>,
    log: PathBuf,
    /// When the process was started.
    pub started: Instant,
}

/// Samples `pid` into `latest`, keeping the highest anonymous RSS of all its samples: the new
/// sample, or `None` for a zombie (it has no VmHWM; the last live sample stays). Fails once the
/// process is gone.
fn sample_into(latest: &Mutex<ProcSample>, pid: u32) -> Result<Option<ProcSample>> {
    let mut x = sample(pid)?;
    if x.peak_rss_bytes == 0 {
        return Ok(None);
    }
    let mut latest = latest
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    x.anon_rss_bytes = x.anon_rss_bytes.max(latest.anon_rss_bytes);
    *latest = x;
    Ok(Some(x))
}

impl Running {
    /// Starts `cmd`; its stderr and non-event stdout go to `log`.
    pub fn spawn(mut cmd: Command, log: &Path) -> Result<Self> {
        let mut log_file =
            File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
        writeln!(log_file, "$ {cmd:?}")?;
        let err = log_file.try_clone()?;
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err))
            .spawn()
            .with_context(|| format!("cannot start {cmd:?}"))?;
        let started = Instant::now();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("no stdout pipe"))?;
        let (tx, events) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                match serde_json::from_str::<Event>(&line) {
                    Ok(ev) if ev.get("event").is_some() => {
                        let _ = writeln!(log_file, "{line}");
                        let _ = tx.send(ev);
                    }
                    _ => {
                        let _ = writeln!(log_file, "{line}");
                    }
                }
            }
        });
        let peak = Arc::new(Mutex::new(ProcSample::default()));
        let stop_sampler = Arc::new(AtomicBool::new(false));
        let (p, s, pid) = (peak.clone(), stop_sampler.clone(), child.id());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if sample_into(&p, pid).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Ok(Self {
            child,
            events,
            peak,
            stop_sampler,
            log: log.to_owned(),
            started,
        })
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The latest resource sample (peak RSS and CPU seconds so far).
    pub fn resources(&self) -> ProcSample {
        if let Ok(Some(s)) = sample_into(&self.peak, self.pid()) {
            return s;
        }
        *self
            .peak
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Fails if the process has exited, naming its log.
    pub fn check_alive(&mut self) -> Result<()> {
        if let Some(status) = self.child.try_wait()? {
            bail!(
                "the process exited early ({status}); see {}",
                self.log.display()
            );
        }
        Ok(())
    }

    /// Waits up to `timeout` for an event named `name`; an `error` event fails.
    pub fn wait_event(&mut self, name: &str, timeout: Duration) -> Result<Event> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                bail!(
                    "no {name:?} event within {timeout:?}; see {}",
                    self.log.display()
                );
            }
            if let Some(ev) = self.poll_event(name, left.min(Duration::from_millis(200)))? {
                return Ok(ev);
            }
        }
    }

    /// Waits for the first `running` event of any of `instances` (processes of one system),
    /// up to `timeout`; an `error` event or an early exit of any of them fails.
    pub fn wait_first_running(instances: &mut [Running], timeout: Duration) -> Result<Event> {
        let deadline = Instant::now() + timeout;
        let slice = Duration::from_millis(20);
        loop {
            for r in instances.iter_mut() {
                if let Some(ev) = r.poll_event("running", slice)? {
                    return Ok(ev);
                }
            }
            if Instant::now() > deadline {
                let logs: Vec<String> = instances
                    .iter()
                    .map(|r| r.log.display().to_string())
                    .collect();
                bail!(
                    "no \"running\" event within {timeout:?}; see {}",
                    logs.join(", ")
                );
            }
        }
    }

    /// Sends SIGTERM (if it still runs) without waiting: the start of a clean stop, so that
    /// several instances stop together rather than hand their tasks to each other in turn.
    pub fn terminate(&mut self) -> Result<()> {
        if self.child.try_wait()?.is_none() {
            let pid = libc::pid_t::try_from(self.pid())?;
            // SAFETY: kill has no memory-safety preconditions; pid is our own child.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        Ok(())
    }

    /// Waits up to `wait` for the next event: `Some` if it is `name`, `None` on another event or
    /// none in time; an `error` event or the process's end fails.
    fn poll_event(&mut self, name: &str, wait: Duration) -> Result<Option<Event>> {
        match self.events.recv_timeout(wait) {
            Ok(ev) if ev["event"] == name => Ok(Some(ev)),
            Ok(ev) if ev["event"] == "error" => {
                bail!(
                    "the system reported an error: {}; see {}",
                    ev["message"],
                    self.log.display()
                )
            }
            Ok(_) | Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait()?;
                bail!(
                    "the process ended ({status}) before {name:?}; see {}",
                    self.log.display()
                );
            }
        }
    }

    /// Sends SIGTERM, waits up to `grace` (then SIGKILL); returns the last resource sample.
    pub fn stop(mut self, grace: Duration) -> Result<(ProcSample, ExitStatus)> {
        let last = self.resources();
        self.terminate()?;
        let deadline = Instant::now() + grace;
        let status = loop {
            if let Some(s) = self.child.try_wait()? {
                break s;
            }
            if Instant::now() > deadline {
                self.child.kill()?;
                break self.child.wait()?;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        self.stop_sampler.store(true, Ordering::Relaxed);
        Ok((last, status))
    }

    /// Waits for the process to exit by itself within `timeout` (then kills it).
    pub fn wait_exit(mut self, timeout: Duration) -> Result<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(s) = self.child.try_wait()? {
                self.stop_sampler.store(true, Ordering::Relaxed);
                return Ok(s);
            }
            if Instant::now() > deadline {
                self.child.kill()?;
                self.stop_sampler.store(true, Ordering::Relaxed);
                return Ok(self.child.wait()?);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop_sampler.store(true, Ordering::Relaxed);
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
