//! Serializers and deserializers ("serdes") between Rust values and Kafka record bytes.
//!
//! A serde is a *type* (usually a unit struct) implementing [`Serde`]; the topology names it
//! where a stream enters or leaves Kafka (`stream("sentences", Utf8, Utf8)`,
//! `to("word-counts", Utf8, I64)`), and the macro uses `<S as Serde>::Value` as the type of
//! the keys or values at that point.
//!
//! | serde | Rust type | bytes |
//! |---|---|---|
//! | [`Utf8`] | `String` | UTF-8 (Kafka's `StringSerializer`) |
//! | [`I32`] | `i32` | 4 bytes big-endian (Kafka's `IntegerSerializer`) |
//! | [`I64`] | `i64` | 8 bytes big-endian (Kafka's `LongSerializer`) |
//! | [`Bytes`] | `Vec<u8>` | as is |
//! | [`Unit`] | `()` | always null: absent keys |
//! | [`Nullable<S>`] | `Option<S::Value>` | null for `None` |
//! | [`Json<T>`] | `T: Serialize + DeserializeOwned` | JSON via `serde_json` |
//! | [`TimeWindowed<S, SIZE_MS>`] | [`Windowed<S::Value>`] | key bytes + 8-byte big-endian window start (Kafka Streams' `TimeWindowedSerializer`) |
//! | [`SessionWindowed<S>`] | [`Windowed<S::Value>`] | key bytes + 8-byte session end + 8-byte session start, big-endian (Kafka Streams' `SessionWindowedSerializer`) |
//!
//! Implement [`Serde`] for your own formats:
//!
//! ```
//! use dekaf_streams::serdes::{Encoded, Serde, SerdeError};
//!
//! /// A temperature in tenths of a degree, two bytes big-endian.
//! pub struct Decidegrees;
//!
//! impl Serde for Decidegrees {
//!     type Value = i16;
//!     fn serialize(value: &i16, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
//!         out.extend_from_slice(&value.to_be_bytes());
//!         Ok(Encoded::Present)
//!     }
//!     fn deserialize(bytes: Option<&[u8]>) -> Result<i16, SerdeError> {
//!         let Some(bytes) = bytes else {
//!             return Err(SerdeError::Null);
//!         };
//!         let array: [u8; 2] = bytes
//!             .try_into()
//!             .map_err(|_| SerdeError::Length { expected: 2, actual: bytes.len() })?;
//!         Ok(i16::from_be_bytes(array))
//!     }
//! }
//!
//! let mut out = Vec::new();
//! Decidegrees::serialize(&215, &mut out).unwrap();
//! assert_eq!(Decidegrees::deserialize(Some(&out)).unwrap(), 215);
//! ```

use std::marker::PhantomData;

/// The bytes of a record's key or value, or [`SerdeError::Null`] for none. Unlike
/// `bytes.ok_or(SerdeError::Null)` it builds the error only when it is returned: `ok_or` builds
/// it first and then drops it on every present record, and `SerdeError` (which can hold a
/// `String` or a JSON error) has drop glue the compiler does not always remove.
#[inline(always)]
pub(crate) fn present(bytes: Option<&[u8]>) -> Result<&[u8], SerdeError> {
    match bytes {
        Some(bytes) => Ok(bytes),
        None => Err(SerdeError::Null),
    }
}

/// Why bytes could not be turned into a value or back.
#[derive(Debug, thiserror::Error)]
pub enum SerdeError {
    /// The record had no key or value (null) where the serde needs one.
    #[error("unexpected null: this serde needs bytes (use Nullable<S> or Unit for absent data)")]
    Null,
    /// A fixed-size format got the wrong number of bytes.
    #[error("expected {expected} bytes, got {actual}")]
    Length {
        /// The size the format needs.
        expected: usize,
        /// The size the record had.
        actual: usize,
    },
    /// The bytes were not valid UTF-8.
    #[error("invalid UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    /// JSON could not be read or written.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Any other failure of a user serde.
    #[error("{0}")]
    Custom(String),
}

