//! Resource use of a process from `/proc`, and a description of this machine.

use anyhow::{Context, Result};

/// One sample of a process's resource use.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcSample {
    /// Peak resident set size so far (`VmHWM`), bytes.
    pub peak_rss_bytes: u64,
    /// Anonymous resident memory now (`RssAnon`: heap, stacks, what the process allocated
    /// itself; not the pages of files it maps, such as LMDB's, which the kernel may drop and
    /// read again), bytes. [`Running`](crate::systems::Running)'s sampler keeps its peak.
    pub anon_rss_bytes: u64,
    /// CPU time used so far (user + system), seconds.
    pub cpu_seconds: f64,
    /// Bytes the process caused to be written to storage so far (`write_bytes` of
    /// `/proc/<pid>/io`, counted when pages are dirtied: `write()` and shared file mappings
    /// alike); 0 where the kernel does not account it.
    pub disk_write_bytes: u64,
}

/// Reads `/proc/<pid>/status` and `/proc/<pid>/stat`; fails once the process is gone.
pub fn sample(pid: u32) -> Result<ProcSample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("process {pid} is gone"))?;
    let kib = |field: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let peak_kib = kib("VmHWM:");
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("process {pid} is gone"))?;
    // Fields after the command name (which may hold spaces) start at field 3 (state);
    // utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let disk_write_bytes = std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|io| {
            io.lines()
                .find_map(|l| l.strip_prefix("write_bytes:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    Ok(ProcSample {
        peak_rss_bytes: peak_kib * 1024,
        anon_rss_bytes: kib("RssAnon:") * 1024,
        cpu_seconds: (ticks(11) + ticks(12)) as f64 / hz,
        disk_write_bytes,
    })
}

/// The CPU model and the number of cores this process may use, e.g. `AMD EPYC, 2 cores`.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0.0, |kib| kib as f64 / (1024.0 * 1024.0));
    format!("{model}, {cores} cores, {mem_gib:.0} GiB RAM")
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), e.g. `0.52 0.40 0.31`: other work
/// on the machine skews the figures, so the report names it.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn samples_itself() {
        let s = super::sample(std::process::id()).expect("own process");
        assert!(s.peak_rss_bytes > 0);
        assert!(!super::machine().is_empty());
    }
}
