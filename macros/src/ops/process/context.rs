//! The context of a `process(..)` node (`ProcessorContext`): a type per node giving its
//! closure (and its punctuations' callbacks, [`super::punctuate`]) the node's stores, and the
//! code that builds it from the task for one call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{Model, NodeKind, WindowKind};
use crate::names::snake;

/// `call` (which uses `__dk_ctx`) with the node's context built from the task and
/// `__dk_record`, then the node's children on every record it returns: the code of a record
/// through `process(..)` and of a punctuation callback ([`super::punctuate`]). `forward` is
/// false for a call returning `()` (a punctuation of `process_values`).
///
/// Each returned item is taken apart into key, value and the timestamp and headers it sets
/// (`dekaf_streams::forward`); the children see `__dk_record` with those.
pub(crate) fn with_context(
    em: &Emitter<'_>,
    node: usize,
    call: TokenStream,
    forward: bool,
) -> TokenStream {
    let NodeKind::Process { stores, values, .. } = &em.m.nodes[node].kind else {
        return quote!();
    };
    let dk = dk();
    let ctx = em.ctx_type(node);
    let fields = stores.iter().map(|&i| {
        let f = Emitter::store_field(i);
        let retention = retention_fields(em.m, i).map(|[index, max, purge]| {
            quote!(, #index: &mut self.#index, #max: &mut self.#max, #purge: &mut self.#purge)
        });
        quote!(#f: &mut self.#f #retention)
    });
    let out = format_ident!("__out{}", node);
    let item = format_ident!("__item{}", node);
    let nv = format_ident!("__v{}", node);
    let (parts, children) = if *values {
        // The key stays the input's, borrowed by every value (`process_values`).
        let kb = format_ident!("__kb{}", node);
        let parts = quote! {
            let (_, #nv, __dk_ts, __dk_h) = {
                use #dk::{ForwardValue as _, PlainValue as _};
                (&&#dk::ValueItem::new(#item)).value_parts()
            };
        };
        let kacc = Acc {
            ident: kb,
            is_ref: true,
        };
        (parts, em.children(node, &kacc, &Acc::owned(nv.clone())))
    } else {
        let nk = format_ident!("__k{}", node);
        let parts = quote! {
            let (#nk, #nv, __dk_ts, __dk_h) = #dk::ForwardRecord::into_parts(#item);
        };
        let children = em.children(node, &Acc::owned(nk), &Acc::owned(nv.clone()));
        (parts, children)
    };
    let each = if forward {
        quote! {
            for #item in ::core::iter::IntoIterator::into_iter(#out) {
                #parts
                let __dk_fwd = #dk::forwarded(__dk_record, __dk_ts, &__dk_h);
                let __dk_record = &__dk_fwd;
                #children
            }
        }
    } else {
        quote!(let () = #out;)
    };
    quote! {
        let __dk_topics = #dk::Task::source_topics(self);
        let #out = {
            let mut __dk_ctx = #ctx::<'_, B, S> {
                #(#fields,)*
                __backend: ::core::marker::PhantomData,
                __kbuf: &mut self.__kbuf,
                __vbuf: &mut self.__vbuf,
                __sink: &mut *__dk_sink,
                __partition: self.__partition,
                __late: &mut self.__late,
                __timestamp: __dk_record.timestamp,
                __headers: __dk_record.headers,
                __topic: __dk_topics.get(__dk_record.source).copied(),
                __offset: __dk_record.offset,
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
        let retention: Vec<_> = stores
            .iter()
            .filter_map(|&s| retention_fields(m, s))
            .flatten()
            .collect();
        let retention_types = retention.iter().enumerate().map(|(i, _)| {
            if i % 3 == 0 {
                quote!(&'a mut #dk::TimeIndex)
            } else {
                quote!(&'a mut i64)
            }
        });
        let accessors = stores.iter().map(|&s| accessor(m, s));
        let doc = format!(
            "What the closure of `process(..)` ({}) sees: its stores and the record's metadata.",
            n.name
        );
        out.extend(quote! {
            #[doc = #doc]
            pub struct #ctx<'a, B: #dk::StoreBackend, S: #dk::RecordSink> {
                #(#fields: &'a mut B,)*
                #(#retention: #retention_types,)*
                // Uses `B` when the node lists no store.
                __backend: ::core::marker::PhantomData<&'a mut B>,
                __kbuf: &'a mut ::std::vec::Vec<u8>,
                __vbuf: &'a mut ::std::vec::Vec<u8>,
                __sink: &'a mut S,
                __partition: i32,
                // Late writes to window and session stores are dropped records.
                __late: &'a mut u64,
                __timestamp: i64,
                __headers: &'a #dk::Headers,
                __topic: ::core::option::Option<&'static str>,
                __offset: i64,
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

                /// The task's partition (the record's: a task reads one partition of each
                /// of its topics).
                pub fn partition(&self) -> i32 {
                    self.__partition
                }

                /// The topic the record was read from (Kafka Streams'
                /// `recordMetadata().topic()`); `None` in a punctuation.
                pub fn topic(&self) -> ::core::option::Option<&'static str> {
                    self.__topic
                }

                /// The record's offset in its partition (Kafka Streams'
                /// `recordMetadata().offset()`); `None` in a punctuation.
                pub fn offset(&self) -> ::core::option::Option<i64> {
                    if self.__offset < 0 { None } else { Some(self.__offset) }
                }

                /// Asks for a commit as soon as possible (Kafka Streams'
                /// `ProcessorContext#commit`): the runtime commits once the batch of records in
                /// hand is processed, without waiting for the commit interval (under
                /// exactly-once: the transaction ends there and its output becomes readable).
                /// The `TestDriver` counts it (`commits_requested`) and flushes the record
                /// caches after the record.
                pub fn commit(&mut self) {
                    #dk::RecordSink::request_commit(&mut *self.__sink);
                }
            }
        });
    }
    out
}

/// The task's retention fields of store `s` if it is a window or session store: its time
/// index, its latest time, its next purge time.
fn retention_fields(m: &Model, s: usize) -> Option<[syn::Ident; 3]> {
    m.stores[s].window.map(|_| {
        [
            Emitter::index_field(s),
            Emitter::max_field(s),
            Emitter::purge_field(s),
        ]
    })
}

/// The context's accessor of store `s`: its typed view, by the kind of store declared.
fn accessor(m: &Model, s: usize) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let st = &m.stores[s];
    let f = Emitter::store_field(s);
    let method = syn::Ident::new(&snake(&st.name), st.span);
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let changelog = &st.changelog;
    let writes = quote!(#changelog, self.__partition, self.__timestamp, &mut *self.__kbuf, &mut *self.__vbuf, &mut *self.__sink);
    // With its logging disabled the runtime drops the changelog writes.
    let logged = if st.has_changelog() {
        format!("writes go to `{changelog}`")
    } else {
        "no changelog (with_logging_disabled())".to_owned()
    };
    let Some(w) = st.window else {
        let doc = format!("Store `{}`: get, put, delete, range; {logged}.", st.name);
        return quote! {
            #[doc = #doc]
            pub fn #method(&mut self) -> #dk::KeyValueStore<'_, #kt, #vt, B, S> {
                #dk::KeyValueStore::new(&mut *self.#f, #writes)
            }
        };
    };
    let [index, max, purge] = [
        Emitter::index_field(s),
        Emitter::max_field(s),
        Emitter::purge_field(s),
    ];
    let retention_ms = w.retention();
    let retention = quote! {
        #dk::WindowRetention::new(&mut *self.#index, &mut *self.#max, &mut *self.#purge, #retention_ms, &mut *self.__late)
    };
    if w.kind == WindowKind::Session {
        let doc = format!(
            "Session store `{}` (retention {retention_ms} ms): put, remove, fetch_session, find_sessions, fetch; {logged}.",
            st.name
        );
        return quote! {
            #[doc = #doc]
            pub fn #method(&mut self) -> #dk::SessionStore<'_, #kt, #vt, B, S> {
                #dk::SessionStore::new(&mut *self.#f, #retention, #writes)
            }
        };
    }
    let size = w.size;
    let doc = format!(
        "Window store `{}` (windows of {size} ms, retention {retention_ms} ms): put, delete, fetch, fetch_range, fetch_all; {logged}.",
        st.name
    );
    quote! {
        #[doc = #doc]
        pub fn #method(&mut self) -> #dk::WindowStore<'_, #kt, #vt, B, S> {
            #dk::WindowStore::new(&mut *self.#f, #retention, #size, #writes)
        }
    }
}
