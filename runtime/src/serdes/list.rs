//! Lists: Kafka's `ListSerializer` and `ListDeserializer` (KIP-466, as in Kafka 4.4).
//!
//! The layout, all integers 4 bytes big-endian (Java's `DataOutputStream.writeInt`):
//!
//! - one byte, the serialization strategy: `0` (`CONSTANT_SIZE`) when the entry serializer is one
//!   of Kafka's fixed-size ones (`Short`, `Integer`, `Float`, `Long`, `Double` and `UUID`
//!   serializers), `1` (`VARIABLE_SIZE`) for every other;
//! - `CONSTANT_SIZE` only: the number of null entries, then the index of each;
//! - the number of entries;
//! - each entry: `CONSTANT_SIZE` writes a non-null entry's bytes alone and nothing for a null
//!   one; `VARIABLE_SIZE` writes the size then the bytes, and the size `-1` for a null entry.
//!
//! A null list is a null record, an empty list is not: `[1, 0, 0, 0, 0]` for size-prefixed
//! entries.

use std::marker::PhantomData;

use super::{Encoded, Serde, SerdeError, present};

/// The strategy byte of constant-size entries (`SerializationStrategy.CONSTANT_SIZE.ordinal()`).
const CONSTANT_SIZE: u8 = 0;
/// The strategy byte of size-prefixed entries (`SerializationStrategy.VARIABLE_SIZE.ordinal()`).
const VARIABLE_SIZE: u8 = 1;
/// The size written for a null entry among size-prefixed ones.
const NULL_ENTRY: i32 = -1;

/// A list of values of serde `S` as `Vec<S::Value>`, like Kafka's `ListSerializer` with `S`'s
/// Java serializer inside (`Serdes.ListSerde(ArrayList.class, Serdes.Integer())` is
/// `ListOf<I32>`).
///
/// Entries of [`I16`](super::I16), [`I32`](super::I32), [`I64`](super::I64),
/// [`F32`](super::F32), [`F64`](super::F64) and [`Uuid`](super::Uuid) are written without size
/// prefixes, as Kafka writes its fixed-size serializers' entries (see [`Serde::LIST_ENTRY_SIZE`]);
/// all others are size-prefixed. Null entries are the entries whose serde writes null: use
/// `ListOf<Nullable<S>>` (`Vec<Option<_>>`) for a list that has them; with `ListOf<S>` a null
/// entry is an error ([`SerdeError::ListEntry`] around [`SerdeError::Null`]). A null record is
/// an error too ([`SerdeError::Null`]): `Nullable<ListOf<S>>` reads it as `None`.
///
/// Reading is stricter than Kafka's `ListDeserializer`, which ignores bytes after the last entry
/// and null-entry indexes past the end: both are errors here ([`SerdeError::List`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ListOf<S>(PhantomData<fn() -> S>);

impl<S: Serde> Serde for ListOf<S> {
    type Value = Vec<S::Value>;

    fn serialize(value: &Vec<S::Value>, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        let len = count(value.len(), "entries")?;
        match S::LIST_ENTRY_SIZE {
            Some(size) => {
                // The null indexes come first, so the entries are written aside.
                let mut entries = Vec::with_capacity(value.len().saturating_mul(size));
                let mut nulls = Vec::new();
                for (index, entry) in value.iter().enumerate() {
                    let start = entries.len();
                    match S::serialize(entry, &mut entries).map_err(|e| in_entry(index, e))? {
                        Encoded::Null => {
                            entries.truncate(start);
                            nulls.push(count(index, "entries")?);
                        }
                        Encoded::Present if entries.len() - start == size => {}
                        Encoded::Present => {
                            return Err(in_entry(
                                index,
                                SerdeError::Custom(format!(
                                    "wrote {} bytes, but its serde declares LIST_ENTRY_SIZE = {size}: fix the serde's LIST_ENTRY_SIZE",
                                    entries.len() - start
                                )),
                            ));
                        }
                    }
                }
                out.reserve(9 + 4 * nulls.len() + entries.len());
                out.push(CONSTANT_SIZE);
                out.extend_from_slice(&count(nulls.len(), "null entries")?.to_be_bytes());
                for index in nulls {
                    out.extend_from_slice(&index.to_be_bytes());
                }
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(&entries);
            }
            None => {
                out.push(VARIABLE_SIZE);
                out.extend_from_slice(&len.to_be_bytes());
                for (index, entry) in value.iter().enumerate() {
                    let prefix = out.len();
                    out.extend_from_slice(&NULL_ENTRY.to_be_bytes());
                    match S::serialize(entry, out).map_err(|e| in_entry(index, e))? {
                        Encoded::Null => out.truncate(prefix + 4),
                        Encoded::Present => {
                            let size = count(out.len() - prefix - 4, "bytes in an entry")
                                .map_err(|e| in_entry(index, e))?;
                            out[prefix..prefix + 4].copy_from_slice(&size.to_be_bytes());
                        }
                    }
                }
            }
        }
        Ok(Encoded::Present)
    }

