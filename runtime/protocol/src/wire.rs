//! Primitive types of Kafka's flexible ("compact") encoding: a bounds-checked reader that
//! returns [`DecodeError`] instead of panicking, and a writer.

use thiserror::Error;

/// Why bytes could not be decoded as a message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The bytes ended before the message did.
    #[error("message truncated: {needed} more byte(s) needed at offset {offset}")]
    Truncated {
        /// Where the missing bytes start.
        offset: usize,
        /// How many bytes are missing.
        needed: usize,
    },
    /// A length prefix that cannot be right (longer than what is left of the message).
    #[error("invalid length {length} at offset {offset}")]
    InvalidLength {
        /// Where the length starts.
        offset: usize,
        /// The decoded length.
        length: u64,
    },
    /// A variable-length integer longer than its type allows.
    #[error("malformed varint at offset {offset}")]
    MalformedVarint {
        /// Where the varint starts.
        offset: usize,
    },
    /// A string that is not UTF-8.
    #[error("invalid UTF-8 in string at offset {offset}")]
    InvalidUtf8 {
        /// Where the string starts.
        offset: usize,
    },
    /// A null where the schema does not allow one.
    #[error("unexpected null for {field}")]
    UnexpectedNull {
        /// The field's name in the schema.
        field: &'static str,
    },
    /// A version this codec does not implement.
    #[error("unsupported version {version} of {message}")]
    UnsupportedVersion {
        /// The message's name.
        message: &'static str,
        /// The version asked for.
        version: i16,
    },
    /// Bytes left after the end of the message.
    #[error("{count} trailing byte(s) after the message")]
    TrailingBytes {
        /// How many bytes are left.
        count: usize,
    },
}

/// The most elements an array reserves room for before reading them: a length is only known
/// to be at most the bytes left, and an element may be many times larger in memory than its
/// smallest encoding, so a large (even if honest) count grows the vector as elements arrive.
const PREALLOCATE_MAX: usize = 256;

/// Reads primitives from a byte slice, checking every bound.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes { count }),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let Some(out) = rest.get(..n) else {
            return Err(DecodeError::Truncated {
                offset: self.pos,
                needed: n - rest.len(),
            });
        };
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// `int8`.
    pub(crate) fn i8(&mut self) -> Result<i8, DecodeError> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    /// `int16`.
    pub(crate) fn i16(&mut self) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    /// `uint16`.
    pub(crate) fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// `int32`.
    pub(crate) fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// `int64`.
    pub(crate) fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// `bool` (any non-zero byte is true, as in the Java client).
    pub(crate) fn bool(&mut self) -> Result<bool, DecodeError> {
        let [byte] = self.array()?;
        Ok(byte != 0)
    }

    /// An unsigned varint of at most 32 bits.
    pub(crate) fn uvarint(&mut self) -> Result<u32, DecodeError> {
        let start = self.pos;
        let mut value: u32 = 0;
        for i in 0..5 {
            let [byte] = self.array()?;
            if i == 4 && byte > 0x0f {
                return Err(DecodeError::MalformedVarint { offset: start });
            }
            value |= u32::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::MalformedVarint { offset: start })
    }

    /// A compact length (`N + 1`, `0` = null): `None` for null.
    fn compact_len(&mut self) -> Result<Option<usize>, DecodeError> {
        let start = self.pos;
        let raw = self.uvarint()?;
        if raw == 0 {
            return Ok(None);
        }
        let len = (raw - 1) as usize;
        // Every element and every string byte takes at least one byte: a longer length is a lie,
        // and checking it here keeps a corrupt length from allocating.
        if len > self.remaining() {
            return Err(DecodeError::InvalidLength {
                offset: start,
                length: u64::from(raw - 1),
            });
        }
        Ok(Some(len))
    }

    /// The next `len` bytes as UTF-8 text (whatever prefix gave the length).
    fn utf8(&mut self, len: usize) -> Result<String, DecodeError> {
        let offset = self.pos;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| DecodeError::InvalidUtf8 { offset })
    }

    /// `len` elements read by `item` (whatever prefix gave the count), reserving room for at
    /// most [`PREALLOCATE_MAX`] up front.
    fn items<T>(
        &mut self,
        len: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let mut out = Vec::with_capacity(len.min(PREALLOCATE_MAX));
        for _ in 0..len {
            out.push(item(self)?);
        }
        Ok(out)
    }

    /// A compact nullable string.
    pub(crate) fn nullable_string(&mut self) -> Result<Option<String>, DecodeError> {
        self.compact_len()?.map(|len| self.utf8(len)).transpose()
    }

    /// A compact non-nullable string.
    pub(crate) fn string(&mut self, field: &'static str) -> Result<String, DecodeError> {
        self.nullable_string()?
            .ok_or(DecodeError::UnexpectedNull { field })
    }

    /// A compact nullable array whose elements `item` reads.
    pub(crate) fn nullable_array<T>(
        &mut self,
        item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        self.compact_len()?
            .map(|len| self.items(len, item))
            .transpose()
    }

    /// A compact non-nullable array.
    pub(crate) fn array_of<T>(
        &mut self,
        field: &'static str,
        item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        self.nullable_array(item)?
            .ok_or(DecodeError::UnexpectedNull { field })
    }

    /// A nullable struct: a presence byte (`-1` null, `1` present), then the struct.
    pub(crate) fn nullable_struct<T>(
        &mut self,
        item: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        if self.i8()? < 0 {
            Ok(None)
        } else {
            item(self).map(Some)
        }
    }

    /// A compact byte string (`N + 1` length, `0` = null, read as empty).
    pub(crate) fn compact_bytes(&mut self) -> Result<Vec<u8>, DecodeError> {
        let Some(len) = self.compact_len()? else {
            return Ok(Vec::new());
        };
        Ok(self.take(len)?.to_vec())
    }

    /// A classic (non-flexible) length: `int16` for strings, `int32` for arrays and bytes;
    /// negative is null. A length longer than what is left is refused before anything is
    /// allocated, as for compact lengths.
    fn classic_len(&mut self, wide: bool) -> Result<Option<usize>, DecodeError> {
        let start = self.pos;
        let raw = if wide {
            i64::from(self.i32()?)
        } else {
            i64::from(self.i16()?)
        };
        if raw < 0 {
            return Ok(None);
        }
        let len = usize::try_from(raw).unwrap_or(usize::MAX);
        if len > self.remaining() {
            return Err(DecodeError::InvalidLength {
                offset: start,
                length: raw.unsigned_abs(),
            });
        }
        Ok(Some(len))
    }

    /// A classic nullable string (`int16` length).
    pub(crate) fn classic_nullable_string(&mut self) -> Result<Option<String>, DecodeError> {
        self.classic_len(false)?
            .map(|len| self.utf8(len))
            .transpose()
    }

    /// A classic non-nullable string.
    pub(crate) fn classic_string(&mut self, field: &'static str) -> Result<String, DecodeError> {
        self.classic_nullable_string()?
            .ok_or(DecodeError::UnexpectedNull { field })
    }

    /// Classic bytes (`int32` length; null read as empty).
    pub(crate) fn classic_bytes(&mut self) -> Result<Vec<u8>, DecodeError> {
        let Some(len) = self.classic_len(true)? else {
            return Ok(Vec::new());
        };
        Ok(self.take(len)?.to_vec())
    }

    /// A classic array (`int32` length) whose elements `item` reads; null is refused.
    pub(crate) fn classic_array_of<T>(
        &mut self,
        field: &'static str,
        item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let len = self
            .classic_len(true)?
            .ok_or(DecodeError::UnexpectedNull { field })?;
        self.items(len, item)
    }

    /// Skips a tagged-field section (this codec knows no tagged fields of these messages).
    pub(crate) fn tagged_fields(&mut self) -> Result<(), DecodeError> {
        let count = self.uvarint()?;
        for _ in 0..count {
            let _tag = self.uvarint()?;
            let offset = self.pos;
            let size = self.uvarint()? as usize;
            if size > self.remaining() {
                return Err(DecodeError::InvalidLength {
                    offset,
                    length: size as u64,
                });
            }
            self.take(size)?;
        }
        Ok(())
    }
}

