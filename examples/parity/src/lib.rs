//! The Rust side of the differential suite against Kafka Streams 4.4 (see `README.md` beside
//! this crate): reads the input files of `cases/`, runs a topology through the
//! [`TestDriver`] with them, renders what reaches its output topics as the Java side does
//! (`java/src/Parity.java`), and compares both record by record.
//!
//! The topologies themselves are in `tests/parity.rs`, each written with `topology!` as the
//! Java side writes it with the Kafka Streams DSL.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use dekaf_streams::serdes::{Bytes, Nullable};
use dekaf_streams::task::{Headers, TopicRef, Topology};
use dekaf_streams::testing::{RawRecord, TestDriver};
use serde_json::{Value, json};

/// One step of a case: a record piped into a topic, or the wall clock advanced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A record: topic, key, value (`None`: null), timestamp.
    Record {
        /// The topic it is piped into.
        topic: String,
        /// Its key, `None` for a null key.
        key: Option<String>,
        /// Its value, `None` for a null value.
        value: Option<String>,
        /// Its timestamp.
        timestamp: i64,
    },
    /// `wall <ms>`: advances the mocked wall clock.
    Wall(u64),
}

/// A case: the topology it runs and its input.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file name without `.txt`.
    pub name: String,
    /// The topology's name (`topology <name>` in the file).
    pub topology: String,
    /// The input, in order.
    pub steps: Vec<Step>,
}

/// Reads a case file: `#` comments, one `topology <name>` line, then one step per line:
/// `<topic> <key> <value> <timestamp>` (`null` for a null key or value) or `wall <ms>`.
pub fn parse_case(name: &str, text: &str) -> Result<Case, String> {
    let mut topology = None;
    let mut steps = Vec::new();
    let nul = |t: &str| (t != "null").then(|| t.to_owned());
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("{name}.txt line {}: cannot read `{line}`", i + 1);
        match t.as_slice() {
            ["topology", n] => topology = Some((*n).to_owned()),
            ["wall", ms] => steps.push(Step::Wall(ms.parse().map_err(|_| bad())?)),
            [topic, key, value, ts] => steps.push(Step::Record {
                topic: (*topic).to_owned(),
                key: nul(key),
                value: nul(value),
                timestamp: ts.parse().map_err(|_| bad())?,
            }),
            _ => return Err(bad()),
        }
    }
    Ok(Case {
        name: name.to_owned(),
        topology: topology.ok_or_else(|| format!("{name}.txt names no topology"))?,
        steps,
    })
}

/// The formats of an output topic's key and value: `out.<key>.<value>`, else strings.
fn formats(topic: &str) -> (&str, &str) {
    let parts: Vec<&str> = topic.split('.').collect();
    match parts.as_slice() {
        [_, k, v] => (k, v),
        _ => ("s", "s"),
    }
}

