//! `print()` and `print("label")`: writes every record to standard output as
//! `[label]: key, value` and ends the stream, as Kafka Streams' `KStream#print(Printed.toSysOut())`
//! (a `KSTREAM-PRINTER-n` processor without children). Without a label the label is the name of
//! the node the stream comes from (`[KSTREAM-SOURCE-0000000000]: a, 5`), as there
//! (`Printed.toSysOut()` without `withLabel`; `KStreamImpl.print` builds the action with the
//! stream's own name, checked against Kafka Streams 4.4).
//!
//! Key and value are written with `Display` where their type has it (a string as its text, a
//! number as its digits, as Java's `toString`), otherwise with `Debug`; a null key or value
//! (`None` of a `Nullable::<S>` serde, or a null on the null path) is written `null`, and
//! `Some(x)` as `x`, as Java writes a nullable object. The
//! record is written straight into the locked standard output: no allocation per record.
//! An operator after `print(..)` is an error, as after `to(..)`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::name_arg;
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const PRINT: Operator = Operator {
    name: "print",
    usage: "print() or print(\"label\")",
    lower: &[Lower::Stream(print)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

/// The label is the node's `f`: the user's string literal, or nothing (the parent's name then).
fn print(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let label = match call.args.len() {
        0 => Expr::Verbatim(TokenStream::new()),
        1 => {
            name_arg(call, 0, PRINT.usage)?;
            call.args[0].clone()
        }
        _ => {
            return Err(crate::args::err_at(
                &call.args[1],
                format!("`print` takes at most one argument: {}", PRINT.usage),
            ));
        }
    };
    let kind = NodeKind::Closure {
        op: PRINT.name,
        f: label,
    };
    b.node(kind, "KSTREAM-PRINTER", call.span, &[s.node]);
    Ok(Flow::Ended(call.tokens.clone()))
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let sp = em.m.nodes[node].span;
    let (kr, vr) = (k.r(sp), v.r(sp));
    emit(em, node, quote!(Some(#kr)), quote!(Some(#vr)))
}

/// A null key or value is written `null`.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let sp = em.m.nodes[node].span;
    let part = |p: &Part| match p {
        Part::Null => quote!(None::<&()>),
        Part::Val(acc) => {
            let r = acc.r(sp);
            quote!(Some(#r))
        }
    };
    emit(em, node, part(k), part(v))
}

/// `[label]: key, value` into the locked standard output, each part through the
/// Display-else-Debug probe (autoref specialization: both traits in scope).
fn emit(em: &Emitter<'_>, node: usize, k: TokenStream, v: TokenStream) -> Option<TokenStream> {
    let n = &em.m.nodes[node];
    let NodeKind::Closure { op: "print", f } = &n.kind else {
        return None;
    };
    let label = match f {
        Expr::Verbatim(t) if t.is_empty() => {
            let parent = n.parents.first().map_or(&n.name, |&p| &em.m.nodes[p].name);
            let name = syn::LitStr::new(parent, Span::call_site());
            quote!(#name)
        }
        label => quote!(#label),
    };
    let dk = dk();
    Some(quote_spanned! {n.span=> {
        #[allow(unused_imports)]
        use #dk::{PrintDebug as _, PrintDisplay as _, PrintOptionDebug as _, PrintOptionDisplay as _};
        let mut __dk_out = #dk::print_start(#label);
        match #k {
            Some(__dk_k) => (&&&&#dk::Printable(__dk_k)).print_to(&mut __dk_out),
            None => #dk::print_null(&mut __dk_out),
        }
        #dk::print_separator(&mut __dk_out);
        match #v {
            Some(__dk_v) => (&&&&#dk::Printable(__dk_v)).print_to(&mut __dk_out),
            None => #dk::print_null(&mut __dk_out),
        }
        #dk::print_end(&mut __dk_out);
    }})
}
