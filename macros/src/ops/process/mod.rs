//! `process(["store", ..], |ctx, key, value| ..)`: the processor API. The closure gets a
//! context with one typed accessor per listed store (declared with `store(..)`) and the
//! record's metadata, and returns the records to pass on.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::Expr;

pub(crate) mod context;
pub(crate) mod punctuate;

use super::{Emit, Lower, Operator};
use crate::args::{arity, err_at};
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

fn process(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    const USAGE: &str = PROCESS.usage;
    if call.args.len() < 2 {
        arity(call, 2, USAGE)?;
    }
    let Expr::Array(arr) = &call.args[0] else {
        return Err(err_at(
            &call.args[0],
            format!(
                "the first argument names the stores it uses, as an array of string literals: {USAGE}"
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
    // A bad schedule is reported without dropping the node: its stores stay used.
    let schedules = punctuate::parse_all(&call.args[2..]).unwrap_or_else(|e| {
        b.diagnostics.error(e);
        Vec::new()
    });
    let node = b.node(
        NodeKind::Process {
            f,
            stores: stores.clone(),
            schedules,
        },
        "KSTREAM-PROCESSOR",
        call.span,
        &[s.node],
    );
    for st in stores {
        b.stores[st].users.push(node);
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
                    "unknown store `{name}`: declare it before this statement with store(\"{name}\", KeySerde, ValueSerde){}",
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
    context::with_context(em, node, call)
}

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Process { f, .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, f, k, v))
}

/// A null key or value: the closure would take it, the record fails.
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::Process { .. } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(em.null_fails(node, "process", k))
}
