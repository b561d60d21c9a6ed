//! The keys of windowed aggregations: [`Windowed`] values and Kafka Streams' two layouts.

use std::marker::PhantomData;

use super::{Encoded, Serde, SerdeError, present};

/// A time window: `[start, end)` in milliseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Window {
    /// Inclusive start.
    pub start: i64,
    /// Exclusive end.
    pub end: i64,
}

/// A key of a windowed aggregation: the grouping key and its window.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Windowed<K> {
    /// The grouping key.
    pub key: K,
    /// The window.
    pub window: Window,
}

impl<K> Windowed<K> {
    /// A windowed key.
    pub fn new(key: K, start: i64, end: i64) -> Self {
        Windowed {
            key,
            window: Window { start, end },
        }
    }
}

/// Windowed keys of fixed-size time windows, laid out as Kafka Streams'
/// `TimeWindowedSerializer` does: the inner key's bytes followed by the window start as 8 bytes
/// big-endian. The window end is not written; the reader adds `SIZE_MS` to the start.
///
/// In a topology write `TimeWindowed::<Utf8>`: the macro fills in the window size of the
/// stream (or checks it, if you write it).
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeWindowed<S, const SIZE_MS: i64>(PhantomData<fn() -> S>);

impl<S: Serde, const SIZE_MS: i64> Serde for TimeWindowed<S, SIZE_MS> {
    type Value = Windowed<S::Value>;
    #[inline]
    fn serialize(value: &Self::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        S::serialize(&value.key, out)?;
        out.extend_from_slice(&value.window.start.to_be_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<Self::Value, SerdeError> {
        let bytes = present(bytes)?;
        let Some(split) = bytes.len().checked_sub(8) else {
            return Err(SerdeError::Length {
                expected: 8,
                actual: bytes.len(),
            });
        };
        let (key, start) = bytes.split_at(split);
        let mut array = [0u8; 8];
        array.copy_from_slice(start);
        let start = i64::from_be_bytes(array);
        Ok(Windowed::new(
            S::deserialize(Some(key))?,
            start,
            start.saturating_add(SIZE_MS),
        ))
    }
}

/// Windowed keys of session windows, laid out as Kafka Streams' `SessionWindowedSerializer`
/// does: the inner key's bytes, then the session end, then its start, each 8 bytes big-endian.
/// A session's bounds are both inclusive (`[start, end]`, `start == end` for one record).
///
/// In a topology write `SessionWindowed::<Utf8>` for the keys of a `session(..)` aggregation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SessionWindowed<S>(PhantomData<fn() -> S>);

impl<S: Serde> Serde for SessionWindowed<S> {
    type Value = Windowed<S::Value>;
    #[inline]
    fn serialize(value: &Self::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        S::serialize(&value.key, out)?;
        out.extend_from_slice(&value.window.end.to_be_bytes());
        out.extend_from_slice(&value.window.start.to_be_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<Self::Value, SerdeError> {
        let bytes = present(bytes)?;
        let Some((key, start, end)) = crate::window::split_session_key(bytes) else {
            return Err(SerdeError::Length {
                expected: 16,
                actual: bytes.len(),
            });
        };
        Ok(Windowed::new(S::deserialize(Some(key))?, start, end))
    }
}
