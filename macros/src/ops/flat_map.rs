//! `flat_map(f)` turns a record into any number of records with new keys; `flat_map_values(f)`
//! into any number of values under the same key.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, closure_arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const FLAT_MAP: Operator = Operator {
    name: "flat_map",
    usage: "flat_map(|key, value| iterator of (key, value))",
    lower: &[Lower::Stream(flat_map)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const FLAT_MAP_VALUES: Operator = Operator {
    name: "flat_map_values",
    usage: "flat_map_values(|value| iterator of values)",
    lower: &[Lower::Stream(flat_map_values)],
    on_stream: None,
    emit: &[EMIT],
};

fn flat_map(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, FLAT_MAP.usage)?;
    arity(call, 1, FLAT_MAP.usage)?;
    let node = b.node(
        NodeKind::FlatMap { f },
        "KSTREAM-FLATMAP",
        call.span,
        &[s.node],
    );
    Ok(Flow::Stream(Stream {
        node,
        key: None,
        value: None,
        key_changed: true,
        window: None,
    }))
}

fn flat_map_values(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, FLAT_MAP_VALUES.usage)?;
    arity(call, 1, FLAT_MAP_VALUES.usage)?;
    let with_key = closure_arity(&f) == Some(2);
    let node = b.node(
        NodeKind::FlatMapValues { f, with_key },
        "KSTREAM-FLATMAPVALUES",
        call.span,
        &[s.node],
    );
    Ok(Flow::Stream(Stream {
        node,
        value: None,
        ..s
    }))
}

/// `for (k2, v2) in flat_map(&k, &v, f) { children }`
fn emit_flat_map(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let (kr, vr) = (k.r(sp), v.r(sp));
    let item = format_ident!("__item{}", node);
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! {
        for #item in #dk::flat_map(#kr, #vr, #f) {
            let (#nk, #nv) = #item;
            #children
        }
    }
}

/// `for v2 in flat_map_values(&v, f) { children }`, the key borrowed by every value.
fn emit_flat_map_values(
    em: &Emitter<'_>,
    node: usize,
    f: &Expr,
    with_key: bool,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let nv = format_ident!("__v{}", node);
    let (kr, vr) = (k.r(sp), v.r(sp));
    let call = if with_key {
        quote_spanned!(sp=> #dk::flat_map_values_with_key(#kr, #vr, #f))
    } else {
        quote_spanned!(sp=> #dk::flat_map_values(#vr, #f))
    };
    // The key is shared by every value: children borrow it.
    let kb = format_ident!("__kb{}", node);
    let kid = &k.ident;
    let kdef = if k.is_ref {
        quote!(let #kb = #kid;)
    } else {
        quote!(let #kb = &#kid;)
    };
    let children = em.children(
        node,
        &Acc {
            ident: kb,
            is_ref: true,
        },
        &Acc::owned(nv.clone()),
    );
    quote! { #kdef for #nv in #call { #children } }
}

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    Some(match &em.m.nodes[node].kind {
        NodeKind::FlatMap { f } => emit_flat_map(em, node, f, k, v),
        NodeKind::FlatMapValues { f, with_key } => {
            emit_flat_map_values(em, node, f, *with_key, k, v)
        }
        _ => return None,
    })
}

/// `flat_map_values(|value| ..)` of a record with a null key maps the value; the rest fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let sp = n.span;
    Some(match (&n.kind, v) {
        (NodeKind::FlatMapValues { f, with_key: false }, Part::Val(va)) => {
            let nv = format_ident!("__v{}", node);
            let vr = va.r(sp);
            let call = quote_spanned!(sp=> #dk::flat_map_values(#vr, #f));
            let children = em.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
            quote! { for #nv in #call { #children } }
        }
        (NodeKind::FlatMapValues { .. }, _) => em.null_fails(node, "flat_map_values", k),
        (NodeKind::FlatMap { .. }, _) => em.null_fails(node, "flat_map", k),
        _ => return None,
    })
}
