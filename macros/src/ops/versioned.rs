//! `versioned(D)`: the table just made (by `table(..)` or `to_table(..)`) keeps its values'
//! history for `D`, as Kafka Streams' `Materialized.as(Stores.persistentVersionedKeyValueStore(
//! name, D))` (KIP-889). A stream-table join then reads the table **as of the stream record's
//! timestamp** (KIP-914), and a record older than the key's latest one updates only the history:
//! it is not forwarded downstream. Versioned stores are never cached (Kafka Streams does not
//! cache them either), and their changelog keeps every version for the history retention plus a
//! day (`min.compaction.lag.ms`). The runtime side is `VersionHistory` and its functions in `dekaf_streams::__private`.

use super::{Lower, Operator};
use crate::args::{duration, err_at};
use crate::build::{Builder, Flow, Table};
use crate::ir::{FkRole, Model, NodeKind, TableNode};
use crate::parse::Call;

pub(crate) const VERSIONED: Operator = Operator {
    name: "versioned",
    usage: "versioned(Duration::from_secs(..)) right after table(..) or to_table(..): the history retention",
    lower: &[Lower::Table(versioned)],
    on_stream: Some(
        "a stream has no store to version: versioned(..) applies to the table of `table(..)` or `to_table(..)`, right after it",
    ),
    emit: &[],
};

fn versioned(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = VERSIONED.usage;
    let [arg] = call.args.iter().collect::<Vec<_>>()[..] else {
        return Err(err_at(
            &call.name,
            format!("versioned takes one duration, the history retention: {usage}"),
        ));
    };
    let retention = duration(arg)?;
    let own = match &b.nodes[t.node].kind {
        NodeKind::TableSource { store, .. } | NodeKind::Table(TableNode::ToTable { store }) => {
            *store == t.store
        }
        _ => false,
    };
    if !own {
        let store = &b.stores[t.store].name;
        let message = if super::caching::owns_store(b, t) {
            format!(
                "the aggregation's store `{store}` cannot be versioned: versioned(..) applies to a `table(..)` or `to_table(..)`; to keep the aggregate's history write .to_stream().to_table(\"store\").versioned(..)"
            )
        } else {
            format!(
                "this table reads `{store}` through the operators before it and has no store of its own: write versioned(..) right after the `table(..)` or `to_table(..)` that made `{store}`; filters and mappers of a versioned table pass its versions on"
            )
        };
        return Err(err_at(&call.name, message));
    }
    let store = &mut b.stores[t.store];
    if store.versioned.is_some() {
        return Err(err_at(
            &call.name,
            format!(
                "the store `{}` is versioned already: give versioned(..) once",
                store.name
            ),
        ));
    }
    if store.logging == crate::ir::Logging::Disabled {
        return Err(err_at(
            &call.name,
            format!(
                "the store `{}` has its logging disabled, and a versioned store rebuilds its history from its changelog: remove with_logging_disabled(), or versioned(..)",
                store.name
            ),
        ));
    }
    store.versioned = Some(retention);
    store.cached = false;
    Ok(Flow::Table(t))
}

/// Whether table node `node` forwards changes of a versioned table: it is one, or a filter or
/// mapper of one (which pass the changes on as they are, `isLatest` included).
fn versioned_upstream(m: &Model, node: usize) -> bool {
    let n = &m.nodes[node];
    match &n.kind {
        NodeKind::TableSource { store, .. } | NodeKind::Table(TableNode::ToTable { store }) => {
            m.stores[*store].versioned.is_some()
        }
        NodeKind::Table(TableNode::Filter { .. } | TableNode::MapValues { .. }) => {
            n.parents.first().is_some_and(|&p| versioned_upstream(m, p))
        }
        _ => false,
    }
}

/// Whether `node` drops the changes of a versioned table that are not the key's latest
/// (`Some`), and whether it counts them as dropped records: Kafka Streams' table-table joins
/// and foreign-key joins skip such a change and count it (`KTableKTableJoin`: "Skipping
/// out-of-order record from versioned table"), a re-grouping skips it silently
/// (`KTableRepartitionMap`). Other nodes pass it on.
pub(crate) fn out_of_order_gate(m: &Model, node: usize) -> Option<bool> {
    let n = &m.nodes[node];
    let counted = match &n.kind {
        NodeKind::Table(TableNode::Join(_)) => true,
        NodeKind::FkJoin(f) if matches!(f.role, FkRole::Send | FkRole::ForeignChange) => true,
        NodeKind::Table(TableNode::Select { .. }) => false,
        _ => return None,
    };
    n.parents
        .first()
        .is_some_and(|&p| versioned_upstream(m, p))
        .then_some(counted)
}
