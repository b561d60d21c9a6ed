//! The record cache in a generated task (runtime: `dekaf_streams::cache`): per aggregation, and
//! per table read from a topic, a set of dirty keys, the flush that forwards their current
//! results (or changes) downstream, and the budget check after each record. The per-record side
//! (marking a key dirty instead of forwarding) is in [`super`] and in [`crate::ops::table`].

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codegen::emitter::Emitter;
use crate::codegen::parts::TaskParts;
use crate::ir::{NodeKind, Sub};

/// The record cache of `sub`: per aggregation its dirty keys (fields), `__forward_N` and
/// `__flush_N` methods, the `Task` methods `set_cache_max_bytes`, `flush_cache` and
/// `cache_bytes`, the keys dropped by `clear` and `discard_uncommitted`, and the flush when
/// over budget after each record. Nothing for a subtopology without aggregations.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let m = em.m;
    let dk = quote!(::dekaf_streams::__private);
    // Node ids grow downstream (a node is made after its parents), so this is topological order:
    // a flush that feeds a downstream aggregation of the same task runs before that one's.
    let mut aggs: Vec<usize> = sub
        .nodes
        .iter()
        .copied()
        // Every aggregation, session and sliding windows too (Kafka Streams caches session
        // and window stores alike: `CachingSessionStore`, `CachingWindowStore`).
        .filter(|&n| match m.nodes[n].kind {
            // A cogroup's aggregations share one store and one cache: its first
            // aggregation's, whose flush forwards through the cogroup's merge node (Kafka
            // Streams' store has one cache, and one flush listener).
            NodeKind::Aggregate { .. } => {
                crate::ops::cogroup::cache_field(em, n) == Emitter::cache_field(n)
            }
            // A table read from a topic, `to_table(..)`, a re-grouped table's aggregation, as
            // Kafka Streams caches their materialized stores.
            _ => crate::ops::table::cached(em, n),
        })
        .collect();
    aggs.sort_unstable();
    if aggs.is_empty() {
        return TaskParts::default();
    }
    let caches: Vec<_> = aggs.iter().map(|&n| Emitter::cache_field(n)).collect();
    let flushes: Vec<_> = aggs
        .iter()
        .map(|&n| format_ident!("__flush_{}", n))
        .collect();
    let mut methods = TokenStream::new();
    for (&node, (cache, flush)) in aggs.iter().zip(caches.iter().zip(&flushes)) {
        methods.extend(flush_methods(em, node, cache, flush));
    }
    TaskParts {
        fields: quote! {
            __cache_max: usize,
            __fkbuf: ::std::vec::Vec<u8>,
            __fvbuf: ::std::vec::Vec<u8>,
            __fobuf: ::std::vec::Vec<u8>,
            __obuf: ::std::vec::Vec<u8>,
            #(#caches: #dk::DirtyKeys,)*
        },
        inits: quote! {
            __cache_max: 0,
            __fkbuf: ::std::vec::Vec::new(),
            __fvbuf: ::std::vec::Vec::new(),
            __fobuf: ::std::vec::Vec::new(),
            __obuf: ::std::vec::Vec::new(),
            #(#caches: #dk::DirtyKeys::new(),)*
        },
        methods,
        trait_items: quote! {
            fn set_cache_max_bytes(&mut self, bytes: usize) {
                self.__cache_max = bytes;
            }

            fn flush_cache<S: #dk::RecordSink>(
                &mut self,
                __dk_sink: &mut S,
            ) -> ::core::result::Result<(), #dk::TaskError> {
                // One pass in node order empties every set; the loop is a guarantee, not a need.
                loop {
                    #(self.#flushes(__dk_sink)?;)*
                    if #(self.#caches.is_empty())&&* {
                        return Ok(());
                    }
                }
            }

            fn cache_bytes(&self) -> usize {
                0 #(+ self.#caches.bytes())*
            }
        },
        clear: quote! {
            #(self.#caches.clear();)*
        },
        discard: quote! {
            #(self.#caches.clear();)*
        },
        after_record: quote! {
            if self.__cache_max != 0 && #dk::Task::cache_bytes(self) > self.__cache_max {
                #dk::Task::flush_cache(self, __dk_sink)?;
            }
        },
        ..TaskParts::default()
    }
}

/// The condition under which an update of `store` goes to the record cache: the task's budget
/// is not 0, unless the store's caching was disabled (`with_caching_disabled()`), then never
/// (the dirty-key set and its flush stay, always empty).
pub(crate) fn enabled(em: &Emitter<'_>, store: usize) -> TokenStream {
    if em.m.stores[store].cached {
        quote!(self.__cache_max != 0)
    } else {
        quote!(false)
    }
}

