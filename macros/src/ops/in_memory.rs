//! `in_memory()`: Kafka Streams' `Materialized.as(Stores.inMemoryKeyValueStore(..))` (or
//! `inMemoryWindowStore`, `inMemorySessionStore`) on the store a table was just made with. The
//! store stays in memory even when the application keeps its stores on disk (`state_dir(..)`,
//! LMDB): it is restored from its changelog's start whenever its task starts, while the task's
//! other stores keep their contents on disk. Without a state directory every store is in memory
//! anyway. It applies right after the call that made the store (`table(..)`,
//! `count`/`reduce`/`aggregate`, `to_table(..)`), or to a store declared for `process(..)`
//! (`store(..).in_memory()`, `window_store(..)`, `session_store(..)`: their reads keep the
//! order of Kafka Streams' persistent stores either way).

use super::{Lower, Operator};
use crate::args::{arity, err_at};
use crate::build::{Builder, Flow, Table};
use crate::parse::Call;

pub(crate) const IN_MEMORY: Operator = Operator {
    name: "in_memory",
    usage: "in_memory() right after the table(..), count/reduce/aggregate, to_table(..) or store(..) that made the store",
    lower: &[Lower::Table(in_memory), Lower::Store(in_memory_store)],
    on_stream: Some(
        "a stream has no store: in_memory() applies to the table of `table(..)`, `count`/`reduce`/`aggregate` or `to_table(..)`, right after it",
    ),
    emit: &[],
};

fn in_memory(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, IN_MEMORY.usage)?;
    if !super::caching::owns_store(b, t) {
        return Err(err_at(
            &call.name,
            format!(
                "this table has no store of its own (it reads `{}` through the operators before it): write in_memory() right after the `table(..)`, `count`/`reduce`/`aggregate` or `to_table(..)` that made the store",
                b.stores[t.store].name
            ),
        ));
    }
    set(b, t.store, call)?;
    Ok(Flow::Table(t))
}

/// `store(..).in_memory()` (or of `window_store(..)`, `session_store(..)`): Kafka Streams'
/// `Stores.inMemoryKeyValueStore(..)` (`inMemoryWindowStore`, `inMemorySessionStore`) for a
/// store of `process(..)`.
fn in_memory_store(b: &mut Builder, s: usize, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, IN_MEMORY.usage)?;
    set(b, s, call)?;
    Ok(Flow::Store(s))
}

fn set(b: &mut Builder, s: usize, call: &Call) -> syn::Result<()> {
    let store = &mut b.stores[s];
    if store.in_memory {
        return Err(err_at(
            &call.name,
            format!(
                "the store `{}` is in memory already: give in_memory() once",
                store.name
            ),
        ));
    }
    store.in_memory = true;
    Ok(())
}
