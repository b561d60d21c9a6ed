//! `map(f)` and `try_map(f)` make a new key and value (the key changes, so a later grouping or
//! join repartitions); `map_values(f)` and `try_map_values(f)` a new value, keeping the key.
//! The `try_` forms return a `Result`; an `Err` goes to `on_error`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, closure_arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub const MAP: Operator = Operator {
    name: "map",
    usage: "map(|key, value| (new_key, new_value))",
    lower: Lower::Stream(map),
    on_stream: None,
};

pub const TRY_MAP: Operator = Operator {
    name: "try_map",
    usage: "try_map(|key, value| Ok((new_key, new_value)))",
    lower: Lower::Stream(try_map),
    on_stream: None,
};

pub const MAP_VALUES: Operator = Operator {
    name: "map_values",
    usage: "map_values(|value| new_value)",
    lower: Lower::Stream(map_values),
    on_stream: None,
};

pub const TRY_MAP_VALUES: Operator = Operator {
    name: "try_map_values",
    usage: "try_map_values(|value| Ok(new_value))",
    lower: Lower::Stream(try_map_values),
    on_stream: None,
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
pub fn emit_map(
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
pub fn emit_map_values(
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
