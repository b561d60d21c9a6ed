#!/usr/bin/env python3
"""Writes a crate of N realistic topologies for the compile-time measurements of
benches/compile-time.sh (issue 32, item 4).

Usage: gen_crate.py <dir> <runtime path> <count>

Ten templates (word count, windowed count with suppress, session aggregate, sliding count,
stream-table join, stream-stream join, table-table join, foreign-key join, processor with a
store, stateless routing with branch/merge over JSON) are cycled; the topologies of template
`t` live in module `t`, with a `run_all` that runs them on Kafka (so that the library
instantiates their task code, as a binary would), and `cargo llvm-lines` can sum the generated
code per operator family (a function belongs to a family when its name mentions `::t::`).
"""
import os
import sys

TEMPLATES = {
    "word_count": """
        stream("{p}-sentences", Utf8, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_lowercase))
            .filter(|_key, word| !word.is_empty())
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("{p}-counts")
            .to_stream()
            .to("{p}-word-counts", Utf8, I64);""",
    "windowed": """
        stream("{p}-clicks", Utf8, Json::<Click>)
            .filter(|_user, click| click.duration_ms > 0)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(5)))
            .count("{p}-clicks-per-minute")
            .suppress_until_window_closes()
            .to_stream()
            .to("{p}-clicks-per-minute", TimeWindowed::<Utf8>, I64);""",
    "session": """
        stream("{p}-clicks", Utf8, Json::<Click>)
            .group_by_key()
            .windowed_by(session(Duration::from_mins(30)).grace(Duration::from_secs(10)))
            .aggregate(
                "{p}-pages-per-session",
                || 0_i64,
                |_user, click: Click, total: i64| total + click.duration_ms,
                |_user, a: i64, b: i64| a + b,
                I64,
            )
            .to_stream()
            .to("{p}-session-time", SessionWindowed::<Utf8>, I64);""",
    "sliding": """
        stream("{p}-clicks", Utf8, Json::<Click>)
            .map_values(|click| click.page)
            .group_by_key()
            .windowed_by(sliding(Duration::from_mins(5)))
            .count("{p}-recent-clicks")
            .to_stream()
            .to("{p}-recent-clicks", TimeWindowed::<Utf8>, I64);""",
    "stream_table_join": """
        let customers = table("{p}-customers", Utf8, Json::<Customer>);
        let orders = stream("{p}-orders", Utf8, Json::<Order>);
        orders
            .join(customers, |order, customer| enrich(order, Some(customer)))
            .to("{p}-orders-enriched", Utf8, Json::<EnrichedOrder>);
        orders
            .left_join(customers, enrich)
            .filter(|_id, enriched| enriched.amount_cents > 100)
            .to("{p}-large-orders", Utf8, Json::<EnrichedOrder>);""",
    "stream_join": """
        let impressions = stream("{p}-impressions", Utf8, Utf8);
        let clicks = stream("{p}-ad-clicks", Utf8, Utf8);
        impressions
            .left_join(
                clicks,
                |ad, click| format!("{{ad}} -> {{}}", click.map_or("no click", |c| c.as_str())),
                join_window(Duration::from_mins(10)).grace(Duration::from_secs(30)),
            )
            .to("{p}-attributed", Utf8, Utf8);""",
    "table_join": """
        let prices = table("{p}-prices", Utf8, I64, "{p}-prices-store");
        let stock = table("{p}-stock", Utf8, I64, "{p}-stock-store");
        prices
            .join(stock, |price: &i64, units: &i64| price * units)
            .filter(|_item, value| *value > 0)
            .to_stream()
            .to("{p}-stock-value", Utf8, Nullable::<I64>);""",
    "fk_join": """
        let orders = table("{p}-orders", Utf8, Utf8, "{p}-orders-store");
        let customers = table("{p}-customers", Utf8, Utf8, "{p}-customers-store");
        orders
            .left_join_on_foreign_key(
                customers,
                |order: &String| order.split(':').next().unwrap_or_default().to_owned(),
                |order: &String, customer: Option<&String>| {{
                    format!("{{order}} for {{}}", customer.map_or("nobody", |c| c.as_str()))
                }},
            )
            .to_stream()
            .to("{p}-orders-with-customers", Utf8, Nullable::<Utf8>);""",
    "processor": """
        store("{p}-seen", Utf8, I64);
        stream("{p}-events", Utf8, Utf8)
            .process(["{p}-seen"], |ctx, id, payload| {{
                let now = ctx.timestamp();
                if ctx.{s}_seen().get(&id)?.is_some() {{
                    return Ok(None);
                }}
                ctx.{s}_seen().put(&id, &now)?;
                Ok(Some((id, payload)))
            }})
            .to("{p}-unique-events", Utf8, Utf8);""",
    "routing": """
        let orders = stream("{p}-orders", Utf8, Json::<Order>);
        let [large, small] = orders.branch(
            |_id, order| order.amount_cents >= 10_000,
            |_id, order| order.amount_cents > 0,
        );
        let halves = small.map_values(|order| order.amount_cents / 2);
        large
            .map_values(|order| order.amount_cents)
            .merge(halves)
            .select_key(|id, _cents| id.to_uppercase())
            .repartition("{p}-by-upper-id", Utf8, I64)
            .peek(|_id, _cents| {{}})
            .to("{p}-order-amounts", Utf8, I64);""",
}

