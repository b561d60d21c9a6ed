//! The LMDB store against the in-memory one, side by side in one run: loading keys, random
//! point reads, count updates (get, add one, put) with a flush every 10,000 updates (about what a
//! 100 ms commit interval sees), resident memory, and the restore rate from a changelog topic on
//! the broker (the runtime's own restore loop into each backend).
//!
//! ```text
//! cargo run --release -p dekaf-streams-benches --bin bench-state -- [--keys 1m] [--restore 1m]
//!     [--bootstrap 127.0.0.1:$DEKAF_KAFKA_PORT] [--dir /tmp/bench-state]
//!     [--flushes 10k,50k,100k] [--repeat 3]
//! ```
//!
//! `--restore 0` skips the broker part. Prints a markdown table, the random update pass
//! taken apart (time in the updates against time in the flushes, bytes written per update), and
//! the random update pass of the memory backend, the LMDB backend and LMDB driven directly
//! through heed, at each `--flushes` size, `--repeat` rounds taking turns (medians; `0` skips).
//!
//! # Why LMDB's random update pass is far behind memory (4 December 2026)
//!
//! The heed passes drive LMDB with no backend code in between: an environment with the
//! backend's flags ([`open_raw_env`]), the same keys (with the backend's `0x00` prefix) loaded
//! in the same transactions, the same update order, one write transaction per flush. *Arrival
//! order*: each update a get and a put in the transaction as it comes, what an application on
//! LMDB alone would do. *Key order*: each flush's updates sorted first, gets included (a
//! bound no store reaches: it must answer a get when asked). `--keys 1m --restore 0`, 2-core
//! machine, load average 2.42 before, 1.33 after (quiet), medians of 3 rounds:
//!
//! | pass | per flush | updates/s | / memory | / heed arrival | update ns | flush ns | bytes written per update |
//! |---|---:|---:|---:|---:|---:|---:|---:|
//! | memory backend | 10k | 1,549k | 1.00x | | 645 | 0 | 0 |
//! | LMDB backend | 10k | 142k | 0.09x | 0.95x | 1,566 | 5,456 | 2,500 |
//! | heed, arrival order | 10k | 150k | 0.10x | 1.00x | 2,283 | 4,421 | 2,499 |
//! | heed, key order | 10k | 174k | 0.11x | 1.16x | 1,426 | 4,378 | 2,498 |
//! | heed, key order, `WRITE_MAP` | 10k | 195k | 0.13x | 1.30x | 1,987 | 3,141 | 2,502 |
//! | LMDB backend | 50k | 314k | 0.20x | 0.85x | 1,380 | 1,773 | 736 |
//! | heed, arrival order | 50k | 369k | 0.23x | 1.00x | 1,656 | 1,060 | 736 |
//! | heed, key order, `WRITE_MAP` | 50k | 622k | 0.39x | 1.69x | 790 | 805 | 736 |
//! | LMDB backend | 100k | 415k | 0.25x | 0.85x | 1,417 | 999 | 369 |
//! | heed, arrival order | 100k | 490k | 0.30x | 1.00x | 1,479 | 568 | 369 |
//! | heed, key order | 100k | 896k | 0.54x | 1.83x | 538 | 578 | 369 |
//! | heed, key order, `WRITE_MAP` | 100k | 1,007k | 0.61x | 2.05x | 578 | 416 | 369 |
//!
//! (Heed, key order at 50k: 569k/s. Memory at 50k and 100k: 1,609k and 1,648k/s. Update ns
//! of the backend: the get and the put into its pending writes; of heed: the get and the put in
//! the transaction. Flush ns of the backend: the pending writes into LMDB and the commit; of
//! heed: the commit alone. Bytes: `wchar`, or `write_bytes` with `WRITE_MAP`, see [`Io`].)
//!
//! - **The gap is LMDB's.** LMDB alone, updating as the updates come, makes 150k/s at 10,000
//!   updates per flush against memory's 1,549k (0.10x); the backend is 0.95x of it. Most of
//!   the time is the commit: 4.4 µs of heed's 6.7 µs per update.
//! - **The commit writes what copy-on-write must.** 1M keys of 18 + 8 bytes fill 8,929 leaf
//!   pages (depth 3, 63 branch pages); 10,000 random updates touch 8,929 × (1 − e^(−10,000 /
//!   8,929)) ≈ 6,000 of them, and the commit writes each touched page once: 0.61 pages, 2,500
//!   bytes per update, as measured. With more updates per flush, more of them share a page:
//!   736 bytes at 50k, 369 at 100k (each leaf page once), and LMDB alone reaches 0.23x and
//!   0.30x of memory. (This doc said "about one page per update, 7,990 bytes" before: that was
//!   `write_bytes`, which over-counts LMDB's `writev`s about 3x on this kernel, see [`Io`].)
//! - **What the backend adds**, 5% at 10k and 15% at 50k and 100k: its pending writes (a hash
//!   lookup and insert per update) and, at the flush, a sort and a second descent of the
//!   B-tree per key, where heed in arrival order puts while the page is still cached from its
//!   get. `perf` of the backend's pass: most of its time is the random descent of a get
//!   (`LmdbBackend::stored` → `mdb_get`: `mdb_node_search`, `mdb_page_search`, `memcmp`),
//!   which heed in arrival order pays too. The pending writes are what keeps LMDB's write
//!   transaction (bound to the thread that began it) out of the commit interval and lets an
//!   aborted interval be dropped; only a store holding a write transaction open through the
//!   interval could take back that share, not the commit's.
//! - **`WRITE_MAP`** (without `MAP_ASYNC`, keeps the crash guarantee: see `store/lmdb/env.rs`)
//!   wrote the same pages and made the key-order pass 1.09x to 1.12x faster on this quiet run
//!   (its commit 28% shorter at 10k); on a loaded machine earlier the same day 0.91x to 1.06x,
//!   within the noise. Not adopted: a full disk would kill the process with `SIGBUS`.
//!
//! So the random update pass is bounded by LMDB's copy-on-write commit, about one written
//! page per distinct leaf page touched per flush; it gets closer to memory only with more
//! updates per flush (a longer commit interval) or sync flags that give up the
//! crash-consistency the recovery design relies on (`store/lmdb/env.rs`).

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use dekaf_streams::kafka::restore::{
    LogEnds, RestorePartition, StoreTarget, restore, restore_consumer,
};
use dekaf_streams::store::{LmdbBackend, MemoryBackend, StoreBackend, open_raw_env};
use dekaf_streams_benches::args::{Flags, parse_count};
use dekaf_streams_benches::kafka::{Admin, bootstrap_from_env, client_config};
use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, WithoutTls};
use rdkafka::Offset;
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;

