//! UUIDs as text: Kafka's `UUIDSerializer`.

use super::{Encoded, Serde, SerdeError, present};

/// The length of a UUID's hyphenated text (`123e4567-e89b-12d3-a456-426614174000`).
const HYPHENATED_LEN: usize = 36;

/// A UUID ([`uuid::Uuid`](::uuid::Uuid)) as its 36-character hyphenated text in UTF-8, like
/// Kafka's `UUIDSerializer` (`UUID.toString()`: lower-case hex, not the 16 raw bytes).
///
/// It reads upper- and lower-case hex. It rejects the other forms `java.util.UUID.fromString`
/// also takes (components with fewer digits, such as `1-2-3-4-5`), which no `UUIDSerializer`
/// writes, and the ones the `uuid` crate takes (simple, braced, URN). Name the value type with
/// the `uuid` crate (`uuid = "1"` in your `Cargo.toml`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Uuid;

impl Serde for Uuid {
    type Value = ::uuid::Uuid;
    // Not `true`: upper-case hex reads, but is written back in lower case.
    const BYTES_ROUND_TRIP: bool = false;
    // Kafka's ListSerializer writes UUIDs as constant-size entries of 36 bytes.
    const LIST_ENTRY_SIZE: Option<usize> = Some(HYPHENATED_LEN);
    #[inline]
    fn serialize(value: &::uuid::Uuid, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        let mut buffer = ::uuid::Uuid::encode_buffer();
        out.extend_from_slice(value.hyphenated().encode_lower(&mut buffer).as_bytes());
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<::uuid::Uuid, SerdeError> {
        let bytes = present(bytes)?;
        if bytes.len() != HYPHENATED_LEN {
            return Err(SerdeError::Length {
                expected: HYPHENATED_LEN,
                actual: bytes.len(),
            });
        }
        // 36 bytes parse only in the hyphenated form.
        ::uuid::Uuid::try_parse_ascii(bytes).map_err(SerdeError::Uuid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form() {
        let value = ::uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000);
        let mut out = Vec::new();
        Uuid::serialize(&value, &mut out).expect("serialize");
        assert_eq!(out, b"123e4567-e89b-12d3-a456-426614174000");
        assert_eq!(Uuid::deserialize(Some(&out)).expect("read"), value);
        let upper = b"123E4567-E89B-12D3-A456-426614174000";
        assert_eq!(Uuid::deserialize(Some(upper)).expect("upper"), value);
    }

    #[test]
    fn bad_text_is_an_error() {
        // The 16 raw bytes are not Kafka's format.
        let raw = [7u8; 16];
        let e = Uuid::deserialize(Some(&raw)).expect_err("raw bytes");
        assert!(
            matches!(
                e,
                SerdeError::Length {
                    expected: 36,
                    actual: 16
                }
            ),
            "{e}"
        );
        let simple = b"123e4567e89b12d3a456426614174000";
        assert!(Uuid::deserialize(Some(simple)).is_err());
        let bad = b"123e4567-e89b-12d3-a456-42661417400g";
        let e = Uuid::deserialize(Some(bad)).expect_err("bad hex");
        assert!(e.to_string().contains("UUID"), "{e}");
        let dashes = b"123e4567+e89b-12d3-a456-426614174000";
        assert!(Uuid::deserialize(Some(dashes)).is_err());
        assert!(matches!(Uuid::deserialize(None), Err(SerdeError::Null)));
    }
}
