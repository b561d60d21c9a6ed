//! Consumption alone, per record, on the consuming thread: `BaseConsumer::poll` (one record per
//! librdkafka call, as the processing loop took them before batch consumption) against
//! `kafka::batch::BatchConsumer` (up to 64 per call, as it takes them now), over the same
//! backlog, taking turns.
//!
//! It produces `--records` records (100-byte values, 8-byte keys) to a new topic of
//! `--partitions` partitions, then for each of `--repeat` rounds reads the whole topic once
//! with each method (a consumer of the processing thread's settings, a new group each time,
//! every partition assigned from the beginning) and prints the consuming thread's CPU time per
//! record (`CLOCK_THREAD_CPUTIME_ID`) and the wall time, as JSON lines. Each record's topic,
//! partition, offset, key, value and timestamp are read, as the processing loop routes it.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use dekaf_streams::kafka::batch::{BatchConsumer, Entry};
use dekaf_streams::kafka::settings::{CONSUMER_DEFAULTS, PROCESSING_CONSUMER_DEFAULTS};
use dekaf_streams_benches::args::Flags;
use dekaf_streams_benches::kafka::{bootstrap_from_env, client_config};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer, DefaultConsumerContext};
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};

const USAGE: &str = "usage: bench-consume [--records 600000] [--partitions 4] [--repeat 3] \
[--bootstrap 127.0.0.1:$DEKAF_KAFKA_PORT]";

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is writable; the clock id is valid on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn consumer(bootstrap: &str, group: &str, topic: &str, partitions: i32) -> Result<BaseConsumer> {
    // The processing thread's consumer: its defaults and the properties the runtime sets.
    let mut config = client_config(bootstrap);
    for (k, v) in CONSUMER_DEFAULTS.iter().chain(PROCESSING_CONSUMER_DEFAULTS) {
        config.set(*k, *v);
    }
    config
        .set("group.id", group)
        .set("group.protocol", "classic")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("isolation.level", "read_uncommitted");
    let c: BaseConsumer<DefaultConsumerContext> = config.create()?;
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)?;
    }
    c.assign(&tpl)?;
    Ok(c)
}

/// What is read of each record, folded into a checksum (equal for both methods).
fn fold(
    sum: u64,
    offset: i64,
    partition: i32,
    topic: &str,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    ts: Option<i64>,
) -> u64 {
    sum.wrapping_add(offset as u64)
        .wrapping_add(partition as u64)
        .wrapping_add(topic.len() as u64)
        .wrapping_add(key.map_or(0, <[u8]>::len) as u64)
        .wrapping_add(value.map_or(0, <[u8]>::len) as u64)
        .wrapping_add(ts.unwrap_or(0) as u64)
}

/// Reads `n` records with `poll`; returns (thread CPU, wall) and a checksum. The clocks start
/// at the first record, as for batches.
fn by_poll(c: &BaseConsumer, n: u64) -> Result<(Duration, Duration, u64)> {
    let mut got = 0u64;
    let mut sum = 0u64;
    let mut started = None;
    while got < n {
        match c.poll(Duration::from_millis(100)) {
            Some(Ok(m)) => {
                if started.is_none() {
                    started = Some((thread_cpu(), Instant::now()));
                }
                got += 1;
                sum = fold(
                    sum,
                    m.offset(),
                    m.partition(),
                    m.topic(),
                    m.key(),
                    m.payload(),
                    m.timestamp().to_millis(),
                );
            }
            Some(Err(e)) => bail!("consumer error: {e}"),
            None => {}
        }
    }
    let (cpu0, t0) = started.unwrap_or((thread_cpu(), Instant::now()));
    Ok((thread_cpu() - cpu0, t0.elapsed(), sum))
}

/// Reads `n` records in batches.
fn by_batch(c: BaseConsumer, n: u64) -> Result<(Duration, Duration, u64)> {
    let mut b = BatchConsumer::new(c)?;
    let mut got = 0u64;
    let mut sum = 0u64;
    let mut started = None;
    while got < n {
        let k = b.fill(Duration::from_millis(100));
        if started.is_none() && k > 0 {
            started = Some((thread_cpu(), Instant::now()));
        }
        for i in 0..k {
            match b.entry(i) {
                Some(Entry::Record(m)) => {
                    got += 1;
                    sum = fold(
                        sum,
                        m.offset(),
                        m.partition(),
                        m.topic(),
                        m.key(),
                        m.payload(),
                        m.timestamp(),
                    );
                }
                Some(Entry::Error(e)) => bail!("consumer error: {e}"),
                None => {}
            }
        }
        if let Some(e) = b.next_error() {
            bail!("consumer error: {e}");
        }
    }
    let (cpu0, t0) = started.unwrap_or((thread_cpu(), Instant::now()));
    Ok((thread_cpu() - cpu0, t0.elapsed(), sum))
}

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let records: u64 = f.parse_or("records", 600_000)?;
    let partitions: i32 = f.parse_or("partitions", 4)?;
    let repeat: u32 = f.parse_or("repeat", 3)?;
    let run = format!(
        "{:x}",
        std::process::id() ^ Instant::now().elapsed().as_nanos() as u32
    );
    let topic = format!("bench-consume-{run}");

    let admin: AdminClient<DefaultClientContext> = client_config(&bootstrap).create()?;
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(admin.create_topics(
        &[NewTopic::new(
            &topic,
            partitions,
            TopicReplication::Fixed(1),
        )],
        &AdminOptions::new(),
    ))?;
    let producer: BaseProducer = client_config(&bootstrap)
        .set("linger.ms", "20")
        .set("batch.size", "1000000")
        .set("queue.buffering.max.messages", "1000000")
        .create()?;
    let value = [7u8; 100];
    for i in 0..records {
        let key = i.to_be_bytes();
        let mut rec = BaseRecord::to(&topic).key(&key[..]).payload(&value[..]);
        loop {
            match producer.send(rec) {
                Ok(()) => break,
                Err((_, r)) => {
                    producer.poll(Duration::from_millis(10));
                    rec = r;
                }
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(60))?;
    eprintln!("[bench-consume] {records} records in {topic} ({partitions} partitions)");

    for round in 0..repeat {
        for method in ["poll", "batch"] {
            let group = format!("bench-consume-{run}-{method}-{round}");
            let c = consumer(&bootstrap, &group, &topic, partitions)?;
            let (cpu, wall, sum) = match method {
                "poll" => by_poll(&c, records)?,
                _ => by_batch(c, records)?,
            };
            println!(
                "{{\"round\":{round},\"method\":\"{method}\",\"records\":{records},\"thread_cpu_ns_per_record\":{:.0},\"wall_ns_per_record\":{:.0},\"checksum\":{sum}}}",
                cpu.as_nanos() as f64 / records as f64,
                wall.as_nanos() as f64 / records as f64
            );
        }
    }
    rt.block_on(admin.delete_topics(&[&topic], &AdminOptions::new()))?;
    Ok(())
}