PRELUDE = """//! {count} topologies generated by benches/compile/gen_crate.py: the compile-time workload.
#![allow(missing_docs, dead_code)]

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use serde::{{Deserialize, Serialize}};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Click {{ pub page: String, pub duration_ms: i64 }}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {{ pub id: u64, pub amount_cents: i64 }}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {{ pub name: String, pub country: String }}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnrichedOrder {{ pub id: u64, pub amount_cents: i64, pub customer: Option<String> }}

pub fn enrich(order: Order, customer: Option<Customer>) -> EnrichedOrder {{
    EnrichedOrder {{ id: order.id, amount_cents: order.amount_cents, customer: customer.map(|c| c.name) }}
}}
"""


def main():
    out, runtime, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    with open(os.path.join(out, "Cargo.toml"), "w") as f:
        f.write(f"""[package]
name = "compile-bench"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
dekaf-streams = {{ path = "{runtime}" }}
serde = {{ version = "1", features = ["derive"] }}
tokio = {{ version = "1", features = ["rt-multi-thread"] }}

[workspace]
""")
    names = list(TEMPLATES)
    modules = {n: [] for n in names}
    types = {n: [] for n in names}
    for i in range(count):
        t = names[i % len(names)]
        p = f"{t.replace('_', '-')}-{i}"
        s = p.replace("-", "_")
        body = TEMPLATES[t].format(p=p, s=s)
        types[t].append(f"T{i}")
        modules[t].append(f"""
    topology! {{
        pub T{i} = "ct-{p}" {{{body}
        }}
    }}
""")
    with open(os.path.join(out, "src", "lib.rs"), "w") as f:
        f.write(PRELUDE.format(count=count))
        for t in names:
            if not modules[t]:
                continue
            f.write(f"\npub mod {t} {{\n    use super::*;\n")
            f.write("".join(modules[t]))
            runs = "".join(
                f"            dekaf_streams::KafkaStreams::builder({ty})\n"
                "                .bootstrap_servers(bootstrap)\n"
                "                .build()?\n"
                "                .run(std::future::ready(()))\n"
                "                .await?;\n"
                for ty in types[t]
            )
            f.write(f"""
    /// Runs this module's topologies one after the other: what a service binary does with
    /// them, and what makes `cargo llvm-lines --lib` see the code each one instantiates.
    pub fn run_all(bootstrap: &str) -> Result<(), Box<dyn std::error::Error>> {{
        let runtime = tokio::runtime::Runtime::new()?;
        runtime.block_on(async {{
{runs}            Ok(())
        }})
    }}
""")
            f.write("}\n")


if __name__ == "__main__":
    main()
