//! Command lines: `--name value` pairs, and the "system command line" contract that every
//! system under test (Kafka Streams, the ceiling, dekaf-streams) accepts.

use std::collections::BTreeMap;
use std::str::FromStr;

use anyhow::{Context, Result, anyhow, bail};

use crate::workload::{Guarantee, Workload};

/// Flags of the form `--name value`, in any order.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    values: BTreeMap<String, String>,
}

impl Flags {
    /// Parses `--name value` pairs (the program name already skipped). `--help` is refused with
    /// `usage` as the message.
    pub fn parse<I: IntoIterator<Item = String>>(args: I, usage: &str) -> Result<Self> {
        let mut values = BTreeMap::new();
        let mut it = args.into_iter();
        while let Some(name) = it.next() {
            if name == "--help" || name == "-h" {
                bail!("{usage}");
            }
            let Some(stripped) = name.strip_prefix("--") else {
                bail!("expected a flag like --name value, got {name:?}\n{usage}");
            };
            let value = it
                .next()
                .ok_or_else(|| anyhow!("flag {name} needs a value\n{usage}"))?;
            values.insert(stripped.to_owned(), value);
        }
        Ok(Self { values })
    }

    /// The value of `--name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The value of `--name`, or an error naming the flag.
    pub fn required(&self, name: &str) -> Result<&str> {
        self.get(name)
            .ok_or_else(|| anyhow!("missing --{name} (see benches/WORKLOADS.md)"))
    }

    /// The value of `--name` parsed, or `default` when absent.
    pub fn parse_or<T: FromStr>(&self, name: &str, default: T) -> Result<T>
    where
        T::Err: std::fmt::Display,
    {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|e| anyhow!("--{name} {v:?}: {e}")),
        }
    }
}

/// Knobs that every system shares, passed identically to each (WORKLOADS.md, "Shared settings").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knobs {
    /// Processing threads (Kafka Streams `num.stream.threads`).
    pub threads: u32,
    /// Commit interval in milliseconds.
    pub commit_interval_ms: u64,
    /// Producer `linger.ms`.
    pub linger_ms: u64,
    /// Producer `batch.size` in bytes.
    pub batch_size: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            threads: 1,
            commit_interval_ms: 100,
            linger_ms: 5,
            batch_size: 16384,
        }
    }
}

/// What a system under test is told on its command line (the contract of WORKLOADS.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemArgs {
    /// Broker address, `127.0.0.1:<port>`.
    pub bootstrap: String,
    /// Which topology to run.
    pub workload: Workload,
    /// Processing guarantee.
    pub guarantee: Guarantee,
    /// Application id (Kafka Streams `application.id`; the ceiling's group id and
    /// transactional id prefix).
    pub app_id: String,
    /// Prefix of the input topics (`<prefix>-numbers`, …).
    pub input_prefix: String,
    /// The output topic.
    pub output_topic: String,
    /// Shared knobs.
    pub knobs: Knobs,
    /// Directory for local state.
    pub state_dir: String,
    /// Stop by itself after this many seconds.
    pub max_seconds: u64,
    /// `run` (process until stopped) or `restore` (restore the stores, report, exit).
    pub mode: Mode,
    /// The schema registry's Confluent API (`http://127.0.0.1:8480/apis/ccompat/v7`), for the
    /// workloads whose values are Avro; `--registry-url`, given only for those.
    pub registry_url: Option<String>,
}

/// What a system process does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Process input until SIGTERM or `--max-seconds`.
    Run,
    /// Start, restore every store from its changelog, print a `restored` event and exit.
    Restore,
}