    fn deserialize(bytes: Option<&[u8]>) -> Result<Vec<S::Value>, SerdeError> {
        let mut reader = Reader {
            bytes: present(bytes)?,
            at: 0,
        };
        let list = match reader.byte()? {
            CONSTANT_SIZE => {
                let Some(size) = S::LIST_ENTRY_SIZE else {
                    return Err(reader.error(
                        "the entries are constant-size (strategy byte 0), which Kafka's ListSerializer writes only for its Short, Integer, Float, Long, Double and UUID serializers, but this list's entry serde has no constant size: read the list with the entry serde it was written with".to_owned(),
                    ));
                };
                let null_count = reader.count("null entries")?;
                let mut nulls = Vec::with_capacity(null_count.min(reader.remaining() / 4));
                for _ in 0..null_count {
                    nulls.push(reader.count("the index of a null entry")?);
                }
                nulls.sort_unstable();
                let len = reader.count("entries")?;
                if let Some(&last) = nulls.last()
                    && last >= len
                {
                    return Err(reader.error(format!(
                        "null entry index {last} is past the end of the list of {len} entries"
                    )));
                }
                let mut list = Vec::with_capacity(len.min(reader.remaining() / size.max(1)));
                for index in 0..len {
                    let bytes = if nulls.binary_search(&index).is_ok() {
                        None
                    } else {
                        Some(reader.take(size, index)?)
                    };
                    list.push(S::deserialize(bytes).map_err(|e| in_entry(index, e))?);
                }
                list
            }
            VARIABLE_SIZE => {
                let len = reader.count("entries")?;
                let mut list = Vec::with_capacity(len.min(reader.remaining() / 4));
                for index in 0..len {
                    let size = reader.i32()?;
                    let bytes = match size {
                        NULL_ENTRY => None,
                        size => match usize::try_from(size) {
                            Ok(size) => Some(reader.take(size, index)?),
                            Err(_) => {
                                return Err(reader.error(format!(
                                    "entry {index} has the size {size} (-1 is a null entry, others cannot be negative)"
                                )));
                            }
                        },
                    };
                    list.push(S::deserialize(bytes).map_err(|e| in_entry(index, e))?);
                }
                list
            }
            other => {
                return Err(SerdeError::List {
                    offset: 0,
                    problem: format!(
                        "unknown serialization strategy byte {other} (Kafka writes 0 for constant-size entries, 1 for size-prefixed ones)"
                    ),
                });
            }
        };
        if reader.remaining() > 0 {
            return Err(reader.error(format!(
                "{} bytes follow the last of its {} entries",
                reader.remaining(),
                list.len()
            )));
        }
        Ok(list)
    }
}

/// `n` as the `int` Kafka writes, or an error: a list cannot hold more than `i32::MAX` of `what`.
fn count(n: usize, what: &str) -> Result<i32, SerdeError> {
    i32::try_from(n).map_err(|_| {
        SerdeError::Custom(format!(
            "a list cannot have more than {} {what} (Kafka counts them in an int); got {n}",
            i32::MAX
        ))
    })
}

/// `error` of the entry at `index`.
fn in_entry(index: usize, error: SerdeError) -> SerdeError {
    SerdeError::ListEntry {
        index,
        source: Box::new(error),
    }
}

