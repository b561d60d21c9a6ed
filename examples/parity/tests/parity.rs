//! The differential suite: every case of `examples/parity/cases` run by Kafka Streams 4.4
//! (`java/src/Parity.java`, through `scripts/parity.sh java`) and by the topologies below, with
//! the same input file, compared record by record. Differences listed in `ACCEPTED.md` are
//! reported but allowed; any other fails the test. See `README.md`.

// The topologies are documented by their case files and the Java side.
#![allow(missing_docs)]

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::process::Command;

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams_parity::{Case, accepted, diff, parse_case, read_expected, run};
use serde_json::Value;

fn opt(s: Option<&String>) -> &str {
    s.map_or("null", String::as_str)
}

// ---- stateless ---------------------------------------------------------------------------------

topology! { pub Passthrough = "parity-passthrough" { stream("in", Utf8, Utf8).to("out", Utf8, Utf8); } }
topology! {
    pub PassthroughNullable = "parity-passthrough-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>).to("out", Nullable::<Utf8>, Nullable::<Utf8>);
    }
}
topology! {
    pub Filter = "parity-filter" {
        stream("in", Utf8, Utf8).filter(|_k, v| v.starts_with('a')).to("out", Utf8, Utf8);
    }
}
topology! {
    pub FilterNot = "parity-filter-not" {
        stream("in", Utf8, Utf8).filter_not(|_k, v| v.starts_with('a')).to("out", Utf8, Utf8);
    }
}
topology! {
    pub FilterNullable = "parity-filter-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .filter(|_k, v: &Option<String>| v.as_deref().is_none_or(|v| v.starts_with('a')))
            .to("out", Nullable::<Utf8>, Nullable::<Utf8>);
    }
}
topology! {
    pub Map = "parity-map" {
        stream("in", Utf8, Utf8).map(|k, v| (v, k)).to("out", Utf8, Utf8);
    }
}
topology! {
    pub MapValues = "parity-map-values" {
        stream("in", Utf8, Utf8).map_values(|v: String| v.to_uppercase()).to("out", Utf8, Utf8);
    }
}
topology! {
    pub MapValuesKey = "parity-map-values-key" {
        stream("in", Utf8, Utf8).map_values(|k: &String, v: String| format!("{k}:{v}")).to("out", Utf8, Utf8);
    }
}
topology! {
    pub MapValuesNullable = "parity-map-values-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .map_values(|v: Option<String>| v.map_or_else(|| "was-null".to_owned(), |v| v.to_uppercase()))
            .to("out", Nullable::<Utf8>, Utf8);
    }
}
topology! {
    pub FlatMap = "parity-flat-map" {
        stream("in", Utf8, Utf8)
            .flat_map(|k: &String, v: &String| v.split(',').map(|p| (p.to_owned(), k.clone())).collect::<Vec<_>>())
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub FlatMapValues = "parity-flat-map-values" {
        stream("in", Utf8, Utf8)
            .flat_map_values(|v: &String| v.split(',').map(str::to_owned).collect::<Vec<_>>())
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SelectKey = "parity-select-key" {
        stream("in", Utf8, Utf8).select_key(|_k, v: &String| v[..1].to_owned()).to("out", Utf8, Utf8);
    }
}
topology! {
    pub SelectKeyNullable = "parity-select-key-nullable" {
        stream("in", Nullable::<Utf8>, Utf8)
            .select_key(|_k, v: &String| v[..1].to_owned())
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub MapValuesKeyNullable = "parity-map-values-key-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .map_values(|k: &Option<String>, v: Option<String>| format!("{}:{}", opt(k.as_ref()), opt(v.as_ref())))
            .to("out", Nullable::<Utf8>, Utf8);
    }
}
topology! {
    pub Peek = "parity-peek" {
        stream("in", Utf8, Utf8).peek(|_k, _v| {}).to("out", Utf8, Utf8);
    }
}
topology! {
    pub Merge = "parity-merge" {
        let in2 = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8).merge(in2).to("out", Utf8, Utf8);
    }
}
topology! {
    pub Branch = "parity-branch" {
        let [a, b] = stream("in", Utf8, Utf8).branch(|_k, v| v.starts_with('a'), |_k, v| v.starts_with('b'));
        a.to("out-a", Utf8, Utf8);
        b.to("out-b", Utf8, Utf8);
    }
}
topology! {
    pub Repartition = "parity-repartition" {
        stream("in", Utf8, Utf8)
            .select_key(|_k, v: &String| v[..1].to_owned())
            .repartition("rp", Utf8, Utf8)
            .map_values(|v: String| v + "!")
            .to("out", Utf8, Utf8);
    }
}
// The loop is the point: the macro warns about it, `allow(deprecated)` on the enclosing module
// silences the warning.
#[allow(deprecated)]
mod looping {
    use dekaf_streams::prelude::*;
    topology! {
        pub Loop = "parity-loop" {
            let s = stream("in", Utf8, Utf8);
            s.filter(|_k, v| v.len() < 3).map_values(|v: String| v + "x").to("in", Utf8, Utf8);
            s.to("out", Utf8, Utf8);
        }
    }
}
use looping::Loop;
topology! {
    pub ProcessDedup = "parity-process-dedup" {
        store("seen", Utf8, I64);
        stream("in", Utf8, Utf8)
            .process(["seen"], |ctx, k: String, v: String| {
                if ctx.seen().get(&k)?.is_some() {
                    return Ok(None);
                }
                let now = ctx.timestamp();
                ctx.seen().put(&k, &now)?;
                Ok(Some((k, v)))
            })
            .to("out", Utf8, Utf8);
    }
}

topology! {
    pub ProcessValuesCount = "parity-process-values-count" {
        store("last", Utf8, Utf8);
        let s = stream("in", Utf8, Utf8)
            .process_values(["last"], |ctx, k: &String, v: String| {
                let before = ctx.last().get(k)?;
                ctx.last().put(k, &v)?;
                Ok(before.map(|b| format!("{b}->{v}")))
            });
        s.to("out", Utf8, Utf8);
        s.group_by_key().count("counts").to_stream().to("out.s.l", Utf8, I64);
    }
}

/// Appends " key@start-end=value" per window, as the Java side writes them.
fn windows(out: &mut String, all: Vec<(Windowed<String>, i64)>) {
    for (w, v) in all {
        out.push_str(&format!(
            " {}@{}-{}={v}",
            w.key, w.window.start, w.window.end
        ));
    }
}

/// Appends " key[start,end]=value" per session, as the Java side writes them.
fn sessions(out: &mut String, all: Vec<(Windowed<String>, i64)>) {
    for (w, v) in all {
        out.push_str(&format!(
            " {}[{},{}]={v}",
            w.key, w.window.start, w.window.end
        ));
    }
}

topology! {
    pub ProcessWindowStore = "parity-process-window-store" {
        window_store("w", Utf8, I64, size(Duration::from_millis(10)), retention(Duration::from_millis(30)));
        stream("in", Utf8, Utf8)
            .process(["w"], |ctx, k: String, v: String| {
                let start = match v.parse::<i64>() {
                    Ok(n) if !v.starts_with('-') && !v.starts_with('+') => n,
                    _ => ctx.timestamp() / 10 * 10,
                };
                if v == "del" {
                    ctx.w().delete(&k, start)?;
                } else {
                    let c = ctx.w().fetch(&k, start)?;
                    ctx.w().put(&k, &c.map_or(1, |c| c + 1), start)?;
                }
                let mut out = match ctx.w().fetch(&k, start)? {
                    Some(c) => c.to_string(),
                    None => "null".to_owned(),
                };
                out.push_str(" |");
                for (s, c) in ctx.w().fetch_range(&k, start - 20, start)? {
                    out.push_str(&format!(" {s}:{c}"));
                }
                out.push_str(" |");
                windows(&mut out, ctx.w().all()?);
                out.push_str(" |");
                let (b, c) = ("b".to_owned(), "c".to_owned());
                windows(&mut out, ctx.w().fetch_keys(Bound::Included(&b), Bound::Included(&c), 0, i64::MAX)?);
                out.push_str(" |");
                windows(&mut out, ctx.w().backward_fetch_all(0, i64::MAX)?);
                Ok(Some((k, out)))
            })
            .to("out", Utf8, Utf8);
    }
}

topology! {
    pub ProcessSessionStore = "parity-process-session-store" {
        session_store("s", Utf8, I64, retention(Duration::from_millis(50)));
        stream("in", Utf8, Utf8)
            .process(["s"], |ctx, k: String, v: String| {
                let t = ctx.timestamp();
                let mut out = String::new();
                if v == "rm" {
                    for (w, _) in ctx.s().fetch(&k)? {
                        ctx.s().remove(&k, w.start, w.end)?;
                    }
                    out.push_str("removed");
                } else {
                    let (mut start, mut end, mut n) = (t, t, 1);
                    for (w, c) in ctx.s().find_sessions(&k, t - 10, t + 10)? {
                        start = start.min(w.start);
                        end = end.max(w.end);
                        n += c;
                        ctx.s().remove(&k, w.start, w.end)?;
                    }
                    ctx.s().put(&k, start, end, &n)?;
                    let got = match ctx.s().fetch_session(&k, start, end)? {
                        Some(c) => c.to_string(),
                        None => "null".to_owned(),
                    };
                    out.push_str(&format!("[{start},{end}]={n} {got}"));
                }
                out.push_str(" |");
                let mine = ctx.s().fetch(&k)?.into_iter().map(|(w, c)| (Windowed::new(k.clone(), w.start, w.end), c)).collect();
                sessions(&mut out, mine);
                out.push_str(" |");
                let (a, b, c) = ("a".to_owned(), "b".to_owned(), "c".to_owned());
                sessions(&mut out, ctx.s().fetch_range(Bound::Included(&a), Bound::Included(&b))?);
                out.push_str(" |");
                sessions(&mut out, ctx.s().backward_find_sessions_range(Bound::Included(&a), Bound::Included(&c), 0, i64::MAX)?);
                Ok(Some((k, out)))
            })
            .to("out", Utf8, Utf8);
    }
}

// ---- grouping and aggregation of streams -------------------------------------------------------

topology! {
    pub MultiSourceCount = "parity-multi-source-count" {
        stream(["in", "in2"], Utf8, Utf8).group_by_key().count("counts").to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub MultiSourceMap = "parity-multi-source-map" {
        stream(["in", "in2"], Utf8, Utf8).map_values(|v: String| format!("{v}!")).to("out", Utf8, Utf8);
    }
}
topology! {
    pub ChosenTopic = "parity-chosen-topic" {
        // The Java chooser ignores the key, so a null key is fine: a Nullable key serde here.
        stream("in", Nullable::<Utf8>, Utf8).to(
            ["out-a", "out-b"],
            |_k: &Option<String>, v: &String| if v.starts_with('a') { "out-a" } else { "out-b" },
            Nullable::<Utf8>,
            Utf8,
        );
    }
}
topology! {
    pub ChosenTopicContext = "parity-chosen-topic-context" {
        stream(["in", "in2"], Utf8, Utf8).to(
            ["out-a", "out-b"],
            |_k: &String, _v: &String, ctx: &RecordContext<'_>| {
                if ctx.topic() == Some("in") && ctx.timestamp() < 100 { "out-a" } else { "out-b" }
            },
            Utf8,
            Utf8,
        );
    }
}
topology! {
    pub Count = "parity-count" {
        stream("in", Utf8, Utf8).group_by_key().count("counts").to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub CountNullable = "parity-count-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .group_by_key()
            .count("counts")
            .to_stream()
            .to("out.s.l", Nullable::<Utf8>, I64);
    }
}
topology! {
    pub CountGroupBy = "parity-count-group-by" {
        stream("in", Utf8, Utf8)
            .group_by(|_k, v: &String| v.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub CountSelectKey = "parity-count-select-key" {
        stream("in", Utf8, Utf8)
            .select_key(|_k, v: &String| v.clone())
            .group_by_key(Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub Reduce = "parity-reduce" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .reduce("reduced", |a: String, v: String| a + "+" + &v)
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub Aggregate = "parity-aggregate" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .aggregate("agg", || "0".to_owned(), |_k, v: String, agg: String| agg + "+" + &v, Utf8)
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub AggregateNullable = "parity-aggregate-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .group_by_key()
            .aggregate(
                "agg",
                || "0".to_owned(),
                |_k, v: Option<String>, agg: String| format!("{agg}+{}", opt(v.as_ref())),
                Utf8,
            )
            .to_stream()
            .to("out", Nullable::<Utf8>, Utf8);
    }
}

// ---- windows -----------------------------------------------------------------------------------

// ---- sources: timestamp extractors ------------------------------------------------------------

/// The Java side's extractor: "<ms>|.." → ms, "pt" → partition time, "ts" → record timestamp.
fn payload_time(value: &str, record_ts: i64, partition_time: i64) -> i64 {
    match value {
        "ts" => record_ts,
        "pt" => partition_time,
        other => other
            .split('|')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(-1),
    }
}

topology! {
    pub Extractor = "parity-extractor" {
        let s = stream("in", Utf8, Utf8, timestamp(|_k: &String, v: &String, ts: i64, pt: i64| payload_time(v, ts, pt)));
        s.to("out", Utf8, Utf8);
        s.group_by_key().windowed_by(tumbling(10)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}

topology! {
    pub TumblingCount = "parity-tumbling-count" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub TumblingCountGrace = "parity-tumbling-count-grace" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10).grace(5)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub HoppingCount = "parity-hopping-count" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(hopping(10, 5)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub TumblingReduce = "parity-tumbling-reduce" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10).grace(5))
            .reduce("reduced", |a: String, v: String| a + "+" + &v)
            .to_stream().to("out.w.s", TimeWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub TumblingAggregate = "parity-tumbling-aggregate" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10).grace(5))
            .aggregate("agg", || "0".to_owned(), |_k, v: String, agg: String| agg + "+" + &v, Utf8)
            .to_stream().to("out.w.s", TimeWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub SessionCount = "parity-session-count" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10)).count("counts")
            .to_stream().to("out.sw.l", SessionWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SessionCountGrace = "parity-session-count-grace" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10).grace(5)).count("counts")
            .to_stream().to("out.sw.l", SessionWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SessionAggregate = "parity-session-aggregate" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10).grace(5))
            .aggregate(
                "agg",
                || "0".to_owned(),
                |_k, v: String, agg: String| agg + "+" + &v,
                |_k, a: String, b: String| a + "|" + &b,
                Utf8,
            )
            .to_stream().to("out.sw.s", SessionWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub SessionReduce = "parity-session-reduce" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10))
            .reduce("reduced", |a: String, v: String| a + "+" + &v)
            .to_stream().to("out.sw.s", SessionWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub SlidingCount = "parity-sliding-count" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(sliding(10)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SlidingCountGrace = "parity-sliding-count-grace" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(sliding(10).grace(5)).count("counts")
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SlidingReduce = "parity-sliding-reduce" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(sliding(10).grace(5))
            .reduce("reduced", |a: String, v: String| a + "+" + &v)
            .to_stream().to("out.w.s", TimeWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub Cogroup = "parity-cogroup" {
        let in2 = stream("in2", Utf8, Utf8).group_by_key();
        stream("in", Utf8, Utf8).group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .aggregate("cogroup-store", || "0".to_owned(), Utf8)
            .to_stream().to("out", Utf8, Utf8);
    }
}
topology! {
    pub CogroupRekey = "parity-cogroup-rekey" {
        let in2 = stream("in2", Utf8, Utf8).group_by_key();
        stream("in", Utf8, Utf8).group_by(|_k, v: &String| v.clone(), Utf8, Utf8)
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .aggregate("cogroup-store", || "0".to_owned(), Utf8)
            .to_stream().to("out", Utf8, Utf8);
    }
}
topology! {
    pub CogroupTumbling = "parity-cogroup-tumbling" {
        let in2 = stream("in2", Utf8, Utf8).group_by_key();
        stream("in", Utf8, Utf8).group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(tumbling(10).grace(5))
            .aggregate("cogroup-store", || "0".to_owned(), Utf8)
            .to_stream().to("out.w.s", TimeWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub CogroupSliding = "parity-cogroup-sliding" {
        let in2 = stream("in2", Utf8, Utf8).group_by_key();
        stream("in", Utf8, Utf8).group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(sliding(10).grace(5))
            .aggregate("cogroup-store", || "0".to_owned(), Utf8)
            .to_stream().to("out.w.s", TimeWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub CogroupSession = "parity-cogroup-session" {
        let in2 = stream("in2", Utf8, Utf8).group_by_key();
        stream("in", Utf8, Utf8).group_by_key()
            .cogroup(|_k, v: String, agg: String| agg + "+" + &v)
            .cogroup(in2, |_k, v: String, agg: String| agg + "-" + &v)
            .windowed_by(session(10).grace(5))
            .aggregate("cogroup-store", || "0".to_owned(), |_k, a: String, b: String| a + "|" + &b, Utf8)
            .to_stream().to("out.sw.s", SessionWindowed::<Utf8>, Utf8);
    }
}
topology! {
    pub TumblingSuppress = "parity-tumbling-suppress" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10).grace(5)).count("counts")
            .suppress_until_window_closes()
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SessionSuppress = "parity-session-suppress" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10).grace(5)).count("counts")
            .suppress_until_window_closes()
            .to_stream().to("out.sw.l", SessionWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SessionLimitSuppress = "parity-session-limit-suppress" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(session(10).grace(5)).count("counts")
            .suppress_until_time_limit(5)
            .to_stream().to("out.sw.l", SessionWindowed::<Utf8>, I64);
    }
}
topology! {
    pub SlidingSuppress = "parity-sliding-suppress" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(sliding(10).grace(5)).count("counts")
            .suppress_until_window_closes()
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub LimitSuppress = "parity-limit-suppress" {
        stream("in", Utf8, Utf8).group_by_key().count("counts")
            .suppress_until_time_limit(10, unbounded())
            .to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub LimitSuppressZero = "parity-limit-suppress-zero" {
        stream("in", Utf8, Utf8).group_by_key().count("counts")
            .suppress_until_time_limit(0, unbounded())
            .to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub LimitSuppressEarly = "parity-limit-suppress-early" {
        stream("in", Utf8, Utf8).group_by_key().count("counts")
            .suppress_until_time_limit(100, max_records(2))
            .to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub LimitSuppressShutDown = "parity-limit-suppress-shut-down" {
        stream("in", Utf8, Utf8).group_by_key().count("counts")
            .suppress_until_time_limit(100, max_records(1).shut_down_when_full())
            .to_stream().to("out.s.l", Utf8, I64);
    }
}
topology! {
    pub TumblingLimitSuppress = "parity-tumbling-limit-suppress" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10).grace(20)).count("counts")
            .suppress_until_time_limit(5, unbounded())
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}
topology! {
    pub TumblingSuppressShutDown = "parity-tumbling-suppress-shut-down" {
        stream("in", Utf8, Utf8).group_by_key().windowed_by(tumbling(10)).count("counts")
            .suppress_until_window_closes(max_records(1).shut_down_when_full())
            .to_stream().to("out.w.l", TimeWindowed::<Utf8>, I64);
    }
}

// ---- tables ------------------------------------------------------------------------------------

topology! {
    pub TablePassthrough = "parity-table-passthrough" {
        table("t1", Utf8, Utf8).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableFilter = "parity-table-filter" {
        table("t1", Utf8, Utf8).filter(|_k, v| v.starts_with('a')).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableFilterNot = "parity-table-filter-not" {
        table("t1", Utf8, Utf8).filter_not(|_k, v| v.starts_with('a')).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableMapValues = "parity-table-map-values" {
        table("t1", Utf8, Utf8).map_values(|v: String| v.to_uppercase()).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
// The old and new values a table forwards, made visible: re-grouped by its own key, the
// subtractor sees each old value and the adder each new one. (Written out three times: a
// `macro_rules!` around `topology!` trips over the macro's hygiene, see README.md.)
topology! {
    pub TableChanges = "parity-table-changes" {
        table("t1", Utf8, Utf8)
            .group_by(|k: &String, v: String| (k.clone(), v), Utf8, Utf8)
            .aggregate(
                "changes",
                String::new,
                |_k, v: String, agg: String| format!("{agg}+{v}"),
                |_k, v: String, agg: String| format!("{agg}-{v}"),
                Utf8,
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableFilterChanges = "parity-table-filter-changes" {
        table("t1", Utf8, Utf8).filter(|_k, v| v.starts_with('a'))
            .group_by(|k: &String, v: String| (k.clone(), v), Utf8, Utf8)
            .aggregate(
                "changes",
                String::new,
                |_k, v: String, agg: String| format!("{agg}+{v}"),
                |_k, v: String, agg: String| format!("{agg}-{v}"),
                Utf8,
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableMapValuesChanges = "parity-table-map-values-changes" {
        table("t1", Utf8, Utf8).map_values(|v: String| v.to_uppercase())
            .group_by(|k: &String, v: String| (k.clone(), v), Utf8, Utf8)
            .aggregate(
                "changes",
                String::new,
                |_k, v: String, agg: String| format!("{agg}+{v}"),
                |_k, v: String, agg: String| format!("{agg}-{v}"),
                Utf8,
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub ToTable = "parity-to-table" {
        stream("in", Utf8, Utf8).to_table("st").to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub ToTableNullable = "parity-to-table-nullable" {
        stream("in", Nullable::<Utf8>, Nullable::<Utf8>)
            .to_table("st")
            .to_stream()
            .to("out", Nullable::<Utf8>, Nullable::<Nullable<Utf8>>);
    }
}
topology! {
    pub VersionedTable = "parity-versioned-table" {
        table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000)).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub VersionedToTable = "parity-versioned-to-table" {
        stream("in", Utf8, Nullable::<Utf8>)
            .to_table("st")
            .versioned(Duration::from_millis(1_000))
            .to_stream()
            .to("out", Utf8, Nullable::<Nullable<Utf8>>);
    }
}
topology! {
    pub VersionedStreamTableLeftJoin = "parity-versioned-stream-table-left-join" {
        let t1 = table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        stream("in", Utf8, Utf8)
            .left_join(t1, |v, t| format!("{v}+{}", t.unwrap_or_else(|| "null".to_owned())))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub VersionedGraceLeftJoin = "parity-versioned-grace-left-join" {
        let t1 = table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        stream("in", Utf8, Utf8)
            .left_join(t1, |v, t| format!("{v}+{}", t.unwrap_or_else(|| "null".to_owned())), grace(Duration::from_millis(100)))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub VersionedGraceJoin = "parity-versioned-grace-join" {
        let t1 = table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        stream("in", Utf8, Utf8)
            .join(t1, |v: String, t: String| format!("{v}+{t}"), grace(Duration::from_millis(100)))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub VersionedTableJoin = "parity-versioned-table-join" {
        let t1 = table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        let t2 = table("t2", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        t1.join(t2, |l: &String, r: &String| format!("{l}+{r}")).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub VersionedGroupCount = "parity-versioned-group-count" {
        table("t1", Utf8, Utf8)
            .versioned(Duration::from_millis(1_000))
            .group_by(|_k: &String, v: String| (v.clone(), v), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("out.s.l", Utf8, Nullable::<I64>);
    }
}
topology! {
    pub TableLimitSuppress = "parity-table-limit-suppress" {
        table("t1", Utf8, Utf8).suppress_until_time_limit(10).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableFilterLimitSuppress = "parity-table-filter-limit-suppress" {
        table("t1", Utf8, Utf8)
            .filter(|_k, v| v != "2")
            .suppress_until_time_limit(10)
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableLimitSuppressFilter = "parity-table-limit-suppress-filter" {
        table("t1", Utf8, Utf8)
            .suppress_until_time_limit(10)
            .filter(|_k, v| v != "2")
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableLimitSuppressChanges = "parity-table-limit-suppress-changes" {
        table("t1", Utf8, Utf8)
            .suppress_until_time_limit(10, max_records(2))
            .group_by(|k: &String, v: String| (k.clone(), v), Utf8, Utf8)
            .aggregate(
                "changes",
                String::new,
                |_k, v: String, agg: String| format!("{agg}+{v}"),
                |_k, v: String, agg: String| format!("{agg}-{v}"),
                Utf8,
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableGroupCount = "parity-table-group-count" {
        table("t1", Utf8, Utf8)
            .group_by(|_k: &String, v: String| (v.clone(), v), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("out.s.l", Utf8, Nullable::<I64>);
    }
}
topology! {
    pub TableGroupReduce = "parity-table-group-reduce" {
        table("t1", Utf8, Utf8)
            .group_by(|k: &String, v: String| (k[..1].to_owned(), v.parse::<i64>().unwrap_or_default()), Utf8, I64)
            .reduce("sums", |a, v| a + v, |a, v| a - v)
            .to_stream()
            .to("out.s.l", Utf8, Nullable::<I64>);
    }
}
topology! {
    pub TableGroupAggregate = "parity-table-group-aggregate" {
        table("t1", Utf8, Utf8)
            .group_by(|k: &String, v: String| (v, k.clone()), Utf8, Utf8)
            .aggregate(
                "agg",
                String::new,
                |_k, v: String, agg: String| format!("{agg}+{v}"),
                |_k, v: String, agg: String| format!("{agg}-{v}"),
                Utf8,
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableJoin = "parity-table-join" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.join(t2, |l: &String, r: &String| format!("{l}+{r}")).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableLeftJoin = "parity-table-left-join" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.left_join(t2, |l: &String, r: Option<&String>| format!("{l}+{}", opt(r))).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub TableOuterJoin = "parity-table-outer-join" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.outer_join(t2, |l: Option<&String>, r: Option<&String>| format!("{}+{}", opt(l), opt(r)))
            .to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub StreamTableJoin = "parity-stream-table-join" {
        let t1 = table("t1", Utf8, Utf8);
        stream("in", Utf8, Utf8).join(t1, |v: String, t: String| format!("{v}+{t}")).to("out", Utf8, Utf8);
    }
}
topology! {
    pub StreamTableLeftJoin = "parity-stream-table-left-join" {
        let t1 = table("t1", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            // Untyped closure parameters: inferred from the join (also on the null-key path).
            .left_join(t1, |v, t| format!("{v}+{}", t.unwrap_or_else(|| "null".to_owned())))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub GlobalJoin = "parity-global-join" {
        let g = global_table("g", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(g, |_k: &String, v: &String| v.clone(), |v: String, gv: String| format!("{v}+{gv}"))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub GlobalLeftJoin = "parity-global-left-join" {
        let g = global_table("g", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .left_join(g, |_k: &String, v: &String| v.clone(), |v: String, gv: Option<String>| format!("{v}+{}", opt(gv.as_ref())))
            .to("out", Utf8, Utf8);
    }
}
fn foreign_key(v: &str) -> String {
    v.split(':').next().unwrap_or_default().to_owned()
}
topology! {
    pub FkJoin = "parity-fk-join" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.join_on_foreign_key(t2, |v: &String| foreign_key(v), |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub VersionedFkLeftJoin = "parity-versioned-fk-left-join" {
        let t1 = table("t1", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        let t2 = table("t2", Utf8, Utf8).versioned(Duration::from_millis(1_000));
        t1.left_join_on_foreign_key(t2, |v: &String| foreign_key(v), |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)))
            .to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub FkLeftJoin = "parity-fk-left-join" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.left_join_on_foreign_key(t2, |v: &String| foreign_key(v), |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)))
            .to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}

// ---- stream-stream joins -----------------------------------------------------------------------

topology! {
    pub SsJoin = "parity-ss-join" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(r, |l: &String, r: &String| format!("{l}+{r}"), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SsLeftJoin = "parity-ss-left-join" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .left_join(r, |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SsOuterJoin = "parity-ss-outer-join" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .outer_join(r, |l: Option<&String>, r: Option<&String>| format!("{}+{}", opt(l), opt(r)), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SsJoinAsym = "parity-ss-join-asym" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(r, |l: &String, r: &String| format!("{l}+{r}"), join_window(0, 10))
            .to("out", Utf8, Utf8);
    }
}

// ---- joiners with the key, foreign-key extractors with the key --------------------------------
topology! {
    pub SsJoinKey = "parity-ss-join-key" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(r, |k: &String, l: &String, r: &String| format!("{k}:{l}+{r}"), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SsLeftJoinKey = "parity-ss-left-join-key" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .left_join(r, |k, l, r| format!("{k}:{l}+{}", opt(r)), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub SsOuterJoinKey = "parity-ss-outer-join-key" {
        let r = stream("in2", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .outer_join(r, |k: &String, l: Option<&String>, r: Option<&String>| format!("{k}:{}+{}", opt(l), opt(r)), join_window(10).grace(5))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub StreamTableJoinKey = "parity-stream-table-join-key" {
        let t1 = table("t1", Utf8, Utf8);
        stream("in", Utf8, Utf8).join(t1, |k, v, t| format!("{k}:{v}+{t}")).to("out", Utf8, Utf8);
    }
}
topology! {
    pub StreamTableLeftJoinKey = "parity-stream-table-left-join-key" {
        let t1 = table("t1", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .left_join(t1, |k: &String, v: String, t: Option<String>| format!("{k}:{v}+{}", opt(t.as_ref())))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub GlobalJoinKey = "parity-global-join-key" {
        let g = global_table("g", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(g, |_k: &String, v: &String| v.clone(), |k, v, gv| format!("{k}:{v}+{gv}"))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub GlobalLeftJoinKey = "parity-global-left-join-key" {
        let g = global_table("g", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .left_join(g, |_k: &String, v: &String| v.clone(), |k: &String, v: String, gv: Option<String>| format!("{k}:{v}+{}", opt(gv.as_ref())))
            .to("out", Utf8, Utf8);
    }
}
topology! {
    pub FkJoinKeyExtractor = "parity-fk-join-key-extractor" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.join_on_foreign_key(t2, |k: &String, _v: &String| foreign_key_of_key(k), |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub FkLeftJoinKeyExtractor = "parity-fk-left-join-key-extractor" {
        let t1 = table("t1", Utf8, Utf8);
        let t2 = table("t2", Utf8, Utf8);
        t1.left_join_on_foreign_key(t2, |k, _v| foreign_key_of_key(k), |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

topology! {
    pub AggTableJoin = "parity-agg-table-join" {
        let c = stream("in", Utf8, Utf8).group_by_key().count("c");
        let r = stream("in2", Utf8, Utf8).group_by_key().reduce("r", |a: String, v: String| format!("{a},{v}"));
        c.join(r, |x: &i64, y: &String| format!("{x}+{y}")).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub AggTableLeftJoin = "parity-agg-table-left-join" {
        let c = stream("in", Utf8, Utf8).group_by_key().count("c");
        let r = stream("in2", Utf8, Utf8).group_by_key().reduce("r", |a: String, v: String| format!("{a},{v}"));
        c.left_join(r, |x: &i64, y: Option<&String>| format!("{x}+{}", opt(y))).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub AggTableOuterJoin = "parity-agg-table-outer-join" {
        let c = stream("in", Utf8, Utf8).group_by_key().count("c");
        let r = stream("in2", Utf8, Utf8).group_by_key().reduce("r", |a: String, v: String| format!("{a},{v}"));
        c.outer_join(r, |x: Option<&i64>, y: Option<&String>| format!("{}+{}", x.map_or("null".to_owned(), i64::to_string), opt(y)))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}
topology! {
    pub StreamAggTableJoin = "parity-stream-agg-table-join" {
        let c = stream("in", Utf8, Utf8).group_by_key().count("c");
        stream("in2", Utf8, Utf8)
            .left_join(c, |v: String, n: Option<i64>| format!("{v}+{}", n.map_or("null".to_owned(), |n| n.to_string())))
            .to("out", Utf8, Utf8);
    }
}

/// `k.split("-")[0]`.
fn foreign_key_of_key(k: &str) -> String {
    k.split('-').next().unwrap_or_default().to_owned()
}

/// Runs `case` with the topology it names.
fn run_case(case: &Case) -> Option<Vec<Value>> {
    Some(match case.topology.as_str() {
        "passthrough" => run::<Passthrough>(case),
        "passthrough_nullable" => run::<PassthroughNullable>(case),
        "filter" => run::<Filter>(case),
        "filter_not" => run::<FilterNot>(case),
        "filter_nullable" => run::<FilterNullable>(case),
        "map" => run::<Map>(case),
        "map_values" => run::<MapValues>(case),
        "map_values_key" => run::<MapValuesKey>(case),
        "map_values_nullable" => run::<MapValuesNullable>(case),
        "flat_map" => run::<FlatMap>(case),
        "flat_map_values" => run::<FlatMapValues>(case),
        "select_key" => run::<SelectKey>(case),
        "select_key_nullable" => run::<SelectKeyNullable>(case),
        "map_values_key_nullable" => run::<MapValuesKeyNullable>(case),
        "peek" => run::<Peek>(case),
        "merge" => run::<Merge>(case),
        "branch" => run::<Branch>(case),
        "repartition" => run::<Repartition>(case),
        "loop" => run::<Loop>(case),
        "process_dedup" => run::<ProcessDedup>(case),
        "process_values_count" => run::<ProcessValuesCount>(case),
        "process_window_store" => run::<ProcessWindowStore>(case),
        "process_session_store" => run::<ProcessSessionStore>(case),
        "count" => run::<Count>(case),
        "chosen_topic" => run::<ChosenTopic>(case),
        "chosen_topic_context" => run::<ChosenTopicContext>(case),
        "multi_source_count" => run::<MultiSourceCount>(case),
        "multi_source_map" => run::<MultiSourceMap>(case),
        "count_nullable" => run::<CountNullable>(case),
        "count_group_by" => run::<CountGroupBy>(case),
        "count_select_key" => run::<CountSelectKey>(case),
        "reduce" => run::<Reduce>(case),
        "aggregate" => run::<Aggregate>(case),
        "aggregate_nullable" => run::<AggregateNullable>(case),
        "extractor" => run::<Extractor>(case),
        "tumbling_count" => run::<TumblingCount>(case),
        "tumbling_count_grace" => run::<TumblingCountGrace>(case),
        "hopping_count" => run::<HoppingCount>(case),
        "tumbling_reduce" => run::<TumblingReduce>(case),
        "tumbling_aggregate" => run::<TumblingAggregate>(case),
        "session_count" => run::<SessionCount>(case),
        "session_count_grace" => run::<SessionCountGrace>(case),
        "session_aggregate" => run::<SessionAggregate>(case),
        "session_reduce" => run::<SessionReduce>(case),
        "sliding_count" => run::<SlidingCount>(case),
        "sliding_count_grace" => run::<SlidingCountGrace>(case),
        "sliding_reduce" => run::<SlidingReduce>(case),
        "cogroup" => run::<Cogroup>(case),
        "cogroup_rekey" => run::<CogroupRekey>(case),
        "cogroup_tumbling" => run::<CogroupTumbling>(case),
        "cogroup_sliding" => run::<CogroupSliding>(case),
        "cogroup_session" => run::<CogroupSession>(case),
        "tumbling_suppress" => run::<TumblingSuppress>(case),
        "session_suppress" => run::<SessionSuppress>(case),
        "session_limit_suppress" => run::<SessionLimitSuppress>(case),
        "sliding_suppress" => run::<SlidingSuppress>(case),
        "limit_suppress" => run::<LimitSuppress>(case),
        "limit_suppress_zero" => run::<LimitSuppressZero>(case),
        "limit_suppress_early" => run::<LimitSuppressEarly>(case),
        "limit_suppress_shut_down" => run::<LimitSuppressShutDown>(case),
        "tumbling_limit_suppress" => run::<TumblingLimitSuppress>(case),
        "tumbling_suppress_shut_down" => run::<TumblingSuppressShutDown>(case),
        "table_passthrough" => run::<TablePassthrough>(case),
        "table_filter" => run::<TableFilter>(case),
        "table_filter_not" => run::<TableFilterNot>(case),
        "table_map_values" => run::<TableMapValues>(case),
        "table_changes" => run::<TableChanges>(case),
        "table_filter_changes" => run::<TableFilterChanges>(case),
        "table_map_values_changes" => run::<TableMapValuesChanges>(case),
        "to_table" => run::<ToTable>(case),
        "to_table_nullable" => run::<ToTableNullable>(case),
        "table_group_count" => run::<TableGroupCount>(case),
        "table_limit_suppress" => run::<TableLimitSuppress>(case),
        "table_filter_limit_suppress" => run::<TableFilterLimitSuppress>(case),
        "table_limit_suppress_filter" => run::<TableLimitSuppressFilter>(case),
        "table_limit_suppress_changes" => run::<TableLimitSuppressChanges>(case),
        "table_group_reduce" => run::<TableGroupReduce>(case),
        "table_group_aggregate" => run::<TableGroupAggregate>(case),
        "table_join" => run::<TableJoin>(case),
        "table_left_join" => run::<TableLeftJoin>(case),
        "table_outer_join" => run::<TableOuterJoin>(case),
        "stream_table_join" => run::<StreamTableJoin>(case),
        "stream_table_left_join" => run::<StreamTableLeftJoin>(case),
        "versioned_table" => run::<VersionedTable>(case),
        "versioned_to_table" => run::<VersionedToTable>(case),
        "versioned_stream_table_left_join" => run::<VersionedStreamTableLeftJoin>(case),
        "versioned_table_join" => run::<VersionedTableJoin>(case),
        "versioned_grace_left_join" => run::<VersionedGraceLeftJoin>(case),
        "versioned_grace_join" => run::<VersionedGraceJoin>(case),
        "versioned_group_count" => run::<VersionedGroupCount>(case),
        "global_join" => run::<GlobalJoin>(case),
        "global_left_join" => run::<GlobalLeftJoin>(case),
        "fk_join" => run::<FkJoin>(case),
        "fk_left_join" => run::<FkLeftJoin>(case),
        "versioned_fk_left_join" => run::<VersionedFkLeftJoin>(case),
        "ss_join" => run::<SsJoin>(case),
        "ss_left_join" => run::<SsLeftJoin>(case),
        "ss_outer_join" => run::<SsOuterJoin>(case),
        "ss_join_asym" => run::<SsJoinAsym>(case),
        "ss_join_key" => run::<SsJoinKey>(case),
        "ss_left_join_key" => run::<SsLeftJoinKey>(case),
        "ss_outer_join_key" => run::<SsOuterJoinKey>(case),
        "stream_table_join_key" => run::<StreamTableJoinKey>(case),
        "stream_table_left_join_key" => run::<StreamTableLeftJoinKey>(case),
        "global_join_key" => run::<GlobalJoinKey>(case),
        "global_left_join_key" => run::<GlobalLeftJoinKey>(case),
        "fk_join_key_extractor" => run::<FkJoinKeyExtractor>(case),
        "fk_left_join_key_extractor" => run::<FkLeftJoinKeyExtractor>(case),
        "agg_table_join" => run::<AggTableJoin>(case),
        "agg_table_left_join" => run::<AggTableLeftJoin>(case),
        "agg_table_outer_join" => run::<AggTableOuterJoin>(case),
        "stream_agg_table_join" => run::<StreamAggTableJoin>(case),
        _ => return None,
    })
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Why there is no Java output.
enum NoJava {
    /// No JDK or Maven here (`scripts/parity.sh` exits with 3): skipped outside CI.
    Unavailable(String),
    /// The Java side failed.
    Failed(String),
}

/// Runs the Java side (`scripts/parity.sh java`) unless `PARITY_SKIP_JAVA` is set (the script
/// sets it when it runs this test right after the Java side).
fn java_side() -> Result<PathBuf, NoJava> {
    let expected = root().join("target/parity/expected");
    if std::env::var_os("PARITY_SKIP_JAVA").is_some() {
        return Ok(expected);
    }
    let status = Command::new("bash")
        .arg(root().join("scripts/parity.sh"))
        .arg("java")
        .status()
        .map_err(|e| NoJava::Unavailable(format!("cannot run bash scripts/parity.sh java: {e}")))?;
    match status.code() {
        Some(0) => Ok(expected),
        Some(3) => Err(NoJava::Unavailable(
            "the Java side cannot run here: no JDK or Maven (see the message of scripts/parity.sh above)"
                .to_owned(),
        )),
        _ => Err(NoJava::Failed(format!(
            "scripts/parity.sh java failed ({status})"
        ))),
    }
}

#[test]
fn kafka_streams_parity() {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let expected_dir = match java_side() {
        Ok(dir) => dir,
        Err(NoJava::Unavailable(why)) if !in_ci => {
            eprintln!("parity: SKIPPED (not in CI): {why}");
            return;
        }
        Err(NoJava::Unavailable(why) | NoJava::Failed(why)) => panic!("parity: {why}"),
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let accepted = accepted(&std::fs::read_to_string(here.join("ACCEPTED.md")).unwrap_or_default());
    let mut files: Vec<PathBuf> = std::fs::read_dir(here.join("cases"))
        .expect("examples/parity/cases")
        .map(|e| e.expect("a case file").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let (mut matching, mut differing, mut accepted_differing) = (0, Vec::new(), 0);
    let mut problems = Vec::new();
    for file in &files {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name");
        let text = std::fs::read_to_string(file).expect("a readable case");
        let case = match parse_case(name, &text) {
            Ok(c) => c,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let Some(actual) = run_case(&case) else {
            problems.push(format!(
                "{name}: topology `{}` is not in tests/parity.rs",
                case.topology
            ));
            continue;
        };
        let expected = match read_expected(&expected_dir, name) {
            Ok(e) => e,
            Err(e) => {
                problems.push(format!("{name}: no Java output ({e})"));
                continue;
            }
        };
        match (diff(&expected, &actual), accepted.get(name)) {
            (None, None) => matching += 1,
            (None, Some(_)) => problems.push(format!(
                "{name}: listed in ACCEPTED.md but now matches Kafka Streams: remove its entry"
            )),
            (Some(d), Some(why)) => {
                accepted_differing += 1;
                eprintln!("parity: {name}: accepted difference ({})\n{d}", why.trim());
            }
            (Some(d), None) => {
                eprintln!("parity: {name}: DIFFERS from Kafka Streams 4.4 (- Java, + Rust)\n{d}");
                differing.push(name.to_owned());
            }
        }
    }
    for name in accepted.keys() {
        if !files
            .iter()
            .any(|f| f.file_stem().and_then(|s| s.to_str()) == Some(name))
        {
            problems.push(format!("ACCEPTED.md lists `{name}`, which is no case"));
        }
    }
    eprintln!(
        "parity: {} cases: {matching} match Kafka Streams 4.4, {accepted_differing} differ as accepted, {} differ",
        files.len(),
        differing.len()
    );
    assert!(problems.is_empty(), "parity: {}", problems.join("\n"));
    assert!(
        differing.is_empty(),
        "parity: {} cases differ from Kafka Streams 4.4 (diffs above): {}",
        differing.len(),
        differing.join(", ")
    );
}
