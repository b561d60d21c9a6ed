//! The takeover parts of `describe()`: the topology declared to the streams group coordinator
//! (what it compares, field by field, with the group's stored topology) and, per internal topic,
//! the Kafka Streams 4.4 declaration that names it the same, with the operators whose
//! declaration can differ from a Java application's flagged with why and the fix.

use std::fmt::Write;

use crate::codegen::info::{repartition_configs, store_changelog};
use crate::ir::{AggOp, Model, NodeKind, Store, StoreOwner, TableNode, WindowKind, WindowSpec};

/// "Declared to the coordinator" with every subtopology's topics, configs and copartition
/// groups, as the member sends them in its joining heartbeat.
pub(crate) fn declared(m: &Model) -> String {
    let mut out = String::from(
        "Declared to the coordinator (compare with kafka-streams-groups.sh --describe --group \
         <application id> of the Java application):\n",
    );
    for sub in &m.subs {
        let _ = writeln!(out, "   Sub-topology: {}", sub.protocol_id);
        let sources: Vec<&str> = sub.source_topics.iter().map(|(t, _)| t.as_str()).collect();
        if !sources.is_empty() {
            let _ = writeln!(out, "    Source topics: [{}]", sources.join(", "));
        }
        for (topic, _) in &sub.repartition_sources {
            let partitions = match m.repartition_partitions.get(topic) {
                Some(n) => format!("partitions: {n}"),
                None => "partitions: unset, the coordinator derives them".to_owned(),
            };
            let _ = writeln!(
                out,
                "    Repartition source topic: {topic} ({partitions}; {})",
                configs(&repartition_configs())
            );
        }
        if !sub.repartition_sinks.is_empty() {
            let _ = writeln!(
                out,
                "    Repartition sink topics: [{}]",
                sub.repartition_sinks.join(", ")
            );
        }
        let mut stores: Vec<&Store> = sub.stores.iter().map(|&s| &m.stores[s]).collect();
        stores.sort_by(|a, b| a.changelog.cmp(&b.changelog));
        for st in stores.into_iter().filter(|st| st.has_changelog()) {
            let conf = store_changelog(st).by_default();
            let _ = writeln!(
                out,
                "    Changelog topic: {} ({})",
                st.changelog,
                configs(&conf)
            );
        }
        for (users, reps) in &sub.copartition_groups {
            let all: Vec<&str> = users.iter().chain(reps).map(String::as_str).collect();
            let _ = writeln!(out, "    Copartition group: [{}]", all.join(", "));
        }
    }
    out
}

/// "Kafka Streams equivalent": per internal topic the Java declaration that names and
/// configures it the same, then the operators whose declaration can differ (`!`).
pub(crate) fn equivalent(m: &Model) -> String {
    let mut out = String::from(
        "Kafka Streams equivalent (the Java DSL that declares the same internal topics):\n",
    );
    let mut flags = Vec::new();
    for sub in &m.subs {
        for (topic, _) in &sub.repartition_sources {
            let _ = writeln!(out, "    {topic}: {}", repartition_origin(m, topic));
        }
        for &s in &sub.stores {
            let st = &m.stores[s];
            let (java, flag) = store_origin(m, s);
            let _ = writeln!(out, "    {}: {java}", st.changelog);
            flags.extend(flag);
        }
    }
    if flags.is_empty() {
        out.push_str(
            "  Every internal topic is named after a name given in this topology: a Java \
             application declaring the above matches.\n",
        );
    } else {
        out.push_str("  Can differ from the Java application's declaration:\n");
        for f in flags {
            let _ = writeln!(out, "    ! {f}");
        }
    }
    out
}

