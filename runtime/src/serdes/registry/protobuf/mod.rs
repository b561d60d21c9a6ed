//! The Protobuf serdes (feature `protobuf`): [`Protobuf<T>`] for prost-generated Rust types and
//! [`ProtobufDynamic<S>`] for [`DynamicMessage`]s of a message descriptor `S` names.
//!
//! # The wire format
//!
//! A magic byte 0, the schema id (4 bytes, big-endian), the **message indexes**, then the
//! message's protobuf encoding. The indexes say which message of the schema's `.proto` file the
//! record holds, by its path in the file: the index of a top-level message, then of a message
//! nested in it, and so on; they are written as a count and the indexes, each a zigzag varint,
//! and `[0]` (the first top-level message) as the single byte `0`:
//!
//! | message | indexes | bytes |
//! |---|---|---|
//! | first top-level | `[0]` | `00` (or `02 00` in full) |
//! | second top-level | `[1]` | `02 02` |
//! | first nested in the second | `[1, 0]` | `04 02 00` |
//!
//! The schema registered is the `.proto` file's text (`schemaType` `PROTOBUF`); the files it
//! imports are registered first, each under its import path as subject, and referenced by name, subject
//! and version (Confluent's `references`; well-known `google/protobuf/*` imports are not
//! registered: every registry and parser knows them).
//!
//! # Writing and reading
//!
//! A serde's own schema is the file of its message descriptor, printed as `.proto` text (prost
//! types carry descriptors, not their source). Writing frames each value with the id of that
//! schema (or of the subject's latest version or a given id, which must define the same message:
//! see [`SchemaChoice`](super::SchemaChoice)) and the message's indexes in it. Reading fetches the
//! writer's schema by id once, compiles it, follows the record's message indexes to a message and
//! checks that it is the serde's message (by full name), then decodes the bytes into the serde's
//! type: protobuf's own evolution rules apply (fields are matched by number, unknown fields are
//! kept by [`DynamicMessage`] and skipped by prost types, missing ones take their defaults).
//!
//! # The crates, and why
//!
//! - **prost** encodes and decodes messages: it is the protobuf crate the Rust ecosystem builds
//!   on (tonic, prost-build), maintained by the Tokio project. Typed messages are prost types.
//! - **prost-reflect** adds descriptors and dynamic messages to prost: [`MessageDescriptor`],
//!   [`DynamicMessage`] and [`ReflectMessage`], the trait through which a prost type gives its
//!   descriptor (`#[derive(ReflectMessage)]`, or prost-reflect-build in a build script).
//! - **protox** is a protobuf compiler written in Rust: it compiles the registry's `.proto` text
//!   (and its references) into descriptors at run time, without `protoc` on the machine.
//!
//! # Apicurio
//!
//! Apicurio Registry keeps a Protobuf schema's text as it was registered (ids are its content
//! ids: the same text under two subjects has one id) and answers `references` under the
//! Confluent API as Confluent does; well-known imports need no reference. Its Java serdes
//! (3.1.7) differ from Confluent's:
//! - by default they write a protobuf `Ref` message with the message's name after the id, not
//!   the message indexes: Confluent's framing needs `apicurio.registry.serde.send-indexes=true`
//!   and `send-type-ref=false`; they then write `[0]` in full (`2, 0`), which readers take like
//!   the shortcut;
//! - their deserializer reads the message indexes but discards them: it finds the message by a
//!   name it is given (`ProtobufDeserializer::setMessageTypeName`, with `DynamicMessage` as the
//!   return class) or by the `Ref`, so a record of another message than the one named is misread
//!   there (this crate follows the indexes and checks the name);
//! - the text they register is printed by Square's Wire from the descriptor
//!   (`// Proto schema formatted by Wire, do not edit.`), which protox compiles like any other.

mod indexes;
mod print;

use std::marker::PhantomData;
use std::sync::Arc;

use prost_reflect::prost::Message as _;
use prost_reflect::{DynamicMessage, FileDescriptor, MessageDescriptor, ReflectMessage};
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

use self::indexes::{indexes_of, read_message, write_indexes};
use super::cache::{Caches, SchemaRegistry};
use super::compatibility::check_at_start;
use super::format::{Dependency, Format, Own, needs_context, read, write};
use crate::serdes::{Encoded, Serde, SerdeContext, SerdeError, StartCheckError};

