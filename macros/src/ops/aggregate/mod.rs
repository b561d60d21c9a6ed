//! Aggregations of a grouped (maybe windowed) stream into a table: `count("store")`,
//! `reduce("store", f)`, `aggregate("store", init, f, AggregateSerde)`. Each creates its store
//! (changelog `<app>-<store>-changelog`) and, after a key change, the repartition topic
//! `<app>-<store>-repartition`; windowed ones keep one entry per window and drop late records.

pub(crate) mod cache;
pub(crate) mod direct_sink;
pub(crate) mod emit;
pub(crate) mod raw_key;
pub(crate) mod session;
pub(crate) mod sliding;
pub(crate) mod value;
pub(crate) mod window_agg;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Type;

use super::{Emit, Lower, Operator};
use crate::args::{arity, err_at, err_call, name_arg, serde_arg};
use crate::build::{Builder, Flow, Grouped, Table};
use crate::codegen::emitter::{Acc, Emitter, Part};
use crate::ir::{AggOp, NodeKind, SerdeTy, Store, StoreOwner, WindowKind};
use crate::names;
use crate::parse::Call;

const NEEDS_GROUPING: Option<&str> = Some(
    "`{op}` needs a grouped stream: call group_by(|key, value| new_key, KeySerde, ValueSerde) or group_by_key() before {op}(..)",
);

pub(crate) const COUNT: Operator = Operator {
    name: "count",
    usage: "count(\"store\")",
    lower: &[Lower::Grouped(aggregate)],
    on_stream: NEEDS_GROUPING,
    emit: &[EMIT],
};

pub(crate) const REDUCE: Operator = Operator {
    name: "reduce",
    usage: "reduce(\"store\", |aggregate, value| ..)",
    lower: &[Lower::Grouped(aggregate)],
    on_stream: NEEDS_GROUPING,
    emit: &[EMIT],
};

pub(crate) const AGGREGATE: Operator = Operator {
    name: "aggregate",
    usage: "aggregate(\"store\", || initial, |key, value, aggregate| .., AggregateSerde)",
    lower: &[
        Lower::Grouped(aggregate),
        Lower::Cogrouped(super::cogroup::aggregate),
    ],
    on_stream: NEEDS_GROUPING,
    emit: &[EMIT],
};

/// The usage of `aggregate(..)` after `windowed_by(session(..))`.
const SESSION_USAGE: &str = "aggregate(\"store\", || initial, |key, value, aggregate| .., |key, aggregate1, aggregate2| merged, AggregateSerde)";

fn aggregate(b: &mut Builder, g: Grouped, call: &Call) -> syn::Result<Flow> {
    let op = call.name.to_string();
    let usage = match op.as_str() {
        "count" => COUNT.usage,
        "reduce" => REDUCE.usage,
        _ => AGGREGATE.usage,
    };
    let (store_name, sspan) = name_arg(call, 0, usage)?;
    let (agg, value_serde) = match op.as_str() {
        "count" => {
            arity(call, 1, usage)?;
            let i64_ty: Type = syn::parse_quote_spanned!(sspan=> ::dekaf_streams::serdes::I64);
            (
                AggOp::Count,
                SerdeTy {
                    ty: i64_ty,
                    span: sspan,
                },
            )
        }
        "reduce" => {
            arity(call, 2, usage)?;
            let Some(value) = g.value.clone() else {
                return Err(err_at(
                    &g.tokens,
                    "reduce(..) stores values of the stream, but their serde is not known here (an operator changed the values): give it to the grouping, e.g. group_by_key(KeySerde, ValueSerde)",
                ));
            };
            (AggOp::Reduce(call.args[1].clone()), value)
        }
        _ => {
            let session = g.window.is_some_and(|w| w.kind == WindowKind::Session);
            if session && call.args.len() == 4 {
                return Err(err_call(
                    call,
                    format!(
                        "a session-windowed aggregate(..) merges sessions, so it needs a merger of two aggregates: {SESSION_USAGE}"
                    ),
                ));
            }
            if !session && call.args.len() == 5 {
                return Err(err_at(
                    &call.args[3],
                    format!(
                        "only session windows merge aggregates: remove the merger, {usage}, or window the stream with windowed_by(session(gap))"
                    ),
                ));
            }
            let (usage, serde_at) = if session {
                (SESSION_USAGE, 4)
            } else {
                (usage, 3)
            };
            arity(call, serde_at + 1, usage)?;
            let serde = serde_arg(call, serde_at, usage)?;
            (
                AggOp::Aggregate {
                    init: call.args[1].clone(),
                    f: call.args[2].clone(),
                    merger: session.then(|| Box::new(call.args[3].clone())),
                },
                serde,
            )
        }
    };
    let Some(key) = g.key.clone() else {
        return Err(err_at(
            &g.tokens,
            format!(
                "{op}(..) stores keys of the stream, but their serde is not known here (an operator changed the keys): pass serdes, e.g. group_by_key(KeySerde, ValueSerde)"
            ),
        ));
    };
    let upstream = repartition(b, &g, &store_name, &key)?;
    let store = b.stores.len();
    let changelog = b.internal(&store_name, "changelog");
    b.stores.push(Store {
        window: g.window,
        ..Store::new(
            store_name,
            sspan,
            key.clone(),
            value_serde.clone(),
            changelog,
            StoreOwner::Aggregate,
        )
    });
    let kind_name = match (op.as_str(), g.window.map(|w| w.kind)) {
        ("reduce", None) => "KSTREAM-REDUCE",
        (_, None) => "KSTREAM-AGGREGATE",
        ("reduce", Some(WindowKind::Session)) => "KSTREAM-SESSION-WINDOWED-REDUCE",
        (_, Some(WindowKind::Session)) => "KSTREAM-SESSION-WINDOWED-AGGREGATE",
        ("reduce", Some(WindowKind::Sliding)) => "KSTREAM-SLIDINGWINDOWED-REDUCE",
        (_, Some(WindowKind::Sliding)) => "KSTREAM-SLIDINGWINDOWED-AGGREGATE",
        ("reduce", Some(WindowKind::Time)) => "KSTREAM-WINDOWED-REDUCE",
        (_, Some(WindowKind::Time)) => "KSTREAM-WINDOWED-AGGREGATE",
    };
    let node = b.node(
        NodeKind::Aggregate {
            store,
            op: agg,
            cogrouped: false,
        },
        kind_name,
        call.span,
        &[upstream],
    );
    b.stores[store].users.push(node);
    Ok(Flow::Table(Table { node, store }))
}

