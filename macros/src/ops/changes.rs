//! The records between table operators: changes ([`dekaf_streams::__private::Change`]), a
//! key's new value and its old one, forwarded by the tables that start from a topic or a stream
//! (`table(..)`, `to_table(..)`), their filters, mappers and joins, and a foreign-key join's
//! result; not by an aggregation's table, which forwards results. What the table operators
//! share: which nodes forward changes, which need old values, the serdes of a table's stream.

use syn::Type;

use crate::args::err_at;
use crate::build::{Builder, Table};
use crate::codegen::emitter::Emitter;
use crate::ir::table::JoinKind;
use crate::ir::{FkRole, NodeKind, SerdeTy, TableNode};
use crate::parse::Call;

/// Whether `kind` is a foreign-key join's result, which supports `to_stream()` only.
pub(crate) fn is_result(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::FkJoin(f) if f.role == FkRole::Output)
}

/// Whether the records `node` forwards are changes (rather than an aggregation's results).
pub(crate) fn forwards_changes(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::TableSource { .. } | NodeKind::Table(_)) || is_result(kind)
}

/// Whether `node` is an aggregation of a stream without windows, whose table a table-table
/// join takes as it is: each result is a new value (a change without an old one; an
/// aggregation never deletes).
pub(crate) fn plain_aggregation(b: &Builder, node: usize) -> bool {
    matches!(&b.nodes[node].kind, NodeKind::Aggregate { store, .. } if b.stores[*store].window.is_none())
}

/// Whether `node` is a table-table join of which a side is an aggregation's table: its changes
/// have no old values, so only `to_stream()` continues it.
fn joins_aggregation(b: &Builder, node: usize) -> bool {
    matches!(b.nodes[node].kind, NodeKind::Table(TableNode::JoinMerge))
        && b.nodes[node].parents.iter().any(|&side| {
            b.nodes[side]
                .parents
                .first()
                .is_some_and(|&p| plain_aggregation(b, p))
        })
}

/// Refuses a table operation on a table that does not forward changes.
pub(crate) fn changing(b: &Builder, t: Table, call: &Call) -> syn::Result<()> {
    if joins_aggregation(b, t.node) {
        return Err(err_at(
            &call.name,
            format!(
                "`{}` on a join of an aggregation's table is not supported: the aggregation forwards its results without old values, so the join's changes have none; continue it with `.to_stream()`, or write `.to_stream().to_table(\"store\")` first, then `{}(..)`",
                call.name, call.name
            ),
        ));
    }
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
pub(crate) fn nullable(s: SerdeTy) -> SerdeTy {
    let inner = &s.ty;
    let ty: Type = syn::parse_quote_spanned!(s.span=> ::dekaf_streams::serdes::Nullable<#inner>);
    SerdeTy { ty, span: s.span }
}

/// The value serde of a table, where known (`map_values` and joins make values without one).
pub(crate) fn value_serde(b: &Builder, node: usize) -> Option<SerdeTy> {
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

/// Whether a change reaching `node` must carry its old value: a filter needs it to know what
/// it forwarded, a re-grouping to subtract it; `to_stream()` forwards only new values.
pub(crate) fn needs_old(em: &Emitter<'_>, node: usize) -> bool {
    em.m.nodes[node]
        .children
        .iter()
        .any(|&c| match &em.m.nodes[c].kind {
            NodeKind::ToStream => false,
            // Kafka Streams' suppression asks for old values (`enableSendingOldValues(true)`).
            NodeKind::Table(
                TableNode::Filter { .. } | TableNode::Select { .. } | TableNode::Suppress { .. },
            ) => true,
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
