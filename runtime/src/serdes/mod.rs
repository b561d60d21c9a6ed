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
//! | [`I16`] | `i16` | 2 bytes big-endian (Kafka's `ShortSerializer`) |
//! | [`I32`] | `i32` | 4 bytes big-endian (Kafka's `IntegerSerializer`) |
//! | [`I64`] | `i64` | 8 bytes big-endian (Kafka's `LongSerializer`) |
//! | [`F32`] | `f32` | IEEE 754, 4 bytes big-endian (Kafka's `FloatSerializer`) |
//! | [`F64`] | `f64` | IEEE 754, 8 bytes big-endian, one NaN (Kafka's `DoubleSerializer`) |
//! | [`Bool`] | `bool` | one byte, 1 or 0 (Kafka's `BooleanSerializer`) |
//! | [`Uuid`] | `uuid::Uuid` | the 36-character text, UTF-8 (Kafka's `UUIDSerializer`) |
//! | [`Bytes`] | `Vec<u8>` | as is |
//! | [`Unit`] | `()` | always null: absent keys; reads anything |
//! | [`Void`] | `()` | always null, and reads only null (Kafka's `VoidSerializer`) |
//! | [`Nullable<S>`] | `Option<S::Value>` | null for `None` |
//! | [`ListOf<S>`] | `Vec<S::Value>` | Kafka's `ListSerializer` with `S` inside: a strategy byte, null-entry indexes or size prefixes, the entries |
//! | [`Json<T>`] | `T: Serialize + DeserializeOwned` | JSON via `serde_json` |
//! | [`TimeWindowed<S, SIZE_MS>`] | [`Windowed<S::Value>`] | key bytes + 8-byte big-endian window start (Kafka Streams' `TimeWindowedSerializer`) |
//! | [`SessionWindowed<S>`] | [`Windowed<S::Value>`] | key bytes + 8-byte session end + 8-byte session start, big-endian (Kafka Streams' `SessionWindowedSerializer`) |
//!
//! The serdes named after a Kafka serializer write the same bytes and read what it writes; the
//! project's `runtime/tests/java_serdes.rs` checks both directions against `kafka-clients`.
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

mod context;
mod json;
mod list;
mod nulls;
mod primitive;
#[cfg(feature = "registry")]
pub mod registry;
mod uuid;
mod windowed;

pub use context::{EnteredStates, Role, SerdeContext, SerdeStates, with_state};
pub use json::Json;
pub use list::ListOf;
pub use nulls::{Nullable, Unit, Void};
pub use primitive::{Bool, Bytes, F32, F64, I16, I32, I64, Utf8};
pub use uuid::Uuid;
pub use windowed::{SessionWindowed, TimeWindowed, Window, Windowed};

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
    /// A [`Bool`] got a byte other than 0 or 1.
    #[error("expected a boolean byte, 0 or 1 (Kafka's BooleanSerializer), got {0}")]
    Boolean(u8),
    /// A [`Uuid`] got 36 bytes that are not a hyphenated UUID.
    #[error(
        "invalid UUID text (Kafka's UUIDSerializer writes it like 123e4567-e89b-12d3-a456-426614174000): {0}"
    )]
    Uuid(::uuid::Error),
    /// A [`Void`] got bytes.
    #[error(
        "expected null (Void: Kafka's VoidSerializer writes only nulls), got {actual} bytes: use Unit to ignore the bytes, or the serde they were written with"
    )]
    NotNull {
        /// The size the record had.
        actual: usize,
    },
    /// The bytes of a [`ListOf`] do not follow the layout of Kafka's `ListSerializer`.
    #[error(
        "not a list as Kafka's ListSerializer writes it: {problem} (at byte {offset}); was it written with ListOf (or ListSerde) and this entry serde?"
    )]
    List {
        /// Where in the record's bytes the problem is.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
    /// An entry of a [`ListOf`] could not be written or read.
    #[error("list entry {index}: {source}")]
    ListEntry {
        /// The entry's position in the list, from 0.
        index: usize,
        /// What the entry serde said.
        #[source]
        source: Box<SerdeError>,
    },
    /// A schema registry serde could not read or write the bytes: a wrong magic byte, a schema
    /// id the registry does not know, bytes that do not decode with the writer's schema, a value
    /// that does not fit the schema, or a registry that could not be reached.
    #[error("{}{reason}", match schema_id { Some(id) => format!("schema id {id}: "), None => String::new() })]
    Schema {
        /// The schema id of the record (read from its bytes) or of the schema written, where known.
        schema_id: Option<u32>,
        /// What went wrong.
        reason: String,
    },
    /// Any other failure of a user serde.
    #[error("{0}")]
    Custom(String),
}

/// Why a serde cannot work with a topic as it stands outside the process
/// ([`Serde::check_at_start`]).
#[derive(Debug, thiserror::Error)]
pub enum StartCheckError {
    /// What the check needs cannot be reached now (a schema registry that is down): the
    /// instance logs it and checks again, and starts nothing meanwhile.
    #[error("{0}")]
    Unavailable(String),
    /// The serde cannot read or write the topic as it is (a registered schema this serde's is
    /// not compatible with): the application stops with this message.
    #[error("{0}")]
    Incompatible(String),
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

