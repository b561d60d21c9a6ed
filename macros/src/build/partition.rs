//! Subtopologies: the connected parts of the operator graph once every repartition topic is
//! cut (joins and shared stores keep their nodes together), with the topics each reads and
//! writes and its copartition groups.

use std::collections::BTreeSet;

use syn::Ident;

use super::Builder;
use crate::ir::{GlobalTable, Model, Node, NodeKind, Sub, TopicRole};

/// Assigns every node and store to its subtopology and returns the finished model.
pub(crate) fn partition(
    mut b: Builder,
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    name: Ident,
    app: syn::LitStr,
) -> Model {
    // Subtopologies: connected components without the repartition edges.
    let n = b.nodes.len();
    let mut uf: Vec<usize> = (0..n).collect();
    fn find(uf: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while uf[r] != r {
            r = uf[r];
        }
        let mut y = x;
        while uf[y] != r {
            let next = uf[y];
            uf[y] = r;
            y = next;
        }
        r
    }
    let union = |uf: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(uf, a), find(uf, b));
        if ra != rb {
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            uf[hi] = lo;
        }
    };
    for node in &b.nodes {
        for &c in &node.children {
            union(&mut uf, node.id, c);
        }
    }
    for &(j, t) in &b.joins {
        union(&mut uf, j, t);
    }
    for st in &b.stores {
        for w in st.users.windows(2) {
            union(&mut uf, w[0], w[1]);
        }
    }
    let mut roots: Vec<usize> = Vec::new();
    let mut sub_of = vec![0; n];
    for (i, slot) in sub_of.iter_mut().enumerate() {
        let r = find(&mut uf, i);
        let idx = match roots.iter().position(|&x| x == r) {
            Some(p) => p,
            None => {
                roots.push(r);
                roots.len() - 1
            }
        };
        *slot = idx;
    }
    let mut subs: Vec<Sub> = (0..roots.len())
        .map(|id| Sub {
            id,
            ..Sub::default()
        })
        .collect();
    for i in 0..n {
        b.nodes[i].sub = sub_of[i];
        let sub = &mut subs[sub_of[i]];
        sub.nodes.push(i);
        match &b.nodes[i].kind {
            NodeKind::Source { topic, also, .. } => {
                for t in std::iter::once(topic).chain(also) {
                    sub.source_topics.push((t.clone(), i));
                }
            }
            NodeKind::TableSource { topic, .. } => sub.source_topics.push((topic.clone(), i)),
            NodeKind::RepartitionSource { topic, .. } => {
                sub.repartition_sources.push((topic.clone(), i))
            }
            NodeKind::RepartitionSink { topic, .. } => sub.repartition_sinks.push(topic.clone()),
            NodeKind::FkJoin(f) if f.source_topic().is_some() => sub
                .repartition_sources
                .push((f.source_topic().unwrap_or_default().to_owned(), i)),
            NodeKind::Sink { topic, chosen, .. } => {
                sub.sink_topics.push(topic.clone());
                if let Some(c) = chosen {
                    sub.sink_topics.extend(c.also.iter().cloned());
                }
            }
            _ => {}
        }
    }
    for (i, st) in b.stores.iter_mut().enumerate() {
        let sub = st.users.first().map_or(0, |&u| sub_of[u]);
        st.sub = sub;
        subs[sub].stores.push(i);
    }
    let dead_letters: Vec<String> = b
        .topics
        .iter()
        .filter(|t| t.role == TopicRole::DeadLetter)
        .map(|t| t.name.clone())
        .collect();
    for sub in &mut subs {
        sub.source_topics.sort();
        sub.repartition_sources.sort();
        sub.repartition_sinks.sort();
        sub.repartition_sinks.dedup();
        sub.sink_topics.extend(dead_letters.iter().cloned());
        sub.sink_topics.sort();
        sub.sink_topics.dedup();
    }
    // Copartition groups: the topics feeding a join's stream side, and the table's topic.
    for &(j, t) in &b.joins {
        let mut user = BTreeSet::new();
        let mut rep = BTreeSet::new();
        origins(&b.nodes, j, &mut user, &mut rep);
        origins(&b.nodes, t, &mut user, &mut rep);
        let group = (
            user.into_iter().collect::<Vec<_>>(),
            rep.into_iter().collect::<Vec<_>>(),
        );
        let sub = &mut subs[sub_of[j]];
        if !sub.copartition_groups.contains(&group) {
            sub.copartition_groups.push(group);
        }
    }
    for sub in &mut subs {
        sub.copartition_groups.sort();
    }
    number(&mut subs, &mut b.globals);
    Model {
        attrs,
        vis,
        name,
        app_id: app.value(),
        app_span: app.span(),
        nodes: b.nodes,
        stores: b.stores,
        subs,
        on_error: b.on_error,
        topics: b.topics,
        globals: b.globals,
        repartition_partitions: b.repartition_partitions,
    }
}

/// The source topics upstream of `node`.
fn origins(nodes: &[Node], node: usize, user: &mut BTreeSet<String>, rep: &mut BTreeSet<String>) {
    match &nodes[node].kind {
        NodeKind::Source { topic, also, .. } => {
            user.insert(topic.clone());
            user.extend(also.iter().cloned());
        }
        NodeKind::TableSource { topic, .. } => {
            user.insert(topic.clone());
        }
        NodeKind::RepartitionSource { topic, .. } => {
            rep.insert(topic.clone());
        }
        NodeKind::FkJoin(f) if f.source_topic().is_some() => {
            rep.insert(f.source_topic().unwrap_or_default().to_owned());
        }
        _ => {
            for &p in &nodes[node].parents {
                origins(nodes, p, user, rep);
            }
        }
    }
}

/// Numbers the subtopologies and the global tables' node groups as Kafka Streams'
/// `InternalTopologyBuilder#makeNodeGroups` does: in the order of their first node, a global
/// table's node group included (it makes no task, but takes its id), so the ids the streams
/// group protocol carries are those of the same topology in Java.
fn number(subs: &mut [Sub], globals: &mut [GlobalTable]) {
    // A subtopology's first node is its lowest node id (the partitioner orders them so).
    let firsts: Vec<usize> = subs
        .iter()
        .map(|s| s.nodes.iter().copied().min().unwrap_or(usize::MAX))
        .collect();
    for (i, sub) in subs.iter_mut().enumerate() {
        sub.protocol_id = i + globals
            .iter()
            .filter(|g| g.after_nodes <= firsts[i])
            .count();
    }
    for (i, g) in globals.iter_mut().enumerate() {
        g.protocol_id = i + firsts.iter().filter(|&&f| f < g.after_nodes).count();
    }
}
