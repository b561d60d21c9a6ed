//! Text, raw bytes and Java's primitive types: Kafka's `StringSerializer`, `ShortSerializer`,
//! `IntegerSerializer`, `LongSerializer`, `FloatSerializer`, `DoubleSerializer` and
//! `BooleanSerializer`.

use super::{Encoded, Serde, SerdeError, present};

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
            const LIST_ENTRY_SIZE: Option<usize> = Some($n);
            #[inline]
            fn serialize(value: &$ty, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
                out.extend_from_slice(&value.to_be_bytes());
                Ok(Encoded::Present)
            }
            #[inline]
            fn deserialize(bytes: Option<&[u8]>) -> Result<$ty, SerdeError> {
                Ok(<$ty>::from_be_bytes(fixed::<$n>(bytes)?))
            }
        }
    };
}

big_endian!(
    /// `i16` as 2 bytes big-endian, like Kafka's `ShortSerializer`.
    I16, i16, 2
);
big_endian!(
    /// `i32` as 4 bytes big-endian, like Kafka's `IntegerSerializer`.
    I32, i32, 4
);
big_endian!(
    /// `i64` as 8 bytes big-endian, like Kafka's `LongSerializer`.
    I64, i64, 8
);

/// The bytes of a fixed-size value, or [`SerdeError::Length`].
#[inline(always)]
fn fixed<const N: usize>(bytes: Option<&[u8]>) -> Result<[u8; N], SerdeError> {
    let bytes = present(bytes)?;
    bytes.try_into().map_err(|_| SerdeError::Length {
        expected: N,
        actual: bytes.len(),
    })
}

/// `f32` as its IEEE 754 bits, 4 bytes big-endian, like Kafka's `FloatSerializer` (which writes
/// `Float.floatToRawIntBits`: a NaN keeps its payload).
#[derive(Debug, Clone, Copy, Default)]
pub struct F32;

impl Serde for F32 {
    type Value = f32;
    const BYTES_ROUND_TRIP: bool = true;
    const LIST_ENTRY_SIZE: Option<usize> = Some(4);
    #[inline]
    fn serialize(value: &f32, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        out.extend_from_slice(&value.to_bits().to_be_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<f32, SerdeError> {
        Ok(f32::from_bits(u32::from_be_bytes(fixed(bytes)?)))
    }
}

/// The one NaN Java's `Double.doubleToLongBits` writes.
const CANONICAL_NAN_F64: u64 = 0x7ff8_0000_0000_0000;

/// `f64` as its IEEE 754 bits, 8 bytes big-endian, like Kafka's `DoubleSerializer`, which writes
/// `Double.doubleToLongBits`: every NaN as the canonical `0x7ff8000000000000`. Reading keeps a
/// NaN's payload, so NaN bytes other than the canonical ones are written back differently.
#[derive(Debug, Clone, Copy, Default)]
pub struct F64;

impl Serde for F64 {
    type Value = f64;
    // Not `true`: a NaN with a payload reads as a NaN that is written as the canonical one.
    const BYTES_ROUND_TRIP: bool = false;
    const LIST_ENTRY_SIZE: Option<usize> = Some(8);
    #[inline]
    fn serialize(value: &f64, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        let bits = if value.is_nan() {
            CANONICAL_NAN_F64
        } else {
            value.to_bits()
        };
        out.extend_from_slice(&bits.to_be_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<f64, SerdeError> {
        Ok(f64::from_bits(u64::from_be_bytes(fixed(bytes)?)))
    }
    #[inline]
    fn check(bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        fixed::<8>(bytes).map(drop)
    }
}

/// `bool` as one byte, 1 for `true` and 0 for `false`, like Kafka's `BooleanSerializer`; any
/// other byte is an error ([`SerdeError::Boolean`]), as in Kafka's `BooleanDeserializer`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bool;

impl Serde for Bool {
    type Value = bool;
    const BYTES_ROUND_TRIP: bool = true;
    // Kafka's ListSerializer prefixes booleans by their size: BooleanSerializer is not among its
    // fixed-size serializers.
    #[inline]
    fn serialize(value: &bool, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        out.push(u8::from(*value));
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<bool, SerdeError> {
        match fixed::<1>(bytes)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [other] => Err(SerdeError::Boolean(other)),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn write<S: Serde>(value: &S::Value) -> Vec<u8> {
        let mut out = Vec::new();
        S::serialize(value, &mut out).expect("serialize");
        out
    }

    #[test]
    fn java_layouts() {
        assert_eq!(write::<I16>(&-2), [0xff, 0xfe]);
        assert_eq!(I16::deserialize(Some(&[0x80, 0])).expect("read"), i16::MIN);
        assert_eq!(write::<F32>(&1.5), [0x3f, 0xc0, 0, 0]);
        assert_eq!(write::<F64>(&-0.0), [0x80, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            F64::deserialize(Some(&write::<F64>(&0.1))).expect("read"),
            0.1
        );
        assert_eq!(write::<Bool>(&true), [1]);
        assert_eq!(write::<Bool>(&false), [0]);
        assert!(Bool::deserialize(Some(&[1])).expect("read"));
    }

    #[test]
    fn nan_bits() {
        // DoubleSerializer writes Double.doubleToLongBits: one NaN.
        let payload = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(
            write::<F64>(&payload),
            0x7ff8_0000_0000_0000u64.to_be_bytes()
        );
        // .. but reading keeps the payload, as Double.longBitsToDouble does.
        let read = F64::deserialize(Some(&0xfff0_0000_0000_0002u64.to_be_bytes())).expect("read");
        assert_eq!(read.to_bits(), 0xfff0_0000_0000_0002);
        // FloatSerializer writes Float.floatToRawIntBits: the payload stays.
        let payload = f32::from_bits(0x7fc0_0001);
        assert_eq!(write::<F32>(&payload), [0x7f, 0xc0, 0, 1]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let e = Bool::deserialize(Some(&[2])).expect_err("2 is no boolean");
        assert!(matches!(e, SerdeError::Boolean(2)), "{e}");
        assert!(matches!(
            Bool::deserialize(Some(&[])),
            Err(SerdeError::Length {
                expected: 1,
                actual: 0
            })
        ));
        assert!(matches!(
            F32::deserialize(Some(&[0; 8])),
            Err(SerdeError::Length {
                expected: 4,
                actual: 8
            })
        ));
        assert!(matches!(
            F64::check(Some(&[0; 4])),
            Err(SerdeError::Length {
                expected: 8,
                actual: 4
            })
        ));
        assert!(matches!(I16::deserialize(None), Err(SerdeError::Null)));
    }
}
