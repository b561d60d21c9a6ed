//! The code of a session-windowed aggregation (`windowed_by(session(gap))` then count, reduce
//! or aggregate): find the sessions the record merges with, merge them (deleting the old ones,
//! each replaced downstream by a tombstone), add the record, store and forward the merged
//! session. The algorithm is in the runtime (`dekaf_streams::window`); this is its typed glue.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::direct_sink::{flushed_window_children, store_bytes_or};
use super::value::{initializer, new_value};
use super::window_agg::WindowAgg;
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{AggOp, NodeKind};

/// The sinks that follow `to_stream()` of aggregation `node` directly (or of its cogroup's
/// merge node): they receive the
/// tombstones of merged-away sessions (typed operators in between see only the updates, as a
/// Rust value cannot be null).
pub(crate) fn tombstone_sinks<'m>(
    em: &Emitter<'m>,
    node: usize,
) -> Vec<(&'m String, &'m syn::Type, &'m syn::Type)> {
    let mut out = Vec::new();
    for &c in crate::ops::cogroup::table_children(em, node) {
        if !matches!(em.m.nodes[c].kind, NodeKind::ToStream) {
            continue;
        }
        for &s in &em.m.nodes[c].children {
            if let NodeKind::Sink {
                topic,
                key,
                value,
                chosen: None,
                partitioner: None,
            } = &em.m.nodes[s].kind
            {
                out.push((topic, &key.ty, &value.ty));
            }
        }
    }
    out
}

/// What a deleted (merged-away) session `[__dk_s, __dk_e]` sends: a tombstone to each sink
/// right after `to_stream()`, a drop to each window-closes suppression buffer and a delete to
/// each time-limit one. `self.__kbuf` holds the
/// serialized key (`__dk_klen` bytes, restored after each use); `key` is an expression of the
/// typed key, evaluated only for a sink whose key serde is not the store's.
fn deleted_session(em: &Emitter<'_>, node: usize, key: &TokenStream) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let NodeKind::Aggregate { store, .. } = &em.m.nodes[node].kind else {
        return quote!();
    };
    let kt = &em.m.stores[*store].key.ty;
    let expected_key = quote!(::dekaf_streams::serdes::SessionWindowed<#kt>);
    let tombstones = tombstone_sinks(em, node).into_iter().map(|(topic, sk, _)| {
        quote! {
            if ::core::any::TypeId::of::<#sk>() == ::core::any::TypeId::of::<#expected_key>() {
                // The store key is SessionWindowedSerializer's layout: send it as it is.
                #dk::session_key(&mut self.__kbuf, __dk_s, __dk_e);
                let __dk_sent = #dk::send(__dk_sink, #topic, #dk::TopicKind::Sink, Some(&self.__kbuf), None, __dk_e, __dk_record.headers);
                self.__kbuf.truncate(__dk_klen);
                __dk_sent?;
            } else {
                let __dk_wk = #dk::Windowed::new(#key, __dk_s, __dk_e);
                let __dk_enc = #dk::ser::<#sk>(&__dk_wk, &mut self.__vbuf, #name)?;
                #dk::send(__dk_sink, #topic, #dk::TopicKind::Sink, #dk::bytes(__dk_enc, &self.__vbuf), None, __dk_e, __dk_record.headers)?;
            }
        }
    });
    let drops = crate::ops::suppress::suppressions(em, node)
        .into_iter()
        .map(|(buffer, suppress)| crate::ops::suppress::drop_session(em, buffer, suppress));
    // A time-limit suppression buffers the delete and forwards it after its limit, as Kafka
    // Streams' suppression forwards the session's tombstone.
    let buffered = crate::ops::suppress::time_limit_suppressions(em, node)
        .into_iter()
        .map(|(_, suppress)| crate::ops::suppress::buffer_session_delete(em, suppress));
    quote! {
        #(#tombstones)*
        #(#drops)*
        #(#buffered)*
    }
}

