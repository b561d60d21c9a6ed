//! `describe()` for taking over a Kafka Streams application: after the nodes, the topology the
//! coordinator compares (every subtopology's topics, configs, copartition groups) and, per
//! internal topic, the Java declaration that names it the same; operators whose declaration
//! can differ from the Java application's are flagged with why and the fix.
//!
//! Snapshots: `describe/<topology>.txt`; `DEKAF_BLESS=1 cargo test -p dekaf-streams-examples
//! --test describe_takeover` rewrites them from the current output (review the diff).

use dekaf_streams::prelude::*;
use dekaf_streams::task::Topology;

topology! {
    /// Every internal topic named after a name given here: nothing to flag.
    pub Named = "named" {
        store("seen", Utf8, I64);
        let clicks = stream("clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .windowed_by(session(Duration::from_mins(30)).grace(Duration::from_secs(10)))
            .count("sessions")
            .suppress_until_window_closes("final-sessions")
            .to_stream()
            .to("session-counts", SessionWindowed::<Utf8>, I64);
        clicks
            .select_key(|_key, page| page.clone())
            .repartition("by-page", Utf8, Utf8)
            .process(["seen"], |ctx, page, user| {
                let now = ctx.timestamp();
                ctx.seen().put(&page, &now)?;
                Ok(Some((page, user)))
            })
            .to("pages", Utf8, Utf8);
    }
}

topology! {
    /// A table read from its topic, an unnamed suppression and a stream-stream join: each can
    /// be declared differently by a Java application.
    pub Flagged = "flagged" {
        let prices = table("prices", Utf8, I64);
        let orders = stream("orders", Utf8, I64);
        let payments = stream("payments", Utf8, I64);
        orders
            .join(prices, |quantity, price| quantity * price)
            .to("order-totals", Utf8, I64);
        orders
            .join(payments, |o, p| o - p, join_window(Duration::from_mins(1)))
            .to("unpaid", Utf8, I64);
        payments
            .group_by_key()
            .windowed_by(tumbling(Duration::from_mins(1)))
            .count("payments-per-minute")
            .suppress_until_window_closes()
            .to_stream()
            .to("payment-counts", TimeWindowed::<Utf8>, I64);
    }
}

/// Compares `actual` with the snapshot `describe/<name>.txt` (rewritten under `DEKAF_BLESS=1`).
fn assert_snapshot(name: &str, actual: &str) {
    let path = format!("{}/tests/describe/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("DEKAF_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write the snapshot");
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(actual, expected, "\n--- actual {name} ---\n{actual}");
}

#[test]
fn named_topology_snapshot() {
    assert_snapshot("named", Named::describe());
}

#[test]
fn flagged_topology_snapshot() {
    assert_snapshot("flagged", Flagged::describe());
}

/// The part after "Can differ", one flag per line.
fn flags(description: &str) -> Vec<&str> {
    description
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("! "))
        .collect()
}

#[test]
fn a_topology_of_named_topics_has_no_flags() {
    let d = Named::describe();
    assert!(flags(d).is_empty(), "{d}");
    assert!(d.contains("Every internal topic is named after a name given in this topology"));
    // The Java declarations that name the same topics.
    assert!(d.contains(
        "named-final-sessions-store-changelog: \
         suppress(Suppressed.untilWindowCloses(..).withName(\"final-sessions\"))"
    ));
    assert!(d.contains(
        "named-sessions-changelog: windowedBy(SessionWindows.ofInactivityGapAndGrace(\
         ofMillis(1800000), ofMillis(10000))).count(Materialized.as(\"sessions\"))"
    ));
    assert!(d.contains("named-by-page-repartition: repartition(Repartitioned.as(\"by-page\"))"));
    assert!(d.contains("named-seen-changelog: process(.., \"seen\")"));
}

#[test]
fn operators_that_can_differ_are_flagged_with_the_fix() {
    let d = Flagged::describe();
    let f = flags(d);
    assert_eq!(
        f.len(),
        4,
        "the table, the two join stores, the suppression: {f:#?}"
    );
    let table = f
        .iter()
        .find(|l| l.starts_with("table(\"prices\")"))
        .expect("table");
    assert!(
        table.contains("Fix: set topology.optimization=reuse.ktable.source.topics"),
        "{table}"
    );
    assert!(table.contains("`flagged-prices-changelog`"), "{table}");
    let suppress = f
        .iter()
        .find(|l| l.starts_with("suppress_until_window_closes()"))
        .expect("suppress");
    assert!(
        suppress.contains("Fix: name it on both sides") && suppress.contains(".withName(\"name\")"),
        "{suppress}"
    );
    assert_eq!(
        f.iter()
            .filter(|l| l.starts_with("stream-stream join: its store `KSTREAM-"))
            .count(),
        2,
        "{f:#?}"
    );
}

/// The "Declared to the coordinator" part lists exactly what `INFO` (the heartbeat's
/// topology) declares: every subtopology, topic and config.
#[test]
fn the_declared_part_is_what_the_member_sends() {
    for (d, info) in [
        (Named::describe(), &Named::INFO),
        (Flagged::describe(), &Flagged::INFO),
    ] {
        let declared = d
            .split_once("Declared to the coordinator")
            .expect("declared part")
            .1
            .split_once("Kafka Streams equivalent")
            .expect("equivalent part")
            .0;
        for sub in info.subtopologies {
            assert!(
                declared.contains(&format!("Sub-topology: {}\n", sub.id)),
                "{declared}"
            );
            for t in sub.source_topics {
                assert!(declared.contains(t), "{t} in {declared}");
            }
            for t in sub
                .repartition_source_topics
                .iter()
                .chain(sub.state_changelog_topics)
            {
                let configs: Vec<String> = t
                    .declared_configs(&Default::default())
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                assert!(
                    declared.contains(&format!("{} (", t.name))
                        && declared.contains(&configs.join(", ")),
                    "{} with {configs:?} in {declared}",
                    t.name
                );
            }
            for g in sub.copartition_groups {
                for t in g.source_topics.iter().chain(g.repartition_source_topics) {
                    assert!(declared.contains(t), "{t} in {declared}");
                }
            }
        }
    }
}
