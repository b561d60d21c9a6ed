//! `cogroup`: several grouped streams aggregated into one store (Kafka Streams'
//! `KGroupedStream#cogroup` and `CogroupedKStream`), each with its own aggregator and one
//! initializer:
//!
//! ```text
//! let views = stream("views", Utf8, Utf8).group_by_key();
//! stream("clicks", Utf8, Utf8)
//!     .group_by_key()
//!     .cogroup(|key, click, agg| ..)
//!     .cogroup(views, |key, view, agg| ..)
//!     .windowed_by(tumbling(Duration::from_secs(60)))   // optional; session(..) needs a merger
//!     .aggregate("store", || initial, AggregateSerde)
//! ```
//!
//! As Kafka Streams builds it (`CogroupedStreamAggregateBuilder`): a grouped stream after a key
//! change is written to the repartition topic `<app>-<store>-repartition` (so only one may need
//! it); each stream gets its aggregation node (`COGROUPKSTREAM-AGGREGATE-n`, the plain, time,
//! sliding or session aggregation of `crate::ops::aggregate` on the shared store), whose results
//! meet in one pass-through node (`COGROUPKSTREAM-MERGE-n`), the table's node. The streams are
//! copartitioned. Each aggregation keeps its own stream time for lateness, as each of Kafka
//! Streams' processors does (`observedStreamTime`); they share the store and its record cache.
//!
//! A time window that one stream's aggregation still takes (its own stream time lags) but that
//! the store's retention passed reads as absent, as Kafka Streams' segmented store hides a window
//! older than its largest window start written minus the retention: the aggregate starts over.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};

use super::{Lower, Operator};
use crate::args::{
    arity, bound_name_arg, closure_arity, err_at, err_call, name_arg, serde_arg, window_spec,
};
use crate::build::{Builder, CogroupPart, Cogrouped, Flow, Grouped, Table};
use crate::codegen::emitter::Emitter;
use crate::codegen::parts::TaskParts;
use crate::ir::{AggOp, NodeKind, SerdeTy, Store, StoreOwner, Sub, WindowKind};
use crate::parse::Call;

pub(crate) const COGROUP: Operator = Operator {
    name: "cogroup",
    usage: "grouped.cogroup(|key, value, aggregate| ..), then .cogroup(other_grouped, |key, value, aggregate| ..)",
    lower: &[Lower::Grouped(start), Lower::Cogrouped(add)],
    on_stream: Some(
        "`{op}` needs a grouped stream: call group_by(|key, value| new_key, KeySerde, ValueSerde) or group_by_key() before cogroup(|key, value, aggregate| ..)",
    ),
    emit: &[],
};

/// The usage of a cogroup's `aggregate(..)`.
const AGGREGATE_USAGE: &str = "aggregate(\"store\", || initial, AggregateSerde)";
/// The usage of a session-windowed cogroup's `aggregate(..)`.
const SESSION_USAGE: &str =
    "aggregate(\"store\", || initial, |key, aggregate1, aggregate2| merged, AggregateSerde)";

/// The aggregator of a `cogroup(..)` call: a closure must take three parameters.
fn aggregator(call: &Call, i: usize, usage: &str) -> syn::Result<syn::Expr> {
    let Some(f) = call.arg(i) else {
        return Err(err_call(call, format!("missing the aggregator: {usage}")));
    };
    if let Some(n) = closure_arity(f)
        && n != 3
    {
        return Err(err_at(
            f,
            format!(
                "the aggregator of cogroup(..) takes the key, the value and the aggregate, and returns the new aggregate: `|key, value, aggregate| ..`, not {}",
                crate::args::parameters(n)
            ),
        ));
    }
    Ok(f.clone())
}

/// A grouped stream must be cogrouped without windows: the cogroup is windowed once, after.
fn unwindowed(g: &Grouped, call: &Call) -> syn::Result<()> {
    if g.window.is_some() {
        let mut e = err_call(
            call,
            "cogroup(..) takes grouped streams without windows: window the cogrouped streams once, after the last cogroup(..), with .windowed_by(..) before .aggregate(..)",
        );
        e.combine(err_at(&g.tokens, "grouped here"));
        return Err(e);
    }
    Ok(())
}

