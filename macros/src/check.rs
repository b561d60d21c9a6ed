//! Phase 3: the rules about names and topics, one function per rule. Each reports a
//! `syn::Error` at the user's token whose message says how to fix it; all rules run, so every
//! mistake is reported at once.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::diagnostics::Diagnostics;
use crate::ir::{Model, NodeKind, StoreOwner, TopicRole};
use crate::names::{MAX_TOPIC_LEN, illegal_char, invalid_name, snake};

/// Every rule, in order.
const RULES: &[fn(&Model, &mut Diagnostics)] = &[
    application_id_is_a_valid_name,
    topic_names_are_valid,
    topics_are_read_once,
    a_topic_is_written_with_one_pair_of_serdes,
    dead_letter_topics_are_not_inputs,
    sinks_that_feed_an_input_warn,
    store_names_are_unique_and_valid,
    internal_topics_are_unique,
    internal_topics_fit_kafka_limits,
    internal_topics_are_not_user_topics,
];

/// Runs every rule.
pub(crate) fn check(model: &Model, diagnostics: &mut Diagnostics) {
    for rule in RULES {
        rule(model, diagnostics);
    }
}

fn e(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

fn with_note(mut error: syn::Error, span: Span, note: &str) -> syn::Error {
    error.combine(e(span, note));
    error
}

/// The application id is the group id and the prefix of every internal topic.
fn application_id_is_a_valid_name(model: &Model, d: &mut Diagnostics) {
    if let Some(why) = invalid_name(&model.app_id) {
        d.error(e(model.app_span, format!("invalid application id `{}`: {why}. It is the group id and the prefix of every internal topic", model.app_id)));
    }
}

/// Every user topic name (sources, tables, sinks, dead-letter topics) is legal in Kafka.
fn topic_names_are_valid(model: &Model, d: &mut Diagnostics) {
    for t in &model.topics {
        if let Some(why) = invalid_name(&t.name) {
            let what = if t.role == TopicRole::DeadLetter {
                "dead-letter topic"
            } else {
                "topic name"
            };
            d.error(e(t.span, format!("invalid {what} `{}`: {why}", t.name)));
        }
    }
}

/// A topic is read by one source: Kafka Streams refuses a topic subscribed twice.
fn topics_are_read_once(model: &Model, d: &mut Diagnostics) {
    let mut read: BTreeMap<&str, Span> = BTreeMap::new();
    for t in model
        .topics
        .iter()
        .filter(|t| invalid_name(&t.name).is_none())
    {
        if !matches!(t.role, TopicRole::Source | TopicRole::Table) {
            continue;
        }
        if let Some(first) = read.insert(&t.name, t.span) {
            d.error(with_note(
                e(
                    t.span,
                    format!(
                        "topic `{}` is read twice: read it once and bind it (`let s = stream(\"{}\", ..);`), then use `s` as often as you like",
                        t.name, t.name
                    ),
                ),
                first,
                "first read here",
            ));
        }
    }
}

/// Every `to(..)` of one topic uses the same serdes.
fn a_topic_is_written_with_one_pair_of_serdes(model: &Model, d: &mut Diagnostics) {
    let mut written: BTreeMap<&str, (String, String, Span)> = BTreeMap::new();
    for t in model
        .topics
        .iter()
        .filter(|t| invalid_name(&t.name).is_none())
    {
        if t.role != TopicRole::Sink {
            continue;
        }
        let serdes = (
            t.key.as_ref().map(|k| k.text()).unwrap_or_default(),
            t.value.as_ref().map(|v| v.text()).unwrap_or_default(),
        );
        match written.get(t.name.as_str()) {
            Some((k, v, first)) if (k, v) != (&serdes.0, &serdes.1) => {
                d.error(with_note(
                    e(
                        t.span,
                        format!(
                            "topic `{}` is written with serdes ({}, {}) here and ({k}, {v}) elsewhere: use the same serdes for one topic",
                            t.name, serdes.0, serdes.1
                        ),
                    ),
                    *first,
                    "written here",
                ));
            }
            Some(_) => {}
            None => {
                written.insert(&t.name, (serdes.0, serdes.1, t.span));
            }
        }
    }
}

/// A dead-letter topic is not an input of the topology: a poison record would be read back,
/// fail again and be dead-lettered again, forever.
fn dead_letters_loop_back(model: &Model) -> impl Iterator<Item = syn::Error> + '_ {
    model
        .topics
        .iter()
        .filter(|t| t.role == TopicRole::DeadLetter)
        .filter_map(|dl| {
            let input = model.topics.iter().find(|t| {
                t.name == dl.name && matches!(t.role, TopicRole::Source | TopicRole::Table)
            })?;
            Some(with_note(
                e(
                    dl.span,
                    format!(
                        "dead-letter topic `{}` is also an input topic of this topology: a record that fails would be read back, fail again and be dead-lettered again, forever. Send dead letters to a topic the topology does not read (e.g. `{}-dead-letter`)",
                        dl.name, dl.name
                    ),
                ),
                input.span,
                "read here",
            ))
        })
}

