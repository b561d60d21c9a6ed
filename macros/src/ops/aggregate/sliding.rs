//! The code of a sliding-window aggregation (`windowed_by(sliding(d))` then count, reduce or
//! aggregate): the runtime (`dekaf_streams::window`) lists the windows the record creates or
//! updates in Kafka Streams' order; this code runs each step with the user's types (load,
//! aggregate, store, forward stamped with the window's largest record timestamp).

use proc_macro2::TokenStream;
use quote::quote;

use super::direct_sink::{flushed_window_children, store_bytes_or};
use super::value::new_value;
use super::window_agg::WindowAgg;
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::AggOp;

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
    let (d, grace) = (wa.window.size, wa.window.grace);
    let retention = wa.window.retention();
    // A record updates several windows: its value is cloned per window.
    let new = new_value(em, node, store, op, k, v, false);
    let general = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    let general = quote! {
        let #nk = #dk::Windowed::new(::core::clone::Clone::clone(#krr), __dk_start, __dk_end);
        #general
    };
    // Sliding windows are written with TimeWindowed (key, start), as Kafka Streams does.
    let expected_key = quote!(::dekaf_streams::serdes::TimeWindowed<#kt, #d>);
    // The stored value is the window's largest record timestamp, then the aggregate.
    let children = store_bytes_or(
        em,
        node,
        &expected_key,
        vt,
        quote!(::dekaf_streams::store::time_windowed_bytes(&self.__kbuf)),
        quote!(if __dk_present {
            Some(&self.__vbuf[8..])
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
            #observe
            let __dk_close = #now.saturating_sub(#grace);
            if __dk_t.saturating_add(1 + #d) <= __dk_close {
                // Even the record's right window closed: late.
                self.__late += 1;
            } else {
                let __dk_klen = self.__kbuf.len();
                let __dk_visible = self.#max.saturating_sub(#retention).saturating_add(1);
                #dk::sliding_plan(&self.#field, &mut self.__kbuf, __dk_t, #d, __dk_visible, &mut self.__win, #name)?;
                for __dk_i in 0..self.__win.steps.len() {
                    let __dk_step = self.__win.steps[__dk_i];
                    let __dk_start = __dk_step.start;
                    let __dk_end = __dk_start.saturating_add(#d);
                    self.__kbuf.truncate(__dk_klen);
                    if __dk_step.apply && __dk_end < __dk_close {
                        // This window closed; the record still counts in the others.
                        self.__late += 1;
                        continue;
                    }
                    let (__dk_old, __dk_base_ts) = #dk::sliding_load::<#vt, _>(
                        &self.#field, &mut self.__kbuf, &self.__win, __dk_step, __dk_t, #name,
                    )?;
                    let (#nv, __dk_ts): (#vv, i64) = if __dk_step.apply {
                        (#new, ::core::cmp::max(__dk_t, __dk_base_ts))
                    } else {
                        match __dk_old {
                            Some(__dk_v) => (__dk_v, __dk_base_ts),
                            None => continue,
                        }
                    };
                    let __dk_present = #dk::sliding_store::<#vt, _, _>(
                        &mut self.#field, &mut self.__kbuf, &mut self.__vbuf, __dk_start, __dk_ts,
                        &#nv, __dk_sink, #changelog, self.__partition, #name,
                    )?;
                    self.#max = ::core::cmp::max(self.#max, __dk_start);
                    if __dk_present && __dk_step.base != #dk::Base::Stored {
                        self.#index.insert(&self.__kbuf);
                    }
                    if #cache_on {
                        // The flush forwards the window's latest value (`__forward_N`).
                        self.#cache.mark(&self.__kbuf, #dk::Update {
                            value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                            source: __dk_record.source,
                            timestamp: __dk_ts,
                            offset: __dk_record.offset,
                            existed: __dk_step.base == #dk::Base::Stored,
                        });
                    } else {
                        // Forwarded stamped with the window's largest record timestamp.
                        let __dk_out = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
                        let __dk_record = &__dk_out;
                        #children
                    }
                }
            }
        }
    }
}

/// The body of `__forward_N` of a sliding-window aggregation (its record cache's flush): the
/// dirty window `__dk_skey` (the store key: key bytes, start) with its stored value (the
/// window's largest record timestamp, then the aggregate), forwarded as the uncached
/// aggregation forwards it, stamped with that timestamp (Kafka Streams'
/// `TimestampedCacheFlushListener` forwards the stored `ValueAndTimestamp`'s).
pub(crate) fn forward(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let crate::ir::NodeKind::Aggregate { store, .. } = &n.kind else {
        return quote!();
    };
    let st = &em.m.stores[*store];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let Some(w) = st.window else {
        return quote!();
    };
    let d = w.size;
    let body = store_bytes_or(
        em,
        node,
        &quote!(::dekaf_streams::serdes::TimeWindowed<#kt, #d>),
        vt,
        quote!(::dekaf_streams::store::time_windowed_bytes(__dk_skey)),
        quote!(__dk_record.value),
        flushed_window_children(em, node, kt, vt),
    );
    quote! {
        let (__dk_kb, __dk_start) = match ::dekaf_streams::store::split_window_key(__dk_skey) {
            Some(split) => split,
            None => return Err(#dk::cache_key_error(#name)),
        };
        let __dk_end = __dk_start.saturating_add(#d);
        // The stored value: the window's largest record timestamp, then the aggregate.
        let (__dk_ts, __dk_agg) = match __dk_record.value {
            Some(__dk_v) if __dk_v.len() >= 8 => {
                let mut __dk_tb = [0u8; 8];
                __dk_tb.copy_from_slice(&__dk_v[..8]);
                (i64::from_be_bytes(__dk_tb), Some(&__dk_v[8..]))
            }
            _ => (__dk_record.timestamp, None),
        };
        let __dk_out = #dk::InputRecord { timestamp: __dk_ts, value: __dk_agg, ..*__dk_record };
        let __dk_record = &__dk_out;
        #body
    }
}
