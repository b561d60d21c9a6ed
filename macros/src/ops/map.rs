//! `map(f)` and `try_map(f)` make a new key and value (the key changes, so a later grouping or
//! join repartitions); `map_values(f)` and `try_map_values(f)` a new value, keeping the key.
//! The `try_` forms return a `Result`; an `Err` goes to `on_error`.
//!
//! `map_values` of a table (`KTABLE-MAPVALUES-n`) maps a change's new value, and its old one
//! where downstream needs it; it is not materialized (a table-table join reads it through its
//! parent's value getter, mapped).
//!
//! On the null path (a null key or value whose serde has no null), `map_values` and
//! `try_map_values` without the key map the value of a record with a null key; every other
//! case would give the closure the missing part: the record fails.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, closure_arity, expr_arg};
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, TableNode};
use crate::parse::Call;

pub(crate) const MAP: Operator = Operator {
    name: "map",
    usage: "map(|key, value| (new_key, new_value))",
    lower: &[Lower::Stream(map)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const TRY_MAP: Operator = Operator {
    name: "try_map",
    usage: "try_map(|key, value| Ok((new_key, new_value)))",
    lower: &[Lower::Stream(try_map)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const MAP_VALUES: Operator = Operator {
    name: "map_values",
    usage: "map_values(|value| new_value)",
    lower: &[Lower::Stream(map_values), Lower::Table(map_values_table)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const TRY_MAP_VALUES: Operator = Operator {
    name: "try_map_values",
    usage: "try_map_values(|value| Ok(new_value))",
    lower: &[Lower::Stream(try_map_values)],
    on_stream: None,
    emit: &[EMIT],
};

fn map(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower_map(b, s, call, MAP.usage, false)
}

fn try_map(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower_map(b, s, call, TRY_MAP.usage, true)
}

fn map_values(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower_map_values(b, s, call, MAP_VALUES.usage, false)
}

fn try_map_values(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower_map_values(b, s, call, TRY_MAP_VALUES.usage, true)
}

const EMIT: Emit = Emit {
    record,
    null,
    getter,
    ..Emit::NONE
};

fn lower_map(
    b: &mut Builder,
    s: Stream,
    call: &Call,
    usage: &str,
    fallible: bool,
) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    let node = b.node(
        NodeKind::Map { f, fallible },
        "KSTREAM-MAP",
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

fn lower_map_values(
    b: &mut Builder,
    s: Stream,
    call: &Call,
    usage: &str,
    fallible: bool,
) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    let with_key = closure_arity(&f) == Some(2);
    let node = b.node(
        NodeKind::MapValues {
            f,
            with_key,
            fallible,
        },
        "KSTREAM-MAPVALUES",
        call.span,
        &[s.node],
    );
    Ok(Flow::Stream(Stream {
        node,
        value: None,
        ..s
    }))
}

/// `let (k2, v2) = map(k, v, f); children`
fn emit_map(
    em: &Emitter<'_>,
    node: usize,
    f: &Expr,
    fallible: bool,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let (ko, vo) = (k.o(sp), v.o(sp));
    let call = if fallible {
        quote_spanned!(sp=> #dk::try_map(#ko, #vo, #name, #f)?)
    } else {
        quote_spanned!(sp=> #dk::map(#ko, #vo, #f))
    };
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! { let (#nk, #nv) = #call; #children }
}

/// `let v2 = map_values(v, f); children`
fn emit_map_values(
    em: &Emitter<'_>,
    node: usize,
    f: &Expr,
    with_key: bool,
    fallible: bool,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let nv = format_ident!("__v{}", node);
    let (kr, vo) = (k.r(sp), v.o(sp));
    let call = match (with_key, fallible) {
        (false, false) => quote_spanned!(sp=> #dk::map_values(#vo, #f)),
        (true, false) => quote_spanned!(sp=> #dk::map_values_with_key(#kr, #vo, #f)),
        (false, true) => quote_spanned!(sp=> #dk::try_map_values(#vo, #name, #f)?),
        (true, true) => {
            quote_spanned!(sp=> #dk::try_map_values_with_key(#kr, #vo, #name, #f)?)
        }
    };
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    quote! { let #nv = #call; #children }
}

fn map_values_table(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = "map_values(|value| new_value) or map_values(|key, value| new_value)";
    let f = expr_arg(call, 0, usage)?;
    arity(call, 1, usage)?;
    super::changes::changing(b, t, call)?;
    let with_key = closure_arity(&f) == Some(2);
    let node = b.node(
        NodeKind::Table(TableNode::MapValues { f, with_key }),
        "KTABLE-MAPVALUES",
        call.span,
        &[t.node],
    );
    Ok(Flow::Table(Table { node, ..t }))
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    Some(match &em.m.nodes[node].kind {
        NodeKind::Map { f, fallible } => emit_map(em, node, f, *fallible, k, v),
        NodeKind::MapValues {
            f,
            with_key,
            fallible,
        } => emit_map_values(em, node, f, *with_key, *fallible, k, v),
        NodeKind::Table(TableNode::MapValues { f, with_key }) => {
            emit_table(em, node, f, *with_key, k, v)
        }
        _ => return None,
    })
}

/// `map_values(|value| ..)` of a record with a null key maps the value; the rest fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    Some(match (&n.kind, v) {
        (
            NodeKind::MapValues {
                f,
                with_key: false,
                fallible,
            },
            Part::Val(va),
        ) => {
            let nv = format_ident!("__v{}", node);
            let vo = va.o(sp);
            let call = if *fallible {
                quote_spanned!(sp=> #dk::try_map_values(#vo, #name, #f)?)
            } else {
                quote_spanned!(sp=> #dk::map_values(#vo, #f))
            };
            let children = em.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
            quote! { let #nv = #call; #children }
        }
        (NodeKind::MapValues { .. }, _) => em.null_fails(node, "map_values", k),
        (NodeKind::Map { .. }, _) => em.null_fails(node, "map", k),
        _ => return None,
    })
}

/// A table's `map_values(f)` applied to `x` (an owned value).
fn map_table(
    sp: proc_macro2::Span,
    f: &Expr,
    with_key: bool,
    kr: &TokenStream,
    x: TokenStream,
) -> TokenStream {
    let dk = dk();
    if with_key {
        quote_spanned!(sp=> #dk::map_values_with_key(#kr, #x, #f))
    } else {
        quote_spanned!(sp=> #dk::map_values(#x, #f))
    }
}

/// A change: the new value mapped, the old one too where downstream needs it.
fn emit_table(
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
    let kr = k.r(sp);
    let vo = v.o(sp);
    let new = map_table(sp, f, with_key, &kr, quote!(__dk_x));
    let old = if super::changes::needs_old(em, node) {
        let m = map_table(sp, f, with_key, &kr, quote!(__dk_x));
        quote!(match __dk_ch.old { Some(__dk_x) => Some(#m), None => None })
    } else {
        quote!(None)
    };
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    quote! {
        let __dk_ch = #vo;
        let #nv = #dk::Change {
            new: match __dk_ch.new { Some(__dk_x) => Some(#new), None => None },
            old: #old,
        };
        #children
    }
}

/// A mapped table's value: its parent's, mapped.
fn getter(em: &Emitter<'_>, node: usize, k: &Acc) -> Option<TokenStream> {
    let n = &em.m.nodes[node];
    let NodeKind::Table(TableNode::MapValues { f, with_key }) = &n.kind else {
        return None;
    };
    let g = em.getter(n.parents[0], k);
    let call = map_table(n.span, f, *with_key, &k.r(n.span), quote!(__dk_g));
    Some(quote!(match #g { Some((__dk_g, __dk_t)) => Some((#call, __dk_t)), None => None }))
}
