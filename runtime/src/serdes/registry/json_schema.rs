//! The JSON Schema serdes (feature `json-schema`): [`JsonSchema<T>`] for Rust types with a
//! derived schema and [`JsonSchemaGeneric<S>`] for [`serde_json::Value`]s under `S`'s schema.
//!
//! # The wire format
//!
//! A magic byte 0, the schema id (4 bytes, big-endian), then the value as JSON text (UTF-8):
//! what Confluent's `KafkaJsonSchemaSerializer` writes, and Apicurio's JSON Schema serializer in
//! its Confluent-compatible framing. The schema registered is the JSON Schema document
//! (`schemaType` `JSON`).
//!
//! # Schemas and validation
//!
//! A typed serde's schema is derived from its type by [schemars](https://docs.rs/schemars)
//! (`#[derive(schemars::JsonSchema)]`), as draft 7, the draft Confluent's serializers default to
//! and every registry and validator reads; its `title` (the type's name) is the record name of
//! the record subject name strategies.
//!
//! Values are **validated** against the schema by the [jsonschema](https://docs.rs/jsonschema)
//! crate: on write against the schema written with, on read against the writer's schema (by the
//! record's id). A value that does not fit is a [`SerdeError::Schema`] naming the schema id and
//! the first failing place. Validation is on by default, unlike Confluent's serdes
//! (`json.fail.invalid.schema` defaults to `false` there): a Rust type and its schema cannot
//! drift apart unnoticed. It costs building the value as a [`serde_json::Value`] once per record
//! on each side (on write the bytes are still written from the value itself, so fields keep
//! their order); [`RegistryConfig::json_schema_validation(false)`](super::RegistryConfig::json_schema_validation)
//! turns it off, and the serdes then write and read `T` directly with serde_json.
//!
//! Schema references (`$ref` to another registered schema, Confluent's `references`) are
//! resolved when reading: each referenced schema is fetched and given to the validator under its
//! reference name (a `$ref` to that name, or to a URI ending in `/<name>`). A typed serde's own
//! schema has none (schemars puts every type it needs in `definitions`).
//!
//! Why these crates: schemars is the maintained derive of JSON Schemas for serde types (it
//! follows `#[serde(..)]` attributes, so the schema describes the JSON serde_json writes);
//! jsonschema is the maintained, fast validator of drafts 4 to 2020-12, used here without its
//! network and file resolvers (a schema never reaches out of the registry).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cache::{Caches, SchemaRegistry};
use super::compatibility::check_at_start;
use super::format::{Format, Own, needs_context, read, write};
use crate::serdes::{Encoded, Serde, SerdeContext, SerdeError, StartCheckError, with_state};

/// Values of the Rust type `T` as JSON, framed in the Confluent wire format, with `T`'s derived
/// JSON Schema (`#[derive(schemars::JsonSchema)]`).
///
/// Needs a [`SchemaRegistry`] in the instance's serde state and a topic. A null key or value is
/// [`SerdeError::Null`] (use [`Nullable<JsonSchema<T>>`](crate::serdes::Nullable) for
/// tombstones).
pub struct JsonSchema<T>(PhantomData<fn() -> T>);

/// [`serde_json::Value`]s under the schema of `S` (a type implementing
/// [`schemars::JsonSchema`], by derive or by hand from a schema document), framed in the
/// Confluent wire format.
pub struct JsonSchemaGeneric<S>(PhantomData<fn() -> S>);

/// JSON Schema as a [`Format`]: a schema is a JSON document, compiled into a validator.
pub(crate) struct JsonFormat;

/// A compiled schema.
pub(crate) struct Compiled {
    validator: jsonschema::Validator,
}

impl Format for JsonFormat {
    const SCHEMA_TYPE: &'static str = "JSON";
    const NAME: &'static str = "JSON Schema";
    type Schema = Compiled;
    type Target = ();

    fn parse(text: &str, references: &[(String, String)]) -> Result<Compiled, String> {
        let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let references = references
            .iter()
            .map(|(name, text)| {
                serde_json::from_str(text)
                    .map(|schema| (name.clone(), schema))
                    .map_err(|e| format!("the referenced schema {name} is not JSON: {e}"))
            })
            .collect::<Result<Vec<(String, Value)>, String>>()?;
        let validator = jsonschema::options()
            .with_retriever(References(references))
            .build(&schema)
            .map_err(|e| e.to_string())?;
        Ok(Compiled { validator })
    }