/// The node an aggregation into store `store_name` reads grouped stream `g` from: after a key
/// change, the source of the repartition topic `<app>-<store>-repartition` that `g` is written
/// to (Kafka Streams names it after the store); else `g`'s own node.
pub(crate) fn repartition(
    b: &mut Builder,
    g: &Grouped,
    store_name: &str,
    key: &SerdeTy,
) -> syn::Result<usize> {
    if !g.repartition {
        return Ok(g.node);
    }
    let topic = b.internal(store_name, "repartition");
    let value = g.value.clone().ok_or_else(|| {
        err_at(&g.tokens, "the repartition topic needs the value serde: pass it, e.g. group_by_key(KeySerde, ValueSerde)")
    })?;
    let (sink_name, source_name) = names::repartition_node_names(store_name);
    let sink = b.push_node(
        NodeKind::RepartitionSink {
            topic: topic.clone(),
            key: key.clone(),
            value: value.clone(),
            partitioner: None,
        },
        sink_name,
        g.span,
        &[g.node],
    );
    let source = b.push_node(
        NodeKind::RepartitionSource {
            topic,
            key: key.clone(),
            value,
        },
        source_name,
        g.span,
        &[],
    );
    b.repartitions.push((sink, source));
    Ok(source)
}

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Aggregate { store, op, .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit::emit(em, node, *store, op, k, v))
}

/// Time and session windows count a record with a null value (`KStreamWindowAggregate`,
/// `KStreamSessionWindowAggregate` drop only a null key); `reduce` and `aggregate` would give
/// it to the closure: it fails. Without windows and with sliding windows a null key or value is
/// dropped.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let NodeKind::Aggregate { store, op, .. } = &em.m.nodes[node].kind else {
        return None;
    };
    let window = em.m.stores[*store].window.map(|w| w.kind);
    let counts_null_values = matches!(window, Some(WindowKind::Time | WindowKind::Session));
    Some(match (k, v, op) {
        (Part::Val(ka), Part::Null, AggOp::Count) if counts_null_values => {
            let unit = format_ident!("__dk_null_value{}", node);
            let body = em.emit(node, ka, &Acc::owned(unit.clone()));
            quote! { let #unit = (); #body }
        }
        (Part::Val(_), Part::Null, AggOp::Reduce(_)) if counts_null_values => {
            em.null_fails(node, "reduce", k)
        }
        (Part::Val(_), Part::Null, AggOp::Aggregate { .. }) if counts_null_values => {
            em.null_fails(node, "aggregate", k)
        }
        _ => quote!(self.__dropped += 1;),
    })
}
