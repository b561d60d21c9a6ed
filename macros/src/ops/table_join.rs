//! Table-table joins: `left.join(right, |l, r| ..)`, `left_join` (`|l, r: Option<&_>|`) and
//! `outer_join` (`|l: Option<&_>, r: Option<&_>|`) of two co-partitioned tables with equal key
//! types, as Kafka Streams' `KTableImpl#doJoin` builds them: `KTABLE-MERGE-n`, then
//! `KTABLE-JOINTHIS-n+1` (the left table's changes, looking the right side up) and
//! `KTABLE-JOINOTHER-n+2` (the right table's changes, looking the left side up), both feeding
//! the merge. The joiner takes references, as the value looked up serves the new and the old
//! result.
//!
//! Each side follows `KTableKTable{Inner,Left,Right,Outer}Join#process`: inner forwards only
//! when the other side has the key (a delete with a partner forwards a tombstone, without one
//! nothing); left forwards `joiner(left, None)` when the right side lacks the key, and the
//! right side's changes only where the left side has the key; outer forwards whenever either
//! side has a value; a change with no new and no old value and no partner is dropped. The
//! result carries the larger of the update's timestamp and the partner's stored one (the
//! update's when there is no partner), as `resultTimestamp` in those processors.
//!
//! The other side is read through a value getter ([`getter`]): the store of a table source or
//! `to_table` (a timestamped store: the value with the timestamp of its last update), with the
//! filters and mappers between it and the joined table applied on the fly
//! (`KTableFilterValueGetter`, `KTableMapValuesValueGetter`, which keep the timestamp), or a
//! joined table's two sides (the larger of both sides' timestamps, as
//! `KTableKTable*JoinValueGetter`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::args::{arity, bound_name_arg, err, err_at, joiner_with_key, takes_key};
use crate::build::{Builder, Flow, Table};
use crate::codegen::emitter::{Acc, Emit, Emitter, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

use super::changes::{changing, needs_old};
use crate::ir::TableNode;
pub(crate) use crate::ir::table::{JoinKind, JoinSide};

pub(crate) fn join(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower(b, t, call, JoinKind::Inner)
}

pub(crate) fn left_join(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower(b, t, call, JoinKind::Left)
}

pub(crate) fn outer_join(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower(b, t, call, JoinKind::Outer)
}

fn lower(b: &mut Builder, t: Table, call: &Call, kind: JoinKind) -> syn::Result<Flow> {
    let (op, usage) = match kind {
        JoinKind::Inner => ("join", "join(other_table, |value, other_value| joined)"),
        JoinKind::Left => (
            "left_join",
            "left_join(other_table, |value, other_value: Option<&_>| joined)",
        ),
        JoinKind::Outer => (
            "outer_join",
            "outer_join(other_table, |value: Option<&_>, other_value: Option<&_>| joined)",
        ),
    };
    arity(call, 2, usage)?;
    let name = bound_name_arg(
        call,
        0,
        &format!(
            "{op}(..) takes a table bound by `let`: `let t = table(..);` then `other.{op}(t, ..)`"
        ),
    )?;
    let Some(o) = b.bound_table(
        name,
        "a table joins tables only; make it one with .to_table(\"store\")",
    )?
    else {
        return Ok(Flow::Broken);
    };
    for x in [t, o] {
        if crate::ops::suppress_changes::reads_suppression(b, x.node) {
            return Err(err_at(&call.name, crate::ops::suppress_changes::NOT_JOINED));
        }
    }
    // An aggregation's table (without windows) is joined as it is: its results are changes
    // without old values.
    for x in [t, o] {
        if crate::ops::changes::plain_aggregation(b, x.node) {
            continue;
        }
        if matches!(b.nodes[x.node].kind, NodeKind::Aggregate { .. }) {
            return Err(err_at(
                &call.name,
                format!(
                    "a windowed aggregation's table cannot be joined with `{op}`: join the tables of aggregations without windows, or write `.to_stream()` and join the windowed results as a stream"
                ),
            ));
        }
        changing(b, x, call)?;
    }
    if crate::ops::fk_join::is_result(&b.nodes[o.node].kind) {
        return Err(crate::ops::fk_join::result_only_to_stream(call));
    }
    let (lk, rk) = (b.stores[t.store].key.clone(), b.stores[o.store].key.clone());
    if let (Some(a), Some(c)) = (lk.builtin_value(), rk.builtin_value())
        && a != c
    {
        let mut e = err_at(
            &call.name,
            format!(
                "this table's keys are {a} (serde `{}`) but table `{name}` has {c} keys (serde `{}`): a table-table {op} needs equal key types; re-key one side first (to_stream(), map(..), to_table(\"store\", KeySerde, ValueSerde))",
                lk.text(),
                rk.text()
            ),
        );
        e.combine(err(rk.span, "the other table's key serde"));
        return Err(e);
    }
    let f = call.args[1].clone();
    joiner_with_key(
        &f,
        &format!("{usage}, or with the key first: |key, value, other_value| joined"),
    )?;
    let side = |this: bool, other: usize| {
        NodeKind::Table(TableNode::Join(JoinSide {
            kind,
            this,
            f: f.clone(),
            other,
        }))
    };
    // Named as Kafka Streams names them: the merge first, then this side, then the other.
    let merge = b.node(
        NodeKind::Table(TableNode::JoinMerge),
        "KTABLE-MERGE",
        call.span,
        &[],
    );
    let this = b.node(side(true, o.node), "KTABLE-JOINTHIS", call.span, &[t.node]);
    let other = b.node(
        side(false, t.node),
        "KTABLE-JOINOTHER",
        call.span,
        &[o.node],
    );
    b.nodes[merge].parents = vec![this, other];
    b.nodes[this].children.push(merge);
    b.nodes[other].children.push(merge);
    // Keeps both sides in one subtopology and co-partitions their topics.
    b.joins.push((merge, o.node));
    Ok(Flow::Table(Table {
        node: merge,
        store: t.store,
    }))
}

/// The code of a table-table join's nodes, and the value getters of the tables with a store
/// (table sources, `to_table`, aggregations) and of a join's result.
pub(crate) const EMIT: Emit = Emit {
    record,
    getter,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::Table(TableNode::Join(side)) => Some(emit_side(em, node, side, k, v)),
        NodeKind::Table(TableNode::JoinMerge) => Some(em.children(node, k, v)),
        _ => None,
    }
}

