//! The typed input and output topics of a [`TestDriver`]: pipe records in, read what the
//! topology wrote.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;

use super::{RawRecord, TestDriver, TestError, TestRecord};
use crate::serdes::{Encoded, SerdeContext};
use crate::task::{Headers, TopicRef, Topology};

/// A typed input topic of a [`TestDriver`].
pub struct TestInputTopic<'d, T: Topology, K, V> {
    pub(super) driver: &'d TestDriver<T>,
    pub(super) topic: TopicRef<K, V>,
    /// (next timestamp, auto-advance)
    pub(super) time: RefCell<(i64, i64)>,
}

impl<T: Topology, K, V> TestInputTopic<'_, T, K, V> {
    /// Records piped without a timestamp get `start`, then `start + advance`, and so on.
    pub fn with_time(self, start: i64, advance: i64) -> Self {
        *self.time.borrow_mut() = (start, advance);
        self
    }

    fn next_time(&self) -> i64 {
        let mut time = self.time.borrow_mut();
        let t = time.0;
        time.0 = t.saturating_add(time.1);
        t
    }

    /// Pipes a record with the next automatic timestamp.
    pub fn pipe_input(&self, key: K, value: V) {
        let t = self.next_time();
        self.pipe_record_at(key, value, t, Headers::new());
    }

    /// Pipes a record with timestamp `timestamp`.
    pub fn pipe_input_at(&self, key: K, value: V, timestamp: i64) {
        self.pipe_record_at(key, value, timestamp, Headers::new());
    }

    /// Pipes a record with a null key.
    pub fn pipe_value(&self, value: V) {
        let t = self.next_time();
        self.unwrap(self.try_pipe(None, Some(&value), t, Headers::new()));
    }

    /// Pipes a record with timestamp and headers.
    pub fn pipe_record_at(&self, key: K, value: V, timestamp: i64, headers: Headers) {
        self.unwrap(self.try_pipe_record_at(key, value, timestamp, headers));
    }

    /// Pipes several records with automatic timestamps.
    pub fn pipe_key_values(&self, records: impl IntoIterator<Item = (K, V)>) {
        for (k, v) in records {
            self.pipe_input(k, v);
        }
    }

    /// Pipes a record; returns the task's error instead of panicking.
    pub fn try_pipe_record_at(
        &self,
        key: K,
        value: V,
        timestamp: i64,
        headers: Headers,
    ) -> Result<(), TestError> {
        self.try_pipe(Some(&key), Some(&value), timestamp, headers)
    }

    /// Pipes raw bytes (for example a value that does not deserialize) with a timestamp.
    pub fn pipe_raw(&self, key: Option<&[u8]>, value: Option<&[u8]>, timestamp: i64) {
        let record = RawRecord {
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            timestamp,
            headers: Headers::new(),
        };
        self.unwrap(self.driver.try_pipe_raw(self.topic.name, record));
    }

    /// Pipes a tombstone (null value) for `key`, as a table's delete.
    pub fn pipe_tombstone(&self, key: K, timestamp: i64) {
        self.unwrap(self.try_pipe(Some(&key), None, timestamp, Headers::new()));
    }

    fn try_pipe(
        &self,
        key: Option<&K>,
        value: Option<&V>,
        timestamp: i64,
        headers: Headers,
    ) -> Result<(), TestError> {
        let _serdes = self.driver.serdes.enter();
        let encode = |enc: Result<Encoded, crate::serdes::SerdeError>, buf: Vec<u8>| match enc {
            Ok(Encoded::Present) => Ok(Some(buf)),
            Ok(Encoded::Null) => Ok(None),
            Err(e) => Err(e),
        };
        let key = match key {
            Some(k) => {
                let mut buf = Vec::new();
                let enc = (self.topic.key_ser)(SerdeContext::key(self.topic.name), k, &mut buf);
                encode(enc, buf)
            }
            None => Ok(None),
        };
        let value = match value {
            Some(v) => {
                let mut buf = Vec::new();
                let enc = (self.topic.value_ser)(SerdeContext::value(self.topic.name), v, &mut buf);
                encode(enc, buf)
            }
            None => Ok(None),
        };
        let (key, value) = match (key, value) {
            (Ok(k), Ok(v)) => (k, v),
            (Err(e), _) | (_, Err(e)) => panic!(
                "the test input for {} does not serialize: {e}",
                self.topic.name
            ),
        };
        self.driver.try_pipe_raw(
            self.topic.name,
            RawRecord {
                key,
                value,
                timestamp,
                headers,
            },
        )
    }

    fn unwrap(&self, result: Result<(), TestError>) {
        if let Err(e) = result {
            panic!(
                "the topology failed on a record piped into {}: {e}",
                self.topic.name
            );
        }
    }
}

/// A typed output topic of a [`TestDriver`]: reading consumes the records.
pub struct TestOutputTopic<'d, T: Topology, K, V> {
    pub(super) driver: &'d TestDriver<T>,
    pub(super) topic: TopicRef<K, V>,
}

impl<T: Topology, K, V> TestOutputTopic<'_, T, K, V> {
    /// The next record, or `None` if there is none.
    pub fn read_record(&self) -> Option<TestRecord<K, V>> {
        let (partition, raw) = self.driver.outputs_pop(self.topic.name)?;
        let _serdes = self.driver.serdes.enter();
        let key = (self.topic.key_de)(SerdeContext::key(self.topic.name), raw.key.as_deref());
        let value =
            (self.topic.value_de)(SerdeContext::value(self.topic.name), raw.value.as_deref());
        match (key, value) {
            (Ok(key), Ok(value)) => Some(TestRecord {
                key,
                value,
                timestamp: raw.timestamp,
                headers: raw.headers,
                partition,
            }),
            (Err(e), _) | (_, Err(e)) => panic!(
                "a record of {} does not deserialize with the handle's serdes: {e}",
                self.topic.name
            ),
        }
    }

    /// The next record's value.
    pub fn read_value(&self) -> Option<V> {
        self.read_record().map(|r| r.value)
    }

    /// The next record's key and value.
    pub fn read_key_value(&self) -> Option<(K, V)> {
        self.read_record().map(|r| (r.key, r.value))
    }

    /// All remaining records.
    pub fn read_records_to_list(&self) -> Vec<TestRecord<K, V>> {
        std::iter::from_fn(|| self.read_record()).collect()
    }

    /// All remaining values.
    pub fn read_values_to_list(&self) -> Vec<V> {
        std::iter::from_fn(|| self.read_value()).collect()
    }

    /// All remaining keys and values.
    pub fn read_key_values_to_list(&self) -> Vec<(K, V)> {
        std::iter::from_fn(|| self.read_key_value()).collect()
    }

    /// All remaining records as a map holding the last value of each key.
    pub fn read_key_values_to_map(&self) -> HashMap<K, V>
    where
        K: Eq + Hash,
    {
        std::iter::from_fn(|| self.read_key_value()).collect()
    }

    /// The remaining records as raw bytes.
    pub fn read_raw(&self) -> Option<RawRecord> {
        self.driver.outputs_pop(self.topic.name).map(|(_, r)| r)
    }

    /// Whether no record is left.
    pub fn is_empty(&self) -> bool {
        self.queue_size() == 0
    }

    /// The number of records left.
    pub fn queue_size(&self) -> usize {
        self.driver.outputs_len(self.topic.name)
    }
}
