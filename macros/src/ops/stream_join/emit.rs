//! Code of a stream-stream join: the task's join state (one per join), the restore of its
//! window stores, and each side's per-record code (runtime support: `dekaf_streams::join`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::args::takes_key;
use crate::codegen::emitter::{Acc, Emit, Emitter, Part, dk};
use crate::codegen::parts::TaskParts;
use crate::ir::{JoinKind, Model, NodeKind, StoreOwner, StreamJoinSide, Sub};
use crate::ops::merge::respan;

fn state_field(node: usize) -> proc_macro2::Ident {
    format_ident!("__join_{}", node)
}

/// The task state of the joins of `sub`: one `JoinState` per join (fields, initializers,
/// `clear`), the restore of their window stores, and a full restore after an aborted interval.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let m = em.m;
    let mut parts = TaskParts::default();
    let sj = quote!(::dekaf_streams::__private::stream_join);
    for &n in &sub.nodes {
        if let NodeKind::StreamJoin(j) = &m.nodes[n].kind
            && j.left
        {
            let f = state_field(j.state);
            let retention = j.window.retention();
            parts.fields.extend(quote!(#f: #sj::JoinState,));
            parts
                .inits
                .extend(quote!(#f: #sj::JoinState::new(#retention),));
            parts.clear.extend(quote!(self.#f.reset();));
            parts.full_restore = true;
        }
    }
    for &s in &sub.stores {
        if m.stores[s].logged || m.stores[s].owner == StoreOwner::Table {
            parts.restores.extend(restore(m, s));
        }
    }
    parts
}

/// The restore arm of a join window store, if `store` is one.
fn restore(m: &Model, store: usize) -> Option<TokenStream> {
    if !matches!(m.stores[store].owner, StoreOwner::JoinWindow(_)) {
        return None;
    }
    let sj = quote!(::dekaf_streams::__private::stream_join);
    let (state, side) = m.nodes.iter().find_map(|n| match &n.kind {
        NodeKind::StreamJoin(j) if j.left && j.this_store == store => Some((j.state, quote!(left))),
        NodeKind::StreamJoin(j) if j.left && j.other_store == store => {
            Some((j.state, quote!(right)))
        }
        _ => None,
    })?;
    let topic = &m.stores[store].changelog;
    let f = Emitter::store_field(store);
    let st = state_field(state);
    Some(quote! {
        #topic => {
            let __dk_state = &mut self.#st;
            #sj::restore_window(&mut self.#f, &mut __dk_state.#side, &mut __dk_state.buffers, key, value)
        }
    })
}

/// The user's joiner, bound to the join's value types. Spanned at the user's closure (the whole
/// path too), so a closure whose parameters disagree with the streams' value serdes is reported
/// there.
fn typed_joiner(j: &StreamJoinSide) -> TokenStream {
    let (vl, vr) = (&j.left_value.ty, &j.right_value.ty);
    let f = &j.f;
    let fspan = f.span();
    if takes_key(f) {
        let kt = if j.left { &j.key.ty } else { &j.right_key.ty };
        return match j.kind {
            JoinKind::Inner => quote_spanned!(fspan=>
                ::dekaf_streams::__private::stream_join::join_closure_takes_the_key_and_the_left_and_right_values::<#kt, #vl, #vr, _, _>(#f)),
            JoinKind::Left => quote_spanned!(fspan=>
                ::dekaf_streams::__private::stream_join::left_join_closure_takes_the_key_the_left_value_and_an_optional_right_value::<#kt, #vl, #vr, _, _>(#f)),
            JoinKind::Outer => quote_spanned!(fspan=>
                ::dekaf_streams::__private::stream_join::outer_join_closure_takes_the_key_and_an_optional_left_and_an_optional_right_value::<#kt, #vl, #vr, _, _>(#f)),
        };
    }
    match j.kind {
        JoinKind::Inner => quote_spanned!(fspan=>
            ::dekaf_streams::__private::stream_join::join_closure_takes_the_left_and_right_values::<#vl, #vr, _, _>(#f)),
        JoinKind::Left => quote_spanned!(fspan=>
            ::dekaf_streams::__private::stream_join::left_join_closure_takes_the_left_value_and_an_optional_right_value::<#vl, #vr, _, _>(#f)),
        JoinKind::Outer => quote_spanned!(fspan=>
            ::dekaf_streams::__private::stream_join::outer_join_closure_takes_an_optional_left_and_an_optional_right_value::<#vl, #vr, _, _>(#f)),
    }
}

/// The key argument of a joiner that takes the key (`key`, a reference), else nothing.
fn key_arg(j: &StreamJoinSide, key: &TokenStream) -> TokenStream {
    if takes_key(&j.f) {
        quote!(#key,)
    } else {
        quote!()
    }
}

/// The joiner `__dk_f` applied to one side's value `x` (a reference) and no partner; `key` is
/// the record's key (a reference), passed to a joiner that takes it.
fn only_one(j: &StreamJoinSide, left: bool, key: &TokenStream, x: TokenStream) -> TokenStream {
    let fspan = j.f.span();
    let ka = key_arg(j, key);
    match (j.kind, left) {
        (JoinKind::Outer, true) => {
            quote_spanned!(fspan=> __dk_f(#ka ::core::option::Option::Some(#x), ::core::option::Option::None))
        }
        (JoinKind::Outer, false) => {
            quote_spanned!(fspan=> __dk_f(#ka ::core::option::Option::None, ::core::option::Option::Some(#x)))
        }
        _ => quote_spanned!(fspan=> __dk_f(#ka #x, ::core::option::Option::None)),
    }
}

/// Whether this side of the join forwards a record without a partner (the left side of a left
/// join, both sides of an outer join): then a record with a null key is forwarded at once with
/// no partner, as Kafka Streams' `KStreamKStreamJoin` does.
fn emits_unmatched(j: &StreamJoinSide) -> bool {
    j.kind == JoinKind::Outer || (j.kind == JoinKind::Left && j.left)
}

/// The result of a record with a null key (whose value is `v`, a reference) on a side that
/// [`emits_unmatched`]: the joiner on the value and no partner.
fn null_key_result(j: &StreamJoinSide, v: TokenStream) -> TokenStream {
    let typed = typed_joiner(j);
    let call = only_one(j, j.left, &quote!(), quote!(__dk_vref));
    quote!({
        let mut __dk_f = #typed;
        let __dk_vref = #v;
        #call
    })
}

/// The code of the join's nodes: its sides, and the windowed nodes before them.
pub(crate) const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::StreamJoin(j) => Some(emit(em, node, j, k, v)),
        NodeKind::JoinWindowed { .. } => Some(em.children(node, k, v)),
        _ => None,
    }
}

/// A record with a null key is joined with no partner and forwarded by a side that emits
/// unmatched records (`KStreamKStreamJoin`); every other record with a null part is dropped.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let j = match &n.kind {
        NodeKind::JoinWindowed { .. } => return Some(em.null_children(node, k, v)),
        NodeKind::StreamJoin(j) => j,
        _ => return None,
    };
    Some(match (k, v) {
        // A joiner that takes the key cannot take a missing one.
        (Part::Null, Part::Val(_)) if emits_unmatched(j) && takes_key(&j.f) => {
            em.null_fails(node, "a stream-stream join", k)
        }
        (Part::Null, Part::Val(va)) if emits_unmatched(j) => {
            let nv = format_ident!("__v{}", node);
            let call = null_key_result(j, va.r(sp));
            let children = em.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
            quote! {
                if __dk_record.timestamp < 0 {
                    return Err(#dk::stream_join::invalid_timestamp(#name, __dk_record.timestamp));
                }
                let #nv = #call;
                #children
            }
        }
        _ => quote!(self.__dropped += 1;),
    })
}

/// One side's code: checks, the flush of closed outer records, the lookup of partners in the
/// other side's window store, the unmatched result (or its wait in the outer store), and the
/// put of the record into this side's window store.
fn emit(em: &Emitter<'_>, node: usize, j: &StreamJoinSide, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let sj = quote!(#dk::stream_join);
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let st = state_field(j.state);
    let (this_side, other_side) = if j.left {
        (quote!(left), quote!(right))
    } else {
        (quote!(right), quote!(left))
    };
    let (this_byte, other_byte) = if j.left { (1u8, 0u8) } else { (0u8, 1u8) };
    let w = j.window;
    let (this_before, this_after) = if j.left {
        (w.before, w.after)
    } else {
        (w.after, w.before)
    };
    let this_store = Emitter::store_field(j.this_store);
    let other_store = Emitter::store_field(j.other_store);
    let this_changelog = &em.m.stores[j.this_store].changelog;
    // This side's key serde: both serialize one type (asserted below when written differently).
    let kt = if j.left { &j.key.ty } else { &j.right_key.ty };
    let (vl, vr) = (&j.left_value.ty, &j.right_value.ty);
    let (vt, vo) = if j.left { (vl, vr) } else { (vr, vl) };
    let f = &j.f;
    let fspan = f.span();
    let typed = typed_joiner(j);
    // The joiner applied to this record's value `t` and a partner `o` (references), or to one
    // side only.
    let kref_t = quote!(__dk_kref);
    let ka = key_arg(j, &kref_t);
    let both = |t: TokenStream, o: TokenStream| {
        let (l, r) = if j.left { (t, o) } else { (o, t) };
        match j.kind {
            JoinKind::Inner => quote_spanned!(fspan=> __dk_f(#ka #l, #r)),
            JoinKind::Left => {
                quote_spanned!(fspan=> __dk_f(#ka #l, ::core::option::Option::Some(#r)))
            }
            JoinKind::Outer => quote_spanned!(fspan=> __dk_f(#ka
                ::core::option::Option::Some(#l),
                ::core::option::Option::Some(#r)
            )),
        }
    };
    let only = |left: bool, x: TokenStream| only_one(j, left, &kref_t, x);
    let nv = format_ident!("__v{}", node);
    let kref = Acc {
        ident: format_ident!("__dk_kref"),
        is_ref: true,
    };
    let children_ref_key = em.children(node, &kref, &Acc::owned(nv.clone()));
    let changelog = |topic: &str| quote!(&mut #sj::Changelog { sink: &mut *__dk_sink, topic: #topic, partition: self.__partition });
    let serr = quote!(|e| #dk::store_error(#name, e));

    let this_emits_unmatched = emits_unmatched(j);
    let shared = j
        .shared
        .map(|s| (Emitter::store_field(s), em.m.stores[s].changelog.clone()));

    let flush = flush_expired(em, node, j);

    let on_match = match &shared {
        Some((sh, topic)) => {
            let cl = changelog(topic);
            quote! {
                #sj::outer::matched(&mut self.#sh, &mut __dk_b.outer, #other_byte, &__dk_b.key, __dk_ots, __dk_ts, #cl).map_err(#serr)?;
            }
        }
        None => quote!(),
    };
    let matched_value = both(quote!(__dk_vref), quote!(&__dk_ov));

    let unmatched_value = only(j.left, quote!(__dk_vref));
    let unmatched = match (&shared, this_emits_unmatched) {
        (Some((sh, topic)), true) => {
            let cl = changelog(topic);
            quote! {
                if __dk_b.found.is_empty() {
                    if (__dk_ts.saturating_add(#this_after)).max(0) < self.#st.tracker.stream_time {
                        // The record's window closed already: no partner can come.
                        let #nv = #unmatched_value;
                        #children_ref_key
                    } else {
                        #sj::outer::put(&mut self.#sh, &mut self.#st.tracker, &mut __dk_b.outer, #this_byte, &__dk_b.key, __dk_ts, &__dk_b.value, #cl).map_err(#serr)?;
                    }
                }
            }
        }
        _ => quote!(),
    };
    // Kafka Streams (`KStreamKStreamJoin`) drops a record with a null key or value (a warning
    // and `dropped-records`), except that the outer side forwards a null-key record at once,
    // with no partner.
    let null_key = if this_emits_unmatched {
        quote! {
            if #dk::ser::<#vt>(__dk_vref, &mut __dk_b.value, #name)? == #dk::Encoded::Null {
                self.__dropped += 1;
            } else {
                let #nv = #unmatched_value;
                #children_ref_key
            }
        }
    } else {
        quote!(self.__dropped += 1;)
    };
    let key_check = if !j.left && j.key.text() != j.right_key.text() {
        // Both serdes are re-spanned to the join, so rustc reports a mismatch there.
        let (a, b) = (respan(&j.key.ty, sp), respan(&j.right_key.ty, sp));
        let check = quote_spanned!(sp=> #sj::joined_streams_need_one_key_type::<#a, #b>());
        quote!(const _: () = #check;)
    } else {
        quote!()
    };

    let kr = k.r(sp);
    let vrf = v.r(sp);
    quote! {
        #key_check
        let __dk_ts = __dk_record.timestamp;
        if __dk_ts < 0 {
            return Err(#sj::invalid_timestamp(#name, __dk_ts));
        }
        self.#st.tracker.advance(__dk_ts);
        let mut __dk_f = #typed;
        let __dk_kref = #kr;
        let __dk_vref = #vrf;
        let mut __dk_b = ::core::mem::take(&mut self.#st.buffers);
        if #dk::ser::<#kt>(__dk_kref, &mut __dk_b.key, #name)? == #dk::Encoded::Null {
            #null_key
        } else {
            if #dk::ser::<#vt>(__dk_vref, &mut __dk_b.value, #name)? == #dk::Encoded::Null {
                self.__dropped += 1;
            } else {
            #flush
            #sj::window::fetch(
                &self.#other_store, &self.#st.#other_side, &mut __dk_b.window, &__dk_b.key,
                __dk_ts.saturating_sub(#this_before).max(0), __dk_ts.saturating_add(#this_after).max(0),
                &mut __dk_b.found_values, &mut __dk_b.found,
            ).map_err(#serr)?;
            for __dk_i in 0..__dk_b.found.len() {
                let (__dk_ots, __dk_s, __dk_e) = __dk_b.found[__dk_i];
                #on_match
                let __dk_ov = #dk::de_value::<#vo>(::core::option::Option::Some(&__dk_b.found_values[__dk_s..__dk_e]), #name)?;
                let #nv = #matched_value;
                let __dk_jrec = #dk::InputRecord { timestamp: __dk_ts.max(__dk_ots), ..*__dk_record };
                let __dk_record = &__dk_jrec;
                #children_ref_key
            }
            #unmatched
            #sj::window::put(
                &mut self.#this_store, &mut self.#st.#this_side, &mut __dk_b.window, &__dk_b.key,
                __dk_ts, &__dk_b.value, ::core::option::Option::Some((&mut *__dk_sink, #this_changelog, self.__partition)),
            ).map_err(#serr)?;
            }
        }
        self.#st.buffers = __dk_b;
    }
}

/// A left or outer join's flush of its outer records whose window closed (at the record that
/// moved stream time): each is joined with no partner and forwarded, stamped with its time.
fn flush_expired(em: &Emitter<'_>, node: usize, j: &StreamJoinSide) -> TokenStream {
    let dk = dk();
    let sj = quote!(#dk::stream_join);
    let name = &em.m.nodes[node].name;
    let st = state_field(j.state);
    let (before, after, grace) = (j.window.before, j.window.after, j.window.grace);
    let kt = if j.left { &j.key.ty } else { &j.right_key.ty };
    let (vl, vr) = (&j.left_value.ty, &j.right_value.ty);
    let only = |left: bool, x: TokenStream| only_one(j, left, &quote!(&__dk_fk), x);
    let nv = format_ident!("__v{}", node);
    let changelog = |topic: &str| quote!(&mut #sj::Changelog { sink: &mut *__dk_sink, topic: #topic, partition: self.__partition });
    let serr = quote!(|e| #dk::store_error(#name, e));
    let shared = j
        .shared
        .map(|s| (Emitter::store_field(s), em.m.stores[s].changelog.clone()));
    match &shared {
        Some((sh, topic)) => {
            let cl = changelog(topic);
            let fk = format_ident!("__dk_fk");
            let children = em.children(
                node,
                &Acc {
                    ident: fk.clone(),
                    is_ref: false,
                },
                &Acc::owned(nv.clone()),
            );
            let left_only = only(true, quote!(&__dk_ov));
            let right_arm = if j.kind == JoinKind::Outer {
                let right_only = only(false, quote!(&__dk_ov));
                quote! {
                    let __dk_ov = #dk::de_value::<#vr>(::core::option::Option::Some(__dk_vb), #name)?;
                    #right_only
                }
            } else {
                quote!(continue)
            };
            quote! {
                if __dk_ts == self.#st.tracker.stream_time {
                    #sj::outer::take_expired(
                        &mut self.#sh, &mut self.#st.tracker, &mut __dk_b.outer,
                        #before, #after, #grace, __dk_ts, #cl,
                    ).map_err(#serr)?;
                    for __dk_i in 0..__dk_b.outer.records.len() {
                        let __dk_r = __dk_b.outer.records[__dk_i];
                        let #fk = #dk::de_key::<#kt>(::core::option::Option::Some(&__dk_b.outer.bytes[__dk_r.key.0..__dk_r.key.1]), #name)?;
                        let __dk_vb = &__dk_b.outer.bytes[__dk_r.value.0..__dk_r.value.1];
                        let #nv = if __dk_r.side == #sj::outer::LEFT {
                            let __dk_ov = #dk::de_value::<#vl>(::core::option::Option::Some(__dk_vb), #name)?;
                            #left_only
                        } else {
                            #right_arm
                        };
                        let __dk_jrec = #dk::InputRecord { timestamp: __dk_r.timestamp, ..*__dk_record };
                        let __dk_record = &__dk_jrec;
                        #children
                    }
                }
            }
        }
        None => quote!(),
    }
}
