//! The Avro word count (`avro_wordcount`): its two record types, the input framing the driver
//! writes, and the reading of the output records the systems write.
//!
//! Input values are `dev.dekaf.bench.Sentence { text: string }`, output values
//! `dev.dekaf.bench.WordCount { word: string, count: long }`, both in the Confluent wire format
//! (magic byte 0, the schema id as 4 bytes big-endian, the Avro binary encoding). The driver
//! registers `Sentence`'s schema under `<input topic>-value` once and frames every record with
//! that id itself (a string is its length as a zigzag varint and its bytes); each system
//! registers `WordCount`'s schema under `<output topic>-value` with its own serializer.
//!
//! The measurer turns every output value back into the count (8 bytes big-endian, as the plain
//! word count's `I64`), so the reference model of `wordcount` checks it; a value that is not a
//! `WordCount` of its key becomes a value that matches nothing, and the run fails with it.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail, ensure};
use apache_avro::AvroSchema;
use dekaf_streams::serdes::registry::wire::{read_header, write_header};
use dekaf_streams::serdes::registry::{RegistryClient, RegistryConfig, SchemaText};
use serde::{Deserialize, Serialize};

/// A sentence: the Avro word count's input value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dev.dekaf.bench")]
pub struct Sentence {
    /// Words separated by single spaces.
    pub text: String,
}

/// The count of a word so far: the Avro word count's output value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "dev.dekaf.bench")]
pub struct WordCount {
    /// The word (also the record's key).
    pub word: String,
    /// How often it was seen.
    pub count: i64,
}

/// The registry's Confluent API the driver and the systems use: `DEKAF_REGISTRY_URL`, else
/// `scripts/registry.sh`'s default port.
pub fn registry_url_from_env() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

/// A client of the registry at `url` (Confluent API).
pub fn client(url: &str) -> RegistryClient {
    RegistryClient::new(RegistryConfig::new(url))
}

/// Registers `Sentence`'s schema under `subject` (or finds it there): the id input records
/// carry.
pub fn register_sentence(registry: &RegistryClient, subject: &str) -> Result<u32> {
    let text = serde_json::to_string(&Sentence::get_schema())?;
    registry
        .register(subject, &SchemaText::avro(&text))
        .with_context(|| {
            format!(
                "cannot register the Sentence schema under {subject} at {}; is the registry up? \
                 (scripts/registry.sh start)",
                registry.config().url()
            )
        })
}

/// Fails unless every id of `ids` is a schema that reads and writes as `WordCount`'s (the same
/// Parsing Canonical Form): what the systems' serializers registered for their output.
pub fn check_word_count_ids(registry: &RegistryClient, ids: &BTreeSet<u32>) -> Result<()> {
    let ours = WordCount::get_schema().canonical_form();
    for id in ids {
        let found = registry
            .schema_by_id(*id)
            .with_context(|| format!("cannot fetch the output's schema id {id}"))?;
        let schema = apache_avro::Schema::parse_str(&found.schema)
            .with_context(|| format!("schema id {id} is not an Avro schema: {}", found.schema))?;
        ensure!(
            schema.canonical_form() == ours,
            "the output's schema id {id} is not WordCount's: {}",
            found.schema
        );
    }
    Ok(())
}

/// Appends `n` as an Avro `long` (zigzag, then a little-endian base-128 varint).
fn put_long(out: &mut Vec<u8>, n: i64) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// Reads an Avro `long` from the front of `data`.
fn take_long(data: &mut &[u8]) -> Result<i64> {
    let mut z: u64 = 0;
    for shift in (0..64).step_by(7) {
        let Some((&b, rest)) = data.split_first() else {
            bail!("the data ends inside a long");
        };
        *data = rest;
        z |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(((z >> 1) as i64) ^ -((z & 1) as i64));
        }
    }
    bail!("a long of more than 10 bytes")
}