impl SystemArgs {
    /// The flags, in the order the contract lists them.
    pub fn to_args(&self) -> Vec<String> {
        let mode = match self.mode {
            Mode::Run => "run",
            Mode::Restore => "restore",
        };
        let registry = self
            .registry_url
            .iter()
            .map(|url| ("registry-url", url.clone()));
        [
            ("bootstrap", self.bootstrap.clone()),
            ("workload", self.workload.name().to_owned()),
            ("guarantee", self.guarantee.name().to_owned()),
            ("app-id", self.app_id.clone()),
            ("input-prefix", self.input_prefix.clone()),
            ("output-topic", self.output_topic.clone()),
            ("threads", self.knobs.threads.to_string()),
            (
                "commit-interval-ms",
                self.knobs.commit_interval_ms.to_string(),
            ),
            ("linger-ms", self.knobs.linger_ms.to_string()),
            ("batch-size", self.knobs.batch_size.to_string()),
            ("state-dir", self.state_dir.clone()),
            ("max-seconds", self.max_seconds.to_string()),
            ("mode", mode.to_owned()),
        ]
        .into_iter()
        .chain(registry)
        .flat_map(|(k, v)| [format!("--{k}"), v])
        .collect()
    }

    /// Parses the contract's flags.
    pub fn from_flags(f: &Flags) -> Result<Self> {
        let d = Knobs::default();
        Ok(Self {
            bootstrap: f.get("bootstrap").unwrap_or("127.0.0.1:9092").to_owned(),
            workload: f.required("workload")?.parse()?,
            guarantee: f.required("guarantee")?.parse()?,
            app_id: f.required("app-id")?.to_owned(),
            input_prefix: f.required("input-prefix")?.to_owned(),
            output_topic: f.required("output-topic")?.to_owned(),
            knobs: Knobs {
                threads: f.parse_or("threads", d.threads)?,
                commit_interval_ms: f.parse_or("commit-interval-ms", d.commit_interval_ms)?,
                linger_ms: f.parse_or("linger-ms", d.linger_ms)?,
                batch_size: f.parse_or("batch-size", d.batch_size)?,
            },
            state_dir: f
                .get("state-dir")
                .unwrap_or("/tmp/dekaf-bench-state")
                .to_owned(),
            max_seconds: f.parse_or("max-seconds", 600)?,
            mode: match f.get("mode").unwrap_or("run") {
                "run" => Mode::Run,
                "restore" => Mode::Restore,
                other => bail!("unknown --mode {other:?}; use run or restore"),
            },
            registry_url: f.get("registry-url").map(str::to_owned),
        })
    }
}

/// Prints one JSON event line on stdout (`{"event":..,"time_ms":..,..}`), as the contract asks.
pub fn emit_event(event: &str, fields: serde_json::Value) {
    let mut obj = serde_json::Map::new();
    obj.insert("event".into(), event.into());
    obj.insert("time_ms".into(), crate::now_ms().into());
    if let serde_json::Value::Object(extra) = fields {
        obj.extend(extra);
    }
    println!("{}", serde_json::Value::Object(obj));
}

/// Parses a number with an optional `k`/`m` suffix (`100k` = 100 000).
pub fn parse_count(s: &str) -> Result<u64> {
    let (num, mul) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1_000),
        Some('m' | 'M') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    let n: u64 = num
        .parse()
        .with_context(|| format!("{s:?} is not a count like 100000 or 100k"))?;
    Ok(n * mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_args_round_trip() {
        let a = SystemArgs {
            bootstrap: "127.0.0.1:1".into(),
            workload: Workload::WordCount,
            guarantee: Guarantee::ExactlyOnce,
            app_id: "app".into(),
            input_prefix: "in".into(),
            output_topic: "out".into(),
            knobs: Knobs::default(),
            state_dir: "/tmp/x".into(),
            max_seconds: 5,
            mode: Mode::Restore,
            registry_url: None,
        };
        let f = Flags::parse(a.to_args(), "").expect("parses");
        assert_eq!(SystemArgs::from_flags(&f).expect("valid"), a);
        let a = SystemArgs {
            registry_url: Some("http://127.0.0.1:8480/apis/ccompat/v7".into()),
            ..a
        };
        let f = Flags::parse(a.to_args(), "").expect("parses");
        assert_eq!(SystemArgs::from_flags(&f).expect("valid"), a);
        assert_eq!(parse_count("100k").expect("count"), 100_000);
    }
}
