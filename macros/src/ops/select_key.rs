//! `select_key(f)` gives each record a new key (a later grouping or join repartitions).
//! `group_by(f, ..)` lowers its key selection to the same node.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const SELECT_KEY: Operator = Operator {
    name: "select_key",
    usage: "select_key(|key, value| new_key)",
    lower: &[Lower::Stream(select_key)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn select_key(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, SELECT_KEY.usage)?;
    arity(call, 1, SELECT_KEY.usage)?;
    let node = b.node(
        NodeKind::SelectKey { f },
        "KSTREAM-KEY-SELECT",
        call.span,
        &[s.node],
    );
    Ok(Flow::Stream(Stream {
        node,
        key: None,
        key_changed: true,
        window: None,
        ..s
    }))
}

/// `let k2 = select_key(&k, &v, f); children`
pub(crate) fn emit(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let nk = format_ident!("__k{}", node);
    let (kr, vr) = (k.r(sp), v.r(sp));
    let children = em.children(node, &Acc::owned(nk.clone()), v);
    quote! { let #nk = #dk::select_key(#kr, #vr, #f); #children }
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::SelectKey { f } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, f, k, v))
}

/// A null key or value: the closure would take it, the record fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::SelectKey { .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(em.null_fails(node, "select_key", k))
}