/// A `to(..)` of a topic the topology also reads: every record written there is read back and
/// processed again, a loop. Kafka Streams allows it (and so does this macro: a bounded feedback,
/// e.g. a filter that lets a record through once, is legitimate), but it is nearly always a
/// typo, so it is a warning naming the loop, at the sink; `#[allow(deprecated)]` on the
/// enclosing module or function silences it.
fn sinks_that_feed_an_input_warn(model: &Model, d: &mut Diagnostics) {
    let mut warned: Vec<&str> = Vec::new();
    for sink in model.topics.iter().filter(|t| t.role == TopicRole::Sink) {
        if warned.contains(&sink.name.as_str()) {
            continue;
        }
        let global = model.globals.iter().any(|g| g.topic == sink.name);
        let read = model
            .topics
            .iter()
            .find(|t| t.name == sink.name && matches!(t.role, TopicRole::Source | TopicRole::Table))
            .map(|t| match t.role {
                _ if global => "global_table",
                TopicRole::Table => "table",
                _ => "stream",
            });
        let Some(how) = read else { continue };
        warned.push(&sink.name);
        d.warning(
            "topic_loop",
            quote::quote_spanned!(sink.span=> x),
            format!(
                "loop: this topology writes to `{0}` and also reads it with {how}(\"{0}\", ..), so every record written there is processed again (`{0}` -> ... -> to(\"{0}\") -> `{0}`); write to another topic, or put #[allow(deprecated)] on the enclosing module or function if the feedback is meant",
                sink.name
            ),
        );
    }
}

fn dead_letter_topics_are_not_inputs(model: &Model, d: &mut Diagnostics) {
    for error in dead_letters_loop_back(model) {
        d.error(error);
    }
}

/// Store names are unique, legal parts of internal topic names, and no declared store's
/// accessor clashes with a method of the processor context.
fn store_names_are_unique_and_valid(model: &Model, d: &mut Diagnostics) {
    let mut stores: BTreeMap<&str, Span> = BTreeMap::new();
    for st in &model.stores {
        if let Some(first) = stores.insert(&st.name, st.span) {
            d.error(with_note(
                e(
                    st.span,
                    format!(
                        "duplicate store `{}`: every store (and table) needs its own name",
                        st.name
                    ),
                ),
                first,
                "first named here",
            ));
            continue;
        }
        if st.owner == StoreOwner::Table {
            continue;
        }
        if let Some(c) = illegal_char(&st.name) {
            d.error(e(st.span, format!("invalid store name `{}`: it names internal topics, so it may contain ASCII letters, digits, '.', '_' and '-' but not {c:?}", st.name)));
            continue;
        }
        if st.name.is_empty() {
            d.error(e(st.span, "a store needs a name"));
            continue;
        }
        if st.owner == StoreOwner::Declared
            && matches!(
                snake(&st.name).as_str(),
                "timestamp" | "headers" | "partition" | "topic" | "offset" | "commit"
            )
        {
            d.error(e(
                st.span,
                format!(
                    "store name `{}` clashes with a method of the processor context: rename it",
                    st.name
                ),
            ));
        }
    }
}

/// The internal topics (changelogs of valid, first-named stores; repartition topics) with
/// where each comes from, in the order the topology names them.
fn internal_topics(model: &Model) -> Vec<(&str, Span)> {
    let mut seen_stores: Vec<&str> = Vec::new();
    let mut internal = Vec::new();
    for st in &model.stores {
        if seen_stores.contains(&st.name.as_str()) {
            continue;
        }
        seen_stores.push(&st.name);
        if st.owner == StoreOwner::Table
            || !st.has_changelog()
            || st.name.is_empty()
            || illegal_char(&st.name).is_some()
        {
            continue;
        }
        internal.push((st.changelog.as_str(), st.span));
    }
    for node in &model.nodes {
        if let NodeKind::RepartitionSink { topic, .. } = &node.kind {
            internal.push((topic.as_str(), node.span));
        }
    }
    internal
}

