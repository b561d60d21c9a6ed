//! The ceiling: a raw rdkafka consume→produce loop running the stateless workload of
//! `benches/WORKLOADS.md` (filter `v % 5 != 0`, value `v * 2`). Exactly-once: one transactional
//! producer per thread, output and consumed offsets committed together every commit interval;
//! at-least-once: flush, then commit offsets, every commit interval. Speaks the system command
//! line contract (flags, JSON events on stdout, stops on SIGTERM or after `--max-seconds`).

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use dekaf_streams_benches::args::{Flags, SystemArgs, emit_event};
use dekaf_streams_benches::kafka::client_config;
use dekaf_streams_benches::workload::{Guarantee, Workload};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::message::{Message, Timestamp};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientContext, Offset, TopicPartitionList};
use serde_json::json;

const USAGE: &str = "usage: bench-ceiling --workload stateless --guarantee exactly_once|at_least_once \
--app-id ID --input-prefix P --output-topic T [--bootstrap 127.0.0.1:9092] [--threads 1] \
[--commit-interval-ms 100] [--linger-ms 5] [--batch-size 16384] [--max-seconds 600]";

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Counts deliveries that failed, so that at-least-once cannot lose output silently.
#[derive(Default)]
struct Deliveries {
    failed: AtomicU64,
}

impl ClientContext for Deliveries {
    fn log(&self, _level: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        eprintln!(
            "{} librdkafka {fac}: {message}",
            dekaf_streams_benches::now_ms()
        );
    }
}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if result.is_err() {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            emit_event("error", json!({ "message": format!("{e:#}") }));
            eprintln!("bench-ceiling: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let args = SystemArgs::from_flags(&Flags::parse(std::env::args().skip(1), USAGE)?)?;
    if args.workload != Workload::Stateless {
        bail!(
            "the ceiling runs the stateless workload only, not {}",
            args.workload
        );
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    let input = format!("{}-numbers", args.input_prefix);
    let probe: BaseConsumer = client_config(&args.bootstrap).create()?;
    let md = probe
        .fetch_metadata(Some(&input), Duration::from_secs(10))
        .with_context(|| format!("no metadata for {input}; is the broker up?"))?;
    let partitions = md.topics().first().map_or(0, |t| t.partitions().len()) as i32;
    if partitions == 0 {
        bail!("input topic {input} does not exist; create it with bench-gen first");
    }
    let threads = args.knobs.threads.max(1) as i32;
    let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
    let args = Arc::new(args);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let workers: Vec<_> = (0..threads.min(partitions))
        .map(|t| {
            let owned: Vec<i32> = (0..partitions).filter(|p| p % threads == t).collect();
            let (args, input, ready) = (args.clone(), input.clone(), ready_tx.clone());
            std::thread::spawn(move || worker(&args, &input, t, &owned, deadline, &ready))
        })
        .collect();
    drop(ready_tx);
    // `running` once every worker has its partitions and (exactly-once) its transactional id.
    let all_ready =
        (0..workers.len()).all(|_| ready_rx.recv_timeout(Duration::from_secs(60)).is_ok());
    if all_ready {
        emit_event("running", json!({ "threads": workers.len() }));
    }
    let mut result = Ok(());
    for w in workers {
        let r = w
            .join()
            .map_err(|_| anyhow::anyhow!("a worker thread panicked"))
            .and_then(|r| r);
        if let Err(e) = r {
            STOP.store(true, Ordering::Relaxed);
            result = Err(e);
        }
    }
    emit_event("stopped", json!({}));
    result
}

fn worker(
    args: &SystemArgs,
    input: &str,
    thread: i32,
    partitions: &[i32],
    deadline: Instant,
    ready: &std::sync::mpsc::Sender<()>,
) -> Result<()> {
    let eos = args.guarantee == Guarantee::ExactlyOnce;
    let mut cc = client_config(&args.bootstrap)
        .set("group.id", &args.app_id)
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("isolation.level", "read_committed")
        .clone();
    extra_settings(&mut cc, "DEKAF_CEILING_CONSUMER")?;
    let consumer: BaseConsumer = cc.create().context("cannot create the consumer")?;
    let mut tpl = TopicPartitionList::new();
    for p in partitions {
        tpl.add_partition_offset(input, *p, Offset::Stored)?;
    }
    consumer.assign(&tpl)?;
    let mut pc = client_config(&args.bootstrap);
    pc.set("linger.ms", args.knobs.linger_ms.to_string())
        .set("batch.size", args.knobs.batch_size.to_string())
        .set("partitioner", "murmur2_random")
        .set("acks", "all")
        .set("enable.idempotence", "true");
    if eos {
        pc.set("transactional.id", format!("{}-{thread}", args.app_id));
    }
    extra_settings(&mut pc, "DEKAF_CEILING_PRODUCER")?;
    if std::env::var_os("DEKAF_CEILING_TRACE").is_some() {
        // Lets `debug=..` in DEKAF_CEILING_PRODUCER through to stderr.
        pc.set_log_level(rdkafka::config::RDKafkaLogLevel::Debug);
    }
    let producer: BaseProducer<Deliveries> = pc
        .create_with_context(Deliveries::default())
        .context("cannot create the producer")?;
    let timeout = Duration::from_secs(30);
    if eos {
        producer
            .init_transactions(timeout)
            .context("init_transactions failed")?;
    }
    let _ = ready.send(());
    let interval = Duration::from_millis(args.knobs.commit_interval_ms.max(1));
    let mut in_txn = false;
    let mut pending = 0u64;
    let mut window = Instant::now();
    while Instant::now() < deadline {
        // Serve delivery reports on this thread.
        producer.poll(Duration::ZERO);
        let stopping = STOP.load(Ordering::Relaxed);
        if stopping || window.elapsed() >= interval {
            if pending > 0 {
                commit(&consumer, &producer, eos, &mut in_txn, timeout)?;
                pending = 0;
            }
            window = Instant::now();
            if stopping {
                break;
            }
        }
        let left = interval.saturating_sub(window.elapsed());
        let Some(msg) = consumer.poll(left) else {
            continue;
        };
        let msg = msg.context("consuming failed")?;
        let value = msg.payload().unwrap_or_default();
        let v = i64::from_be_bytes(
            value
                .try_into()
                .with_context(|| format!("a value of {} bytes is not an i64", value.len()))?,
        );
        if v % 5 == 0 {
            pending += 1; // consumed: its offset still needs committing
            continue;
        }
        if eos && !in_txn {
            producer
                .begin_transaction()
                .context("begin_transaction failed")?;
            in_txn = true;
        }
        let out = (v * 2).to_be_bytes();
        let mut rec: BaseRecord<'_, [u8], [u8]> =
            BaseRecord::to(&args.output_topic).payload(&out[..]);
        if let Some(k) = msg.key() {
            rec = rec.key(k);
        }
        if let Timestamp::CreateTime(ts) | Timestamp::LogAppendTime(ts) = msg.timestamp() {
            rec = rec.timestamp(ts);
        }
        let mut rec = rec;
        let mut tries = 0;
        loop {
            match producer.send(rec) {
                Ok(()) => break,
                Err((e, back))
                    if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull)
                        && tries < 30_000 =>
                {
                    rec = back;
                    tries += 1;
                    producer.poll(Duration::from_millis(1));
                }
                Err((e, _)) => bail!("producing to {} failed: {e}", args.output_topic),
            }
        }
        pending += 1;
    }
    if pending > 0 {
        commit(&consumer, &producer, eos, &mut in_txn, timeout)?;
    }
    Ok(())
}

/// Waits until every produced record is acknowledged, polling in 1 ms steps.
///
/// rdkafka 0.39's `BaseProducer::flush` (which `commit_transaction` calls first) polls in steps
/// of 100 ms, and its `poll(t)` always blocks for all of `t`: any record still in flight made
/// each commit take ≥ 100 ms (measured: every commit 101–110 ms). Draining first makes the
/// flush inside the commit find nothing in flight and return at once.
fn drain(producer: &BaseProducer<Deliveries>, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    while producer.in_flight_count() > 0 {
        if Instant::now() > deadline {
            bail!(
                "{} output records unacknowledged after {timeout:?}",
                producer.in_flight_count()
            );
        }
        producer.poll(Duration::from_millis(1));
    }
    Ok(())
}

/// Applies `name=value;name=value` librdkafka settings from the environment variable `var`
/// (for experiments; the report names none, so leave them unset for published figures).
fn extra_settings(config: &mut rdkafka::ClientConfig, var: &str) -> Result<()> {
    if let Ok(spec) = std::env::var(var) {
        for kv in spec.split(';').filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("{var}: {kv:?} is not name=value"))?;
            config.set(k.trim(), v.trim());
        }
    }
    Ok(())
}

