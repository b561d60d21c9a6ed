//! The Confluent wire format: a magic byte 0, the schema id in 4 bytes big-endian, then the
//! encoded record (for Avro, its binary encoding without a header).

use crate::serdes::SerdeError;

/// The first byte of every framed record.
pub const MAGIC_BYTE: u8 = 0;

/// Bytes before the payload: the magic byte and the schema id.
pub const HEADER_LEN: usize = 5;

/// Appends the header of schema `id` to `out`.
#[inline]
pub fn write_header(id: u32, out: &mut Vec<u8>) {
    out.push(MAGIC_BYTE);
    out.extend_from_slice(&id.to_be_bytes());
}

/// The schema id and the payload of framed `bytes`, or the error naming what is wrong.
#[inline]
pub fn read_header(bytes: &[u8]) -> Result<(u32, &[u8]), SerdeError> {
    match bytes {
        [MAGIC_BYTE, a, b, c, d, payload @ ..] => {
            Ok((u32::from_be_bytes([*a, *b, *c, *d]), payload))
        }
        [MAGIC_BYTE, ..] => Err(SerdeError::Schema {
            schema_id: None,
            reason: format!(
                "{} bytes are too short for the Confluent wire format (magic byte, 4-byte schema id, data)",
                bytes.len()
            ),
        }),
        [other, ..] => Err(SerdeError::Schema {
            schema_id: None,
            reason: format!(
                "magic byte {other}, expected 0: not written in the Confluent wire format of a schema registry serializer"
            ),
        }),
        [] => Err(SerdeError::Schema {
            schema_id: None,
            reason: "no bytes: the Confluent wire format needs at least 5".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_bad_input() {
        let mut out = Vec::new();
        write_header(258, &mut out);
        out.push(42);
        assert_eq!(out, [0, 0, 0, 1, 2, 42]);
        let (id, payload) = read_header(&out).expect("framed");
        assert_eq!((id, payload), (258, &[42u8][..]));
        assert!(read_header(&[1, 0, 0, 0, 1]).is_err());
        assert!(read_header(&[0, 0, 1]).is_err());
        assert!(read_header(&[]).is_err());
        // A header without data is a valid frame (an empty Avro record).
        assert_eq!(read_header(&[0, 0, 0, 0, 7]).expect("header").0, 7);
    }
}