/// Whether [`Serde::serialize`] wrote bytes or means a null key or value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoded {
    /// The bytes appended to the buffer are the key or value.
    Present,
    /// The key or value is null (absent); the buffer is ignored.
    Null,
}

/// Converts values of one type to Kafka bytes and back.
///
/// Serdes are types, not values: the topology names them (`Utf8`, `Json::<Order>`), and the
/// compiled tasks call the associated functions directly, so there is no dispatch.
pub trait Serde: 'static {
    /// The Rust type this serde reads and writes.
    type Value;

    /// Appends the bytes of `value` to `out` (which the caller cleared) and says whether they
    /// are the record's bytes or the record has a null key or value.
    fn serialize(value: &Self::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError>;

    /// Reads a value from the record's bytes; `None` is a null key or value.
    fn deserialize(bytes: Option<&[u8]>) -> Result<Self::Value, SerdeError>;

    /// Whether [`deserialize`](Self::deserialize) would succeed, without building the value.
    ///
    /// A compiled task calls this instead of `deserialize` where nothing reads the value (the
    /// value of a record counted by `count()`), so a bad record fails there as it would
    /// otherwise. The default deserializes and drops the value; a serde whose values allocate
    /// can check cheaper (`Utf8` validates the bytes without copying them).
    #[inline]
    fn check(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize(bytes).map(drop)
    }

    /// Whether bytes that [`deserialize`](Self::deserialize) accepts are exactly the bytes
    /// [`serialize`](Self::serialize) writes for the value read from them (UTF-8 text,
    /// fixed-width integers, raw bytes).
    ///
    /// When it is `true`, a compiled task stores and forwards a key that reaches an aggregation
    /// unchanged as the record's own bytes, checked with [`check`](Self::check) but neither
    /// decoded nor encoded again. Leave it `false` (the default) when decoding normalizes
    /// (JSON: whitespace, number forms, field order) or ignores bytes (`Unit`): the store key must
    /// be the one encoding of the value, or equal keys would count apart.
    const BYTES_ROUND_TRIP: bool = false;
}

/// UTF-8 text as `String`, like Kafka's `StringSerializer`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Utf8;

