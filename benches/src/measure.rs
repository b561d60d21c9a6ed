//! The measurer: an independent `read_committed` consumer of one output topic that records,
//! per output record, its timestamp (the input timestamp the system carried over) and the time
//! it became visible, and keeps the final value per key.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use crate::kafka::client_config;
use crate::now_micros;
use crate::workload::FinalValues;

/// How the measurer turns an output value into the value the reference model holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputDecoding {
    /// The value as written.
    #[default]
    Raw,
    /// An Avro `WordCount` of its key in the Confluent wire format (the Avro word count): its
    /// count, 8 bytes big-endian; its schema id is kept in [`Observed::schema_ids`]. A value
    /// that does not read is kept as a description that matches no expected value.
    AvroWordCount,
}

impl OutputDecoding {
    /// The value to keep for `value` under `key`, and its schema id if it has one.
    fn decode(self, key: &[u8], value: Vec<u8>) -> (Result<Vec<u8>, String>, Option<u32>) {
        match self {
            OutputDecoding::Raw => (Ok(value), None),
            OutputDecoding::AvroWordCount => match crate::avro::read_word_count(key, &value) {
                Ok((id, count)) => (Ok(count.to_be_bytes().to_vec()), Some(id)),
                Err(e) => (Err(format!("not a WordCount: {e:#}")), None),
            },
        }
    }
}

/// What the measurer has seen so far.
#[derive(Debug, Default)]
pub struct Observed {
    /// Final value per key.
    pub finals: FinalValues,
    /// Output records read.
    pub records: u64,
    /// When the first output record became visible (µs since the epoch).
    pub first_visible_us: Option<i64>,
    /// When the last output record became visible (µs since the epoch).
    pub last_visible_us: Option<i64>,
    /// Latencies of output records stamped at or after `latency_from_ms`, in the order they
    /// became visible: the record's timestamp (ms) and its latency (ms).
    pub latency_samples: Vec<(i64, f64)>,
    /// Only records stamped at or after this (ms) count for latency.
    pub latency_from_ms: i64,
    /// The final values the run expects, if set.
    target: Option<Arc<FinalValues>>,
    /// Keys whose final value differs from `target` (missing, extra or different).
    mismatched: usize,
    /// When `mismatched` last dropped to zero (µs since the epoch).
    pub matched_at_us: Option<i64>,
    /// The schema ids of the output values (Avro output only).
    pub schema_ids: BTreeSet<u32>,
    /// Output values that did not decode, and the first one's reason.
    pub undecodable: u64,
    /// Why the first undecodable value did not decode.
    pub first_decode_error: Option<String>,
}

impl Observed {
    /// Sets the expected final values; `matched_at_us` is set once the output equals them.
    pub fn set_target(&mut self, target: Arc<FinalValues>) {
        let mut mismatched = target
            .iter()
            .filter(|(k, v)| self.finals.get(*k) != Some(*v))
            .count();
        mismatched += self
            .finals
            .keys()
            .filter(|k| !target.contains_key(*k))
            .count();
        self.mismatched = mismatched;
        self.target = Some(target);
        self.matched_at_us = (mismatched == 0).then(now_micros);
    }

    /// The latencies (ms) alone, for [`percentiles`].
    pub fn latencies(&self) -> Vec<f64> {
        self.latency_samples.iter().map(|(_, l)| *l).collect()
    }

    /// Keys whose value still differs from the target.
    pub fn mismatched(&self) -> usize {
        self.mismatched
    }

    fn observe(&mut self, key: Vec<u8>, value: Vec<u8>, ts_ms: Option<i64>, visible_us: i64) {
        self.records += 1;
        self.first_visible_us.get_or_insert(visible_us);
        self.last_visible_us = Some(visible_us);
        if let Some(ts) = ts_ms
            && ts >= self.latency_from_ms
        {
            let latency = (visible_us - ts * 1000) as f64 / 1000.0;
            self.latency_samples.push((ts, latency));
        }
        let before = self.matches(&key);
        self.finals.insert(key.clone(), value);
        let after = self.matches(&key);
        if self.target.is_some() {
            match (before, after) {
                (true, false) => self.mismatched += 1,
                (false, true) => self.mismatched = self.mismatched.saturating_sub(1),
                _ => {}
            }
            if self.mismatched == 0 {
                self.matched_at_us = Some(visible_us);
            } else {
                self.matched_at_us = None;
            }
        }
    }

    fn matches(&self, key: &[u8]) -> bool {
        match &self.target {
            Some(t) => t.get(key) == self.finals.get(key),
            None => false,
        }
    }

    /// A description of up to `n` keys that differ from the target, for failure reports.
    pub fn diff_sample(&self, n: usize, render: impl Fn(&[u8]) -> String) -> Vec<String> {
        let Some(t) = &self.target else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in t.iter() {
            if out.len() >= n {
                break;
            }
            let got = self.finals.get(k);
            if got != Some(v) {
                out.push(format!(
                    "{}: expected {}, got {}",
                    String::from_utf8_lossy(k),
                    render(v),
                    got.map_or("nothing".into(), |g| render(g))
                ));
            }
        }
        for (k, v) in &self.finals {
            if out.len() >= n {
                break;
            }
            if !t.contains_key(k) {
                out.push(format!(
                    "{}: unexpected key, value {}",
                    String::from_utf8_lossy(k),
                    render(v)
                ));
            }
        }
        out
    }
}

