//! Absent data: [`Unit`] and [`Void`] (nothing at all) and [`Nullable`] (a value or nothing).

use std::marker::PhantomData;

use super::{Encoded, Serde, SerdeContext, SerdeError};

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

/// Always null: `()`, like Kafka's `VoidSerializer`. Unlike [`Unit`] it reads only a null key or
/// value and rejects bytes ([`SerdeError::NotNull`]), as Kafka's `VoidDeserializer` does.
#[derive(Debug, Clone, Copy, Default)]
pub struct Void;

impl Serde for Void {
    type Value = ();
    #[inline]
    fn serialize(_: &(), _: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        Ok(Encoded::Null)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        match bytes {
            None => Ok(()),
            Some(bytes) => Err(SerdeError::NotNull {
                actual: bytes.len(),
            }),
        }
    }
}

/// `Option<S::Value>`: `None` is a null key or value.
///
/// As the entry serde of a [`ListOf`](super::ListOf), `None` is a null entry of the list.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nullable<S>(PhantomData<fn() -> S>);

impl<S: Serde> Serde for Nullable<S> {
    type Value = Option<S::Value>;
    const BYTES_ROUND_TRIP: bool = S::BYTES_ROUND_TRIP;
    const LIST_ENTRY_SIZE: Option<usize> = S::LIST_ENTRY_SIZE;
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

    /// The inner serde's: `Nullable<Avro<T>>` checks `T`'s schema.
    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), super::StartCheckError> {
        S::check_at_start(cx)
    }

    #[inline(always)]
    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &Self::Value,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        match value {
            Some(value) => S::serialize_in(cx, value, out),
            None => Ok(Encoded::Null),
        }
    }
    #[inline(always)]
    fn deserialize_in(
        cx: SerdeContext<'_>,
        bytes: Option<&[u8]>,
    ) -> Result<Self::Value, SerdeError> {
        match bytes {
            Some(bytes) => S::deserialize_in(cx, Some(bytes)).map(Some),
            None => Ok(None),
        }
    }
    #[inline(always)]
    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        match bytes {
            Some(bytes) => S::check_in(cx, Some(bytes)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn void_is_always_null() {
        let mut out = Vec::new();
        assert_eq!(
            Void::serialize(&(), &mut out).expect("write"),
            Encoded::Null
        );
        Void::deserialize(None).expect("null is ()");
        let e = Void::deserialize(Some(&[])).expect_err("bytes, even none, are not null");
        assert!(matches!(e, SerdeError::NotNull { actual: 0 }), "{e}");
        // Unit reads anything.
        Unit::deserialize(Some(b"x")).expect("Unit ignores the bytes");
    }
}
