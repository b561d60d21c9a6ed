//! The Avro serdes: [`Avro<T>`] for Rust types (serde-derived, with an Avro schema) and
//! [`AvroGeneric<S>`] for [`apache_avro::types::Value`] under schema `S`.

use std::marker::PhantomData;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::types::Value;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::{AvroSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::cache::{Known, SchemaRegistry};
use super::wire::{read_header, write_header};
use crate::serdes::{Encoded, Serde, SerdeContext, SerdeError, with_state};

/// Values of the Rust type `T` in Avro, framed in the Confluent wire format, with `T`'s schema
/// ([`AvroSchema`]: `#[derive(AvroSchema)]`, or an `impl` that parses an `.avsc` file).
///
/// Writing resolves the schema id once per topic and role (see
/// [`SchemaChoice`](super::SchemaChoice)), then frames every record with it. Reading fetches the
/// writer's schema of an id not seen yet, once, and resolves it against `T`'s schema (schema
/// evolution): records written with an older or newer compatible schema read as `T`.
///
/// Needs a [`SchemaRegistry`] in the instance's serde state and a topic: it works at sources,
/// sinks and repartition topics. A null key or value is [`SerdeError::Null`] (use
/// [`Nullable<Avro<T>>`](crate::serdes::Nullable) for tombstones).
pub struct Avro<T>(PhantomData<fn() -> T>);

/// Avro [`Value`]s (generic records) under the schema of `S`, framed in the Confluent wire
/// format: `S` only names the schema (an empty type implementing [`AvroSchema`]).
///
/// Values written must fit `S`'s schema. Records read are resolved against it, whatever
/// compatible schema wrote them.
pub struct AvroGeneric<S>(PhantomData<fn() -> S>);

fn no_registry() -> SerdeError {
    SerdeError::Schema {
        schema_id: None,
        reason: "no SchemaRegistry in this instance's serde state: build the application with .serde_state(SchemaRegistry::new(RegistryConfig::new(url)))".into(),
    }
}

fn no_context() -> SerdeError {
    SerdeError::Schema {
        schema_id: None,
        reason: "a schema registry serde needs the topic and role: it works where records are read from or written to a topic (sources, sinks, repartitions), not in stores or list entries yet".into(),
    }
}

/// Frames `value` with the id `Tag` writes with on `cx`, then encodes it with `encode`.
#[inline]
fn write<Tag: 'static>(
    cx: SerdeContext<'_>,
    make: fn() -> Schema,
    out: &mut Vec<u8>,
    encode: impl FnOnce(&Schema, &mut Vec<u8>) -> apache_avro::AvroResult<usize>,
) -> Result<Encoded, SerdeError> {
    with_state::<SchemaRegistry, _>(|registry| {
        let registry = registry.ok_or_else(no_registry)?;
        let writer = registry.writer::<Tag>(cx, make)?;
        write_header(writer.id, out);
        encode(&writer.schema.schema, out).map_err(|e| SerdeError::Schema {
            schema_id: Some(writer.id),
            reason: format!(
                "the {} for topic {} does not fit the schema: {e}",
                cx.role(),
                cx.topic()
            ),
        })?;
        Ok(Encoded::Present)
    })
}

/// Reads framed `bytes`: the writer's schema by the id, `Tag`'s own schema as the reader's, and
/// `decode` given both (the reader's only when it differs) and the data.
#[inline]
fn read<Tag: 'static, V>(
    cx: SerdeContext<'_>,
    make: fn() -> Schema,
    bytes: Option<&[u8]>,
    decode: impl FnOnce(&Known, Option<&Known>, &mut &[u8]) -> apache_avro::AvroResult<V>,
) -> Result<V, SerdeError> {
    let bytes = crate::serdes::present(bytes)?;
    let (id, mut payload) = read_header(bytes)?;
    with_state::<SchemaRegistry, _>(|registry| {
        let registry = registry.ok_or_else(no_registry)?;
        let writer = registry.schema_of(id)?;
        let own = registry.own::<Tag>(make);
        let reader = (own.canonical != writer.canonical).then_some(&*own);
        let value = decode(&writer, reader, &mut payload).map_err(|e| SerdeError::Schema {
            schema_id: Some(id),
            reason: format!(
                "the {} read from topic {} does not decode with the writer's schema{}: {e}",
                cx.role(),
                cx.topic(),
                if reader.is_some() {
                    " resolved to ours"
                } else {
                    ""
                }
            ),
        })?;
        if !payload.is_empty() {
            return Err(SerdeError::Schema {
                schema_id: Some(id),
                reason: format!(
                    "{} bytes left after the {} read from topic {}: not written with this schema",
                    payload.len(),
                    cx.role(),
                    cx.topic()
                ),
            });
        }
        Ok(value)
    })
}

impl<T: AvroSchema + Serialize + DeserializeOwned + 'static> Serde for Avro<T> {
    type Value = T;

    fn serialize(_: &T, _: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        Err(no_context())
    }

    fn deserialize(_: Option<&[u8]>) -> Result<T, SerdeError> {
        Err(no_context())
    }

    fn check(_: Option<&[u8]>) -> Result<(), SerdeError> {
        Err(no_context())
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<Self>(cx, T::get_schema, out, |schema, out| {
            GenericDatumWriter::builder(schema)
                .build()?
                .write_ser(out, value)
        })
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        read::<Self, T>(cx, T::get_schema, bytes, |writer, reader, data| {
            match reader {
                // Our own schema wrote it: straight into T.
                None => GenericDatumReader::builder(&writer.schema)
                    .build()?
                    .read_deser(data),
                // Another one: resolve to ours, then into T.
                Some(reader) => {
                    let value = GenericDatumReader::builder(&writer.schema)
                        .reader_schema(&reader.schema)
                        .build()?
                        .read_value(data)?;
                    apache_avro::from_value::<T>(&value)
                }
            }
        })
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}

impl<S: AvroSchema + 'static> Serde for AvroGeneric<S> {
    type Value = Value;

    fn serialize(_: &Value, _: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        Err(no_context())
    }

    fn deserialize(_: Option<&[u8]>) -> Result<Value, SerdeError> {
        Err(no_context())
    }

    fn check(_: Option<&[u8]>) -> Result<(), SerdeError> {
        Err(no_context())
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<Self>(cx, S::get_schema, out, |schema, out| {
            GenericDatumWriter::builder(schema)
                .build()?
                .write_value_ref(out, value)
        })
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<Value, SerdeError> {
        read::<Self, Value>(cx, S::get_schema, bytes, |writer, reader, data| {
            GenericDatumReader::builder(&writer.schema)
                .maybe_reader_schema(reader.map(|r| &r.schema))
                .build()?
                .read_value(data)
        })
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}