/// Reads an Avro `string` from the front of `data`.
fn take_string<'a>(data: &mut &'a [u8]) -> Result<&'a str> {
    let len = usize::try_from(take_long(data)?).context("a string of negative length")?;
    ensure!(
        len <= data.len(),
        "a string of {len} bytes, {} left",
        data.len()
    );
    let (s, rest) = data.split_at(len);
    *data = rest;
    std::str::from_utf8(s).context("a string that is not UTF-8")
}

/// `Sentence { text }` in the Confluent wire format with schema id `id`.
pub fn frame_sentence(id: u32, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 7);
    write_header(id, &mut out);
    put_long(&mut out, text.len() as i64);
    out.extend_from_slice(text);
    out
}

/// The schema id and count of a `WordCount` output record, which must be framed in the Confluent
/// wire format, name `key` as its word, and have no bytes left over.
pub fn read_word_count(key: &[u8], value: &[u8]) -> Result<(u32, i64)> {
    let (id, mut data) = read_header(value)?;
    let word = take_string(&mut data).with_context(|| format!("schema id {id}: word"))?;
    let count = take_long(&mut data).with_context(|| format!("schema id {id}: count"))?;
    ensure!(
        data.is_empty(),
        "schema id {id}: {} bytes after the record",
        data.len()
    );
    ensure!(
        word.as_bytes() == key,
        "schema id {id}: word {word:?} under key {:?}",
        String::from_utf8_lossy(key)
    );
    Ok((id, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::writer::datum::GenericDatumWriter;

    /// `v` as apache-avro encodes it (as the runtime's `Avro<T>` does).
    fn datum<T: AvroSchema + Serialize>(v: &T) -> Vec<u8> {
        let schema = T::get_schema();
        let mut out = Vec::new();
        GenericDatumWriter::builder(&schema)
            .build()
            .expect("a writer")
            .write_ser(&mut out, v)
            .expect("encodes");
        out
    }

    #[test]
    fn sentences_are_framed_as_apache_avro_encodes_them() {
        for text in ["", "w1 w2 w3", &"w999 ".repeat(40)] {
            let framed = frame_sentence(0x0102_0304, text.as_bytes());
            assert_eq!(framed[..5], [0, 1, 2, 3, 4]);
            let s = Sentence { text: text.into() };
            assert_eq!(framed[5..], datum(&s)[..], "{text:?}");
        }
    }

    #[test]
    fn word_counts_read_back_what_apache_avro_writes() {
        for count in [0, 1, -1, 63, 64, 1 << 40, i64::MAX, i64::MIN] {
            let mut value = vec![0, 0, 0, 0, 7];
            value.extend(datum(&WordCount {
                word: "w17".into(),
                count,
            }));
            assert_eq!(read_word_count(b"w17", &value).expect("reads"), (7, count));
        }
    }

    #[test]
    fn bad_word_counts_are_errors() {
        let mut good = vec![0, 0, 0, 0, 7];
        good.extend(datum(&WordCount {
            word: "w1".into(),
            count: 3,
        }));
        assert!(read_word_count(b"w1", &good).is_ok());
        assert!(read_word_count(b"w2", &good).is_err(), "another key");
        assert!(read_word_count(b"w1", &[]).is_err());
        assert!(read_word_count(b"w1", &[1, 0, 0, 0, 7, 4, b'w', b'1', 6]).is_err());
        assert!(read_word_count(b"w1", &good[..good.len() - 1]).is_err());
        let mut longer = good.clone();
        longer.push(0);
        assert!(read_word_count(b"w1", &longer).is_err());
        assert!(read_word_count(b"w1", &[0, 0, 0, 0, 7, 0xff, 0xff]).is_err());
        // 8 bytes (i64::MIN), reinterpreted as a count without a word: an error, not a panic.
        assert!(read_word_count(b"w1", &i64::MIN.to_be_bytes()).is_err());
    }
}
