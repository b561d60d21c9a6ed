//! `let [a, b] = s.branch(p1, p2);`: a record goes to the first branch whose predicate holds,
//! or nowhere (Kafka Streams' `split().branch(..)` without a default branch).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Expr;
use syn::spanned::Spanned;

use super::{Emit, Lower, Operator};
use crate::args::err_call;
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const BRANCH: Operator = Operator {
    name: "branch",
    usage: "let [a, b] = s.branch(|k, v| .., |k, v| ..);",
    lower: &[Lower::Stream(branch)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn branch(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    if call.args.is_empty() {
        return Err(err_call(
            call,
            format!("branch(..) needs predicates: `{}`", BRANCH.usage),
        ));
    }
    let n = b.node(
        NodeKind::Branch {
            preds: call.args.clone(),
        },
        "KSTREAM-BRANCH",
        call.span,
        &[s.node],
    );
    let mut arms = Vec::new();
    for (i, pred) in call.args.iter().enumerate() {
        let arm = b.push_node(
            NodeKind::BranchArm,
            format!("KSTREAM-BRANCH-{n:010}-{i}"),
            pred.span(),
            &[n],
        );
        arms.push(arm);
    }
    // Arms keep the stream's properties.
    for &arm in &arms {
        b.arms.insert(
            arm,
            Stream {
                node: arm,
                ..s.clone()
            },
        );
    }
    Ok(Flow::Branches(arms, call.tokens.clone()))
}

/// `if p1(&k, &v) { arm 1 } else if p2(&k, &v) { arm 2 } ..`
pub(crate) fn emit(em: &Emitter<'_>, node: usize, preds: &[Expr], k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let arms = em.m.nodes[node]
        .children
        .iter()
        .zip(preds)
        .map(|(&arm, p)| {
            let body = em.children(arm, k, v);
            let ps = p.span();
            let (kr, vr) = (k.r(ps), v.r(ps));
            (quote_spanned!(ps=> #dk::filter(#kr, #vr, #p)), body)
        });
    let mut out = quote!();
    for (i, (cond, body)) in arms.enumerate() {
        if i == 0 {
            out = quote!(if #cond { #body });
        } else {
            out = quote!(#out else if #cond { #body });
        }
    }
    out
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::Branch { preds } => Some(emit(em, node, preds, k, v)),
        NodeKind::BranchArm => Some(em.children(node, k, v)),
        _ => None,
    }
}

/// A null key or value: the predicates would take it, the record fails; an arm forwards it.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::Branch { .. } => Some(em.null_fails(node, "branch", k)),
        NodeKind::BranchArm => Some(em.null_children(node, k, v)),
        _ => None,
    }
}