/// Values of the prost type `T` in Protobuf, framed in the Confluent wire format, with the
/// schema of `T`'s `.proto` file (through [`ReflectMessage`], which gives `T`'s descriptor).
///
/// Needs a [`SchemaRegistry`] in the instance's serde state and a topic. A null key or value is
/// [`SerdeError::Null`] (use [`Nullable<Protobuf<T>>`](crate::serdes::Nullable) for tombstones).
pub struct Protobuf<T>(PhantomData<fn() -> T>);

/// [`DynamicMessage`]s of the message descriptor `S` names ([`MessageSchema`]), framed in the
/// Confluent wire format.
///
/// Values written must be messages of that descriptor. Records are decoded with it: fields it
/// does not know are kept as unknown fields, and written again with the message.
pub struct ProtobufDynamic<S>(PhantomData<fn() -> S>);

/// Names the message descriptor of a [`ProtobufDynamic`] serde, for example from a `.proto` file
/// compiled at start with [`proto_file`].
pub trait MessageSchema: 'static {
    /// The message's descriptor.
    fn message() -> MessageDescriptor;
}

/// A `.proto` file's text that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("the .proto text does not compile: {0}")]
pub struct ProtoError(String);

/// Compiles `.proto` text into its file descriptor, without `protoc`: for a [`MessageSchema`],
/// or for prost types that derive [`ReflectMessage`] from a descriptor pool
/// (`file.parent_pool()`). `imports` are the texts of the files it imports, by import path; the
/// well-known `google/protobuf/*` files need none.
pub fn proto_file(text: &str, imports: &[(&str, &str)]) -> Result<FileDescriptor, ProtoError> {
    let imports: Vec<(String, String)> = imports
        .iter()
        .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
        .collect();
    compile(text, &imports).map_err(ProtoError)
}

/// Protobuf as a [`Format`]: a schema is a `.proto` file, compiled with protox.
pub(crate) struct ProtobufFormat;

/// Which message of a schema a serde writes and reads.
#[derive(Clone)]
pub(crate) struct Message {
    descriptor: MessageDescriptor,
    indexes: Box<[i32]>,
}

impl Format for ProtobufFormat {
    const SCHEMA_TYPE: &'static str = "PROTOBUF";
    const NAME: &'static str = "Protobuf";
    type Schema = FileDescriptor;
    type Target = Message;

    fn parse(text: &str, references: &[(String, String)]) -> Result<FileDescriptor, String> {
        compile(text, references)
    }

    fn locate(schema: &FileDescriptor, own: &Own<Self>) -> Result<Message, String> {
        let name = own.target.descriptor.full_name();
        // Defined in the schema's own file: message indexes do not reach into imports.
        let descriptor = schema
            .parent_pool()
            .get_message_by_name(name)
            .filter(|m| m.parent_file().name() == schema.name())
            .ok_or_else(|| format!("the registered schema does not define message {name}"))?;
        Ok(Message {
            indexes: indexes_of(&descriptor),
            descriptor,
        })
    }

    fn caches(registry: &SchemaRegistry) -> &Caches<Self> {
        &registry.inner.protobuf
    }
}

/// The name the registry's text is compiled under: it has none of its own.
const ROOT: &str = "dekaf-registry-schema.proto";

/// `.proto` sources by name, for protox.
struct Sources(Vec<(String, String)>);

impl FileResolver for Sources {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.0.iter().find(|(n, _)| n == name) {
            Some((name, text)) => File::from_source(name, text),
            None => Err(protox::Error::file_not_found(name)),
        }
    }
}

/// Compiles `text` with `references` (imported files' texts by import path) and the well-known
/// files: its file descriptor.
fn compile(text: &str, references: &[(String, String)]) -> Result<FileDescriptor, String> {
    let mut sources = references.to_vec();
    sources.push((ROOT.to_owned(), text.to_owned()));
    let mut resolver = ChainFileResolver::new();
    resolver.add(Sources(sources));
    resolver.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.open_file(ROOT).map_err(|e| e.to_string())?;
    compiler
        .descriptor_pool()
        .get_file_by_name(ROOT)
        .ok_or_else(|| "the compiled schema is missing".to_owned())
}

