//! `to_stream()`: a table's updates as a stream (`KTABLE-TOSTREAM-n`).

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
    let (key, value, window) = (Some(s.key.clone()), Some(s.value.clone()), s.window);
    let node = b.node(NodeKind::ToStream, "KTABLE-TOSTREAM", call.span, &[t.node]);
    Ok(Flow::Stream(Stream {
        node,
        key,
        value,
        key_changed: false,
        window,
    }))
}
