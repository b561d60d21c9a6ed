//! `with_caching_disabled()`: Kafka Streams' `Materialized.withCachingDisabled()` on the store
//! a table was just made with. Its updates then skip the record cache: every update of the
//! aggregation, or every record of the table read from a topic, is forwarded downstream as it
//! happens, whatever `cache_max_bytes` says. It applies right after the call that made the
//! store (`table(..)`, `count`/`reduce`/`aggregate`, `to_table(..)`), whose table is the
//! store's; a filter's or a join's table has no store of its own.

use super::{Lower, Operator};
use crate::args::{arity, err_at};
use crate::build::{Builder, Flow, Table};
use crate::ir::{NodeKind, TableNode};
use crate::parse::Call;

pub(crate) const WITH_CACHING_DISABLED: Operator = Operator {
    name: "with_caching_disabled",
    usage: "with_caching_disabled()",
    lower: &[Lower::Table(with_caching_disabled)],
    on_stream: Some(
        "a stream has no store to cache: with_caching_disabled() applies to the table of `table(..)`, `count`/`reduce`/`aggregate` or `to_table(..)`, right after it",
    ),
    emit: &[],
};

fn with_caching_disabled(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, WITH_CACHING_DISABLED.usage)?;
    if !owns_store(b, t) {
        return Err(err_at(
            &call.name,
            format!(
                "this table has no store of its own (it reads `{}` through the operators before it): write with_caching_disabled() right after the `table(..)`, `count`/`reduce`/`aggregate` or `to_table(..)` that made the store",
                b.stores[t.store].name
            ),
        ));
    }
    b.stores[t.store].cached = false;
    Ok(Flow::Table(t))
}

/// Whether table `t` is the one its store was made for (so a store option applies to it), not a
/// filter's, mapper's or join's reading it.
pub(crate) fn owns_store(b: &Builder, t: Table) -> bool {
    match &b.nodes[t.node].kind {
        NodeKind::TableSource { store, .. }
        | NodeKind::Aggregate { store, .. }
        | NodeKind::Table(TableNode::ToTable { store } | TableNode::Aggregate { store, .. }) => {
            *store == t.store
        }
        _ => false,
    }
}
