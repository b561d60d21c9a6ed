//! The `describe()` text, in the spirit of Kafka Streams' `Topology.describe()`, followed by
//! what a takeover of a Kafka Streams application needs to compare ([`crate::takeover`]).

use crate::ir::{Model, NodeKind};

/// The description of a model: subtopologies, nodes with their edges, topics and stores.
pub(crate) fn describe(m: &Model) -> String {
    let mut out = String::new();
    push_line(
        &mut out,
        format_args!("Topology: {} (application id {})", m.name, m.app_id),
    );
    push_line(&mut out, format_args!("Topologies:"));
    let mut shown = 0;
    for sub in &m.subs {
        // Global stores in id order among the subtopologies, as Kafka Streams prints them.
        crate::ops::global_table::describe(m, shown..sub.protocol_id, &mut out);
        shown = sub.protocol_id + 1;
        push_line(
            &mut out,
            format_args!("   Sub-topology: {}", sub.protocol_id),
        );
        for &i in &sub.nodes {
            let n = &m.nodes[i];
            let name = &n.name;
            let stores = |ids: &[usize]| {
                ids.iter()
                    .map(|&s| m.stores[s].name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let text = match &n.kind {
                NodeKind::Source { topic, also, .. } => {
                    let topics: Vec<&str> = std::iter::once(topic)
                        .chain(also)
                        .map(String::as_str)
                        .collect();
                    format!("Source: {name} (topics: [{}])", topics.join(", "))
                }
                NodeKind::RepartitionSource { topic, .. } => {
                    format!("Source: {name} (topics: [{topic}])")
                }
                // Kafka Streams' two nodes of a table: the topic's source, then the table's
                // processor with its store.
                NodeKind::TableSource {
                    topic,
                    store,
                    source,
                    ..
                } => {
                    push_line(
                        &mut out,
                        format_args!("    Source: {source} (topics: [{topic}])\n      --> {name}"),
                    );
                    format!("Processor: {name} (stores: [{}])", m.stores[*store].name)
                }
                // Kafka Streams names the extractor's class; ours is a closure.
                NodeKind::Sink {
                    chosen: Some(_), ..
                } => format!("Sink: {name} (extractor class: TopicNameExtractor)"),
                NodeKind::Sink { topic, .. } | NodeKind::RepartitionSink { topic, .. } => {
                    format!("Sink: {name} (topic: {topic})")
                }
                NodeKind::Join {
                    store,
                    grace: Some(g),
                    ..
                } => format!(
                    "Processor: {name} (stores: [{}])",
                    stores(&[g.buffer, *store])
                ),
                NodeKind::Aggregate { store, .. } | NodeKind::Join { store, .. } => {
                    format!("Processor: {name} (stores: [{}])", m.stores[*store].name)
                }
                NodeKind::Table(t) => format!(
                    "Processor: {name} (stores: [{}])",
                    stores(&crate::ops::table_join::node_stores(m, i, t))
                ),
                NodeKind::JoinWindowed { store } => {
                    format!("Processor: {name} (stores: [{}])", m.stores[*store].name)
                }
                NodeKind::StreamJoin(j) => {
                    let mut s = vec![j.other_store];
                    s.extend(j.shared);
                    format!("Processor: {name} (stores: [{}])", stores(&s))
                }
                NodeKind::FkJoin(f) => crate::ops::fk_join::describe_node(m, name, f),
                NodeKind::Process { stores: s, .. } => {
                    format!("Processor: {name} (stores: [{}])", stores(s))
                }
                _ => format!("Processor: {name} (stores: [])"),
            };
            push_line(&mut out, format_args!("    {text}"));
            if !n.children.is_empty() {
                let c: Vec<&str> = n
                    .children
                    .iter()
                    .map(|&c| m.nodes[c].name.as_str())
                    .collect();
                push_line(&mut out, format_args!("      --> {}", c.join(", ")));
            } else if !matches!(
                n.kind,
                NodeKind::Sink { .. } | NodeKind::RepartitionSink { .. }
            ) {
                push_line(&mut out, format_args!("      --> none"));
            }
            if !n.parents.is_empty() {
                let p: Vec<&str> = n
                    .parents
                    .iter()
                    .map(|&p| m.nodes[p].name.as_str())
                    .collect();
                push_line(&mut out, format_args!("      <-- {}", p.join(", ")));
            } else if let NodeKind::TableSource { source, .. } = &n.kind {
                push_line(&mut out, format_args!("      <-- {source}"));
            }
        }
        for &s in &sub.stores {
            let st = &m.stores[s];
            let declared = st.owner == crate::ir::StoreOwner::Declared;
            let kind = match st.window {
                None => "key-value".to_owned(),
                Some(w) if declared && w.kind == crate::ir::WindowKind::Session => {
                    format!("session, retention {} ms", w.retention())
                }
                Some(w) if declared => {
                    format!("window, size {} ms, retention {} ms", w.size, w.retention())
                }
                Some(w) if w.kind == crate::ir::WindowKind::Session => {
                    format!("session, gap {} ms, grace {} ms", w.size, w.grace)
                }
                Some(w) if w.kind == crate::ir::WindowKind::Sliding => {
                    format!("sliding, difference {} ms, grace {} ms", w.size, w.grace)
                }
                Some(w) if w.size == w.advance => {
                    format!("window, tumbling {} ms, grace {} ms", w.size, w.grace)
                }
                Some(w) => format!(
                    "window, hopping {} ms advancing {} ms, grace {} ms",
                    w.size, w.advance, w.grace
                ),
            };
            let changelog = if st.has_changelog() {
                st.changelog.as_str()
            } else {
                "none, logging disabled"
            };
            push_line(
                &mut out,
                format_args!("    Store: {} ({kind}; changelog: {changelog})", st.name),
            );
        }
        for (users, reps) in &sub.copartition_groups {
            let all: Vec<&str> = users.iter().chain(reps).map(String::as_str).collect();
            push_line(
                &mut out,
                format_args!("    Co-partitioned: [{}]", all.join(", ")),
            );
        }
        out.push('\n');
    }
    crate::ops::global_table::describe(m, shown..usize::MAX, &mut out);
    out.push_str(&crate::takeover::declared(m));
    out.push('\n');
    out.push_str(&crate::takeover::equivalent(m));
    out
}

/// Appends `text` and a newline.
fn push_line(out: &mut String, text: std::fmt::Arguments<'_>) {
    out.push_str(&text.to_string());
    out.push('\n');
}
