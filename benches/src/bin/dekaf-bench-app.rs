//! **dekaf-streams in the end-to-end benchmarks.**
//!
//! The driver (`bench --systems dekaf,kstreams,ceiling --fixed-names true`) runs this binary
//! exactly as it runs the Kafka Streams jar: same flags ([`SystemArgs`]), JSON event lines on
//! stdout, a clean stop on SIGTERM or after `--max-seconds`. The contract is in
//! `benches/WORKLOADS.md` ("System command line").
//!
//! `topology!` names topics at compile time, so this binary runs the fixed names the driver
//! uses with `--fixed-names true`: application `dkb-<workload>`, input `dkb-<workload>-<topic>`,
//! output `dkb-<workload>-out`. It refuses other names.
//!
//! Progress (`running`, `restored`) is read from the runtime's metrics through a small
//! recorder: tasks owned, records restored and restore time.
//!
//! The Avro word count reads and writes through the schema registry at `--registry-url`: one
//! [`SchemaRegistry`] per instance, given to it as serde state.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{Avro, RegistryConfig, SchemaRegistry};
use dekaf_streams::{KafkaStreams, ProcessingGuarantee, shutdown_signal};
use dekaf_streams_benches::args::{Flags, Mode, SystemArgs, emit_event};
use dekaf_streams_benches::avro::{Sentence, WordCount as WordCountRecord};
use dekaf_streams_benches::workload::{Guarantee, Workload};
use metrics::{
    Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit as MetricUnit,
};
use serde_json::json;

const USAGE: &str = "usage: dekaf-bench-app --workload stateless|wordcount|window|join|streamjoin|session|tablejoin|fkjoin|cogroup|versionedjoin|avro_wordcount|largestate[-zipf|-uniform-<keys>] \
--guarantee exactly_once|at_least_once --app-id ID --input-prefix P --output-topic T \
[--bootstrap 127.0.0.1:9092] [--threads 1] [--commit-interval-ms 100] [--linger-ms 5] \
[--batch-size 16384] [--state-dir DIR] [--max-seconds 600] [--mode run|restore] \
[--registry-url http://127.0.0.1:8480/apis/ccompat/v7 (avro_wordcount)]";

/// The record cache: Kafka Streams' default `statestore.cache.max.bytes`, which the Kafka
/// Streams application sets explicitly too.
const CACHE_MAX_BYTES: usize = 10 * 1024 * 1024;

topology! {
    /// `stateless`: drop multiples of 5, double the rest.
    pub Stateless = "dkb-stateless" {
        stream("dkb-stateless-numbers", Utf8, I64)
            .filter(|_key, v| v % 5 != 0)
            .map_values(|v| v * 2)
            .to("dkb-stateless-out", Utf8, I64);
    }
}

