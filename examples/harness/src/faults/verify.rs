//! The independent check, with plain rdkafka clients only: the input's word counts as a
//! read_committed consumer reads them back, and the output's count updates, which must be
//! exactly `1, 2, …, n` for every word (a repeat is a duplicate, a gap a loss).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};

use super::scenario::Client;

/// A read_committed consumer assigned every partition of `topic` from the beginning (no group).
fn committed_consumer(client: &Client, topic: &str) -> Result<BaseConsumer, String> {
    let consumer: BaseConsumer = client
        .config()
        .set("group.id", "fault-verifier-unused")
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .map_err(|e| format!("verifier consumer: {e}"))?;
    let metadata = consumer
        .fetch_metadata(Some(topic), Duration::from_secs(30))
        .map_err(|e| format!("metadata of {topic}: {e}"))?;
    let mut assignment = TopicPartitionList::new();
    for t in metadata.topics() {
        for p in t.partitions() {
            assignment
                .add_partition_offset(topic, p.id(), Offset::Beginning)
                .map_err(|e| e.to_string())?;
        }
    }
    consumer
        .assign(&assignment)
        .map_err(|e| format!("assigning {topic}: {e}"))?;
    Ok(consumer)
}

/// The count of every word in the committed sentences of `topic`, read up to its end.
pub fn count_input(
    client: &Client,
    topic: &str,
    timeout: Duration,
) -> Result<HashMap<String, i64>, String> {
    let consumer = committed_consumer(client, topic)?;
    let started = Instant::now();
    let mut counts = HashMap::new();
    let mut idle_since = Instant::now();
    loop {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                idle_since = Instant::now();
                if let Some(Ok(sentence)) = m.payload_view::<str>() {
                    for word in sentence.split(' ') {
                        *counts.entry(word.to_owned()).or_insert(0) += 1;
                    }
                }
            }
            Some(Err(e)) => eprintln!("verifier (input): {e}"),
            None => {}
        }
        // At the end of every partition: position >= high watermark.
        if idle_since.elapsed() > Duration::from_secs(1) && at_end(&consumer, topic)? {
            return Ok(counts);
        }
        if started.elapsed() > timeout {
            return Err(format!(
                "could not read {topic} to its end within {timeout:?}"
            ));
        }
    }
}

fn at_end(consumer: &BaseConsumer, topic: &str) -> Result<bool, String> {
    let position = consumer.position().map_err(|e| e.to_string())?;
    for element in position.elements_for_topic(topic) {
        let (_, high) = consumer
            .fetch_watermarks(topic, element.partition(), Duration::from_secs(10))
            .map_err(|e| format!("watermarks of {topic}: {e}"))?;
        let at = match element.offset() {
            Offset::Offset(o) => o,
            _ => -1,
        };
        // Idle for a second and at most one offset short of the end: that one is a
        // transaction's commit marker, never delivered.
        if high > 0 && at < high - 1 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Every count update read from the output topic, per word, in the order written.
pub type Updates = HashMap<String, Vec<i64>>;

/// Reads the count updates of `topic` until every word of `expected` reached its count (then 2 s
/// more, to catch late duplicates) or `timeout` passes.
pub fn read_counts(
    client: &Client,
    topic: &str,
    expected: &HashMap<String, i64>,
    timeout: Duration,
) -> Result<Updates, String> {
    let consumer = committed_consumer(client, topic)?;
    let started = Instant::now();
    let mut updates: Updates = HashMap::new();
    let mut reached_at: Option<Instant> = None;
    loop {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                if let (Some(k), Some(v)) = (m.key(), m.payload())
                    && let Ok(bytes) = <[u8; 8]>::try_from(v)
                {
                    updates
                        .entry(String::from_utf8_lossy(k).into_owned())
                        .or_default()
                        .push(i64::from_be_bytes(bytes));
                }
            }
            Some(Err(e)) => eprintln!("verifier (output): {e}"),
            None => {}
        }
        match reached_at {
            Some(at) if at.elapsed() > Duration::from_secs(2) => return Ok(updates),
            Some(_) => {}
            None => {
                let reached = expected.iter().all(|(word, n)| {
                    updates
                        .get(word)
                        .and_then(|v| v.last())
                        .is_some_and(|last| last >= n)
                });
                if reached {
                    reached_at = Some(Instant::now());
                } else if started.elapsed() > timeout {
                    return Ok(updates);
                }
            }
        }
    }
}

/// What is wrong with `updates` against `expected` (empty when exactly once): for each word
/// the updates must be exactly `1..=n`.
pub fn problems(updates: &Updates, expected: &HashMap<String, i64>) -> Vec<String> {
    let mut problems = Vec::new();
    for (word, n) in expected {
        let values = updates.get(word).map(Vec::as_slice).unwrap_or_default();
        let exact = values.len() as i64 == *n && values.iter().zip(1..).all(|(v, i)| *v == i);
        if !exact {
            let first_wrong = values.iter().zip(1..).find(|(v, i)| **v != *i);
            problems.push(format!(
                "{word}: expected 1..={n}, got {} updates (last {:?}, first deviation {first_wrong:?})",
                values.len(),
                values.last()
            ));
        }
    }
    for word in updates.keys().filter(|w| !expected.contains_key(*w)) {
        problems.push(format!("{word}: not in the input"));
    }
    problems.sort();
    problems
}

/// What is lost in `updates` against `expected` under at-least-once: every word's last count
/// must reach at least its count in the input. Repeats are allowed, and so are counts that
/// never appear: an interval redone after a failure restores its stores from changelog records
/// that were delivered while its output was not, so the redone output goes on from the
/// restored count (Kafka Streams' at-least-once behaves the same: a corrupted task is restored
/// from its changelog and its input read again from the committed offsets). A word whose last
/// count is below the input's lost an input record's effect.
pub fn losses(updates: &Updates, expected: &HashMap<String, i64>) -> Vec<String> {
    let mut losses = Vec::new();
    for (word, n) in expected {
        let values = updates.get(word).map(Vec::as_slice).unwrap_or_default();
        let last = values.last().copied().unwrap_or(0);
        if last < *n {
            losses.push(format!(
                "{word}: expected a last count of at least {n}, got {} updates (last {last})",
                values.len()
            ));
        }
    }
    losses.sort();
    losses
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(pairs: &[(&str, &[i64])]) -> Updates {
        pairs
            .iter()
            .map(|(w, v)| ((*w).to_owned(), v.to_vec()))
            .collect()
    }

    #[test]
    fn at_least_once_accepts_repeats_and_finds_losses() {
        let expected: HashMap<String, i64> = [("a".to_owned(), 3), ("b".to_owned(), 2)].into();
        let repeated = words(&[("a", &[1, 2, 2, 3, 4]), ("b", &[1, 2])]);
        assert!(losses(&repeated, &expected).is_empty());
        assert!(!problems(&repeated, &expected).is_empty());
        let restored_ahead = words(&[("a", &[2, 3, 4]), ("b", &[1, 2])]);
        assert!(losses(&restored_ahead, &expected).is_empty());
        let short = words(&[("a", &[1, 2]), ("b", &[1, 2])]);
        assert_eq!(losses(&short, &expected).len(), 1);
        let missing = words(&[("a", &[1, 2, 3])]);
        assert_eq!(losses(&missing, &expected).len(), 1);
    }
}
