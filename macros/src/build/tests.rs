//! Lowering: node names, subtopologies, copartition groups, and the errors and warnings of
//! building.

use proc_macro2::TokenStream;
use quote::quote;

use crate::diagnostics::Diagnostics;
use crate::ir::{Model, WindowKind, WindowSpec};
use crate::lower::lower as build;

fn model(tokens: TokenStream) -> Result<Model, Vec<syn::Error>> {
    let mut d = Diagnostics::default();
    build(syn::parse2(tokens).expect("parses"), &mut d).ok_or_else(|| d.errors().to_vec())
}

fn first_error(tokens: TokenStream) -> String {
    match model(tokens) {
        Ok(_) => panic!("expected an error"),
        Err(errors) => errors[0].to_string(),
    }
}

fn warnings(tokens: TokenStream) -> Vec<String> {
    let mut d = Diagnostics::default();
    build(syn::parse2(tokens).expect("parses"), &mut d).expect("builds");
    d.warnings().into_iter().map(str::to_owned).collect()
}
const WORD_COUNT: fn() -> TokenStream = || {
    quote! {
        pub WordCount = "word-count" {
            stream("sentences", Utf8, Utf8)
                .flat_map_values(|s| s.split(' ').map(str::to_owned))
                .group_by(|_k, w| w.clone(), Utf8, Utf8)
                .count("counts")
                .to_stream()
                .to("word-counts", Utf8, I64);
        }
    }
};

#[test]
fn group_by_splits_at_the_repartition_topic() {
    let m = model(WORD_COUNT()).expect("builds");
    assert_eq!(m.subs.len(), 2);
    assert_eq!(
        m.subs[0]
            .source_topics
            .iter()
            .map(|t| t.0.as_str())
            .collect::<Vec<_>>(),
        ["sentences"]
    );
    assert_eq!(
        m.subs[0].repartition_sinks,
        ["word-count-counts-repartition"]
    );
    assert_eq!(
        m.subs[1].repartition_sources[0].0,
        "word-count-counts-repartition"
    );
    assert_eq!(m.subs[1].sink_topics, ["word-counts"]);
    assert_eq!(m.stores[0].changelog, "word-count-counts-changelog");
    assert_eq!(m.stores[0].sub, 1);
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "KSTREAM-SOURCE-0000000000",
            "KSTREAM-FLATMAPVALUES-0000000001",
            "KSTREAM-KEY-SELECT-0000000002",
            "counts-repartition-sink",
            "counts-repartition-source",
            "KSTREAM-AGGREGATE-0000000005",
            "KTABLE-TOSTREAM-0000000006",
            "KSTREAM-SINK-0000000007",
        ]
    );
}

#[test]
fn output_is_deterministic() {
    let a = crate::describe::describe(&model(WORD_COUNT()).expect("builds"));
    let b = crate::describe::describe(&model(WORD_COUNT()).expect("builds"));
    assert_eq!(a, b);
}

#[test]
fn group_by_key_repartitions_only_after_a_key_change() {
    let m = model(quote! {
        T = "app" {
            let s = stream("in", Utf8, I64);
            s.group_by_key().count("a");
            s.select_key(|_, v| *v).group_by_key(I64, I64).count("b");
        }
    })
    .expect("builds");
    let reps: Vec<&str> = m
        .subs
        .iter()
        .flat_map(|s| s.repartition_sinks.iter().map(String::as_str))
        .collect();
    assert_eq!(reps, ["app-b-repartition"]);
    assert_eq!(m.subs.len(), 2);
}

#[test]
fn join_declares_a_copartition_group_and_merges_subtopologies() {
    let m = model(quote! {
        T = "app" {
            let t = table("customers", Utf8, Utf8);
            stream("orders", Utf8, Utf8).join(t, |a, b| a + &b).to("out", Utf8, Utf8);
        }
    })
    .expect("builds");
    assert_eq!(m.subs.len(), 1);
    assert_eq!(
        m.subs[0].copartition_groups,
        [(vec!["customers".to_owned(), "orders".to_owned()], vec![])]
    );
    assert!(!m.stores[0].logged);
    assert_eq!(m.stores[0].changelog, "customers");
}

#[test]
fn windows_and_durations() {
    let m = model(quote! {
        T = "app" {
            stream("in", Utf8, Utf8)
                .group_by_key()
                .windowed_by(hopping(Duration::from_mins(5), 60_000).grace(Duration::from_secs(30)))
                .count("c");
        }
    })
    .expect("builds");
    assert_eq!(
        m.stores[0].window,
        Some(WindowSpec {
            size: 300_000,
            advance: 60_000,
            grace: 30_000,
            kind: WindowKind::Time,
            retention_ms: None,
        })
    );
}

#[test]
fn session_and_sliding_windows() {
    let m = model(quote! {
        T = "app" {
            let s = stream("in", Utf8, Utf8);
            s.group_by_key()
                .windowed_by(session(Duration::from_mins(5)).grace(Duration::from_secs(30)))
                .count("sessions");
            s.group_by_key().windowed_by(sliding(10)).count("sliding");
        }
    })
    .expect("builds");
    let (session, sliding) = (
        m.stores[0].window.expect("session"),
        m.stores[1].window.expect("sliding"),
    );
    assert_eq!(
        (session.kind, session.size, session.grace),
        (WindowKind::Session, 300_000, 30_000)
    );
    assert_eq!(
        (sliding.kind, sliding.size, sliding.grace),
        (WindowKind::Sliding, 10, 0)
    );
    // Kafka Streams' default retentions: gap + grace, 2 × difference + grace.
    assert_eq!((session.retention(), sliding.retention()), (330_000, 20));
    // Suppression waits the gap too for sessions (GraphGraceSearchUtil).
    assert_eq!((session.close_after(), sliding.close_after()), (330_000, 0));
    assert!(
        first_error(quote!(T = "a" { stream("in", Utf8, Utf8).group_by_key().windowed_by(session(0)).count("c"); }))
            .contains("gap must be positive")
    );
}