topology! {
    /// `wordcount`: count words through the repartition topic `words` into the store `counts`.
    pub WordCount = "dkb-wordcount" {
        stream("dkb-wordcount-sentences", Unit, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .select_key(|_key, word| word.clone())
            .repartition("words", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .to_stream()
            .to("dkb-wordcount-out", Utf8, I64);
    }
}

topology! {
    /// `window`: counts per key in tumbling 10 s windows (24 h grace), keyed `<key>@<start>`.
    pub WindowCount = "dkb-window" {
        stream("dkb-window-events", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(10)).grace(Duration::from_secs(86400)))
            .count("window-counts")
            .to_stream()
            .map(|key, count| (format!("{}@{}", key.key, key.window.start), count))
            .to("dkb-window-out", Utf8, I64);
    }
}

topology! {
    /// `join`: clicks joined with the users table (its changelog is its topic).
    pub Join = "dkb-join" {
        let users = table("dkb-join-users", Utf8, Utf8, "users");
        stream("dkb-join-clicks", Utf8, Utf8)
            .join(users, |page, region| format!("{page}@{region}"))
            .to("dkb-join-out", Utf8, Utf8);
    }
}

topology! {
    /// `versionedjoin`: orders joined with the price valid at their timestamp, from a versioned
    /// table (history one hour; its changelog is its topic).
    pub VersionedJoin = "dkb-versionedjoin" {
        let prices = table("dkb-versionedjoin-prices", Utf8, Utf8, "prices")
            .versioned(Duration::from_hours(1));
        stream("dkb-versionedjoin-orders", Utf8, Utf8)
            .join(prices, |order, price| format!("{order}@{price}"))
            .to("dkb-versionedjoin-out", Utf8, Utf8);
    }
}

topology! {
    /// `streamjoin`: orders joined with payments at most 1 minute apart (24 h grace, so no
    /// record of a run is late and the result does not depend on processing order).
    pub StreamJoin = "dkb-streamjoin" {
        let payments = stream("dkb-streamjoin-payments", Utf8, Utf8);
        stream("dkb-streamjoin-orders", Utf8, Utf8)
            .join(
                payments,
                |order, payment| format!("{order}+{payment}"),
                join_window(Duration::from_mins(1)).grace(Duration::from_hours(24)),
            )
            .to("dkb-streamjoin-out", Utf8, Utf8);
    }
}

topology! {
    /// `session`: counts per key in sessions of 1 s inactivity (24 h grace), keyed
    /// `<key>@<session start>` (merged-away sessions' tombstones do not pass the map).
    pub SessionCount = "dkb-session" {
        stream("dkb-session-clicks", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_secs(1)).grace(Duration::from_secs(86400)))
            .count("session-counts")
            .to_stream()
            .map(|key, count| (format!("{}@{}", key.key, key.window.start), count))
            .to("dkb-session-out", Utf8, I64);
    }
}