/// The body of `__forward_N` of a session aggregation (its record cache's flush): the dirty
/// session `__dk_skey` (the store key: key bytes, end, start) with its value, or its deletion
/// (`None`), forwarded as the uncached aggregation forwards it, stamped with the session's end
/// (Kafka Streams' `SessionCacheFlushListener`). `general` runs the downstream operators on
/// the session as a typed `Windowed` key and value, or the store's bytes go as they are to a
/// direct sink with the store's serdes.
pub(crate) fn forward(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::Aggregate { store, .. } = &n.kind else {
        return quote!();
    };
    let st = &em.m.stores[*store];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let deleted = deleted_session(em, node, &quote!(#dk::de_key::<#kt>(Some(__dk_kb), #name)?));
    // The store key is SessionWindowedSerializer's layout: sent as it is.
    let updated = store_bytes_or(
        em,
        node,
        &quote!(::dekaf_streams::serdes::SessionWindowed<#kt>),
        vt,
        quote!(__dk_skey),
        quote!(__dk_record.value),
        flushed_window_children(em, node, kt, vt),
    );
    quote! {
        let (__dk_kb, __dk_start, __dk_end) = match #dk::split_session_key(__dk_skey) {
            Some(split) => split,
            None => return Err(#dk::cache_key_error(#name)),
        };
        let __dk_out = #dk::InputRecord { timestamp: __dk_end, ..*__dk_record };
        let __dk_record = &__dk_out;
        if __dk_record.value.is_some() {
            #updated
        } else {
            self.__kbuf.clear();
            self.__kbuf.extend_from_slice(__dk_kb);
            let __dk_klen = self.__kbuf.len();
            let (__dk_s, __dk_e) = (__dk_start, __dk_end);
            #deleted
        }
    }
}

/// The aggregation's code for one record (key `k`, value `v`).
pub(crate) fn emit(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    op: &AggOp,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let cache_on = super::cache::enabled(em, store);
    let Some(wa) = WindowAgg::new(em, node, store, k) else {
        return quote!();
    };
    let WindowAgg {
        name,
        span: sp,
        kt,
        vt,
        ref vv,
        ref field,
        ref max,
        ref index,
        ref cache,
        changelog,
        ref nk,
        ref nv,
        key_ref: ref krr,
        ..
    } = wa;
    let (gap, grace) = (wa.window.size, wa.window.grace);
    let retention = wa.window.retention();
    let new = new_value(em, node, store, op, k, v, true);
    // Kafka Streams' mergers: count adds, reduce reduces, aggregate calls the user's merger.
    let merge = match op {
        AggOp::Count => quote!(match __dk_a {
            Some(a) => i64::saturating_add(a, __dk_b),
            None => __dk_b,
        }),
        AggOp::Reduce(f) => {
            let call = quote_spanned!(sp=> #dk::reduce(__dk_a, __dk_b, #f));
            quote!(match __dk_a { Some(__dk_a) => #call, None => __dk_b })
        }
        AggOp::Aggregate { init, merger, .. } => {
            let init = initializer(init, vt);
            let call = match merger {
                Some(m) => quote_spanned!(sp=> #dk::session_merger(#krr, __dk_a, __dk_b, #m)),
                None => quote!(__dk_b),
            };
            quote! {{
                let __dk_a = match __dk_a { Some(a) => a, None => #init };
                #call
            }}
        }
    };
    let expected_key = quote!(::dekaf_streams::serdes::SessionWindowed<#kt>);
    let deleted = deleted_session(em, node, &quote!(::core::clone::Clone::clone(#krr)));
    let general = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    let ko = k.o(sp);
    let general = quote! {
        let #nk = #dk::Windowed::new(#ko, __dk_span.start, __dk_span.end);
        #general
    };
    let children = store_bytes_or(
        em,
        node,
        &expected_key,
        vt,
        quote!(&self.__kbuf),
        quote!(if __dk_present {
            Some(&self.__vbuf)
        } else {
            None
        }),
        general,
    );
    let prelude = wa.prelude();
    let (observe, now) = crate::ops::cogroup::stream_time(em, node);
    quote! {
        #prelude
        if matches!(__dk_ke, #dk::Encoded::Present) {
            let __dk_t = __dk_record.timestamp;
            // Kafka Streams: a session closes gap + grace after its end.
            #observe
            let __dk_close = #now.saturating_sub(#grace).saturating_sub(#gap);
            let __dk_span = #dk::session_find(
                &self.#field, &self.__kbuf, __dk_t, #gap,
                self.#max.saturating_sub(#retention).saturating_add(1),
                &mut self.__win.sessions, &mut self.__win.lo, &mut self.__win.hi, #name,
            )?;
            if __dk_span.end < __dk_close {
                self.__late += 1;
            } else {
                // Merging into anything but the record's own [t, t] replaces the old sessions.
                let __dk_remove = __dk_span != #dk::SessionSpan { start: __dk_t, end: __dk_t };
                let __dk_old: ::core::option::Option<#vv> = #dk::session_merge::<#vt, _, _, _>(
                    &mut self.#field, &mut self.#index, &mut self.__kbuf, &self.__win.sessions, __dk_remove,
                    __dk_sink, #changelog, self.__partition, __dk_t, #name,
                    |__dk_a: ::core::option::Option<#vv>, __dk_b: #vv| -> #vv { #merge },
                )?;
                if __dk_remove {
                    let __dk_klen = self.__kbuf.len();
                    for __dk_i in 0..self.__win.sessions.len() {
                        let (__dk_s, __dk_e) = self.__win.sessions[__dk_i];
                        if #cache_on {
                            // With a record cache the deletion waits for the flush: a session
                            // created and merged away in one interval is never forwarded.
                            #dk::session_key(&mut self.__kbuf, __dk_s, __dk_e);
                            self.#cache.mark(&self.__kbuf, #dk::Update {
                                value_len: 0,
                                source: __dk_record.source,
                                timestamp: __dk_e,
                                offset: __dk_record.offset,
                                existed: true,
                            });
                            self.__kbuf.truncate(__dk_klen);
                        } else {
                            #deleted
                        }
                    }
                }
                let #nv: #vv = #new;
                #dk::session_key(&mut self.__kbuf, __dk_span.start, __dk_span.end);
                let __dk_present = #dk::store_put::<#vt, _, _>(
                    &mut self.#field, &self.__kbuf, &#nv, &mut self.__vbuf, __dk_sink, #changelog,
                    self.__partition, __dk_t, #name,
                )?;
                self.#max = ::core::cmp::max(self.#max, __dk_span.end);
                if __dk_present {
                    // Indexed once (a session replaced in place keeps its entry).
                    self.#index.insert(&self.__kbuf);
                }
                if #cache_on {
                    // The flush forwards the session's latest value (`__forward_N`), stamped
                    // with its end. It existed before only if it was replaced in place.
                    self.#cache.mark(&self.__kbuf, #dk::Update {
                        value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                        source: __dk_record.source,
                        timestamp: __dk_span.end,
                        offset: __dk_record.offset,
                        existed: !__dk_remove && !self.__win.sessions.is_empty(),
                    });
                } else {
                    // Forwarded stamped with the session's end, as Kafka Streams does.
                    let __dk_out = #dk::InputRecord { timestamp: __dk_span.end, ..*__dk_record };
                    let __dk_record = &__dk_out;
                    #children
                }
            }
        }
    }
}