fn commit(
    consumer: &BaseConsumer,
    producer: &BaseProducer<Deliveries>,
    eos: bool,
    in_txn: &mut bool,
    timeout: Duration,
) -> Result<()> {
    let t0 = Instant::now();
    drain(producer, timeout)?;
    let positions = consumer.position()?;
    let mut offsets = TopicPartitionList::new();
    for e in positions.elements() {
        if let Offset::Offset(o) = e.offset() {
            offsets.add_partition_offset(e.topic(), e.partition(), Offset::Offset(o))?;
        }
    }
    if eos {
        if !*in_txn {
            // Everything consumed in this interval was filtered out: the offsets alone need one.
            producer
                .begin_transaction()
                .context("begin_transaction failed")?;
            *in_txn = true;
        }
        let cgm = consumer
            .group_metadata()
            .context("the consumer has no group metadata")?;
        producer
            .send_offsets_to_transaction(&offsets, &cgm, timeout)
            .context("send_offsets_to_transaction failed")?;
        if std::env::var_os("DEKAF_CEILING_TRACE").is_some() {
            eprintln!("  send_offsets took {:?}", t0.elapsed());
            producer.flush(timeout).context("flush failed")?;
            eprintln!("  flush took {:?}", t0.elapsed());
        }
        producer
            .commit_transaction(timeout)
            .context("commit_transaction failed")?;
        *in_txn = false;
    } else {
        producer.flush(timeout).context("flushing output failed")?;
        if offsets.count() > 0 {
            consumer
                .commit(&offsets, CommitMode::Sync)
                .context("committing offsets failed")?;
        }
    }
    if std::env::var_os("DEKAF_CEILING_TRACE").is_some() {
        eprintln!(
            "{} commit took {:?}",
            dekaf_streams_benches::now_ms(),
            t0.elapsed()
        );
    }
    let failed = producer.context().failed.load(Ordering::Relaxed);
    if failed > 0 {
        bail!("{failed} output records could not be delivered");
    }
    Ok(())
}