/// `grouped.cogroup(aggregator)`: the first stream of a cogroup.
fn start(_: &mut Builder, g: Grouped, call: &Call) -> syn::Result<Flow> {
    let usage = "cogroup(|key, value, aggregate| new_aggregate)";
    if call.args.len() == 2 {
        return Err(err_call(
            call,
            "a grouped stream starts a cogroup with its own aggregator only: `grouped.cogroup(|key, value, aggregate| ..)`; the other grouped streams follow, `.cogroup(other, |key, value, aggregate| ..)`",
        ));
    }
    arity(call, 1, usage)?;
    unwindowed(&g, call)?;
    let f = aggregator(call, 0, usage)?;
    Ok(Flow::Cogrouped(Cogrouped {
        parts: vec![CogroupPart {
            grouped: g,
            f,
            tokens: call.tokens.clone(),
        }],
        window: None,
    }))
}

/// `.cogroup(other, aggregator)`: one more grouped stream.
fn add(b: &mut Builder, mut c: Cogrouped, call: &Call) -> syn::Result<Flow> {
    let usage = "cogroup(other_grouped, |key, value, aggregate| new_aggregate), where `other_grouped` is bound by `let`, e.g. `let other = stream(..).group_by_key();`";
    if c.window.is_some() {
        return Err(err_at(
            &call.name,
            "the cogroup is windowed already: cogroup every grouped stream first, then call windowed_by(..) once",
        ));
    }
    arity(call, 2, usage)?;
    let name = bound_name_arg(call, 0, usage)?;
    let Some(g) = b.bound_grouped(
        name,
        "cogroup(..) adds a grouped stream: group it first, `let other = stream(..).group_by_key();`",
    )?
    else {
        return Ok(Flow::Broken);
    };
    unwindowed(&g, call)?;
    let f = aggregator(call, 1, usage)?;
    c.parts.push(CogroupPart {
        grouped: g,
        f,
        tokens: call.tokens.clone(),
    });
    Ok(Flow::Cogrouped(c))
}

/// `.windowed_by(window)` of cogrouped streams.
pub(crate) fn windowed_by(_: &mut Builder, c: Cogrouped, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, super::group::WINDOWED_BY.usage)?;
    if c.window.is_some() {
        return Err(err_at(
            call.name.to_token_stream(),
            "the cogroup is windowed already: call windowed_by(..) once",
        ));
    }
    let window = window_spec(&call.args[0])?;
    Ok(Flow::Cogrouped(Cogrouped {
        window: Some(window),
        ..c
    }))
}

/// The key serde of the cogroup's store: the first one known; two known built-in serdes of
/// different types are an error (rustc checks the others through the generated code).
fn key_serde(c: &Cogrouped) -> syn::Result<SerdeTy> {
    let known: Vec<(&CogroupPart, &SerdeTy)> = c
        .parts
        .iter()
        .filter_map(|p| p.grouped.key.as_ref().map(|k| (p, k)))
        .collect();
    let Some(&(first_part, first)) = known.first() else {
        return Err(err_at(
            &c.parts[0].grouped.tokens,
            "the cogroup's store keeps the keys of its streams, but no key serde is known here (an operator changed the keys): pass serdes, e.g. group_by_key(KeySerde, ValueSerde)",
        ));
    };
    for &(part, k) in &known[1..] {
        if let (Some(a), Some(o)) = (first.builtin_value(), k.builtin_value())
            && a != o
        {
            let mut e = err_at(
                &part.tokens,
                format!(
                    "cogrouped streams need one key type (they aggregate into one store), but this stream's keys are {o} (serde `{}`) and the first's are {a} (serde `{}`): give both the same key type first, e.g. with group_by(..) or select_key(..)",
                    k.text(),
                    first.text()
                ),
            );
            e.combine(err_at(
                &first_part.grouped.tokens,
                "the first stream is grouped here",
            ));
            return Err(e);
        }
    }
    Ok(first.clone())
}

