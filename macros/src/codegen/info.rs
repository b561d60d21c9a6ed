//! The static `TopologyInfo` literal.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{JoinWindowSpec, Model, Store, StoreOwner};

const DAY_MS: i64 = 86_400_000;

fn configs(pairs: &[(&str, String)]) -> TokenStream {
    let mut sorted: Vec<_> = pairs.to_vec();
    sorted.sort();
    let items = sorted.iter().map(|(k, v)| quote!((#k, #v)));
    quote!(&[#(#items),*])
}

/// Kafka Streams' configuration of a repartition topic.
pub(crate) fn repartition_configs() -> Vec<(&'static str, String)> {
    vec![
        ("cleanup.policy", "delete".to_owned()),
        ("message.timestamp.type", "CreateTime".to_owned()),
        ("retention.ms", "-1".to_owned()),
        ("segment.bytes", "52428800".to_owned()),
    ]
}

/// Kafka Streams' configuration of store `st`'s changelog topic.
pub(crate) fn store_changelog_configs(st: &Store) -> Vec<(&'static str, String)> {
    match (st.owner, st.versioned) {
        (StoreOwner::JoinWindow(w), _) => join_changelog_configs(w),
        // A versioned store's changelog keeps every version its history may still need: not
        // compacted before the history retention plus a day (Kafka Streams'
        // `VersionedChangelogTopicConfig`).
        (_, Some(history)) => vec![
            ("cleanup.policy", "compact".to_owned()),
            ("message.timestamp.type", "CreateTime".to_owned()),
            ("min.compaction.lag.ms", (history + DAY_MS).to_string()),
        ],
        _ => changelog_configs(st.window),
    }
}

/// Kafka Streams' configuration of a changelog topic.
fn changelog_configs(window: Option<crate::ir::WindowSpec>) -> Vec<(&'static str, String)> {
    match window {
        None => vec![
            ("cleanup.policy", "compact".to_owned()),
            ("message.timestamp.type", "CreateTime".to_owned()),
        ],
        Some(w) => vec![
            ("cleanup.policy", "compact,delete".to_owned()),
            ("message.timestamp.type", "CreateTime".to_owned()),
            // The store's retention (time: size + grace, session: gap + grace, sliding:
            // 2 × difference + grace); the changelog one more day
            // (windowstore.changelog.additional.retention.ms), as Kafka Streams does.
            ("retention.ms", (w.retention() + DAY_MS).to_string()),
        ],
    }
}

/// Kafka Streams' configuration of a stream-stream join's window store changelog: its store
/// retains duplicates, so `WindowStoreBuilder` sets `cleanup.policy=delete` (compaction would
/// drop records of one key and timestamp), kept a day longer than the store.
pub(crate) fn join_changelog_configs(w: JoinWindowSpec) -> Vec<(&'static str, String)> {
    vec![
        ("cleanup.policy", "delete".to_owned()),
        ("message.timestamp.type", "CreateTime".to_owned()),
        ("retention.ms", (w.retention() + DAY_MS).to_string()),
    ]
}

pub(crate) fn store_info(m: &Model, s: usize) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let st = &m.stores[s];
    let name = &st.name;
    let changelog = &st.changelog;
    let kind = match st.window {
        None if let StoreOwner::JoinWindow(w) = st.owner => {
            let (a, b, c) = (w.before, w.after, w.grace);
            quote!(#dk::StoreKind::JoinWindow { before_ms: #a, after_ms: #b, grace_ms: #c })
        }
        None if m.timestamped(s) => quote!(#dk::StoreKind::TimestampedKeyValue),
        None => quote!(#dk::StoreKind::KeyValue),
        Some(w) => {
            let (a, b, c) = (w.size, w.advance, w.grace);
            match w.kind {
                crate::ir::WindowKind::Time => {
                    // A time-window aggregation's store keeps Kafka Streams' timestamped
                    // entries (see the restore in `codegen::generate`).
                    let timestamped = m.timestamped_window(s);
                    quote!(#dk::StoreKind::Window {
                        size_ms: #a,
                        advance_ms: #b,
                        grace_ms: #c,
                        timestamped: #timestamped,
                    })
                }
                crate::ir::WindowKind::Session => {
                    quote!(#dk::StoreKind::Session { gap_ms: #a, grace_ms: #c })
                }
                crate::ir::WindowKind::Sliding => {
                    quote!(#dk::StoreKind::Sliding { time_difference_ms: #a, grace_ms: #c })
                }
            }
        }
    };
    quote!(#dk::StoreInfo { name: #name, changelog_topic: #changelog, kind: #kind })
}

pub(crate) fn info(m: &Model) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let app = &m.app_id;
    let subs = m.subs.iter().map(|sub| {
        let id = sub.protocol_id.to_string();
        let sources = sub.source_topics.iter().map(|(t, _)| t);
        let rep_conf = configs(&repartition_configs());
        let rep_sources = sub.repartition_sources.iter().map(|(t, _)| {
            let partitions = proc_macro2::Literal::i32_unsuffixed(
                m.repartition_partitions.get(t).map_or(0, |&n| n as i32),
            );
            quote!(#dk::InternalTopicInfo { name: #t, partitions: #partitions, replication_factor: -1, configs: #rep_conf })
        });
        let rep_sinks = &sub.repartition_sinks;
        // Every store's changelog, including a table's source topic (which the table's store
        // restores from and does not write): Kafka Streams declares it the same way under
        // `topology.optimization=reuse.ktable.source.topics`, and the coordinator refuses a
        // member whose topology differs from the group's in any field.
        let mut changelogs: Vec<_> = sub.stores.iter().map(|&s| &m.stores[s]).collect();
        changelogs.sort_by(|a, b| a.changelog.cmp(&b.changelog));
        let changelogs = changelogs.iter().map(|st| {
            let name = &st.changelog;
            let conf = configs(&store_changelog_configs(st));
            quote!(#dk::InternalTopicInfo { name: #name, partitions: 0, replication_factor: -1, configs: #conf })
        });
        let sinks = &sub.sink_topics;
        let groups = sub.copartition_groups.iter().map(|(u, r)| {
            quote!(#dk::CopartitionGroup { source_topics: &[#(#u),*], repartition_source_topics: &[#(#r),*] })
        });
        let stores = sub.stores.iter().map(|&s| store_info(m, s));
        quote! {
            #dk::SubtopologyInfo {
                id: #id,
                source_topics: &[#(#sources),*],
                repartition_source_topics: &[#(#rep_sources),*],
                repartition_sink_topics: &[#(#rep_sinks),*],
                state_changelog_topics: &[#(#changelogs),*],
                sink_topics: &[#(#sinks),*],
                copartition_groups: &[#(#groups),*],
                stores: &[#(#stores),*],
            }
        }
    });
    quote!(#dk::TopologyInfo { application_id: #app, subtopologies: &[#(#subs),*] })
}

/// The user topics written with windowed keys and the window bytes after the inner key
/// (`TimeWindowed`: start; `SessionWindowed`: end and start), for the producer's partitioner.
pub(crate) fn windowed_sinks(m: &Model) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let mut sinks: Vec<(&str, usize)> = m
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            crate::ir::NodeKind::Sink { topic, key, .. } if key.is_windowed() => {
                Some((topic.as_str(), 8))
            }
            crate::ir::NodeKind::Sink { topic, key, .. } if key.is_session_windowed() => {
                Some((topic.as_str(), 16))
            }
            _ => None,
        })
        .collect();
    sinks.sort_unstable();
    sinks.dedup();
    let items = sinks
        .iter()
        .map(|(t, n)| quote!(#dk::WindowedSink { topic: #t, window_bytes: #n }));
    quote!(&[#(#items),*])
}
