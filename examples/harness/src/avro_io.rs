//! Avro records in the Confluent wire format (magic byte 0, the 4-byte schema id, Avro binary),
//! written and read the way an independent client does, not through dekaf-streams' serdes: the
//! schema is registered or fetched by id with the registry's REST API, the bytes are framed and
//! decoded here with `apache-avro`. The Avro demo and the Avro takeover test use them.
//!
//! Blocking (registry requests): call them off tokio's workers.

use std::collections::HashMap;

use dekaf_streams::serdes::registry::apache_avro::Schema;
use dekaf_streams::serdes::registry::apache_avro::reader::datum::GenericDatumReader;
use dekaf_streams::serdes::registry::apache_avro::types::Value;
use dekaf_streams::serdes::registry::apache_avro::writer::datum::GenericDatumWriter;
use dekaf_streams::serdes::registry::wire::{read_header, write_header};
use dekaf_streams::serdes::registry::{SchemaRegistry, SchemaText};

use crate::kafka_io::ReadRecord;

/// Registers `schema` (Avro JSON) under `subject` (or finds it there): its id.
pub fn register(registry: &SchemaRegistry, subject: &str, schema: &str) -> Result<u32, String> {
    registry
        .client()
        .register(subject, &SchemaText::avro(schema))
        .map_err(|e| format!("registering the schema under {subject}: {e}"))
}

/// `value` under `schema` (registered with id `id`) in the Confluent wire format.
pub fn encode(id: u32, schema: &Schema, value: Value) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    write_header(id, &mut out);
    let datum = GenericDatumWriter::builder(schema)
        .build()
        .and_then(|w| w.write_value_to_vec(value))
        .map_err(|e| format!("encoding under schema {id}: {e}"))?;
    out.extend(datum);
    Ok(out)
}

/// Decodes Confluent-framed Avro records with the writers' schemas, fetched by id once each.
pub struct AvroDecoder {
    registry: SchemaRegistry,
    schemas: HashMap<u32, Schema>,
}

impl AvroDecoder {
    /// A decoder that fetches schemas from `registry`.
    pub fn new(registry: SchemaRegistry) -> AvroDecoder {
        AvroDecoder {
            registry,
            schemas: HashMap::new(),
        }
    }

    /// The schema id and the value of one record's bytes.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<(u32, Value), String> {
        let (id, mut data) = read_header(bytes).map_err(|e| format!("{e}: {bytes:02x?}"))?;
        if !self.schemas.contains_key(&id) {
            let text = self
                .registry
                .client()
                .schema_by_id(id)
                .map_err(|e| format!("fetching schema {id}: {e}"))?;
            let schema = Schema::parse_str(&text.schema)
                .map_err(|e| format!("schema {id} is not Avro: {e}"))?;
            self.schemas.insert(id, schema);
        }
        let value = GenericDatumReader::builder(&self.schemas[&id])
            .build()
            .and_then(|r| r.read_value(&mut data))
            .map_err(|e| format!("decoding with schema {id}: {e}"))?;
        if !data.is_empty() {
            return Err(format!(
                "{} bytes left after the value of schema {id}",
                data.len()
            ));
        }
        Ok((id, value))
    }

    /// Word-count records (`{word, count}` keyed by the word in UTF-8) as the records of a count
    /// topic that [`crate::kafka_io::last_counts`] and the end-to-end checks read (the count in 8
    /// big-endian bytes), with the schema id of each. A record whose value does not decode, is
    /// not such a record or names another word than its key is an error naming it.
    pub fn word_counts(
        &mut self,
        records: &[ReadRecord],
    ) -> Result<Vec<(u32, ReadRecord)>, String> {
        records
            .iter()
            .map(|r| {
                let at = format!("partition {} offset {}", r.partition, r.offset);
                let key = r.key.as_deref().map(String::from_utf8_lossy);
                let bytes = r
                    .value
                    .as_deref()
                    .ok_or_else(|| format!("{at}: no value"))?;
                let (id, value) = self.decode(bytes).map_err(|e| format!("{at}: {e}"))?;
                let (word, count) = word_count(&value)
                    .ok_or_else(|| format!("{at}: not a WordCount: {value:?}"))?;
                if key.as_deref() != Some(word) {
                    return Err(format!("{at}: key {key:?}, word {word:?}"));
                }
                let record = ReadRecord {
                    value: Some(count.to_be_bytes().to_vec()),
                    ..r.clone()
                };
                Ok((id, record))
            })
            .collect()
    }
}

/// The `word` and `count` fields of a record.
fn word_count(value: &Value) -> Option<(&str, i64)> {
    let Value::Record(fields) = value else {
        return None;
    };
    let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    match (field("word")?, field("count")?) {
        (Value::String(word), Value::Long(count)) => Some((word, *count)),
        _ => None,
    }
}

/// An Avro schema parsed from its JSON (panics if it is not one: the callers' schemas are
/// constants).
pub fn schema(json: &str) -> Schema {
    Schema::parse_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}
