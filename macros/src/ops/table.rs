//! Table operations, with Kafka Streams' `KTable` semantics: `filter`/`filter_not`
//! (`KTABLE-FILTER-n`), `map_values` (`KTABLE-MAPVALUES-n`), `to_stream()` forwarding deletes as
//! tombstones, and `to_table("store")` on a stream (`KSTREAM-TOTABLE-n`).
//!
//! Between table operators a record is a change ([`dekaf_streams::__private::Change`]): the
//! key's new value and its old one. Tables are materialized where they start (`table(..)` and
//! `to_table(..)` keep a store), so, as Kafka Streams does for a materialized parent
//! (`KTableFilter`'s constructor asks `parent.enableSendingOldValues(false)`), old values are
//! sent: a filter maps both values and drops the change when both come out absent, so a
//! filtered-out key forwards a tombstone only if it had been forwarded. `filter` and
//! `map_values` are not materialized (as in Kafka Streams without `Materialized`): a join
//! reads them through their parent's store ([`super::table_join`]'s value getters).
//!
//! The tables of aggregations (`count`, `reduce`, `aggregate`) forward plain results (with the
//! record cache), not changes: table operations on them are refused with the way around.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Type};

use crate::args::{arity, closure_arity, err_at, expr_arg, name_arg, serde_arg};
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{NodeKind, SerdeTy, Store, StoreOwner};
use crate::parse::Call;

use super::table_join::JoinKind;
use super::{Lower, Operator};

/// A table operator's node.
#[derive(Clone)]
pub enum TableNode {
    /// `filter`/`filter_not` on a table.
    Filter { f: Expr, negate: bool },
    /// `map_values` on a table (`with_key`: the closure takes the key too).
    MapValues { f: Expr, with_key: bool },
    /// `to_table("store")` on a stream: the store is written, changes forwarded.
    ToTable { store: usize },
    /// One side of a table-table join (see [`super::table_join`]).
    Join(super::table_join::JoinSide),
    /// The merge of a table-table join's two sides (`KTABLE-MERGE-n`).
    JoinMerge,
    /// `group_by` of a table (`KTABLE-SELECT-n`, see [`super::table_group`]).
    Select { f: Expr },
    /// The aggregation of a re-grouped table (`KTABLE-AGGREGATE-n`, `KTABLE-REDUCE-n`).
    Aggregate {
        store: usize,
        op: Box<super::table_group::TableAgg>,
    },
}

pub const TO_TABLE: Operator = Operator {
    name: "to_table",
    usage: "to_table(\"store\") or to_table(\"store\", KeySerde, ValueSerde)",
    lower: Lower::Stream(to_table),
    on_stream: None,
};

/// How an operator of a table becomes nodes.
pub type LowerTable = fn(&mut Builder, Table, &Call) -> syn::Result<Flow>;

/// The lowering of `name` called on a table, for the operators a table shares by name with
/// streams (`filter`, `map_values`, `join`, ..), which the registry lists as stream operators.
pub fn on_table(name: &str) -> Option<LowerTable> {
    Some(match name {
        "filter" => filter,
        "filter_not" => filter_not,
        "map_values" => map_values,
        "join" => super::table_join::join,
        "left_join" => super::table_join::left_join,
        "outer_join" => super::table_join::outer_join,
        "group_by" => super::table_group::group_by,
        _ => return None,
    })
}

/// The table operators that [`on_table`] dispatches, for the "unknown operator" message.
pub const ON_TABLE: &[&str] = &[
    "filter",
    "filter_not",
    "map_values",
    "join",
    "left_join",
    "outer_join",
    "group_by",
];

/// Whether the records `node` forwards are changes (rather than an aggregation's results).
pub fn forwards_changes(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::TableSource { .. } | NodeKind::Table(_))
        || super::fk_join::is_result(kind)
}