topology! {
    /// `tablejoin`: the inner join of two tables, both updated throughout the run (each table's
    /// changelog is its topic); every change of the result goes out.
    pub TableJoin = "dkb-tablejoin" {
        let right = table("dkb-tablejoin-right", Utf8, Utf8, "right");
        table("dkb-tablejoin-left", Utf8, Utf8, "left")
            .join(right, |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream()
            .to("dkb-tablejoin-out", Utf8, Nullable::<Utf8>);
    }
}

topology! {
    /// `largestate`: counts per key over a large key space (1 or 10 million keys), the store on
    /// disk (LMDB) whatever `DEKAF_BENCH_STORE` says, as Kafka Streams' is in RocksDB.
    pub LargeState = "dkb-largestate" {
        stream("dkb-largestate-events", Utf8, Utf8)
            .group_by_key()
            .count("big-counts")
            .to_stream()
            .to("dkb-largestate-out", Utf8, I64);
    }
}

topology! {
    /// `fkjoin`: the inner foreign-key join of orders (a value `c-12|<i>` names its customer)
    /// with customers, both tables updated throughout the run (their changelogs are their
    /// topics); the join is named `by-customer`, as Kafka Streams' `TableJoined.as`.
    pub FkJoin = "dkb-fkjoin" {
        let customers = table("dkb-fkjoin-customers", Utf8, Utf8, "customers");
        table("dkb-fkjoin-orders", Utf8, Utf8, "orders")
            .join_on_foreign_key(
                customers,
                |order: &String| order.split('|').next().unwrap_or_default().to_owned(),
                |order: &String, customer: &String| format!("{order}+{customer}"),
                "by-customer",
            )
            .to_stream()
            .to("dkb-fkjoin-out", Utf8, Nullable::<Utf8>);
    }
}

topology! {
    /// `cogroup`: clicks and views of each user, both grouped by key, cogrouped into one
    /// engagement score (a click adds 1, a view its duration in seconds) in store `scores`.
    pub Cogroup = "dkb-cogroup" {
        let views = stream("dkb-cogroup-views", Utf8, Utf8).group_by_key();
        stream("dkb-cogroup-clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_user, _page: String, score: i64| score + 1)
            .cogroup(views, |_user, seconds: String, score: i64| {
                score + seconds.parse::<i64>().unwrap_or(0)
            })
            .aggregate("scores", || 0i64, I64)
            .to_stream()
            .to("dkb-cogroup-out", Utf8, I64);
    }
}

topology! {
    /// `avro_wordcount`: `wordcount` over Avro `Sentence` records, writing Avro `WordCount`
    /// records, both through the schema registry (subjects `<topic>-value`); the repartition
    /// topic and the store stay in `Utf8`/`I64`, as Kafka Streams' side keeps them.
    pub AvroWordCount = "dkb-avro_wordcount" {
        stream("dkb-avro_wordcount-sentences", Unit, Avro::<Sentence>)
            .flat_map_values(|s| s.text.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .select_key(|_key, word| word.clone())
            .repartition("words", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .to_stream()
            .map(|word, count| (word.clone(), WordCountRecord { word, count }))
            .to("dkb-avro_wordcount-out", Utf8, Avro::<WordCountRecord>);
    }
}

fn main() -> ExitCode {
    let result = Flags::parse(std::env::args().skip(1), USAGE)
        .and_then(|f| SystemArgs::from_flags(&f))
        .and_then(|args| run_workload(&args));
    match result {
        Ok(()) => {
            emit_event("stopped", json!({}));
            ExitCode::SUCCESS
        }
        Err(e) => {
            emit_event("error", json!({ "message": format!("{e:#}") }));
            eprintln!("dekaf-bench-app: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `args.workload` with dekaf-streams until SIGTERM or `args.max_seconds` (or, in restore
/// mode, until every store is restored).
fn run_workload(args: &SystemArgs) -> Result<()> {
    let name = args.workload.name();
    let app = format!("dkb-{name}");
    if args.app_id != app || args.input_prefix != app || args.output_topic != format!("{app}-out") {
        bail!(
            "dekaf-streams topologies name their topics at compile time: run the driver with \
             --fixed-names true (app id {app}, input prefix {app}, output {app}-out)"
        );
    }
    let progress = Progress::default();
    metrics::set_global_recorder(progress.clone()).context("installing the metrics recorder")?;
    // Warnings and errors of the runtime go to stderr, which the driver keeps as the system's log.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rdkafka=warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting tokio")?;
    runtime.block_on(async {
        match args.workload {
            Workload::Stateless => run(Stateless, args, &progress, None, false).await,
            Workload::WordCount => run(WordCount, args, &progress, None, false).await,
            Workload::Window => run(WindowCount, args, &progress, None, false).await,
            Workload::Join => run(Join, args, &progress, None, false).await,
            Workload::StreamJoin => run(StreamJoin, args, &progress, None, false).await,
            Workload::Session => run(SessionCount, args, &progress, None, false).await,
            Workload::TableJoin => run(TableJoin, args, &progress, None, false).await,
            Workload::FkJoin => run(FkJoin, args, &progress, None, false).await,
            Workload::Cogroup => run(Cogroup, args, &progress, None, false).await,
            Workload::VersionedJoin => run(VersionedJoin, args, &progress, None, false).await,
            Workload::LargeState(_) => run(LargeState, args, &progress, None, true).await,
            Workload::AvroWordCount => {
                let url = args.registry_url.as_deref().context(
                    "avro_wordcount needs --registry-url (the registry's Confluent API)",
                )?;
                let registry = SchemaRegistry::new(RegistryConfig::new(url));
                run(AvroWordCount, args, &progress, Some(registry), false).await
            }
        }
    })
}

/// Runs `topology` as the driver asks; `registry` is the instance's schema registry (serde
/// state) for a topology with registry serdes; `on_disk` keeps the stores in LMDB whatever
/// `DEKAF_BENCH_STORE` says.
async fn run<T: Topology>(
    topology: T,
    args: &SystemArgs,
    progress: &Progress,
    registry: Option<SchemaRegistry>,
    on_disk: bool,
) -> Result<()> {
    let guarantee = match args.guarantee {
        Guarantee::ExactlyOnce => ProcessingGuarantee::ExactlyOnce,
        Guarantee::AtLeastOnce => ProcessingGuarantee::AtLeastOnce,
    };
    let mut builder = KafkaStreams::builder(topology)
        .bootstrap_servers(&args.bootstrap)
        .threads(args.knobs.threads as usize)
        .processing_guarantee(guarantee)
        .commit_interval(Duration::from_millis(args.knobs.commit_interval_ms))
        // Kafka Streams' default record cache (statestore.cache.max.bytes), set on both sides.
        .cache_max_bytes(CACHE_MAX_BYTES)
        .property("linger.ms", args.knobs.linger_ms.to_string())
        .property("batch.size", args.knobs.batch_size.to_string())
        .property("log_level", "3");
    if let Some(registry) = registry {
        builder = builder.serde_state(registry);
    }
    // `DEKAF_BENCH_STORE=lmdb`: stores on disk in the driver's state directory, as Kafka
    // Streams keeps them in RocksDB; otherwise in memory (dekaf-streams' default).
    if on_disk || std::env::var("DEKAF_BENCH_STORE").is_ok_and(|s| s == "lmdb") {
        builder = builder.state_dir(&args.state_dir);
    }
    // `DEKAF_BENCH_IDLE_COMMIT_MS=<ms>`: the idle commit interval (default 10 ms); the commit
    // interval or more commits only every commit interval, as Kafka Streams does.
    if let Some(ms) = std::env::var("DEKAF_BENCH_IDLE_COMMIT_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
    {
        builder = builder.idle_commit_interval(Duration::from_millis(ms));
    }
    // `DEKAF_BENCH_PROPERTIES=name=value,name=value`: more librdkafka properties (to measure a
    // setting against the runtime's default without a rebuild).
    if let Ok(properties) = std::env::var("DEKAF_BENCH_PROPERTIES") {
        for pair in properties.split(',').filter(|p| !p.is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .with_context(|| format!("DEKAF_BENCH_PROPERTIES: `{pair}` is not name=value"))?;
            builder = builder.property(name, value);
        }
    }
    let streams = builder.build()?;
    let started = Instant::now();
    let mode = args.mode;
    let max = Duration::from_secs(args.max_seconds);
    let watch = progress.clone();
    let stop = async move {
        let deadline = tokio::time::sleep(max);
        tokio::pin!(deadline);
        let signal = shutdown_signal();
        tokio::pin!(signal);
        let mut announced = false;
        loop {
            tokio::select! {
                () = &mut deadline => return,
                () = &mut signal => return,
                () = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
            if !announced && watch.tasks() > 0.0 {
                announced = true;
                match mode {
                    Mode::Run => emit_event("running", json!({})),
                    Mode::Restore => {
                        emit_event(
                            "restored",
                            json!({
                                "records": watch.restored.load(Ordering::Relaxed),
                                "millis": (watch.restore_seconds() * 1000.0).round() as u64,
                                "wall_millis": started.elapsed().as_millis() as u64,
                            }),
                        );
                        return;
                    }
                }
            }
        }
    };
    streams.run(stop).await?;
    Ok(())
}

/// The runtime's progress, as its metrics report it.
#[derive(Debug, Clone, Default)]
struct Progress {
    tasks: Arc<AtomicU64>,
    restored: Arc<AtomicU64>,
    restore_micros: Arc<Micros>,
}

impl Progress {
    fn tasks(&self) -> f64 {
        f64::from_bits(self.tasks.load(Ordering::Relaxed))
    }

    fn restore_seconds(&self) -> f64 {
        self.restore_micros.0.load(Ordering::Relaxed) as f64 / 1e6
    }
}

/// A histogram that keeps the sum of its samples (seconds) in microseconds.
#[derive(Debug, Default)]
struct Micros(AtomicU64);

impl metrics::HistogramFn for Micros {
    fn record(&self, seconds: f64) {
        self.0.fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }
}

impl Recorder for Progress {
    fn describe_counter(&self, _: KeyName, _: Option<MetricUnit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<MetricUnit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<MetricUnit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        match key.name() {
            "dekaf.streams.records.restored" => Counter::from_arc(self.restored.clone()),
            _ => Counter::noop(),
        }
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        match key.name() {
            "dekaf.streams.tasks.active" => Gauge::from_arc(self.tasks.clone()),
            _ => Gauge::noop(),
        }
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        match key.name() {
            "dekaf.streams.restore.duration" => Histogram::from_arc(self.restore_micros.clone()),
            _ => Histogram::noop(),
        }
    }
}
