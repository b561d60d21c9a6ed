//! `filter(p)` keeps the records for which the predicate holds; `filter_not(p)` those for
//! which it does not. As in Kafka Streams (`KStreamImpl.filterNot`), both are one processor
//! (`KSTREAM-FILTER-n`) that negates the predicate for `filter_not`; no other node is added.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub const FILTER: Operator = Operator {
    name: "filter",
    usage: "filter(|key, value| bool)",
    lower: Lower::Stream(filter),
    on_stream: None,
};

pub const FILTER_NOT: Operator = Operator {
    name: "filter_not",
    usage: "filter_not(|key, value| bool)",
    lower: Lower::Stream(filter_not),
    on_stream: None,
};

fn filter(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, FILTER.usage, false)
}

fn filter_not(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, FILTER_NOT.usage, true)
}

fn lower(b: &mut Builder, s: Stream, call: &Call, usage: &str, negate: bool) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    let node = b.node(
        NodeKind::Filter { f, negate },
        "KSTREAM-FILTER",
        call.span,
        &[s.node],
    );
    Ok(Flow::Stream(Stream { node, ..s }))
}

/// `if filter(&k, &v, p) { children }`, negated for `filter_not`.
pub fn emit(
    em: &Emitter<'_>,
    node: usize,
    f: &Expr,
    negate: bool,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let (kr, vr) = (k.r(sp), v.r(sp));
    let call = quote_spanned!(sp=> #dk::filter(#kr, #vr, #f));
    let cond = if negate { quote!(!#call) } else { call };
    let children = em.children(node, k, v);
    quote! { if #cond { #children } }
}