/// Refuses a table operation on a table that does not forward changes.
pub fn changing(b: &Builder, t: Table, call: &Call) -> syn::Result<()> {
    if forwards_changes(&b.nodes[t.node].kind) {
        return Ok(());
    }
    Err(err_at(
        &call.name,
        format!(
            "`{}` on an aggregation's table is not supported: its updates are forwarded as results, not as changes; write `.to_stream().to_table(\"store\")` first, then `{}(..)`",
            call.name, call.name
        ),
    ))
}

/// `Nullable<S>`: the serde of the `Option` values of a table's stream.
pub fn nullable(s: SerdeTy) -> SerdeTy {
    let inner = &s.ty;
    let ty: Type = syn::parse_quote_spanned!(s.span=> ::dekaf_streams::serdes::Nullable<#inner>);
    SerdeTy { ty, span: s.span }
}

/// The value serde of a table, where known (`map_values` and joins make values without one).
pub fn value_serde(b: &Builder, node: usize) -> Option<SerdeTy> {
    match &b.nodes[node].kind {
        NodeKind::TableSource { value, .. } => Some(value.clone()),
        NodeKind::Aggregate { store, .. } => Some(b.stores[*store].value.clone()),
        NodeKind::Table(TableNode::ToTable { store } | TableNode::Aggregate { store, .. }) => {
            Some(b.stores[*store].value.clone())
        }
        NodeKind::Table(TableNode::Filter { .. }) => value_serde(b, b.nodes[node].parents[0]),
        _ => None,
    }
}

fn filter(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower_filter(b, t, call, false)
}

fn filter_not(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower_filter(b, t, call, true)
}

fn lower_filter(b: &mut Builder, t: Table, call: &Call, negate: bool) -> syn::Result<Flow> {
    let usage = if negate {
        "filter_not(|key, value| bool)"
    } else {
        "filter(|key, value| bool)"
    };
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    changing(b, t, call)?;
    let node = b.node(
        NodeKind::Table(TableNode::Filter { f, negate }),
        "KTABLE-FILTER",
        call.span,
        &[t.node],
    );
    Ok(Flow::Table(Table { node, ..t }))
}

fn map_values(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = "map_values(|value| new_value) or map_values(|key, value| new_value)";
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    changing(b, t, call)?;
    let with_key = closure_arity(&f) == Some(2);
    let node = b.node(
        NodeKind::Table(TableNode::MapValues { f, with_key }),
        "KTABLE-MAPVALUES",
        call.span,
        &[t.node],
    );
    Ok(Flow::Table(Table { node, ..t }))
}

fn to_table(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = TO_TABLE.usage;
    let (name, span) = name_arg(call, 0, usage)?;
    let (key, value) = match call.args.len() {
        1 => {
            let (Some(k), Some(v)) = (s.key.clone(), s.value.clone()) else {
                return Err(err_at(
                    &call.name,
                    format!(
                        "the stream's key or value serde is not known here (an operator changed them), and the table's store needs both: write to_table(\"{name}\", KeySerde, ValueSerde)"
                    ),
                ));
            };
            (k, v)
        }
        3 => {
            let (k, v) = (serde_arg(call, 1, usage)?, serde_arg(call, 2, usage)?);
            b.check_key_serde(&s, &k);
            b.check_value_serde(&s, &v);
            (k, v)
        }
        _ => {
            return Err(err_at(
                &call.name,
                format!("wrong number of arguments: {usage}"),
            ));
        }
    };
    if s.window.is_some() {
        return Err(err_at(
            &call.name,
            "to_table(..) keeps one value per key, but this stream's keys are windowed: map them to plain keys first",
        ));
    }
    if s.key_changed {
        // Kafka Streams' toTable repartitions by itself here; the topology asks for it, so the
        // repartition topic has a name of the user's choosing.
        return Err(err_at(
            &call.name,
            format!(
                "the key changed upstream (map, select_key, flat_map), so the stream is not partitioned by its key: repartition it first with .repartition(\"name\", KeySerde, ValueSerde), then to_table(\"{name}\")"
            ),
        ));
    }
    let store = b.stores.len();
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store {
        name,
        span,
        key,
        value,
        window: None,
        changelog,
        logged: true,
        owner: StoreOwner::Aggregate,
        sub: 0,
        users: Vec::new(),
    });
    let node = b.node(
        NodeKind::Table(TableNode::ToTable { store }),
        "KSTREAM-TOTABLE",
        call.span,
        &[s.node],
    );
    b.stores[store].users.push(node);
    Ok(Flow::Table(Table { node, store }))
}