const USAGE: &str = "usage: bench-state [--keys 1m] [--restore 1m] [--bootstrap host:port] \
     [--dir D] [--flushes 10k,50k,100k] [--repeat 3]";
const FLUSH_EVERY: usize = 10_000;
const CHANGELOG_PREFIX: &str = "bench-state-changelog";

/// Kibibytes of a `/proc/self/status` field.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|r| r.trim().trim_end_matches(" kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn key(out: &mut Vec<u8>, i: u64) {
    out.clear();
    let _ = write!(out, "user-{i:012}");
}

/// A fixed pseudo-random order of `0..n` (xorshift), the same for both backends.
fn order(n: u64) -> Vec<u64> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        })
        .collect()
}

/// Distinct keys of the hot-key update (a word-count vocabulary).
const HOT_KEYS: u64 = 2_000;

struct Figures {
    load_per_s: f64,
    get_per_s: f64,
    update_per_s: f64,
    hot_update_per_s: f64,
    anon_mib: u64,
    restore_per_s: Option<f64>,
    /// Where the random update pass spent its time and what it wrote.
    random: Breakdown,
}

/// The random update pass taken apart: the updates (get, add one, put) against the flushes
/// (the write transaction: pending writes into the B-tree, commit, `fdatasync`), and the bytes
/// the process wrote (see [`Io`]).
#[derive(Default, Clone, Copy)]
struct Breakdown {
    update_ns: f64,
    flush_ns: f64,
    /// `write_bytes` grown.
    written_bytes: u64,
    /// `wchar` grown.
    syscall_bytes: u64,
    flushes: u64,
}

