//! The Avro demo's Kafka and registry chores (feature `avro`): `demo-io-avro setup` creates the
//! Avro word count's topics and produces sample sentences in Avro (schema version 1 of
//! `dekaf.it.Sentence`, `{text}`, registered under `avro-wc-sentences-value`, Confluent wire
//! format); `demo-io-avro counts` waits for the committed word counts of those sentences, decodes
//! them with the writer's schema fetched from the registry, and prints them.
//!
//! Broker from `DEKAF_BOOTSTRAP`, registry (its Confluent API) from `DEKAF_REGISTRY_URL`.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use dekaf_streams::serdes::registry::apache_avro::types::Value;
use dekaf_streams::serdes::registry::{RegistryConfig, SchemaRegistry};
use dekaf_streams_harness::avro_io::{AvroDecoder, encode, register, schema};
use dekaf_streams_harness::java_interop::registry_url;
use dekaf_streams_harness::kafka_io::{
    bootstrap, last_counts, off_workers, produce, read_all, recreate,
};

const SENTENCES: &[&str] = &[
    "the quick brown fox jumps over the lazy dog",
    "a stream is a table in motion",
    "a table is a stream at rest",
    "the dog sleeps",
    "exactly once is the default",
];

/// Version 1 of the example's `Sentence` (version 2 adds `lang` with a default): what an older
/// writer registers. The example reads it by resolving it against its own version.
const SENTENCE_V1: &str = r#"{"type":"record","name":"Sentence","namespace":"dekaf.it","fields":[{"name":"text","type":"string"}]}"#;

const INPUT: &str = "avro-wc-sentences";
const OUTPUT: &str = "avro-wc-counts";

#[tokio::main]
async fn main() -> ExitCode {
    let servers = bootstrap();
    let registry = SchemaRegistry::new(RegistryConfig::new(registry_url()));
    let command = std::env::args().nth(1).unwrap_or_default();
    let result = match command.as_str() {
        "setup" => setup(&servers, registry).await,
        "counts" => counts(&servers, registry).await,
        _ => {
            eprintln!(
                "usage: demo-io-avro setup|counts   (broker from DEKAF_BOOTSTRAP, registry from DEKAF_REGISTRY_URL)"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn setup(servers: &str, registry: SchemaRegistry) -> Result<(), String> {
    // A clean slate: the example's group, internal topics and topics of an earlier run go.
    recreate(servers, "avro-wc", &[(INPUT, 4), (OUTPUT, 4)]).await?;
    let subject = format!("{INPUT}-value");
    let id = {
        let subject = subject.clone();
        off_workers(move || register(&registry, &subject, SENTENCE_V1)).await?
    };
    let sentence = schema(SENTENCE_V1);
    let values = SENTENCES
        .iter()
        .map(|s| {
            let record = Value::Record(vec![("text".to_owned(), Value::String((*s).to_owned()))]);
            encode(id, &sentence, record)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let keys: Vec<String> = (1..=SENTENCES.len())
        .map(|i| format!("sentence-{i}"))
        .collect();
    let records = keys
        .iter()
        .zip(&values)
        .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_slice())));
    let n = produce(servers, INPUT, records)
        .await
        .map_err(|e| e.to_string())?;
    println!("produced {n} Avro sentences to `{INPUT}` (schema id {id}, subject {subject}):");
    for s in SENTENCES {
        println!("  {{\"text\": \"{s}\"}}");
    }
    Ok(())
}

/// Waits until the committed counts add up to every word of the sample, then prints them.
async fn counts(servers: &str, registry: SchemaRegistry) -> Result<(), String> {
    let words: i64 = SENTENCES.iter().map(|s| s.split(' ').count() as i64).sum();
    let started = Instant::now();
    let mut decoder = Some(AvroDecoder::new(registry));
    loop {
        let records = read_all(
            servers,
            OUTPUT,
            Duration::from_secs(1),
            Duration::from_secs(10),
        )
        .await
        .map_err(|e| e.to_string())?;
        let mut d = decoder.take().expect("the decoder");
        let (d, decoded) = off_workers(move || {
            let decoded = d.word_counts(&records);
            (d, decoded)
        })
        .await;
        decoder = Some(d);
        let decoded = decoded?;
        let ids: BTreeSet<String> = decoded.iter().map(|(id, _)| id.to_string()).collect();
        let records: Vec<_> = decoded.into_iter().map(|(_, r)| r).collect();
        let counts = last_counts(&records);
        let complete = counts.values().sum::<i64>() >= words;
        if complete || started.elapsed() > Duration::from_secs(90) {
            let mut counts: Vec<_> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            println!(
                "word counts in `{OUTPUT}` (read_committed, {} updates, Avro dekaf.it.WordCount, schema id {}):",
                records.len(),
                ids.into_iter().collect::<Vec<_>>().join(", ")
            );
            for (word, count) in counts {
                println!("  {word:>10} {count}");
            }
            return if complete {
                Ok(())
            } else {
                Err(format!(
                    "the counts of the {words} words were not all committed within 90 s"
                ))
            };
        }
    }
}