/// Writes primitives into a growing buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The bytes written.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// `int8`.
    pub(crate) fn i8(&mut self, v: i8) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// `int16`.
    pub(crate) fn i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// `uint16`.
    pub(crate) fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// `int32`.
    pub(crate) fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// `int64`.
    pub(crate) fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// `bool`.
    pub(crate) fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    /// An unsigned varint.
    pub(crate) fn uvarint(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.buf.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn compact_len(&mut self, len: Option<usize>) {
        // Lengths beyond u32 cannot occur for anything this crate builds (a request is far
        // smaller than 4 GiB); saturate rather than wrap.
        let raw = len.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX - 1) + 1);
        self.uvarint(raw);
    }

    /// A compact non-nullable string.
    pub(crate) fn string(&mut self, s: &str) {
        self.compact_len(Some(s.len()));
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// A compact nullable string.
    pub(crate) fn nullable_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.compact_len(None),
        }
    }

    /// A compact non-nullable array.
    pub(crate) fn array_of<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        self.compact_len(Some(items.len()));
        for i in items {
            item(self, i);
        }
    }

    /// A compact nullable array.
    pub(crate) fn nullable_array<T>(
        &mut self,
        items: Option<&[T]>,
        item: impl FnMut(&mut Self, &T),
    ) {
        match items {
            Some(items) => self.array_of(items, item),
            None => self.compact_len(None),
        }
    }

    /// A nullable struct: presence byte, then the struct.
    pub(crate) fn nullable_struct<T>(&mut self, v: Option<&T>, item: impl FnOnce(&mut Self, &T)) {
        match v {
            Some(v) => {
                self.i8(1);
                item(self, v);
            }
            None => self.i8(-1),
        }
    }

    /// An empty tagged-field section.
    pub(crate) fn tagged_fields(&mut self) {
        self.uvarint(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut w = Writer::new();
            w.uvarint(v);
            let bytes = w.into_bytes();
            let mut r = Reader::new(&bytes);
            assert_eq!(r.uvarint(), Ok(v));
            assert_eq!(r.finish(), Ok(()));
        }
    }

    #[test]
    fn overlong_varint_is_an_error() {
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert!(matches!(
            r.uvarint(),
            Err(DecodeError::MalformedVarint { .. })
        ));
    }

    #[test]
    fn huge_array_length_does_not_allocate() {
        let mut w = Writer::new();
        w.uvarint(u32::MAX);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert!(matches!(
            r.nullable_array(|r| r.i32()),
            Err(DecodeError::InvalidLength { .. })
        ));
    }

    #[test]
    fn strings_round_trip_and_check_utf8() {
        let mut w = Writer::new();
        w.string("héllo");
        w.nullable_string(None);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.string("s").as_deref(), Ok("héllo"));
        assert_eq!(r.nullable_string(), Ok(None));
        let mut r = Reader::new(&[3, 0xff, 0xfe]);
        assert!(matches!(
            r.nullable_string(),
            Err(DecodeError::InvalidUtf8 { .. })
        ));
    }
}