/// Two counters of `/proc/self/io`.
///
/// - `wchar`: bytes passed to `write`-family calls. LMDB without `WRITE_MAP` writes each page
///   of a commit with `pwrite`/`writev`, so this is exactly what it writes (nothing else
///   writes during a pass); with `WRITE_MAP` it writes through the map and this stays 0.
/// - `write_bytes`: bytes of page cache this process dirtied, charged per folio as it turns
///   dirty. With `WRITE_MAP` it matches the pages LMDB writes (0.61 pages per update at 10,000
///   updates per flush, against 0.60 counted with `strace` of the `writev`s without it).
///   Without `WRITE_MAP` it over-counts about 3x on this machine (Linux 6.18, ext4): the kernel
///   caches the file in folios larger than LMDB's 4 KiB pages and charges a whole folio for a
///   page written into it.
#[derive(Clone, Copy)]
struct Io {
    write_bytes: u64,
    wchar: u64,
}

fn io() -> Io {
    let text = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    Io {
        write_bytes: field("write_bytes:"),
        wchar: field("wchar:"),
    }
}

impl Breakdown {
    fn wrote_since(&mut self, before: Io) {
        let now = io();
        self.written_bytes = now.write_bytes.saturating_sub(before.write_bytes);
        self.syscall_bytes = now.wchar.saturating_sub(before.wchar);
    }
}

fn per_second(n: usize, since: Instant) -> f64 {
    n as f64 / since.elapsed().as_secs_f64()
}

fn measure<B: StoreBackend>(store: &mut B, keys: u64, reads: &[u64]) -> Result<Figures> {
    let anon_before = status_kib("RssAnon:");
    let mut k = Vec::with_capacity(32);
    let started = Instant::now();
    for i in 0..keys {
        key(&mut k, i);
        store.put(&k, &0i64.to_be_bytes())?;
        if i as usize % FLUSH_EVERY == FLUSH_EVERY - 1 {
            store.flush()?;
        }
    }
    store.flush()?;
    let load_per_s = per_second(keys as usize, started);
    let anon_mib = status_kib("RssAnon:").saturating_sub(anon_before) / 1024;

    let started = Instant::now();
    let mut found = 0u64;
    for &i in reads {
        key(&mut k, i);
        found += u64::from(store.get(&k)?.is_some());
    }
    let get_per_s = per_second(reads.len(), started);
    if found != reads.len() as u64 {
        bail!("{found} of {} keys found", reads.len());
    }

    let (update_per_s, random) = count_updates(store, reads, |i| i, FLUSH_EVERY)?;
    let (hot_update_per_s, _) = count_updates(store, reads, |i| i % HOT_KEYS, FLUSH_EVERY)?;
    Ok(Figures {
        load_per_s,
        get_per_s,
        update_per_s,
        hot_update_per_s,
        anon_mib,
        restore_per_s: None,
        random,
    })
}

/// Count updates (get, add one, put) of the keys `key_of(i)` for `i` in `reads`, flushing every
/// `flush_every`; updates per second, and the time and bytes of updates and flushes.
fn count_updates<B: StoreBackend>(
    store: &mut B,
    reads: &[u64],
    key_of: impl Fn(u64) -> u64,
    flush_every: usize,
) -> Result<(f64, Breakdown)> {
    let mut k = Vec::with_capacity(32);
    let mut b = Breakdown::default();
    let written = io();
    let started = Instant::now();
    let mut flushing = Duration::ZERO;
    for (n, &i) in reads.iter().enumerate() {
        key(&mut k, key_of(i));
        let count = match store.get(&k)? {
            Some(v) => i64::from_be_bytes(v.try_into().context("an 8-byte count")?),
            None => 0,
        };
        store.put(&k, &(count + 1).to_be_bytes())?;
        if n % flush_every == flush_every - 1 {
            let t = Instant::now();
            store.flush()?;
            flushing += t.elapsed();
            b.flushes += 1;
        }
    }
    let t = Instant::now();
    store.flush()?;
    flushing += t.elapsed();
    b.flushes += 1;
    let total = started.elapsed();
    let n = reads.len() as f64;
    b.flush_ns = flushing.as_nanos() as f64 / n;
    b.update_ns = total.saturating_sub(flushing).as_nanos() as f64 / n;
    b.wrote_since(written);
    Ok((per_second(reads.len(), started), b))
}

