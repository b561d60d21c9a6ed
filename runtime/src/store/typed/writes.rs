//! Where a typed store view's writes go: the store, and its changelog partition as one record
//! stamped with the processed record's timestamp.

use crate::record::{OutgoingRecord, RecordSink};
use crate::serdes::Serde;
use crate::store::{StoreBackend, StoreError};

/// Where a view's writes go: the changelog partition, the record's timestamp, the buffers.
pub(super) struct Writes<'a, S> {
    pub changelog: &'static str,
    pub partition: i32,
    pub timestamp: i64,
    pub key_buf: &'a mut Vec<u8>,
    pub value_buf: &'a mut Vec<u8>,
    pub sink: &'a mut S,
}

impl<'a, S: RecordSink> Writes<'a, S> {
    /// Where the writes of a view go (the arguments of generated code's calls).
    pub(super) fn new(
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        key_buf: &'a mut Vec<u8>,
        value_buf: &'a mut Vec<u8>,
        sink: &'a mut S,
    ) -> Self {
        Writes {
            changelog,
            partition,
            timestamp,
            key_buf,
            value_buf,
            sink,
        }
    }

    /// The value stored in `backend` under the key in the key buffer, decoded.
    pub(super) fn get<VS: Serde, B: StoreBackend>(
        &self,
        backend: &mut B,
    ) -> Result<Option<VS::Value>, StoreError> {
        match backend.get(self.key_buf)? {
            Some(bytes) => Ok(Some(VS::deserialize(Some(bytes))?)),
            None => Ok(None),
        }
    }

    /// Stores the entry in the buffers in `backend` and writes its changelog record.
    pub(super) fn put<B: StoreBackend>(&mut self, backend: &mut B) -> Result<(), StoreError> {
        backend.put(self.key_buf, self.value_buf)?;
        self.log(true)
    }

    /// Deletes the key in the key buffer from `backend`; if it was there, writes a changelog
    /// tombstone. Whether it was there.
    pub(super) fn delete<B: StoreBackend>(&mut self, backend: &mut B) -> Result<bool, StoreError> {
        let deleted = backend.delete(self.key_buf)?;
        if deleted {
            self.log(false)?;
        }
        Ok(deleted)
    }

    /// Writes the changelog record of store key `key_buf` (`value_buf` or, `None`, a
    /// tombstone).
    fn log(&mut self, value: bool) -> Result<(), StoreError> {
        self.sink.send(OutgoingRecord::changelog(
            self.changelog,
            self.partition,
            self.key_buf,
            value.then_some(&self.value_buf[..]),
            self.timestamp,
        ))?;
        Ok(())
    }
}