/// Reads a list's bytes front to back.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn error(&self, problem: String) -> SerdeError {
        SerdeError::List {
            offset: self.at,
            problem,
        }
    }

    fn bytes(&mut self, n: usize, what: impl FnOnce() -> String) -> Result<&'a [u8], SerdeError> {
        if self.remaining() < n {
            return Err(self.error(format!(
                "the bytes end within {}: {n} bytes needed, {} left",
                what(),
                self.remaining()
            )));
        }
        let bytes = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(bytes)
    }

    fn byte(&mut self) -> Result<u8, SerdeError> {
        Ok(self.bytes(1, || "the strategy byte".to_owned())?[0])
    }

    fn i32(&mut self) -> Result<i32, SerdeError> {
        let mut array = [0u8; 4];
        array.copy_from_slice(self.bytes(4, || "a 4-byte count".to_owned())?);
        Ok(i32::from_be_bytes(array))
    }

    /// A count or index, which cannot be negative.
    fn count(&mut self, what: &str) -> Result<usize, SerdeError> {
        let n = self.i32()?;
        usize::try_from(n).map_err(|_| SerdeError::List {
            offset: self.at - 4,
            problem: format!("the number of {what} is negative ({n})"),
        })
    }

    fn take(&mut self, n: usize, index: usize) -> Result<&'a [u8], SerdeError> {
        self.bytes(n, || format!("entry {index}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serdes::{Bool, I32, Nullable, Utf8};

    fn write<S: Serde>(value: &S::Value) -> Vec<u8> {
        let mut out = Vec::new();
        assert_eq!(
            S::serialize(value, &mut out).expect("serialize"),
            Encoded::Present
        );
        out
    }

    #[test]
    fn constant_size_entries() {
        let bytes = write::<ListOf<Nullable<I32>>>(&vec![Some(1), None, Some(-1)]);
        assert_eq!(
            bytes,
            [
                &[0][..],
                &[0, 0, 0, 1],             // one null entry
                &[0, 0, 0, 1],             // at index 1
                &[0, 0, 0, 3],             // three entries
                &[0, 0, 0, 1],             // 1
                &[0xff, 0xff, 0xff, 0xff], // -1
            ]
            .concat()
        );
        assert_eq!(
            ListOf::<Nullable<I32>>::deserialize(Some(&bytes)).expect("read"),
            [Some(1), None, Some(-1)]
        );
        // Without Nullable the null entry is an error that names it.
        let e = ListOf::<I32>::deserialize(Some(&bytes)).expect_err("null entry");
        assert!(
            matches!(&e, SerdeError::ListEntry { index: 1, source } if matches!(**source, SerdeError::Null)),
            "{e}"
        );
        assert_eq!(write::<ListOf<I32>>(&vec![]), [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn size_prefixed_entries() {
        let value = vec![Some("ab".to_owned()), None, Some(String::new())];
        let bytes = write::<ListOf<Nullable<Utf8>>>(&value);
        assert_eq!(
            bytes,
            [
                &[1][..],
                &[0, 0, 0, 3],
                &[0, 0, 0, 2],
                b"ab",
                &[0xff, 0xff, 0xff, 0xff],
                &[0, 0, 0, 0],
            ]
            .concat()
        );
        assert_eq!(
            ListOf::<Nullable<Utf8>>::deserialize(Some(&bytes)).expect("read"),
            value
        );
        // Booleans are size-prefixed: BooleanSerializer is not one of Kafka's fixed-size ones.
        assert_eq!(
            write::<ListOf<Bool>>(&vec![true]),
            [1, 0, 0, 0, 1, 0, 0, 0, 1, 1]
        );
        assert_eq!(write::<ListOf<Utf8>>(&vec![]), [1, 0, 0, 0, 0]);
        // Kafka's deserializer takes either strategy for a fixed-size entry serde.
        let prefixed = [1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7];
        assert_eq!(
            ListOf::<I32>::deserialize(Some(&prefixed)).expect("read"),
            [7]
        );
    }

    #[test]
    fn corrupt_lists_are_errors() {
        let cases: &[(&[u8], &str)] = &[
            (&[], "strategy byte"),
            (&[2], "unknown serialization strategy byte 2"),
            (&[1, 0, 0, 0], "4-byte count"),
            (&[1, 0xff, 0xff, 0xff, 0xfe], "negative"),
            (&[1, 0, 0, 0, 1, 0, 0, 0, 5, b'a'], "within entry 0"),
            (&[1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], "size -2"),
            (&[1, 0, 0, 0, 0, 9], "1 bytes follow"),
            (&[0, 0, 0, 0, 0, 0, 0, 0, 0], "constant-size"), // Utf8 has no constant size
        ];
        for (bytes, expected) in cases {
            let e = ListOf::<Utf8>::deserialize(Some(bytes)).expect_err("corrupt");
            assert!(e.to_string().contains(expected), "{bytes:?}: {e}");
        }
        let past_end = [0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0];
        let e = ListOf::<Nullable<I32>>::deserialize(Some(&past_end)).expect_err("past end");
        assert!(e.to_string().contains("past the end"), "{e}");
        let bad_entry = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0xff];
        let e = ListOf::<Utf8>::deserialize(Some(&bad_entry)).expect_err("bad UTF-8");
        assert!(e.to_string().contains("entry 0"), "{e}");
        assert!(matches!(
            ListOf::<Utf8>::deserialize(None),
            Err(SerdeError::Null)
        ));
    }
}
