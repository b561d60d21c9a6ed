//! Re-grouping a table: `table.group_by(|key, value| (new_key, new_value), KeySerde,
//! ValueSerde)` (`KTABLE-SELECT-n`), then `count("store")`,
//! `reduce("store", adder, subtractor)` or `aggregate("store", init, adder, subtractor, Serde)`,
//! as Kafka Streams' `KGroupedTableImpl` builds them: the repartition topic
//! `<app>-<store>-repartition` (`KSTREAM-SINK-n`, `KSTREAM-SOURCE-n+1`), then
//! `KTABLE-AGGREGATE-n+2` or `KTABLE-REDUCE-n+2` with its store.
//!
//! As `KTableRepartitionMap`, an update whose old and new pairs share the new key goes as one
//! change (new and old value); otherwise the old value goes to its old key first (to be
//! subtracted), then the new value to the new key (to be added). The change travels through
//! the repartition topic in `ChangedSerializer`'s format ([`dekaf_streams::__private::Changed`]),
//! so a Kafka Streams peer reads it. The aggregation follows `KTableAggregate`/`KTableReduce`:
//! the subtractor on the old value (when the aggregate exists), then the adder on the new one;
//! counts at 0 stay.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Type};

use crate::args::{arity, err_at, expr_arg, name_arg, serde_arg};
use crate::build::{Builder, Flow, Grouped, Table};
use crate::codegen::emitter::{Acc, Emit, Emitter, dk};
use crate::ir::{NodeKind, SerdeTy, Store, StoreOwner};
use crate::parse::Call;

use super::changes::{changing, needs_old};
use crate::ir::TableNode;
pub(crate) use crate::ir::table::TableAgg;

/// How `group_by(..)` of a table is named in messages.
const HOW: &str = "group_by(..) of a table";

/// `table.group_by(|key, value| (new_key, new_value), KeySerde, ValueSerde)`.
pub(crate) fn group_by(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = "group_by(|key, value| (new_key, new_value), KeySerde, ValueSerde)";
    let f = expr_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    arity(call, 3, usage)?;
    changing(b, t, call)?;
    let node = b.node(
        NodeKind::Table(TableNode::Select { f }),
        "KTABLE-SELECT",
        call.span,
        &[t.node],
    );
    Ok(Flow::Grouped(Grouped {
        node,
        key: Some(key),
        value: Some(value),
        repartition: true,
        window: None,
        span: call.span,
        tokens: call.tokens.clone(),
        how: HOW,
    }))
}

/// The lowering of `name` on a grouped table, if `g` is one.
pub(crate) fn on_grouped_table(b: &Builder, g: &Grouped, name: &str) -> Option<syn::Result<()>> {
    if !matches!(
        b.nodes[g.node].kind,
        NodeKind::Table(TableNode::Select { .. })
    ) {
        return None;
    }
    Some(match name {
        "count" | "reduce" | "aggregate" => Ok(()),
        other => Err(err_at(
            &g.tokens,
            format!(
                "`{other}` does not apply to a re-grouped table: aggregate it with count(\"store\"), reduce(\"store\", adder, subtractor) or aggregate(\"store\", init, adder, subtractor, Serde)"
            ),
        )),
    })
}