fn configs<K: AsRef<str> + Ord + Clone>(pairs: &[(K, String)]) -> String {
    let mut sorted = pairs.to_vec();
    sorted.sort();
    sorted
        .iter()
        .map(|(k, v)| format!("{}={v}", k.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Java operator that writes and reads `topic`: a grouping named after its aggregation's
/// store, or `repartition(..)`.
fn repartition_origin(m: &Model, topic: &str) -> String {
    let grouped = m.stores.iter().find(|st| {
        st.owner == StoreOwner::Aggregate
            && topic == crate::names::internal_topic(&m.app_id, &st.name, "repartition")
    });
    match grouped {
        Some(st) => format!(
            "groupBy(..)/groupByKey() after a key change, without Grouped.as (or with \
             Grouped.as(\"{0}\")), aggregated with Materialized.as(\"{0}\")",
            st.name
        ),
        None if topic.contains("-KTABLE-FK-JOIN-SUBSCRIPTION-") => {
            "join(otherTable, foreignKeyExtractor, joiner) without TableJoined.as (its \
             subscription and response topics are named after node numbers)"
                .to_owned()
        }
        None if topic.ends_with("-subscription-registration-topic")
            || topic.ends_with("-subscription-response-topic") =>
        {
            let name = topic
                .strip_prefix(&format!("{}-", m.app_id))
                .and_then(|t| {
                    t.strip_suffix("-subscription-registration-topic")
                        .or_else(|| t.strip_suffix("-subscription-response-topic"))
                })
                .unwrap_or(topic);
            format!("join(otherTable, foreignKeyExtractor, joiner, TableJoined.as(\"{name}\"))")
        }
        None => {
            let name = topic
                .strip_prefix(&format!("{}-", m.app_id))
                .and_then(|t| t.strip_suffix("-repartition"))
                .unwrap_or(topic);
            format!(
                "repartition(Repartitioned.as(\"{name}\")) without withNumberOfPartitions (or \
                 groupBy(.., Grouped.as(\"{name}\")))"
            )
        }
    }
}

/// The Java builder of a store declared for `process(..)`: in memory or persistent, with its
/// logging as declared.
fn java_declared_store(st: &Store, name: &str) -> String {
    let kind = if st.in_memory {
        "inMemory"
    } else {
        "persistent"
    };
    let builder = match st.window {
        None => format!("Stores.keyValueStoreBuilder(Stores.{kind}KeyValueStore(\"{name}\"), ..)"),
        Some(w) if w.kind == WindowKind::Session => format!(
            "Stores.sessionStoreBuilder(Stores.{kind}SessionStore(\"{name}\", Duration.ofMillis({})), ..)",
            w.retention()
        ),
        Some(w) => format!(
            "Stores.windowStoreBuilder(Stores.{kind}WindowStore(\"{name}\", Duration.ofMillis({}), \
             Duration.ofMillis({}), false), ..)",
            w.retention(),
            w.size
        ),
    };
    match java_logging(st) {
        Some(logging) => format!("process(.., \"{name}\") with {builder}{logging}"),
        None => format!("process(.., \"{name}\") with {builder}, logging on (the default)"),
    }
}

/// The `Materialized` (or `StoreBuilder`) call that sets a store's logging as this topology
/// does, when it is not the default.
fn java_logging(st: &Store) -> Option<String> {
    match &st.logging {
        crate::ir::Logging::Disabled => Some(".withLoggingDisabled()".to_owned()),
        crate::ir::Logging::Enabled(own) if own.is_empty() => None,
        crate::ir::Logging::Enabled(own) => {
            let pairs: Vec<String> = own
                .iter()
                .map(|(k, v)| format!("\"{k}\", \"{v}\""))
                .collect();
            Some(format!(".withLoggingEnabled(Map.of({}))", pairs.join(", ")))
        }
    }
}

/// The Java declaration of store `s`, and a flag when it can differ.
fn store_origin(m: &Model, s: usize) -> (String, Option<String>) {
    let st = &m.stores[s];
    let name = &st.name;
    let to_table = st
        .users
        .iter()
        .any(|&u| matches!(m.nodes[u].kind, NodeKind::Table(TableNode::ToTable { .. })));
    match st.owner {
        // `to_table("name")`'s store (a `StoreOwner::Aggregate` here: it is written as an
        // aggregation's is).
        StoreOwner::Aggregate if to_table => (
            format!(
                "toTable(Materialized.as(\"{name}\"){})",
                java_logging(st).unwrap_or_default()
            ),
            None,
        ),
        StoreOwner::Aggregate => {
            let op = st.users.iter().find_map(|&u| match &m.nodes[u].kind {
                // A cogroup's: `cogroup(..).cogroup(..)[.windowedBy(..)].aggregate(..)`.
                NodeKind::Aggregate {
                    op: AggOp::Aggregate { merger, .. },
                    cogrouped: true,
                    ..
                } => Some(if merger.is_some() {
                    "aggregate(initializer, merger, "
                } else {
                    "aggregate(initializer, "
                }),
                NodeKind::Aggregate { op, .. } => Some(match op {
                    AggOp::Count => "count(",
                    AggOp::Reduce(_) => "reduce(reducer, ",
                    AggOp::Aggregate { merger: None, .. } => "aggregate(initializer, aggregator, ",
                    AggOp::Aggregate { .. } => "aggregate(initializer, aggregator, merger, ",
                }),
                _ => None,
            });
            // A table's re-grouping (`table.group_by(..)`): adder and subtractor.
            let op = op.unwrap_or("count/reduce/aggregate(.., ");
            let windows = st.window.map(java_windows).unwrap_or_default();
            let cogroup = if st.users.iter().any(|&u| {
                matches!(
                    m.nodes[u].kind,
                    NodeKind::Aggregate {
                        cogrouped: true,
                        ..
                    }
                )
            }) {
                "cogroup(aggregator).cogroup(grouped, aggregator)."
            } else {
                ""
            };
            (
                match java_logging(st) {
                    Some(logging) => {
                        format!("{cogroup}{windows}{op}Materialized.as(\"{name}\"){logging})")
                    }
                    None => format!(
                        "{cogroup}{windows}{op}Materialized.as(\"{name}\")), logging on (the default)"
                    ),
                },
                None,
            )
        }
        StoreOwner::Table if is_table_source(m, s) => (
            format!(
                "builder.table(\"{}\", Materialized.as(\"{name}\")) with \
                 topology.optimization=reuse.ktable.source.topics",
                st.changelog
            ),
            Some(format!(
                "table(\"{}\"): the table's store `{name}` restores from its source topic, \
                 as Kafka Streams only with topology.optimization=reuse.ktable.source.topics (or \
                 all); without it the Java application declares \
                 `{}-{name}-changelog` (or, unmaterialized, none). Fix: set \
                 topology.optimization=reuse.ktable.source.topics in the Java application and \
                 run it once before migrating",
                st.changelog, m.app_id
            )),
        ),
        StoreOwner::Table => (
            format!(
                "toTable(Materialized.as(\"{name}\"){})",
                java_logging(st).unwrap_or_default()
            ),
            None,
        ),
        StoreOwner::Declared => (java_declared_store(st, name), None),
        StoreOwner::Suppress => {
            let named = name.strip_suffix("-store").filter(|_| !is_generated(name));
            // Which suppression owns the buffer: final results, or a time limit.
            let limited = st.users.first().is_some_and(|&u| {
                matches!(
                    m.nodes[u].kind,
                    NodeKind::Suppress { limit: Some(_), .. }
                        | NodeKind::Table(TableNode::Suppress { .. })
                )
            });
            let (java, op, ours) = if limited {
                (
                    "untilTimeLimit",
                    "suppress_until_time_limit(..)",
                    "suppress_until_time_limit(.., \"name\")",
                )
            } else {
                (
                    "untilWindowCloses",
                    "suppress_until_window_closes()",
                    "suppress_until_window_closes(\"name\")",
                )
            };
            match named {
                Some(n) => (
                    format!("suppress(Suppressed.{java}(..).withName(\"{n}\"))"),
                    None,
                ),
                None => (
                    format!("suppress(Suppressed.{java}(..)) without a name"),
                    Some(format!(
                        "{op}: its buffer `{name}` is named after a \
                         node number, and Kafka Streams' numbering of the nodes before it \
                         need not be ours (repartitions, named operators), so \
                         the Java application's buffer \
                         can have another number. Fix: name it on both sides, \
                         {ours} here and \
                         Suppressed.{java}(..).withName(\"name\") in Java"
                    )),
                ),
            }
        }
        StoreOwner::JoinBuffer => (
            "join/leftJoin(table, .., Joined.with(..).withGracePeriod(..)) without Joined.withName"
                .to_owned(),
            Some(format!(
                "stream-table join with a grace period: its buffer `{name}` is named after the \
                 join's node number, and Kafka Streams' numbering of the nodes before it need \
                 not be ours (repartitions, named operators); its changelog records are not \
                 Kafka Streams' `BufferValue`s, so a Java application's buffer must be empty \
                 (stopped with no record waiting) when it is taken over. Check the Java \
                 application's Topology.describe() for `{name}` before migrating"
            )),
        ),
        StoreOwner::JoinWindow(_) | StoreOwner::JoinShared => (
            "join/leftJoin/outerJoin(.., JoinWindows..) without StreamJoined.withName or \
             withStoreName"
                .to_owned(),
            Some(format!(
                "stream-stream join: its store `{name}` is named after a node number, and Kafka \
                 Streams' numbering of the nodes before it need not be ours (repartitions, \
                 named operators), so the Java application's store can have another number, and one named with \
                 StreamJoined.withName/withStoreName cannot be matched (this DSL does not name \
                 join stores yet). Check the Java application's Topology.describe() for \
                 `{name}` before migrating"
            )),
        ),
        StoreOwner::FkSubscription if name.ends_with("-subscription-store") => (
            format!(
                "join(otherTable, foreignKeyExtractor, joiner, TableJoined.as(\"{}\"))",
                name.trim_end_matches("-subscription-store")
            ),
            None,
        ),
        StoreOwner::FkSubscription => (
            "join(otherTable, foreignKeyExtractor, joiner) without TableJoined.as".to_owned(),
            Some(format!(
                "foreign-key join: its subscription store `{name}` and topics are named after \
                 node numbers, and Kafka Streams' numbering of the nodes before it need not be \
                 ours (repartitions, named operators). Fix: name it on both sides, \
                 join_on_foreign_key(.., \"name\") here and TableJoined.as(\"name\") in \
                 Java; or check the Java application's Topology.describe() for `{name}` \
                 before migrating"
            )),
        ),
    }
}

/// Whether store `s` is the store of a `table(..)` source (not of `to_table`).
fn is_table_source(m: &Model, s: usize) -> bool {
    m.nodes
        .iter()
        .any(|n| matches!(n.kind, NodeKind::TableSource { store, .. } if store == s))
}

/// Whether `name` is a generated `KTABLE-SUPPRESS-STATE-STORE-<n>` name.
fn is_generated(name: &str) -> bool {
    name.starts_with("KTABLE-SUPPRESS-STATE-STORE-")
}

/// `windowedBy(TimeWindows...)` for `w`, with the `.` to chain the aggregation.
fn java_windows(w: WindowSpec) -> String {
    let windows = match w.kind {
        WindowKind::Time if w.size == w.advance => format!(
            "TimeWindows.ofSizeAndGrace(ofMillis({}), ofMillis({}))",
            w.size, w.grace
        ),
        WindowKind::Time => format!(
            "TimeWindows.ofSizeAndGrace(ofMillis({}), ofMillis({})).advanceBy(ofMillis({}))",
            w.size, w.grace, w.advance
        ),
        WindowKind::Session => format!(
            "SessionWindows.ofInactivityGapAndGrace(ofMillis({}), ofMillis({}))",
            w.size, w.grace
        ),
        WindowKind::Sliding => format!(
            "SlidingWindows.ofTimeDifferenceAndGrace(ofMillis({}), ofMillis({}))",
            w.size, w.grace
        ),
    };
    format!("windowedBy({windows}).")
}
