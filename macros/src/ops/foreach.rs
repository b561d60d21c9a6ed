//! `foreach(|key, value| ..)`: calls the closure for each record and ends the stream,
//! forwarding nothing, as Kafka Streams' `KStream#foreach` (a `KSTREAM-FOREACH-n` processor
//! without children). It is for side effects at the end of a chain; `peek` is the one that
//! continues it.
//!
//! The closure borrows the record (`|key: &K, value: &V|`) and is called inline; a panic in it
//! is the record's error (`on_error`), as in any closure. On the null path (a null key or value
//! whose serde has no null) the record fails: the closure would take the missing part (read
//! the topic with `Nullable::<S>` to see nulls). An operator after `foreach(..)` is an error,
//! as after `to(..)`.

use proc_macro2::TokenStream;
use quote::quote_spanned;

use super::{Emit, Lower, Operator};
use crate::args::{arity, expr_arg};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const FOREACH: Operator = Operator {
    name: "foreach",
    usage: "foreach(|key, value| ..)",
    lower: &[Lower::Stream(foreach)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

fn foreach(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let f = expr_arg(call, 0, FOREACH.usage)?;
    arity(call, 1, FOREACH.usage)?;
    let kind = NodeKind::Closure {
        op: FOREACH.name,
        f,
    };
    b.node(kind, "KSTREAM-FOREACH", call.span, &[s.node]);
    Ok(Flow::Ended(call.tokens.clone()))
}

/// `f(&k, &v);` and nothing after it.
fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let n = &em.m.nodes[node];
    let NodeKind::Closure { op: "foreach", f } = &n.kind else {
        return None;
    };
    let dk = dk();
    let (kr, vr) = (k.r(n.span), v.r(n.span));
    Some(quote_spanned!(n.span=> #dk::peek(#kr, #vr, #f);))
}

/// A null key or value: the closure would take it, the record fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::Closure { op: "foreach", .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(em.null_fails(node, "foreach", k))
}
