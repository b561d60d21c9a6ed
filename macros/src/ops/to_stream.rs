//! `to_stream()`: a table's updates as a stream (`KTABLE-TOSTREAM-n`). The stream of a table
//! that forwards changes (a `table(..)`, its filters, mappers and joins, a `to_table(..)`) has
//! `Option` values, `None` for a delete, written as a tombstone by a `Nullable::<S>` serde.

use super::{Lower, Operator};
use crate::args::arity;
use crate::build::{Builder, Flow, Stream, Table};
use crate::ir::NodeKind;
use crate::parse::Call;

pub const TO_STREAM: Operator = Operator {
    name: "to_stream",
    usage: "to_stream()",
    lower: Lower::Table(to_stream),
    on_stream: Some("this is a stream already: to_stream() applies to tables"),
};

fn to_stream(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, TO_STREAM.usage)?;
    let s = &b.stores[t.store];
    let (key, mut value, window) = (Some(s.key.clone()), Some(s.value.clone()), s.window);
    // A table of changes forwards deletes: its stream's values are `Option`s.
    if super::table::forwards_changes(&b.nodes[t.node].kind) {
        value = super::table::value_serde(b, t.node).map(super::table::nullable);
    }
    let node = b.node(NodeKind::ToStream, "KTABLE-TOSTREAM", call.span, &[t.node]);
    Ok(Flow::Stream(Stream {
        node,
        key,
        value,
        key_changed: false,
        window,
    }))
}