/// `__forward_N` (the downstream code on one key's current result, or a table's change) and
/// `__flush_N` (forwards every dirty key, then forgets them) of aggregation or table source
/// `node`, whose dirty keys are in field `cache`.
fn flush_methods(
    em: &Emitter<'_>,
    node: usize,
    cache: &proc_macro2::Ident,
    flush: &proc_macro2::Ident,
) -> TokenStream {
    let m = em.m;
    let dk = quote!(::dekaf_streams::__private);
    let topo = &em.topo;
    let mut methods = TokenStream::new();
    let forward = format_ident!("__forward_{}", node);
    let (store, stamped, call) = match &m.nodes[node].kind {
        NodeKind::Aggregate { store, .. } => {
            let body = super::emit::emit_forward(em, node);
            methods.extend(crate::codegen::emitter::record_method(&forward, &body));
            // A stream aggregation over no or time windows keeps Kafka Streams' timestamped
            // entries (timestamp ‖ value, `__private::store_update_stamped`): the value
            // follows the stamp. Session and sliding stores' forwards read their entries
            // themselves.
            let stamped = m.stores[*store]
                .window
                .is_none_or(|w| w.kind == crate::ir::WindowKind::Time);
            (
                *store,
                stamped,
                quote!(self.#forward(&__dk_record, __dk_sink)),
            )
        }
        kind => {
            let Some(store) = crate::ops::table::changes_store(kind) else {
                return methods;
            };
            methods.extend(crate::ops::table::forward_methods(em, node));
            // The change's old value: the key's value at the last flush, which the cache kept.
            let call = quote!(self.#forward(
                &__dk_record,
                __dk_has_old.then_some(&__dk_fo[..]),
                __dk_sink,
            ));
            (store, true, call)
        }
    };
    let store_field = Emitter::store_field(store);
    let entry_value = if stamped {
        quote!(__dk_v.get(8..).unwrap_or_default())
    } else {
        quote!(__dk_v)
    };
    let node_name = &m.nodes[node].name;
    methods.extend(quote! {
        /// Forwards the current result of every dirty key of this aggregation, then
        /// forgets the keys (also when it fails).
        #[inline(never)]
        fn #flush<S: #dk::RecordSink>(
            &mut self,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::TaskError> {
            if self.#cache.is_empty() {
                return Ok(());
            }
            // The key and value are copied out of the cache and the store: the downstream
            // code needs the task mutably. The buffers keep their capacity across flushes.
            let mut __dk_fk = ::core::mem::take(&mut self.__fkbuf);
            let mut __dk_fv = ::core::mem::take(&mut self.__fvbuf);
            let mut __dk_fo = ::core::mem::take(&mut self.__fobuf);
            let mut __dk_out = Ok(());
            let mut __dk_i = 0usize;
            while let Some((__dk_key, __dk_entry)) = self.#cache.get(__dk_i) {
                __dk_i += 1;
                __dk_fk.clear();
                __dk_fk.extend_from_slice(__dk_key);
                __dk_fo.clear();
                let __dk_has_old = match self.#cache.old(&__dk_entry) {
                    Some(__dk_o) => {
                        __dk_fo.extend_from_slice(__dk_o);
                        true
                    }
                    None => false,
                };
                __dk_fv.clear();
                let __dk_present = match #dk::StoreBackend::get(&self.#store_field, &__dk_fk) {
                    Ok(Some(__dk_v)) => {
                        __dk_fv.extend_from_slice(#entry_value);
                        true
                    }
                    Ok(None) => false,
                    Err(e) => {
                        __dk_out = Err(#dk::TaskError::Store(e));
                        break;
                    }
                };
                // Created and deleted since the last flush: nothing to say downstream.
                if !__dk_present && !__dk_entry.existed {
                    continue;
                }
                let __dk_record = #dk::InputRecord {
                    source: __dk_entry.source,
                    partition: self.__partition,
                    offset: __dk_entry.offset,
                    key: Some(&__dk_fk),
                    value: if __dk_present { Some(&__dk_fv) } else { None },
                    timestamp: __dk_entry.timestamp,
                    headers: #dk::Headers::empty(),
                };
                let __dk_result = match ::std::panic::catch_unwind(
                    ::std::panic::AssertUnwindSafe(|| #call),
                ) {
                    Ok(r) => r,
                    Err(payload) => Err(#dk::panicked(#node_name, payload)),
                };
                if let Err(e) = __dk_result {
                    let __dk_topic = #dk::Task::source_topics(self)
                        .get(__dk_entry.source)
                        .copied()
                        .unwrap_or("");
                    if let Err(e) = #dk::handle_error(
                        e, __dk_topic, &__dk_record, #topo::__on_error, &mut self.__skipped, __dk_sink,
                    ) {
                        __dk_out = Err(e);
                        break;
                    }
                }
            }
            self.#cache.clear();
            self.__fkbuf = __dk_fk;
            self.__fvbuf = __dk_fv;
            self.__fobuf = __dk_fo;
            __dk_out
        }
    });

    methods
}