impl Serde for Utf8 {
    type Value = String;
    const BYTES_ROUND_TRIP: bool = true;
    #[inline]
    fn serialize(value: &String, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        out.extend_from_slice(value.as_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<String, SerdeError> {
        let bytes = present(bytes)?;
        Ok(std::str::from_utf8(bytes)?.to_owned())
    }
    #[inline]
    fn check(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        std::str::from_utf8(present(bytes)?)?;
        Ok(())
    }
}

macro_rules! big_endian {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $n:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;

        impl Serde for $name {
            type Value = $ty;
            const BYTES_ROUND_TRIP: bool = true;
            #[inline]
            fn serialize(value: &$ty, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
                out.extend_from_slice(&value.to_be_bytes());
                Ok(Encoded::Present)
            }
            #[inline]
            fn deserialize(bytes: Option<&[u8]>) -> Result<$ty, SerdeError> {
                let bytes = present(bytes)?;
                let array: [u8; $n] = bytes
                    .try_into()
                    .map_err(|_| SerdeError::Length { expected: $n, actual: bytes.len() })?;
                Ok(<$ty>::from_be_bytes(array))
            }
        }
    };
}

big_endian!(
    /// `i32` as 4 bytes big-endian, like Kafka's `IntegerSerializer`.
    I32, i32, 4
);
big_endian!(
    /// `i64` as 8 bytes big-endian, like Kafka's `LongSerializer`.
    I64, i64, 8
);

/// Raw bytes as `Vec<u8>`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bytes;

impl Serde for Bytes {
    type Value = Vec<u8>;
    const BYTES_ROUND_TRIP: bool = true;
    #[inline]
    fn serialize(value: &Vec<u8>, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        out.extend_from_slice(value);
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<Vec<u8>, SerdeError> {
        Ok(present(bytes)?.to_vec())
    }
    #[inline]
    fn check(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        present(bytes).map(drop)
    }
}

/// No data: `()`. Writes a null key or value and reads anything (usually a null key) as `()`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unit;

impl Serde for Unit {
    type Value = ();
    #[inline]
    fn serialize(_: &(), _: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        Ok(Encoded::Null)
    }
    #[inline]
    fn deserialize(_: Option<&[u8]>) -> Result<(), SerdeError> {
        Ok(())
    }
}

/// `Option<S::Value>`: `None` is a null key or value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nullable<S>(PhantomData<fn() -> S>);

impl<S: Serde> Serde for Nullable<S> {
    type Value = Option<S::Value>;
    const BYTES_ROUND_TRIP: bool = S::BYTES_ROUND_TRIP;
    #[inline]
    fn serialize(value: &Self::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        match value {
            Some(value) => S::serialize(value, out),
            None => Ok(Encoded::Null),
        }
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<Self::Value, SerdeError> {
        match bytes {
            Some(bytes) => S::deserialize(Some(bytes)).map(Some),
            None => Ok(None),
        }
    }
    #[inline]
    fn check(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        match bytes {
            Some(bytes) => S::check(Some(bytes)),
            None => Ok(()),
        }
    }
}

/// JSON through `serde_json`, for any `T: Serialize + DeserializeOwned`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(PhantomData<fn() -> T>);

impl<T> Serde for Json<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned + 'static,
{
    type Value = T;
    #[inline]
    fn serialize(value: &T, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        serde_json::to_writer(&mut *out, value)?;
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        Ok(serde_json::from_slice(present(bytes)?)?)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<S: Serde>(value: S::Value) -> (Vec<u8>, S::Value) {
        let mut out = Vec::new();
        let encoded = S::serialize(&value, &mut out).expect("serialize");
        let back = match encoded {
            Encoded::Present => S::deserialize(Some(&out)),
            Encoded::Null => S::deserialize(None),
        }
        .expect("deserialize");
        (out, back)
    }

    #[test]
    fn kafka_layouts() {
        assert_eq!(roundtrip::<I64>(1).0, [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(roundtrip::<I32>(-2).0, [0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(roundtrip::<Utf8>("héllo".into()).1, "héllo");
        let (bytes, back) =
            roundtrip::<TimeWindowed<Utf8, 60_000>>(Windowed::new("a".into(), 120_000, 180_000));
        assert_eq!(bytes, [b'a', 0, 0, 0, 0, 0, 1, 0xd4, 0xc0]);
        assert_eq!(back, Windowed::new("a".to_owned(), 120_000, 180_000));
        assert_eq!(roundtrip::<Nullable<I32>>(None).1, None);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(
            I64::deserialize(Some(&[1, 2])),
            Err(SerdeError::Length {
                expected: 8,
                actual: 2
            })
        ));
        assert!(matches!(Utf8::deserialize(None), Err(SerdeError::Null)));
        assert!(Utf8::deserialize(Some(&[0xff])).is_err());
        assert!(Json::<Vec<i32>>::deserialize(Some(b"{")).is_err());
        assert!(TimeWindowed::<Utf8, 1>::deserialize(Some(b"abc")).is_err());
        // SessionWindowedSerializer: key, end, start.
        let (bytes, back) = roundtrip::<SessionWindowed<Utf8>>(Windowed::new("a".into(), 5, 9));
        assert_eq!(
            bytes,
            [b"a".as_slice(), &9i64.to_be_bytes(), &5i64.to_be_bytes()].concat()
        );
        assert_eq!(back, Windowed::new("a".to_owned(), 5, 9));
        assert!(SessionWindowed::<Utf8>::deserialize(Some(&[0; 15])).is_err());
    }
}