/// Two stores or repartitions do not derive the same internal topic.
fn internal_topics_are_unique(model: &Model, d: &mut Diagnostics) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for (topic, span) in internal_topics(model) {
        if let Some(first) = seen.insert(topic, span) {
            d.error(with_note(
                e(
                    span,
                    format!(
                        "internal topic `{topic}` would be created twice: give this store or repartition another name"
                    ),
                ),
                first,
                "first named here",
            ));
        }
    }
}

/// Internal topic names fit Kafka's 249 characters.
fn internal_topics_fit_kafka_limits(model: &Model, d: &mut Diagnostics) {
    for (topic, span) in internal_topics(model) {
        if topic.len() > MAX_TOPIC_LEN {
            d.error(e(
                span,
                format!(
                    "internal topic `{topic}` would be {} characters long; Kafka allows {MAX_TOPIC_LEN}: shorten the application id or this name",
                    topic.len()
                ),
            ));
        }
    }
}

/// No user topic has the name of an internal topic.
fn internal_topics_are_not_user_topics(model: &Model, d: &mut Diagnostics) {
    for (topic, span) in internal_topics(model) {
        if let Some(t) = model.topics.iter().find(|t| t.name == topic) {
            d.error(with_note(
                e(
                    t.span,
                    format!(
                        "topic `{topic}` is also an internal topic of this topology (`<application id>-<name>-repartition|changelog`): rename the topic or the store"
                    ),
                ),
                span,
                "the internal topic comes from here",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn errors(tokens: proc_macro2::TokenStream) -> Vec<String> {
        let mut d = Diagnostics::default();
        let m = crate::lower::lower(syn::parse2(tokens).expect("parses"), &mut d).expect("builds");
        check(&m, &mut d);
        d.errors().iter().map(ToString::to_string).collect()
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

    fn warnings(tokens: proc_macro2::TokenStream) -> Vec<String> {
        let mut d = Diagnostics::default();
        let m = crate::lower::lower(syn::parse2(tokens).expect("parses"), &mut d).expect("builds");
        check(&m, &mut d);
        assert!(!d.has_errors(), "{:?}", d.errors());
        d.warnings().into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn a_sink_that_feeds_an_input_warns_once_naming_the_loop() {
        let w = warnings(quote!(T = "app" {
            let s = stream("events", Utf8, Utf8);
            s.filter(|k, _| k.is_empty()).to("events", Utf8, Utf8);
            s.to("events", Utf8, Utf8);
            table("t", Utf8, Utf8).to_stream().to("t", Utf8, Nullable::<Utf8>);
            s.to("other", Utf8, Utf8);
        }));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("loop") && w[0].contains("`events`"), "{w:?}");
        assert!(w[0].contains("stream(\"events\""), "{w:?}");
        assert!(w[1].contains("table(\"t\""), "{w:?}");
    }

    #[test]
    fn a_sink_that_feeds_a_global_table_warns() {
        let w = warnings(quote!(T = "app" {
            let g = global_table("g", Utf8, Utf8);
            stream("in", Utf8, Utf8).join(g, |k, _| k.clone(), |v, _| v).to("g", Utf8, Utf8);
        }));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("global_table(\"g\""), "{w:?}");
    }

    #[test]
    fn no_loop_no_warning() {
        let w = warnings(quote!(T = "app" { stream("in", Utf8, Utf8).to("out", Utf8, Utf8); }));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_dead_letter_topic_that_is_an_input_is_refused() {
        let e = errors(quote!(T = "app" {
            on_error(|_| ErrorResponse::DeadLetter("orders"));
            stream("orders", Utf8, Utf8).to("out", Utf8, Utf8);
        }));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("dead-letter topic `orders` is also an input topic"),
            "{e:?}"
        );
        let ok = errors(quote!(T = "app" {
            on_error(|_| ErrorResponse::DeadLetter("orders-dead-letter"));
            stream("orders", Utf8, Utf8).to("out", Utf8, Utf8);
        }));
        assert!(ok.is_empty(), "{ok:?}");
    }
}
