//! `peek(f)` calls `f` on every record for its side effects and passes the record on.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const PEEK: Operator = Operator {
    name: "peek",
    usage: "peek(|key, value| ..)",
    lower: &[Lower::Stream(peek)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn peek(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, PEEK.usage)?;
    arity(call, 1, PEEK.usage)?;
    let kind = NodeKind::Closure { op: PEEK.name, f };
    let node = b.node(kind, "KSTREAM-PEEK", call.span, &[s.node]);
    Ok(Flow::Stream(Stream { node, ..s }))
}

/// `peek(&k, &v, f); children`
fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Closure { op: "peek", f } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, f, k, v))
}

/// A null key or value: the closure would take it, the record fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::Closure { op: "peek", .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(em.null_fails(node, "peek", k))
}

fn emit(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let (kr, vr) = (k.r(sp), v.r(sp));
    let children = em.children(node, k, v);
    quote! { #dk::peek(#kr, #vr, #f); #children }
}