/// An expression: the current value of table `node` for key `k` with its timestamp
/// (`Option<(V, i64)>`, Kafka Streams' `ValueAndTimestamp`), for a table with a store or a
/// join's result.
fn getter(em: &Emitter<'_>, node: usize, k: &Acc) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let store = match &n.kind {
        NodeKind::TableSource { store, .. }
        | NodeKind::Aggregate { store, .. }
        | NodeKind::Table(TableNode::ToTable { store } | TableNode::Aggregate { store, .. }) => {
            Some(*store)
        }
        _ => None,
    };
    if let Some(store) = store {
        let st = &em.m.stores[store];
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let field = Emitter::store_field(store);
        let kr = k.r(st.key.span);
        let get = if em.m.timestamped(store) {
            quote!(#dk::get_timestamped::<#vt, _>(&self.#field, &self.__kbuf, #name)?)
        } else {
            // An aggregation's store keeps no timestamp: Kafka Streams' UNKNOWN (-1).
            quote!(#dk::store_get::<#vt, _>(&self.#field, &self.__kbuf, #name)?.map(|__dk_x| (__dk_x, -1i64)))
        };
        return Some(quote! {
            match #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)? {
                #dk::Encoded::Present => #get,
                #dk::Encoded::Null => None,
            }
        });
    }
    let parents = &n.parents;
    Some(match &n.kind {
        NodeKind::Table(TableNode::JoinMerge) => {
            let this = &em.m.nodes[parents[0]];
            let NodeKind::Table(TableNode::Join(side)) = &this.kind else {
                return Some(quote!(None));
            };
            let left = em.getter(this.parents[0], k);
            let right = em.getter(side.other, k);
            let f = &side.f;
            let (join, left_join, outer_join) = helpers(f);
            let ka = key_arg(f, k.r(this.span));
            match side.kind {
                JoinKind::Inner => quote! {
                    match (#left, #right) {
                        (Some((__dk_l, __dk_lt)), Some((__dk_r, __dk_rt))) => Some((
                            #dk::#join(#ka &__dk_l, &__dk_r, #f),
                            ::core::cmp::max(__dk_lt, __dk_rt),
                        )),
                        _ => None,
                    }
                },
                JoinKind::Left => quote! {
                    match (#left, #right) {
                        (Some((__dk_l, __dk_lt)), __dk_r) => {
                            let __dk_t = match &__dk_r { Some((_, __dk_rt)) => ::core::cmp::max(__dk_lt, *__dk_rt), None => __dk_lt };
                            Some((#dk::#left_join(#ka &__dk_l, __dk_r.as_ref().map(|(__dk_x, _)| __dk_x), #f), __dk_t))
                        }
                        _ => None,
                    }
                },
                JoinKind::Outer => quote! {
                    match (#left, #right) {
                        (None, None) => None,
                        (__dk_l, __dk_r) => {
                            // Kafka Streams' UNKNOWN (-1) for a missing side.
                            let __dk_t = ::core::cmp::max(
                                __dk_l.as_ref().map_or(-1, |(_, __dk_t)| *__dk_t),
                                __dk_r.as_ref().map_or(-1, |(_, __dk_t)| *__dk_t),
                            );
                            Some((#dk::#outer_join(#ka
                                __dk_l.as_ref().map(|(__dk_x, _)| __dk_x),
                                __dk_r.as_ref().map(|(__dk_x, _)| __dk_x),
                                #f,
                            ), __dk_t))
                        }
                    }
                },
            }
        }
        _ => return None,
    })
}

/// One side of the join: the change of its table against the other side's current value.
fn emit_side(em: &Emitter<'_>, node: usize, side: &JoinSide, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let sp = n.span;
    let nv = format_ident!("__v{}", node);
    let vo = v.o(sp);
    let other = em.getter(side.other, k);
    let f = &side.f;
    let (join, left_join, outer_join) = helpers(f);
    let ka = key_arg(f, k.r(sp));
    let old = needs_old(em, node);
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    // Forwarded stamped with the result's timestamp (`__dk_ts`).
    let children = quote! {
        let __dk_jrec = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
        let __dk_record = &__dk_jrec;
        #children
    };
    // The other side's value, `None` when absent, and the result's timestamp: the larger of
    // the update's and the other side's (the update's when it has none).
    let other_opt = quote! {
        let (__dk_o, __dk_ts) = match #other {
            Some((__dk_o, __dk_ot)) => (Some(__dk_o), ::core::cmp::max(__dk_record.timestamp, __dk_ot)),
            None => (None, __dk_record.timestamp),
        };
    };
    let other_some = quote! {
        if let Some((__dk_o, __dk_ot)) = #other
    };
    // `x`: this side's value (a reference), `o`: the other side's; the joiner's argument
    // order is the tables' (left, right), whichever side this is.
    let pair = |x: TokenStream, o: TokenStream| if side.this { (x, o) } else { (o, x) };
    let body = match side.kind {
        JoinKind::Inner => {
            let (a, b) = pair(quote!(__dk_x), quote!(&__dk_o));
            let j = quote_spanned!(sp=> #dk::#join(#ka #a, #b, #f));
            let old_v = if old {
                quote!(match &__dk_ch.old { Some(__dk_x) => Some(#j), None => None })
            } else {
                quote!(None)
            };
            quote! {
                #other_some {
                    let __dk_ts = ::core::cmp::max(__dk_record.timestamp, __dk_ot);
                    let #nv = #dk::Change {
                        new: match &__dk_ch.new { Some(__dk_x) => Some(#j), None => None },
                        old: #old_v,
                    };
                    #children
                }
            }
        }
        JoinKind::Left if side.this => {
            let j = quote_spanned!(sp=> #dk::#left_join(#ka __dk_x, __dk_o.as_ref(), #f));
            let old_v = if old {
                quote!(match &__dk_ch.old { Some(__dk_x) => Some(#j), None => None })
            } else {
                quote!(None)
            };
            quote! {
                #other_opt
                if __dk_o.is_some() || !__dk_ch.is_empty() {
                    let #nv = #dk::Change {
                        new: match &__dk_ch.new { Some(__dk_x) => Some(#j), None => None },
                        old: #old_v,
                    };
                    #children
                }
            }
        }
        JoinKind::Left => {
            // The right side's change: results exist only where the left side has the key.
            let jn = quote_spanned!(sp=> #dk::#left_join(#ka &__dk_o, __dk_ch.new.as_ref(), #f));
            let jo = quote_spanned!(sp=> #dk::#left_join(#ka &__dk_o, __dk_ch.old.as_ref(), #f));
            let old_v = if old { quote!(Some(#jo)) } else { quote!(None) };
            quote! {
                #other_some {
                    let __dk_ts = ::core::cmp::max(__dk_record.timestamp, __dk_ot);
                    let #nv = #dk::Change { new: Some(#jn), old: #old_v };
                    #children
                }
            }
        }
        JoinKind::Outer => {
            let (an, bn) = pair(quote!(__dk_ch.new.as_ref()), quote!(__dk_o.as_ref()));
            let (ao, bo) = pair(quote!(__dk_ch.old.as_ref()), quote!(__dk_o.as_ref()));
            let jn = quote_spanned!(sp=> #dk::#outer_join(#ka #an, #bn, #f));
            let jo = quote_spanned!(sp=> #dk::#outer_join(#ka #ao, #bo, #f));
            let old_v = if old {
                quote!(if __dk_o.is_some() || __dk_ch.old.is_some() { Some(#jo) } else { None })
            } else {
                quote!(None)
            };
            quote! {
                #other_opt
                if __dk_o.is_some() || !__dk_ch.is_empty() {
                    let #nv = #dk::Change {
                        new: if __dk_o.is_some() || __dk_ch.new.is_some() { Some(#jn) } else { None },
                        old: #old_v,
                    };
                    #children
                }
            }
        }
    };
    // An aggregation's table forwards its results: each is a new value, without an old one.
    let parent = &em.m.nodes[n.parents[0]].kind;
    let change = if super::changes::forwards_changes(parent) {
        quote!(#vo)
    } else {
        quote!(#dk::Change { new: ::core::option::Option::Some(#vo), old: ::core::option::Option::None })
    };
    quote! {
        let __dk_ch = #change;
        #body
    }
}

/// The runtime's join, left join and outer join helpers for joiner `f`: the `_with_key` ones
/// for a joiner that takes the key first.
fn helpers(f: &syn::Expr) -> (syn::Ident, syn::Ident, syn::Ident) {
    let suffix = if takes_key(f) { "_with_key" } else { "" };
    (
        format_ident!("table_join{}", suffix),
        format_ident!("table_left_join{}", suffix),
        format_ident!("table_outer_join{}", suffix),
    )
}

/// The key argument (`k`, a reference) of a joiner that takes it, else nothing.
fn key_arg(f: &syn::Expr, k: TokenStream) -> TokenStream {
    if takes_key(f) { quote!(#k,) } else { quote!() }
}

/// The stores a table operator's node reads or writes, for `describe()`: a join side names
/// the stores of the other side's value getter, as Kafka Streams does.
pub(crate) fn node_stores(m: &crate::ir::Model, node: usize, t: &TableNode) -> Vec<usize> {
    match t {
        TableNode::ToTable { store } | TableNode::Aggregate { store, .. } => vec![*store],
        TableNode::Suppress { buffer, .. } => vec![*buffer],
        TableNode::Join(side) => {
            let mut out = Vec::new();
            getter_stores(m, side.other, &mut out);
            out
        }
        _ => {
            let _ = node;
            Vec::new()
        }
    }
}

fn getter_stores(m: &crate::ir::Model, node: usize, out: &mut Vec<usize>) {
    let n = &m.nodes[node];
    match &n.kind {
        NodeKind::TableSource { store, .. }
        | NodeKind::Aggregate { store, .. }
        | NodeKind::Table(TableNode::ToTable { store } | TableNode::Aggregate { store, .. }) => {
            out.push(*store)
        }
        NodeKind::Table(TableNode::JoinMerge) => {
            let this = &m.nodes[n.parents[0]];
            getter_stores(m, this.parents[0], out);
            if let NodeKind::Table(TableNode::Join(side)) = &this.kind {
                getter_stores(m, side.other, out);
            }
        }
        _ => {
            for &p in &n.parents {
                getter_stores(m, p, out);
            }
        }
    }
}