/// LMDB alone, driven through heed with no code of the backend in between: an environment with
/// the backend's flags ([`open_raw_env`]; `MDB_WRITEMAP` added on request), the same keys as
/// the backend stores (its `0x00` prefix included), loaded in the same transactions.
struct Heed {
    env: Env<WithoutTls>,
    db: Database<'static, Bytes, Bytes>,
}

/// The key `i` as the LMDB backend stores it: `0x00`, then [`key`].
fn stored_key(out: &mut Vec<u8>, i: u64) {
    out.clear();
    out.push(0);
    let _ = write!(out, "user-{i:012}");
}

impl Heed {
    /// Opens a fresh environment in `dir` and loads `keys` counts of 0, [`FLUSH_EVERY`] keys
    /// per write transaction.
    fn load(dir: &std::path::Path, keys: u64, write_map: bool) -> Result<Self> {
        // Room for the keys many times over: the map of a direct pass does not grow.
        let map_size = (1usize << 30).max(usize::try_from(keys)? * 512);
        let env = open_raw_env(dir, map_size, write_map)?;
        let wtxn = env.write_txn()?;
        let db = env.create_databases_and_commit(wtxn, |opener, wtxn| {
            opener
                .create_database(wtxn, None)
                .map(CommitOrAbort::<_, ()>::Commit)
        })?;
        let CommitOrAbort::Commit(db) = db else {
            bail!("the database of {} was not created", dir.display());
        };
        let mut k = Vec::with_capacity(32);
        let mut wtxn = env.write_txn()?;
        for i in 0..keys {
            stored_key(&mut k, i);
            db.put(&mut wtxn, &k[..], &0i64.to_be_bytes()[..])?;
            if i as usize % FLUSH_EVERY == FLUSH_EVERY - 1 {
                wtxn.commit()?;
                wtxn = env.write_txn()?;
            }
        }
        wtxn.commit()?;
        Ok(Heed { env, db })
    }

    /// The random count updates of [`count_updates`] straight into LMDB, one write transaction
    /// per `flush_every` updates, each update a get and a put in the transaction, then its
    /// commit. `sorted`: the transaction applies its updates in key order, as the backend's
    /// flush does (the sort counted with the updates), so consecutive updates share pages
    /// already in the cache (a floor no store can reach: it must answer each get when asked);
    /// otherwise in arrival order, as an application using LMDB directly would. The
    /// breakdown's update time is the gets and puts (LMDB copying the pages it changes), its
    /// flush time the commits (writing the pages, `fdatasync` or `msync`).
    fn count_updates(
        &self,
        reads: &[u64],
        flush_every: usize,
        sorted: bool,
    ) -> Result<(f64, Breakdown)> {
        let mut k = Vec::with_capacity(32);
        let mut b = Breakdown::default();
        let mut batch = Vec::with_capacity(flush_every);
        let written = io();
        let started = Instant::now();
        let (mut updating, mut flushing) = (Duration::ZERO, Duration::ZERO);
        for chunk in reads.chunks(flush_every) {
            let t = Instant::now();
            batch.clear();
            batch.extend_from_slice(chunk);
            if sorted {
                batch.sort_unstable();
            }
            let mut wtxn = self.env.write_txn()?;
            for &i in &batch {
                stored_key(&mut k, i);
                let count = match self.db.get(&wtxn, &k[..])? {
                    Some(v) => i64::from_be_bytes(v.try_into().context("an 8-byte count")?),
                    None => 0,
                };
                self.db
                    .put(&mut wtxn, &k[..], &(count + 1).to_be_bytes()[..])?;
            }
            let c = Instant::now();
            updating += c - t;
            wtxn.commit()?;
            flushing += c.elapsed();
            b.flushes += 1;
        }
        let n = reads.len() as f64;
        b.update_ns = updating.as_nanos() as f64 / n;
        b.flush_ns = flushing.as_nanos() as f64 / n;
        b.wrote_since(written);
        Ok((per_second(reads.len(), started), b))
    }
}

