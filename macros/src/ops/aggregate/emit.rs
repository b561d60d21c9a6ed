//! The per-record code of an aggregation (count, reduce, aggregate; unwindowed, time, session
//! and sliding windows) and the forward of its current result (by the record cache's flush,
//! [`super::cache`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;

use super::direct_sink::{flushed_window_children, store_bytes_or};
use super::raw_key::KeyIn;
use super::value::new_value;
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{AggOp, NodeKind, WindowKind, WindowSpec};

/// The update of the aggregation's store, then its children (or, with a record cache, the
/// key marked dirty).
pub(crate) fn emit(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    op: &AggOp,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    emit_keyed(em, node, store, op, KeyIn::Typed(k), v)
}

/// [`emit`] with the key from `key`.
pub(crate) fn emit_keyed(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    op: &AggOp,
    key: KeyIn<'_>,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let st = &em.m.stores[store];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let field = Emitter::store_field(store);
    let changelog = &st.changelog;
    let nv = format_ident!("__v{}", node);
    let windowed = st.window;
    let tumbling = windowed.is_some_and(|w| w.size == w.advance && w.kind == WindowKind::Time);
    // In a hopping window a record updates several windows: the value is cloned per window.
    let value_once = windowed.is_none() || tumbling;
    // `ke`: the key's store bytes into `__kbuf`; `bind`: what typed code needs first to have
    // the key in `k`.
    let (ke, bind, k) = match key {
        KeyIn::Typed(k) => {
            let kr = k.r(st.key.span);
            let ke = quote_spanned!(st.key.span=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?);
            (ke, quote!(), k.clone())
        }
        KeyIn::Raw { source, serde } => crate::ops::aggregate::raw_key::key_parts(
            em,
            source,
            serde,
            kt,
            st.key.span,
            name,
            value_once,
        ),
    };
    // The store key of an unwindowed aggregation, `__dk_skey`: a key kept as its record bytes
    // is used where it is (no copy into `__kbuf`); an encoded key is `__kbuf`'s bytes. A window
    // key appends the window start, so it is always built in `__kbuf`.
    let skey_local = match key {
        KeyIn::Typed(_) => quote! {
            let __dk_ke = #ke;
            let __dk_skey: &[u8] = &self.__kbuf;
        },
        KeyIn::Raw { source, .. } => {
            let kslice = crate::ops::aggregate::raw_key::key_slice(source, kt, st.key.span, name);
            quote! { let (__dk_ke, __dk_skey) = #kslice; }
        }
    };
    let skey = if windowed.is_some() {
        quote!(&self.__kbuf)
    } else {
        quote!(__dk_skey)
    };
    let k = &k;
    if let Some(w) = windowed {
        match w.kind {
            WindowKind::Session => {
                return crate::ops::aggregate::session::emit(em, node, store, op, k, v);
            }
            WindowKind::Sliding => {
                return crate::ops::aggregate::sliding::emit(em, node, store, op, k, v);
            }
            WindowKind::Time => {}
        }
    }
    let new = new_value(em, node, store, op, k, v, value_once);
    // A cogroup's time window that the store's retention passed reads as absent.
    let new = match crate::ops::cogroup::expired_window(em, node) {
        Some(_) => quote! {{
            let __dk_old = if __dk_hidden { None } else { __dk_old };
            #new
        }},
        None => new,
    };
    // The store is timestamped: the result carries the larger of the record's timestamp and
    // the aggregate's (`KStreamAggregate`, `KStreamReduce`, `KStreamWindowAggregate`), and so
    // does everything downstream of it.
    let update = quote! {
        let (#nv, __dk_present, __dk_existed, __dk_ts) = #dk::store_update_stamped::<#vt, _, _, _>(
            &mut self.#field, #skey, &mut self.__vbuf, __dk_sink, #changelog,
            self.__partition, __dk_record.timestamp, #name,
            |__dk_old| #new,
        )?;
        let __dk_arec = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
        let __dk_record = &__dk_arec;
    };
    let parts = Keyed {
        em,
        node,
        store,
        k,
        bind: &bind,
        ke: &ke,
        skey: &skey,
        update: &update,
        tumbling,
    };
    match windowed {
        None => parts.unwindowed(op, v, &skey_local),
        Some(w) => parts.windowed(w),
    }
}

/// What the per-record code of an aggregation is made of, once the key and the store update
/// are known.
struct Keyed<'a> {
    em: &'a Emitter<'a>,
    node: usize,
    store: usize,
    k: &'a Acc,
    /// What typed code needs first to have the key in `k` (a raw key's decoding).
    bind: &'a TokenStream,
    /// The key's store bytes into `__kbuf`.
    ke: &'a TokenStream,
    /// The store key.
    skey: &'a TokenStream,
    /// The update of the store: the new aggregate in `__v<node>`, its timestamp on the record.
    update: &'a TokenStream,
    tumbling: bool,
}