fn hex(b: &[u8]) -> String {
    let mut s = String::from("0x");
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

fn text(b: &[u8]) -> String {
    std::str::from_utf8(b).map_or_else(|_| hex(b), str::to_owned)
}

fn i64_at(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

/// Renders bytes as the Java side does: `s` UTF-8, `l` an i64, `w` `key@start` (time windowed),
/// `sw` `key@start/end` (session windowed); bytes that do not fit are hex.
pub fn render(bytes: Option<&[u8]>, format: &str) -> Value {
    let Some(b) = bytes else { return Value::Null };
    let n = b.len();
    Value::String(match format {
        "l" if n == 8 => i64_at(b, 0).to_string(),
        "w" if n >= 8 => format!("{}@{}", text(&b[..n - 8]), i64_at(b, n - 8)),
        "sw" if n >= 16 => format!(
            "{}@{}/{}",
            text(&b[..n - 16]),
            i64_at(b, n - 8),
            i64_at(b, n - 16)
        ),
        "l" | "w" | "sw" => hex(b),
        _ => text(b),
    })
}

/// Runs `case` through a [`TestDriver`] of `T` (no record cache) and returns its output as the
/// Java side writes it: per input step the records of every `out*` topic (topics in name order),
/// `{"in": n, "error": ..}` and the end of the case if the topology failed, and last
/// `{"dropped": n}` (records dropped: late, skipped by `on_error`, or dropped for a null key or
/// value, as Kafka Streams' `dropped-records-total`).
pub fn run<T: Topology>(case: &Case) -> Vec<Value> {
    let driver = TestDriver::<T>::new();
    let mut topics: Vec<&'static str> = T::INFO
        .subtopologies
        .iter()
        .flat_map(|s| s.sink_topics.iter().copied())
        .filter(|t| t.starts_with("out"))
        .collect();
    topics.sort_unstable();
    topics.dedup();
    let mut lines = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        let n = i + 1;
        let result = match step {
            Step::Wall(ms) => driver.try_advance_wall_clock(Duration::from_millis(*ms)),
            Step::Record {
                topic,
                key,
                value,
                timestamp,
            } => driver.try_pipe_raw(
                topic,
                RawRecord {
                    key: key.as_ref().map(|k| k.as_bytes().to_vec()),
                    value: value.as_ref().map(|v| v.as_bytes().to_vec()),
                    timestamp: *timestamp,
                    headers: Headers::new(),
                },
            ),
        };
        if let Err(e) = result {
            lines.push(json!({"in": n, "error": e.to_string()}));
            break;
        }
        for topic in &topics {
            let out = driver.output_topic(TopicRef::new::<Nullable<Bytes>, Nullable<Bytes>>(topic));
            let (kf, vf) = formats(topic);
            while let Some(r) = out.read_raw() {
                lines.push(json!({
                    "in": n,
                    "topic": topic,
                    "key": render(r.key.as_deref(), kf),
                    "value": render(r.value.as_deref(), vf),
                    "ts": r.timestamp,
                }));
            }
        }
    }
    lines.push(json!({"dropped": driver.records_dropped()}));
    lines
}

/// A line as compared: an error's message is the runtime's own, so only its place counts.
fn comparable(line: &Value) -> Value {
    match line.get("error") {
        Some(_) => json!({"in": line["in"], "error": true}),
        None => line.clone(),
    }
}

/// The differences between the Java side's lines and ours, as a readable diff (`-` Java only,
/// `+` Rust only), or `None` if they agree.
pub fn diff(expected: &[Value], actual: &[Value]) -> Option<String> {
    let e: Vec<Value> = expected.iter().map(comparable).collect();
    let a: Vec<Value> = actual.iter().map(comparable).collect();
    if e == a {
        return None;
    }
    // A longest common subsequence, so an extra or missing record shows as one line.
    let (n, m) = (e.len(), a.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if e[i] == a[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < n || j < m {
        if i < n && j < m && e[i] == a[j] {
            out.push_str(&format!("    {}\n", expected[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("  + {}\n", actual[j]));
            j += 1;
        } else {
            out.push_str(&format!("  - {}\n", expected[i]));
            i += 1;
        }
    }
    Some(out)
}

/// Reads the Java side's output of a case (`<dir>/<case>.expected.jsonl`).
pub fn read_expected(dir: &Path, case: &str) -> Result<Vec<Value>, String> {
    let path = dir.join(format!("{case}.expected.jsonl"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", path.display())))
        .collect()
}

/// The accepted differences: the `## <case>` headings of `ACCEPTED.md`, each with its
/// explanation.
pub fn accepted(markdown: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in markdown.lines() {
        if let Some(name) = line.strip_prefix("## ") {
            if let Some((n, t)) = current.take() {
                out.insert(n, t);
            }
            current = Some((name.trim().trim_matches('`').to_owned(), String::new()));
        } else if let Some((_, t)) = current.as_mut() {
            t.push_str(line);
            t.push('\n');
        }
    }
    if let Some((n, t)) = current {
        out.insert(n, t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_the_java_side() {
        assert_eq!(render(None, "s"), Value::Null);
        assert_eq!(render(Some(b"ab"), "s"), json!("ab"));
        assert_eq!(render(Some(&7i64.to_be_bytes()), "l"), json!("7"));
        let mut w = b"k".to_vec();
        w.extend_from_slice(&10i64.to_be_bytes());
        assert_eq!(render(Some(&w), "w"), json!("k@10"));
        let mut sw = b"k".to_vec();
        sw.extend_from_slice(&20i64.to_be_bytes());
        sw.extend_from_slice(&10i64.to_be_bytes());
        assert_eq!(render(Some(&sw), "sw"), json!("k@10/20"));
        assert_eq!(render(Some(&[1, 2]), "l"), json!("0x0102"));
    }

    #[test]
    fn parses_cases_and_accepted_entries() {
        let c = parse_case("x", "# doc\ntopology count\nin a null 5\nwall 10\n").expect("parses");
        assert_eq!(c.topology, "count");
        assert_eq!(
            c.steps,
            [
                Step::Record {
                    topic: "in".into(),
                    key: Some("a".into()),
                    value: None,
                    timestamp: 5
                },
                Step::Wall(10)
            ]
        );
        let a = accepted("# A\n\n## `c1`\n- differs: x\n## c2\n");
        assert_eq!(a.keys().collect::<Vec<_>>(), ["c1", "c2"]);
    }

    #[test]
    fn diffs_show_missing_and_extra_lines() {
        let e = [json!({"a": 1}), json!({"a": 2})];
        let a = [json!({"a": 1}), json!({"a": 3})];
        let d = diff(&e, &a).expect("differs");
        assert!(
            d.contains("- {\"a\":2}") && d.contains("+ {\"a\":3}"),
            "{d}"
        );
        assert!(diff(&e, &e).is_none());
        let err = [json!({"in": 1, "error": "java"})];
        assert!(diff(&err, &[json!({"in": 1, "error": "rust"})]).is_none());
    }
}