/// `.aggregate("store", init, AggregateSerde)` (with a session merger before the serde after
/// `windowed_by(session(..))`): the cogroup's table.
pub(crate) fn aggregate(b: &mut Builder, c: Cogrouped, call: &Call) -> syn::Result<Flow> {
    let session = c.window.is_some_and(|w| w.kind == WindowKind::Session);
    let usage = if session {
        SESSION_USAGE
    } else {
        AGGREGATE_USAGE
    };
    if session && call.args.len() == 3 {
        return Err(err_call(
            call,
            format!(
                "a session-windowed cogroup merges sessions, so its aggregate(..) needs a merger of two aggregates: {SESSION_USAGE}"
            ),
        ));
    }
    if !session && call.args.len() == 4 {
        return Err(err_at(
            &call.args[2],
            format!(
                "a cogroup's aggregate(..) takes no aggregator (each cogroup(..) gave its own) and, without session windows, no merger: {AGGREGATE_USAGE}"
            ),
        ));
    }
    let (store_name, sspan) = name_arg(call, 0, usage)?;
    let serde_at = if session { 3 } else { 2 };
    arity(call, serde_at + 1, usage)?;
    let value_serde = serde_arg(call, serde_at, usage)?;
    let init = call.args[1].clone();
    let merger = session.then(|| Box::new(call.args[2].clone()));
    let key = key_serde(&c)?;
    // Kafka Streams names every cogrouped stream's repartition topic after the store: two
    // would be one topic, which it refuses ("Processor <store>-repartition-filter is already
    // added").
    let mut repartitioned = c.parts.iter().filter(|p| p.grouped.repartition);
    if let (Some(first), Some(second)) = (repartitioned.next(), repartitioned.next()) {
        let mut e = err_at(
            &second.tokens,
            format!(
                "only one cogrouped stream can be re-keyed by the cogroup: Kafka Streams names its repartition topic after the store (`{store_name}-repartition`), and fails with two (\"Processor {store_name}-repartition-filter is already added\"); repartition this stream before grouping it, e.g. `.select_key(|key, value| ..).repartition(\"name\", KeySerde, ValueSerde).group_by_key()`"
            ),
        );
        e.combine(err_at(
            &first.tokens,
            "this cogrouped stream is re-keyed too",
        ));
        return Err(e);
    }
    let mut upstreams = Vec::with_capacity(c.parts.len());
    for p in &c.parts {
        upstreams.push(super::aggregate::repartition(
            b,
            &p.grouped,
            &store_name,
            &key,
        )?);
        if p.grouped.repartition {
            // Kafka Streams' `createRepartitionedSource` takes three names: the sink's, the
            // null-key filter's (no node here) and the source's.
            b.reserve_index();
        }
    }
    let store = b.stores.len();
    let changelog = b.internal(&store_name, "changelog");
    b.stores.push(Store {
        window: c.window,
        ..Store::new(
            store_name,
            sspan,
            key,
            value_serde,
            changelog,
            StoreOwner::Aggregate,
        )
    });
    let mut aggs = Vec::with_capacity(c.parts.len());
    for (p, upstream) in c.parts.iter().zip(upstreams) {
        let span = p
            .tokens
            .clone()
            .into_iter()
            .next()
            .map_or(call.span, |t| t.span());
        let node = b.node(
            NodeKind::Aggregate {
                store,
                op: AggOp::Aggregate {
                    init: init.clone(),
                    f: p.f.clone(),
                    merger: merger.clone(),
                },
                cogrouped: true,
            },
            "COGROUPKSTREAM-AGGREGATE",
            span,
            &[upstream],
        );
        b.stores[store].users.push(node);
        aggs.push(node);
    }
    // The cogrouped streams are copartitioned (Kafka Streams' `ensureCopartitionWith`).
    for &other in &aggs[1..] {
        b.joins.push((aggs[0], other));
    }
    let node = b.node(
        NodeKind::Merge { keys: None },
        "COGROUPKSTREAM-MERGE",
        call.span,
        &aggs,
    );
    Ok(Flow::Table(Table { node, store }))
}

/// Whether `node` is a cogroup's merge node (the node of its table).
pub(crate) fn is_result(b: &Builder, node: usize) -> bool {
    matches!(b.nodes[node].kind, NodeKind::Merge { .. })
        && b.nodes[node].parents.iter().all(|&p| {
            matches!(
                b.nodes[p].kind,
                NodeKind::Aggregate {
                    cogrouped: true,
                    ..
                }
            )
        })
}

/// The error of a table operator other than `to_stream()` on a cogroup's table.
pub(crate) fn result_only_to_stream(call: &Call) -> syn::Error {
    err_at(
        &call.name,
        format!(
            "the table of a cogroup continues with to_stream() only here (`{}` is not supported on it yet): write `.to_stream()` and continue the stream",
            call.name
        ),
    )
}

/// The operators that continue aggregation `node`'s table: its children, or for a cogroup's
/// aggregation those of the cogroup's merge node (which only passes results on).
pub(crate) fn table_children<'m>(em: &Emitter<'m>, node: usize) -> &'m [usize] {
    let children = &em.m.nodes[node].children;
    match (&em.m.nodes[node].kind, children.as_slice()) {
        (
            NodeKind::Aggregate {
                cogrouped: true, ..
            },
            [merge],
        ) if matches!(em.m.nodes[*merge].kind, NodeKind::Merge { .. }) => {
            &em.m.nodes[*merge].children
        }
        _ => children,
    }
}