    /// [`serialize`](Self::serialize) where the topic and the role (key or value) are known:
    /// what the compiled tasks call at sink and repartition topics.
    ///
    /// The default ignores the context and calls [`serialize`](Self::serialize) (inlined, so a
    /// serde without state costs what it costs without a context). A serde whose bytes depend on
    /// the topic (a schema registry's subject `<topic>-value`) implements it; see
    /// [`SerdeContext`] and [`with_state`] for the design.
    #[inline(always)]
    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &Self::Value,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        let _ = cx;
        Self::serialize(value, out)
    }

    /// [`deserialize`](Self::deserialize) where the topic and the role are known: what the
    /// compiled tasks call at source and repartition topics. The default ignores the context.
    #[inline(always)]
    fn deserialize_in(
        cx: SerdeContext<'_>,
        bytes: Option<&[u8]>,
    ) -> Result<Self::Value, SerdeError> {
        let _ = cx;
        Self::deserialize(bytes)
    }

    /// Checks, once before the instance processes anything, that this serde can read and write
    /// the topic and role of `cx` as they stand outside the process; the instance's serde states
    /// are entered (see [`with_state`]). A schema registry serde checks that its schema is
    /// compatible with the versions registered under its subject, under the subject's
    /// compatibility mode. The default checks nothing.
    ///
    /// # Errors
    ///
    /// [`StartCheckError::Unavailable`] to be asked again later, [`StartCheckError::Incompatible`]
    /// to stop the application.
    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        let _ = cx;
        Ok(())
    }

    /// [`check`](Self::check) where the topic and the role are known. The default ignores the
    /// context.
    #[inline(always)]
    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        let _ = cx;
        Self::check(bytes)
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

    /// `Some(n)` when Kafka's `ListSerializer` writes this serde's values as constant-size
    /// entries of `n` bytes, without size prefixes: for the serdes of Kafka's `Short`,
    /// `Integer`, `Float`, `Long`, `Double` and `UUID` serializers ([`I16`], [`I32`], [`F32`],
    /// [`I64`], [`F64`], [`Uuid`]) and [`Nullable`] around one of them.
    ///
    /// A [`ListOf`] of this serde writes every non-null value in exactly `n` bytes (and fails
    /// otherwise). Leave it `None` (the default) for your own serdes: Kafka's `ListSerializer`
    /// prefixes the entries of every other serializer by their size, whatever their width.
    const LIST_ENTRY_SIZE: Option<usize> = None;
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

    /// A small deterministic generator (xorshift64*), so the property test needs no crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Every byte string either reads or is an error, and what reads writes bytes that read and
    /// write as the same bytes again (compared as bytes: a NaN is not equal to itself).
    fn no_panic<S: Serde>(bytes: &[u8]) {
        let write = |value: &S::Value| {
            let mut out = Vec::new();
            let encoded = S::serialize(value, &mut out).expect("what reads writes");
            (encoded == Encoded::Present).then_some(out)
        };
        if let Ok(value) = S::deserialize(Some(bytes)) {
            let out = write(&value);
            let again = S::deserialize(out.as_deref()).expect("what is written reads");
            assert_eq!(write(&again), out, "{bytes:?}");
            if S::BYTES_ROUND_TRIP {
                assert_eq!(out.as_deref(), Some(bytes));
            }
        }
    }

    /// Fuzz-style: random bytes and random mutations of valid encodings, through every serde
    /// that parses structure.
    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        let mut out = Vec::new();
        ListOf::<Nullable<I64>>::serialize(&vec![Some(1), None, Some(3)], &mut out).expect("w");
        seeds.push(std::mem::take(&mut out));
        ListOf::<Nullable<Utf8>>::serialize(&vec![Some("a".into()), None], &mut out).expect("w");
        seeds.push(std::mem::take(&mut out));
        ListOf::<Uuid>::serialize(&vec![::uuid::Uuid::from_u128(7)], &mut out).expect("w");
        seeds.push(std::mem::take(&mut out));
        ListOf::<ListOf<Bool>>::serialize(&vec![vec![true], vec![]], &mut out).expect("w");
        seeds.push(std::mem::take(&mut out));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..20_000 {
            let bytes: Vec<u8> = if round % 2 == 0 {
                let mut b = seeds[rng.below(seeds.len())].clone();
                for _ in 0..=rng.below(3) {
                    match rng.below(3) {
                        0 if !b.is_empty() => {
                            let i = rng.below(b.len());
                            b[i] = rng.next() as u8;
                        }
                        1 if !b.is_empty() => b.truncate(rng.below(b.len())),
                        _ => b.push(rng.next() as u8),
                    }
                }
                b
            } else {
                (0..rng.below(48)).map(|_| rng.below(4) as u8).collect()
            };
            no_panic::<ListOf<Nullable<I64>>>(&bytes);
            no_panic::<ListOf<I32>>(&bytes);
            no_panic::<ListOf<Nullable<Utf8>>>(&bytes);
            no_panic::<ListOf<Uuid>>(&bytes);
            no_panic::<ListOf<ListOf<Bool>>>(&bytes);
            no_panic::<ListOf<F64>>(&bytes);
            no_panic::<Uuid>(&bytes);
            no_panic::<Bool>(&bytes);
            no_panic::<I16>(&bytes);
            no_panic::<F32>(&bytes);
            no_panic::<Void>(&bytes);
        }
    }
}
