//! `Changed<S>`: the bytes of a [`Change`] on a re-grouped table's repartition topic, as Kafka
//! Streams 4.4's `ChangedSerializer`/`ChangedDeserializer` write them, so a Java peer reads ours
//! and we read its: `old ‖ 0x00` (only an old value), `new ‖ 0x01` (only a new value), or
//! `varint(len(new)) ‖ new ‖ old ‖ 0x02` (both; the varint is Kafka's zig-zag `writeVarint`).

use std::marker::PhantomData;

use super::Change;
use crate::serdes::{Encoded, Serde, SerdeError};

/// The serde of a [`Change`] of values of serde `S`.
pub struct Changed<S>(PhantomData<fn() -> S>);

/// `value` as Kafka's zig-zag varint (`ByteUtils.writeVarint`): the bytes and how many.
fn varint(value: i32) -> ([u8; 5], usize) {
    let mut out = [0u8; 5];
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    let mut n = 0;
    while v & !0x7f != 0 {
        out[n] = ((v & 0x7f) | 0x80) as u8;
        v >>= 7;
        n += 1;
    }
    out[n] = v as u8;
    (out, n + 1)
}

/// Reads Kafka's zig-zag varint; returns it and the bytes it took.
fn read_varint(bytes: &[u8]) -> Result<(i32, usize), SerdeError> {
    let mut v: u32 = 0;
    for (i, b) in bytes.iter().enumerate().take(5) {
        v |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((((v >> 1) as i32) ^ -((v & 1) as i32), i + 1));
        }
    }
    Err(SerdeError::Custom(
        "a Change's new-value length is not a valid varint: the repartition topic holds records not written by a re-grouped table".to_owned(),
    ))
}

fn present<S: Serde>(value: &S::Value, out: &mut Vec<u8>) -> Result<bool, SerdeError> {
    let start = out.len();
    match S::serialize(value, out)? {
        Encoded::Present => Ok(true),
        Encoded::Null => {
            out.truncate(start);
            Ok(false)
        }
    }
}

impl<S: Serde> Serde for Changed<S> {
    type Value = Change<S::Value>;

    fn serialize(value: &Change<S::Value>, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        let start = out.len();
        let new = match &value.new {
            Some(v) => present::<S>(v, out)?,
            None => false,
        };
        let new_len = out.len() - start;
        let old = match &value.old {
            Some(v) => present::<S>(v, out)?,
            None => false,
        };
        match (new, old) {
            (true, true) => {
                let len = i32::try_from(new_len).map_err(|_| {
                    SerdeError::Custom("a value longer than 2 GiB cannot be repartitioned".into())
                })?;
                let (prefix, n) = varint(len);
                out.splice(start..start, prefix[..n].iter().copied());
                out.push(2);
            }
            (true, false) => out.push(1),
            (false, true) => out.push(0),
            (false, false) => {
                return Err(SerdeError::Custom(
                    "both old and new values are null in a Change (Kafka Streams' ChangedSerializer refuses it too)".into(),
                ));
            }
        }
        Ok(Encoded::Present)
    }

    fn deserialize(bytes: Option<&[u8]>) -> Result<Change<S::Value>, SerdeError> {
        let bytes = crate::serdes::present(bytes)?;
        let Some((&flag, body)) = bytes.split_last() else {
            return Err(SerdeError::Length {
                expected: 1,
                actual: 0,
            });
        };
        let de = |b: &[u8]| S::deserialize(Some(b)).map(Some);
        match flag {
            0 => Ok(Change {
                new: None,
                old: de(body)?,
            }),
            1 => Ok(Change {
                new: de(body)?,
                old: None,
            }),
            2 => {
                let (len, used) = read_varint(body)?;
                let rest = &body[used..];
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= rest.len())
                    .ok_or(SerdeError::Length {
                        expected: len.max(0) as usize,
                        actual: rest.len(),
                    })?;
                Ok(Change {
                    new: de(&rest[..len])?,
                    old: de(&rest[len..])?,
                })
            }
            other => Err(SerdeError::Custom(format!(
                "unknown Change encoding flag {other} (Kafka Streams writes 0, 1 or 2)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serdes::{I64, Utf8};

    fn bytes(c: Change<String>) -> Vec<u8> {
        let mut out = Vec::new();
        Changed::<Utf8>::serialize(&c, &mut out).unwrap();
        out
    }

    /// The bytes of Kafka Streams' `ChangedSerdeTest`-style cases.
    #[test]
    fn bytes_are_kafka_streams_changed_serializer_bytes() {
        let s = |x: &str| Some(x.to_owned());
        assert_eq!(
            bytes(Change {
                new: s("ab"),
                old: None
            }),
            b"ab\x01"
        );
        assert_eq!(
            bytes(Change {
                new: None,
                old: s("xyz")
            }),
            b"xyz\x00"
        );
        // zig-zag varint(2) = 4, then new, then old, then flag 2.
        assert_eq!(
            bytes(Change {
                new: s("ab"),
                old: s("xyz")
            }),
            b"\x04abxyz\x02"
        );
        let long = "n".repeat(200);
        let b = bytes(Change {
            new: Some(long.clone()),
            old: s("o"),
        });
        assert_eq!(&b[..2], &[0x90, 0x03]); // zig-zag 400 = 0x190
        assert_eq!(
            Changed::<Utf8>::deserialize(Some(&b)).unwrap().new,
            Some(long)
        );
        let c = Change {
            new: Some(5i64),
            old: Some(-1),
        };
        let mut out = Vec::new();
        Changed::<I64>::serialize(&c, &mut out).unwrap();
        assert_eq!(Changed::<I64>::deserialize(Some(&out)).unwrap(), c);
        assert!(Changed::<Utf8>::deserialize(Some(b"ab\x07")).is_err());
    }
}