/// A running measurer; stops when dropped or by [`Measurer::stop`].
pub struct Measurer {
    state: Arc<Mutex<Observed>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl Measurer {
    /// Starts reading `topic` from the beginning with `read_committed`.
    pub fn start(bootstrap: &str, topic: &str) -> Result<Self> {
        Self::start_decoding(bootstrap, topic, OutputDecoding::Raw)
    }

    /// Starts reading `topic` from the beginning with `read_committed`, keeping each value as
    /// `decoding` reads it.
    pub fn start_decoding(bootstrap: &str, topic: &str, decoding: OutputDecoding) -> Result<Self> {
        let consumer: BaseConsumer = client_config(bootstrap)
            .set("group.id", format!("{topic}-measurer"))
            .set("enable.auto.commit", "false")
            .set("isolation.level", "read_committed")
            .set("fetch.wait.max.ms", "10")
            .set("fetch.min.bytes", "1")
            .create()
            .context("cannot create the measuring consumer")?;
        let md = consumer
            .fetch_metadata(Some(topic), Duration::from_secs(10))
            .with_context(|| format!("no metadata for output topic {topic}"))?;
        let partitions = md
            .topics()
            .first()
            .map(|t| t.partitions().len())
            .filter(|n| *n > 0)
            .ok_or_else(|| anyhow!("output topic {topic} does not exist"))?;
        let mut tpl = TopicPartitionList::new();
        for p in 0..partitions {
            tpl.add_partition_offset(topic, p as i32, Offset::Beginning)?;
        }
        consumer.assign(&tpl)?;
        let state = Arc::new(Mutex::new(Observed {
            latency_from_ms: i64::MAX,
            ..Default::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (state.clone(), stop.clone());
        let thread =
            std::thread::Builder::new()
                .name("measurer".into())
                .spawn(move || -> Result<()> {
                    // Bounded: stops when told, or after 2 hours at most.
                    let deadline = now_micros() + 7_200_000_000;
                    while !st.load(Ordering::Relaxed) && now_micros() < deadline {
                        let Some(msg) = consumer.poll(Duration::from_millis(20)) else {
                            continue;
                        };
                        let visible = now_micros();
                        let msg = msg.context("the measuring consumer failed")?;
                        let key = msg.key().unwrap_or_default().to_vec();
                        let value = msg.payload().unwrap_or_default().to_vec();
                        let ts = msg.timestamp().to_millis();
                        let (value, id) = decoding.decode(&key, value);
                        let mut o = lock(&s);
                        o.schema_ids.extend(id);
                        let value = value.unwrap_or_else(|e| {
                            o.undecodable += 1;
                            let reason = format!("<{e}>");
                            o.first_decode_error.get_or_insert_with(|| reason.clone());
                            reason.into_bytes()
                        });
                        o.observe(key, value, ts, visible);
                    }
                    Ok(())
                })?;
        Ok(Self {
            state,
            stop,
            thread: Some(thread),
        })
    }

    /// The observations so far (locked).
    pub fn observed(&self) -> MutexGuard<'_, Observed> {
        lock(&self.state)
    }

    /// Stops reading and returns the observations.
    pub fn stop(mut self) -> Result<Observed> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join()
                .map_err(|_| anyhow!("the measurer thread panicked"))??;
        }
        Ok(std::mem::take(&mut *lock(&self.state)))
    }
}

impl Drop for Measurer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock(m: &Mutex<Observed>) -> MutexGuard<'_, Observed> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Latency percentiles (ms) of a sample: `(p50, p99)`, nearest rank.
pub fn percentiles(latencies: &[f64]) -> Option<(f64, f64)> {
    if latencies.is_empty() {
        return None;
    }
    let mut v = latencies.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((at(0.50), at(0.99)))
}

/// A cheap order-independent fingerprint of final values, to compare systems in a report.
pub fn fingerprint(finals: &FinalValues) -> u64 {
    use std::hash::{Hash, Hasher};
    finals
        .iter()
        .map(|kv| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            kv.hash(&mut h);
            h.finish()
        })
        .fold(0u64, u64::wrapping_add)
}

/// Keys on which two final-value maps differ (up to `n` of them).
pub fn differing_keys(a: &FinalValues, b: &FinalValues, n: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .take(n)
        .collect();
    let extra: HashMap<_, _> = b
        .iter()
        .filter(|(k, _)| !a.contains_key(*k))
        .take(n)
        .collect();
    out.extend(extra.into_keys().take(n.saturating_sub(out.len())).cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_mismatches_and_percentiles() {
        let mut o = Observed {
            latency_from_ms: 0,
            ..Default::default()
        };
        let target: FinalValues = [(b"a".to_vec(), b"1".to_vec())].into_iter().collect();
        o.set_target(Arc::new(target));
        assert_eq!(o.mismatched(), 1);
        o.observe(b"a".to_vec(), b"0".to_vec(), Some(1), 2000);
        o.observe(b"b".to_vec(), b"0".to_vec(), Some(1), 3000);
        assert_eq!(o.mismatched(), 2);
        o.observe(b"a".to_vec(), b"1".to_vec(), Some(1), 4000);
        assert_eq!(o.mismatched(), 1);
        assert!(o.matched_at_us.is_none());
        assert_eq!(
            o.latency_samples[0],
            (1, 1.0),
            "visible 2 ms after its 1 ms stamp"
        );
        let (p50, p99) = percentiles(&[1.0, 2.0, 3.0, 4.0]).expect("some");
        assert_eq!((p50, p99), (2.0, 4.0));
    }
}