/// Whether a change reaching `node` must carry its old value: a filter needs it to know what
/// it forwarded, a re-grouping to subtract it; `to_stream()` forwards only new values.
pub fn needs_old(em: &Emitter<'_>, node: usize) -> bool {
    em.m.nodes[node]
        .children
        .iter()
        .any(|&c| match &em.m.nodes[c].kind {
            NodeKind::ToStream => false,
            NodeKind::Table(TableNode::Filter { .. } | TableNode::Select { .. }) => true,
            // Kafka Streams' doJoin enables old values of the left table of a left join, and of
            // both tables of an outer join: a delete without a partner must still be forwarded.
            NodeKind::Table(TableNode::Join(side)) => {
                side.kind == JoinKind::Outer
                    || (side.kind == JoinKind::Left && side.this)
                    || needs_old(em, c)
            }
            NodeKind::Table(_) => needs_old(em, c),
            _ => true,
        })
}

/// The value type of the store behind a table source or `to_table`.
fn store_types(em: &Emitter<'_>, store: usize) -> (Type, Type) {
    let st = &em.m.stores[store];
    (st.key.ty.clone(), st.value.ty.clone())
}

/// A table source: the record is applied to the store (a null value deletes the key) and
/// forwarded as a change, its old value read first where downstream needs it. As Kafka
/// Streams' `KTableSource`, a delete of an absent key is forwarded too.
pub fn emit_source(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::TableSource {
        store,
        key,
        value,
        topic,
        ..
    } = &n.kind
    else {
        return quote!();
    };
    let (kt, vt) = (&key.ty, &value.ty);
    let field = Emitter::store_field(*store);
    let (k, v) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    if n.children.is_empty() {
        return quote! {
            // A table record without a key cannot be stored: Kafka Streams drops it too.
            let __dk_kb = match __dk_record.key {
                Some(b) => b,
                None => {
                    self.__dropped += 1;
                    return Ok(());
                }
            };
            let _ = #dk::de_key_at::<#kt>(#topic, Some(__dk_kb), #name)?;
            if let Some(__dk_vb) = __dk_record.value {
                let _ = #dk::de_value_at::<#vt>(#topic, Some(__dk_vb), #name)?;
            }
            #dk::source_put(&mut self.#field, __dk_kb, __dk_record.value, __dk_record.timestamp, &mut self.__vbuf, #name)?;
        };
    }
    let old = if needs_old(em, node) {
        quote!(#dk::get_timestamped::<#vt, _>(&self.#field, __dk_kb, #name)?.map(|(__dk_x, _)| __dk_x))
    } else {
        quote!(None)
    };
    let children = em.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
    quote! {
        let __dk_kb = match __dk_record.key {
                Some(b) => b,
                None => {
                    self.__dropped += 1;
                    return Ok(());
                }
            };
        let #k = #dk::de_key_at::<#kt>(#topic, Some(__dk_kb), #name)?;
        let __dk_old: Option<<#vt as #dk::Serde>::Value> = #old;
        let __dk_new = match __dk_record.value {
            None => None,
            Some(__dk_vb) => Some(#dk::de_value_at::<#vt>(#topic, Some(__dk_vb), #name)?),
        };
        // Stored with the record's timestamp, as Kafka Streams' timestamped store keeps it.
        #dk::source_put(&mut self.#field, __dk_kb, __dk_record.value, __dk_record.timestamp, &mut self.__vbuf, #name)?;
        let #v = #dk::Change { new: __dk_new, old: __dk_old };
        #children
    }
}

/// `to_stream()`: an aggregation's results pass as they are; a change forwards its new value,
/// `None` for a delete (the stream's values are `Option`s, written as tombstones by a
/// `Nullable` serde).
pub fn emit_to_stream(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> TokenStream {
    let parent = em.m.nodes[node].parents[0];
    if !forwards_changes(&em.m.nodes[parent].kind) {
        return em.children(node, k, v);
    }
    let sp = em.m.nodes[node].span;
    let nv = format_ident!("__v{}", node);
    let vo = v.o(sp);
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    quote! { let #nv = (#vo).new; #children }
}

/// The code of a table operator's node.
pub fn emit(em: &Emitter<'_>, node: usize, t: &TableNode, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let nv = format_ident!("__v{}", node);
    let out = Acc::owned(nv.clone());
    match t {
        TableNode::Filter { f, negate } => {
            let kr = k.r(sp);
            let vo = v.o(sp);
            let keep = |x: TokenStream| {
                let call = quote_spanned!(sp=> #dk::filter(#kr, &#x, #f));
                if *negate { quote!(!#call) } else { call }
            };
            let (keep_new, keep_old) = (keep(quote!(__dk_x)), keep(quote!(__dk_x)));
            let children = em.children(node, k, &out);
            quote! {
                let __dk_ch = #vo;
                let #nv = #dk::Change {
                    new: match __dk_ch.new { Some(__dk_x) if #keep_new => Some(__dk_x), _ => None },
                    old: match __dk_ch.old { Some(__dk_x) if #keep_old => Some(__dk_x), _ => None },
                };
                // Nothing forwarded before and nothing now: Kafka Streams forwards nothing.
                if !#nv.is_empty() { #children }
            }
        }
        TableNode::MapValues { f, with_key } => {
            let kr = k.r(sp);
            let vo = v.o(sp);
            let map = |x: TokenStream| {
                if *with_key {
                    quote_spanned!(sp=> #dk::map_values_with_key(#kr, #x, #f))
                } else {
                    quote_spanned!(sp=> #dk::map_values(#x, #f))
                }
            };
            let new = map(quote!(__dk_x));
            let old = if needs_old(em, node) {
                let m = map(quote!(__dk_x));
                quote!(match __dk_ch.old { Some(__dk_x) => Some(#m), None => None })
            } else {
                quote!(None)
            };
            let children = em.children(node, k, &out);
            quote! {
                let __dk_ch = #vo;
                let #nv = #dk::Change {
                    new: match __dk_ch.new { Some(__dk_x) => Some(#new), None => None },
                    old: #old,
                };
                #children
            }
        }
        TableNode::ToTable { store } => {
            let (kt, vt) = store_types(em, *store);
            let st = &em.m.stores[*store];
            let changelog = &st.changelog;
            let field = Emitter::store_field(*store);
            let kr = k.r(st.key.span);
            let vo = v.o(st.value.span);
            let want_old = needs_old(em, node);
            let children = em.children(node, k, &out);
            quote! {
                // Records whose key serializes to null are dropped, as Kafka Streams does.
                let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
                if matches!(__dk_ke, #dk::Encoded::Present) {
                    let #nv = #dk::table_put::<#vt, _, _>(
                        &mut self.#field, &self.__kbuf, #vo, #want_old, &mut self.__vbuf, __dk_sink,
                        #changelog, self.__partition, __dk_record.timestamp, #name,
                    )?;
                    #children
                } else {
                    self.__dropped += 1;
                }
            }
        }
        TableNode::Join(side) => super::table_join::emit_side(em, node, side, k, v),
        TableNode::JoinMerge => em.children(node, k, v),
        TableNode::Select { f } => super::table_group::emit_select(em, node, f, k, v),
        TableNode::Aggregate { store, op } => {
            super::table_group::emit_aggregate(em, node, *store, op, k, v)
        }
    }
}
