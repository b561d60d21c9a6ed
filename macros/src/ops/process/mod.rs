//! `process(["store", ..], |ctx, key, value| ..)`: the processor API. The closure gets a
//! context with one typed accessor per listed store (declared with `store(..)`) and the
//! record's metadata, and returns the records to pass on.
//!
//! `process_values(["store", ..], |ctx, key, value| ..)` is Kafka Streams' `processValues` (a
//! `FixedKeyProcessor`): the closure borrows the key and returns values, every one forwarded
//! under the record's key, so the key is unchanged and a later grouping or join does not
//! repartition. Its punctuations forward nothing (a `FixedKeyRecord` can only be made from an
//! input record): their callbacks return `Ok(())`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

pub(crate) mod context;
pub(crate) mod punctuate;

use super::{Emit, Lower, Operator};
use crate::args::{arity, closure_arity, err_at};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, StoreOwner};
use crate::parse::Call;

pub(crate) const PROCESS: Operator = Operator {
    name: "process",
    usage: "process([\"store\", ..], |ctx, key, value| Ok(Some((key, value)))), optionally followed by punctuations: schedule(Duration::from_secs(1), StreamTime | WallClock, |ctx, timestamp| Ok(Some((key, value))))",
    lower: &[Lower::Stream(process)],
    on_stream: None,
    emit: &[Emit {
        record,
        null,
        ..Emit::NONE
    }],
};

pub(crate) const PROCESS_VALUES: Operator = Operator {
    name: "process_values",
    usage: "process_values([\"store\", ..], |ctx, key: &K, value| Ok(Some(new_value))), optionally followed by punctuations: schedule(Duration::from_secs(1), StreamTime | WallClock, |ctx, timestamp| Ok(()))",
    lower: &[Lower::Stream(process_values)],
    on_stream: None,
    // `PROCESS`'s code generation answers for both (one node kind).
    emit: &[],
};

fn process(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, false)
}

fn process_values(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, true)
}

fn lower(b: &mut Builder, s: Stream, call: &Call, values: bool) -> syn::Result<Flow> {
    let (usage, op) = if values {
        (PROCESS_VALUES.usage, "process_values")
    } else {
        (PROCESS.usage, "process")
    };
    if call.args.len() < 2 {
        arity(call, 2, usage)?;
    }
    let Expr::Array(arr) = &call.args[0] else {
        return Err(err_at(
            &call.args[0],
            format!(
                "the first argument names the stores it uses, as an array of string literals: {usage}"
            ),
        ));
    };
    let mut stores = Vec::new();
    for e in &arr.elems {
        let Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) = e
        else {
            return Err(err_at(e, "a store name is a string literal"));
        };
        stores.push(store_index(b, lit, &stores)?);
    }
    let f = call.args[1].clone();
    if matches!(f, Expr::Closure(_)) && closure_arity(&f) != Some(3) {
        return Err(err_at(
            &f,
            format!("the closure of {op}(..) takes the context, the key and the value: {usage}"),
        ));
    }
    // A bad schedule is reported without dropping the node: its stores stay used.
    let schedules = punctuate::parse_all(&call.args[2..], values).unwrap_or_else(|e| {
        b.diagnostics.error(e);
        Vec::new()
    });
    let node = b.node(
        NodeKind::Process {
            f,
            stores: stores.clone(),
            values,
            schedules,
        },
        if values {
            "KSTREAM-PROCESSVALUES"
        } else {
            "KSTREAM-PROCESSOR"
        },
        call.span,
        &[s.node],
    );
    for st in stores {
        b.stores[st].users.push(node);
    }
    if values {
        // The key is kept: its serde, whether it changed and its window stay the stream's.
        return Ok(Flow::Stream(Stream {
            node,
            value: None,
            ..s
        }));
    }
    Ok(Flow::Stream(Stream {
        node,
        key: None,
        value: None,
        key_changed: true,
        window: None,
    }))
}

/// The declared store named by `lit`, not listed yet.
fn store_index(b: &Builder, lit: &syn::LitStr, listed: &[usize]) -> syn::Result<usize> {
    let name = lit.value();
    match b.stores.iter().position(|st| st.name == name) {
        Some(i) if b.stores[i].owner == StoreOwner::Declared => {
            if listed.contains(&i) {
                return Err(err_at(lit, format!("store `{name}` is listed twice")));
            }
            Ok(i)
        }
        Some(i) => Err(err_at(
            lit,
            format!(
                "store `{name}` belongs to {}: process() can only use stores declared with store(\"{name}\", KeySerde, ValueSerde); declare one with another name",
                if b.stores[i].owner == StoreOwner::Table {
                    "a table"
                } else {
                    "an aggregation"
                }
            ),
        )),
        None => {
            let declared: Vec<&str> = b
                .stores
                .iter()
                .filter(|st| st.owner == StoreOwner::Declared)
                .map(|st| st.name.as_str())
                .collect();
            Err(err_at(
                lit,
                format!(
                    "unknown store `{name}`: declare it before this statement with store(\"{name}\", KeySerde, ValueSerde) (or window_store(..), session_store(..)){}",
                    if declared.is_empty() {
                        String::new()
                    } else {
                        format!(" (declared: {})", declared.join(", "))
                    }
                ),
            ))
        }
    }
}

/// Builds the context, calls the closure, runs the children on every record it returns.
pub(crate) fn emit(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let (ko, vo) = (k.o(sp), v.o(sp));
    let call = quote_spanned!(sp=> #dk::process(&mut __dk_ctx, #ko, #vo, #name, #f)?);
    context::with_context(em, node, call, true)
}

/// `process_values`: the closure borrows the key, every value it returns goes on under it.
fn emit_values(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let kb = format_ident!("__kb{}", node);
    let kid = &k.ident;
    let kdef = if k.is_ref {
        quote!(let #kb = #kid;)
    } else {
        quote!(let #kb = &#kid;)
    };
    let vo = v.o(sp);
    let call = quote_spanned!(sp=> #dk::process_values(&mut __dk_ctx, #kb, #vo, #name, #f)?);
    let body = context::with_context(em, node, call, true);
    quote! { #kdef #body }
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Process { f, values, .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(if *values {
        emit_values(em, node, f, k, v)
    } else {
        emit(em, node, f, k, v)
    })
}

/// A null key or value: the closure would take it, the record fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::Process { values, .. } = &em.m.nodes[node].kind else {
        return None;
    };
    let op = if *values { "process_values" } else { "process" };
    Some(em.null_fails(node, op, k))
}