#[test]
fn structural_errors_name_the_fix() {
    assert!(
        first_error(quote!(T = "a" { stream("in", Utf8, Utf8).count("c"); })).contains("group_by")
    );
    assert!(
        first_error(quote!(T = "a" { table("t", Utf8, Utf8).flat_map(|k, v| vec![(k, v)]); }))
            .contains("to_stream()")
    );
    assert!(
        first_error(
            quote!(T = "a" { stream("in", Utf8, Utf8).to("o", Utf8, Utf8).peek(|_, _| ()); })
        )
        .contains("comes after `to(..)`, which ends the stream")
    );
    assert!(
        first_error(quote!(T = "a" { stream("in", Utf8, Utf8).to("o", Utf8, I64); }))
            .contains("i64")
    );
    assert!(
        first_error(quote!(T = "a" { x.to("o", Utf8, I64); }))
            .contains("unknown stream or table `x`")
    );
}

#[test]
fn the_stock_serdes_have_known_value_types() {
    let e = first_error(quote!(T = "a" { stream("in", Uuid, F64).to("o", Uuid, F32); }));
    assert!(
        e.contains("`F32` is for f32") && e.contains("are f64"),
        "{e}"
    );
    let e = first_error(quote!(T = "a" { stream("in", I16, Bool).to("o", I32, Bool); }));
    assert!(
        e.contains("`I32` is for i32") && e.contains("are i16"),
        "{e}"
    );
    let e = first_error(quote!(T = "a" { stream("in", Uuid, Utf8).to("o", Utf8, Utf8); }));
    assert!(e.contains("are uuid::Uuid"), "{e}");
    // Void and Unit both carry `()`.
    model(quote!(T = "a" { stream("in", Unit, Bool).to("o", Void, Bool); }))
        .map_err(|e| e[0].to_string())
        .expect("Void is ()");
}

#[test]
fn filter_not_is_a_filter_node_keeping_key_and_serdes() {
    let m = model(quote! {
        T = "app" {
            stream("in", Utf8, I64).filter_not(|_, v| *v < 0).group_by_key().count("c");
        }
    })
    .expect("builds");
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "KSTREAM-SOURCE-0000000000",
            "KSTREAM-FILTER-0000000001",
            "KSTREAM-AGGREGATE-0000000002"
        ]
    );
    // No repartition: filter_not keeps the key, as Kafka Streams' filterNot does.
    assert_eq!(m.subs.len(), 1);
    assert!(m.subs[0].repartition_sinks.is_empty());
}

#[test]
fn an_unused_binding_warns_and_an_underscore_name_does_not() {
    let w = warnings(quote! {
        T = "app" {
            let orders = stream("orders", Utf8, Utf8);
            let _audit = stream("audit", Utf8, Utf8);
            let customers = table("customers", Utf8, Utf8);
            stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
        }
    });
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("the table `customers` is bound but never used"),
        "{w:?}"
    );
    assert!(
        w[1].contains("the stream `orders` is bound but never used"),
        "{w:?}"
    );
    let none = warnings(quote! {
        T = "app" {
            let t = table("customers", Utf8, Utf8);
            let s = stream("orders", Utf8, Utf8);
            s.join(t, |a, b| a + &b).to("out", Utf8, Utf8);
        }
    });
    assert!(none.is_empty(), "{none:?}");
}

#[test]
fn an_empty_body_is_a_clear_error() {
    assert!(first_error(quote!(T = "a" {})).contains("reads no topic"));
    assert!(
        first_error(quote!(T = "a" { on_error(|_| ErrorResponse::Fail); }))
            .contains("reads no topic")
    );
}

#[test]
fn every_registered_operator_is_dispatched() {
    // An operator name the registry has is never reported unknown.
    for op in crate::ops::REGISTRY {
        let call = syn::Ident::new(op.name, proc_macro2::Span::call_site());
        let errors = model(quote!(T = "a" { stream("in", Utf8, Utf8).#call(); }))
            .err()
            .unwrap_or_default();
        assert!(
            errors
                .iter()
                .all(|e| !e.to_string().contains("unknown operator")),
            "`{}`: {errors:?}",
            op.name
        );
    }
}

#[test]
fn to_table_after_a_key_change_asks_for_a_repartition() {
    let e = first_error(quote!(T = "a" {
        stream("in", Utf8, Utf8).select_key(|_, v| v.clone()).to_table("t", Utf8, Utf8).to_stream().to("o", Utf8, Nullable::<Utf8>);
    }));
    assert!(e.contains(".repartition(\"name\""), "{e}");
}

#[test]
fn suppression_is_named_as_kafka_streams_names_it() {
    let m = model(quote! {
        T = "app" {
            let s = stream("in", Utf8, Utf8);
            s.group_by_key().windowed_by(tumbling(10)).count("a").suppress_until_window_closes();
            s.group_by_key().windowed_by(tumbling(10)).count("b").suppress_until_window_closes("fin");
        }
    })
    .expect("builds");
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert!(names.contains(&"KTABLE-SUPPRESS-0000000002"), "{names:?}");
    assert!(names.contains(&"fin-suppress"), "{names:?}");
    let stores: Vec<(&str, &str)> = m
        .stores
        .iter()
        .map(|s| (s.name.as_str(), s.changelog.as_str()))
        .collect();
    assert!(stores.contains(&(
        "KTABLE-SUPPRESS-STATE-STORE-0000000003",
        "app-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog"
    )));
    assert!(stores.contains(&("fin-store", "app-fin-store-changelog")));
}