/// Who runs a pass of the comparison.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    Memory,
    Backend,
    /// Updates in arrival order.
    HeedArrival,
    /// Updates in key order.
    Heed,
    /// Updates in key order, `MDB_WRITEMAP`.
    HeedWriteMap,
}

impl Who {
    const ALL: [Who; 5] = [
        Who::Memory,
        Who::Backend,
        Who::HeedArrival,
        Who::Heed,
        Who::HeedWriteMap,
    ];

    fn name(self) -> &'static str {
        match self {
            Who::Memory => "memory backend",
            Who::Backend => "LMDB backend",
            Who::HeedArrival => "heed, arrival order",
            Who::Heed => "heed, key order",
            Who::HeedWriteMap => "heed, key order, + WRITE_MAP",
        }
    }
}

/// The runs of one pass of the comparison: updates per second and breakdown of each.
struct Pass {
    who: Who,
    flush_every: usize,
    runs: Vec<(f64, Breakdown)>,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

impl Pass {
    fn median(&self, f: impl Fn(&(f64, Breakdown)) -> f64) -> f64 {
        median(self.runs.iter().map(f).collect())
    }
}

/// The system's load averages (`/proc/loadavg`'s first three fields).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The random update pass of memory, the LMDB backend and LMDB alone (heed, with and without
/// `WRITE_MAP`) at each flush size, in turns, `repeat` rounds; the table of the medians.
fn compare(
    memory: &mut MemoryBackend,
    backend: &mut LmdbBackend,
    dir: &std::path::Path,
    keys: u64,
    reads: &[u64],
    flushes: &[usize],
    repeat: usize,
) -> Result<String> {
    let mut out = String::new();
    let heed = Heed::load(&dir.join("heed"), keys, false)?;
    let heed_write_map = Heed::load(&dir.join("heed-write-map"), keys, true)?;
    let mut passes: Vec<Pass> = flushes
        .iter()
        .flat_map(|&flush_every| {
            Who::ALL.map(|who| Pass {
                who,
                flush_every,
                runs: Vec::new(),
            })
        })
        .collect();
    let shape = {
        let rtxn = heed.env.read_txn()?;
        let stat = heed.db.stat(&rtxn)?;
        format!(
            "depth {}, {} branch and {} leaf pages of {} bytes",
            stat.depth, stat.branch_pages, stat.leaf_pages, stat.page_size
        )
    };
    let load_before = load_average();
    for _ in 0..repeat {
        for pass in &mut passes {
            let run = match pass.who {
                Who::Memory => count_updates(memory, reads, |i| i, pass.flush_every)?,
                Who::Backend => count_updates(backend, reads, |i| i, pass.flush_every)?,
                Who::HeedArrival => heed.count_updates(reads, pass.flush_every, false)?,
                Who::Heed => heed.count_updates(reads, pass.flush_every, true)?,
                Who::HeedWriteMap => heed_write_map.count_updates(reads, pass.flush_every, true)?,
            };
            pass.runs.push(run);
        }
    }
    writeln!(
        out,
        "\nRandom count updates over all {keys} keys: the backends against LMDB driven directly \
         (heed), medians of {repeat} rounds taking turns; load average {load_before} before, {} \
         after. Update ns: get + put (backend: into its pending writes; heed: in the write \
         transaction); flush ns: the flush's share (backend: pending writes into LMDB + commit; \
         heed: the commit alone). LMDB's B-tree after the load: {shape}.\n",
        load_average()
    )?;
    writeln!(
        out,
        "| pass | updates per flush | updates/s | / memory | / heed arrival | update ns | flush ns | \
         bytes per update: write calls (wchar) | : dirtied (write_bytes) | updates/s of each round |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")?;
    let rate = |p: &Pass| p.median(|r| r.0);
    for pass in &passes {
        let same = |who: Who| {
            passes
                .iter()
                .find(|p| p.who == who && p.flush_every == pass.flush_every)
                .map_or(f64::NAN, rate)
        };
        let n = reads.len() as f64;
        let dirtied = pass.median(|r| r.1.written_bytes as f64 / n);
        let syscalls = pass.median(|r| r.1.syscall_bytes as f64 / n);
        let rounds: Vec<String> = pass
            .runs
            .iter()
            .map(|r| format!("{:.0}k", r.0 / 1e3))
            .collect();
        writeln!(
            out,
            "| {} | {} | {:.0}k | {:.2}x | {:.2}x | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            pass.who.name(),
            pass.flush_every,
            rate(pass) / 1e3,
            rate(pass) / same(Who::Memory),
            rate(pass) / same(Who::HeedArrival),
            pass.median(|r| r.1.update_ns),
            pass.median(|r| r.1.flush_ns),
            syscalls,
            dirtied,
            rounds.join(" "),
        )?;
    }
    Ok(out)
}

/// Writes `n` changelog records (distinct keys, 8-byte values) to a fresh one-partition topic.
fn write_changelog(bootstrap: &str, topic: &str, n: u64) -> Result<()> {
    let admin = Admin::new(bootstrap)?;
    let topics = [topic.to_owned()];
    admin.create_topics(&topics, 1)?;
    admin.wait_for_topics(&topics, 1)?;
    let producer: ThreadedProducer<DefaultProducerContext> = client_config(bootstrap)
        .set("linger.ms", "5")
        .set("batch.size", "1000000")
        .set("queue.buffering.max.messages", "1000000")
        .create()
        .context("cannot create the producer")?;
    let mut k = Vec::with_capacity(32);
    for i in 0..n {
        key(&mut k, i);
        let value = (i as i64).to_be_bytes();
        let mut record: BaseRecord<'_, [u8], [u8]> =
            BaseRecord::to(topic).key(&k[..]).payload(&value[..]);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((e, back)) if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull) => {
                    record = back;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err((e, _)) => bail!("producing the changelog failed: {e}"),
            }
        }
    }
    producer
        .flush(Duration::from_secs(120))
        .context("the changelog was not acknowledged")?;
    Ok(())
}

