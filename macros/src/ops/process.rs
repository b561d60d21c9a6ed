//! `process(["store", ..], |ctx, key, value| ..)`: the processor API. The closure gets a
//! context with one typed accessor per listed store (declared with `store(..)`) and the
//! record's metadata, and returns the records to pass on.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, err_at};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{Model, NodeKind, StoreOwner};
use crate::names::snake;
use crate::parse::Call;

pub const PROCESS: Operator = Operator {
    name: "process",
    usage: "process([\"store\", ..], |ctx, key, value| Ok(Some((key, value)))), optionally followed by punctuations: schedule(Duration::from_secs(1), StreamTime | WallClock, |ctx, timestamp| Ok(Some((key, value))))",
    lower: Lower::Stream(process),
    on_stream: None,
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
    let schedules = super::punctuate::parse_all(&call.args[2..]).unwrap_or_else(|e| {
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
pub fn emit(em: &Emitter<'_>, node: usize, f: &Expr, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let (ko, vo) = (k.o(sp), v.o(sp));
    let call = quote_spanned!(sp=> #dk::process(&mut __dk_ctx, #ko, #vo, #name, #f)?);
    with_context(em, node, call)
}

/// `call` (which uses `__dk_ctx`) with the node's context built from the task and
/// `__dk_record`, then the node's children on every record it returns: the code of a record
/// through `process(..)` and of a punctuation callback ([`super::punctuate`]).
pub fn with_context(em: &Emitter<'_>, node: usize, call: TokenStream) -> TokenStream {
    let NodeKind::Process { stores, .. } = &em.m.nodes[node].kind else {
        return quote!();
    };
    let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let ctx = em.ctx_type(node);
    let fields = stores.iter().map(|&i| {
        let f = Emitter::store_field(i);
        quote!(#f: &mut self.#f)
    });
    let out = format_ident!("__out{}", node);
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! {
        let #out = {
            let mut __dk_ctx = #ctx {
                #(#fields,)*
                __kbuf: &mut self.__kbuf,
                __vbuf: &mut self.__vbuf,
                __sink: &mut *__dk_sink,
                __partition: self.__partition,
                __timestamp: __dk_record.timestamp,
                __headers: __dk_record.headers,
            };
            #call
        };
        for (#nk, #nv) in ::core::iter::IntoIterator::into_iter(#out) { #children }
    }
}

/// The context struct of every `process(..)` node: one accessor per declared store.
pub fn contexts(m: &Model, em: &Emitter<'_>) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let mut out = TokenStream::new();
    for n in &m.nodes {
        let NodeKind::Process { stores, .. } = &n.kind else {
            continue;
        };
        let ctx = em.ctx_type(n.id);
        let fields: Vec<_> = stores.iter().map(|&s| Emitter::store_field(s)).collect();
        let accessors = stores.iter().map(|&s| {
            let st = &m.stores[s];
            let f = Emitter::store_field(s);
            let method = syn::Ident::new(&snake(&st.name), st.span);
            let (kt, vt) = (&st.key.ty, &st.value.ty);
            let changelog = &st.changelog;
            let doc = format!(
                "Store `{}`: get, put, delete, range; writes go to `{}`.",
                st.name, st.changelog
            );
            quote! {
                #[doc = #doc]
                pub fn #method(&mut self) -> #dk::KeyValueStore<'_, #kt, #vt, B, S> {
                    #dk::KeyValueStore::new(
                        &mut *self.#f, #changelog, self.__partition, self.__timestamp,
                        &mut *self.__kbuf, &mut *self.__vbuf, &mut *self.__sink,
                    )
                }
            }
        });
        let doc = format!(
            "What the closure of `process(..)` ({}) sees: its stores and the record's metadata.",
            n.name
        );
        out.extend(quote! {
            #[doc = #doc]
            pub struct #ctx<'a, B: #dk::StoreBackend, S: #dk::RecordSink> {
                #(#fields: &'a mut B,)*
                __kbuf: &'a mut ::std::vec::Vec<u8>,
                __vbuf: &'a mut ::std::vec::Vec<u8>,
                __sink: &'a mut S,
                __partition: i32,
                __timestamp: i64,
                __headers: &'a #dk::Headers,
            }

            impl<'a, B: #dk::StoreBackend, S: #dk::RecordSink> #ctx<'a, B, S> {
                #(#accessors)*

                /// The record's timestamp.
                pub fn timestamp(&self) -> i64 {
                    self.__timestamp
                }

                /// The record's headers.
                pub fn headers(&self) -> &#dk::Headers {
                    self.__headers
                }

                /// The task's partition.
                pub fn partition(&self) -> i32 {
                    self.__partition
                }
            }
        });
    }
    out
}
