//! The context of a `process(..)` node (`ProcessorContext`): a type per node giving its
//! closure (and its punctuations' callbacks, [`super::punctuate`]) the node's stores, and the
//! code that builds it from the task for one call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codegen::emitter::Emitter;
use crate::ir::{Model, NodeKind};
use crate::names::snake;

/// `call` (which uses `__dk_ctx`) with the node's context built from the task and
/// `__dk_record`, then `children` on every `item` (a pattern binding what they read) it
/// returns: the code of a record through `process(..)` and of a punctuation callback
/// ([`super::punctuate`]). A `call` returning `()` (a punctuation of `process_values`) takes
/// `None`.
pub(crate) fn with_context(
    em: &Emitter<'_>,
    node: usize,
    call: TokenStream,
    forward: Option<(TokenStream, TokenStream)>,
) -> TokenStream {
    let NodeKind::Process { stores, .. } = &em.m.nodes[node].kind else {
        return quote!();
    };
    let ctx = em.ctx_type(node);
    let fields = stores.iter().map(|&i| {
        let f = Emitter::store_field(i);
        quote!(#f: &mut self.#f)
    });
    let out = format_ident!("__out{}", node);
    let each = match forward {
        Some((item, children)) => {
            quote!(for #item in ::core::iter::IntoIterator::into_iter(#out) { #children })
        }
        None => quote!(let () = #out;),
    };
    quote! {
        let #out = {
            let mut __dk_ctx = #ctx::<'_, B, S> {
                #(#fields,)*
                __backend: ::core::marker::PhantomData,
                __kbuf: &mut self.__kbuf,
                __vbuf: &mut self.__vbuf,
                __sink: &mut *__dk_sink,
                __partition: self.__partition,
                __timestamp: __dk_record.timestamp,
                __headers: __dk_record.headers,
            };
            #call
        };
        #each
    }
}

/// The context struct of every `process(..)` node: one accessor per declared store.
pub(crate) fn contexts(m: &Model, em: &Emitter<'_>) -> TokenStream {
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
                // Uses `B` when the node lists no store.
                __backend: ::core::marker::PhantomData<&'a mut B>,
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
