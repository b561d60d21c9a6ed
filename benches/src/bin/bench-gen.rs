//! Input generator: creates a workload's input topics and writes `--records` records to them
//! (tables first), stamped so that the last record's timestamp is now. Deterministic: the same
//! `--records` and `--end-ms` give the same records. Prints a JSON summary. The Avro word count's
//! sentences are framed with the id of the `Sentence` schema, registered under
//! `<input prefix>-sentences-value` at `--registry-url`.

use anyhow::Result;
use dekaf_streams_benches::args::{Flags, parse_count};
use dekaf_streams_benches::kafka::{Admin, InputWriter, bootstrap_from_env};
use dekaf_streams_benches::workload::{Reference, Workload};
use dekaf_streams_benches::{avro, now_ms};

const USAGE: &str = "usage: bench-gen --workload stateless|wordcount|window|join|streamjoin|session|tablejoin|fkjoin|cogroup|versionedjoin|avro_wordcount|largestate-<zipf|uniform>-<keys>|all \
--input-prefix P [--records 100k] [--partitions 2] [--end-ms <now>] [--bootstrap 127.0.0.1:$DEKAF_KAFKA_PORT] \
[--registry-url $DEKAF_REGISTRY_URL (avro_wordcount)]";

fn main() -> Result<()> {
    let f = Flags::parse(std::env::args().skip(1), USAGE)?;
    let bootstrap = f
        .get("bootstrap")
        .map_or_else(bootstrap_from_env, str::to_owned);
    let prefix = f.required("input-prefix")?;
    let n = parse_count(f.get("records").unwrap_or("100k"))?;
    let partitions: i32 = f.parse_or("partitions", 2)?;
    let end_ms: i64 = f.parse_or("end-ms", now_ms())?;
    let workloads: Vec<Workload> = match f.required("workload")? {
        "all" => Workload::ALL.to_vec(),
        w => vec![w.parse()?],
    };
    let admin = Admin::new(&bootstrap)?;
    for w in workloads {
        let topics: Vec<String> = w
            .input_suffixes()
            .iter()
            .map(|s| format!("{prefix}-{s}"))
            .collect();
        admin.create_topics(&topics, partitions)?;
        admin.wait_for_topics(&topics, partitions as usize)?;
        let mut writer = InputWriter::new(&bootstrap, prefix)?;
        if w.uses_registry() {
            let url = f
                .get("registry-url")
                .map_or_else(avro::registry_url_from_env, str::to_owned);
            let subject = format!("{prefix}-sentences-value");
            writer = writer.avro_sentences(avro::register_sentence(&avro::client(&url), &subject)?);
        }
        let mut model = Reference::new(w);
        let started = std::time::Instant::now();
        let mut written = 0u64;
        for r in w.backlog(n, end_ms) {
            writer.send(&r)?;
            model.apply(&r);
            written += 1;
        }
        writer.flush()?;
        println!(
            "{}",
            serde_json::json!({
                "workload": w.name(), "topics": topics, "records": written,
                "seconds": started.elapsed().as_secs_f64(), "expected_output_keys": model.finals().len(),
                "end_ms": end_ms,
            })
        );
    }
    Ok(())
}