impl Keyed<'_> {
    /// With a record cache the update only marks the key dirty; `__flush_N` forwards it.
    fn cached(&self, children: TokenStream) -> TokenStream {
        let dk = dk();
        let cache = crate::ops::cogroup::cache_field(self.em, self.node);
        let skey = self.skey;
        let cache_on = super::cache::enabled(self.em, self.store);
        quote! {
            if #cache_on {
                self.#cache.mark(#skey, #dk::Update {
                    value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                    source: __dk_record.source,
                    timestamp: __dk_record.timestamp,
                    offset: __dk_record.offset,
                    existed: __dk_existed,
                });
            } else {
                #children
            }
        }
    }

    /// `count(..).to_stream().to(..)` with the store's own serdes: the sink's bytes are the
    /// store's, so they are sent as they are. The check is on types (constant after
    /// monomorphization), so any other serde takes the general path.
    fn direct(&self, general: TokenStream) -> TokenStream {
        let st = &self.em.m.stores[self.store];
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let key_bytes = match st.window {
            None => quote!(__dk_skey),
            Some(_) => quote!(&self.__kbuf),
        };
        let (expected_key, sink_key) = sink_key(kt, st.window, key_bytes);
        store_bytes_or(
            self.em,
            self.node,
            &expected_key,
            vt,
            sink_key,
            quote!(if __dk_present {
                self.__vbuf.get(8..)
            } else {
                None
            }),
            general,
        )
    }

    /// An aggregation without windows: one store entry per key.
    fn unwindowed(&self, op: &AggOp, v: &Acc, skey_local: &TokenStream) -> TokenStream {
        let (em, node, k, bind, update) = (self.em, self.node, self.k, self.bind, self.update);
        let dk = dk();
        let n = &em.m.nodes[node];
        let sp = n.span;
        let nv = format_ident!("__v{}", node);
        let cached = |children| self.cached(children);
        let direct = |general| self.direct(general);
        let general = em.children(node, k, &Acc::owned(nv.clone()));
        let children = cached(direct(quote!(#bind #general)));
        // A null value (`None` of a `Nullable` serde) is dropped too (`KStreamAggregate`,
        // `KStreamReduce`); a value only counted is the record's own.
        let parent = n.parents.first().map(|&p| &em.m.nodes[p].kind);
        let null_value = if matches!(op, AggOp::Count)
            && matches!(
                parent,
                Some(NodeKind::Source { .. } | NodeKind::RepartitionSource { .. })
            ) {
            quote!(__dk_record.value.is_none())
        } else {
            let vr = v.r(sp);
            quote!({
                use #dk::{NullProbeAny as _, NullProbeOption as _};
                (&#dk::NullProbe(#vr)).is_null()
            })
        };
        quote! {
            // Records whose key serializes to null are dropped and counted, as Kafka
            // Streams does.
            #skey_local
            if matches!(__dk_ke, #dk::Encoded::Present) && !#null_value {
                #update
                #children
            } else {
                self.__dropped += 1;
            }
        }
    }

    /// An aggregation over time windows (tumbling or hopping): one store entry per window the
    /// record falls in, late windows skipped, expired ones purged.
    fn windowed(&self, w: WindowSpec) -> TokenStream {
        let (em, node, store, k, bind, ke, update) = (
            self.em,
            self.node,
            self.store,
            self.k,
            self.bind,
            self.ke,
            self.update,
        );
        let tumbling = self.tumbling;
        let dk = dk();
        let n = &em.m.nodes[node];
        let (sp, name) = (n.span, &n.name);
        let st = &em.m.stores[store];
        let field = Emitter::store_field(store);
        let changelog = &st.changelog;
        let cache = crate::ops::cogroup::cache_field(em, node);
        let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
        let cached = |children| self.cached(children);
        let direct = |general| self.direct(general);
        let (size, advance, grace) = (w.size, w.advance, w.grace);
        // A raw key is decoded for each window's typed code: moved, not cloned.
        let wkey = if tumbling || !bind.is_empty() {
            k.o(sp)
        } else {
            let r = k.r(sp);
            quote!(::core::clone::Clone::clone(#r))
        };
        let general = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
        // Typed downstream code may write `__kbuf` (a sink): the next window encodes the key
        // again.
        let reset = (!tumbling).then(|| quote!(__dk_key_once = None;));
        let children = cached(direct(quote! {
            #bind
            let #nk = #dk::Windowed::new(#wkey, __dk_start, __dk_end);
            #general
            #reset
        }));
        // Retention (Kafka Streams' default: size + grace), counted from the window start.
        let retention = w.retention();
        let purge_every = (retention / 2).max(1);
        let purge = Emitter::purge_field(store);
        let index = Emitter::index_field(store);
        let (observe, now) = crate::ops::cogroup::stream_time(em, node);
        let (hidden, observed) = crate::ops::cogroup::expired_window(em, node).unwrap_or_default();
        let expire = quote! {
            if self.__stream_time >= self.#purge {
                // Windows starting at or before stream time − retention: gone.
                self.#index.expire(&mut self.#field, self.__stream_time.saturating_sub(#retention).saturating_add(1), Some(&self.#cache), __dk_sink, #changelog, self.__partition, __dk_record.timestamp, #name)?;
                self.#purge = self.__stream_time.saturating_add(#purge_every);
            }
        };
        // The key is encoded once per record (at its first window that is not late); each
        // window writes its suffix after those bytes.
        let kenc = if tumbling {
            quote!(let __dk_kenc = #ke;)
        } else {
            quote! {
                let __dk_kenc = match __dk_key_once {
                    Some((__dk_e, __dk_len)) => {
                        self.__kbuf.truncate(__dk_len);
                        __dk_e
                    }
                    None => {
                        let __dk_e = #ke;
                        __dk_key_once = Some((__dk_e, self.__kbuf.len()));
                        __dk_e
                    }
                };
            }
        };
        let body = quote! {
            let __dk_end = __dk_start.saturating_add(#size);
            if __dk_end <= __dk_close {
                // The window closed (stream time passed its end plus grace): late.
                self.__late += 1;
            } else {
                #kenc
                if matches!(__dk_kenc, #dk::Encoded::Present) {
                    ::dekaf_streams::store::window_key(&mut self.__kbuf, __dk_start);
                    #hidden
                    #update
                    #observed
                    if !__dk_existed && __dk_present {
                        self.#index.insert(&self.__kbuf);
                    }
                    #children
                }
            }
        };
        if tumbling {
            quote! {
                #expire
                #observe
                let __dk_close = #now.saturating_sub(#grace);
                let mut __dk_starts = #dk::window_starts(__dk_record.timestamp, #size, #advance);
                if let Some(__dk_start) = ::core::iter::Iterator::next(&mut __dk_starts) { #body }
            }
        } else {
            // In a block: an aggregation downstream in the same task has its own.
            quote! {{
                #expire
                #observe
                let __dk_close = #now.saturating_sub(#grace);
                let mut __dk_key_once: ::core::option::Option<(#dk::Encoded, usize)> = None;
                for __dk_start in #dk::window_starts(__dk_record.timestamp, #size, #advance) { #body }
            }}
        }
    }
}

/// The serde a direct sink's key must have to take the store's bytes (the key's, or for a time
/// window `TimeWindowed<K, size>`), and the expression of those bytes from the store key
/// `store_key` (a time window's store key ends in its start; the sink's adds the end).
fn sink_key(
    kt: &Type,
    window: Option<crate::ir::WindowSpec>,
    store_key: TokenStream,
) -> (TokenStream, TokenStream) {
    match window {
        None => (quote!(#kt), store_key),
        Some(w) => {
            let size = w.size;
            (
                quote!(::dekaf_streams::serdes::TimeWindowed<#kt, #size>),
                quote!(::dekaf_streams::store::time_windowed_bytes(#store_key)),
            )
        }
    }
}

/// The body of `__forward_N` of aggregation `node`: runs its downstream operators on the
/// current result of one dirty key. `__dk_record` is the synthesized record of the flush:
/// key = the store key bytes, value = the stored value bytes (`None`: deleted), timestamp of
/// the key's last update, no headers.
pub(crate) fn emit_forward(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::Aggregate { store, .. } = &n.kind else {
        return quote!();
    };
    let st = &em.m.stores[*store];
    let forward = match st.window.map(|w| w.kind) {
        Some(WindowKind::Session) => Some(crate::ops::aggregate::session::forward(em, node)),
        Some(WindowKind::Sliding) => Some(crate::ops::aggregate::sliding::forward(em, node)),
        _ => None,
    };
    if let Some(body) = forward {
        return quote! {
            let __dk_skey: &[u8] = __dk_record.key.unwrap_or_default();
            #body
        };
    }
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let (expected_key, sink_key) = sink_key(kt, st.window, quote!(__dk_skey));
    let general = match st.window {
        None => {
            let nv = format_ident!("__v{}", node);
            let nk = format_ident!("__k{}", node);
            let general = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
            quote! {
                let #nk = #dk::de_key::<#kt>(Some(__dk_skey), #name)?;
                let #nv = #dk::de_value::<#vt>(__dk_record.value, #name)?;
                #general
            }
        }
        Some(w) => {
            let size = w.size;
            let general = flushed_window_children(em, node, kt, vt);
            quote! {
                let (__dk_kb, __dk_start) = match ::dekaf_streams::store::split_window_key(__dk_skey) {
                    Some(split) => split,
                    None => return Err(#dk::cache_key_error(#name)),
                };
                let __dk_end = __dk_start.saturating_add(#size);
                #general
            }
        }
    };
    let body = store_bytes_or(
        em,
        node,
        &expected_key,
        vt,
        sink_key,
        quote!(__dk_record.value),
        general,
    );
    quote! {
        let __dk_skey: &[u8] = __dk_record.key.unwrap_or_default();
        #body
    }
}
