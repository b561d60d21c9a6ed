//! `a.merge(b)`: both streams continue as one. Keys and values keep their serdes where both
//! sides agree.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};

use super::{Emit, Lower, Operator};
use crate::args::{arity, bound_name_arg, err_at};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, SerdeTy};
use crate::parse::Call;

pub(crate) const MERGE: Operator = Operator {
    name: "merge",
    usage: "merge(other_stream)",
    lower: &[Lower::Stream(merge)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn merge(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, MERGE.usage)?;
    let name = bound_name_arg(
        call,
        0,
        "merge(..) takes a stream bound by `let`: `a.merge(b)`",
    )?;
    let Some(other) = b.bound_stream(name, "merge(..) merges two streams")? else {
        return Ok(Flow::Broken);
    };
    let keys = match (&s.key, &other.key) {
        (Some(a), Some(o)) if a.text() != o.text() && s.window == other.window => {
            if let (Some(ta), Some(to)) = (a.builtin_value(), o.builtin_value())
                && ta != to
            {
                let mut e = err_at(
                    &call.tokens,
                    format!(
                        "merge(..) makes one stream of two, but the keys of `{name}` are {to} (serde `{}`) and this stream's are {ta} (serde `{}`): give both the same key type first, e.g. with select_key(..) or map(..)",
                        o.text(),
                        a.text()
                    ),
                );
                e.combine(err_at(a.ty.to_token_stream(), "this stream's key serde"));
                e.combine(err_at(
                    o.ty.to_token_stream(),
                    format!("the key serde of `{name}`"),
                ));
                return Err(e);
            }
            Some((a.clone(), o.clone()))
        }
        _ => None,
    };
    let node = b.node(
        NodeKind::Merge { keys },
        "KSTREAM-MERGE",
        call.span,
        &[s.node, other.node],
    );
    let same = |a: &Option<SerdeTy>, b: &Option<SerdeTy>| match (a, b) {
        (Some(a), Some(b)) if a.text() == b.text() => Some(a.clone()),
        _ => None,
    };
    Ok(Flow::Stream(Stream {
        node,
        key: same(&s.key, &other.key),
        value: same(&s.value, &other.value),
        key_changed: s.key_changed || other.key_changed,
        window: s.window.or(other.window),
    }))
}

/// `tokens` with every token spanned at `span`.
pub(crate) fn respan(tokens: &impl ToTokens, span: proc_macro2::Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(&g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// The children, once per merged stream. Where both key serdes are known but written
/// differently, a compile-time assertion (no code runs) makes rustc check that they serialize
/// one type, and report a mismatch at this `merge(..)`, naming it.
pub(crate) fn emit(
    em: &Emitter<'_>,
    node: usize,
    keys: Option<&(SerdeTy, SerdeTy)>,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let children = em.children(node, k, v);
    let Some((a, b)) = keys else {
        return children;
    };
    let dk = dk();
    let sp = em.m.nodes[node].span;
    // Both serdes are re-spanned to the `merge`, so rustc reports a mismatch there.
    let (ta, tb) = (respan(&a.ty, sp), respan(&b.ty, sp));
    let check = quote_spanned!(sp=> #dk::merged_streams_need_one_key_type::<#ta, #tb>());
    quote! {
        const _: () = #check;
        #children
    }
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Merge { keys } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, keys.as_ref(), k, v))
}

/// A null key or value is forwarded.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let NodeKind::Merge { .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(em.null_children(node, k, v))
}