/// `count`, `reduce` or `aggregate` of a re-grouped table.
pub(crate) fn aggregate(b: &mut Builder, g: Grouped, call: &Call) -> syn::Result<Flow> {
    let op = call.name.to_string();
    let usage = match op.as_str() {
        "count" => "count(\"store\")",
        "reduce" => {
            "reduce(\"store\", |aggregate, value| adder, |aggregate, old_value| subtractor)"
        }
        _ => {
            "aggregate(\"store\", || initial, |key, value, aggregate| adder, |key, old_value, aggregate| subtractor, AggregateSerde)"
        }
    };
    let (store_name, sspan) = name_arg(call, 0, usage)?;
    let missing_subtractor = match op.as_str() {
        "reduce" => call.args.len() == 2,
        "aggregate" => call.args.len() == 4,
        _ => false,
    };
    if missing_subtractor {
        return Err(err_at(
            &call.name,
            format!(
                "{op}(..) of a re-grouped table needs a subtractor as well as an adder: an update of the table removes the old value from its old group before adding the new one. Write {usage}"
            ),
        ));
    }
    let (key, value) = (g.key.clone(), g.value.clone());
    let (Some(key), Some(value)) = (key, value) else {
        return Err(err_at(
            &g.tokens,
            "group_by(..) of a table needs its serdes",
        ));
    };
    let (agg, agg_serde) = match op.as_str() {
        "count" => {
            arity(call, 1, usage)?;
            let ty: Type = syn::parse_quote_spanned!(sspan=> ::dekaf_streams::serdes::I64);
            (TableAgg::Count, SerdeTy { ty, span: sspan })
        }
        "reduce" => {
            arity(call, 3, usage)?;
            let (add, subtract) = (call.args[1].clone(), call.args[2].clone());
            (TableAgg::Reduce { add, subtract }, value.clone())
        }
        _ => {
            arity(call, 5, usage)?;
            let serde = serde_arg(call, 4, usage)?;
            let (init, add, subtract) = (
                call.args[1].clone(),
                call.args[2].clone(),
                call.args[3].clone(),
            );
            (
                TableAgg::Aggregate {
                    init,
                    add,
                    subtract,
                },
                serde,
            )
        }
    };
    let topic = b.internal(&store_name, "repartition");
    let vt = &value.ty;
    let changed: Type =
        syn::parse_quote_spanned!(value.span=> ::dekaf_streams::__private::Changed<#vt>);
    let changed = SerdeTy {
        ty: changed,
        span: value.span,
    };
    let sink = b.node(
        NodeKind::RepartitionSink {
            topic: topic.clone(),
            key: key.clone(),
            value: changed.clone(),
            partitioner: None,
        },
        "KSTREAM-SINK",
        g.span,
        &[g.node],
    );
    let source = b.node(
        NodeKind::RepartitionSource {
            topic,
            key: key.clone(),
            value: changed,
        },
        "KSTREAM-SOURCE",
        g.span,
        &[],
    );
    b.repartitions.push((sink, source));
    let store = b.stores.len();
    let changelog = b.internal(&store_name, "changelog");
    b.stores.push(Store::new(
        store_name,
        sspan,
        key,
        agg_serde,
        changelog,
        StoreOwner::Aggregate,
    ));
    let kind_name = if op == "reduce" {
        "KTABLE-REDUCE"
    } else {
        "KTABLE-AGGREGATE"
    };
    let node = b.node(
        NodeKind::Table(TableNode::Aggregate {
            store,
            op: Box::new(agg),
        }),
        kind_name,
        call.span,
        &[source],
    );
    b.stores[store].users.push(node);
    Ok(Flow::Table(Table { node, store }))
}

/// The code of a re-grouped table's nodes: the selection and the aggregation.
pub(crate) const EMIT: Emit = Emit {
    record,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    Some(match &em.m.nodes[node].kind {
        NodeKind::Table(TableNode::Select { f }) => emit_select(em, node, f, k, v),
        NodeKind::Table(TableNode::Aggregate { store, op }) => {
            emit_aggregate(em, node, *store, op, k, v)
        }
        _ => return None,
    })
}

/// `KTableRepartitionMap`: the old and new pairs of the update, forwarded to the repartition
/// sink as one change (same key) or two (old first).
fn emit_select(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let kr = k.r(sp);
    let vo = v.o(sp);
    let sel = |x: TokenStream| quote_spanned!(sp=> #dk::table_select(#kr, #x, #f));
    let (sel_new, sel_old) = (sel(quote!(__dk_x)), sel(quote!(__dk_x)));
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! {
        let __dk_ch = #vo;
        let __dk_newp = match __dk_ch.new { Some(__dk_x) => Some(#sel_new), None => None };
        let __dk_oldp = match __dk_ch.old { Some(__dk_x) => Some(#sel_old), None => None };
        match (__dk_oldp, __dk_newp) {
            (Some((__dk_ok, __dk_ov)), Some((__dk_nk, __dk_nv))) if #dk::same_key(&__dk_ok, &__dk_nk) => {
                let #nk = __dk_nk;
                let #nv = #dk::Change { new: Some(__dk_nv), old: Some(__dk_ov) };
                #children
            }
            (__dk_oldp, __dk_newp) => {
                if let Some((__dk_ok, __dk_ov)) = __dk_oldp {
                    let #nk = __dk_ok;
                    let #nv = #dk::Change { new: None, old: Some(__dk_ov) };
                    #children
                }
                if let Some((__dk_nk, __dk_nv)) = __dk_newp {
                    let #nk = __dk_nk;
                    let #nv = #dk::Change { new: Some(__dk_nv), old: None };
                    #children
                }
            }
        }
    }
}

/// The aggregation of the re-grouped changes read back from the repartition topic.
fn emit_aggregate(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    op: &TableAgg,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let st = &em.m.stores[store];
    let (kt, at) = (&st.key.ty, &st.value.ty);
    let field = Emitter::store_field(store);
    let changelog = &st.changelog;
    let nv = format_ident!("__v{}", node);
    let kr = k.r(sp);
    let vo = v.o(sp);
    let want_old = needs_old(em, node);
    let call = |want_old: bool| {
        let args = quote! {
            &mut self.#field, &self.__kbuf, &mut self.__vbuf, __dk_sink, #changelog,
            self.__partition, __dk_record.timestamp, #name, #want_old,
        };
        aggregate_call(&dk, sp, at, op, &args, &kr, &vo)
    };
    let (uncached, cached) = (call(want_old), call(false));
    let changed =
        crate::ops::table::changed_call(em, node, k, &Acc::owned(nv.clone()), quote!(__dk_record));
    let cache_on = crate::ops::table::cached_on(em, node, store);
    // The store and changelog at once; the change waits for the cache's flush.
    let cached = crate::ops::table::cached_update(
        em,
        node,
        store,
        quote!(let (_, __dk_ts) = #cached;),
        quote!(self.__vbuf.len()),
        quote!(__dk_ts),
    );
    quote! {
        let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
        if matches!(__dk_ke, #dk::Encoded::Present) {
            if #cache_on {
                #cached
            } else {
                // Stamped as `KTableAggregate`/`KTableReduce` stamp the result.
                let (#nv, __dk_ts) = #uncached;
                let __dk_arec = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
                let __dk_record = &__dk_arec;
                #changed
            }
        }
    }
}

/// The call of the runtime's `table_aggregate`/`table_reduce` for `op`, with `args` (the store,
/// buffers and whether old values are read) before the key and the change.
fn aggregate_call(
    dk: &TokenStream,
    sp: proc_macro2::Span,
    at: &syn::Type,
    op: &TableAgg,
    args: &TokenStream,
    kr: &TokenStream,
    vo: &TokenStream,
) -> TokenStream {
    match op {
        TableAgg::Count => quote_spanned! {sp=>
            #dk::table_aggregate::<_, _, #at, _, _, _, _, _>(
                #args #kr, #vo, || 0i64,
                |_, _, __dk_a: i64| i64::saturating_add(__dk_a, 1),
                |_, _, __dk_a: i64| i64::saturating_sub(__dk_a, 1),
            )?
        },
        TableAgg::Reduce { add, subtract } => quote_spanned! {sp=>
            #dk::table_reduce::<#at, _, _, _, _>(#args #vo, #add, #subtract)?
        },
        TableAgg::Aggregate {
            init,
            add,
            subtract,
        } => quote_spanned! {sp=>
            #dk::table_aggregate::<_, _, #at, _, _, _, _, _>(#args #kr, #vo, #init, #add, #subtract)?
        },
    }
}
