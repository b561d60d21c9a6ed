//! The typed view of a key-value store that `process(...)` closures use.

use std::marker::PhantomData;
use std::ops::Bound;

use super::{Writes, as_slice_bound, encode_bound};
use crate::record::RecordSink;
use crate::serdes::{Encoded, Serde};
use crate::store::{StoreBackend, StoreError, encode};

/// Decoded entries of a store with serdes `KS` and `VS`.
pub type Pairs<KS, VS> = Vec<(<KS as Serde>::Value, <VS as Serde>::Value)>;

/// The typed view of a key-value store inside a `process(...)` closure: every write goes to
/// the backend and, as one changelog record, to the task's changelog partition.
///
/// `KS` and `VS` are the serdes the store was declared with
/// (`store("seen", Utf8, I64)`): keys are `KS::Value`, values `VS::Value`.
pub struct KeyValueStore<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> {
    backend: &'a mut B,
    writes: Writes<'a, S>,
    serdes: PhantomData<fn() -> (KS, VS)>,
}

impl<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> KeyValueStore<'a, KS, VS, B, S> {
    /// A view of `backend` writing its changelog to `changelog` partition `partition` (used by
    /// generated code).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        backend: &'a mut B,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        key_buf: &'a mut Vec<u8>,
        value_buf: &'a mut Vec<u8>,
        sink: &'a mut S,
    ) -> Self {
        KeyValueStore {
            backend,
            writes: Writes::new(changelog, partition, timestamp, key_buf, value_buf, sink),
            serdes: PhantomData,
        }
    }

    /// The value stored under `key`.
    pub fn get(&mut self, key: &KS::Value) -> Result<Option<VS::Value>, StoreError> {
        encode::<KS>(key, self.writes.key_buf)?;
        self.writes.get::<VS, B>(self.backend)
    }

    /// Stores `value` under `key` and writes the changelog record.
    pub fn put(&mut self, key: &KS::Value, value: &VS::Value) -> Result<(), StoreError> {
        encode::<KS>(key, self.writes.key_buf)?;
        if encode::<VS>(value, self.writes.value_buf)? == Encoded::Null {
            self.writes.delete(self.backend)?;
            return Ok(());
        }
        self.writes.put(self.backend)
    }

    /// Removes `key` and writes a tombstone to the changelog if it was there.
    pub fn delete(&mut self, key: &KS::Value) -> Result<(), StoreError> {
        encode::<KS>(key, self.writes.key_buf)?;
        self.writes.delete(self.backend)?;
        Ok(())
    }

    /// The entries whose keys lie between the bounds, ordered by serialized key bytes (as Kafka
    /// Streams orders them: for `I64` keys that is numeric order of non-negative numbers, for
    /// `Utf8` keys byte order). Collects into a `Vec`.
    pub fn range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
    ) -> Result<Pairs<KS, VS>, StoreError> {
        let w = &mut self.writes;
        let from = encode_bound::<KS>(from, w.key_buf)?;
        let to = encode_bound::<KS>(to, w.value_buf)?;
        let from = as_slice_bound(&from, w.key_buf);
        let to = as_slice_bound(&to, w.value_buf);
        let mut out = Vec::new();
        for entry in self.backend.range(from, to)? {
            let (k, v) = entry?;
            out.push((KS::deserialize(Some(k))?, VS::deserialize(Some(v))?));
        }
        Ok(out)
    }

    /// Every entry, ordered by serialized key bytes.
    pub fn all(&mut self) -> Result<Pairs<KS, VS>, StoreError> {
        self.range(Bound::Unbounded, Bound::Unbounded)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.backend.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.backend.is_empty()
    }
}
