//! `filter(p)` keeps the records for which the predicate holds; `filter_not(p)` those for
//! which it does not. On a stream, as in Kafka Streams (`KStreamImpl.filterNot`), both are one
//! processor (`KSTREAM-FILTER-n`) that negates the predicate for `filter_not`; no other node is
//! added.
//!
//! On a table (`KTABLE-FILTER-n`) a record is a change, new and old value (see
//! [`super::table`]): the filter maps both and drops the change when both come out absent, so a
//! filtered-out key forwards a tombstone only if it had been forwarded. The filter is not
//! materialized: a table-table join reads it through its parent's value getter, filtered.
//!
//! The predicate is applied in one place, [`keep`]: the stream's records, a table's changes
//! and a table's value getter all call it. A record with a null key or value (on the null path)
//! fails: the predicate takes both.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, TableNode};
use crate::parse::Call;

pub(crate) const FILTER: Operator = Operator {
    name: "filter",
    usage: "filter(|key, value| bool)",
    lower: &[Lower::Stream(filter), Lower::Table(filter_table)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const FILTER_NOT: Operator = Operator {
    name: "filter_not",
    usage: "filter_not(|key, value| bool)",
    lower: &[Lower::Stream(filter_not), Lower::Table(filter_not_table)],
    on_stream: None,
    emit: &[EMIT],
};

const EMIT: Emit = Emit {
    record,
    null,
    getter,
    ..Emit::NONE
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

fn filter_table(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower_table(b, t, call, FILTER.usage, false)
}

fn filter_not_table(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower_table(b, t, call, FILTER_NOT.usage, true)
}

fn lower_table(
    b: &mut Builder,
    t: Table,
    call: &Call,
    usage: &str,
    negate: bool,
) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    super::changes::changing(b, t, call)?;
    let node = b.node(
        NodeKind::Table(TableNode::Filter { f, negate }),
        "KTABLE-FILTER",
        call.span,
        &[t.node],
    );
    Ok(Flow::Table(Table { node, ..t }))
}

/// Whether the record with key `kr` and value `vr` (references) is kept: the predicate, negated
/// for `filter_not`, spanned at the call.
fn keep(sp: Span, f: &Expr, negate: bool, kr: TokenStream, vr: TokenStream) -> TokenStream {
    let dk = dk();
    let call = quote_spanned!(sp=> #dk::filter(#kr, #vr, #f));
    if negate { quote!(!#call) } else { call }
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let sp = em.m.nodes[node].span;
    Some(match &em.m.nodes[node].kind {
        // `if filter(&k, &v, p) { children }`
        NodeKind::Filter { f, negate } => {
            let cond = keep(sp, f, *negate, k.r(sp), v.r(sp));
            let children = em.children(node, k, v);
            quote! { if #cond { #children } }
        }
        NodeKind::Table(TableNode::Filter { f, negate }) => {
            let dk = dk();
            let nv = format_ident!("__v{}", node);
            let vo = v.o(sp);
            let kr = k.r(sp);
            let keep_new = keep(sp, f, *negate, kr.clone(), quote!(&__dk_x));
            let keep_old = keep(sp, f, *negate, kr, quote!(&__dk_x));
            let children = em.children(node, k, &Acc::owned(nv.clone()));
            quote! {
                let __dk_ch = #vo;
                let #nv = #dk::Change {
                    new: match __dk_ch.new { Some(__dk_x) if #keep_new => Some(__dk_x), _ => None },
                    old: match __dk_ch.old { Some(__dk_x) if #keep_old => Some(__dk_x), _ => None },
                };
                // Nothing forwarded before and nothing now: Kafka Streams forwards nothing.
                if !#nv.is_empty() { #children }
            }
        }
        _ => return None,
    })
}

fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::Filter { negate, .. } => {
            Some(em.null_fails(node, if *negate { "filter_not" } else { "filter" }, k))
        }
        _ => None,
    }
}

/// A filtered table's value: its parent's, if the predicate keeps it.
fn getter(em: &Emitter<'_>, node: usize, k: &Acc) -> Option<TokenStream> {
    let n = &em.m.nodes[node];
    let NodeKind::Table(TableNode::Filter { f, negate }) = &n.kind else {
        return None;
    };
    let g = em.getter(n.parents[0], k);
    let cond = keep(n.span, f, *negate, k.r(n.span), quote!(&__dk_g));
    Some(quote!(match #g { Some((__dk_g, __dk_t)) if #cond => Some((__dk_g, __dk_t)), _ => None }))
}
