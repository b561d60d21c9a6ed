//! The static `TopologyInfo` literal.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Logging, Model, Store, StoreOwner};

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

/// How a store's changelog topic is declared, in Kafka Streams' layers (see the runtime's
/// `InternalTopicInfo`): its configs for this kind of changelog, the store's own, and one
/// derived from the store unless the store's own set it.
pub(crate) struct ChangelogDecl {
    /// Kafka Streams' configs for this kind of changelog.
    pub defaults: Vec<(&'static str, String)>,
    /// The store's own (`with_logging_enabled([..])`; a join window store's
    /// `cleanup.policy=delete`, which Kafka Streams' `WindowStoreBuilder` sets the same way).
    pub own: Vec<(String, String)>,
    pub derived: Derived,
}

/// A changelog config computed from its store.
#[derive(Clone, Copy)]
pub(crate) enum Derived {
    None,
    /// `retention.ms` = the window store's retention + the additional retention (a day by
    /// default, `windowstore.changelog.additional.retention.ms`).
    WindowRetention(i64),
    /// `min.compaction.lag.ms` = the history retention + a day.
    VersionedLag(i64),
}

impl ChangelogDecl {
    /// The configs declared under Kafka Streams' default application settings (no `topic.*`,
    /// a day of additional retention): what `describe()` prints.
    pub(crate) fn by_default(&self) -> Vec<(String, String)> {
        let mut merged: std::collections::BTreeMap<String, String> = self
            .defaults
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        merged.extend(self.own.iter().cloned());
        let own = |key: &str| self.own.iter().any(|(k, _)| k == key);
        match self.derived {
            Derived::WindowRetention(ms) if !own("retention.ms") => {
                merged.insert("retention.ms".to_owned(), (ms + DAY_MS).to_string());
            }
            Derived::VersionedLag(ms) if !own("min.compaction.lag.ms") => {
                merged.insert(
                    "min.compaction.lag.ms".to_owned(),
                    (ms + DAY_MS).to_string(),
                );
            }
            _ => {}
        }
        merged.into_iter().collect()
    }
}

/// How store `st`'s changelog topic is declared.
pub(crate) fn store_changelog(st: &Store) -> ChangelogDecl {
    let kv = || {
        vec![
            ("cleanup.policy", "compact".to_owned()),
            ("message.timestamp.type", "CreateTime".to_owned()),
        ]
    };
    let windowed = || {
        vec![
            ("cleanup.policy", "compact,delete".to_owned()),
            ("message.timestamp.type", "CreateTime".to_owned()),
        ]
    };
    let mut own = match &st.logging {
        Logging::Enabled(own) => own.clone(),
        Logging::Disabled => Vec::new(),
    };
    let (defaults, derived) = match (st.owner, st.versioned, st.window) {
        // A stream-stream join's store retains duplicates, so `WindowStoreBuilder` sets
        // `cleanup.policy=delete` in its own configs (compaction would drop records of one key
        // and timestamp).
        (StoreOwner::JoinWindow(w), _, _) => {
            own.insert(0, ("cleanup.policy".to_owned(), "delete".to_owned()));
            (windowed(), Derived::WindowRetention(w.retention()))
        }
        // A versioned store's changelog keeps every version its history may still need
        // (`VersionedChangelogTopicConfig`).
        (_, Some(history), _) => (
            vec![
                ("cleanup.policy", "compact".to_owned()),
                ("message.timestamp.type", "CreateTime".to_owned()),
            ],
            Derived::VersionedLag(history),
        ),
        // The store's retention (time: size + grace, session: gap + grace, sliding: 2 ×
        // difference + grace, or `with_retention(..)`), plus the additional retention.
        (_, None, Some(w)) => (windowed(), Derived::WindowRetention(w.retention())),
        (_, None, None) => (kv(), Derived::None),
    };
    own.sort();
    ChangelogDecl {
        defaults,
        own,
        derived,
    }
}

/// The runtime's `InternalTopicInfo` of a changelog.
fn changelog_info(st: &Store) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let name = &st.changelog;
    let decl = store_changelog(st);
    let defaults = configs(&decl.defaults);
    let own = decl.own.iter().map(|(k, v)| quote!((#k, #v)));
    let derived = match decl.derived {
        Derived::None => quote!(#dk::DerivedConfig::None),
        Derived::WindowRetention(ms) => {
            quote!(#dk::DerivedConfig::WindowRetention { retention_ms: #ms })
        }
        Derived::VersionedLag(ms) => {
            quote!(#dk::DerivedConfig::VersionedCompactionLag { history_ms: #ms })
        }
    };
    quote!(#dk::InternalTopicInfo {
        name: #name,
        partitions: 0,
        configs: #defaults,
        store_configs: &[#(#own),*],
        derived: #derived,
    })
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
    let logged = st.has_changelog();
    let in_memory = st.in_memory;
    quote!(#dk::StoreInfo {
        name: #name,
        changelog_topic: #changelog,
        logged: #logged,
        in_memory: #in_memory,
        kind: #kind,
    })
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
            quote!(#dk::InternalTopicInfo {
                name: #t,
                partitions: #partitions,
                configs: #rep_conf,
                store_configs: &[],
                derived: #dk::DerivedConfig::None,
            })
        });
        let rep_sinks = &sub.repartition_sinks;
        // Every store's changelog, including a table's source topic (which the table's store
        // restores from and does not write): Kafka Streams declares it the same way under
        // `topology.optimization=reuse.ktable.source.topics`, and the coordinator refuses a
        // member whose topology differs from the group's in any field.
        // A store whose logging is disabled has none.
        let mut changelogs: Vec<_> = sub
            .stores
            .iter()
            .map(|&s| &m.stores[s])
            .filter(|st| st.has_changelog())
            .collect();
        changelogs.sort_by(|a, b| a.changelog.cmp(&b.changelog));
        let changelogs = changelogs.iter().map(|st| changelog_info(st));
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
