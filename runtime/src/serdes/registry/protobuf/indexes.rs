//! Message indexes: which message of a schema's `.proto` file a record holds.
//!
//! A `.proto` file can define many messages, so after the schema id the Confluent wire format
//! names the record's message by its path in the file: the index of a top-level message, then
//! of a message nested in it, and so on. They are written as a count and the indexes, each a
//! zigzag varint (Kafka's `ByteUtils.writeVarint`); `[0]`, the first top-level message and by far
//! the most common, is written as the single byte `0` (a count of 0). Readers take both forms:
//! Apicurio's serializer writes `[0]` in full (`2, 0`).
//!
//! | message | indexes | bytes |
//! |---|---|---|
//! | first top-level | `[0]` | `00` |
//! | second top-level | `[1]` | `02 02` |
//! | first nested in the second | `[1, 0]` | `04 02 00` |

use prost_reflect::{FileDescriptor, MessageDescriptor};

/// The indexes of `message` in its file: from its descriptor path `[4, i, 3, j, 3, k, ..]`
/// (`message_type` i, its `nested_type` j, ..), every second number.
pub(crate) fn indexes_of(message: &MessageDescriptor) -> Box<[i32]> {
    message.path().iter().skip(1).step_by(2).copied().collect()
}

/// Appends `indexes` in the wire format (the single `0` for `[0]`).
pub(crate) fn write_indexes(indexes: &[i32], out: &mut Vec<u8>) {
    if indexes == [0] {
        out.push(0);
        return;
    }
    // A file has far fewer than 2^31 messages; the count fits.
    write_varint(i32::try_from(indexes.len()).unwrap_or(i32::MAX), out);
    for &index in indexes {
        write_varint(index, out);
    }
}

/// A zigzag varint (Kafka's `ByteUtils.writeVarint`).
fn write_varint(value: i32, out: &mut Vec<u8>) {
    let mut zigzag = ((value << 1) ^ (value >> 31)) as u32;
    while zigzag >= 0x80 {
        out.push((zigzag as u8) | 0x80);
        zigzag >>= 7;
    }
    out.push(zigzag as u8);
}

/// Reads a zigzag varint from the front of `bytes`.
fn read_varint(bytes: &mut &[u8]) -> Result<i32, String> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        let Some((&byte, rest)) = bytes.split_first() else {
            return Err("the message indexes end early".into());
        };
        *bytes = rest;
        value |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            if shift == 28 && byte > 0x0f {
                break;
            }
            return Ok(((value >> 1) as i32) ^ -((value & 1) as i32));
        }
    }
    Err("a message index is not a varint of at most 32 bits".into())
}

/// Reads the message indexes at the front of `bytes` and the message they name in `file`.
/// Resolves as it reads: nothing is allocated.
pub(crate) fn read_message(
    file: &FileDescriptor,
    bytes: &mut &[u8],
) -> Result<MessageDescriptor, String> {
    let count = read_varint(bytes)?;
    if count == 0 {
        return file
            .messages()
            .next()
            .ok_or_else(|| "message indexes [0], and the schema defines no message".into());
    }
    // Each index takes a byte at least: a count beyond the bytes left is not a count.
    if count < 0 || count as usize > bytes.len() {
        return Err(format!(
            "{count} message indexes, with {} bytes left",
            bytes.len()
        ));
    }
    let mut message: Option<MessageDescriptor> = None;
    for depth in 0..count {
        let index = read_varint(bytes)?;
        let found = usize::try_from(index).ok().and_then(|i| match &message {
            None => file.messages().nth(i),
            Some(parent) => parent.child_messages().nth(i),
        });
        message = Some(found.ok_or_else(|| {
            format!(
                "message index {index} at depth {depth}: {} has no such message",
                message.as_ref().map_or(file.name(), |m| m.full_name())
            )
        })?);
    }
    message.ok_or_else(|| "no message index".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROTO: &str = r#"
        syntax = "proto3";
        package t;
        message A { string a = 1; }
        message B {
            message C { int32 c = 1; }
            message D { message E { bool e = 1; } }
            C c = 1;
        }
    "#;

    fn file() -> FileDescriptor {
        super::super::compile(PROTO, &[]).expect("compiles")
    }

    fn bytes(indexes: &[i32]) -> Vec<u8> {
        let mut out = Vec::new();
        write_indexes(indexes, &mut out);
        out
    }

    fn name(mut bytes: &[u8]) -> Result<String, String> {
        let found = read_message(&file(), &mut bytes)?;
        assert!(bytes.is_empty(), "read to the end");
        Ok(found.full_name().to_owned())
    }

    #[test]
    fn encoding_and_the_zero_shortcut() {
        assert_eq!(bytes(&[0]), [0]);
        assert_eq!(bytes(&[1]), [2, 2]);
        assert_eq!(bytes(&[1, 0]), [4, 2, 0]);
        assert_eq!(bytes(&[1, 1, 0]), [6, 2, 2, 0]);
        assert_eq!(bytes(&[64]), [2, 0x80, 0x01]);
        let file = file();
        for message in file.messages().chain(file.all_nested()) {
            let indexes = indexes_of(&message);
            assert_eq!(name(&bytes(&indexes)), Ok(message.full_name().to_owned()));
        }
    }

    #[test]
    fn nested_messages_and_both_forms_of_the_first() {
        assert_eq!(name(&[0]).as_deref(), Ok("t.A"));
        // Apicurio's form of [0]: a count of 1, then 0.
        assert_eq!(name(&[2, 0]).as_deref(), Ok("t.A"));
        assert_eq!(name(&[2, 2]).as_deref(), Ok("t.B"));
        assert_eq!(name(&[4, 2, 0]).as_deref(), Ok("t.B.C"));
        assert_eq!(name(&[6, 2, 2, 0]).as_deref(), Ok("t.B.D.E"));
        let e = file()
            .parent_pool()
            .get_message_by_name("t.B.D.E")
            .expect("t.B.D.E");
        assert_eq!(&*indexes_of(&e), &[1, 1, 0]);
    }

    #[test]
    fn hostile_indexes_are_errors() {
        for bad in [
            &[][..],                         // nothing
            &[2, 4],                         // [2]: no third message
            &[1],                            // a count of -1
            &[4, 2],                         // two indexes, one byte
            &[2, 1],                         // index -1
            &[4, 0, 0],                      // A has no nested message
            &[2, 0xff, 0xff, 0xff, 0xff],    // a varint that does not end
            &[0x80, 0x80, 0x80, 0x80, 0x7f], // over 32 bits
            &[0xfe, 0xff, 0xff, 0xff, 0x0f], // a huge count
        ] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        let empty = super::super::compile("syntax = \"proto3\";", &[]).expect("compiles");
        assert!(read_message(&empty, &mut &[0u8][..]).is_err());
    }

    trait AllNested {
        fn all_nested(&self) -> Vec<MessageDescriptor>;
    }

    impl AllNested for FileDescriptor {
        fn all_nested(&self) -> Vec<MessageDescriptor> {
            let mut out = Vec::new();
            let mut todo: Vec<_> = self.messages().collect();
            while let Some(m) = todo.pop() {
                for child in m.child_messages() {
                    out.push(child.clone());
                    todo.push(child);
                }
            }
            out
        }
    }
}