fn well_known(name: &str) -> bool {
    name.starts_with("google/protobuf/")
}

/// The own schema of a serde of `message`: its file, printed, and the files it imports.
fn own(message: MessageDescriptor) -> Result<Own<ProtobufFormat>, String> {
    let file = message.parent_file();
    let text = print::file(file.file_descriptor_proto())?;
    let mut dependencies = Vec::new();
    imports(&file, &mut dependencies, 0)?;
    for dependency in &mut dependencies {
        dependency.direct = file.dependencies().any(|d| d.name() == dependency.name);
    }
    Ok(Own {
        record: Some(message.full_name().to_owned()),
        target: Message {
            indexes: indexes_of(&message),
            descriptor: message,
        },
        schema: Arc::new(file),
        text,
        dependencies,
    })
}

/// Adds the files `file` imports to `out`, each after the files it imports itself.
fn imports(file: &FileDescriptor, out: &mut Vec<Dependency>, depth: usize) -> Result<(), String> {
    for import in file.dependencies() {
        let name = import.name();
        if well_known(name) || out.iter().any(|d| d.name == name) || depth > 32 {
            continue;
        }
        imports(&import, out, depth + 1)?;
        out.push(Dependency {
            name: name.to_owned(),
            text: print::file(import.file_descriptor_proto())?,
            references: import
                .dependencies()
                .map(|d| d.name().to_owned())
                .filter(|n| !well_known(n))
                .collect(),
            direct: false,
        });
    }
    Ok(())
}

/// The message the record's indexes name in the writer's `schema`, checked to be `own`'s.
fn message_of(
    schema: &FileDescriptor,
    own: &Own<ProtobufFormat>,
    data: &mut &[u8],
) -> Result<MessageDescriptor, String> {
    let message = read_message(schema, data).map_err(|e| format!("bad message indexes ({e})"))?;
    let ours = own.target.descriptor.full_name();
    if message.full_name() != ours {
        return Err(format!(
            "the record holds message {}, and this serde reads {ours}",
            message.full_name()
        ));
    }
    Ok(message)
}

fn own_of<T: ReflectMessage + Default>() -> Result<Own<ProtobufFormat>, String> {
    own(T::default().descriptor())
}

impl<T: ReflectMessage + Default + 'static> Serde for Protobuf<T> {
    type Value = T;

    needs_context!(T);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<ProtobufFormat, Self>(cx, own_of::<T>)
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<ProtobufFormat, Self, _>(cx, own_of::<T>, out, |writer, out| {
            write_indexes(&writer.target.indexes, out);
            value.encode(out)
        })
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        read::<ProtobufFormat, Self, T, _>(cx, own_of::<T>, bytes, |schema, own, data| {
            message_of(schema, own, data)?;
            T::decode(&mut *data).map_err(|e| e.to_string())
        })
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}

impl<S: MessageSchema> Serde for ProtobufDynamic<S> {
    type Value = DynamicMessage;

    needs_context!(DynamicMessage);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<ProtobufFormat, Self>(cx, || own(S::message()))
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &DynamicMessage,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<ProtobufFormat, Self, _>(
            cx,
            || own(S::message()),
            out,
            |writer, out| {
                let (theirs, ours) = (value.descriptor(), &writer.target.descriptor);
                if theirs.full_name() != ours.full_name() {
                    return Err(format!(
                        "the value is a {}, and this serde writes {}",
                        theirs.full_name(),
                        ours.full_name()
                    ));
                }
                write_indexes(&writer.target.indexes, out);
                value.encode(out).map_err(|e| e.to_string())
            },
        )
    }

    fn deserialize_in(
        cx: SerdeContext<'_>,
        bytes: Option<&[u8]>,
    ) -> Result<DynamicMessage, SerdeError> {
        read::<ProtobufFormat, Self, DynamicMessage, _>(
            cx,
            || own(S::message()),
            bytes,
            |schema, own, data| {
                message_of(schema, own, data)?;
                DynamicMessage::decode(own.target.descriptor.clone(), &mut *data)
                    .map_err(|e| e.to_string())
            },
        )
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}