/// The record-cache field of aggregation `node`: a cogroup's aggregations share their first
/// one's (one store, one cache).
pub(crate) fn cache_field(em: &Emitter<'_>, node: usize) -> proc_macro2::Ident {
    if let NodeKind::Aggregate {
        store,
        cogrouped: true,
        ..
    } = em.m.nodes[node].kind
        && let Some(&first) = em.m.stores[store].users.first()
    {
        return Emitter::cache_field(first);
    }
    Emitter::cache_field(node)
}

/// The field of a cogroup's aggregation `node` that keeps its stream time.
fn observed_field(node: usize) -> proc_macro2::Ident {
    format_ident!("__observed_{}", node)
}

/// The stream time windowed aggregation `node` closes windows by: the task's, or a cogroup's
/// aggregation's own (the largest timestamp it saw, as Kafka Streams' processors each keep
/// `observedStreamTime`). Returns the statement that takes the record's timestamp into it
/// (empty for the task's) and the expression of the time.
pub(crate) fn stream_time(em: &Emitter<'_>, node: usize) -> (TokenStream, TokenStream) {
    match em.m.nodes[node].kind {
        NodeKind::Aggregate {
            cogrouped: true, ..
        } => {
            let f = observed_field(node);
            (
                quote! {
                    if __dk_record.timestamp > self.#f {
                        self.#f = __dk_record.timestamp;
                    }
                },
                quote!(self.#f),
            )
        }
        _ => (quote!(), quote!(self.__stream_time)),
    }
}

/// The field of time-windowed cogroup store `store` that keeps the largest window start
/// written (Kafka Streams' segmented store's `observedStreamTime`).
fn written_field(store: usize) -> proc_macro2::Ident {
    format_ident!("__written_{}", store)
}

/// For a cogroup's time-window aggregation `node`: the statement before its store update that
/// sets `__dk_hidden` (the window `__dk_start` is older than the store's largest window start
/// written minus the retention, so it reads as absent), and the one after that takes the window
/// start into that largest start. `None` for any other node.
pub(crate) fn expired_window(em: &Emitter<'_>, node: usize) -> Option<(TokenStream, TokenStream)> {
    let NodeKind::Aggregate {
        store,
        cogrouped: true,
        ..
    } = em.m.nodes[node].kind
    else {
        return None;
    };
    let w = em.m.stores[store]
        .window
        .filter(|w| w.kind == WindowKind::Time)?;
    let retention = w.retention();
    let f = written_field(store);
    Some((
        quote! {
            let __dk_hidden = __dk_start < self.#f.saturating_sub(#retention).saturating_add(1);
        },
        quote! {
            if __dk_start > self.#f {
                self.#f = __dk_start;
            }
        },
    ))
}

/// The stream time of each windowed cogroup aggregation of `sub`, and the largest window start
/// written to each time-windowed cogroup store: unknown (`i64::MIN`) when the task is made and
/// when it is cleared, as a Kafka Streams processor's starts over.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let fields: Vec<_> = sub
        .nodes
        .iter()
        .filter(|&&n| match em.m.nodes[n].kind {
            NodeKind::Aggregate {
                store,
                cogrouped: true,
                ..
            } => em.m.stores[store].window.is_some(),
            _ => false,
        })
        .map(|&n| observed_field(n))
        .collect();
    let mut written: Vec<_> = sub
        .stores
        .iter()
        .filter(|&&s| {
            em.m.stores[s]
                .window
                .is_some_and(|w| w.kind == WindowKind::Time)
                && em.m.stores[s].users.iter().any(|&u| {
                    matches!(
                        em.m.nodes[u].kind,
                        NodeKind::Aggregate {
                            cogrouped: true,
                            ..
                        }
                    )
                })
        })
        .map(|&s| written_field(s))
        .collect();
    written.dedup();
    let fields: Vec<_> = fields.into_iter().chain(written).collect();
    if fields.is_empty() {
        return TaskParts::default();
    }
    TaskParts {
        fields: quote!(#(#fields: i64,)*),
        inits: quote!(#(#fields: i64::MIN,)*),
        clear: quote!(#(self.#fields = i64::MIN;)*),
        ..TaskParts::default()
    }
}