/// Restores the changelog into `store` with the runtime's restore loop; records per second.
fn restore_into<B: StoreBackend>(
    bootstrap: &str,
    topic: &str,
    store: &mut B,
    n: u64,
) -> Result<f64> {
    let mut config = client_config(bootstrap);
    config
        .set("group.id", "bench-state")
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed");
    let consumer = restore_consumer(&config, Default::default()).context("restore consumer")?;
    let ends = LogEnds::new(&config, Default::default()).context("end-offsets client")?;
    let partitions = [RestorePartition {
        topic: topic.to_owned(),
        partition: 0,
        from: Offset::Beginning,
        until: None,
    }];
    let started = Instant::now();
    let never_stop = std::sync::atomic::AtomicBool::new(false);
    // The store records the restore's progress as a task's stores do (`RestoreTarget::checkpoint`),
    // so the rate includes those flushes.
    let summary = restore(
        &consumer,
        Some(&ends),
        &partitions,
        Duration::from_secs(600),
        &never_stop,
        StoreTarget(store),
    )?;
    store.flush()?;
    let rate = per_second(summary.records as usize, started);
    if summary.records != n {
        bail!("restored {} of {n} records", summary.records);
    }
    Ok(rate)
}

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let keys = parse_count(f.get("keys").unwrap_or("1m"))?;
    let restore_n = parse_count(f.get("restore").unwrap_or("1m"))?;
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let dir = std::path::PathBuf::from(f.get("dir").unwrap_or("/tmp/dekaf-bench-state"));
    let _ = std::fs::remove_dir_all(&dir);
    let flushes = f
        .get("flushes")
        .unwrap_or("10k,50k,100k")
        .split(',')
        .map(|n| parse_count(n).map(|n| n.max(1) as usize))
        .collect::<Result<Vec<_>>>()?;
    let repeat = f.parse_or("repeat", 3usize)?;
    let reads = order(keys);

    let mut memory = MemoryBackend::new();
    let mut mem = measure(&mut memory, keys, &reads)?;
    let mut lmdb_store = LmdbBackend::open(&dir.join("measure"))?;
    let mut lmdb = measure(&mut lmdb_store, keys, &reads)?;
    let comparison = if repeat > 0 {
        Some(compare(
            &mut memory,
            &mut lmdb_store,
            &dir,
            keys,
            &reads,
            &flushes,
            repeat,
        )?)
    } else {
        None
    };
    drop(memory);
    drop(lmdb_store);

    if restore_n > 0 {
        let topic = format!("{CHANGELOG_PREFIX}-{}", std::process::id());
        write_changelog(&bootstrap, &topic, restore_n)?;
        let mut memory = MemoryBackend::new();
        mem.restore_per_s = Some(restore_into(&bootstrap, &topic, &mut memory, restore_n)?);
        drop(memory);
        let mut store = LmdbBackend::open(&dir.join("restore"))?;
        lmdb.restore_per_s = Some(restore_into(&bootstrap, &topic, &mut store, restore_n)?);
        for warning in Admin::new(&bootstrap)?.clean_up(&topic, &[]) {
            eprintln!("clean-up: {warning}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);

    let k = |x: f64| format!("{:.0}k", x / 1_000.0);
    let ratio = |l: f64, m: f64| format!("{:.2}x", l / m);
    println!(
        "{keys} keys, {} reads/updates, flush every {FLUSH_EVERY}; restore of {restore_n} records\n",
        reads.len()
    );
    println!("| per second | memory | LMDB | LMDB / memory |");
    println!("|---|---:|---:|---:|");
    println!(
        "| load (put new keys) | {} | {} | {} |",
        k(mem.load_per_s),
        k(lmdb.load_per_s),
        ratio(lmdb.load_per_s, mem.load_per_s)
    );
    println!(
        "| random get | {} | {} | {} |",
        k(mem.get_per_s),
        k(lmdb.get_per_s),
        ratio(lmdb.get_per_s, mem.get_per_s)
    );
    println!(
        "| count update, random over all keys | {} | {} | {} |",
        k(mem.update_per_s),
        k(lmdb.update_per_s),
        ratio(lmdb.update_per_s, mem.update_per_s)
    );
    println!(
        "| count update, {HOT_KEYS} hot keys | {} | {} | {} |",
        k(mem.hot_update_per_s),
        k(lmdb.hot_update_per_s),
        ratio(lmdb.hot_update_per_s, mem.hot_update_per_s)
    );
    if let (Some(m), Some(l)) = (mem.restore_per_s, lmdb.restore_per_s) {
        println!(
            "| restore from changelog | {} | {} | {} |",
            k(m),
            k(l),
            ratio(l, m)
        );
    }
    println!(
        "\nAnonymous memory grown while loading: memory {} MiB, LMDB {} MiB.",
        mem.anon_mib, lmdb.anon_mib
    );
    println!("\nRandom update pass per update (get, add one, put; then the flushes' share):\n");
    println!("| per update | memory | LMDB |");
    println!("|---|---:|---:|");
    let row = |name: &str, f: &dyn Fn(&Breakdown) -> String| {
        println!("| {name} | {} | {} |", f(&mem.random), f(&lmdb.random));
    };
    row("update (get + put) ns", &|b| format!("{:.0}", b.update_ns));
    row("flush share ns", &|b| format!("{:.0}", b.flush_ns));
    let updates = reads.len() as f64;
    row("bytes passed to write calls (wchar)", &|b| {
        format!("{:.0}", b.syscall_bytes as f64 / updates)
    });
    row("bytes dirtied (write_bytes)", &|b| {
        format!("{:.0}", b.written_bytes as f64 / updates)
    });
    row("4 KiB pages written (wchar)", &|b| {
        format!("{:.2}", b.syscall_bytes as f64 / updates / 4096.0)
    });
    row("flushes (write transactions)", &|b| b.flushes.to_string());
    if let Some(comparison) = comparison {
        print!("{comparison}");
    }
    Ok(())
}
