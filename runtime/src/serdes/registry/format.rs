//! What every registry serde shares, whatever its format: the [`Format`] a format plugs in, the
//! serde's own schema ([`Own`]), and the frame of every read and write ([`write`], [`read`]):
//! find the instance's [`SchemaRegistry`], resolve the schema id (cached), frame the bytes in the
//! Confluent wire format, and shape every failure as a [`SerdeError::Schema`] naming the schema
//! id, the topic and the role.
//!
//! A format file (`avro.rs`, `protobuf/`, `json_schema.rs`) holds only its own code: how its
//! schema text parses, how its serdes make their own schema, and how values encode and decode.

use std::fmt::Display;
use std::sync::Arc;

use super::cache::{Caches, SchemaRegistry, Writer};
use super::compatibility::Mode;
use super::wire::{read_header, write_header};
use crate::serdes::{Encoded, SerdeContext, SerdeError, present, with_state};

/// A schema format of the registry (`schemaType`): Avro, Protobuf or JSON Schema.
pub(crate) trait Format: Sized + 'static {
    /// The registry's `schemaType`: `AVRO`, `PROTOBUF` or `JSON`.
    const SCHEMA_TYPE: &'static str;
    /// The format's name in error messages.
    const NAME: &'static str;
    /// A parsed schema: a writer's, fetched by id, or a serde's own.
    type Schema: Send + Sync + 'static;
    /// Which type of a schema a serde writes and reads: the message of a Protobuf file (and its
    /// message indexes); `()` where a schema has one type.
    type Target: Clone + Send + Sync + 'static;

    /// Parses `text` as the registry holds it. `references` are the texts of the schemas it
    /// references (Protobuf imports), by the name the text uses, fetched already.
    fn parse(text: &str, references: &[(String, String)]) -> Result<Self::Schema, String>;

    /// Where `own`'s target is in `schema`, a registered schema the serde writes with instead of
    /// its own ([`SchemaChoice::UseLatest`](super::SchemaChoice::UseLatest) or `Id`).
    fn locate(schema: &Self::Schema, own: &Own<Self>) -> Result<Self::Target, String>;

    /// This format's caches in `registry`.
    fn caches(registry: &SchemaRegistry) -> &Caches<Self>;

    /// Why `ours` is not compatible with the registered `theirs` under `mode`, where the format
    /// can tell (the start-up check asks after the registry said they are not). `None` leaves
    /// the registry's messages as the reason.
    fn explain(ours: &Self::Schema, theirs: &Self::Schema, mode: Mode) -> Option<String> {
        let _ = (ours, theirs, mode);
        None
    }
}

/// A serde's own schema, made once per instance.
pub(crate) struct Own<F: Format> {
    /// The schema, parsed.
    pub schema: Arc<F::Schema>,
    /// The serde's type in it.
    pub target: F::Target,
    /// The text registered for it.
    pub text: String,
    /// The full name of its record or message, for the record subject name strategies.
    pub record: Option<String>,
    /// The schemas it references, registered before it, each after those it references.
    pub dependencies: Vec<Dependency>,
}

/// A schema another one references (a Protobuf import), registered under its name as subject
/// (Confluent's default reference subject name strategy).
pub(crate) struct Dependency {
    /// The name the referencing schema uses (the import path), also its subject.
    pub name: String,
    /// Its text.
    pub text: String,
    /// The names of the dependencies it references itself (registered before it).
    pub references: Vec<String>,
    /// Whether the serde's own schema references it directly (imports it).
    pub direct: bool,
}

/// A [`SerdeError::Schema`].
pub(crate) fn schema_error(id: Option<u32>, reason: impl Into<String>) -> SerdeError {
    SerdeError::Schema {
        schema_id: id,
        reason: reason.into(),
    }
}

fn no_registry() -> SerdeError {
    schema_error(
        None,
        "no SchemaRegistry in this instance's serde state: build the application with .serde_state(SchemaRegistry::new(RegistryConfig::new(url)))",
    )
}

/// What the context-free serde functions of a registry serde answer.
pub(crate) fn no_context() -> SerdeError {
    schema_error(
        None,
        "a schema registry serde needs the topic and role: it works where records are read from or written to a topic (sources, sinks, repartitions), not in stores or list entries yet",
    )
}

/// The context-free functions of a registry serde's `impl Serde`: they fail with
/// [`no_context`], since a registry serde needs the topic and role.
macro_rules! needs_context {
    ($value:ty) => {
        fn serialize(
            _: &$value,
            _: &mut Vec<u8>,
        ) -> Result<$crate::serdes::Encoded, $crate::serdes::SerdeError> {
            Err($crate::serdes::registry::format::no_context())
        }

        fn deserialize(_: Option<&[u8]>) -> Result<$value, $crate::serdes::SerdeError> {
            Err($crate::serdes::registry::format::no_context())
        }

        fn check(_: Option<&[u8]>) -> Result<(), $crate::serdes::SerdeError> {
            Err($crate::serdes::registry::format::no_context())
        }
    };
}
pub(crate) use needs_context;

/// Writes `value`'s record: the header of the id serde `Tag` writes with on `cx` (resolved once,
/// see [`SchemaRegistry::writer`]), then what `encode` appends.
#[inline]
pub(crate) fn write<F: Format, Tag: 'static, E: Display>(
    cx: SerdeContext<'_>,
    make: impl FnOnce() -> Result<Own<F>, String>,
    out: &mut Vec<u8>,
    encode: impl FnOnce(&Writer<F>, &mut Vec<u8>) -> Result<(), E>,
) -> Result<Encoded, SerdeError> {
    with_state::<SchemaRegistry, _>(|registry| {
        let registry = registry.ok_or_else(no_registry)?;
        let writer = registry.writer::<F, Tag>(cx, make)?;
        write_header(writer.id, out);
        encode(&writer, out).map_err(|e| {
            schema_error(
                Some(writer.id),
                format!(
                    "the {} for topic {} does not fit the {} schema: {e}",
                    cx.role(),
                    cx.topic(),
                    F::NAME
                ),
            )
        })?;
        Ok(Encoded::Present)
    })
}

/// Reads a record's `bytes`: the schema id from the header, the writer's schema by that id
/// (fetched once), then `decode` with the writer's schema, serde `Tag`'s own schema and the
/// payload, which it must read to the end.
#[inline]
pub(crate) fn read<F: Format, Tag: 'static, V, E: Display>(
    cx: SerdeContext<'_>,
    make: impl FnOnce() -> Result<Own<F>, String>,
    bytes: Option<&[u8]>,
    decode: impl FnOnce(&F::Schema, &Own<F>, &mut &[u8]) -> Result<V, E>,
) -> Result<V, SerdeError> {
    let bytes = present(bytes)?;
    let (id, mut payload) = read_header(bytes)?;
    with_state::<SchemaRegistry, _>(|registry| {
        let registry = registry.ok_or_else(no_registry)?;
        let writer = registry.schema_of::<F>(id)?;
        let own = registry.own::<F, Tag>(make)?;
        let value = decode(&writer, &own, &mut payload).map_err(|e| {
            schema_error(
                Some(id),
                format!(
                    "the {} read from topic {} does not decode as {}: {e}",
                    cx.role(),
                    cx.topic(),
                    F::NAME
                ),
            )
        })?;
        if !payload.is_empty() {
            return Err(schema_error(
                Some(id),
                format!(
                    "{} bytes left after the {} read from topic {}: not written with this schema",
                    payload.len(),
                    cx.role(),
                    cx.topic()
                ),
            ));
        }
        Ok(value)
    })
}
