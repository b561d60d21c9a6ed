//! `peek(f)` calls `f` on every record for its side effects and passes the record on.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub const PEEK: Operator = Operator {
    name: "peek",
    usage: "peek(|key, value| ..)",
    lower: Lower::Stream(peek),
    on_stream: None,
};

fn peek(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, PEEK.usage)?;
    arity(call, 1, PEEK.usage)?;
    let node = b.node(NodeKind::Peek { f }, "KSTREAM-PEEK", call.span, &[s.node]);
    Ok(Flow::Stream(Stream { node, ..s }))
}

/// `peek(&k, &v, f); children`
pub fn emit(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let (kr, vr) = (k.r(sp), v.r(sp));
    let children = em.children(node, k, v);
    quote! { #dk::peek(#kr, #vr, #f); #children }
}
