//! The Avro serdes: [`Avro<T>`] for Rust types (serde-derived, with an Avro schema) and
//! [`AvroGeneric<S>`] for [`apache_avro::types::Value`] under schema `S`.

use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;

use apache_avro::error::CompatibilityError;
use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::schema_compatibility::SchemaCompatibility;
use apache_avro::types::Value;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::{AvroSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::cache::{Caches, SchemaRegistry};
use super::compatibility::{Mode, check_at_start};
use super::format::{Format, Own, needs_context, read, write};
use crate::serdes::{Encoded, Serde, SerdeContext, SerdeError, StartCheckError};

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

/// Avro as a [`Format`]: a schema is its JSON, parsed with `apache-avro`.
pub(crate) struct AvroFormat;

/// A parsed Avro schema and what identifies it.
pub(crate) struct Known {
    /// The schema.
    pub schema: Schema,
    /// A hash of its Parsing Canonical Form: equal for schemas that read and write alike.
    pub canonical: u64,
}

impl Known {
    fn new(schema: Schema) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        schema.canonical_form().hash(&mut hasher);
        Known {
            schema,
            canonical: hasher.finish(),
        }
    }
}

impl Format for AvroFormat {
    const SCHEMA_TYPE: &'static str = "AVRO";
    const NAME: &'static str = "Avro";
    type Schema = Known;
    type Target = ();

    /// Named types of other schemas (Confluent's Avro `references`) resolve by their full names.
    fn parse(text: &str, references: &[(String, String)]) -> Result<Known, String> {
        let schema = if references.is_empty() {
            Schema::parse_str(text)
        } else {
            Schema::parse_str_with_list(text, references.iter().map(|(_, text)| text))
                .map(|(schema, _)| schema)
        };
        schema.map(Known::new).map_err(|e| e.to_string())
    }

    fn locate(_: &Known, _: &Own<Self>) -> Result<(), String> {
        Ok(())
    }

    fn caches(registry: &SchemaRegistry) -> &Caches<Self> {
        &registry.inner.avro
    }

    /// Avro's resolution rules, as `apache-avro` implements the specification's: the first
    /// incompatible field, by its path from the record.
    fn explain(ours: &Known, theirs: &Known, mode: Mode) -> Option<String> {
        let problem = |writer: &Schema, reader: &Schema| {
            SchemaCompatibility::can_read(writer, reader)
                .err()
                .map(|e| incompatibility(&e))
        };
        if mode.backward
            && let Some(why) = problem(&theirs.schema, &ours.schema)
        {
            return Some(format!(
                "this application's schema cannot read records written with the registered one: {why}"
            ));
        }
        if mode.forward
            && let Some(why) = problem(&ours.schema, &theirs.schema)
        {
            return Some(format!(
                "the registered schema cannot read records written with this application's: {why}"
            ));
        }
        None
    }
}

/// A schema incompatibility in words, naming the first incompatible field by its path
/// (`address.city`).
fn incompatibility(e: &CompatibilityError) -> String {
    let mut path = Vec::new();
    let mut e = e;
    while let CompatibilityError::FieldTypeMismatch(field, inner) = e {
        path.push(field.as_str());
        e = inner;
    }
    let leaf = match e {
        CompatibilityError::MissingDefaultValue(field) => {
            path.push(field.as_str());
            "the reader's schema has it without a default, and the writer's does not have it"
                .to_owned()
        }
        other => other.to_string(),
    };
    if path.is_empty() {
        leaf
    } else {
        format!("first incompatible field `{}`: {leaf}", path.join("."))
    }
}

/// The own schema of a serde with Avro schema `schema`: registered as its JSON (with defaults
/// and docs, which compatibility checks need).
fn own(schema: Schema) -> Result<Own<AvroFormat>, String> {
    let text = serde_json::to_string(&schema).map_err(|e| e.to_string())?;
    Ok(Own {
        record: schema.name().map(|n| n.fullname(None)),
        schema: Arc::new(Known::new(schema)),
        target: (),
        text,
        dependencies: Vec::new(),
    })
}

/// The reader's schema where it differs from the writer's: `own`'s, to resolve the writer's to.
fn reader<'a>(writer: &Known, own: &'a Own<AvroFormat>) -> Option<&'a Known> {
    (own.schema.canonical != writer.canonical).then_some(&*own.schema)
}

impl<T: AvroSchema + Serialize + DeserializeOwned + 'static> Serde for Avro<T> {
    type Value = T;

    needs_context!(T);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<AvroFormat, Self>(cx, || own(T::get_schema()))
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<AvroFormat, Self, _>(
            cx,
            || own(T::get_schema()),
            out,
            |writer, out| {
                GenericDatumWriter::builder(&writer.schema.schema)
                    .build()?
                    .write_ser(out, value)
                    .map(drop)
            },
        )
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        read::<AvroFormat, Self, T, _>(
            cx,
            || own(T::get_schema()),
            bytes,
            |writer, own, data| {
                match reader(writer, own) {
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
            },
        )
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}

impl<S: AvroSchema + 'static> Serde for AvroGeneric<S> {
    type Value = Value;

    needs_context!(Value);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<AvroFormat, Self>(cx, || own(S::get_schema()))
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        write::<AvroFormat, Self, _>(
            cx,
            || own(S::get_schema()),
            out,
            |writer, out| {
                GenericDatumWriter::builder(&writer.schema.schema)
                    .build()?
                    .write_value_ref(out, value)
                    .map(drop)
            },
        )
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<Value, SerdeError> {
        read::<AvroFormat, Self, Value, _>(
            cx,
            || own(S::get_schema()),
            bytes,
            |writer, own, data| {
                GenericDatumReader::builder(&writer.schema)
                    .maybe_reader_schema(reader(writer, own).map(|r| &r.schema))
                    .build()?
                    .read_value(data)
            },
        )
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}
