//! Phase 3: the rules about names and topics, each a `syn::Error` at the user's token whose
//! message says how to fix it.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::model::{Model, StoreOwner, TopicRole};

/// Kafka's longest topic name.
pub const MAX_TOPIC_LEN: usize = 249;

/// Why a topic name (or application id) is not legal in Kafka, if it is not.
pub fn invalid_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name == "." || name == ".." {
        return Some(format!("`{name}` is reserved"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Some(format!(
            "it contains {c:?}; Kafka allows ASCII letters, digits, '.', '_' and '-'"
        ));
    }
    if name.len() > MAX_TOPIC_LEN {
        return Some(format!(
            "it is {} characters long; Kafka allows {MAX_TOPIC_LEN}",
            name.len()
        ));
    }
    None
}

/// Every rule; all errors at once.
pub fn check(model: &Model) -> Vec<syn::Error> {
    let mut errors = Vec::new();
    let e = |span: Span, msg: String| syn::Error::new(span, msg);

    if let Some(why) = invalid_name(&model.app_id) {
        errors.push(e(model.app_span, format!("invalid application id `{}`: {why}. It is the group id and the prefix of every internal topic", model.app_id)));
    }

    // User topics.
    let mut read: BTreeMap<&str, Span> = BTreeMap::new();
    let mut written: BTreeMap<&str, (String, String, Span)> = BTreeMap::new();
    for t in &model.topics {
        if let Some(why) = invalid_name(&t.name) {
            let what = if t.role == TopicRole::DeadLetter {
                "dead-letter topic"
            } else {
                "topic name"
            };
            errors.push(e(t.span, format!("invalid {what} `{}`: {why}", t.name)));
            continue;
        }
        match t.role {
            TopicRole::Source | TopicRole::Table => {
                if let Some(first) = read.insert(&t.name, t.span) {
                    let mut err = e(
                        t.span,
                        format!(
                            "topic `{}` is read twice: read it once and bind it (`let s = stream(\"{}\", ..);`), then use `s` as often as you like",
                            t.name, t.name
                        ),
                    );
                    err.combine(e(first, "first read here".to_owned()));
                    errors.push(err);
                }
            }
            TopicRole::Sink => {
                let serdes = (
                    t.key.as_ref().map(|k| k.text()).unwrap_or_default(),
                    t.value.as_ref().map(|v| v.text()).unwrap_or_default(),
                );
                if let Some((k, v, first)) = written.get(t.name.as_str()) {
                    if (k, v) != (&serdes.0, &serdes.1) {
                        let mut err = e(
                            t.span,
                            format!(
                                "topic `{}` is written with serdes ({}, {}) here and ({k}, {v}) elsewhere: use the same serdes for one topic",
                                t.name, serdes.0, serdes.1
                            ),
                        );
                        err.combine(e(*first, "written here".to_owned()));
                        errors.push(err);
                    }
                } else {
                    written.insert(&t.name, (serdes.0, serdes.1, t.span));
                }
            }
            TopicRole::DeadLetter => {}
        }
    }

    // Stores: names, duplicates, internal topics.
    let mut stores: BTreeMap<&str, Span> = BTreeMap::new();
    let mut internal: Vec<(String, Span)> = Vec::new();
    for st in &model.stores {
        if let Some(first) = stores.insert(&st.name, st.span) {
            let mut err = e(
                st.span,
                format!(
                    "duplicate store `{}`: every store (and table) needs its own name",
                    st.name
                ),
            );
            err.combine(e(first, "first named here".to_owned()));
            errors.push(err);
            continue;
        }
        if st.owner == StoreOwner::Table {
            continue;
        }
        if let Some(c) = st
            .name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            errors.push(e(st.span, format!("invalid store name `{}`: it names internal topics, so it may contain ASCII letters, digits, '.', '_' and '-' but not {c:?}", st.name)));
            continue;
        }
        if st.name.is_empty() {
            errors.push(e(st.span, "a store needs a name".to_owned()));
            continue;
        }
        internal.push((st.changelog.clone(), st.span));
        if st.owner == StoreOwner::Declared
            && matches!(
                snake(&st.name).as_str(),
                "timestamp" | "headers" | "partition"
            )
        {
            errors.push(e(
                st.span,
                format!(
                    "store name `{}` clashes with a method of the processor context: rename it",
                    st.name
                ),
            ));
        }
    }
    for node in &model.nodes {
        if let crate::model::NodeKind::RepartitionSink { topic, .. } = &node.kind {
            internal.push((topic.clone(), node.span));
        }
    }
    let mut seen_internal: BTreeMap<&str, Span> = BTreeMap::new();
    for (topic, span) in &internal {
        if let Some(first) = seen_internal.insert(topic, *span) {
            let mut err = e(
                *span,
                format!(
                    "internal topic `{topic}` would be created twice: give this store or repartition another name"
                ),
            );
            err.combine(e(first, "first named here".to_owned()));
            errors.push(err);
        }
    }
    for (topic, span) in &internal {
        if topic.len() > MAX_TOPIC_LEN {
            errors.push(e(
                *span,
                format!(
                    "internal topic `{topic}` would be {} characters long; Kafka allows {MAX_TOPIC_LEN}: shorten the application id or this name",
                    topic.len()
                ),
            ));
        }
        if let Some(t) = model.topics.iter().find(|t| &t.name == topic) {
            let mut err = e(
                t.span,
                format!(
                    "topic `{topic}` is also an internal topic of this topology (`<application id>-<name>-repartition|changelog`): rename the topic or the store"
                ),
            );
            err.combine(e(*span, "the internal topic comes from here".to_owned()));
            errors.push(err);
        }
    }
    errors
}

/// `word-counts` → `word_counts`.
pub fn snake(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `word-counts` → `WORD_COUNTS`.
pub fn screaming(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn errors(tokens: proc_macro2::TokenStream) -> Vec<String> {
        let m = crate::model::build(syn::parse2(tokens).expect("parses")).expect("builds");
        check(&m).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn topic_names() {
        assert_eq!(invalid_name("orders"), None);
        assert!(invalid_name("a b").is_some());
        assert!(invalid_name("..").is_some());
        assert!(invalid_name(&"x".repeat(250)).is_some());
        assert_eq!(invalid_name(&"x".repeat(249)), None);
    }

    #[test]
    fn internal_topics_fit_kafka_limits() {
        let app = "a".repeat(230);
        let e = errors(
            quote!(T = #app { stream("in", Utf8, Utf8).group_by_key().count("counts-store"); }),
        );
        assert!(e[0].contains("internal topic"), "{e:?}");
        assert!(e[0].contains("249"), "{e:?}");
    }

    #[test]
    fn collisions_and_duplicates() {
        let e = errors(quote!(T = "app" {
            let c = stream("in", Utf8, Utf8).group_by_key().count("c");
            c.to_stream().to("app-c-changelog", Utf8, I64);
            stream("in", Utf8, Utf8).group_by_key().count("c");
        }));
        let all = e.join("\n");
        assert!(all.contains("read twice"), "{all}");
        assert!(all.contains("duplicate store"), "{all}");
        assert!(all.contains("also an internal topic"), "{all}");
    }

    #[test]
    fn handle_names() {
        assert_eq!(screaming("word-counts"), "WORD_COUNTS");
        assert_eq!(snake("seen.ids"), "seen_ids");
        assert_eq!(snake("1st"), "_1st");
    }
}
