//! `to_stream()`: a table's updates as a stream (`KTABLE-TOSTREAM-n`). The stream of a table
//! that forwards changes (a `table(..)`, its filters, mappers and joins, a `to_table(..)`) has
//! `Option` values, `None` for a delete, written as a tombstone by a `Nullable::<S>` serde.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Emit, Lower, Operator};
use crate::args::arity;
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, Part};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const TO_STREAM: Operator = Operator {
    name: "to_stream",
    usage: "to_stream()",
    lower: &[Lower::Table(to_stream)],
    on_stream: Some("this is a stream already: to_stream() applies to tables"),
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn to_stream(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, TO_STREAM.usage)?;
    let s = &b.stores[t.store];
    let (key, mut value, window) = (Some(s.key.clone()), Some(s.value.clone()), s.window);
    // A table of changes forwards deletes: its stream's values are `Option`s.
    if super::changes::forwards_changes(&b.nodes[t.node].kind) {
        value = super::changes::value_serde(b, t.node).map(super::changes::nullable);
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

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::ToStream).then(|| emit(em, node, k, v))
}

/// A table's stream gets no record with a null part (a table's records have keys).
fn null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::ToStream).then(TokenStream::new)
}

/// `to_stream()`: an aggregation's results pass as they are; a change forwards its new value,
/// `None` for a delete (the stream's values are `Option`s, written as tombstones by a
/// `Nullable` serde).
fn emit(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> TokenStream {
    let parent = em.m.nodes[node].parents[0];
    if !super::changes::forwards_changes(&em.m.nodes[parent].kind) {
        return em.children(node, k, v);
    }
    let sp = em.m.nodes[node].span;
    let nv = format_ident!("__v{}", node);
    let vo = v.o(sp);
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    quote! { let #nv = (#vo).new; #children }
}