    fn locate(_: &Compiled, _: &Own<Self>) -> Result<(), String> {
        Ok(())
    }

    fn caches(registry: &SchemaRegistry) -> &Caches<Self> {
        &registry.inner.json
    }
}

/// The schemas a schema references, by reference name: what `$ref`s resolve to.
struct References(Vec<(String, Value)>);

impl jsonschema::Retrieve for References {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str();
        self.0
            .iter()
            .find(|(name, _)| uri == name || uri.ends_with(&format!("/{name}")))
            .map(|(_, schema)| schema.clone())
            .ok_or_else(|| format!("{uri} is not among the schema's references").into())
    }
}

/// The own schema of `T`: derived as draft 7.
fn own<T: schemars::JsonSchema>() -> Result<Own<JsonFormat>, String> {
    let schema = schemars::generate::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let text = serde_json::to_string(&schema).map_err(|e| e.to_string())?;
    Ok(Own {
        schema: Arc::new(JsonFormat::parse(&text, &[])?),
        target: (),
        record: schema
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned),
        text,
        dependencies: Vec::new(),
    })
}

/// Whether this instance validates (its [`RegistryConfig`](super::RegistryConfig)).
fn validating() -> bool {
    with_state::<SchemaRegistry, _>(|r| r.is_none_or(|r| r.client().config().json_validation))
}

/// `value` checked against `schema`: the first failure, with where it is.
fn validate(schema: &Compiled, value: &Value) -> Result<(), String> {
    schema.validator.validate(value).map_err(|e| {
        let path: Cow<'_, str> = match e.instance_path().as_str() {
            "" => "the value".into(),
            path => format!("at {path}").into(),
        };
        format!("{path}: {e}")
    })
}

/// Writes `value` (validated when on) as JSON. The bytes come from `value` itself, not from the
/// tree built to validate it, so fields keep their order.
fn write_json(
    schema: &Compiled,
    value: &impl Serialize,
    validation: bool,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    if validation {
        let tree = serde_json::to_value(value).map_err(|e| e.to_string())?;
        validate(schema, &tree)?;
    }
    serde_json::to_writer(out, value).map_err(|e| e.to_string())
}

/// Reads JSON as `V` (validated against the writer's `schema` when on), to the end of `data`.
fn read_json<V: DeserializeOwned>(
    schema: &Compiled,
    validation: bool,
    data: &mut &[u8],
) -> Result<V, String> {
    let bytes = std::mem::take(data);
    if validation {
        let tree: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        validate(schema, &tree)?;
        serde_json::from_value(tree)
    } else {
        serde_json::from_slice(bytes)
    }
    .map_err(|e| e.to_string())
}

impl<T: schemars::JsonSchema + Serialize + DeserializeOwned + 'static> Serde for JsonSchema<T> {
    type Value = T;

    needs_context!(T);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<JsonFormat, Self>(cx, own::<T>)
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        let validation = validating();
        write::<JsonFormat, Self, _>(cx, own::<T>, out, |writer, out| {
            write_json(&writer.schema, value, validation, out)
        })
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        let validation = validating();
        read::<JsonFormat, Self, T, _>(cx, own::<T>, bytes, |schema, _, data| {
            read_json(schema, validation, data)
        })
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}

impl<S: schemars::JsonSchema + 'static> Serde for JsonSchemaGeneric<S> {
    type Value = Value;

    needs_context!(Value);

    fn check_at_start(cx: SerdeContext<'_>) -> Result<(), StartCheckError> {
        check_at_start::<JsonFormat, Self>(cx, own::<S>)
    }

    fn serialize_in(
        cx: SerdeContext<'_>,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<Encoded, SerdeError> {
        let validation = validating();
        write::<JsonFormat, Self, _>(cx, own::<S>, out, |writer, out| {
            if validation {
                validate(&writer.schema, value)?;
            }
            serde_json::to_writer(out, value).map_err(|e| e.to_string())
        })
    }

    fn deserialize_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<Value, SerdeError> {
        let validation = validating();
        read::<JsonFormat, Self, Value, _>(cx, own::<S>, bytes, |schema, _, data| {
            read_json(schema, validation, data)
        })
    }

    fn check_in(cx: SerdeContext<'_>, bytes: Option<&[u8]>) -> Result<(), SerdeError> {
        Self::deserialize_in(cx, bytes).map(drop)
    }
}
